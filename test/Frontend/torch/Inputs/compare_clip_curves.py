"""Compares the loss curves of clip-grad-norm.test (argument: its %t)."""
import csv
import sys

t = sys.argv[1]


def mpt(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def torch_rows(mode):
    with open(t + ".ref/losses.csv") as f:
        return [float(r["loss"]) for r in csv.DictReader(f) if r["mode"] == mode]


def loss(rows):
    return [float(r["loss"]) for r in rows]


def worst(a, b):
    assert len(a) == len(b) == 6, (len(a), len(b))
    return max(abs(x - y) for x, y in zip(a, b))


fp32, f16, noclip = mpt(t + ".fp32.csv"), mpt(t + ".f16.csv"), mpt(t + ".noclip.csv")
print("clipping binds:", loss(fp32)[5] - loss(noclip)[5] > 1.0)
print("fp32 vs torch fp32:", worst(loss(fp32), torch_rows("fp32")) <= 1e-5)
print("f16 vs fp32:", worst(loss(f16), loss(fp32)) <= 1e-3)
print("f16 scale", " ".join(sorted({r["loss_scale"] for r in f16})) + ", skipped",
      sum(int(r["skipped"]) for r in f16))
print("torch f16 vs torch fp32:", worst(torch_rows("f16"), torch_rows("fp32")) <= 1e-3)
