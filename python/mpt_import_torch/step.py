"""The training step as two traced pure functions.

  fwd_bwd(params..., data..., seed) -> (loss, grad_params...)
      forward + loss, then the vector-Jacobian product seeded with `seed`
      (torch.func.vjp), so the backward visibly starts from the seed.
  opt(params..., grads..., state..., lr) -> (new_params..., new_state...)

stitch.py imports both with torch-mlir and fuses them into one func.func
@step(params..., data..., state..., lr) -> (loss, new_params..., new_state...)
where the seed becomes "mpt.grad_seed"(loss) and every gradient passes
through one "mpt.gradient" before the optimizer ops.
"""

import contextlib
import dataclasses
from typing import List

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.func import functional_call, functionalize, vjp

from . import UserError, decomp, losses, optim, rng


@dataclasses.dataclass
class Arg:
    name: str
    role: str           # param | data | rng_state | buffer | optimizer_state | hyperparameter
    value: torch.Tensor


@dataclasses.dataclass
class StepSpec:
    model: torch.nn.Module
    loss_name: str
    opt: optim.OptConfig
    args: List[Arg]     # step argument order
    n_params: int
    n_data: int
    n_state: int
    n_rng: int = 0      # 1: an rng_state argument after the data (the model draws random numbers)
    rng_calls: int = 0  # random ops per step (the offset's increment)
    n_buffers: int = 0  # BatchNorm running mean/var pairs' arguments, after rng_state
    # One message per guard result (trace: a tensor value the model read in
    # Python, specialized to its traced value), filled in by trace().
    guards: List[str] = dataclasses.field(default_factory=list)
    # Indices of the parameters the loss does not reach (eager PyTorch leaves
    # their .grad None and torch.optim skips them: no weight decay, no state
    # change); their update is the identity (optim.update's `frozen`).
    unreached: tuple = ()

    @property
    def n_hparams(self):
        return sum(a.role == "hyperparameter" for a in self.args)

    def hparams(self, values):
        """lr and the {name: value} of the other hyperparameter arguments, from
        their values in argument order."""
        names = [a.name for a in self.args if a.role == "hyperparameter"]
        return values[0], dict(zip(names[1:], values[1:]))

    @property
    def param_names(self):
        return [a.name for a in self.args[:self.n_params]]

    def values(self, role=None):
        return [a.value for a in self.args if role is None or a.role == role]


def output_tensor(out):
    """What the loss reads from a model's output: the tensor itself, the
    .logits of an HF transformers ModelOutput, or the first element of a
    tuple (HF models with return_dict=False, nn.RNN-style (output, state))."""
    if isinstance(out, torch.Tensor):
        return out
    logits = getattr(out, "logits", None)
    if isinstance(logits, torch.Tensor):
        return logits
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        return out[0]
    raise UserError(f"the model returns {type(out).__name__}: the loss needs a tensor, an object with a "
                    ".logits tensor (HF ModelOutput) or a tuple whose first element is a tensor")


def make_batch(model, loss_name, input_shape, generator):
    """A synthetic batch: standard normal input, or the model's own
    `make_example_input(shape, generator)` (e.g. token ids for embeddings)."""
    make_input = getattr(model, "make_example_input", None)
    x = (make_input(tuple(input_shape), generator) if make_input is not None
         else torch.randn(tuple(input_shape), generator=generator))
    if not isinstance(x, torch.Tensor):
        # The step has one data argument (and the target).
        raise UserError(f"make_example_input returns {type(x).__name__}: the importer takes a model of one "
                        "input tensor; wrap the model so that forward takes one tensor (e.g. ids and mask "
                        "stacked, split inside forward)")
    with torch.no_grad():
        out = output_tensor(model(x))
    if out.dim() == 0:
        # A model that computes its own loss: --loss would be taken of that
        # scalar against a made-up target (mse trained (loss - y)^2).
        raise UserError("the model returns a scalar (0-d tensor); the importer takes --loss of the model's "
                        "output against the target, so a model that computes its own loss is not supported: "
                        "return the output the loss is computed from")
    y = losses.make_target(loss_name, out.shape, generator)
    return x, y


