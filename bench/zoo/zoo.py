#!/usr/bin/env python3
"""Model zoo: real models through the front door.

For every model of bench/zoo/models.py (ZOO), on the same initial weights and
the same batch (one batch, repeated, so that a training loss must fall):

  import    mpt-import-torch builds the step (the error names op and line)
  f16, bf16 mpt-opt --mpt-mixed-precision (f16: dynamic loss scaling) verifies
  trains    mpt-run trains it for --steps steps in FP32, f16 and bf16 (-O0:
            the CPU JIT is slow on big graphs at -O2; the zoo checks numbers,
            not speed), and the FP32 loss falls
  gaps      |mpt FP32 - eager FP32|, and for f16/bf16 |mpt - eager FP32| next
            to PyTorch AMP's own |AMP - eager FP32| and |mpt - AMP| (max over
            steps; PyTorch: bench/peer/torch_reference.py, autocast on the CPU,
            f16 with GradScaler)

A model passes when it imports, both pipelines verify, every mode trains
(finite losses, FP32 falls), FP32 matches eager at every step (relative 1e-3
of the first loss: f32 with another summation order; or, for models that
amplify rounding, such as BatchNorm over few values, 3 x eager FP32's own
rounding noise: noise_runs) and each low precision is at most max(3 x AMP's own gap,
1e-2 x first loss) from FP32, AMP's gap being the largest of its run and of its runs from
the 1-ulp perturbed weights (noise_runs): mpt's mixed precision is no further from FP32
than PyTorch AMP's, up to rounding-noise level (1% of the loss in a few
steps, the triangle bound of test/Frontend/torch/peer-compare.test).

  bench/zoo/zoo.py                      # all models, table on stdout
  bench/zoo/zoo.py --write-doc          # ... and docs/ModelZoo.md
  bench/zoo/zoo.py --models gpt,lstm    # a few
  bench/zoo/zoo.py --reuse-only --keep-doc --write-doc
                                        # the doc from saved results; models
                                        # without one keep their current row
Each model runs in its own process with --timeout seconds; a failure is one
line naming the stage (and, from the importer, the op and the model line).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "zoo.py")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "bench", "peer"))

import models  # noqa: E402

DOC = os.path.join(REPO, "docs", "ModelZoo.md")
PIPELINES = {"f16": "mpt-mixed-precision", "bf16": "mpt-mixed-precision{dtype=bf16}"}
FP32_REL_TOL = 1e-3
# Eager FP32 rerun from initial weights perturbed by ~1 ulp (relative 1e-7,
# SPREAD_RUNS times): how far rounding alone moves this model's losses.
ULP_NOISE, SPREAD_RUNS, SPREAD_FACTOR = 1e-7, 3, 3.0
LOW_AMP_FACTOR, LOW_REL_FLOOR = 3.0, 1e-2


BIN_DIR = os.path.join(REPO, "build", "bin")


def tool(name):
    return os.path.join(BIN_DIR, name)


def one_line(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    errs = [l for l in lines if "error" in l.lower()]
    return (errs or lines or ["(no output)"])[-1 if not errs else 0][:300]


class Stage(Exception):
    def __init__(self, stage, msg):
        super().__init__(f"{stage}: {msg}")
        self.stage = stage


def run_cmd(stage, cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Stage(stage, f"timed out: the model's --timeout budget ran out ({timeout:.0f} s were left for this stage)")
    if r.returncode != 0:
        raise Stage(stage, one_line(r.stderr) if r.stderr.strip() else one_line(r.stdout))
    return r


def read_log(path):
    import csv
    with open(path) as fh:
        return [float(row["loss"]) for row in csv.DictReader(fh)]


def skipped_steps(path, mode=None):
    """The steps a dynamic loss scale skipped (f16), from an mpt-run log or,
    with `mode`, the eager reference's losses.csv."""
    import csv
    with open(path) as fh:
        rows = [row for row in csv.DictReader(fh) if mode is None or row["mode"] == mode]
    return [k for k, row in enumerate(rows) if int(float(row.get("skipped") or 0))]


def name_arguments(msg, manifest):
    """An mpt-opt message with each "argument #N" followed by the name the
    manifest gives argument N (the model's parameter name): the step is
    written without locations, so the message alone names no model source."""
    import re
    names = {x["index"]: x["name"] for x in manifest["args"]}
    return re.sub(r"argument #(\d+)", lambda m: m.group(0) + (f" ({names[int(m.group(1))]})"
                                                            if int(m.group(1)) in names else ""), msg)


