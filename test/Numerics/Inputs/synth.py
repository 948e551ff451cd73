#!/usr/bin/env python3
"""Synthetic training data for mpt-run, written with the standard library only
(no NumPy needed): .npz archives of float32 arrays with a leading batch axis,
as `mpt-run --data` reads them.

  synth.py blobs OUT.npz [--batches 16] [--batch 8] [--features 16]
      [--classes 4] [--seed 0]
      x: (batches, batch, features)   y: (batches, batch, classes) one-hot
      Gaussian blobs: class c is centred at a random point with N(0, 1)
      coordinates, samples add N(0, noise^2) noise (default 1: classes overlap, so
      the loss stays well above zero and differences stay measurable).
      --inf-at I:S (repeatable) sets x[I, S, 0] to +inf: sample S of batch I
      overflows (a data-parallel test poisons one rank's shard).
  synth.py masked OUT.npz [blobs options]
      blobs plus keep: (batches, batch, classes), 1 for the classes a sample
      may be (its own always, each other with probability 1/2), 0 for the
      classes a masked cross-entropy excludes.
  synth.py bars OUT.npz [--batches 16] [--batch 8] [--size 8] [--seed 0]
      x: (batches, batch, size, size, 1)   y: (batches, batch, 2) one-hot
      Images with one bright bar on noise: class 0 horizontal, class 1
      vertical; a 3x3 convolution sees the orientation.
  synth.py overflow OUT.npz --pattern GGBG... [--size 4]
      x: (len(pattern), size): ones for a G(ood) step, +inf in element 0
      for a B(ad) step, to script overflowing steps.
  synth.py array OUT.npz|OUT.npy --entry NAME:SHAPE:DTYPE:VALUE...
      constant arrays (SHAPE like 16x32, "" for 0-d; DTYPE f4, f2, i4, i8,
      b1), for the error tests of mpt-run; an .npy gets the first entry.
"""
import argparse
import random
import struct
import sys
import zipfile


def npy_bytes(values, shape, descr="<f4", fmt="f"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape) if len(shape) != 1
        else "%d," % shape[0])
    header = header.ljust(64 * ((10 + len(header) + 1 + 63) // 64) - 10 - 1)
    header += "\n"
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
    return head + header.encode("latin1") + struct.pack(
        "<%d%s" % (len(values), fmt), *values)


def write_npz(path, arrays, compress=False):
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as z:
        for name, (values, shape) in arrays.items():
            z.writestr(name + ".npy", npy_bytes(values, shape))


def blobs(args):
    rng = random.Random(args.seed)
    centres = [[rng.gauss(0, 1) for _ in range(args.features)]
               for _ in range(args.classes)]
    xs, ys = [], []
    for _ in range(args.batches * args.batch):
        c = rng.randrange(args.classes)
        xs += [v + rng.gauss(0, args.noise) for v in centres[c]]
        ys += [1.0 if k == c else 0.0 for k in range(args.classes)]
    for spec in args.inf_at:
        i, s = (int(v) for v in spec.split(":"))
        xs[(i * args.batch + s) * args.features] = float("inf")
    return {"x": (xs, (args.batches, args.batch, args.features)),
            "y": (ys, (args.batches, args.batch, args.classes))}


def masked(args):
    arrays = blobs(args)
    rng = random.Random(args.seed + 1)
    ys = arrays["y"][0]
    keep = [1.0 if y == 1.0 or rng.random() < 0.5 else 0.0 for y in ys]
    arrays["keep"] = (keep, arrays["y"][1])
    return arrays


def bars(args):
    rng = random.Random(args.seed)
    n = args.size or 8
    xs, ys = [], []
    for _ in range(args.batches * args.batch):
        c = rng.randrange(2)
        pos = rng.randrange(1, n - 1)
        img = [[rng.gauss(0, 0.1) for _ in range(n)] for _ in range(n)]
        for k in range(n):
            if c == 0:
                img[pos][k] += 1.0
            else:
                img[k][pos] += 1.0
        xs += [v for row in img for v in row]
        ys += [1.0 if k == c else 0.0 for k in range(2)]
    return {"x": (xs, (args.batches, args.batch, n, n, 1)),
            "y": (ys, (args.batches, args.batch, 2))}


FORMATS = {"f4": "f", "f2": "e", "i4": "i", "i8": "q", "b1": "?"}


def constant_arrays(args):
    arrays = {}
    for spec in args.entry:
        name, shape, dtype, value = spec.split(":")
        dims = tuple(int(d) for d in shape.split("x")) if shape else ()
        count = 1
        for d in dims:
            count *= d
        fmt = FORMATS[dtype]
        v = float(value) if fmt in "fe" else int(value)
        descr = ("|" if dtype == "b1" else "<") + dtype
        arrays[name] = npy_bytes([v] * count, dims, descr, fmt)
    if args.out.endswith(".npy"):
        with open(args.out, "wb") as f:
            f.write(next(iter(arrays.values())))
        return
    method = zipfile.ZIP_DEFLATED if args.compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(args.out, "w", method) as z:
        for name, data in arrays.items():
            z.writestr(name + ".npy", data)


def overflow(args):
    xs = []
    for c in args.pattern:
        if c not in "GB":
            sys.exit("--pattern takes G and B, got %r" % c)
        xs += [float("inf") if (c == "B" and k == 0) else 1.0
               for k in range(args.size or 4)]
    return {"x": (xs, (len(args.pattern), args.size or 4))}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("task", choices=["blobs", "masked", "bars", "overflow", "array"])
    p.add_argument("out")
    p.add_argument("--batches", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--classes", type=int, default=4)
    p.add_argument("--size", type=int, default=None,
                   help="image side (bars, default 8) or vector length "
                        "(overflow, default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--noise", type=float, default=1.0,
                   help="standard deviation of the blobs' noise")
    p.add_argument("--compress", action="store_true",
                   help="deflate the entries, as np.savez_compressed does")
    p.add_argument("--pattern", default="G",
                   help="G/B sequence, for the overflow task")
    p.add_argument("--inf-at", action="append", default=[],
                   help="BATCH:SAMPLE whose first feature is +inf (blobs)")
    p.add_argument("--entry", action="append", default=[],
                   help="NAME:SHAPE:DTYPE:VALUE, for the array task")
    args = p.parse_args()
    if args.task == "array":
        constant_arrays(args)
        return
    arrays = {"blobs": blobs, "masked": masked, "bars": bars,
              "overflow": overflow}[args.task](args)
    write_npz(args.out, arrays, args.compress)


if __name__ == "__main__":
    main()
