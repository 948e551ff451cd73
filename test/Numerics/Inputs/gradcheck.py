#!/usr/bin/env python3
"""Checks a hand-written backward pass against finite differences, by
running the step with mpt-run (standard library only).

  gradcheck.py MPT_RUN STEP.mlir DATA.npz [--seed S] [--per-param K]
      [--h H] [--atol A] [--rtol R]

The step must be plain SGD (p' = p - lr * g) with a hyperparameter `lr` and
DATA.npz must hold one batch. With lr = 1, one step gives the step's own
gradient g = p - p'. For K entries of every parameter (spread over the
tensor), the central difference (L(p + h e) - L(p - h e)) / 2h of the
logged loss must match g within atol + rtol * |g|.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile
import zipfile


def read_npz(path):
    """{name: (header bytes, float32 list)} for the float32 entries."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            data = z.read(name)
            hlen = struct.unpack("<H", data[8:10])[0]
            header, payload = data[:10 + hlen], data[10 + hlen:]
            if b"'<f4'" not in header:
                sys.exit("%s:%s is not float32" % (path, name))
            values = list(struct.unpack("<%df" % (len(payload) // 4), payload))
            out[name[:-4]] = (header, values)
    return out


def write_npz(path, arrays):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, (header, values) in arrays.items():
            z.writestr(name + ".npy",
                       header + struct.pack("<%df" % len(values), *values))


def run(mpt_run, step, data, extra, tmp):
    log = os.path.join(tmp, "log.csv")
    subprocess.run([mpt_run, step, "--data", data, "--hparam", "lr=1",
                    "--log", log] + extra, check=True)
    with open(log) as f:
        lines = f.read().split()
    return float(lines[1].split(",")[1]) if len(lines) > 1 else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mpt_run")
    p.add_argument("step")
    p.add_argument("data")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-param", type=int, default=3)
    p.add_argument("--h", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-3)
    p.add_argument("--rtol", type=float, default=0.02)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        p0, p1 = os.path.join(tmp, "p0.npz"), os.path.join(tmp, "p1.npz")
        init = ["--init", "seed:%d" % a.seed]
        run(a.mpt_run, a.step, a.data, init + ["--steps", "0", "--save", p0],
            tmp)
        run(a.mpt_run, a.step, a.data, init + ["--steps", "1", "--save", p1],
            tmp)
        before, after = read_npz(p0), read_npz(p1)
        ok, checked = True, 0
        for name, (header, values) in before.items():
            n = len(values)
            picks = sorted({(k * 7919 + n // 3) % n
                            for k in range(a.per_param)})
            for i in picks:
                g = values[i] - after[name][1][i]
                losses = []
                for sign in (1, -1):
                    moved = dict(before)
                    v = list(values)
                    v[i] += sign * a.h
                    moved[name] = (header, v)
                    pm = os.path.join(tmp, "pm.npz")
                    write_npz(pm, moved)
                    losses.append(run(a.mpt_run, a.step, a.data,
                                      ["--inputs", pm, "--steps", "1"], tmp))
                fd = (losses[0] - losses[1]) / (2 * a.h)
                good = abs(fd - g) <= a.atol + a.rtol * abs(g)
                ok &= good
                checked += 1
                print("%s[%d]: step gradient %+.6e, finite difference "
                      "%+.6e %s" % (name, i, g, fd, "ok" if good else "FAIL"))
        print("%d gradient entries checked: %s" % (checked,
                                                   "ok" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
