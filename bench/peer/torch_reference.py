#!/usr/bin/env python3
"""PyTorch reference ("peer") runs for mpt's mixed-precision comparison.

Same model, initialisation and data as mpt-import-torch with the same flags
(seeded; synthetic batches), trained for N steps in eager PyTorch on the CPU:
  fp32  plain float32
  bf16  torch.autocast("cpu", dtype=torch.bfloat16)
  f16   torch.autocast("cpu", dtype=torch.float16) + torch.amp.GradScaler("cpu")
        (skipped with a note if this torch lacks CPU float16 autocast)
Writes into --out-dir (default bench/peer/out/<model>):
  init.npz           initial value of every step argument, keys arg<N>
                     (== mpt-import-torch's .npz for the same flags)
  data.npz           the batch of every step: key arg<N> for each data
                     argument N, shape [steps, *batch_shape]
  manifest.json      the step's argument/result layout (as the importer's)
  losses.csv         mode,step,loss,loss_scale,skipped (loss_scale/skipped
                     only for f16: the scale used for that step's backward)
  autocast_ops.json  per low-precision mode: every aten op PyTorch ran during
                     step 0 (forward, backward, optimizer) with input/output
                     dtypes, category (matmul|conv|reduction|normalization|
                     softmax|other) and whether it ran in low precision
  step.mlir          only with --emit-step: the imported step (mpt contract)
See docs/torch-import.md.  Run with the repo's .venv python.
"""

import argparse
import copy
import csv
import json
import logging
import os
import sys
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "torch_reference.py")
logging.getLogger("torch.utils.flop_counter").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from mpt_import_torch import UserError, cli, losses, models, optim, rng, step  # noqa: E402

LOW = (torch.bfloat16, torch.float16)


