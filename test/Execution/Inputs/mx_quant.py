"""MX quantization of mpt-run against a NumPy reference of OCP MX v1.0.

  mx_quant.py inputs OUT.npz                    writes x (64x48) and eye
  mx_quant.py check FORMAT IN.npz SAVED.npz [--ftz] [--ceil]
                                                FORMAT: e4m3 (mxfp8), e2m1

The reference (float64, exact): per block of 32 along a row (the last
block of each row has 16), amax = max |x|; a block holding a NaN or an
infinity has a NaN scale and dequantizes to NaN; otherwise the shared
exponent is floor(log2(amax)) - emax (8 for E4M3, 2 for E2M1), clamped to
-127 (a zero or subnormal amax gives -127), and each element is x / 2^shared
rounded to nearest even in the element format and saturated to its largest
finite value (448, 6). --ceil (mx-scale=ceil): the shared exponent is one
more where amax / 2^shared would exceed the largest finite value, the
smallest power of two that saturates nothing. The dequantized value (element * 2^shared) is then
rounded to bf16, the type the contraction reads (exact but below 2^-126).
The E4M3 rounding is checked against torch's float8_e4m3fn (which
saturates) on every element; torch has no unpacked E2M1 type.

mpt-run's y = x @ eye holds the dequantized values: compared as values
(every NaN equal to every NaN; a -0 element comes out as +0 from the f32
accumulation, so signed zeros are not observable here). --ftz: the path
flushes f32 denormals to zero (AVX512-BF16's vcvtneps2bf16 and vdpbf16ps,
docs/CPUBackend.md; AMX's tile ops), so a dequantized magnitude below
2^-126 may also come out as zero.
"""
import sys
import numpy as np
import torch

R, K, BLOCK = 64, 48, 32
FORMATS = {
    # mantissa bits, smallest normal exponent, largest finite, emax
    "e4m3": (3, -6, 448.0, 8),
    "e2m1": (1, 0, 6.0, 2),
}


def element_values(fmt):
    m, emin, top, _ = FORMATS[fmt]
    v = [k * 2.0 ** (emin - m) for k in range(2 ** m)]
    e = emin
    while True:
        row = [(1 + k / 2 ** m) * 2.0 ** e for k in range(2 ** m)]
        v += [r for r in row if r <= top]
        if row[-1] >= top:
            break
        e += 1
    return np.array(sorted(set(v)))


def inputs():
    g = np.random.default_rng(17)
    x = np.zeros((R, K), np.float64)
    blocks = [(0, 32), (32, 48)]

    def fill(r, fn):
        for lo, hi in blocks:
            x[r, lo:hi] = fn(hi - lo)

    r = 0
    for _ in range(14):  # normal samples, one power-of-two scale per block
        fill(r, lambda n: g.standard_normal(n) * 2.0 ** g.integers(-30, 31))
        r += 1
    for fmt in ("e4m3", "e2m1"):  # ties and their f32 neighbours, amax 1
        emax = FORMATS[fmt][3]
        v = element_values(fmt)
        mid = (v[1:] + v[:-1]) / 2 * 2.0 ** -emax
        for _ in range(5):
            def ties(n):
                t = g.choice(mid, n)
                t32 = t.astype(np.float32)
                side = g.integers(-1, 2, n)
                t32 = np.where(side > 0, np.nextafter(t32, np.float32(np.inf)),
                               np.where(side < 0, np.nextafter(t32, np.float32(0)), t32))
                t32 = t32 * np.where(g.integers(0, 2, n) > 0, 1, -1)
                t32[0] = 1.0
                return t32
            fill(r, ties)
            r += 1
    for top in (1.75, 1.8, 1.9375, 1.99999):  # saturation: x / X up to 511.99
        fill(r, lambda n: np.concatenate([[top, -top], g.uniform(-top, top, n - 2)]))
        r += 1
    x[r] = 0.0; r += 1                                     # zero blocks
    x[r] = -0.0; x[r, 3] = 2.0 ** -149; r += 1             # -0 and the smallest subnormal
    fill(r, lambda n: g.standard_normal(n) * 2.0 ** -140); r += 1  # subnormal amax
    fill(r, lambda n: g.standard_normal(n) * 2.0 ** -128); r += 1
    fill(r, lambda n: g.standard_normal(n) * 2.0 ** -120); r += 1  # bf16 subnormal products
    fill(r, lambda n: np.concatenate([[2.0 ** -126], g.standard_normal(n - 1) * 2.0 ** -135])); r += 1
    fill(r, lambda n: g.uniform(-3.4e38, 3.4e38, n)); r += 1       # near f32's largest
    x[r, :] = 3.4028235e38; x[r, 5] = -3.4028235e38; r += 1
    x[r] = g.standard_normal(K); x[r, 7] = np.nan; r += 1          # specials
    x[r] = g.standard_normal(K); x[r, 40] = np.inf; r += 1
    x[r] = g.standard_normal(K); x[r, 0] = -np.inf; r += 1
    x[r] = g.standard_normal(K); x[r, 33] = np.nan; x[r, 34] = np.inf; r += 1
    while r < R:  # a wide range inside each block: underflow to subnormals and zero
        fill(r, lambda n: g.standard_normal(n) * 2.0 ** g.integers(-40, 1, n))
        r += 1
    return x.astype(np.float32), np.eye(K, dtype=np.float32)


