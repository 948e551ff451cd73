"""mpt-import-torch command line (see docs/torch-import.md)."""

import argparse
import json
import logging
import os
import sys
import warnings

from . import UserError

PROG = "mpt-import-torch"
FORMAT = "mpt-torch-step/1"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


def _floats(text):
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got '{text}'")


def make_parser():
    p = _Parser(prog=PROG, description="Import a PyTorch training step (forward, backward, "
                "optimizer) as MLIR following the mpt training-graph contract.")
    p.add_argument("--model", required=True,
                   help="builtin (mlp, gpt-block, resnet18), module.path:factory or file.py:factory")
    p.add_argument("--input-shape", help="example input batch shape, e.g. 8,32 (default: the model's)")
    p.add_argument("--loss", default="cross-entropy", help="cross-entropy (default), mse, l1, smooth-l1, bce-with-logits")
    p.add_argument("--optimizer", default="sgd", help="sgd (default), adam, adamw, rmsprop, adagrad")
    p.add_argument("--lr", type=float, help="learning rate (sgd 0.05, adam/adamw 1e-3, rmsprop/adagrad 1e-2)")
    p.add_argument("--momentum", type=float, help="sgd momentum (default 0.9), rmsprop momentum (default 0)")
    p.add_argument("--nesterov", action="store_true", help="sgd Nesterov momentum")
    p.add_argument("--betas", type=_floats, help="adam/adamw betas (default 0.9,0.999)")
    p.add_argument("--eps", type=float, help="adam/adamw/rmsprop eps (default 1e-8), adagrad eps (1e-10)")
    p.add_argument("--alpha", type=float, help="rmsprop smoothing constant (default 0.99)")
    p.add_argument("--weight-decay", type=float, help="weight decay (default 0; adamw 0.01)")
    p.add_argument("--clip-grad-norm", type=float, metavar="MAX_NORM",
                   help="clip the gradients' total 2-norm to MAX_NORM before the update, as "
                   "torch.nn.utils.clip_grad_norm_ (after loss scaling's unscale)")
    p.add_argument("--hyperparameters", choices=("lr", "all"), default="lr",
                   help="which optimizer hyperparameters are step arguments: lr (default; the others are "
                   "constants) or all (lr, momentum, weight_decay / beta1, beta2, eps, weight_decay), "
                   "named for mpt-run --hparam NAME=VALUE")
    p.add_argument("--seed", type=int, default=0, help="parameter init seed (default 0)")
    p.add_argument("--data-seed", type=int, default=1, help="example batch seed (default 1)")
    p.add_argument("--func-name", default="step", help="name of the step function (default step)")
    p.add_argument("-o", "--output", help="output .mlir (default stdout)")
    p.add_argument("--npz", help="initial values of all step arguments, keys arg<N> "
                   "(default <output>.npz when -o is given)")
    p.add_argument("--manifest", help="JSON description of arguments/results "
                   "(default <output>.json when -o is given)")
    p.add_argument("--generic", action="store_true", help="print MLIR in generic op form")
    p.add_argument("--debug-info", action="store_true", help="print locations (loc(...))")
    p.add_argument("--no-decomposition", action="append", default=[], metavar="ATEN_OP",
                   help="leave this aten op (e.g. aten.avg_pool3d_backward) to torch-mlir's own lowering "
                   "instead of the importer's decomposition, to see whether torch-mlir lowers it (repeatable)")
    p.add_argument("--check", action="store_true", help="also check in eager PyTorch that the "
                   "functional step matches torch.optim over 3 steps")
    p.add_argument("--run-check", action="store_true", help="also run the imported MLIR with "
                   "torch-mlir's ExecutionEngine and compare one step with eager PyTorch (slow for resnet18)")
    return p


def _quiet_torch():
    # torch warns "triton not found" at import (we install no triton).
    logging.getLogger("torch.utils.flop_counter").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")


def _stem(path):
    return path[:-5] if path.endswith(".mlir") else path


def build(args):
    from . import models, optim, step
    shape = models.parse_shape(args.input_shape) if args.input_shape else None
    from . import losses
    if args.loss not in losses.LOSSES:
        raise UserError(f"unknown loss '{args.loss}' (known: {', '.join(losses.LOSSES)})")
    opt = optim.make_config(args.optimizer, lr=args.lr, momentum=args.momentum,
                            nesterov=args.nesterov, betas=args.betas, eps=args.eps,
                            weight_decay=args.weight_decay,
                            clip_grad_norm=getattr(args, "clip_grad_norm", None),
                            alpha=getattr(args, "alpha", None))
    model, shape, desc = models.load_model(args.model, shape, seed=args.seed)
    try:
        spec = step.build_spec(model, shape, args.loss, opt, data_seed=args.data_seed, seed=args.seed,
                               all_hparams=getattr(args, "hyperparameters", "lr") == "all")
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"running model '{args.model}' on input {list(shape)} failed: "
                        f"{str(e).splitlines()[0] if str(e) else type(e).__name__}")
    return spec, desc


