"""Writes .npz files with bad entries for input-errors.test.

  bad_npz.py OUT.npz ENTRY...   ENTRY: good (a float32 array), crc (an array
                                whose stored bytes do not match its CRC),
                                garbage (not a .npy file); named by position
"""
import io
import sys
import zipfile

import numpy as np

out, kinds = sys.argv[1], sys.argv[2:]
corrupt = []
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
    for i, kind in enumerate(kinds):
        name = f"e{i}_{kind}.npy"
        if kind == "garbage":
            z.writestr(name, b"not an array")
            continue
        buf = io.BytesIO()
        np.save(buf, np.arange(16, dtype=np.float32))
        z.writestr(name, buf.getvalue())
        if kind == "crc":
            corrupt.append(name)
data = bytearray(open(out, "rb").read())
with zipfile.ZipFile(out) as z:
    for name in corrupt:
        info = z.getinfo(name)
        # The entry's last byte: the local header's name and extra fields
        # come before its data.
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        data[start + info.compress_size - 1] ^= 0xFF
open(out, "wb").write(bytes(data))
