"""Compares two mpt-run CSV logs of the same step, without and with
recomputation: the losses must be identical, and the bytes live at the start
of the backward must be below 3/4 of the first run's. Exit status 1 when a
check fails."""
import csv
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


kept, recomputed = read(sys.argv[1]), read(sys.argv[2])
same = [a["loss"] for a in kept] == [b["loss"] for b in recomputed]
print("losses identical:", "yes" if same else "no")
before = max(int(r["backward_start_bytes"]) for r in kept)
after = max(int(r["backward_start_bytes"]) for r in recomputed)
below = after * 4 < before * 3
print(f"live at backward start: {before} -> {after} B, {'below' if below else 'not below'} 3/4")
sys.exit(0 if same and below else 1)