def manifest(spec, args, desc):
    import torch
    import importlib.metadata as md
    a = [{"index": i, "name": x.name, "role": x.role, "shape": list(x.value.shape),
          "dtype": str(x.value.dtype).replace("torch.", "")} for i, x in enumerate(spec.args)]
    res = [{"index": 0, "role": "loss", "shape": [], "dtype": "float32"}]
    updated = [i for i, x in enumerate(spec.args) if x.role in ("param", "rng_state", "buffer", "optimizer_state")]
    for r, i in enumerate(updated, start=1):
        res.append({"index": r, "updates": i, "name": spec.args[i].name})
    for r, msg in enumerate(spec.guards, start=len(res)):
        res.append({"index": r, "role": "guard", "shape": [], "dtype": "bool", "message": msg})
    return {"format": FORMAT, "func": args.func_name, "model": args.model, "model_description": desc,
            "input_shape": list(spec.args[spec.n_params].value.shape), "loss": spec.loss_name,
            "optimizer": spec.opt.describe(), "seed": args.seed, "data_seed": args.data_seed,
            "torch": torch.__version__, "torch_mlir": md.version("torch-mlir"),
            "args": a, "results": res,
            **({"rng_calls_per_step": spec.rng_calls} if spec.n_rng else {})}


def dump_manifest(man, fh):
    """JSON with one line per argument/result entry."""
    lines = []
    for k, v in man.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            inner = ",\n".join("  " + json.dumps(e) for e in v)
            lines.append(f" {json.dumps(k)}: [\n{inner}\n ]")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    fh.write("{\n" + ",\n".join(lines) + "\n}\n")


def run(argv=None):
    args = make_parser().parse_args(argv)
    _quiet_torch()
    from . import step, stitch
    spec, desc = build(args)
    if args.check:
        from . import check
        msg = check.check_against_torch_optim(spec)
        print(f"{PROG}: check: {msg}", file=sys.stderr)
    mod = stitch.import_step(spec, func_name=args.func_name, locate_gradients=args.debug_info,
                             without_decompositions=args.no_decomposition)
    for msg in spec.guards:
        print(f"{PROG}: warning: {msg.split(' read a tensor', 1)[0]}: the model reads a tensor's value in "
              "Python; specialized to the traced batch's value, with a guard result that stops mpt-run "
              "where a batch's value differs", file=sys.stderr)
    asm = mod.operation.get_asm(print_generic_op_form=args.generic, enable_debug_info=args.debug_info,
                                use_name_loc_as_prefix=True)
    if args.run_check:
        from . import check
        msg = check.check_imported_step(spec, mod.operation.get_asm(), args.func_name)
        print(f"{PROG}: run-check: {msg}", file=sys.stderr)
    header = (f"// Generated by {PROG}: model={args.model} input={list(spec.args[spec.n_params].value.shape)} "
              f"loss={spec.loss_name} optimizer={json.dumps(spec.opt.describe(), sort_keys=True)}\n"
              f"// Arguments: {spec.n_params} param, {spec.n_data} data, "
              + (f"1 rng_state ({spec.rng_calls} random ops per step), " if spec.n_rng else "")
              + (f"{spec.n_buffers} buffer (BatchNorm running statistics), " if spec.n_buffers else "")
              + f"{spec.n_state} optimizer_state, "
              + (f"1 hyperparameter (lr)" if spec.n_hparams == 1 else
                 f"{spec.n_hparams} hyperparameter (" + ", ".join(a.name for a in spec.args if a.role == "hyperparameter") + ")")
              + "; results: loss, then updated params and state"
              + (f", then {len(spec.guards)} guard" if spec.guards else "") + ".\n")
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(header + asm)
    else:
        sys.stdout.write(header + asm)
    npz = args.npz or (_stem(args.output) + ".npz" if args.output else None)
    if npz:
        import numpy as np
        np.savez_compressed(npz, **{f"arg{i}": a.value.numpy() for i, a in enumerate(spec.args)})
    man = args.manifest or (_stem(args.output) + ".json" if args.output else None)
    if man:
        with open(man, "w") as fh:
            dump_manifest(manifest(spec, args, desc), fh)
    return 0


def main(argv=None):
    try:
        return run(argv)
    except UserError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