def loss_falls(losses):
    """The last loss is below the first, or the second half of the steps'
    losses is below the first half's on average: with dropout every step
    draws other masks, and a single step's loss can rise while the model
    trains (efficientnet_b0, eager: 3.99, 3.81, 1.36, 4.12)."""
    half = len(losses) // 2
    return losses[-1] < losses[0] or (half > 0 and sum(losses[-half:]) / half < sum(losses[:half]) / half)


def without_missing_onednn(fn):
    """fn(), or, where oneDNN has no f16 kernel for an op on this CPU (its
    f16 LSTM: "could not create a primitive descriptor"), fn() with oneDNN
    off: PyTorch's own cell-by-cell RNN, still autocast; (result, whether
    oneDNN was off)."""
    import torch
    try:
        return fn(), False
    except RuntimeError as e:
        if "primitive descriptor" not in str(e):
            raise
    with torch.backends.mkldnn.flags(enabled=False):
        return fn(), True


def eager_rows(a, steps, mode, skip_steps=()):
    """Eager PyTorch's rows (mode, step, loss, scale, skipped) on the zoo's
    batch; `skip_steps`: steps whose update is not applied, in f16 imposed on
    GradScaler (torch_reference.train)."""
    import torch_reference
    spec, _ = torch_reference.cli.build(a)
    batch = (spec.args[spec.n_params].value, spec.args[spec.n_params + 1].value)
    return torch_reference.train(spec, [batch] * steps, mode, skip_steps=skip_steps)[0]


def eager_fp32(a, steps, skip_steps=()):
    """Eager FP32 losses; `skip_steps` as in eager_rows."""
    return [r[2] for r in eager_rows(a, steps, "fp32", skip_steps)]


def noise_runs(a, steps):
    """Reruns eager PyTorch SPREAD_RUNS times from initial weights multiplied
    by (1 + ULP_NOISE x standard normal), about one ulp: what rounding alone
    (another summation order) does to this model.  Returns

      fp32: per step k, the largest |loss_j - eager FP32 loss_j| (j <= k) of
            the perturbed FP32 runs: the rounding noise any other f32
            implementation is subject to.  Small, ~1e-7 of the loss, for
            well-conditioned models; BatchNorm over a few values at 1x1
            spatial size amplifies it by orders of magnitude.
      bf16, f16: the largest gap of the perturbed AMP runs to eager FP32 (to
            FP32 skipping the same steps where GradScaler skipped some).  One
            AMP run is one sample of AMP's distance to FP32: on a model whose
            trajectory is chaotic (efficientnet_b0's dropout and stochastic
            depth on batch 8: AMP bf16 from 1-ulp perturbed weights ends 0.9
            to 4.1 from FP32), another sample differs as much as mpt's run
            would; the bound on mpt's gap takes AMP's worst sample."""
    import dataclasses
    import torch
    import torch_reference
    from mpt_import_torch import step as step_mod
    spec, _ = torch_reference.cli.build(a)
    batch = (spec.args[spec.n_params].value, spec.args[spec.n_params + 1].value)
    losses = lambda s, mode: torch_reference.train(s, [batch] * steps, mode)[0]  # noqa: E731
    base = [r[2] for r in losses(spec, "fp32")]
    refs = {(): base}
    spread = {"fp32": [0.0] * steps, "bf16": 0.0, "f16": 0.0}
    gen = torch.Generator().manual_seed(12345)
    for _ in range(SPREAD_RUNS):
        args = [step_mod.Arg(x.name, x.role, x.value * (1 + ULP_NOISE * torch.randn(x.value.shape, generator=gen)))
                if x.role == "param" else x for x in spec.args]
        perturbed = dataclasses.replace(spec, args=args)
        worst = 0.0
        for k, r in enumerate(losses(perturbed, "fp32")):
            worst = max(worst, abs(r[2] - base[k]))
            spread["fp32"][k] = max(spread["fp32"][k], worst)
        for mode in ("bf16", "f16"):
            if mode == "f16" and not torch_reference.f16_autocast_supported():
                continue
            rows = without_missing_onednn(lambda: losses(perturbed, mode))[0]
            skips = tuple(k for k, r in enumerate(rows) if r[4])
            if skips not in refs:
                refs[skips] = eager_fp32(a, steps, skips)
            spread[mode] = max(spread[mode], max(abs(r[2] - f) for r, f in zip(rows, refs[skips])))
    return spread