def build_spec(model, input_shape, loss_name, opt_cfg, data_seed=1, seed=0, all_hparams=False):
    """The step's arguments; `all_hparams`: every optimizer hyperparameter
    (optim.hyperparameter_names) is a step argument after lr, else lr only."""
    losses.get(loss_name)
    named = [(n, p.detach().clone()) for n, p in model.named_parameters()]
    gen = torch.Generator().manual_seed(data_seed)
    x, y = make_batch(model, loss_name, input_shape, gen)
    args = [Arg(n, "param", p) for n, p in named]
    args += [Arg("input", "data", x), Arg("target", "data", y)]
    rng_state = torch.tensor([seed, 0], dtype=torch.int64)
    calls = count_random_ops(model, x, rng_state)
    if calls:
        args += [Arg("rng_state", "rng_state", rng_state)]
    buffers = [Arg(f"{name}.{stat}", "buffer", value.clone())
               for name, m in batch_norms(model)
               for stat, value in zip(("running_mean", "running_var"), m.mpt_running_stats[:2])]
    args += buffers
    params = [p for _, p in named]
    snames = optim.state_names(opt_cfg, [n for n, _ in named])
    args += [Arg(n, "optimizer_state", s) for n, s in zip(snames, optim.init_state(opt_cfg, params))]
    args += [Arg("lr", "hyperparameter", torch.tensor(opt_cfg.lr, dtype=torch.float32))]
    if all_hparams:
        args += [Arg(n, "hyperparameter", torch.tensor(v, dtype=torch.float32))
                 for n, v in zip(optim.hyperparameter_names(opt_cfg), optim.hyperparameter_values(opt_cfg))]
    # Every argument its own tensor: the trace tells arguments apart by
    # identity, and two sharing one object became one argument updated by two
    # results (RMSprop's square averages read its momentum buffers). And each
    # in row-major order, as the step's tensors are: a parameter made from a
    # transposed or QR result (Glow's orthogonal init) was saved to the .npz
    # in Fortran order, which mpt-run refuses.
    seen = set()
    for a in args:
        if id(a.value) in seen or not a.value.is_contiguous():
            a.value = a.value.clone(memory_format=torch.contiguous_format)
        seen.add(id(a.value))
    spec = StepSpec(model, loss_name, opt_cfg, args, len(named), 2, len(snames), n_rng=int(calls > 0),
                    rng_calls=calls, n_buffers=len(buffers))
    spec.unreached = unreached_params(spec)
    return spec


def frozen_params(model):
    """The indices (in named_parameters order) of the parameters the user
    froze (requires_grad=False: a fine-tuned model's backbone)."""
    return {i for i, (_, p) in enumerate(model.named_parameters()) if not p.requires_grad}


def unreached_params(spec):
    """The indices of the parameters whose gradient eager autograd leaves
    None: the loss does not depend on them (torch.func.vjp gives zeros), or
    they are frozen (frozen_params)."""
    f = loss_fn(spec)
    params = [a.value.detach().clone().requires_grad_() for a in spec.args[:spec.n_params]]
    x, y = spec.args[spec.n_params].value, spec.args[spec.n_params + 1].value
    rng_state = spec.values("rng_state")
    mode = rng.PhiloxMode(rng_state[0]) if rng_state else contextlib.nullcontext()
    with mode, decomp.check_functions():
        loss, _ = f(params, x, y, spec.values("buffer"))
    grads = torch.autograd.grad(loss, params, allow_unused=True)
    return tuple(i for i, g in enumerate(grads) if g is None)


def batch_norms(model):
    """(name, module) of every BatchNorm whose running statistics the step
    updates (models.normalize_for_training)."""
    return [(n, m) for n, m in model.named_modules() if getattr(m, "mpt_running_stats", None) is not None]


