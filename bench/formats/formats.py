#!/usr/bin/env python3
"""Loss curves of one training step in FP32, bf16, FP8 (hybrid, delayed
scaling), MXFP8 and MXFP4: mpt-run trains the same step from the same
initial values on the same batches in each format and this prints the loss
at a few steps and each format's distance to FP32 and bf16.

  python3 bench/formats/formats.py [--steps 200] [--step FILE.mlir --inputs FILE.npz]

Default: the imported GPT block (examples/torch/gpt_block_adamw.mlir, its
one batch repeated: the curve is the block fitting that batch). The table
goes to stdout as Markdown (README.md and docs/MX.md show it)."""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FORMATS = [
    ("FP32", None),
    ("bf16", "mpt-mixed-precision{dtype=bf16}"),
    ("FP8 hybrid", "mpt-mixed-precision{dtype=fp8}"),
    ("MXFP8", "mpt-mixed-precision{dtype=mxfp8}"),
    ("MXFP4", "mpt-mixed-precision{dtype=mxfp4}"),
]


def train(mpt_run, step, inputs, steps, passes, log):
    cmd = [mpt_run, step, "--inputs", inputs, "--steps", str(steps), "--log", log, "--no-progress"]
    if passes:
        cmd.insert(2, "--passes=" + passes)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"formats.py: {' '.join(cmd)} failed:\n{r.stderr}")
    with open(log) as fh:
        return [float(row["loss"]) for row in csv.DictReader(fh)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--step", default=os.path.join(ROOT, "examples/torch/gpt_block_adamw.mlir"))
    p.add_argument("--inputs", default=os.path.join(ROOT, "examples/torch/gpt_block_adamw.npz"))
    p.add_argument("--bin-dir", default=os.path.join(ROOT, "build/bin"))
    a = p.parse_args(argv)
    mpt_run = os.path.join(a.bin_dir, "mpt-run")
    curves = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, passes in FORMATS:
            curves[name] = train(mpt_run, a.step, a.inputs, a.steps, passes, os.path.join(tmp, "log.csv"))
    marks = sorted({0, 10, a.steps // 4, a.steps // 2, a.steps - 1} & set(range(a.steps)))
    tail = max(1, a.steps // 10)
    mean_tail = {n: sum(c[-tail:]) / tail for n, c in curves.items()}
    print(f"{os.path.relpath(a.step, ROOT)}, {a.steps} steps; loss at step k; last {tail} steps' mean "
          "loss minus FP32's and bf16's")
    print()
    print("| format | " + " | ".join(f"step {k}" for k in marks) + " | vs FP32 | vs bf16 |")
    print("|---" * (len(marks) + 3) + "|")
    for name, c in curves.items():
        cells = [f"{c[k]:.4f}" for k in marks]
        cells += [f"{mean_tail[name] - mean_tail['FP32']:+.1e}", f"{mean_tail[name] - mean_tail['bf16']:+.1e}"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
