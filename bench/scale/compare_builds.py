#!/usr/bin/env python3
"""Compares two mpt-opt builds on the --mpt-mixed-precision pipeline of
generated transformer steps, alternating them in one run (the machine is
noisy): each build's default (what mpt-opt does without flags) and the same
pipeline with the verification flag that the build does not default to.
Prints the pipeline time (total - parse - print) as a ratio to parse +
print in the same mpt-opt run, median of --repeat.

Usage: compare_builds.py --before OLD/bin/mpt-opt [--after build/bin/mpt-opt]
       [--layers 64,256,1024] [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "autocast"))
import gen_transformer  # noqa: E402
from mpt_opt_runs import timing  # noqa: E402


def main():
    repo = os.path.dirname(os.path.dirname(HERE))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the other build's mpt-opt")
    parser.add_argument("--after", default=os.path.join(repo, "build", "bin", "mpt-opt"))
    parser.add_argument("--layers", default="64,256,1024")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # Verifying after every pass is spelled the same in both builds; off is
    # --verify-each=0, once after the pipeline is the newer builds' default.
    configs = [("before", args.before, []), ("before --verify-each=0", args.before, ["--verify-each=0"]),
               ("after", args.after, []), ("after --verify-each", args.after, ["--verify-each"])]
    print(f"{'layers':>6} " + " ".join(f"{name:>24}" for name, _, _ in configs))
    with tempfile.TemporaryDirectory() as tmp:
        for layers in [int(x) for x in args.layers.split(",") if x]:
            path = os.path.join(tmp, f"step{layers}.mlir")
            with open(path, "w") as f:
                f.write(gen_transformer.generate(layers, 16, 32, 64, 8))
            ratios = {name: [] for name, _, _ in configs}
            for _ in range(args.repeat):
                for name, mpt_opt, extra in configs:
                    t = timing(mpt_opt, path, ["--mpt-mixed-precision"] + extra)
                    io = t["Parser"] + t["Output"]
                    ratios[name].append((t["Total"] - io) / io)
            print(f"{layers:>6} " + " ".join(f"{statistics.median(ratios[n]):>23.2f}x" for n, _, _ in configs),
                  flush=True)


if __name__ == "__main__":
    main()