def count_random_ops(model, x, rng_state):
    """The random ops one forward pass draws (rng.PhiloxMode counts them)."""
    mode = rng.PhiloxMode(rng_state)
    with torch.no_grad(), decomp.tracing_context(), mode:
        model(x)
    return mode.stream.calls


def loss_fn(spec):
    """f(params, x, y, buffers) -> (loss, new buffers): the forward pass, and
    each BatchNorm's running statistics updated as torch's kernel does,
    from the input it normalised (captured by a pre-hook):
    new = (1 - momentum) * old + momentum * batch statistic, the variance
    unbiased (n / (n - 1)), once per call of the module."""
    names = spec.param_names
    lf = losses.get(spec.loss_name)
    bns = [m for _, m in batch_norms(spec.model)]
    frozen = frozen_params(spec.model)

    def f(params, x, y, buffers=()):
        inputs = []
        hooks = [m.register_forward_pre_hook(lambda mod, inp: inputs.append((mod, inp[0]))) for m in bns]
        # A frozen parameter is read as a constant: no gradient flows to it,
        # so the backward does not compute one (unreached_params then lists
        # it, and its update is the identity, as torch.optim skips it).
        params = [p.detach() if i in frozen else p for i, p in enumerate(params)]
        try:
            out = functional_call(spec.model, dict(zip(names, params)), (x,))
        finally:
            for h in hooks:
                h.remove()
        stats = {m: (buffers[2 * i], buffers[2 * i + 1]) for i, m in enumerate(bns)}
        for m, h in inputs:
            h = h.detach()
            momentum = m.mpt_running_stats[2]
            mean, var = stats[m]
            # Mean and variance summed in f64 (decomp.batch_statistics_f64):
            # summed in f32 element after element over N*H*W the running
            # means were 7-11x further from float64 than eager's (ResNeXt-50,
            # batch 4).
            count = h.numel() // h.shape[1]
            batch_mean, squares = decomp.batch_statistics_f64(h)
            batch_var = squares / (count - 1)
            stats[m] = ((1 - momentum) * mean + momentum * batch_mean.flatten().to(h.dtype),
                        (1 - momentum) * var + momentum * batch_var.to(h.dtype))
        return lf(output_tensor(out), y), [v for m in bns for v in stats[m]]
    return f


def eager_step(spec, params, x, y, state, hparams):
    """The whole step in eager PyTorch (used by --check and the reference).
    `state` is every state argument in step order (rng_state, buffers,
    optimizer state), `hparams` every hyperparameter argument's value (lr
    first); returns (loss, new params, new state) in result order.
    The random ops draw from rng_state as the imported step does."""
    f = loss_fn(spec)
    rng_state, buffers = state[:spec.n_rng], state[spec.n_rng:spec.n_rng + spec.n_buffers]
    opt_state = state[spec.n_rng + spec.n_buffers:]
    mode = rng.PhiloxMode(rng_state[0]) if rng_state else contextlib.nullcontext()
    with mode, decomp.functions_as_forward():
        loss, vjp_fn, new_b = vjp(lambda *ps: f(ps, x, y, buffers), *params, has_aux=True)
        grads = vjp_fn(torch.ones_like(loss))
    lr, hp = spec.hparams(list(hparams))
    new_p, new_s = optim.update(spec.opt, list(params), list(grads), list(opt_state), lr, hp,
                                frozen=spec.unreached)
    new_r = [mode.next_state()] if rng_state else []
    return loss, new_p, new_r + list(new_b) + list(new_s)


def _model_frame(frames):
    """The innermost frame (traceback.FrameSummary) outside torch,
    torch-mlir and this importer: the model's own line, or None."""
    import os
    import torch_mlir
    libs = tuple(os.path.abspath(d) + os.sep for m in (torch, torch_mlir) for d in m.__path__) + (
        os.path.dirname(os.path.abspath(__file__)) + os.sep,)
    return next((f for f in reversed(frames) if not f.filename.startswith("<")  # generated code
                 and not os.path.abspath(f.filename).startswith(libs)), None)


