"""Functional optimizers matching torch.optim (SGD, Adam, AdamW, RMSprop, Adagrad).

State layout (all float32 tensors, in parameter order):
  sgd   (momentum != 0): momentum_buffer[i] per param, initial zeros
        (== torch.optim.SGD's first step, which sets buf = grad, because
        dampening is fixed at 0); momentum == 0: no state.
  adam, adamw: exp_avg[i] per param, exp_avg_sq[i] per param, then one
        shared scalar `step` (tensor<f32>, initial 0; torch keeps one per
        param, all equal).
  rmsprop: square_avg[i] per param, then (momentum != 0) momentum_buffer[i]
        per param, initial zeros (centered=False).
  adagrad: sum[i] per param, initial zeros (initial_accumulator_value and
        lr_decay 0, so torch's step counter does not enter the update).
The learning rate is a step argument (role hyperparameter, tensor<f32>);
momentum, betas, eps, weight_decay are compile-time constants, or, with
--hyperparameters all, step arguments too (hyperparameter_names); nesterov
and whether there is a momentum buffer are structure, fixed at import.
clip_grad_norm (optional): the gradients are first scaled as
torch.nn.utils.clip_grad_norm_(params, max_norm) does (2-norm over all of
them, coefficient max_norm / (norm + 1e-6) capped at 1), inside the update,
after the mpt.gradient markers: loss scaling unscales the gradients at the
markers, so the norm is the unscaled one (GradScaler's unscale_ then clip).
"""

import dataclasses

import torch

from . import UserError

OPTIMIZERS = ("sgd", "adam", "adamw", "rmsprop", "adagrad")
# The options besides lr and weight decay that each optimizer takes.
OPTIONS = {"sgd": {"momentum", "nesterov"}, "adam": {"betas", "eps"}, "adamw": {"betas", "eps"},
           "rmsprop": {"alpha", "eps", "momentum"}, "adagrad": {"eps"}}


@dataclasses.dataclass
class OptConfig:
    name: str
    lr: float
    momentum: float = 0.0
    nesterov: bool = False
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    alpha: float = 0.99
    clip_grad_norm: float = None

    def describe(self):
        d = {"name": self.name, "lr": self.lr, "weight_decay": self.weight_decay}
        if self.clip_grad_norm is not None:
            d["clip_grad_norm"] = self.clip_grad_norm
        if self.name == "sgd":
            d.update(momentum=self.momentum, nesterov=self.nesterov, dampening=0.0)
        elif self.name == "rmsprop":
            d.update(alpha=self.alpha, eps=self.eps, momentum=self.momentum, centered=False)
        elif self.name == "adagrad":
            d.update(eps=self.eps, lr_decay=0.0, initial_accumulator_value=0.0)
        else:
            d.update(beta1=self.betas[0], beta2=self.betas[1], eps=self.eps)
        return d


def make_config(name, lr=None, momentum=None, nesterov=False, betas=None, eps=None, weight_decay=None,
                clip_grad_norm=None, alpha=None):
    if name not in OPTIMIZERS:
        raise UserError(f"unknown optimizer '{name}' (known: {', '.join(OPTIMIZERS)})")
    # Which options each optimizer takes; the defaults are torch.optim's
    # (SGD's lr and momentum: the importer's own, 0.05 and 0.9).
    given = {"momentum": momentum is not None, "nesterov": nesterov, "betas": betas is not None,
             "eps": eps is not None, "alpha": alpha is not None}
    for option in ("momentum", "nesterov", "betas", "eps", "alpha"):
        if given[option] and option not in OPTIONS[name]:
            users = "/".join(n for n in OPTIMIZERS if option in OPTIONS[n])
            raise UserError(f"--{option} applies to {users}, not {name}")
    default_lr = {"sgd": 0.05, "adam": 1e-3, "adamw": 1e-3, "rmsprop": 1e-2, "adagrad": 1e-2}[name]
    default_eps = {"adagrad": 1e-10}.get(name, 1e-8)
    default_momentum = 0.9 if name == "sgd" else 0.0
    cfg = OptConfig(name, lr=default_lr if lr is None else lr,
                    momentum=default_momentum if momentum is None else momentum, nesterov=nesterov,
                    betas=(0.9, 0.999) if betas is None else tuple(betas),
                    eps=default_eps if eps is None else eps,
                    alpha=0.99 if alpha is None else alpha,
                    weight_decay=(0.01 if name == "adamw" else 0.0) if weight_decay is None else weight_decay)
    if cfg.nesterov and cfg.momentum == 0:
        raise UserError("--nesterov needs --momentum > 0")
    if len(cfg.betas) != 2:
        raise UserError("--betas needs two values, e.g. 0.9,0.999")
    if not 0 <= cfg.alpha <= 1:
        raise UserError("--alpha must be in [0, 1]")
    if cfg.lr <= 0:
        raise UserError("--lr must be positive")
    if clip_grad_norm is not None:
        if not clip_grad_norm > 0 or clip_grad_norm == float("inf"):
            raise UserError("--clip-grad-norm must be a positive finite number")
        cfg.clip_grad_norm = clip_grad_norm
    return cfg


