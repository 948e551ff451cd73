"""Import the two traced graphs with torch-mlir and fuse them into one
func.func that follows the mpt training-graph contract."""

import contextlib
import faulthandler
import os
import re
import sys
import tempfile
import warnings

import torch
import torch_mlir
from torch_mlir import fx, ir
from torch_mlir.passmanager import PassManager
from torch_mlir.dialects import func as func_d
from . import decomp

from . import UserError

OUTPUT_TYPE = "linalg-on-tensors"
UPSTREAM_DIALECTS = ("func", "arith", "math", "linalg", "tensor", "tosa", "scf", "builtin",
                     "mpt", "cf", "bufferization")


def _package_dirs(module):
    """A package's directories (torch_mlir is a namespace package: several)."""
    return tuple(os.path.join(os.path.realpath(d), "") for d in module.__path__)


# Frames of these packages are not "the model line" of an error. Their
# installed directories, not a path component: a user's model under a
# folder named torch (test/Frontend/torch/Inputs) is the user's.
_LIBRARY_DIRS = (*_package_dirs(torch), *_package_dirs(torch_mlir),
                 os.path.join(os.path.dirname(os.path.realpath(__file__)), ""))


def is_library_path(path):
    """Whether `path` is a file of torch, torch-mlir or this importer."""
    return os.path.realpath(path).startswith(_LIBRARY_DIRS)
# What an op outside upstream MLIR comes from, for the error message.
_OP_ORIGIN = {
    "tm_tensor.scatter": "a scatter / index_put (no decomposition for this one yet)",
    "ml_program.global": "random numbers other than a Bernoulli draw or torch.rand (rand_like, randn, "
                         "randint...): only aten.bernoulli.p (dropout, stochastic depth) and aten.rand "
                         "(drop_path) draw from the step's rng_state",
}


def model_line(text):
    """The innermost frame of an MLIR location (or diagnostic) outside torch,
    torch-mlir and this importer: the model's own line.  "" if none."""
    frames = re.findall(r'"([^"]+)":(\d+):\d+', text)
    for path, line in frames:
        if not is_library_path(path):
            return f"{path}:{line}"
    return f"{frames[0][0]}:{frames[0][1]}" if frames else ""


def describe_lowering_error(text):
    """(op, model line, short reason) from torch-mlir's diagnostics."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errs = [l for l in lines if "error:" in l] or lines
    first = errs[0] if errs else ""
    op = (re.search(r'name = "torch\.([\w.]+)"', first) or
          re.search(r"failed to legalize operation '([\w.]+)'", first) or
          re.search(r"'([\w.]+)' op ", first))
    op = op.group(1) if op else "an op"
    reason = first.split("error:", 1)[-1].strip()
    reason = re.sub(r":\s*%.*$", "", reason)  # drop the printed op
    # A reason that announces its next line ("... please run:") keeps it.
    at = lines.index(first) if first in lines else -1
    if reason.endswith(":") and 0 <= at < len(lines) - 1 and not re.search(r"\b(error|note):", lines[at + 1]):
        reason = f"{reason} {lines[at + 1]}"
    return op, model_line(first), reason


@contextlib.contextmanager
def _captured_stderr():
    """torch-mlir prints its diagnostics to file descriptor 2 (C++), not
    into the exception: capture them, to report one line instead."""
    sys.stderr.flush()
    saved = os.dup(2)
    real_stderr = os.fdopen(os.dup(saved), "w")
    with tempfile.TemporaryFile(mode="w+") as tmp:
        os.dup2(tmp.fileno(), 2)
        # A crash in torch-mlir's C++ (a segfault) would otherwise end the
        # process with nothing printed: say where, on the real stderr.
        faulthandler.enable(file=real_stderr)
        out = []
        try:
            yield out
        finally:
            faulthandler.enable(file=sys.stderr)
            real_stderr.close()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read())


# aten ops torch-mlir lowers only to tm_tensor (or crashes on), where the
# decomposition layer (decomp.py) does not take them: stopped before
# lowering, with the model line.  aten.sort and aten.topk: tm_tensor.sort;
# decomposed by ranks up to decomp.SELECTION_ELEMENTS comparisons.
# aten.scatter: torch-mlir's convert-torch-to-tmtensor segfaults on it;
# decomposed where the index spans the tensor in every other dimension.
_SELECTION = f"more than {decomp.SELECTION_ELEMENTS} comparisons (rows x n x n) for the importer's decomposition"
_NO_LOWERING = {"aten.sort": f"sorting (torch.sort, argsort) with {_SELECTION}; torch-mlir: tm_tensor.sort, no upstream form",
                "aten.topk": f"top-k with {_SELECTION}; torch-mlir: tm_tensor.sort, no upstream form",
                "aten.scatter": "a scatter whose index is shorter than the tensor in a dimension other than dim, or "
                                f"with more than {decomp.SELECTION_ELEMENTS} index x position comparisons "
                                "(torch-mlir's convert-torch-to-tmtensor crashes on aten.scatter)"}


def _check_lowerable(gm, name):
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        op = str(getattr(node.target, "_name", node.target)).replace("::", ".")
        base = op.rsplit(".", 1)[0] if op.count(".") > 1 else op
        what = _NO_LOWERING.get(base) or _NO_LOWERING.get(op)
        if what:
            where = model_line_of_trace(node.meta.get("stack_trace", ""))
            at = f" at {where}" if where else ""
            raise UserError(f"torch-mlir cannot lower {base}{at} ({name} graph): {what}")


def model_line_of_trace(stack_trace):
    """The innermost frame of an FX node's stack_trace outside torch,
    torch-mlir and this importer."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', stack_trace or "")
    for path, line in reversed(frames):
        if not is_library_path(path):
            return f"{path}:{line}"
    return ""


