#!/usr/bin/env python3
"""The 16-bit wire of mpt.all_reduce against the f32 wire and the exact mean.

  wire.py step K OUT.mlir WIRE         a data-parallel step whose update is
                                       mpt.all_reduce mean of its data row
                                       (WIRE: bf16, f16 or f32)
  wire.py data N K OUT.npz             one batch of N rows of K values, one
                                       row per rank, magnitudes 1e-3..1e3
  wire.py check DATA.npz F32.npz WIRE.npz bf16|f16
                                       checks the saved results (below)

check: the exact mean (float64) of the N rows is m, S = sum_i |x_i| per
element. The f32 wire (MPI_Allreduce, f32 sums) is within N * 2^-24 * S of
m. The 16-bit ring divides each rank's values by N (f32), then rounds each
partial sum it passes on, and the complete sum, to the wire type: N
roundings of values at most (S / N) (1 + u)^N, each relative u (2^-8 bf16,
2^-11 f16), so the mean is within u (1 + u)^N S of m, plus f32's roundings
of the divisions and sums, at most N 2^-24 S. It also checks that every
result is a wire value (what travelled was 16 bits), and prints the
largest error relative to the bound and to u S."""
import sys

import numpy as np

UNIT = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def step(k, out, wire):
    attr = "" if wire == "f32" else " {wire = %s}" % wire
    with open(out, "w") as f:
        f.write("""func.func @reduce(%%p: tensor<%(k)dxf32> {mpt.role = "param"},
                   %%x: tensor<1x%(k)dxf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<%(k)dxf32> {mpt.updates = 0 : i64})
    attributes {mpt.data_parallel = "%(wire)s"} {
  %%flat = tensor.collapse_shape %%x [[0, 1]] : tensor<1x%(k)dxf32> into tensor<%(k)dxf32>
  %%r = mpt.all_reduce mean %%flat%(attr)s : tensor<%(k)dxf32>
  %%c0 = arith.constant 0 : index
  %%e = tensor.extract %%r[%%c0] : tensor<%(k)dxf32>
  %%l = tensor.from_elements %%e : tensor<f32>
  return %%l, %%r : tensor<f32>, tensor<%(k)dxf32>
}
""" % {"k": k, "wire": wire, "attr": attr})


def data(n, k, out):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, n, k)) * 10.0 ** rng.uniform(-3, 3, (1, n, k))
    np.savez(out, x=x.astype(np.float32))


def to_wire(v, wire):
    if wire == "f16":
        return v.astype(np.float16).astype(np.float32)
    bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def check(data_npz, f32_npz, wire_npz, wire):
    x = np.load(data_npz)["x"][0].astype(np.float64)
    n = x.shape[0]
    exact = x.mean(axis=0)
    s = np.abs(x).sum(axis=0)
    f32 = np.load(f32_npz)["p"].astype(np.float64)
    low = np.load(wire_npz)["p"]
    u = UNIT[wire]
    ok = True
    f32_err = np.abs(f32 - exact)
    if np.any(f32_err > n * 2.0 ** -24 * s):
        print("f32 wire: outside N 2^-24 S at %d elements" % np.sum(f32_err > n * 2.0 ** -24 * s))
        ok = False
    bound = u * (1 + u) ** n * s + n * 2.0 ** -24 * s
    err = np.abs(low.astype(np.float64) - exact)
    if np.any(err > bound):
        i = int(np.argmax(err / bound))
        print("%s wire: %d elements outside the bound, worst %d: %g vs %g (bound %g)"
              % (wire, np.sum(err > bound), i, low[i], exact[i], bound[i]))
        ok = False
    # What travelled was 16 bits: every result is a wire value.
    if np.any(to_wire(low, wire) != low):
        print("%s wire: results are not %s values" % (wire, wire))
        ok = False
    print("%s wire, %d ranks: largest error %.3g of the bound, %.3g of u S; f32 wire: %.3g of N 2^-24 S"
          % (wire, n, np.max(err / bound), np.max(err / (u * s)),
             np.max(f32_err / (n * 2.0 ** -24 * s))))
    sys.exit(0 if ok else 1)


def main():
    cmd = sys.argv[1]
    if cmd == "step":
        step(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif cmd == "data":
        data(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        check(*sys.argv[2:6])


if __name__ == "__main__":
    main()