def round_element(q, fmt):
    """q (float64, finite) rounded to nearest even and saturated."""
    m, emin, top, _ = FORMATS[fmt]
    a = np.abs(q)
    _, ex = np.frexp(a)  # a = f * 2^ex, f in [0.5, 1); floor(log2 a) = ex - 1
    e = np.maximum(ex - 1, emin)
    step = 2.0 ** (e - m)
    r = np.minimum(np.round(a / step) * step, top)  # np.round: half to even
    return np.copysign(r, q)


def reference(x, fmt, ceil=False):
    top, emax = FORMATS[fmt][2:]
    x64 = x.astype(np.float64)
    deq = np.zeros_like(x64)
    elements = np.zeros_like(x64)
    for lo, hi in ((0, 32), (32, 48)):
        b = x64[:, lo:hi]
        special = ~np.isfinite(b).all(axis=1)
        amax = np.abs(np.where(np.isfinite(b), b, 0.0)).max(axis=1)
        _, ex = np.frexp(amax)  # amax = f * 2^ex, f in [0.5, 1)
        shared = np.where(amax > 0, ex - 1 - emax, -127)
        if ceil:
            shared = shared + (amax / 2.0 ** shared > top)
        shared = np.maximum(shared, -127)[:, None]
        q = np.where(np.isfinite(b), b, 0.0) / 2.0 ** shared
        el = round_element(q, fmt)
        elements[:, lo:hi] = np.where(special[:, None], np.nan, el)
        deq[:, lo:hi] = np.where(special[:, None], np.nan, el * 2.0 ** shared)
        if fmt == "e4m3":
            t = torch.from_numpy(q.astype(np.float32)).to(torch.float8_e4m3fn)
            t = t.double().numpy()
            ok = (t == el) | special[:, None]
            assert ok.all(), f"torch disagrees on {int((~ok).sum())} elements"
    with np.errstate(over="ignore"):  # mx-scale=ceil: see check()
        deq32 = deq.astype(np.float32)
    deq_bf16 = torch.from_numpy(deq32).bfloat16().float().numpy()
    return deq_bf16, deq


def same(a, b):
    return (np.isnan(a) & np.isnan(b)) | (a == b)


def check(fmt, inputs_path, saved_path, ftz, ceil):
    z = np.load(inputs_path)
    x = z["x"]
    y = np.load(saved_path)["y"]
    ref, exact = reference(x, fmt, ceil)
    rounded = int(((ref != exact) & ~np.isnan(exact)).sum())
    flushed = np.abs(ref) < 2.0 ** -126

    # A NaN block makes its whole row of x @ eye NaN (NaN * 0), and so does
    # an infinite value: with --ceil, a block whose amax is within half an
    # element ulp of 2^128 rounds up to 2^128, which overflows f32.
    nan_rows = ~np.isfinite(ref).all(axis=1)
    ref[nan_rows] = np.nan
    ok = same(y, ref)
    if ftz:
        ok |= flushed & (y == 0)
    for i, j in np.argwhere(~ok)[:8]:
        print(f"x[{i},{j}] = {x[i, j]!r}: mpt {y[i, j]!r}, reference {ref[i, j]!r}")
    print(f"{fmt}: {int(ok.sum())}/{ok.size} equal")
    print(f"{fmt}: {rounded} dequantized values rounded by bf16")
    if ftz:
        print(f"{fmt}: {int((flushed & (exact != 0)).sum())} flushed to zero")
    print(f"{fmt}: {int(nan_rows.sum())} NaN rows")
    sys.exit(0 if ok.all() else 1)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        x, eye = inputs()
        np.savez(sys.argv[2], x=x, eye=eye)
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], "--ftz" in sys.argv[5:],
              "--ceil" in sys.argv[5:])