def _failing_node(error):
    """The FX node torch-mlir's importer was importing when it raised
    `error` (the innermost frame with a `node` local), or None."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node")
        if isinstance(node, torch.fx.Node):
            found = node
        tb = tb.tb_next
    return found


# torch-mlir's conversions to upstream MLIR, without the backend contract
# check that ends its linalg pipeline: what they leave in torch is what has
# no lowering.
_TORCH_TO_UPSTREAM = ("builtin.module(func.func(convert-torch-to-tmtensor, convert-torch-to-linalg, "
                      "convert-torch-to-scf, convert-torch-to-arith, convert-torch-to-tensor))")


def _first_unlowered_op(gm, name):
    """(op, model line) of the first aten or prims op that torch-mlir's
    conversions leave in torch form, or None.  Its backend contract check
    reports the first torch op it meets, which is a constant operand
    (torch.constant.bool) when an aten op has no lowering: this names the
    op and its line instead."""
    try:
        with warnings.catch_warnings(), _captured_stderr():
            warnings.simplefilter("ignore")
            module = fx.stateless_fx_import(gm, output_type="torch", model_name=name)
            with module.context:
                PassManager.parse(_TORCH_TO_UPSTREAM).run(module.operation)
    except Exception:  # torch-mlir's own error types; the caller's message stands
        return None
    found = []

    def visit(op):
        if op.name == "torch.operator":
            found.append((f"torch.{ir.StringAttr(op.attributes['name']).value}", model_line(str(op.location))))
        elif op.name.startswith(("torch.aten.", "torch.prims.")):
            found.append((op.name, model_line(str(op.location))))
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return found[0] if found else None


def _aten_ops_at(gm, where):
    """The distinct aten ops of graph `gm` whose model line is `where`, in
    graph order."""
    ops = []
    for node in gm.graph.nodes:
        if node.op != "call_function" or model_line_of_trace(node.meta.get("stack_trace", "")) != where:
            continue
        op = str(getattr(node.target, "_name", node.target)).replace("::", ".")
        if op.startswith("aten.") and op not in ops:
            ops.append(op)
    return ops


def import_graph(gm, name):
    _check_lowerable(gm, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with _captured_stderr() as diag:
                return fx.stateless_fx_import(gm, output_type=OUTPUT_TYPE, model_name=name)
        except Exception as e:  # torch-mlir raises its own error types
            op, where, reason = describe_lowering_error("".join(diag) + "\n" + (str(e) or type(e).__name__))
            if op.startswith(("torch.constant.", "torch.prim.")):
                unlowered = _first_unlowered_op(gm, name)
                if unlowered:
                    op, where = unlowered
                    reason = f"failed to legalize operation '{op}'"
            if where and op.split(".")[0] in UPSTREAM_DIALECTS and "legalize" not in reason:
                # An upstream op (tensor.cast, ...) that torch-mlir's own
                # lowering built wrong: name the aten op of that line.
                atens = _aten_ops_at(gm, where)
                if atens:
                    which = atens[0] if len(atens) == 1 else \
                        "one of " + ", ".join(atens[:4]) + (", ..." if len(atens) > 4 else "")
                    raise UserError(f"torch-mlir's lowering of {which} at {where} ({name} graph) "
                                    f"built invalid IR: {reason}")
            node = _failing_node(e)
            if node is not None and op == "an op":
                # A Python error of the FX importer (no MLIR diagnostic):
                # the node it was importing names the op and its line.
                op = str(getattr(node.target, "_name", node.target)).replace("::", ".")
                where = where or model_line_of_trace(node.meta.get("stack_trace", ""))
            at = f" at {where}" if where else ""
            raise UserError(f"torch-mlir cannot lower {op}{at} ({name} graph): {reason}")


def check_upstream(module, name):
    """Rejects, with the op and its model line, any op outside upstream MLIR
    in a torch-mlir module (before it is printed: tm_tensor's custom syntax
    does not even parse without torch-mlir)."""
    bad = []

    def visit(op):
        if op.name.split(".")[0] not in UPSTREAM_DIALECTS and op.name not in [b[0] for b in bad]:
            bad.append((op.name, model_line(str(op.location))))
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    if bad:
        # Name the op itself, not its region's terminator; locate it by the
        # first offending op that has a model line (globals have none).
        bad.sort(key=lambda b: b[0].endswith(".yield"))
        op = bad[0][0]
        where = next((w for _, w in bad if w), "")
        origin = next((v for k, v in _OP_ORIGIN.items() if op.startswith(k)), "")
        more = f" (and {', '.join(b[0] for b in bad[1:])})" if len(bad) > 1 else ""
        raise UserError(f"imported step uses {op}, outside upstream MLIR{more}"
                        + (f", at {where}" if where else "") + (f": {origin}" if origin else "")
                        + f" ({name} graph)")


def _only_func(module):
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    assert len(funcs) == 1, f"expected one func.func, got {len(funcs)}"
    return funcs[0]


def _index_in_block(block, op):
    for i, o in enumerate(block.operations):
        if o.operation == op:
            return i
    raise AssertionError("op not in block")


def _gradient_loc(spec, i):
    """loc("NAME.grad"(file:line)) of parameter i's gradient marker: the
    gradient's name as PyTorch spells it and where the model's source
    defines the parameter (step.param_source), or just the name."""
    from . import step as step_mod
    name = spec.args[i].name
    where = step_mod.param_source(spec.model, name) if spec.model is not None else None
    child = ir.Location.file(where[0], where[1], 0) if where else None
    return ir.Location.name(name + ".grad", childLoc=child)


def fuse(text_a, text_b, spec, func_name="step", locate_gradients=False):
    """text_a: fwd_bwd(params, data, [rng_state], buffers, seed) -> (loss, grads, new_buffers, guards);
    text_b: opt(params, grads, [rng_state], state, lr) -> (new_params, [new rng_state], new_state).
    The step: (params, data, [rng_state], buffers, state, lr) ->
    (loss, new_params, [new rng_state], new_buffers, new_state, guards)."""
    n_p, n_d, n_s, n_r, n_b = spec.n_params, spec.n_data, spec.n_state, spec.n_rng, spec.n_buffers
    n_g = len(spec.guards)
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    with ctx, ir.Location.unknown():
        mod = ir.Module.parse(text_a)
        mod_b = ir.Module.parse(text_b)
        fa, fb = _only_func(mod), _only_func(mod_b)
        blk_a = fa.regions[0].blocks[0]
        blk_b = fb.regions[0].blocks[0]
        ret_a = blk_a.operations[len(blk_a.operations) - 1]
        ret_b = blk_b.operations[len(blk_b.operations) - 1]
        assert len(blk_a.arguments) == n_p + n_d + n_r + n_b + 1
        n_h = spec.n_hparams
        assert len(blk_b.arguments) == 2 * n_p + n_r + n_s + n_h
        assert len(ret_a.operands) == 1 + n_p + n_b + n_g and len(ret_b.operands) == n_p + n_r + n_s

        # New arguments: optimizer state and lr, appended after the seed.
        new_args = [blk_a.add_argument(blk_b.arguments[2 * n_p + n_r + i].type, ir.Location.unknown())
                    for i in range(n_s + n_h)]

        # Seed: "mpt.grad_seed"(loss), right after the loss is computed.
        loss = ret_a.operands[0]
        seed_arg = blk_a.arguments[n_p + n_d + n_r + n_b]
        if isinstance(loss.owner, ir.Block):
            raise UserError("the loss is a function argument")
        loss_def = loss.owner.operation
        ops = list(blk_a.operations)
        after = ops[_index_in_block(blk_a, loss_def) + 1]
        seed_op = ir.Operation.create("mpt.grad_seed", results=[seed_arg.type], operands=[loss],
                                      ip=ir.InsertionPoint(after))
        first_use = min((_index_in_block(blk_a, u.owner) for u in seed_arg.uses), default=None)
        if first_use is not None and first_use < _index_in_block(blk_a, seed_op):
            raise UserError("backward uses the seed before the loss is computed (unexpected graph order)")
        seed_arg.replace_all_uses_with(seed_op.result)

        # One "mpt.gradient" per parameter gradient, then the optimizer. With
        # locate_gradients (--debug-info), each marker is located at
        # loc("NAME.grad"(model line defining parameter NAME)): mpt-opt's
        # diagnostics about a gradient name both (and a printer with name
        # locations calls the value %NAME.grad).
        grads = []
        for i in range(n_p):
            g = ret_a.operands[1 + i]
            grads.append(ir.Operation.create("mpt.gradient", results=[g.type], operands=[g],
                                             loc=_gradient_loc(spec, i) if locate_gradients else None,
                                             ip=ir.InsertionPoint(ret_a)).result)
        b_ops = list(blk_b.operations)[:-1]
        for op in b_ops:
            op.operation.move_before(ret_a)
        repl = list(blk_a.arguments[:n_p]) + grads + list(blk_a.arguments[n_p + n_d:n_p + n_d + n_r]) + new_args
        for b_arg, v in zip(blk_b.arguments, repl):
            b_arg.replace_all_uses_with(v)
        new_buffers = list(ret_a.operands[1 + n_p:1 + n_p + n_b])
        guards = list(ret_a.operands[1 + n_p + n_b:])
        b_res = list(ret_b.operands)
        results = [loss] + b_res[:n_p + n_r] + new_buffers + b_res[n_p + n_r:] + guards
        func_d.ReturnOp(results, ip=ir.InsertionPoint(ret_a))
        ret_a.operation.erase()
        blk_a.erase_argument(n_p + n_d + n_r + n_b)
        fb.operation.erase()

        # Signature and contract attributes.
        arg_types = [a.type for a in blk_a.arguments]
        res_types = [v.type for v in results]
        fa.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arg_types, res_types))
        fa.attributes["sym_name"] = ir.StringAttr.get(func_name)
        roles = [a.role for a in spec.args]
        assert len(roles) == len(arg_types)
        f32 = ir.F32Type.get()

        def arg_attrs(a):
            attrs = {"mpt.role": ir.StringAttr.get(a.role)}
            # Running statistics start as constants (mean 0, variance 1):
            # a driver can start them without a file.
            if a.role == "buffer" and a.value.numel() and bool((a.value == a.value.flatten()[0]).all()):
                attrs["mpt.initial_value"] = ir.FloatAttr.get(f32, float(a.value.flatten()[0]))
            return ir.DictAttr.get(attrs)
        fa.attributes["arg_attrs"] = ir.ArrayAttr.get([arg_attrs(a) for a in spec.args])
        i64 = ir.IntegerType.get_signless(64)
        res_attrs = [ir.DictAttr.get({"mpt.role": ir.StringAttr.get("loss")})]
        first_state = n_p + n_d + n_r + n_b
        for i in range(n_p):
            res_attrs.append(ir.DictAttr.get({"mpt.updates": ir.IntegerAttr.get(i64, i)}))
        for i in range(n_r + n_b):
            res_attrs.append(ir.DictAttr.get({"mpt.updates": ir.IntegerAttr.get(i64, n_p + n_d + i)}))
        for i in range(n_s):
            res_attrs.append(ir.DictAttr.get({"mpt.updates": ir.IntegerAttr.get(i64, first_state + i)}))
        for msg in spec.guards:
            res_attrs.append(ir.DictAttr.get({"mpt.role": ir.StringAttr.get("guard"),
                                              "mpt.message": ir.StringAttr.get(msg)}))
        fa.attributes["res_attrs"] = ir.ArrayAttr.get(res_attrs)
        # Printed as %rng_state (get_asm(use_name_loc_as_prefix=True)): the
        # name mpt-run gives the argument (--save, --input).
        for i in range(n_r):
            blk_a.arguments[n_p + n_d + i].set_location(ir.Location.name("rng_state"))
        # With every hyperparameter an argument, each is named (%lr,
        # %weight_decay, ...): mpt-run --hparam NAME=VALUE.
        if n_h > 1:
            for i, a in enumerate(spec.args):
                if a.role == "hyperparameter":
                    blk_a.arguments[i].set_location(ir.Location.name(a.name))
        if not mod.operation.verify():
            raise UserError("fused step does not verify")
        _check_dialects(mod)
        return mod


def _check_dialects(mod):
    bad = set()

    def visit(op):
        d = op.name.split(".")[0]
        if d not in UPSTREAM_DIALECTS:
            bad.add(op.name)
        return ir.WalkResult.ADVANCE
    mod.operation.walk(visit)
    if bad:
        raise UserError("imported step uses ops outside upstream MLIR: " + ", ".join(sorted(bad)))


def import_step(spec, func_name="step", locate_gradients=False, without_decompositions=()):
    from . import step as step_mod
    gm_a, gm_b = step_mod.trace(spec, decomposition_table=decomp.table(without_decompositions))
    a = import_graph(gm_a, "fwd_bwd")
    check_upstream(a, "fwd_bwd")
    b = import_graph(gm_b, "opt")
    check_upstream(b, "opt")
    return fuse(a.operation.get_asm(enable_debug_info=True), b.operation.get_asm(enable_debug_info=True),
                spec, func_name, locate_gradients)
