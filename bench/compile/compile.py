#!/usr/bin/env python3
"""Compile time of mpt's CPU backend against PyTorch eager's first step.

For each model, in one run on this machine:

  mpt first   mpt-run's time to the end of the first step (after parsing:
              reading the inputs, lowering, compiling, the step), cache
              off, with mpt-run's defaults: a large step whose work is small
              runs its first step in the interpreter while it compiles
              (--interpreted-steps=auto; "i" after the figure), a large one
              starts with code generated at -O0 while its -O2 code is
              generated in the background (--tiered-compile=auto)
              (--timing's "first step done" figure)
  compiled    the time to the start of the first step with the interpreter
              off (--interpreted-steps=0; --timing's "compile" figure): the
              wait for compiled code
  mpt -O2     the same compiled once at -O2 (--tiered-compile=off): the
              wait without tiers, and about when the -O2 code of the tiered
              run is ready
  mpt cached  mpt first with the compiled step in the cache (a second run);
              "miss" after the figure when the second run did not find it
              (stderr says why, if mpt-run did)
  mpt step    the second step's time (compiled, -O2)
  torch first PyTorch eager's first training step (forward, backward,
              optimizer step) on the same model, batch and threads (1),
              in a fresh process; the model has run one no-grad forward
              before (to make the batch's target), so this is if anything
              faster than a user's real first step
  ratio       mpt first / torch first (the issue's target: <= 10x): both
              to the end of the first step

Each model in each of --precisions: fp32 as imported, bf16 through
--mpt-mixed-precision{dtype=bf16} (mpt-run --passes) against PyTorch's first
step under autocast(cpu, bfloat16). mpt-run runs on one thread (--threads 1),
as PyTorch does here, and generates code on --compile-threads threads
(default 1, the --threads 1 default).

Then --mpt-lower-to-cpu (mpt-opt, the MLIR half of the compile) on generated
transformer steps of --layers depths (bench/autocast's generator, after
--mpt-mixed-precision): wall time and peak memory (target for 256 layers:
< 60 s, < 4 GB).

Models are imported with mpt-import-torch into --workdir (kept between runs);
a model that does not import is listed with the importer's error.

  bench/compile/compile.py [--models resnet18,gpt-block,shufflenet]
                           [--precisions fp32,bf16] [--layers 64,256]
                           [--workdir /tmp/mpt-compile] [--compile-threads N]
This is a benchmark, not a test: the numbers depend on the machine and its
load (the output says the load average).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "bench/compile/compile.py", exit_code=2)

sys.path.insert(0, os.path.join(REPO, "bench", "scale"))
sys.path.insert(0, os.path.join(REPO, "bench", "autocast"))

ZOO = os.path.join(REPO, "bench", "zoo", "models.py")
# name: (importer --model, input shape or None for the model's own, importer flags)
MODELS = {
    "resnet18": ("resnet18", "16,3,64,64", ["--optimizer", "sgd", "--lr", "0.01"]),
    "gpt-block": ("gpt-block", None, ["--optimizer", "adamw"]),
    "shufflenet": (ZOO + ":shufflenet_v2_x0_5", None, ["--optimizer", "sgd", "--lr", "0.01"]),
    "mobilenet_v3_small": (ZOO + ":mobilenet_v3_small", None, ["--optimizer", "sgd", "--lr", "0.01"]),
    "efficientnet_b0": (ZOO + ":efficientnet_b0", None, ["--optimizer", "sgd", "--lr", "0.01"]),
}

TORCH_CHILD = r"""
import json, os, sys, time
import torch
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
from mpt_import_torch import losses, models, step
torch.set_num_threads(1)
name, shape, loss_name = sys.argv[2], sys.argv[3], "cross-entropy"
shape = tuple(int(d) for d in shape.split(",")) if shape != "-" else None
model, shape, _ = models.load_model(name, shape)
x, y = step.make_batch(model, loss_name, shape, torch.Generator().manual_seed(1))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=sys.argv[4] == "bf16")
start = time.perf_counter()
with autocast:
    out = model(x)