def run_model(name, out, steps, timeout):
    """Runs one model in this process; returns the result dict."""
    import numpy as np
    import torch_reference
    from mpt_import_torch import UserError
    entry = models.ZOO[name]
    factory, opt_flags, desc = entry.factory, entry.flags, entry.desc
    res = {"model": name, "description": desc, "stages": {}}
    t0 = time.time()
    deadline = t0 + timeout
    os.makedirs(out, exist_ok=True)
    args = torch_reference.cli.make_parser()
    args.add_argument("--steps", type=int)
    args.add_argument("--distinct-batches", type=int)
    args.add_argument("--out-dir")
    args.add_argument("--modes")
    args.add_argument("--emit-step", action="store_true")
    args.add_argument("--growth-interval", type=int, default=2000)
    a = args.parse_args(["--model", f"{HERE}/models.py:{factory.__name__}", *opt_flags,
                         "--steps", str(steps), "--distinct-batches", "1", "--out-dir", out,
                         "--modes", "fp32,bf16,f16", "--emit-step"])
    import torch
    try:
        devnull = open(os.devnull, "w")
        saved, sys.stdout = sys.stdout, devnull
        try:
            if without_missing_onednn(lambda: torch_reference.run(a))[1]:
                res["note"] = "eager reference with oneDNN off (its f16 LSTM is missing on this CPU)"
        finally:
            sys.stdout = saved
    except UserError as e:
        raise Stage("import", str(e))
    except Exception as e:  # eager PyTorch itself failed on the model
        raise Stage("eager reference", f"{type(e).__name__}: {one_line(str(e))}")
    res["stages"]["import"] = "ok"
    res["import_s"] = round(time.time() - t0, 1)
    with open(os.devnull, "w") as devnull:
        saved, sys.stdout = sys.stdout, devnull
        try:
            noise = noise_runs(a, steps)
            res["fp32_noise"] = noise["fp32"]
        finally:
            sys.stdout = saved
    import csv
    torch_losses = {}
    with open(os.path.join(out, "losses.csv")) as fh:
        for row in csv.DictReader(fh):
            torch_losses.setdefault(row["mode"], []).append(float(row["loss"]))
    res["torch"] = torch_losses
    step = os.path.join(out, "step.mlir")
    with open(os.path.join(out, "manifest.json")) as fh:
        man = json.load(fh)
    res["params"] = sum(int(np.prod(x["shape"])) for x in man["args"] if x["role"] == "param")
    init = np.load(os.path.join(out, "init.npz"))
    roles = {f"arg{x['index']}": x["role"] for x in man["args"]}
    np.savez(os.path.join(out, "mpt_init.npz"), **{k: init[k] for k in init.files if roles[k] != "data"})
    for mode, pipe in PIPELINES.items():
        try:
            r = run_cmd(f"pipeline {mode}", [tool("mpt-opt"), step, f"--pass-pipeline=builtin.module({pipe})",
                                             "-o", os.devnull], max(1, deadline - time.time()))
        except Stage as e:
            raise Stage(e.stage, name_arguments(str(e).split(": ", 1)[1], man)) from None
        res["stages"][f"pipeline {mode}"] = "ok"
        # The contract lint's warnings (a parameter with a zero gradient...):
        # the same in both pipelines, noted once.
        warns = [name_arguments(l.split(" warning: ", 1)[1], man) for l in r.stderr.splitlines()
                 if " warning: " in l]
        if warns and "warnings" not in res:
            res["warnings"] = warns
    mpt = {}
    for mode in ("fp32", "f16", "bf16"):
        log = os.path.join(out, f"mpt_{mode}.csv")
        cmd = [tool("mpt-run"), step, "-O0", "--inputs", os.path.join(out, "mpt_init.npz"),
               "--data", os.path.join(out, "data.npz"), "--steps", str(steps), "--log", log, "--no-progress"]
        if mode in PIPELINES:
            cmd.insert(2, "--passes=" + PIPELINES[mode])
        t1 = time.time()
        run_cmd(f"train {mode}", cmd, max(1, deadline - time.time()))
        res[f"run_{mode}_s"] = round(time.time() - t1, 1)
        mpt[mode] = read_log(log)
        if not all(np.isfinite(mpt[mode])):
            raise Stage(f"train {mode}", f"non-finite loss: {mpt[mode]}")
    res["mpt"] = mpt
    mpt_skips = skipped_steps(os.path.join(out, "mpt_f16.csv"))
    amp_skips = skipped_steps(os.path.join(out, "losses.csv"), "f16")
    res["f16_skipped"] = [len(mpt_skips), len(amp_skips)]
    fp = torch_losses["fp32"]
    # The FP32 trajectory each f16 run is measured against. Where mpt's and
    # GradScaler's dynamic loss scales skipped different steps (their f16 ops
    # differ, so their gradients overflow at different scales), each is
    # compared with eager FP32 skipping the same steps: against plain FP32
    # both would be out of phase by their skips, and the gap would measure the
    # skip pattern rather than the f16 arithmetic.
    gap = lambda a, b: float(max(abs(x - y) for x, y in zip(a, b)))  # noqa: E731
    ref = {"f16": fp, "bf16": fp}
    amp_ref = {"f16": fp, "bf16": fp}
    if mpt_skips != amp_skips:
        with open(os.devnull, "w") as devnull:
            saved, sys.stdout = sys.stdout, devnull
            try:
                ref["f16"] = eager_fp32(a, steps, mpt_skips) if mpt_skips else fp
                amp_ref["f16"] = eager_fp32(a, steps, amp_skips) if amp_skips else fp
                # AMP on mpt's skips: whether a step overflows can turn on
                # one gradient at the edge of f16's range (maxvit_t: the stem
                # convolution's weight gradient at scale 65536 is 0.9998 of
                # f16's largest value in exact FP32; AMP's f16 rounds it
                # below, mpt's above), and AMP's gap on its own skips is then
                # one sample of another trajectory.
                if mpt_skips:
                    rows = without_missing_onednn(lambda: eager_rows(a, steps, "f16", mpt_skips))[0]
                    if [k for k, r in enumerate(rows) if r[4]] == mpt_skips:
                        res["amp_f16_same_skips"] = gap([r[2] for r in rows], ref["f16"])
            finally:
                sys.stdout = saved
        res["f16_skips"] = [mpt_skips, amp_skips]
    scale = max(1.0, abs(fp[0]))
    res["gap_fp32"] = gap(mpt["fp32"], fp)
    # Per step: within 1e-3 of the first loss, or within SPREAD_FACTOR x the
    # rounding noise of eager FP32 itself up to that step.
    over = [k for k, (m, e, n) in enumerate(zip(mpt["fp32"], fp, res["fp32_noise"]))
            if abs(m - e) > max(FP32_REL_TOL * scale, SPREAD_FACTOR * n)]
    ok = not over and loss_falls(mpt["fp32"])
    why = []
    if not loss_falls(mpt["fp32"]):
        why.append(f"FP32 loss does not fall ({mpt['fp32'][0]:.4g} -> {mpt['fp32'][-1]:.4g})")
    if over:
        k = over[0]
        why.append(f"FP32 differs from eager by {abs(mpt['fp32'][k] - fp[k]):.3g} at step {k} (eager's own "
                   f"rounding noise {res['fp32_noise'][k]:.2g})")
    for mode in ("f16", "bf16"):
        amp = torch_losses.get(mode)
        res[f"gap_{mode}_fp32"] = gap(mpt[mode], ref[mode])
        res[f"gap_{mode}_amp"] = gap(mpt[mode], amp) if amp else None
        res[f"amp_{mode}_fp32"] = gap(amp, amp_ref[mode]) if amp else None
        # AMP's worst sample: this run and the perturbed ones (noise_runs).
        res[f"amp_{mode}_worst"] = max(res[f"amp_{mode}_fp32"] or 0.0, noise[mode],
                                       res.get(f"amp_{mode}_same_skips", 0.0))
        bound = max(LOW_AMP_FACTOR * res[f"amp_{mode}_worst"], LOW_REL_FLOOR * scale)
        if res[f"gap_{mode}_fp32"] > bound:
            ok = False
            why.append(f"{mode} is {res[f'gap_{mode}_fp32']:.3g} from FP32 (bound {bound:.3g})")
    res["stages"]["trains"] = "ok" if ok else "; ".join(why)
    res["pass"] = ok
    res["total_s"] = round(time.time() - t0, 1)
    return res


