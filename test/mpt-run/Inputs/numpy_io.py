"""Writes .npy/.npz files with NumPy (np.save, np.savez, np.savez_compressed)
and reads mpt-run's .npz back with np.load, for numpy-interop.test.
  numpy_io.py write DIR      files for the MLP example in DIR
  numpy_io.py read FILE.npz  prints name dtype shape per entry
  numpy_io.py same A.npz B.npz  prints whether the two hold equal arrays"""
import os
import sys

import numpy as np


def write(d):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 8, 16)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=(4, 8))]
    np.savez(os.path.join(d, "data.npz"), x=x, y=y)
    np.savez_compressed(os.path.join(d, "dataz.npz"), x=x, y=y)
    w1 = (rng.normal(size=(16, 32)) * 0.1).astype(np.float32)
    np.save(os.path.join(d, "w1.npy"), w1)
    np.savez(os.path.join(d, "rest.npz"), b1=np.zeros(32, np.float32),
             w2=(rng.normal(size=(32, 4)) * 0.1).astype(np.float32),
             arg3=np.zeros(4, np.float32), lr=np.float32(0.1))
    np.save(os.path.join(d, "fortran.npy"), np.asfortranarray(w1))
    np.savez(os.path.join(d, "dataf.npz"), x=np.asfortranarray(x), y=np.asfortranarray(y))
    np.save(os.path.join(d, "f64.npy"), w1.astype(np.float64))


def same(a, b):
    a, b = np.load(a), np.load(b)
    print(sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a))


def read(path):
    for name, value in np.load(path).items():
        print(name, value.dtype, value.shape, bool(np.isfinite(value).all()))


if __name__ == "__main__":
    {"write": write, "read": read, "same": same}[sys.argv[1]](*sys.argv[2:])
