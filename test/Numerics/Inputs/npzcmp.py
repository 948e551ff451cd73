#!/usr/bin/env python3
"""Compares entries of two .npz files byte for byte (header and data), for
the lit tests: `npzcmp.py A.npz B.npz KEY...` exits 0 when every KEY is in
both files with identical bytes, 1 otherwise (and says which differs).
`--differ` inverts the check for every KEY (each must differ)."""
import sys
import zipfile


def main():
    args = sys.argv[1:]
    differ = "--differ" in args
    args = [a for a in args if a != "--differ"]
    if len(args) < 3:
        sys.exit(__doc__)
    a, b, keys = zipfile.ZipFile(args[0]), zipfile.ZipFile(args[1]), args[2:]
    ok = True
    for key in keys:
        same = a.read(key + ".npy") == b.read(key + ".npy")
        print("%s: %s" % (key, "identical" if same else "different"))
        ok = ok and (same != differ)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
