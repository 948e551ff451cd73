#!/usr/bin/env python3
"""Compares the output of two runs of a training-step driver: the loss, then
an old/new pair per trained parameter (named by --names), as printed by
printMemrefF32. Checks the low-precision run's loss and parameter updates
(new - old) against the f32 run's within the given tolerances, and whether
the runs differ at all. Exit status 1 when a check fails."""
import argparse
import math
import re
import sys


def read_tensors(path):
    tensors, current = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("Unranked Memref"):
                current = []
                tensors.append(current)
                continue
            if current is not None:
                current.extend(float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?[0-9]+)?|-?nan|-?inf", line))
    return tensors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("low")
    parser.add_argument("--update-tol", type=float,
                        help="max |update difference| / max |reference update|, per parameter")
    parser.add_argument("--loss-tol", type=float, help="max relative loss difference")
    parser.add_argument("--identical", action="store_true",
                        help="require the loss and new parameters to be bit-identical instead")
    parser.add_argument("--working-copies", action="store_true",
                        help="the second run also printed, per parameter, its new working copy "
                             "and its new master truncated: require them equal")
    parser.add_argument("--outputs", action="store_true",
                        help="the runs printed plain outputs: compare each against --update-tol "
                             "times its largest magnitude")
    parser.add_argument("--names", default="w1,b1,w2,b2",
                        help="the trained parameters, in the order the driver prints them")
    args = parser.parse_args()
    names = args.names.split(",")
    ref, low = read_tensors(args.reference), read_tensors(args.low)
    if args.outputs:
        if len(ref) != len(low) or not ref:
            print(f"expected the same number of tensors, got {len(ref)} and {len(low)}")
            return 1
        ok, differ = True, False
        for k, (a, b) in enumerate(zip(ref, low)):
            if not all(math.isfinite(v) for v in b):
                print(f"output {k}: not finite")
                return 1
            err = max(abs(x - y) for x, y in zip(a, b)) / max(abs(x) for x in a)
            differ |= a != b
            ok &= err <= args.update_tol
            print(f"output {k}: max difference / max value {err:.3g} "
                  f"{'<=' if err <= args.update_tol else '>'} {args.update_tol:g}")
        print(f"runs differ: {'yes' if differ else 'no'}")
        return 0 if ok and differ else 1
    base = 1 + 2 * len(names)
    want = base + (2 * len(names) if args.working_copies else 0)
    if len(ref) != base or len(low) != want:
        print(f"expected {base} and {want} tensors, got {len(ref)} and {len(low)}")
        return 1
    if args.identical:
        ok = True
        labels = ["loss"] + [label for n in names for label in (n + "_old", n)]
        for k, name in enumerate(labels):
            same = ref[k] == low[k]
            ok &= same
            if not name.endswith("_old"):
                print(f"{name}: {'identical' if same else 'DIFFERENT'}")
        for k, name in enumerate(names):
            copy, truncated = low[base + 2 * k], low[base + 1 + 2 * k]
            same = copy == truncated
            ok &= same
            print(f"working copy of {name}: {'equal to' if same else 'DIFFERENT from'} "
                  f"the truncated master ({len(copy)} values)")
        return 0 if ok else 1
    ok, differ = True, False
    loss_ref, loss_low = ref[0][0], low[0][0]
    if not math.isfinite(loss_low):
        print(f"loss: not finite ({loss_low})")
        return 1
    rel = abs(loss_low - loss_ref) / abs(loss_ref)
    differ |= loss_low != loss_ref
    ok &= rel <= args.loss_tol
    print(f"loss: f32 {loss_ref:.6g}, low {loss_low:.6g}, relative difference {rel:.3g} "
          f"{'<=' if rel <= args.loss_tol else '>'} {args.loss_tol:g}")
    for k, name in enumerate(names):
        old_ref, new_ref = ref[1 + 2 * k], ref[2 + 2 * k]
        old_low, new_low = low[1 + 2 * k], low[2 + 2 * k]
        if old_ref != old_low:
            print(f"{name}: the runs started from different parameters")
            return 1
        upd_ref = [n - o for n, o in zip(new_ref, old_ref)]
        upd_low = [n - o for n, o in zip(new_low, old_low)]
        if not all(math.isfinite(u) for u in upd_low):
            print(f"{name}: non-finite update")
            return 1
        scale = max(abs(u) for u in upd_ref)
        err = max(abs(a - b) for a, b in zip(upd_ref, upd_low)) / scale
        differ |= new_ref != new_low
        ok &= err <= args.update_tol
        print(f"{name}: max update difference / max update {err:.3g} "
              f"{'<=' if err <= args.update_tol else '>'} {args.update_tol:g}")
    print(f"runs differ: {'yes' if differ else 'no'}")
    ok &= differ
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
