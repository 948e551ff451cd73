#!/usr/bin/env python3
"""Peer comparison: mpt's mixed precision against PyTorch AMP on one model.

One command, same model, same initial weights, same batches:
  PyTorch  fp32 | bf16 autocast | f16 autocast + GradScaler   (torch_reference.py)
  mpt      mpt-run, no passes | mpt-mixed-precision{dtype=bf16} | mpt-mixed-precision
           (f16, dynamic loss scaling with GradScaler's constants)
on the step mpt-import-torch imports from the same module.  Prints

  * the loss curves side by side (every --table-every steps) and, for f16, the
    loss scale of both systems;
  * per precision: max and mean |loss_mpt - loss_torch| over all steps, the
    same over the last 10% of steps, and the number of steps whose loss scale
    differs;
  * the decisions: per op category and training phase, how many ops ran in
    low precision / f32 in PyTorch's autocast (autocast_ops.json, step 0)
    and in mpt's plan (--mpt-precision-report=format=json).

--tolerance fp32=A,bf16=B,f16=C makes it a check: exit 1 (one line per
violation) if the max |loss difference| of a mode exceeds its bound, or if
the f16 loss-scale trajectories differ.  Writes everything into --out-dir
(default bench/peer/out/<model>): the reference files, mpt_<mode>.csv,
precision_<dtype>.json, summary.json.  See docs/PeerComparison.md.
Run with the repo's .venv python (re-executes itself under it).
"""

import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "compare.py")
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import torch_reference  # noqa: E402
from mpt_import_torch import UserError  # noqa: E402

MODES = ("fp32", "bf16", "f16")
# What mpt runs for each PyTorch mode.  The f16 pipeline's loss-scaling
# defaults are GradScaler's (init 65536, growth 2, backoff 0.5); the growth
# interval is passed explicitly so that --growth-interval changes both.
MPT_PASSES = {"fp32": None,
              "bf16": "mpt-mixed-precision{{dtype=bf16}}",
              "f16": "mpt-mixed-precision{{dtype=f16 growth-interval={gi}}}"}
LOW_DTYPE = {"bf16": "bf16", "f16": "f16"}
CATEGORIES = ("matmul", "conv", "reduction", "softmax/norm", "other")
PHASES = {"forward": "forward", "backward": "backward", "update": "optimizer"}


class CompareError(Exception):
    pass


def default_tool(name):
    for cand in (os.path.join(REPO, "build", "bin", name),):
        if os.path.exists(cand):
            return cand
    return name


def parse_tolerance(text):
    tol = {}
    for item in filter(None, (text or "").split(",")):
        mode, _, val = item.partition("=")
        if mode not in MODES or not val:
            raise UserError(f"--tolerance: expected MODE=NUMBER with MODE in fp32,bf16,f16, got '{item}'")
        try:
            tol[mode] = float(val)
        except ValueError:
            raise UserError(f"--tolerance: '{val}' is not a number")
    return tol


def read_torch_losses(path):
    curves = {}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            c = curves.setdefault(row["mode"], {"loss": [], "scale": [], "skipped": []})
            c["loss"].append(float(row["loss"]))
            c["scale"].append(float(row["loss_scale"]) if row["loss_scale"] else None)
            c["skipped"].append(int(row["skipped"]) if row["skipped"] else None)
    return curves


def read_mpt_log(path):
    c = {"loss": [], "scale": [], "skipped": []}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            c["loss"].append(float(row["loss"]))
            c["scale"].append(float(row["loss_scale"]) if row.get("loss_scale") else None)
            c["skipped"].append(int(row["skipped"]) if row.get("skipped") else None)
    return c


def check_data_layout(man, out):
    """The data.npz written for PyTorch must feed exactly the step's data
    arguments: one entry arg<N> per argument N with role data, of shape
    [steps, *arg shape] and the argument's dtype.  mpt-run names arguments
    arg<N> by index, so this is what makes it read PyTorch's batches."""
    data = np.load(os.path.join(out, "data.npz"))
    steps = man["reference"]["steps"]
    want = {f"arg{a['index']}": a for a in man["args"] if a["role"] == "data"}
    if sorted(data.files) != sorted(want):
        raise CompareError(f"data.npz has {sorted(data.files)}, the step's data arguments are {sorted(want)}")
    for key, a in want.items():
        arr = data[key]
        if list(arr.shape) != [steps] + a["shape"] or str(arr.dtype) != a["dtype"]:
            raise CompareError(f"data.npz:{key} is {arr.shape} {arr.dtype}, argument {a['index']} "
                               f"('{a['name']}') needs {[steps] + a['shape']} {a['dtype']}")
    return sorted(want)


