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
"""
import argparse
import csv
import math
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("check", choices=["below", "close", "decreasing"])
    p.add_argument("log")
    p.add_argument("ref", nargs="?")
    p.add_argument("--last", type=int, required=True)
    p.add_argument("--max", type=float)
    p.add_argument("--atol", type=float)
    a = p.parse_args()
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
