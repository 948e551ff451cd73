#!/usr/bin/env python3
"""Memory of one training step, mpt against PyTorch, in one run.

For ResNet-18 (3x64x64, batch 16 and 64), a GPT block and a 4-block GPT
(d=256, T=128, batch 8), in FP32 / bf16 / f16:

  mpt      the static estimate (TrainingGraph, as --mpt-training-graph-report
           gives it) and the measured figures of `mpt-run --memory` (the heap
           bytes the compiled step allocates, counted): peak step memory
           (parameters, optimizer state, input batch, and the step's own
           allocations at their peak) and activations kept for the backward;
  PyTorch  the bytes saved for the backward (torch.autograd.graph.
           saved_tensors_hooks, unique storages, parameters excluded) and the
           peak RSS delta of one step, eager FP32 and torch.autocast("cpu"),
           on the same model, loss, optimizer and batch;

then the ratios low/FP32 and the largest batch whose step fits in the FP32
step's memory (a line through two batch sizes per model). A row 'fp32
recompute' gives mpt's FP32 step with only the recomputation the
mixed-precision pipeline does (mpt-recompute-in-backward), so that what the
precision saves and what the recomputation saves can be told apart.

  .venv/bin/python bench/memory/memory.py [--quick] [--policy-level NAME]
      [--models resnet18,gpt_block,gpt4] [--build build] [--markdown]

--quick measures ResNet-18 at batch 4 and 16 instead of 16 and 64 (the CPU
backend runs a ResNet-18 batch-64 step in minutes). --policy-level NAME
passes policy-level=NAME to --mpt-mixed-precision (and --mp-options any other options), so
that the table can be regenerated after a policy change. docs/Memory.md
describes what each figure counts.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

ensure_venv(__file__, "bench/memory/memory.py", exit_code=2)

PRECISIONS = ("fp32", "bf16", "f16")
# mpt's FP32 step with only the recomputation of --mpt-mixed-precision
# (mpt-recompute-in-backward): what the precision saves and what the
# recomputation saves, apart. PyTorch has no such row.
RECOMPUTED_FP32 = "fp32 recompute"
KIB = 1024.0
MIB = 1024.0 * 1024.0


# --------------------------------------------------------------------------
# mpt
# --------------------------------------------------------------------------

def mpt_passes(precision, args):
    if precision == "fp32":
        return None
    if precision == RECOMPUTED_FP32:
        return "mpt-recompute-in-backward"
    options = [] if precision == "f16" else ["dtype=bf16"]
    if args.policy_level:
        options.append("policy-level=" + args.policy_level)
    if args.mp_options:
        options.append(args.mp_options)
    return "mpt-mixed-precision" + ("{" + " ".join(options) + "}" if options else "")


def import_step(model, batch, workdir):
    """mpt-import-torch's step for `model` at `batch`: (mlir, npz, manifest)."""
    import models
    factory, sample, opt_args = models.MODELS[model]
    out = os.path.join(workdir, f"{model}_b{batch}.mlir")
    if not os.path.exists(out):
        subprocess.run(
            [sys.executable, os.path.join(REPO, "tools", "mpt-import-torch", "mpt-import-torch"),
             "--model", os.path.join(HERE, "models.py") + ":" + factory.__name__,
             "--input-shape", ",".join(str(d) for d in (batch,) + sample),
             "-o", out] + opt_args,
            check=True, stdout=subprocess.DEVNULL)
    base = out[:-len(".mlir")]
    with open(base + ".json") as f:
        manifest = json.load(f)
    return out, base + ".npz", manifest


ESTIMATE = re.compile(r"static estimate \(TrainingGraph\): params (\d+), gradients (\d+), "
                      r"optimizer state (\d+), activations (\d+), weight copies (\d+), total (\d+) B")


