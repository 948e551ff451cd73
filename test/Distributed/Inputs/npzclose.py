#!/usr/bin/env python3
"""Compares float32 entries of two .npz files (as mpt-run --save writes them)
within an absolute bound, for the lit tests (standard library only):

  npzclose.py A.npz B.npz --atol T KEY...

Prints the largest absolute difference of each KEY; exits 0 when every one
is at most T (and shapes agree), 1 otherwise. `--exceed` inverts the check
(every KEY must differ by more than T), to show a test can fail."""
import argparse
import ast
import struct
import sys
import zipfile


def read_f32(archive, key):
    data = archive.read(key + ".npy")
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    if header["descr"] != "<f4":
        sys.exit("%s: %s is %s, not float32" % (archive.filename, key,
                                                header["descr"]))
    body = data[10 + header_len:]
    return header["shape"], struct.unpack("<%df" % (len(body) // 4), body)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("keys", nargs="+")
    p.add_argument("--atol", type=float, required=True)
    p.add_argument("--exceed", action="store_true")
    args = p.parse_args()
    a, b = zipfile.ZipFile(args.a), zipfile.ZipFile(args.b)
    ok = True
    for key in args.keys:
        (sa, va), (sb, vb) = read_f32(a, key), read_f32(b, key)
        if sa != sb:
            print("%s: shapes %s and %s" % (key, sa, sb))
            ok = False
            continue
        diff = max(abs(x - y) for x, y in zip(va, vb))
        within = diff <= args.atol
        print("%s: max |difference| %.3g (bound %g)" % (key, diff, args.atol))
        ok = ok and (within != args.exceed)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