def clip_gradients(max_norm, grads, frozen=()):
    """torch.nn.utils.clip_grad_norm_'s arithmetic (norm_type 2, foreach):
    the 2-norm of the per-tensor 2-norms, then every gradient times
    min(max_norm / (norm + 1e-6), 1).  A non-finite norm propagates, as in
    torch (error_if_nonfinite=False): the step is then skipped by dynamic loss
    scaling or trains to NaN, as eager does."""
    live = [g for i, g in enumerate(grads) if i not in frozen]
    if not live:
        return grads
    norms = torch.stack([torch.linalg.vector_norm(g) for g in live])
    total = torch.linalg.vector_norm(norms)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return [g if i in frozen else g * coef for i, g in enumerate(grads)]


def state_names(cfg, param_names):
    if cfg.name == "sgd":
        return [f"momentum_buffer.{n}" for n in param_names] if cfg.momentum != 0 else []
    if cfg.name == "rmsprop":
        return ([f"square_avg.{n}" for n in param_names]
                + ([f"momentum_buffer.{n}" for n in param_names] if cfg.momentum != 0 else []))
    if cfg.name == "adagrad":
        return [f"sum.{n}" for n in param_names]
    return ([f"exp_avg.{n}" for n in param_names] + [f"exp_avg_sq.{n}" for n in param_names] + ["step"])


def init_state(cfg, params):
    if cfg.name in ("sgd", "rmsprop", "adagrad"):
        copies = {"sgd": int(cfg.momentum != 0), "rmsprop": 1 + int(cfg.momentum != 0), "adagrad": 1}[cfg.name]
        return [torch.zeros_like(p) for _ in range(copies) for p in params]
    return ([torch.zeros_like(p) for p in params] + [torch.zeros_like(p) for p in params]
            + [torch.zeros((), dtype=torch.float32)])


def hyperparameter_names(cfg):
    """The hyperparameters that `--hyperparameters all` makes step arguments,
    besides lr (momentum only where there is a momentum buffer)."""
    if cfg.name == "sgd":
        return (["momentum"] if cfg.momentum != 0 else []) + ["weight_decay"]
    if cfg.name == "rmsprop":
        return ["alpha", "eps"] + (["momentum"] if cfg.momentum != 0 else []) + ["weight_decay"]
    if cfg.name == "adagrad":
        return ["eps", "weight_decay"]
    return ["beta1", "beta2", "eps", "weight_decay"]


def hyperparameter_values(cfg):
    values = {"momentum": cfg.momentum, "weight_decay": cfg.weight_decay, "eps": cfg.eps, "alpha": cfg.alpha,
              "beta1": cfg.betas[0], "beta2": cfg.betas[1]}
    return [values[n] for n in hyperparameter_names(cfg)]