def _class_file(cls):
    """The source file of a class, also for one whose module is not in
    sys.modules (a model file loaded by path): from its methods' code."""
    import sys
    for f in vars(cls).values():
        code = getattr(f, "__code__", None)
        if code is not None:
            return code.co_filename
    return getattr(sys.modules.get(cls.__module__), "__file__", None)


def param_source(model, name):
    """(file, line) of the model source that defines parameter `name`
    ("encoder.layer.0.attn.query.weight"): the line of the innermost module
    outside torch whose __init__ assigns the attribute that holds it
    (`self.query = nn.Linear(...)`, `self.layer = nn.ModuleList(...)`), else
    that module's class definition; None if there is no such source."""
    import inspect
    import os
    import re
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    outside_torch = lambda f: bool(f) and not os.path.abspath(f).startswith(torch_dir)  # noqa: E731
    path, attr = name.split(".")[:-1], name.split(".")[-1]
    try:
        while True:
            owner = model.get_submodule(".".join(path)) if path else model
            if outside_torch(_class_file(type(owner))):
                break
            if not path:
                return None
            attr, path = path[-1], path[:-1]
        pat = re.compile(r"\bself\." + re.escape(attr) + r"\s*(:[^=]*)?=(?!=)")
        for cls in type(owner).__mro__:
            init = cls.__dict__.get("__init__")
            if init is None or not hasattr(init, "__code__") or not outside_torch(init.__code__.co_filename):
                continue
            lines, first = inspect.getsourcelines(init)
            for k, text in enumerate(lines):
                if pat.search(text):
                    return os.path.abspath(init.__code__.co_filename), first + k
        try:
            return os.path.abspath(inspect.getsourcefile(type(owner))), inspect.getsourcelines(type(owner))[1]
        except (TypeError, OSError):
            code = next(f.__code__ for f in vars(type(owner)).values() if hasattr(f, "__code__"))
            return os.path.abspath(code.co_filename), code.co_firstlineno
    except (TypeError, OSError, AttributeError, StopIteration):
        return None


def _reads_inputs(node):
    """Whether an FX node depends on a placeholder (an argument of the step)."""
    seen, todo = set(), [node]
    while todo:
        n = todo.pop()
        if n.op == "placeholder":
            return True
        for m in n.all_input_nodes:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return False


class ValueSpecializer:
    """aten._local_scalar_dense (the model reads a tensor's value in Python:
    .item(), bool(), int(), `x in tensor`, an if or assert on a tensor) as
    torch.jit.trace does it, the traced batch's value, but guarded: the step
    also returns `tensor == value` (a result marked mpt.role = "guard", whose
    mpt.message names the model line) and mpt-run stops with that message at
    the first step where it is false, i.e. where the specialized program would
    not be the model's.  Values of tensors that are constants of the trace
    (shapes computed with tensor ops) are not data and stay plain constants."""

    def __init__(self):
        self.busy = False
        self.nodes = []     # the guards' FX nodes, in trace order
        self.messages = []

    def __call__(self, t):
        from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing, get_proxy_slot
        if self.busy:
            return NotImplemented  # make_fx's own handling: constants, else its error
        self.busy = True
        try:
            return torch.ops.aten._local_scalar_dense.default(t)
        except RuntimeError as e:
            if "_local_scalar_dense" not in str(e):
                raise
        finally:
            self.busy = False
        import traceback
        where = _model_frame(traceback.extract_stack())
        with disable_proxy_modes_tracing():  # make_fx traces real tensors: the batch's value
            value = torch.ops.aten._local_scalar_dense.default(t)
        mode = torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.PROXY)
        if not _reads_inputs(get_proxy_slot(t, mode.tracer).proxy.node):
            return value  # computed from constants only (torch.div of two sizes): the same in every step
        guard = torch.ops.aten.eq.Scalar(t, value).reshape(())
        self.nodes.append(get_proxy_slot(guard, mode.tracer).proxy.node)
        at = f"{where.filename}:{where.lineno} ({(where.line or '').strip()})" if where else "the model"
        self.messages.append(f"{at} read a tensor's value in Python; the step is specialized to the traced "
                             f"value {value!r}, and this batch's differs")
        return value


