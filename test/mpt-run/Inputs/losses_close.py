#!/usr/bin/env python3
"""`losses_close.py A.csv B.csv RTOL`: the losses of two mpt-run logs
(step,loss...) agree step by step to within RTOL of their size; exits 1,
naming the first step that does not, otherwise."""
import csv
import sys


def losses(path):
    with open(path) as f:
        return [float(row["loss"]) for row in csv.DictReader(f)]


def main():
    a, b, rtol = losses(sys.argv[1]), losses(sys.argv[2]), float(sys.argv[3])
    if len(a) != len(b) or not a:
        sys.exit("different or no steps: %d and %d" % (len(a), len(b)))
    for step, (x, y) in enumerate(zip(a, b)):
        if abs(x - y) > rtol * max(abs(x), abs(y)):
            sys.exit("step %d: loss %r against %r (rtol %g)" % (step, x, y, rtol))
    print("%d losses within %g" % (len(a), rtol))


if __name__ == "__main__":
    main()