def child(args):
    """--one NAME: one model, result JSON on stdout's last line."""
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.getLogger("torch.utils.flop_counter").setLevel(logging.ERROR)
    out = model_dir(args.out_dir, args.one)
    try:
        res = run_model(args.one, out, args.steps, args.timeout)
    except Stage as e:
        res = {"model": args.one, "description": models.ZOO[args.one].desc, "failed": e.stage, "error": str(e),
               "pass": False}
    with open(os.path.join(out, "result.json"), "w") as fh:
        json.dump(res, fh)
    print(json.dumps(res))
    return 0


def model_dir(out_dir, name):
    return os.path.join(out_dir, name.replace(" ", "_").replace("(", "").replace(")", ""))


def run_one(name, args):
    """One model in a child process (isolation: a crash or hang is one row)."""
    missing = models.ZOO[name].missing()
    if missing:
        return {"model": name, "description": models.ZOO[name].desc, "pass": None, "skipped":
                f"skipped: {', '.join(missing)} not installed (optional: python/requirements-zoo.txt, "
                "installed by scripts/setup-python.sh)"}
    saved = os.path.join(model_dir(args.out_dir, name), "result.json")
    if args.reuse and os.path.exists(saved):
        with open(saved) as fh:
            return json.load(fh)
    if args.reuse_only:
        kept = doc_row(name, args.steps) if args.keep_doc else None
        if kept:
            return kept
        return {"model": name, "description": models.ZOO[name].desc, "pass": False, "failed": "not run",
                "error": "not run: no result in " + os.path.relpath(saved, REPO)}
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name, "--steps", str(args.steps),
                            "--timeout", str(args.timeout), "--out-dir", args.out_dir, "--bin-dir", args.bin_dir],
                           capture_output=True, text=True, timeout=args.timeout + 600)
        last = [l for l in r.stdout.splitlines() if l.startswith("{")]
        return json.loads(last[-1]) if last else {
            "model": name, "description": models.ZOO[name].desc, "pass": False, "failed": "crash",
            "error": f"crash: {one_line(r.stderr)}"}
    except subprocess.TimeoutExpired:
        return {"model": name, "description": models.ZOO[name].desc, "pass": False, "failed": "timeout",
                "error": f"timeout: more than {args.timeout + 600:.0f} s"}


