#!/usr/bin/env python3
"""Crafted array files whose headers lie about their size, for the error
tests of mpt-run (standard library only).

  crafted.py npy-shape OUT.npy D0xD1x...   a float32 .npy header with that
                                           shape and 16 bytes of data
  crafted.py deflate-claim OUT.npz BYTES   one deflated entry 'w1.npy' whose
                                           central directory claims BYTES
                                           uncompressed (zip64 above 2^32-2)
"""
import struct
import sys
import zlib


def npy(shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape))
    header = header.ljust(64 * ((10 + len(header) + 1 + 63) // 64) - 10 - 1)
    header += "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode("latin1") + b"\0" * 16)


def deflate_claim(claimed):
    name = b"w1.npy"
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = compressor.compress(npy([2, 2])) + compressor.flush()
    crc = zlib.crc32(npy([2, 2]))
    zip64 = claimed >= 0xffffffff
    size32 = 0xffffffff if zip64 else claimed
    extra = struct.pack("<HHQ", 1, 8, claimed) if zip64 else b""
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 8, 0, 0x21, crc,
                        len(data), size32, len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 8, 0,
                          0x21, crc, len(data), size32, len(name), len(extra),
                          0, 0, 0, 0, 0) + name + extra
    body = local + data
    end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central),
                      len(body), 0)
    return body + central + end


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "npy-shape":
        blob = npy([int(d) for d in sys.argv[3].split("x")])
    elif kind == "deflate-claim":
        blob = deflate_claim(int(sys.argv[3], 0))
    else:
        sys.exit("unknown kind " + kind)
    with open(out, "wb") as f:
        f.write(blob)


if __name__ == "__main__":
    main()
