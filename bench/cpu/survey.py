#!/usr/bin/env python3
"""Step times of any importable model: mpt-run FP32 and bf16 against PyTorch
eager FP32 and bf16 autocast, on the same batch and threads.

bench.py times a fixed list of models; this times models nobody has tuned
for, as a new user would try them: each MODEL is an mpt-import-torch
--model argument (module.path:factory or file.py:factory) with the input
shape after '@' and, optionally, the optimizer after a second '@' (default
sgd). Imports go to --workdir and are reused. Prints best ms/step of each
and the ratios mpt / PyTorch; one run, so the ratios are the figures to read.

Usage: bench/cpu/survey.py [--threads 1] [--steps 8] [--workdir DIR]
                           torchvision.models:regnet_y_400mf@16,3,64,64 ...
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--modes", default="fp32,bf16", help="comma list of fp32, bf16")
    p.add_argument("--mpt-run", default=os.path.join(bench.REPO, "build", "bin", "mpt-run"))
    p.add_argument("--workdir", default=os.path.join(bench.tempfile.gettempdir(), "mpt-bench-survey"))
    p.add_argument("models", nargs="+", metavar="MODEL@SHAPE[@OPTIMIZER]")
    args = p.parse_args()
    bench.torch.set_num_threads(args.threads)
    passes = {"fp32": None, "bf16": "mpt-mixed-precision{dtype=bf16}"}
    modes = args.modes.split(",")
    print("| model | shape | " + " | ".join(f"mpt {m} | PyTorch {m} | mpt / PyTorch" for m in modes)
          + " | compile s |")
    print("|---|---|" + "---|---|---|" * len(modes) + "---|")
    for item in args.models:
        model, shape, *rest = item.split("@")
        flags = ["--model", model, "--input-shape", shape, "--optimizer", rest[0] if rest else "sgd"]
        name = re.sub(r"[^A-Za-z0-9_]+", "_", model.rsplit(":", 1)[-1] + "_" + shape)
        cells, compile_s = [], "-"
        try:
            files = bench.step_files(args, name, flags, False)
            for mode in modes:
                r = bench.mpt_step(args, files, passes[mode], "auto", args.steps, args.threads)
                t = bench.torch_step(args, flags, mode, args.steps)
                if r:
                    compile_s = f"{r[2]:.1f}"
                cells += [f"{r[0]:.1f}" if r else "failed", f"{t[0]:.1f}", f"{r[0] / t[0]:.2f}" if r else "-"]
        except Exception as e:  # one model's failure (import, PyTorch) is a row, not the end of the survey
            cells = [f"error: {type(e).__name__}"] + ["-"] * (3 * len(modes) - 1)
        print(f"| {model} | {shape} | " + " | ".join(cells) + f" | {compile_s} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