def update(cfg, params, grads, state, lr, hp=None, frozen=()):
    """Returns (new_params, new_state); pure function of tensors.  `hp`:
    hyperparameters given as tensors (step arguments), by name; the others
    are the constants of `cfg`.  A weight decay given as a tensor is applied
    even when it is 0 at import (so that a schedule can raise it).
    `frozen`: indices of parameters the loss does not reach, kept as they are
    with their state, as torch.optim skips a parameter whose .grad is None.
    Their update is p - lr * g with g the zero gradient: p bit for bit, and
    the step still reads the gradient (its mpt.gradient marker stays, and the
    contract lint's zero-gradient warning names it)."""
    hp = hp or {}
    n = len(params)
    if cfg.clip_grad_norm is not None:
        grads = clip_gradients(cfg.clip_grad_norm, list(grads), frozen)
    weight_decay = hp.get("weight_decay", cfg.weight_decay)
    decays = "weight_decay" in hp or cfg.weight_decay != 0
    if cfg.name == "sgd":
        momentum = hp.get("momentum", cfg.momentum)
        new_p, new_s = [], []
        for i, (p, g) in enumerate(zip(params, grads)):
            if i in frozen:
                new_p.append(p - lr * g)
                if cfg.momentum != 0:
                    new_s.append(state[i])
                continue
            d = g + weight_decay * p if decays else g
            if cfg.momentum != 0:
                buf = momentum * state[i] + d
                new_s.append(buf)
                d = d + momentum * buf if cfg.nesterov else buf
            new_p.append(p - lr * d)
        return new_p, new_s
    if cfg.name in ("rmsprop", "adagrad"):
        return _update_rms(cfg, params, grads, state, lr, hp, frozen, weight_decay, decays)
    as_tensor = lambda v: v if torch.is_tensor(v) else torch.tensor(v, dtype=torch.float32)  # noqa: E731
    beta1, beta2 = hp.get("beta1", cfg.betas[0]), hp.get("beta2", cfg.betas[1])
    eps = hp.get("eps", cfg.eps)
    exp_avg, exp_avg_sq, step = state[:n], state[n:2 * n], state[2 * n]
    step = step + 1.0
    bias1 = 1.0 - torch.pow(as_tensor(beta1), step)
    bias2 = 1.0 - torch.pow(as_tensor(beta2), step)
    step_size = lr / bias1
    bias2_sqrt = torch.sqrt(bias2)
    new_p, new_m, new_v = [], [], []
    for i, (p, g, m, v) in enumerate(zip(params, grads, exp_avg, exp_avg_sq)):
        if i in frozen:
            new_p.append(p - lr * g)
            new_m.append(m)
            new_v.append(v)
            continue
        if decays:
            if cfg.name == "adamw":
                p = p * (1.0 - lr * weight_decay)
            else:
                g = g + weight_decay * p
        m = m + (1.0 - beta1) * (g - m)
        v = beta2 * v + (1.0 - beta2) * g * g
        denom = torch.sqrt(v) / bias2_sqrt + eps
        new_p.append(p - step_size * (m / denom))
        new_m.append(m)
        new_v.append(v)
    return new_p, new_m + new_v + [step]


def _update_rms(cfg, params, grads, state, lr, hp, frozen, weight_decay, decays):
    """RMSprop and Adagrad, in torch.optim's order of operations
    (_single_tensor_rmsprop / _single_tensor_adagrad): the square average
    (alpha * v + (1 - alpha) * g * g) or the running sum (s + g * g), then
    p - lr * g / (sqrt(.) + eps); RMSprop's momentum buffers g / (sqrt(v) + eps)."""
    n = len(params)
    eps = hp.get("eps", cfg.eps)
    alpha = hp.get("alpha", cfg.alpha)
    momentum = hp.get("momentum", cfg.momentum)
    has_buf = cfg.name == "rmsprop" and cfg.momentum != 0
    avgs, bufs = state[:n], (state[n:2 * n] if has_buf else [])
    new_p, new_a, new_b = [], [], []
    for i, (p, g, a) in enumerate(zip(params, grads, avgs)):
        if i in frozen:
            new_p.append(p - lr * g)
            new_a.append(a)
            if has_buf:
                new_b.append(bufs[i])
            continue
        if decays:
            g = g + weight_decay * p
        a = a * alpha + (1.0 - alpha) * (g * g) if cfg.name == "rmsprop" else a + g * g
        d = g / (torch.sqrt(a) + eps)
        if has_buf:
            b = momentum * bufs[i] + d
            new_b.append(b)
            d = b
        new_p.append(p - lr * d)
        new_a.append(a)
    return new_p, new_a + new_b


def clip_reference(cfg, params):
    """The eager counterpart of the step's clipping, between backward and
    optimizer.step (after GradScaler's unscale_ in f16)."""
    if cfg.clip_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(params, cfg.clip_grad_norm)


def torch_optimizer(cfg, params):
    """The torch.optim equivalent (for the eager reference and --check)."""
    if cfg.name == "sgd":
        return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, nesterov=cfg.nesterov,
                               weight_decay=cfg.weight_decay)
    if cfg.name == "rmsprop":
        return torch.optim.RMSprop(params, lr=cfg.lr, alpha=cfg.alpha, eps=cfg.eps, momentum=cfg.momentum,
                                   weight_decay=cfg.weight_decay)
    if cfg.name == "adagrad":
        return torch.optim.Adagrad(params, lr=cfg.lr, eps=cfg.eps, weight_decay=cfg.weight_decay)
    cls = torch.optim.Adam if cfg.name == "adam" else torch.optim.AdamW
    return cls(params, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)