def run_mpt(step_args, precision, args, workdir):
    """One step under mpt-run --memory: its log line and static estimate."""
    log = os.path.join(workdir, "log.jsonl")
    cmd = [os.path.join(args.build, "bin", "mpt-run")] + step_args + [
        "--steps", "1", "--memory", "--log-format=jsonl", "--log", log, "--no-progress"]
    passes = mpt_passes(precision, args)
    if passes:
        cmd.append("--passes=" + passes)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"memory.py: {' '.join(cmd)} failed:\n{proc.stderr}")
    with open(log) as f:
        line = json.loads(f.readline())
    m = ESTIMATE.search(proc.stderr)
    estimate = None
    # No estimate when --passes lowered the training markers (the
    # mixed-precision pipeline does).
    if m:
        params, grads, state, acts, copies, total = map(int, m.groups())
        estimate = dict(params=params, gradients=grads, optimizer_state=state,
                        activations=acts, param_copies=copies, total=total)
    return {"line": line, "estimate": estimate, "report": proc.stderr}


def data_bytes(manifest):
    """Bytes of the step's data arguments (input batch and targets)."""
    total = 0
    for arg in manifest["args"]:
        if arg.get("role") == "data":
            total += math.prod(arg["shape"]) * {"float32": 4, "int64": 8, "int32": 4}[arg["dtype"]]
    return total


def measure_mpt(model, batch, precision, args, workdir):
    step, npz, manifest = import_step(model, batch, workdir)
    r = run_mpt([step, "--inputs", npz], precision, args, workdir)
    line, est = r["line"], r["estimate"]
    data = data_bytes(manifest)
    return {
        # The estimate of the whole step: parameters, gradients, optimizer
        # state, kept activations (input batch included where the backward
        # reads it) and 16-bit weight copies.
        "est_peak": est["total"] if est else None,
        "est_kept": est["activations"] + est["param_copies"] if est else None,
        # Measured: the caller's buffers plus the step's allocations at
        # their peak.
        "peak": line["peak_bytes"],
        # The step's live bytes when the backward starts, plus the input
        # batch (the caller's, read by the backward as PyTorch saves it).
        "kept": line["backward_start_bytes"] + data,
    }


# --------------------------------------------------------------------------
# PyTorch
# --------------------------------------------------------------------------

TORCH_CHILD = r"""
import json, os, sys
import torch
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[2], "python"))
import models
from mpt_import_torch import losses
model_name, batch, precision = sys.argv[3], int(sys.argv[4]), sys.argv[5]
torch.set_num_threads(int(sys.argv[6]))
factory, sample, opt_args = models.MODELS[model_name]
torch.manual_seed(0)
model = factory().train()
g = torch.Generator().manual_seed(1)
x = torch.randn((batch,) + sample, generator=g)
with torch.no_grad():
    out_shape = model(x[:1]).shape
y = torch.randint(0, out_shape[-1], (batch,) + tuple(out_shape[1:-1]), generator=g)
params = list(model.parameters())
if model_name == "resnet18":
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
else:
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)
dtype = {"bf16": torch.bfloat16, "f16": torch.float16}.get(precision)
def step():
    with torch.autocast("cpu", dtype=dtype, enabled=dtype is not None):
        loss = losses.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
# A first step with lr 0 creates the optimizer state (which exists before
# the step in mpt's signature) and loads what PyTorch loads on first use
# (kernels, the autograd engine's threads): not part of a step's memory.
lr = opt.param_groups[0]["lr"]
opt.param_groups[0]["lr"] = 0.0
step()
opt.param_groups[0]["lr"] = lr

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def hwm():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

param_storages = {p.untyped_storage().data_ptr() for p in params}
saved = {}
def pack(t):
    s = t.untyped_storage()
    if s.data_ptr() not in param_storages:
        saved[s.data_ptr()] = s.nbytes()
    return t

base = rss()
# Restart the high-water mark at the present RSS (Linux: clear_refs 5).
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    step()
peak = hwm()
state = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values()
            if torch.is_tensor(t))
print(json.dumps({"saved": sum(saved.values()), "rss_delta": peak - base,
                  "params": sum(p.numel() * p.element_size() for p in params),
                  "state": state, "data": x.numel() * 4 + y.numel() * 8}))
"""


