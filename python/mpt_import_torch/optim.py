"""Functional optimizers matching torch.optim (SGD, Adam, AdamW).

State layout (all float32 tensors, in parameter order):
  sgd   (momentum != 0): momentum_buffer[i] per param, initial zeros
        (== torch.optim.SGD's first step, which sets buf = grad, because
        dampening is fixed at 0); momentum == 0: no state.
  adam, adamw: exp_avg[i] per param, exp_avg_sq[i] per param, then one
        shared scalar `step` (tensor<f32>, initial 0; torch keeps one per
        param, all equal).
The learning rate is a step argument (role hyperparameter, tensor<f32>);
momentum, betas, eps, weight_decay, nesterov are compile-time constants.
"""

import dataclasses

import torch

from . import UserError

OPTIMIZERS = ("sgd", "adam", "adamw")


@dataclasses.dataclass
class OptConfig:
    name: str
    lr: float
    momentum: float = 0.0
    nesterov: bool = False
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0

    def describe(self):
        d = {"name": self.name, "lr": self.lr, "weight_decay": self.weight_decay}
        if self.name == "sgd":
            d.update(momentum=self.momentum, nesterov=self.nesterov, dampening=0.0)
        else:
            d.update(beta1=self.betas[0], beta2=self.betas[1], eps=self.eps)
        return d


def make_config(name, lr=None, momentum=None, nesterov=False, betas=None, eps=None, weight_decay=None):
    if name not in OPTIMIZERS:
        raise UserError(f"unknown optimizer '{name}' (known: {', '.join(OPTIMIZERS)})")
    if name == "sgd":
        if betas is not None or eps is not None:
            raise UserError("--betas/--eps apply to adam/adamw, not sgd")
        cfg = OptConfig("sgd", lr=0.05 if lr is None else lr,
                        momentum=0.9 if momentum is None else momentum, nesterov=nesterov,
                        weight_decay=0.0 if weight_decay is None else weight_decay)
        if cfg.nesterov and cfg.momentum == 0:
            raise UserError("--nesterov needs --momentum > 0")
    else:
        if nesterov or momentum is not None:
            raise UserError(f"--momentum/--nesterov apply to sgd, not {name}")
        cfg = OptConfig(name, lr=1e-3 if lr is None else lr,
                        betas=(0.9, 0.999) if betas is None else tuple(betas),
                        eps=1e-8 if eps is None else eps,
                        weight_decay=(0.01 if name == "adamw" else 0.0) if weight_decay is None else weight_decay)
        if len(cfg.betas) != 2:
            raise UserError("--betas needs two values, e.g. 0.9,0.999")
    if cfg.lr <= 0:
        raise UserError("--lr must be positive")
    return cfg


def state_names(cfg, param_names):
    if cfg.name == "sgd":
        return [f"momentum_buffer.{n}" for n in param_names] if cfg.momentum != 0 else []
    return ([f"exp_avg.{n}" for n in param_names] + [f"exp_avg_sq.{n}" for n in param_names] + ["step"])


def init_state(cfg, params):
    if cfg.name == "sgd":
        return [torch.zeros_like(p) for p in params] if cfg.momentum != 0 else []
    return ([torch.zeros_like(p) for p in params] + [torch.zeros_like(p) for p in params]
            + [torch.zeros((), dtype=torch.float32)])


def update(cfg, params, grads, state, lr):
    """Returns (new_params, new_state); pure function of tensors."""
    n = len(params)
    if cfg.name == "sgd":
        new_p, new_s = [], []
        for i, (p, g) in enumerate(zip(params, grads)):
            d = g + cfg.weight_decay * p if cfg.weight_decay != 0 else g
            if cfg.momentum != 0:
                buf = cfg.momentum * state[i] + d
                new_s.append(buf)
                d = d + cfg.momentum * buf if cfg.nesterov else buf
            new_p.append(p - lr * d)
        return new_p, new_s
    beta1, beta2 = cfg.betas
    exp_avg, exp_avg_sq, step = state[:n], state[n:2 * n], state[2 * n]
    step = step + 1.0
    bias1 = 1.0 - torch.pow(torch.tensor(beta1, dtype=torch.float32), step)
    bias2 = 1.0 - torch.pow(torch.tensor(beta2, dtype=torch.float32), step)
    step_size = lr / bias1
    bias2_sqrt = torch.sqrt(bias2)
    new_p, new_m, new_v = [], [], []
    for p, g, m, v in zip(params, grads, exp_avg, exp_avg_sq):
        if cfg.weight_decay != 0:
            if cfg.name == "adamw":
                p = p * (1.0 - lr * cfg.weight_decay)
            else:
                g = g + cfg.weight_decay * p
        m = m + (1.0 - beta1) * (g - m)
        v = beta2 * v + (1.0 - beta2) * g * g
        denom = torch.sqrt(v) / bias2_sqrt + cfg.eps
        new_p.append(p - step_size * (m / denom))
        new_m.append(m)
        new_v.append(v)
    return new_p, new_m + new_v + [step]


def torch_optimizer(cfg, params):
    """The torch.optim equivalent (for the eager reference and --check)."""
    if cfg.name == "sgd":
        return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, nesterov=cfg.nesterov,
                               weight_decay=cfg.weight_decay)
    cls = torch.optim.Adam if cfg.name == "adam" else torch.optim.AdamW
    return cls(params, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)