def trace_error(e):
    """One UserError for an exception of make_fx: the model's own line (the
    innermost frame outside torch, torch-mlir and this importer, with its
    source text) and what went wrong, first line only."""
    import re
    import traceback
    frames, seen = [], e
    while seen is not None:  # with the exceptions torch re-raised from (their frames are deeper)
        frames = traceback.extract_tb(seen.__traceback__) + frames
        seen = seen.__cause__ or seen.__context__
    where = _model_frame(frames)
    text = str(e).strip()
    msg = text.splitlines()[0] if text else type(e).__name__
    if "_local_scalar_dense" in msg:
        reason = ("aten._local_scalar_dense: the model reads a tensor's value in Python (.item(), bool(), int(), "
                  "an if or assert on a tensor); the step is one graph for every batch, so its control flow "
                  "cannot depend on the data")
    elif "mutate a captured Tensor" in msg or "mutating a non-functional tensor" in msg:
        # torch's text names neither the tensor nor the cause (the second
        # is an INTERNAL ASSERT asking for a PyTorch bug report)
        reason = ("the forward writes a buffer or parameter in place (a running average, spectral_norm's "
                  "power iteration); only BatchNorm's running statistics are step state, other in-place "
                  "writes to the model's tensors are not supported")
    else:
        op = re.search(r"aten\.[\w.]+", msg)
        reason = (f"{op.group(0)}: " if op else "") + f"{type(e).__name__}: {msg}"
    at = f" at {where.filename}:{where.lineno} ({(where.line or '').strip()})" if where else ""
    return UserError(f"cannot trace the step{at}: {reason}")


def trace(spec, decomposition_table=None):
    """Returns (gm_fwd_bwd, gm_opt) FX graphs of aten ops, functionalized
    (in-place ops such as relu_ rewritten; torch-mlir rejects them).
    fwd_bwd draws its random numbers from its rng_state argument (rng.py)."""
    n = spec.n_params
    f = loss_fn(spec)
    stream = rng.Stream(None)

    def fwd_bwd(*args):
        params, (x, y), rest = args[:n], args[n:n + 2], args[n + 2:]
        state, rest = (rest[0], rest[1:]) if spec.n_rng else (None, rest)
        buffers, seed = rest[:-1], rest[-1]
        if state is None:
            loss, vjp_fn, new_b = vjp(lambda *ps: f(ps, x, y, buffers), *params, has_aux=True)
            return (loss, *vjp_fn(seed), *new_b)
        # The random ops are decomposed below functionalization, where the
        # state is the unwrapped tensor the tracer follows.
        stream.state = torch._from_functional_tensor(state)
        stream.calls = 0
        with rng.drawing_from(stream):
            loss, vjp_fn, new_b = vjp(lambda *ps: f(ps, x, y, buffers), *params, has_aux=True)
        if stream.calls != spec.rng_calls:
            raise UserError(f"the traced step draws {stream.calls} random ops, an eager forward pass "
                            f"{spec.rng_calls}: the model's randomness depends on more than its input shapes")
        return (loss, *vjp_fn(seed), *new_b)

    def opt_fn(*args):
        params, grads = args[:n], args[n:2 * n]
        rest = args[2 * n:]
        state_in, rest = (rest[0], rest[1:]) if spec.n_rng else (None, rest)
        state, hparams = rest[:len(rest) - spec.n_hparams], rest[len(rest) - spec.n_hparams:]
        lr, hp = spec.hparams(list(hparams))
        new_p, new_s = optim.update(spec.opt, list(params), list(grads), list(state), lr, hp,
                                    frozen=spec.unreached)
        if state_in is None:
            return (*new_p, *new_s)
        step_offset = torch.tensor([0, spec.rng_calls], dtype=torch.int64)
        return (*new_p, state_in + step_offset, *new_s)

    table = dict(decomposition_table or {})
    table[torch.ops.aten.bernoulli.p] = rng.bernoulli_p
    table[torch.ops.aten.rand.default] = rng.rand
    values = ValueSpecializer()
    table[torch.ops.aten._local_scalar_dense.default] = values
    try:
        gm_a, gm_b = _trace(fwd_bwd, opt_fn, spec, table)
    except UserError:
        raise
    except Exception as e:  # make_fx's errors: a traceback through torch's tracer
        raise trace_error(e) from None
    if any(n.graph is not gm_a.graph for n in values.nodes):
        raise UserError("the optimizer reads a tensor's value in Python (.item(), bool()): not supported")
    if values.nodes:  # the guards become fwd_bwd's last results
        out = gm_a.graph.output_node()
        out.args = (tuple(out.args[0]) + tuple(values.nodes),)
        gm_a.recompile()
    spec.guards = list(values.messages)
    return gm_a, gm_b


