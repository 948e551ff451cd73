"""Prints whether two loss curves agree: `loss_curve_diff.py A B TOL`, each of
A and B a CSV log (mpt-run --log, or torch_reference.py's losses.csv as
FILE:MODE for one mode's rows).  Non-finite losses never agree."""
import csv
import math
import sys


def curve(spec):
    path, _, mode = spec.partition(":")
    with open(path) as f:
        return [float(r["loss"]) for r in csv.DictReader(f) if not mode or r.get("mode") == mode]


a, b, tol = curve(sys.argv[1]), curve(sys.argv[2]), float(sys.argv[3])
ok = len(a) == len(b) > 0 and all(math.isfinite(x) and math.isfinite(y) and abs(x - y) <= tol for x, y in zip(a, b))
print(f"{len(a)} and {len(b)} steps within {sys.argv[3]}: {ok}")
