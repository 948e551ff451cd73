#!/usr/bin/env python3
"""Times --mpt-autocast, and the whole --mpt-mixed-precision pipeline, on a
large generated transformer training step, as a ratio to what mpt-opt needs
anyway to parse, verify and print the same file, for N and 2N layers,
measured in one run (MLIR's --mlir-timing).

  autocast ratio = time(Autocast pass) / time(Parser + Output)
  pipeline ratio = time(all passes of the pipeline and mpt-opt's one
                   verification after them: Total - Parser - Output)
                   / time(Parser + Output)

A ratio at or under 1.0 means autocast costs no more than reading and
writing the IR; the ratio staying flat from N to 2N layers means autocast
grows linearly, like parsing does. This is a benchmark, not a test: the
numbers depend on the machine.

Usage: bench.py [--mpt-opt build/bin/mpt-opt] [--layers 96] [--repeat 5]
"""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_transformer  # noqa: E402
from mpt_opt_runs import count_ops, timing  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    repo = os.path.dirname(os.path.dirname(HERE))
    parser.add_argument("--mpt-opt", default=os.path.join(repo, "build", "bin", "mpt-opt"))
    parser.add_argument("--layers", type=int, default=96, help="N; 2N is measured too")
    parser.add_argument("--repeat", type=int, default=5, help="runs per size; the median is kept")
    parser.add_argument("--options", default="",
                        help="autocast/pipeline options, e.g. dtype=bf16")
    args = parser.parse_args()

    autocast = "--mpt-autocast" + (f"={args.options}" if args.options else "")
    pipeline = "--mpt-mixed-precision" + (f"={args.options}" if args.options else "")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (args.layers, 2 * args.layers):
            path = os.path.join(tmp, f"step{layers}.mlir")
            with open(path, "w") as f:
                f.write(gen_transformer.generate(layers, 16, 32, 64, 8))
            ops = count_ops(args.mpt_opt, path)
            pass_times, io_times, pipe_times, pipe_io_times = [], [], [], []
            for _ in range(args.repeat):
                t = timing(args.mpt_opt, path, [autocast])
                pass_times.append(t["Autocast"])
                io_times.append(t["Parser"] + t["Output"])
                t = timing(args.mpt_opt, path, [pipeline])
                io = t["Parser"] + t["Output"]
                pipe_times.append(t["Total"] - io)
                pipe_io_times.append(io)
            rows.append((layers, ops, statistics.median(pass_times),
                         statistics.median(io_times), statistics.median(pipe_times),
                         statistics.median(pipe_io_times)))

    print(f"{'layers':>7} {'ops':>8} {'parse+print s':>14} {'autocast s':>11} {'ratio':>6}"
          f" {'pipeline s':>11} {'ratio':>6}")
    for layers, ops, p, io, pp, pio in rows:
        print(f"{layers:>7} {ops:>8} {io:>14.4f} {p:>11.4f} {p / io:>6.2f}"
              f" {pp:>11.4f} {pp / pio:>6.2f}")
    (l1, o1, p1, _, pp1, _), (l2, o2, p2, _, pp2, _) = rows
    print(f"{l2} vs {l1} layers: x{o2 / o1:.2f} ops; autocast time x{p2 / p1:.2f},"
          f" pipeline time x{pp2 / pp1:.2f}")


if __name__ == "__main__":
    main()
