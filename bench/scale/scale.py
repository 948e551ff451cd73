#!/usr/bin/env python3
"""How mpt's passes scale with the size of a training step.

For generated transformer steps of 64 to 1024 layers (bench/autocast's
generator), prints the time of every mpt pass and of the whole
--mpt-mixed-precision pipeline as a ratio to mpt-opt's parse + print of the
same file, measured in the same mpt-opt run (MLIR's --mlir-timing; median of
--repeat runs). A pass is linear in the step when its ratio stays flat as the
step grows; the target for the pipeline is <= 1.0x at every depth.

Then the CPU pipeline (--mpt-lower-to-cpu on the mixed-precision step): wall
time and peak memory (max RSS) for the depths in --cpu-layers, each under a
time limit (--cpu-timeout; a run past it prints "timeout").

  pipeline = Total - Parser - Output of mpt-opt as it runs by default: every
             pass, then one verification of the result (--mpt-verify;
             parse and print verify too, so parse+print holds two of these)
  verify-each = the same with --verify-each: a verification after every
             pass that changed the IR, as mlir-opt does by default
  verify   = the one verification in `pipeline`; the pass columns are the
             passes alone

This is a benchmark, not a test: the numbers depend on the machine.

Usage: scale.py [--mpt-opt build/bin/mpt-opt] [--layers 64,128,256,512,1024]
                [--repeat 3] [--cpu-layers 64] [--cpu-timeout 300]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "autocast"))
import gen_transformer  # noqa: E402
import mpt_opt_runs  # noqa: E402
from mpt_opt_runs import count_ops  # noqa: E402

# The mpt passes run on their own (each after parse, before print), with the
# name --mlir-timing gives them. Reports write to /dev/null.
SINGLE_PASSES = [
    ("--mpt-training-graph-report=output=/dev/null", "TrainingGraphReport"),
    ("--mpt-precision-report=output=/dev/null", "PrecisionReport"),
    ("--mpt-decompose-aggregate-ops", "DecomposeAggregateOps"),
    ("--mpt-strip-contract-attributes", "StripContractAttributes"),
]
# Passes of --mpt-mixed-precision, as --mlir-timing names them.
PIPELINE_PASSES = ["Autocast", "InsertLossScaling", "CastCleanup",
                   "RecomputeInBackward", "LowerLossScaling",
                   "StripTrainingMarkers", "CSE", "Verify"]


def timing(mpt_opt, path, extra):
    # Pipeline passes run once per function: their instances add up.
    return mpt_opt_runs.timing(mpt_opt, path, extra, summed=PIPELINE_PASSES)


def cpu_pipeline(mpt_opt, path, timeout):
    """Wall time and peak RSS (MiB) of --mpt-lower-to-cpu, or None on timeout."""
    start = time.monotonic()
    proc = subprocess.Popen([mpt_opt, path, "--mpt-lower-to-cpu", "-o", os.devnull],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        # wait4 gives this child's own rusage (ru_maxrss in KiB on Linux).
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout:
            proc.kill()
            os.wait4(proc.pid, 0)
            return None
        time.sleep(0.05)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"--mpt-lower-to-cpu failed on {path}")
    return time.monotonic() - start, usage.ru_maxrss / 1024.0


def cpu_pipeline_row(mpt_opt, path, layers, timeout):
    """The table row of cpu_pipeline for a step of `layers` layers."""
    result = cpu_pipeline(mpt_opt, path, timeout)
    if result is None:
        return f"{layers:>6} {'timeout':>9} (> {timeout:g} s)"
    return f"{layers:>6} {result[0]:>9.2f} {result[1]:>9.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    repo = os.path.dirname(os.path.dirname(HERE))
    parser.add_argument("--mpt-opt", default=os.path.join(repo, "build", "bin", "mpt-opt"))
    parser.add_argument("--layers", default="64,128,256,512,1024")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu-layers", default="64",
                        help="depths for --mpt-lower-to-cpu ('' for none)")
    parser.add_argument("--cpu-timeout", type=float, default=300)
    args = parser.parse_args()
    depths = [int(x) for x in args.layers.split(",") if x]
    cpu_depths = [int(x) for x in args.cpu_layers.split(",") if x]

    columns = PIPELINE_PASSES + [name for _, name in SINGLE_PASSES]
    short = {"Autocast": "autocast", "InsertLossScaling": "insert-ls",
             "CastCleanup": "cleanup", "RecomputeInBackward": "recompute",
             "LowerLossScaling": "lower-ls",
             "StripTrainingMarkers": "strip", "CSE": "cse", "Verify": "verify",
             "TrainingGraphReport": "tg-report", "PrecisionReport": "prec-report",
             "DecomposeAggregateOps": "decompose",
             "StripContractAttributes": "strip-attrs"}
    print("Ratios to parse+print of the same step in the same mpt-opt run "
          f"(median of {args.repeat}).")
    print(f"{'layers':>6} {'ops':>7} {'io s':>7} {'pipeline':>9} {'verify-each':>11} " +
          " ".join(f"{short[c]:>11}" for c in columns))
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for layers in sorted(set(depths + cpu_depths)):
            path = os.path.join(tmp, f"step{layers}.mlir")
            with open(path, "w") as f:
                f.write(gen_transformer.generate(layers, 16, 32, 64, 8))
            paths[layers] = path
        for layers in depths:
            path = paths[layers]
            ratios = {c: [] for c in columns}
            pipeline, verified_each, io_times = [], [], []
            for _ in range(args.repeat):
                t = timing(args.mpt_opt, path, ["--mpt-mixed-precision"])
                io = t["Parser"] + t["Output"]
                io_times.append(io)
                pipeline.append((t["Total"] - io) / io)
                u = timing(args.mpt_opt, path, ["--mpt-mixed-precision", "--verify-each"])
                verified_each.append((u["Total"] - u["Parser"] - u["Output"]) /
                                     (u["Parser"] + u["Output"]))
                for name in PIPELINE_PASSES:
                    ratios[name].append(t.get(name, 0.0) / io)
                for flag, name in SINGLE_PASSES:
                    t = timing(args.mpt_opt, path, [flag])
                    ratios[name].append(t.get(name, 0.0) / (t["Parser"] + t["Output"]))
            print(f"{layers:>6} {count_ops(args.mpt_opt, path):>7} "
                  f"{statistics.median(io_times):>7.3f} "
                  f"{statistics.median(pipeline):>8.2f}x "
                  f"{statistics.median(verified_each):>10.2f}x " +
                  " ".join(f"{statistics.median(ratios[c]):>10.3f}x" for c in columns),
                  flush=True)

        if cpu_depths:
            print("\n--mpt-lower-to-cpu on the mixed-precision step:")
            print(f"{'layers':>6} {'time s':>9} {'peak MiB':>9}")
        for layers in cpu_depths:
            lowered = os.path.join(tmp, f"mp{layers}.mlir")
            # Its contract warnings (the generator's frozen attention
            # weights) are not part of the table.
            subprocess.run([args.mpt_opt, paths[layers], "--mpt-mixed-precision",
                            "-o", lowered], check=True, capture_output=True)
            print(cpu_pipeline_row(args.mpt_opt, lowered, layers, args.cpu_timeout), flush=True)


if __name__ == "__main__":
    main()