loss = losses.get(loss_name)(out.float(), y)
loss.backward()
opt.step()
print(json.dumps({"first_step_s": time.perf_counter() - start}))
"""

# --passes for each precision (bench/zoo's bf16 pipeline).
PRECISIONS = {"fp32": [], "bf16": ["--passes", "mpt-mixed-precision{dtype=bf16}"]}
COMPILE = re.compile(r"timing: compile ([0-9.]+) s, step best ([0-9.]+) ms")
FIRST_DONE = re.compile(r"timing: first step done at ([0-9.]+) s")
INTERPRETED = re.compile(r"timing: interpreted: [0-9]+ steps")


def import_step(name, workdir, timeout):
    model, shape, flags = MODELS[name]
    out = os.path.join(workdir, name + ".mlir")
    if not os.path.exists(out):
        cmd = [sys.executable, os.path.join(REPO, "tools", "mpt-import-torch", "mpt-import-torch"),
               "--model", model, "-o", out] + flags
        if shape:
            cmd += ["--input-shape", shape]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            lines = [l for l in r.stderr.splitlines() if "error" in l] or r.stderr.splitlines()
            return None, (lines[0] if lines else "failed")[:160]
    return out, None


COMPILE_THREADS = ["--compile-threads", "1"]


def mpt_first_step(mpt_run, step, cache_args, timeout, expect_hit=False, tiers="off", interpreted="0"):
    """(compile s, step s, cache hit, first step done s, interpreted) from
    --timing and --cache-report (hit is None with --no-cache); a miss where a
    hit was expected is said on stderr."""
    report = [] if "--no-cache" in cache_args else ["--cache-report"]
    r = subprocess.run([mpt_run, step, "--inputs", step[:-len(".mlir")] + ".npz", "--steps", "2", "--threads", "1",
                        "--timing", "--no-progress", "--log", os.devnull, "--tiered-compile=" + tiers,
                        "--interpreted-steps=" + interpreted]
                       + COMPILE_THREADS + report + cache_args,
                       capture_output=True, text=True, timeout=timeout)
    m = COMPILE.search(r.stderr)
    done = FIRST_DONE.search(r.stderr)
    if r.returncode != 0 or not m or not done:
        raise RuntimeError(f"mpt-run failed on {step}: {r.stderr.strip()[-300:]}")
    step_s = float(m.group(2)) / 1e3
    hit = "mpt-run: cache hit" in r.stderr if report else None
    if expect_hit and hit is False:
        # A miss where a hit was expected: say why if mpt-run did (a damaged
        # or unloadable entry warns; a changed key, e.g. mpt-run rebuilt
        # between the runs, does not).
        warnings = [l for l in r.stderr.splitlines() if "warning" in l]
        print(f"  {os.path.basename(step)}: cache miss on the cached run"
              + (": " + "; ".join(warnings) if warnings else " (no warning: another key)"),
              file=sys.stderr, flush=True)
    return float(m.group(1)), step_s, hit, float(done.group(1)), bool(INTERPRETED.search(r.stderr))


def torch_first_step(name, precision):
    model, shape, _ = MODELS[name]
    r = subprocess.run([sys.executable, "-c", TORCH_CHILD, REPO, model, shape or "-", precision],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"PyTorch failed on {name}: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])["first_step_s"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet18,gpt-block,shufflenet,mobilenet_v3_small,efficientnet_b0")
    p.add_argument("--precisions", default="fp32,bf16", help="of the models: fp32, bf16")
    p.add_argument("--layers", default="64,256", help="generated depths for --mpt-lower-to-cpu ('' for none)")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "mpt-compile-bench"))
    p.add_argument("--build", default=os.path.join(REPO, "build"))
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--compile-threads", type=int, default=1,
                   help="mpt-run --compile-threads: threads that generate the step's code")
    args = p.parse_args()
    COMPILE_THREADS[1] = str(args.compile_threads)
    os.makedirs(args.workdir, exist_ok=True)
    mpt_run = os.path.join(args.build, "bin", "mpt-run")
    mpt_opt = os.path.join(args.build, "bin", "mpt-opt")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; threads 1; "
          f"compile threads {args.compile_threads}; -O2")
    precisions = [x for x in args.precisions.split(",") if x]
    for x in precisions:
        if x not in PRECISIONS:
            p.error(f"--precisions: unknown precision '{x}' (expected one of {', '.join(PRECISIONS)})")
    print(f"{'model':<25} {'mpt first s':>11} {'compiled s':>10} {'mpt -O2 s':>9} {'mpt cached s':>12} "
          f"{'mpt step s':>10} {'torch first s':>13} {'ratio':>7}")
    for name in [m for m in args.models.split(",") if m]:
        step, error = import_step(name, args.workdir, args.timeout)
        if step is None:
            print(f"{name:<25} does not import: {error}", flush=True)
            continue
        for precision in precisions:
            passes = PRECISIONS[precision]
            with tempfile.TemporaryDirectory() as cache:
                _, _, _, first, interpreted = mpt_first_step(
                    mpt_run, step, ["--no-cache"] + passes, args.timeout, tiers="auto", interpreted="auto")
                compiled, _, _, _, _ = mpt_first_step(mpt_run, step, ["--no-cache"] + passes, args.timeout,
                                                      tiers="auto")
                once, step_s, _, _, _ = mpt_first_step(mpt_run, step, ["--no-cache"] + passes, args.timeout)
                mpt_first_step(mpt_run, step, ["--cache-dir", cache] + passes, args.timeout)
                _, _, hit, cached, _ = mpt_first_step(mpt_run, step, ["--cache-dir", cache] + passes,
                                                      args.timeout, expect_hit=True, tiers="auto",
                                                      interpreted="auto")
            torch_s = torch_first_step(name, precision)
            first_text = f"{first:.2f}" + (" i" if interpreted else "")
            # A miss is marked: its figure is a compile, not a cached start.
            cached_text = f"{cached:.2f}" + ("" if hit else " miss")
            print(f"{name + ' ' + precision:<25} {first_text:>11} {compiled:>10.2f} {once:>9.2f} "
                  f"{cached_text:>12} {step_s:>10.3f} {torch_s:>13.3f} {first / torch_s:>6.1f}x",
                  flush=True)

    depths = [int(d) for d in args.layers.split(",") if d]
    if depths:
        import gen_transformer
        from scale import cpu_pipeline_row
        print("\n--mpt-lower-to-cpu on generated transformer steps (mixed precision):")
        print(f"{'layers':>6} {'time s':>9} {'peak MiB':>9}")
    for layers in depths:
        src = os.path.join(args.workdir, f"gen{layers}.mlir")
        mp = os.path.join(args.workdir, f"gen{layers}_mp.mlir")
        if not os.path.exists(mp):
            with open(src, "w") as f:
                f.write(gen_transformer.generate(layers, 16, 32, 64, 8))
            subprocess.run([mpt_opt, src, "--mpt-mixed-precision", "-o", mp], check=True,
                           stderr=subprocess.DEVNULL)
        print(cpu_pipeline_row(mpt_opt, mp, layers, args.timeout), flush=True)


if __name__ == "__main__":
    main()
