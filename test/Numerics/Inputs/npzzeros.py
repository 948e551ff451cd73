#!/usr/bin/env python3
"""Counts the zero elements of float32 entries of an .npz, for the lit tests:
`npzzeros.py FILE.npz KEY...` prints "KEY: Z zeros of N, values {...}" with
the distinct values (at most 4, printed exactly with float.hex)."""
import struct
import sys
import zipfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    z = zipfile.ZipFile(sys.argv[1])
    for key in sys.argv[2:]:
        data = z.read(key + ".npy")
        hlen = struct.unpack("<H", data[8:10])[0]
        if b"'<f4'" not in data[:10 + hlen]:
            sys.exit("%s is not float32" % key)
        payload = data[10 + hlen:]
        values = struct.unpack("<%df" % (len(payload) // 4), payload)
        zeros = sum(1 for v in values if v == 0.0)
        distinct = sorted(set(values))[:4]
        print("%s: %d zeros of %d, values {%s}" % (
            key, zeros, len(values), ", ".join(v.hex() for v in distinct)))


if __name__ == "__main__":
    main()
