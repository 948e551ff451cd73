#!/usr/bin/env python3
"""Paired step timings: mpt-run builds against PyTorch on one model, alternating.

Each round runs every given mpt-run binary (30 timed steps, `--timing`) and
then PyTorch (eager FP32 or bf16 autocast, the same steps) on the same model,
batch and threads, so that a change of the machine's speed reaches all of
them; prints each one's best step and median of the rounds' medians. Use it
to compare two builds of mpt (an A/B of a change) beside the anchor; the
models and their imports are bench.py's.

Usage: bench/cpu/paired.py [--rounds 3] [--threads 1] [--mode bf16|fp32|f16]
                           [--model resnet18_b16] [--workdir DIR] LABEL=MPT_RUN ...
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

PASSES = {"fp32": None, "bf16": "mpt-mixed-precision{dtype=bf16}", "f16": "mpt-mixed-precision{dtype=f16}"}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--mode", choices=sorted(PASSES), default="bf16")
    p.add_argument("--model", default="resnet18_b16", choices=[m[0] for m in bench.MODELS])
    p.add_argument("--workdir", default=os.path.join(bench.tempfile.gettempdir(), "mpt-bench-cpu"))
    p.add_argument("builds", nargs="+", metavar="LABEL=MPT_RUN")
    args = p.parse_args()
    name, flags, bundled = next(m for m in bench.MODELS if m[0] == args.model)
    files = bench.step_files(args, name, flags, bundled)
    bench.torch.set_num_threads(args.threads)
    builds = [b.split("=", 1) for b in args.builds]

    def tiers_off(binary):
        # Every timed step on the -O2 code; builds before --tiered-compile
        # compile once anyway.
        help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
        return ["--tiered-compile=off"] if "--tiered-compile" in help_text else []

    tier_flags = {binary: tiers_off(binary) for _, binary in builds}

    def mpt(binary):
        cmd = [binary, files[0], "--inputs", files[1], "--steps", str(args.steps + 1), "--timing",
               "--no-progress", "--no-cache", "--log", os.devnull, "--threads=" + str(args.threads)] \
            + tier_flags[binary]
        if PASSES[args.mode]:
            cmd.insert(2, "--passes=" + PASSES[args.mode])
        r = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"step best ([0-9.]+) ms, median ([0-9.]+) ms", r.stderr)
        if not m:
            sys.exit("paired.py: %s failed:\n%s" % (binary, r.stderr[-2000:]))
        return float(m.group(1)), float(m.group(2))

    results = {}
    for _ in range(args.rounds):
        for label, binary in builds:
            results.setdefault(label, []).append(mpt(binary))
        torch_mode = "fp32" if args.mode == "fp32" else "bf16"
        results.setdefault("PyTorch " + torch_mode, []).append(
            bench.torch_step(args, flags, torch_mode, args.steps)[:2])
    print("%s, %s, %d thread(s), %d rounds of %d steps:" % (args.model, args.mode, args.threads,
                                                           args.rounds, args.steps))
    for label, runs in results.items():
        medians = sorted(r[1] for r in runs)
        print("  %-16s best %7.2f ms  median of medians %7.2f ms" % (label, min(r[0] for r in runs),
                                                                    medians[len(medians) // 2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
