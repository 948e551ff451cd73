#!/usr/bin/env python3
"""Numerical assertions on mpt-run logs (CSV, as `mpt-run --log-format=csv`
writes them), for the lit tests. Prints what it measured; exits 1 when an
assertion fails.

  checklog.py below LOG --last K --max X
      the mean loss of the last K steps is finite and below X
  checklog.py close LOG REF --last K --atol X
      the mean losses of the last K steps of LOG and REF differ by <= X
  checklog.py decreasing LOG --last K
      the mean of the last K losses is below the mean of the first K
  checklog.py gradscaler LOG --pattern GGBG... [--init-scale S]
      [--growth-factor G] [--backoff-factor B] [--growth-interval N]
      step i is skipped exactly when pattern[i] is B, and the logged loss
      scale follows torch.amp.GradScaler's update rule exactly (compared as
      float32): on a skipped step scale *= B and the tracker resets; on a
      good step the tracker counts up and at N the scale grows by G.
"""
import argparse
import csv
import math
import struct
import sys


def losses(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("%s: no steps logged" % path)
    return [float(r["loss"]) for r in rows]


def mean_last(values, k, path):
    if len(values) < k:
        sys.exit("%s: %d steps logged, need %d" % (path, len(values), k))
    tail = values[-k:]
    return sum(tail) / k


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def gradscaler(a):
    with open(a.log, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(a.pattern):
        sys.exit("%s: %d steps logged, the pattern has %d"
                 % (a.log, len(rows), len(a.pattern)))
    if not rows or "loss_scale" not in rows[0] or "skipped" not in rows[0]:
        sys.exit("%s: no loss_scale/skipped columns" % a.log)
    scale, tracker, ok = f32(a.init_scale), 0, True
    for i, (row, c) in enumerate(zip(rows, a.pattern)):
        logged, skipped = float(row["loss_scale"]), row["skipped"] == "1"
        if f32(logged) != scale or skipped != (c == "B"):
            print("step %d: logged scale %s skipped %s, expected %s %s"
                  % (i, row["loss_scale"], skipped, scale, c == "B"))
            ok = False
        if c == "B":
            scale, tracker = f32(scale * a.backoff_factor), 0
        else:
            tracker += 1
            if tracker == a.growth_interval:
                grown = f32(scale * a.growth_factor)
                scale = grown if math.isfinite(grown) else scale
                tracker = 0
    print("GradScaler trajectory over %d steps (%s): %s"
          % (len(rows), a.pattern, "ok" if ok else "FAIL"))
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("check",
                   choices=["below", "close", "decreasing", "gradscaler"])
    p.add_argument("log")
    p.add_argument("ref", nargs="?")
    p.add_argument("--last", type=int)
    p.add_argument("--pattern")
    p.add_argument("--init-scale", type=float, default=65536.0)
    p.add_argument("--growth-factor", type=float, default=2.0)
    p.add_argument("--backoff-factor", type=float, default=0.5)
    p.add_argument("--growth-interval", type=int, default=2000)
    p.add_argument("--max", type=float)
    p.add_argument("--atol", type=float)
    a = p.parse_args()
    if a.check == "gradscaler":
        sys.exit(0 if gradscaler(a) else 1)
    if a.last is None:
        p.error("--last is required for " + a.check)
    values = losses(a.log)
    final = mean_last(values, a.last, a.log)
    ok = math.isfinite(final)
    if a.check == "below":
        ok = ok and final < a.max
        print("final loss (mean of last %d) %.6g, required < %g: %s"
              % (a.last, final, a.max, "ok" if ok else "FAIL"))
    elif a.check == "close":
        ref = mean_last(losses(a.ref), a.last, a.ref)
        diff = abs(final - ref)
        ok = ok and math.isfinite(ref) and diff <= a.atol
        print("final loss (mean of last %d) %.6g vs reference %.6g: "
              "|diff| %.3g, allowed %g: %s"
              % (a.last, final, ref, diff, a.atol, "ok" if ok else "FAIL"))
    else:
        first = sum(values[:a.last]) / a.last
        ok = ok and final < first
        print("mean loss of the first %d steps %.6g, of the last %d %.6g: %s"
              % (a.last, first, a.last, final, "ok" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