def reword_skipped_note(line, name, steps):
    """A kept note on skipped f16 steps in the wording zoo.py used before
    skipped_note, in skipped_note's: the same counts."""
    import re
    m = re.match(re.escape(f"* {name}: ") + r"f16 loss scaling skipped (\d+) steps in mpt, (\d+) in PyTorch's "
                 r"GradScaler \(initial scale 65536 overflows; halved after each\)(; f16 compares forward passes "
                 r"only)?$", line)
    return f"* {name}: {skipped_note(int(m.group(1)), int(m.group(2)), steps)}" if m else line


def doc_row(name, steps):
    """The row and notes docs/ModelZoo.md now has for `name`, as a result
    (--keep-doc: a model without a saved result keeps what the last full run
    wrote, run with `steps` steps), or None."""
    if not os.path.exists(DOC):
        return None
    with open(DOC) as fh:
        lines = fh.read().splitlines()
    rows = [l for l in lines if l.startswith(f"| {name} | ") and l.count("|") == 12]
    if not rows:
        return None
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    notes = [reword_skipped_note(l, name, steps) for l in lines if l.startswith(f"* {name}: ")]
    if any(n.startswith(f"* {name}: not run: ") for n in notes):
        return None  # a row without results: nothing to keep
    res = {"model": name, "description": models.ZOO[name].desc, "pass": cells[5] == "ok",
           "kept": {"row": rows[0], "notes": notes}}
    if cells[2] == "skipped":
        res["skipped"] = notes[0].split(": ", 1)[1] if notes else "skipped"
    return res


def fmt_gap(v):
    return "-" if v is None else f"{v:.1e}"


def skipped_note(n_mpt, n_amp, steps):
    """The note on f16 steps the dynamic loss scale skipped, in mpt and in
    PyTorch's GradScaler (what a skip is: the doc's introduction)."""
    if n_mpt == n_amp:
        text = f"f16: mpt skipped {n_mpt} of the {steps} steps, as PyTorch's GradScaler did"
    else:
        counts = (f"PyTorch's GradScaler skipped {n_amp} of the {steps} steps, mpt none" if n_mpt == 0 else
                  f"mpt skipped {n_mpt} of the {steps} steps, PyTorch's GradScaler none" if n_amp == 0 else
                  f"mpt skipped {n_mpt} of the {steps} steps, PyTorch's GradScaler {n_amp}")
        text = (f"f16: {counts} (mpt and AMP run different ops in f16, so their gradients overflow at different "
                f"loss scales)")
    if min(n_mpt, n_amp) == steps:
        text += "; with every step skipped, f16 compares forward passes only"
    return text


