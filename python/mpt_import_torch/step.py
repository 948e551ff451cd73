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

import dataclasses
from typing import List

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.func import functional_call, functionalize, vjp

from . import decomp, losses, optim


@dataclasses.dataclass
class Arg:
    name: str
    role: str           # param | data | optimizer_state | hyperparameter
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

    @property
    def param_names(self):
        return [a.name for a in self.args[:self.n_params]]

    def values(self, role=None):
        return [a.value for a in self.args if role is None or a.role == role]


def make_batch(model, loss_name, input_shape, generator):
    """A synthetic batch: standard normal input, or the model's own
    `make_example_input(shape, generator)` (e.g. token ids for embeddings)."""
    make_input = getattr(model, "make_example_input", None)
    x = (make_input(tuple(input_shape), generator) if make_input is not None
         else torch.randn(tuple(input_shape), generator=generator))
    with torch.no_grad():
        out = model(x)
    y = losses.make_target(loss_name, out.shape, generator)
    return x, y


def build_spec(model, input_shape, loss_name, opt_cfg, data_seed=1):
    losses.get(loss_name)
    named = [(n, p.detach().clone()) for n, p in model.named_parameters()]
    gen = torch.Generator().manual_seed(data_seed)
    x, y = make_batch(model, loss_name, input_shape, gen)
    args = [Arg(n, "param", p) for n, p in named]
    args += [Arg("input", "data", x), Arg("target", "data", y)]
    params = [p for _, p in named]
    snames = optim.state_names(opt_cfg, [n for n, _ in named])
    args += [Arg(n, "optimizer_state", s) for n, s in zip(snames, optim.init_state(opt_cfg, params))]
    args += [Arg("lr", "hyperparameter", torch.tensor(opt_cfg.lr, dtype=torch.float32))]
    return StepSpec(model, loss_name, opt_cfg, args, len(named), 2, len(snames))


def loss_fn(spec):
    names = spec.param_names
    lf = losses.get(spec.loss_name)

    def f(params, x, y):
        out = functional_call(spec.model, dict(zip(names, params)), (x,))
        return lf(out, y)
    return f


def eager_step(spec, params, x, y, state, lr):
    """The whole step in eager PyTorch (used by --check and the reference)."""
    f = loss_fn(spec)
    loss, vjp_fn = vjp(lambda *ps: f(ps, x, y), *params)
    grads = vjp_fn(torch.ones_like(loss))
    new_p, new_s = optim.update(spec.opt, list(params), list(grads), list(state), lr)
    return loss, new_p, new_s


def trace(spec, decomposition_table=None):
    """Returns (gm_fwd_bwd, gm_opt) FX graphs of aten ops, functionalized
    (in-place ops such as relu_ rewritten; torch-mlir rejects them)."""
    n = spec.n_params
    f = loss_fn(spec)

    def fwd_bwd(*args):
        params, (x, y, seed) = args[:n], args[n:]
        loss, vjp_fn = vjp(lambda *ps: f(ps, x, y), *params)
        return (loss, *vjp_fn(seed))

    def opt_fn(*args):
        params, grads = args[:n], args[n:2 * n]
        state, lr = args[2 * n:-1], args[-1]
        new_p, new_s = optim.update(spec.opt, list(params), list(grads), list(state), lr)
        return (*new_p, *new_s)

    params = spec.values("param")
    x, y = spec.values("data")
    seed = torch.ones((), dtype=torch.float32)
    with decomp.tracing_context():
        return _trace(fwd_bwd, opt_fn, params, x, y, seed, spec, decomposition_table)


def _trace(fwd_bwd, opt_fn, params, x, y, seed, spec, decomposition_table):
    gm_a = make_fx(functionalize(fwd_bwd, remove="mutations"), decomposition_table=decomposition_table,
                   record_stack_traces=True)(*params, x, y, seed)
    grads = [torch.zeros_like(p) for p in params]
    gm_b = make_fx(functionalize(opt_fn, remove="mutations"), decomposition_table=decomposition_table,
                   record_stack_traces=True)(
        *params, *grads, *spec.values("optimizer_state"), *spec.values("hyperparameter"))
    return gm_a, gm_b