def measure_torch(model, batch, precision, args):
    # Large tensors are mmapped and returned to the system when freed, so
    # that the RSS follows the live tensors (glibc would otherwise keep
    # freed memory and reuse it across the step).
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="0")
    proc = subprocess.run([sys.executable, "-c", TORCH_CHILD, HERE, REPO, model, str(batch),
                           precision, str(args.threads)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"memory.py: the PyTorch measurement of {model} b{batch} {precision} "
                 f"failed:\n{proc.stderr}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    # The step's memory as mpt counts it: parameters, optimizer state and
    # the batch, plus what the step itself added at its peak (gradients,
    # activations, temporaries).
    r["peak"] = r["params"] + r["state"] + r["data"] + r["rss_delta"]
    return r


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------

def fits(fp32_peak, low_a, low_b, batch_a, batch_b):
    """The largest batch whose low-precision step fits in `fp32_peak`, from the
    line through (batch_a, low_a) and (batch_b, low_b)."""
    per_sample = (low_b - low_a) / (batch_b - batch_a)
    fixed = low_a - per_sample * batch_a
    if per_sample <= 0:
        return float("inf")
    return math.floor((fp32_peak - fixed) / per_sample)


# The bundled examples, for docs/Memory.md's side-by-side table: (name,
# step, mpt-run arguments, synth.py array entries for data no file gives).
EXAMPLES = [
    ("MLP (examples/mlp)", "examples/mlp/mlp_step.mlir", ["--init=seed:1", "--hparam", "lr=0.05"],
     ["x:8x16:f4:0.5", "y:8x4:f4:0.25"]),
    ("CNN (examples/cnn)", "examples/cnn/cnn_step.mlir", ["--init=seed:1", "--hparam", "lr=0.3"],
     ["x:8x8x8x1:f4:0.5", "y:8x2:f4:0.5"]),
    ("torch MLP, SGD", "examples/torch/mlp_sgd.mlir", ["--inputs", "examples/torch/mlp_sgd.npz"], []),
    ("torch GPT block, AdamW", "examples/torch/gpt_block_adamw.mlir",
     ["--inputs", "examples/torch/gpt_block_adamw.npz"], []),
]


def examples_table(args, workdir):
    """Estimate and measurement side by side for the bundled examples."""
    header = ["example", "prec", "est. total", "est. kept", "caller", "step peak", "returned",
              "kept (measured)", "peak"]
    rows = []
    for name, step, run_args, entries in EXAMPLES:
        extra = []
        if entries:
            data = os.path.join(workdir, os.path.basename(step) + ".data.npz")
            subprocess.run([sys.executable, os.path.join(REPO, "test", "Numerics", "Inputs", "synth.py"),
                            "array", data] + [a for e in entries for a in ("--entry", e)], check=True)
            extra = ["--inputs", data]
        for precision in PRECISIONS:
            print(f"memory.py: {name} {precision}", file=sys.stderr, flush=True)
            cmd = [os.path.join(REPO, step)] + [
                os.path.join(REPO, a) if a.startswith("examples/") else a for a in run_args] + extra
            r = run_mpt(cmd, precision, args, workdir)
            line, est = r["line"], r["estimate"]
            rows.append([name, precision, str(est["total"]) if est else "-",
                         str(est["activations"] + est["param_copies"]) if est else "-",
                         str(line["caller_bytes"]),
                         str(line["step_peak_bytes"]), str(line["returned_bytes"]),
                         str(line["backward_start_bytes"]), str(line["peak_bytes"])])
    return header, rows


def print_table(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
        for row in rows:
            print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="ResNet-18 at batch 4 and 16 instead of 16 and 64")
    p.add_argument("--models", default="resnet18,gpt_block,gpt4")
    p.add_argument("--policy-level", choices=["conservative", "promote"],
                   help="policy-level=NAME for --mpt-mixed-precision (default: the pipeline's)")
    p.add_argument("--mp-options", help="more --mpt-mixed-precision options, e.g. 'master-weights=1'")
    p.add_argument("--build", default=os.path.join(REPO, "build"))
    p.add_argument("--threads", type=int, default=1, help="PyTorch threads (default 1)")
    p.add_argument("--workdir", help="keep the imported steps here (default: a temporary directory)")
    p.add_argument("--examples", action="store_true",
                   help="only the bundled examples: estimate and measurement side by side")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = p.parse_args()
    sys.path.insert(0, HERE)

    batches = {"resnet18": (4, 16) if args.quick else (16, 64), "gpt_block": (4, 8), "gpt4": (4, 8)}
    # The batch each row is shown at; the other one only fixes the line.
    shown = {"resnet18": (16,) if args.quick else (16, 64), "gpt_block": (8,), "gpt4": (8,)}
    names = {"resnet18": "ResNet-18 3x64x64", "gpt_block": "GPT block d256 T128",
             "gpt4": "GPT 4 blocks d256 T128"}

    workdir = args.workdir or tempfile.mkdtemp(prefix="mpt-memory-")
    os.makedirs(workdir, exist_ok=True)
    if args.examples:
        print_table(*examples_table(args, workdir), args.markdown)
        print("(bytes; one step; 'est.': --mpt-training-graph-report's estimate, 'kept': "
              "activations and weight copies kept for the backward)")
        return
    results = {}
    for model in args.models.split(","):
        for batch in batches[model]:
            for precision in PRECISIONS + (RECOMPUTED_FP32,):
                print(f"memory.py: {model} batch {batch} {precision}", file=sys.stderr, flush=True)
                results[model, batch, precision] = {
                    "mpt": measure_mpt(model, batch, precision, args, workdir),
                    "torch": (measure_torch(model, batch, precision, args)
                              if precision in PRECISIONS else None)}

    mib = lambda b: "-" if b is None else f"{b / MIB:.2f}"  # noqa: E731
    header = ["model", "batch", "prec", "mpt est. peak", "mpt peak", "mpt est. kept", "mpt kept",
              "torch kept", "torch RSS d", "mpt kept/FP32", "torch kept/FP32", "mpt peak/FP32",
              "torch peak/FP32", "mpt fit", "torch fit"]
    rows = []
    for model in args.models.split(","):
        ba, bb = batches[model]
        for batch in shown[model]:
            f32 = results[model, batch, "fp32"]
            for precision in PRECISIONS + (RECOMPUTED_FP32,):
                r = results[model, batch, precision]
                m, t = r["mpt"], r["torch"]
                row = [names[model], str(batch), precision, mib(m["est_peak"]), mib(m["peak"]),
                       mib(m["est_kept"]), mib(m["kept"]),
                       mib(t["saved"]) if t else "-", mib(t["rss_delta"]) if t else "-"]
                if precision == "fp32":
                    row += ["", "", "", "", str(batch), str(batch)]
                    rows.append(row)
                    continue
                mfit = fits(f32["mpt"]["peak"], results[model, ba, precision]["mpt"]["peak"],
                            results[model, bb, precision]["mpt"]["peak"], ba, bb)
                row += [f"{m['kept'] / f32['mpt']['kept']:.2f}",
                        f"{t['saved'] / f32['torch']['saved']:.2f}" if t else "-",
                        f"{m['peak'] / f32['mpt']['peak']:.2f}",
                        f"{t['peak'] / f32['torch']['peak']:.2f}" if t else "-",
                        f"{mfit} ({mfit / batch:.2f}x)"]
                if t:
                    tfit = fits(f32["torch"]["peak"], results[model, ba, precision]["torch"]["peak"],
                                results[model, bb, precision]["torch"]["peak"], ba, bb)
                    row.append(f"{tfit} ({tfit / batch:.2f}x)")
                else:
                    row.append("-")
                rows.append(row)
    print_table(header, rows, args.markdown)
    print(f"(MiB; 'kept': activations kept for the backward; 'fit': the largest batch whose "
          f"step fits in the FP32 step's memory, from batches {batches}; PyTorch "
          f"{args.threads} thread(s); policy level: {args.policy_level or 'default'})")


if __name__ == "__main__":
    main()