def table(results):
    hdr = ("| model | params | import | pipeline f16 | pipeline bf16 | trains (FP32, f16, bf16) | "
           "FP32 vs eager (noise) | f16 vs FP32 (AMP) | f16 vs AMP | bf16 vs FP32 (AMP) | bf16 vs AMP |")
    rows = [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    notes = []
    for r in results:
        if "kept" in r:
            rows.append(r["kept"]["row"])
            notes += r["kept"]["notes"]
            continue
        st = r.get("stages", {})
        cells = [r["model"], f"{r['params'] / 1e6:.2f}M" if "params" in r else "-"]
        if "skipped" in r:
            rows.append("| " + " | ".join(cells + ["skipped"] + ["-"] * 8) + " |")
            notes.append(f"* {r['model']}: {r['skipped']}")
            continue
        for s in ("import", "pipeline f16", "pipeline bf16"):
            cells.append("ok" if st.get(s) == "ok" else ("**fails**" if r.get("failed") == s else "-"))
        if st.get("trains") == "ok":
            cells.append("ok")
        elif "trains" in st:
            cells.append("**no**")
        else:
            cells.append("**fails**" if str(r.get("failed", "")).startswith("train") else "-")
        if "mpt" in r:
            cells += [f"{fmt_gap(r['gap_fp32'])} ({fmt_gap(max(r['fp32_noise']) if 'fp32_noise' in r else None)})",
                      f"{fmt_gap(r['gap_f16_fp32'])} ({fmt_gap(r['amp_f16_fp32'])})", fmt_gap(r["gap_f16_amp"]),
                      f"{fmt_gap(r['gap_bf16_fp32'])} ({fmt_gap(r['amp_bf16_fp32'])})",
                      fmt_gap(r["gap_bf16_amp"])]
        else:
            cells += ["-"] * 5
        rows.append("| " + " | ".join(cells) + " |")
        if r.get("error"):
            notes.append(f"* {r['model']}: {r['error']}")
        elif st.get("trains") not in (None, "ok"):
            eager = r.get("torch", {}).get("fp32")
            why = ""
            if str(st["trains"]).startswith("FP32 loss does not fall") and eager and not loss_falls(eager):
                # With dropout the masks change every step: eager PyTorch
                # drawing the same masks is the referee.
                # It says what was measured, not why eager's loss rises
                # (masks, or a step size that overshoots at this size).
                why = (f"; nor does eager PyTorch's with the same masks ({eager[0]:.4g} -> {eager[-1]:.4g} "
                       f"in {len(eager)} steps): the model's own behaviour, not mpt's")
            notes.append(f"* {r['model']}: {st['trains']}{why}")
        for mode in ("f16", "bf16") if "mpt" in r else ():
            single, worst = r.get(f"amp_{mode}_fp32"), r.get(f"amp_{mode}_worst")
            floor = LOW_REL_FLOOR * max(1.0, abs(r["torch"]["fp32"][0]))
            # Said where AMP's other runs decided a pass: the gap is above
            # both this AMP run's bound and the floor, and within theirs.
            if single is not None and worst is not None and \
                    max(LOW_AMP_FACTOR * single, floor) < r[f"gap_{mode}_fp32"] <= LOW_AMP_FACTOR * worst:
                also = " and made to skip the steps mpt skipped" if f"amp_{mode}_same_skips" in r else ""
                notes.append(f"* {r['model']}: {mode} is {r[f'gap_{mode}_fp32']:.3g} from FP32, more than "
                             f"{LOW_AMP_FACTOR:g} x this AMP run's {single:.2g}; AMP itself, rerun from 1-ulp "
                             f"perturbed weights{also}, lands up to {worst:.2g} from FP32 (the bound takes that)")
        if r.get("warnings"):
            w = r["warnings"]
            notes.append(f"* {r['model']}: mpt-opt warns {len(w)} time{'s' if len(w) > 1 else ''}, first: {w[0]}")
        n_mpt, n_amp = r.get("f16_skipped", (0, 0))
        if n_mpt or n_amp:
            note = skipped_note(n_mpt, n_amp, len(r['mpt']['f16']))
            if "f16_skips" in r:
                ours, theirs = ([k + 1 for k in s] for s in r["f16_skips"])
                note += (f"; they skipped different steps (mpt {ours or 'none'}, PyTorch {theirs or 'none'}, "
                         "counting from 1), so each f16 run is measured against eager FP32 skipping the same "
                         "steps")
            notes.append(f"* {r['model']}: {note}")
    return "\n".join(rows), notes


def main(argv=None):
    p = argparse.ArgumentParser(prog="zoo.py", description=__doc__.splitlines()[0])
    p.add_argument("--models", help="comma list of names (default: all); see --list")
    p.add_argument("--fast", action="store_true", help="only the models marked fast (the lit suite's)")
    p.add_argument("--list", action="store_true")
    p.add_argument("--steps", type=int, default=4, help="training steps per mode (default 4)")
    p.add_argument("--timeout", type=float, default=900, help="seconds per model (default 900)")
    p.add_argument("--out-dir", default=os.path.join(HERE, "out"), help="work files (default bench/zoo/out)")
    p.add_argument("--write-doc", action="store_true", help="also write docs/ModelZoo.md")
    p.add_argument("--json", help="write all results to this file")
    p.add_argument("--require-pass", action="store_true", help="exit 1 unless every model passes")
    p.add_argument("--bin-dir", default=BIN_DIR, help="where mpt-opt and mpt-run are (default build/bin)")
    p.add_argument("--jobs", type=int, default=1, help="models run in parallel (default 1)")
    p.add_argument("--reuse", action="store_true", help="reuse results saved in --out-dir by an earlier run")
    p.add_argument("--reuse-only", action="store_true",
                   help="only saved results (models without one are listed as not run)")
    p.add_argument("--keep-doc", action="store_true",
                   help="with --reuse-only: a model without a saved result keeps its row and notes from the "
                        "current docs/ModelZoo.md (to regenerate the doc after running a few models)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.reuse = args.reuse or args.reuse_only
    globals()["BIN_DIR"] = args.bin_dir
    if args.one:
        return child(args)
    if args.list:
        for n, e in models.ZOO.items():
            print(f"{n:22} {e.desc}{' (fast)' if e.fast else ''}"
                  + (f" (needs {', '.join(e.requires)})" if e.requires else ""))
        return 0
    names = list(models.ZOO)
    if args.fast:
        names = [n for n in names if models.ZOO[n].fast]
    if args.models:
        names = [n.strip() for n in args.models.split(",")]
        for n in names:
            if n not in models.ZOO:
                print(f"zoo.py: error: unknown model '{n}' (see --list)", file=sys.stderr)
                return 2
    from concurrent.futures import ThreadPoolExecutor
    t0 = time.time()

    def job(n):
        res = run_one(n, args)
        status = ("pass" if res["pass"] else res["skipped"] if "skipped" in res
                  else f"FAIL ({res.get('error') or res.get('stages', {}).get('trains')})")
        if "kept" in res:
            status += " (kept from docs/ModelZoo.md)"
        print(f"zoo: {n}: {status} [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
        return res
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(job, names))
    parts = [report([r for r in results if models.ZOO[r["model"]].held_out == k], args.steps, what)
             for k, what in ((0, "models"), (1, "held-out models"), (2, "models of the second held-out draw"))]
    for part in parts:
        if part:
            print("\n".join([part["table"], *part["notes"], part["summary"]]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    if args.write_doc:
        write_doc(*parts, args)
    failed = sum(part["ran"] - part["passed"] for part in parts if part)
    return 1 if args.require_pass and failed else 0


def report(results, steps, what):
    """The table, notes and summary line of one group of results (None if empty)."""
    if not results:
        return None
    tab, notes = table(results)
    ran = [r for r in results if "skipped" not in r and r.get("failed") != "not run"]
    n_pass = sum(bool(r["pass"]) for r in ran)
    summary = f"{n_pass}/{len(ran)} {what} pass end to end ({steps} steps per mode)."
    skipped = sum("skipped" in r for r in results)
    if skipped:
        summary += f" {skipped} skipped (optional packages not installed)."
    if len(ran) + skipped < len(results):
        summary += f" {len(results) - len(ran) - skipped} not run yet (listed below)."
    return {"results": results, "table": tab, "notes": notes, "summary": summary, "ran": len(ran),
            "passed": n_pass}


def write_doc(zoo, held, held2, args):
    import importlib
    import torch
    versions = [f"torch {torch.__version__}"]
    for pkg in ("torchvision", "transformers", "timm"):
        try:
            versions.append(f"{pkg} {importlib.import_module(pkg).__version__}")
        except ImportError:
            versions.append(f"no {pkg}")

    def section(part):
        if not part:
            return "(not run)"
        desc = "\n".join(f"| {r['model']} | {r['description']} |" for r in part["results"])
        return "\n".join([part["table"], "", part["summary"], *part["notes"], "", "| model | what exactly |",
                          "|---|---|", desc])
    text = f"""# Model zoo

Generated by `bench/zoo/zoo.py --write-doc` ({", ".join(versions)}; do not edit by hand). Each model is
imported with `mpt-import-torch` (models in `bench/zoo/models.py`), compiled with `--mpt-mixed-precision`
(f16, dynamic loss scaling) and `--mpt-mixed-precision=dtype=bf16`, and trained for {args.steps} steps on one
repeated batch under `mpt-run -O0` in FP32, f16 and bf16, from the same initial weights as eager PyTorch
(FP32, and AMP: `torch.autocast("cpu")`, f16 with `GradScaler`). `-O0`: the CPU JIT is slow on big graphs at
the default `-O2`; the zoo checks numbers, not speed.

Columns: *trains* = every mode gives finite losses, the FP32 loss falls (the last below the first, or the
second half of the steps below the first half on average: dropout makes single steps noisy), FP32 is at every step within 1e-3
(relative to the first loss) of eager FP32 or within 3 x eager FP32's own rounding noise, and each low
precision is at most max(3 x AMP's own gap to FP32, 1e-2 x the first loss) from FP32. Gaps are max over steps
of |loss difference|. *noise*: the largest loss change when eager FP32 is rerun from initial weights multiplied
by (1 + 1e-7 x standard normal), about one ulp, 3 times: what rounding alone (another summation order) does to
this model's losses; BatchNorm over a few values at tiny spatial sizes amplifies it by orders of magnitude.
AMP is rerun from the same 3 perturbed weights too, and, where mpt's f16 skipped other steps than GradScaler,
once more with GradScaler made to skip mpt's steps; "AMP's own gap" in the bound is the largest of these runs'
gaps: one AMP run is one sample (efficientnet_b0's bf16 AMP ends 0.9 to 4.1 from FP32 over such runs while FP32
itself moves by 0.02; whether an f16 step overflows can turn on one gradient at the edge of f16's range), and
where this decides, the notes say so.
"f16 vs FP32 (AMP)" is mpt f16 against eager FP32 with PyTorch AMP's own distance (the unperturbed run) in
parentheses. A
*skipped* f16 step (the notes) is one whose loss-scaled gradients overflowed f16: its update is not applied
and the loss scale, 65536 at first, halves, in mpt's step as in PyTorch's GradScaler. Where mpt and
GradScaler skip different steps, each f16 run is compared with eager FP32 skipping the same steps (said in
the notes).

The HF `transformers` and timm models need python/requirements-zoo.txt (scripts/setup-python.sh installs
it; without it they are listed as skipped). HF models are tiny random-weight configurations written in
`bench/zoo/models.py` (nothing is downloaded), trained on the logits of their `ModelOutput` with the
importer's cross-entropy.

{section(zoo)}

Dropout and stochastic depth are on, at the libraries' defaults (mobilenet_v3_small 0.2, efficientnet_b0
0.2 and stochastic depth 0.2, squeezenet1_0 0.5, ConvNeXt stochastic depth 0.1 as convnext_tiny, ViT 0.1 and
attention 0.1 where torchvision's default is 0, nn.TransformerEncoder 0.1, the GPT 0.1, HF models 0.1 hidden
and attention, timm ViT 0.1 and attention 0.1 where timm's default is 0; LSTM/GRU: 0). mpt's
masks come from the step's `rng_state` (Philox4x32-10 in the step, docs/TrainingGraphContract.md), and eager
PyTorch, FP32 and AMP, draws the *same* masks (`mpt_import_torch.rng.PhiloxMode` replaces its Bernoulli
draws; one subsequence per random op and step, as in the step), so every comparison above is with dropout
on, mask for mask; the FP32 rounding noise is measured with the same masks too. BatchNorm running statistics
are step state (`"buffer"`) updated in f32; they do not enter the training loss.

## Held-out models

Models nobody here had tried, drawn at random before any was run (`bench/zoo/draw_held_out.py`,
`random.Random(12)`): 4 of torchvision's classification architectures that the zoo does not have (one
builder per architecture class, the smallest), 3 names from timm's `list_models()` outside the zoo's families
with at most 30M parameters (drawn and rejected: rdnet_large 186M, repvgg_d2se 133M,
beitv2_base_patch16_224 87M), and 3 model types from transformers' causal/masked LM auto mappings other
than BERT, GPT-2 and T5, at the tiny sizes above (gemma4_assistant was drawn second and replaced by the
next draw: its default config does not build in transformers itself). Each is the library's builder with its
defaults at the zoo's small sizes (10 classes, 64x64, batch 4, or what the architecture needs, said below),
run as drawn, not tuned to pass; a failure's first error is the note under the table.

{section(held)}

## Second held-out draw

Drawn the same way after the first list had run (`bench/zoo/draw_held_out.py`, `random.Random(13)`), from
timm's and transformers' names outside the zoo's and the first draw's families: 4 timm models (drawn and
rejected: maxvit_rmlp_base_rw_224 116M, vovnet57a 37M, efficientvit_b3 49M, inception_v4 43M,
vitamin_large2_256 334M, gemma4_vit_167m 167M) and 5 transformers types (bailing_hybrid was drawn sixth and
left out: at the tiny sizes its 2 layers are both linear-attention layers, and transformers' own forward
fails on them). Before this draw ran, three of them failed to import: BLOOM (an old-style
`autograd.Function`), Falcon (the backward of `x[..., [i], :]`, an index_put off the first dimension) and
Ministral3 (the zoo's tiny configuration left its head_dim at 128); the importer and the configuration were
fixed for all models of their kind, not for these.

{section(held2)}
"""
    with open(DOC, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    sys.exit(main())