def category(op_name):
    n = op_name.split(".")[1] if op_name.startswith("aten.") else op_name
    if n in ("mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "addmv", "mv", "dot"):
        return "matmul"
    if "convolution" in n or n.startswith("conv"):
        return "conv"
    if "softmax" in n:
        return "softmax"
    if "norm" in n:
        return "normalization"
    if n in ("sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "var_mean",
             "logsumexp", "norm", "nll_loss_forward", "nll_loss_backward", "mse_loss",
             "mse_loss_backward", "cumsum") or n.startswith("_foreach_norm"):
        return "reduction"
    return "other"


class OpRecorder(TorchDispatchMode):
    """Records (phase, op, input dtypes, output dtypes) of every aten op."""

    def __init__(self):
        super().__init__()
        self.phase = "forward"
        self.counts = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        ins = [str(a.dtype).replace("torch.", "") for a in tree_flatten((args, kwargs or {}))[0]
               if isinstance(a, torch.Tensor)]
        outs = [str(a.dtype).replace("torch.", "") for a in tree_flatten(out)[0]
                if isinstance(a, torch.Tensor)]
        key = (self.phase, str(func), tuple(ins), tuple(outs))
        self.counts[key] = self.counts.get(key, 0) + 1
        return out

    def report(self):
        ops, summary = [], {}
        for (phase, op, ins, outs), n in sorted(self.counts.items()):
            low = any(d in ("bfloat16", "float16") for d in ins + outs)
            cat = category(op)
            ops.append({"phase": phase, "op": op, "category": cat, "input_dtypes": list(ins),
                        "output_dtypes": list(outs), "count": n, "low_precision": low})
            s = summary.setdefault(phase, {}).setdefault(cat, {"low_precision": 0, "full_precision": 0})
            s["low_precision" if low else "full_precision"] += n
        return {"ops": ops, "summary": summary}


def torch_loss(name):
    # The peer uses PyTorch's own losses (what a PyTorch user runs); in fp32
    # they equal the importer's scatter-free formulation (mpt_import_torch.losses).
    if name == "cross-entropy":
        return lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    return losses.get(name)


def train(spec, batches, mode, record=False, growth_interval=2000, skip_steps=()):
    """Trains a copy of spec.model; rows (mode, step, loss, scale, skipped).
    `skip_steps` (fp32/bf16): steps whose update is not applied, as a
    dynamic loss scale skips an overflowing f16 step (the optimizer's step
    count does not advance either): the FP32 trajectory an f16 run that
    skipped those steps is to be compared with.  In f16, `skip_steps`
    imposes that skip pattern on GradScaler: those steps are skipped and
    halve the scale, as if they had overflowed (another step still skips if
    it really overflows): AMP on the skips another f16 run took."""
    model = copy.deepcopy(spec.model)
    with torch.no_grad():
        for p, a in zip(model.parameters(), spec.args[:spec.n_params]):
            p.copy_(a.value)
    opt = optim.torch_optimizer(spec.opt, model.parameters())
    lf = torch_loss(spec.loss_name)
    scaler = (torch.amp.GradScaler("cpu", growth_interval=growth_interval)
              if mode == "f16" else None)
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}.get(mode)
    rows, rec = [], None
    # Dropout draws the masks the imported step draws (same seed, same
    # stream, one subsequence per random op): eager and mpt are comparable.
    draws = rng.PhiloxMode(spec.values("rng_state")[0]) if spec.n_rng else _Null()
    for k, (x, y) in enumerate(batches):
        rec = OpRecorder() if record and k == 0 else None
        ctx = rec if rec is not None else _Null()
        opt.zero_grad(set_to_none=True)
        with ctx:
            with torch.autocast("cpu", dtype=dtype, enabled=dtype is not None), draws:
                loss = lf(step.output_tensor(model(x)), y)
            if rec:
                rec.phase = "backward"
            scale = float(scaler.get_scale()) if scaler else None
            if scaler:
                scaler.scale(loss).backward()
                if rec:
                    rec.phase = "optimizer"
                if k in skip_steps:
                    # An imposed skip. GradScaler has no public way to reset
                    # its growth counter: the skip leaves it (runs shorter
                    # than growth_interval do not notice).
                    scaler.update(new_scale=scale * scaler.get_backoff_factor())
                    skipped = True
                else:
                    if spec.opt.clip_grad_norm is not None:
                        scaler.unscale_(opt)  # clip the unscaled gradients
                    optim.clip_reference(spec.opt, list(model.parameters()))
                    scaler.step(opt)
                    scaler.update()
                    skipped = float(scaler.get_scale()) < scale
            else:
                loss.backward()
                if rec:
                    rec.phase = "optimizer"
                skipped = k in skip_steps
                if not skipped:
                    optim.clip_reference(spec.opt, list(model.parameters()))
                    opt.step()
        rows.append((mode, k, float(loss.detach().float()), scale, int(skipped) if scaler else None))
        if rec:
            rec_out = rec.report()
    return rows, (rec_out if record else None)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def f16_autocast_supported():
    try:
        with torch.autocast("cpu", dtype=torch.float16):
            return (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float16
    except Exception:
        return False


def main(argv=None):
    p = cli.make_parser()
    p.prog = "torch_reference.py"
    p.description = __doc__.splitlines()[0]
    p.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    p.add_argument("--distinct-batches", type=int, default=4,
                   help="size of the batch pool cycled through (default 4)")
    p.add_argument("--out-dir", help="output directory (default bench/peer/out/<model>)")
    p.add_argument("--modes", default="fp32,bf16,f16", help="comma list of fp32,bf16,f16")
    p.add_argument("--emit-step", action="store_true", help="also write step.mlir (importer)")
    p.add_argument("--growth-interval", type=int, default=2000,
                   help="f16 GradScaler growth_interval (default 2000, torch's)")
    args = p.parse_args(argv)
    try:
        return run(args)
    except UserError as e:
        print(f"torch_reference.py: error: {e}", file=sys.stderr)
        return 2


def run(args):
    spec, desc = cli.build(args)
    out = args.out_dir or os.path.join(REPO, "bench", "peer", "out", args.model.replace(":", "_"))
    os.makedirs(out, exist_ok=True)
    # Batch 0 is the importer's example batch (same generator, same seed).
    gen = torch.Generator().manual_seed(args.data_seed)
    pool = [step.make_batch(spec.model, spec.loss_name, spec.args[spec.n_params].value.shape, gen)
            for _ in range(max(1, args.distinct_batches))]
    assert torch.equal(pool[0][0], spec.args[spec.n_params].value)
    batches = [pool[k % len(pool)] for k in range(args.steps)]
    data_idx = [i for i, a in enumerate(spec.args) if a.role == "data"]
    np.savez_compressed(os.path.join(out, "data.npz"), **{
        f"arg{data_idx[0]}": np.stack([b[0].numpy() for b in batches]),
        f"arg{data_idx[1]}": np.stack([b[1].numpy() for b in batches])})
    np.savez_compressed(os.path.join(out, "init.npz"),
                        **{f"arg{i}": a.value.numpy() for i, a in enumerate(spec.args)})
    man = cli.manifest(spec, args, desc)
    man["reference"] = {"steps": args.steps, "distinct_batches": args.distinct_batches,
                        "growth_interval": getattr(args, "growth_interval", 2000),
                        "data": "data.npz", "init": "init.npz", "losses": "losses.csv"}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        cli.dump_manifest(man, fh)
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in ("fp32", "bf16", "f16"):
            raise UserError(f"unknown mode '{m}' (fp32, bf16, f16)")
    notes = {}
    if "f16" in modes and not f16_autocast_supported():
        modes.remove("f16")
        notes["f16"] = "torch.autocast('cpu', dtype=float16) not supported by this torch"
    rows, reports = [], {}
    for m in modes:
        r, rep = train(spec, batches, m, record=(m != "fp32"),
                       growth_interval=getattr(args, "growth_interval", 2000))
        rows += r
        if rep is not None:
            reports[m] = rep
    with open(os.path.join(out, "losses.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["mode", "step", "loss", "loss_scale", "skipped"])
        for mode, k, loss, scale, skipped in rows:
            w.writerow([mode, k, repr(loss), "" if scale is None else repr(scale),
                        "" if skipped is None else skipped])
    with open(os.path.join(out, "autocast_ops.json"), "w") as fh:
        json.dump({"torch": torch.__version__, "device": "cpu", "recorded_step": 0,
                   "modes": reports, "notes": notes}, fh, indent=1)
    if args.emit_step:
        from mpt_import_torch import stitch
        mod = stitch.import_step(spec, func_name=args.func_name)
        with open(os.path.join(out, "step.mlir"), "w") as fh:
            fh.write(str(mod))
    last = {m: next(l for mm, k, l, *_ in reversed(rows) if mm == m) for m in modes}
    print(f"torch_reference: {args.model} {args.steps} steps -> {out}: final loss "
          + ", ".join(f"{m} {v:.4f}" for m, v in last.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