def write_state_inputs(man, out):
    """init.npz minus the data arguments (mpt-run refuses a value given twice)."""
    init = np.load(os.path.join(out, "init.npz"))
    roles = {f"arg{a['index']}": a["role"] for a in man["args"]}
    if sorted(init.files) != sorted(roles):
        raise CompareError(f"init.npz has {len(init.files)} entries, the step has {len(roles)} arguments")
    path = os.path.join(out, "mpt_init.npz")
    np.savez(path, **{k: init[k] for k in init.files if roles[k] != "data"})
    return path


def run_tool(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise CompareError(f"cannot run {cmd[0]}: {e.strerror} (build it, or pass --mpt-run/--mpt-opt)")


def run_mpt(mpt_run, out, mode, steps, growth_interval, passes, extra_args=()):
    log = os.path.join(out, f"mpt_{mode}.csv")
    cmd = [mpt_run, os.path.join(out, "step.mlir"), "--inputs", os.path.join(out, "mpt_init.npz"),
           "--data", os.path.join(out, "data.npz"), "--steps", str(steps), "--log", log,
           "--no-progress"] + list(extra_args)
    if passes is None:
        passes = MPT_PASSES[mode] and MPT_PASSES[mode].format(gi=growth_interval)
    if passes:
        cmd.insert(2, "--passes=" + passes)
    r = run_tool(cmd)
    if r.returncode != 0:
        raise CompareError(f"mpt-run ({mode}) failed: {r.stderr.strip() or r.stdout.strip()}")
    return read_mpt_log(log), " ".join(cmd)


def mpt_category(op):
    name, cls = op["op"], op["class"]
    if "conv" in name:
        return "conv"
    if "matmul" in name or name.endswith((".dot", ".matvec", ".vecmat")):
        return "matmul"
    if cls == "reduction" or name == "linalg.reduce":
        return "reduction"
    return "other"


def mpt_decisions(mpt_opt, out, dtype):
    path = os.path.join(out, f"precision_{dtype}.json")
    r = run_tool([mpt_opt, os.path.join(out, "step.mlir"),
                  f"--mpt-precision-report=dtype={dtype} format=json output={path}", "-o", os.devnull])
    if r.returncode != 0:
        raise CompareError(f"mpt-opt --mpt-precision-report ({dtype}) failed: {r.stderr.strip()}")
    with open(path) as fh:
        rep = json.load(fh)["functions"][0]
    counts = {}
    for op in rep["ops"]:
        if op["precision"] == "unchanged":  # no float tensor data (constants, empties, integer ops)
            continue
        key = (mpt_category(op), PHASES.get(op["region"], op["region"]))
        c = counts.setdefault(key, {"low": 0, "f32": 0})
        c["low" if op["precision"] in ("f16", "bf16") else "f32"] += 1
    return counts, rep


def torch_decisions(out, mode):
    with open(os.path.join(out, "autocast_ops.json")) as fh:
        rep = json.load(fh)["modes"].get(mode)
    if rep is None:
        return None
    counts = {}
    for op in rep["ops"]:
        # Only ops on floating-point data: integer index work (arange, eq on
        # class ids) and pure view/metadata ops have no precision to choose.
        dts = op["input_dtypes"] + op["output_dtypes"]
        if not any(d in ("float32", "bfloat16", "float16") for d in dts):
            continue
        cat = op["category"]
        if cat in ("softmax", "normalization"):
            cat = "softmax/norm"
        key = (cat, op["phase"])
        c = counts.setdefault(key, {"low": 0, "f32": 0})
        c["low" if op["low_precision"] else "f32"] += op["count"]
    return counts


def fmt(v, w=11):
    if v is None:
        return "-".rjust(w)
    if isinstance(v, float):
        return f"{v:{w}.6g}"
    return str(v).rjust(w)


def curve_stats(a, b):
    n = min(len(a), len(b))
    d = np.abs(np.array(a[:n]) - np.array(b[:n]))
    tail = d[n - max(1, n // 10):]
    return {"steps": n, "max_abs": float(d.max()), "mean_abs": float(d.mean()),
            "max_abs_last10pct": float(tail.max()), "mean_abs_last10pct": float(tail.mean()),
            "argmax_step": int(d.argmax())}


def main(argv=None):
    p = torch_reference.cli.make_parser()
    p.prog = "compare.py"

    def error(message):  # the importer's parser names itself; one line, exit 2
        print(f"compare.py: error: {message}", file=sys.stderr)
        sys.exit(2)
    p.error = error
    p.description = __doc__.splitlines()[0]
    p.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    p.add_argument("--distinct-batches", type=int, default=4,
                   help="size of the batch pool cycled through (default 4)")
    p.add_argument("--out-dir", help="output directory (default bench/peer/out/<model>)")
    p.add_argument("--modes", default="fp32,bf16,f16", help="comma list of fp32,bf16,f16")
    p.add_argument("--growth-interval", type=int, default=2000,
                   help="f16 loss-scale growth interval, both systems (default 2000, GradScaler's)")
    p.add_argument("--table-every", type=int, default=25, help="table row every N steps (default 25)")
    p.add_argument("--tolerance", help="fail unless max |loss_mpt - loss_torch| <= bound per mode, "
                   "e.g. fp32=1e-5,bf16=0.05,f16=0.01; f16 also requires equal loss scales")
    p.add_argument("--mpt-passes", action="append", metavar="MODE=PIPELINE",
                   help="run mpt-run --passes=PIPELINE (empty: none) for MODE instead of the default "
                   "(repeatable); e.g. to try a policy, or to see the check fail")
    p.add_argument("--mpt-run-arg", action="append", default=[], metavar="ARG",
                   help="pass ARG to every mpt-run (repeatable), e.g. --mpt-run-arg=--excess-precision=0 "
                   "for PyTorch eager's op-by-op rounding inside fused ops")
    p.add_argument("--no-decisions", action="store_true", help="skip the decision comparison")
    p.add_argument("--mpt-run", default=default_tool("mpt-run"), help="mpt-run binary")
    p.add_argument("--mpt-opt", default=default_tool("mpt-opt"), help="mpt-opt binary")
    args = p.parse_args(argv)
    try:
        return run(args)
    except (UserError, CompareError) as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2


def run(args):
    tol = parse_tolerance(args.tolerance)
    override = {}
    for item in args.mpt_passes or []:
        mode, sep, pipeline = item.partition("=")
        if mode not in MODES or not sep:
            raise UserError(f"--mpt-passes: expected MODE=PIPELINE with MODE in fp32,bf16,f16, got '{item}'")
        override[mode] = pipeline
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            raise UserError(f"unknown mode '{m}' (fp32, bf16, f16)")
    out = args.out_dir or os.path.join(REPO, "bench", "peer", "out", args.model.replace(":", "_"))
    args.out_dir, args.emit_step = out, True
    # 1. PyTorch: reference runs, init.npz, data.npz, manifest, step.mlir.
    with open(os.devnull, "w") as null:
        saved, sys.stdout = sys.stdout, null
        try:
            rc = torch_reference.run(args)
        finally:
            sys.stdout = saved
    if rc:
        return rc
    with open(os.path.join(out, "manifest.json")) as fh:
        man = json.load(fh)
    data_keys = check_data_layout(man, out)
    write_state_inputs(man, out)
    torch_curves = read_torch_losses(os.path.join(out, "losses.csv"))
    modes = [m for m in modes if m in torch_curves]  # f16 may be unsupported by this torch

    # 2. mpt: the imported step under mpt-run, same init and batches.
    mpt_curves, commands = {}, {}
    for m in modes:
        mpt_curves[m], commands[m] = run_mpt(args.mpt_run, out, m, args.steps, args.growth_interval,
                                             override.get(m), args.mpt_run_arg)

    # 3. Curves side by side.
    print(f"peer comparison: {args.model}, {args.steps} steps, {man['reference']['distinct_batches']} "
          f"distinct batches (data arguments {', '.join(data_keys)}), optimizer {man['optimizer']['name']}")
    hdr = ["step"]
    for m in modes:
        hdr += [f"torch {m}", f"mpt {m}"]
    if "f16" in modes:
        hdr += ["scale torch", "scale mpt"]
    print("  ".join(h.rjust(11) for h in hdr))
    rows = sorted(set(range(0, args.steps, max(1, args.table_every))) | {args.steps - 1})
    for k in rows:
        line = [fmt(k)]
        for m in modes:
            line += [fmt(torch_curves[m]["loss"][k]), fmt(mpt_curves[m]["loss"][k])]
        if "f16" in modes:
            line += [fmt(torch_curves["f16"]["scale"][k]), fmt(mpt_curves["f16"]["scale"][k])]
        print("  ".join(line))

    # 4. Summary.
    summary = {"model": args.model, "steps": args.steps, "modes": {}, "commands": commands}
    print("\nloss difference |mpt - torch| per precision (same precision in both systems):")
    print(f"  {'mode':5} {'max':>11} {'at step':>7} {'mean':>11} {'max last10%':>11} "
          f"{'mean last10%':>12} {'final torch':>11} {'final mpt':>11}")
    failures = []
    for m in modes:
        s = curve_stats(torch_curves[m]["loss"], mpt_curves[m]["loss"])
        s["final_torch"], s["final_mpt"] = torch_curves[m]["loss"][-1], mpt_curves[m]["loss"][-1]
        if m == "f16":
            ts, ms = torch_curves[m]["scale"], mpt_curves[m]["scale"]
            s["scale_mismatch_steps"] = sum(1 for a, b in zip(ts, ms) if a != b)
            s["skipped_torch"] = sum(x or 0 for x in torch_curves[m]["skipped"])
            s["skipped_mpt"] = sum(x or 0 for x in mpt_curves[m]["skipped"])
            s["scale_torch"] = ts
            s["scale_mpt"] = ms
            s["final_scale_torch"], s["final_scale_mpt"] = ts[-1], ms[-1]
        s["loss_torch"], s["loss_mpt"] = torch_curves[m]["loss"], mpt_curves[m]["loss"]
        summary["modes"][m] = s
        print(f"  {m:5} {s['max_abs']:11.3g} {s['argmax_step']:7d} {s['mean_abs']:11.3g} "
              f"{s['max_abs_last10pct']:11.3g} {s['mean_abs_last10pct']:12.3g} "
              f"{s['final_torch']:11.6g} {s['final_mpt']:11.6g}")
        if m in tol and not s["max_abs"] <= tol[m]:
            failures.append(f"{m}: max |loss difference| {s['max_abs']:.3g} (step {s['argmax_step']}) "
                            f"exceeds the tolerance {tol[m]:g}")
    for m in ("bf16", "f16"):
        if "fp32" in modes and m in modes:
            s = curve_stats(torch_curves["fp32"]["loss"], torch_curves[m]["loss"])
            summary["modes"][m]["torch_vs_torch_fp32"] = s
            print(f"  (for scale: torch {m} vs torch fp32: max {s['max_abs']:.3g}, mean {s['mean_abs']:.3g})")
    if "f16" in modes:
        s = summary["modes"]["f16"]
        print(f"f16 loss scale: torch {s['final_scale_torch']:g} ({s['skipped_torch']} skipped), "
              f"mpt {s['final_scale_mpt']:g} ({s['skipped_mpt']} skipped), "
              f"{s['scale_mismatch_steps']} steps with different scales")
        if "f16" in tol and s["scale_mismatch_steps"]:
            failures.append(f"f16: loss scale differs on {s['scale_mismatch_steps']} steps")

    # 5. Decisions.
    if not args.no_decisions:
        summary["decisions"] = {}
        for m in modes:
            if m == "fp32":
                continue
            tc = torch_decisions(out, m)
            mc, rep = mpt_decisions(args.mpt_opt, out, LOW_DTYPE[m])
            summary["decisions"][m] = {"torch": {"|".join(k): v for k, v in (tc or {}).items()},
                                       "mpt": {"|".join(k): v for k, v in mc.items()},
                                       "memory_before": rep["memory_before"],
                                       "memory_after": rep["memory_after"]}
            print(f"\ndecisions, {m}: ops in low precision / f32 (PyTorch: aten ops of step 0 on float "
                  f"data; mpt: ops of the plan)")
            print(f"  {'category':13} {'phase':9} {'torch low':>9} {'mpt low':>8} {'torch f32':>9} "
                  f"{'mpt f32':>8}")
            keys = sorted(set(tc or {}) | set(mc), key=lambda k: (
                CATEGORIES.index(k[0]), ("forward", "backward", "optimizer").index(k[1])))
            for k in keys:
                t, q = (tc or {}).get(k, {}), mc.get(k, {})
                print(f"  {k[0]:13} {k[1]:9} {t.get('low', 0):9d} {q.get('low', 0):8d} "
                      f"{t.get('f32', 0):9d} {q.get('f32', 0):8d}")

    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    if failures:
        for f in failures:
            print(f"compare.py: FAIL {f}", file=sys.stderr)
        return 1
    if tol:
        print("compare.py: within tolerance: " + ", ".join(f"{m} {v:g}" for m, v in tol.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