def _replace_fresh_copies(gm):
    """copy_(dst, src) into a tensor the graph itself made (not an input),
    whose other readers all come before it: the copy's result is src
    converted to dst's dtype and broadcast to its shape.  Such in-place
    writes survive functionalization where a decomposition of an in-place
    op writes its result back (masked_fill_ on a fresh tensor:
    nn.MultiheadAttention's float key_padding_mask from a bool buffer,
    Embedding(max_norm)'s renorm), and torch-mlir cannot lower aten.copy_
    on a value tensor."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.copy_.default:
            continue
        dst, src = node.args[0], node.args[1]
        if not isinstance(dst, torch.fx.Node) or not isinstance(src, torch.fx.Node) or dst.op != "call_function":
            continue
        if any(order[u] > order[node] for u in dst.users if u is not node):
            continue
        want, have = dst.meta.get("val"), src.meta.get("val")
        if want is None or have is None:
            continue
        value = src

        def then(op, *args, **kwargs):
            nonlocal value, have
            value = gm.graph.call_function(op, (value,) + args, kwargs)
            have = op(have, *args, **kwargs)
            value.meta["val"] = have
            value.meta["stack_trace"] = node.meta.get("stack_trace", "")
        with gm.graph.inserting_before(node):
            if have.dtype != want.dtype:
                then(torch.ops.aten._to_copy.default, dtype=want.dtype)
            if tuple(have.shape) != tuple(want.shape):
                then(torch.ops.aten.expand.default, list(want.shape))
                then(torch.ops.aten.clone.default)
        node.replace_all_uses_with(value)
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.recompile()


def _trace(fwd_bwd, opt_fn, spec, table):
    params = spec.values("param")
    x, y = spec.values("data")
    seed = torch.ones((), dtype=torch.float32)
    with decomp.tracing_context():
        gm_a = make_fx(functionalize(fwd_bwd, remove="mutations"), decomposition_table=table,
                       record_stack_traces=True)(*params, x, y, *spec.values("rng_state"),
                                                 *spec.values("buffer"), seed)
        grads = [torch.zeros_like(p) for p in params]
        gm_b = make_fx(functionalize(opt_fn, remove="mutations"), decomposition_table=table,
                       record_stack_traces=True)(
            *params, *grads, *spec.values("rng_state"), *spec.values("optimizer_state"),
            *spec.values("hyperparameter"))
    _replace_fresh_copies(gm_a)
    _replace_fresh_copies(gm_b)
    return gm_a, gm_b

