"""Builtin models and user factories.

A model spec is (module, input_shape, description).  Builtin names:
  mlp        2 linear layers + ReLU, input [8, 32], 10 classes
  gpt-block  pre-LN transformer block (causal self-attention, layer_norm,
             GELU MLP) + linear head, input [2, 8, 32] float features,
             16 classes per token
  resnet18   torchvision ResNet-18, 10 classes, input [2, 3, 32, 32];
             BatchNorm running statistics as "buffer" step state (normalize_for_training)
User factories: "pkg.module:callable" (importable from the current
directory or sys.path) or "path/to/file.py:callable", returning an nn.Module (optionally with
an `example_input_shape` attribute, else --input-shape is required).
"""

import importlib
import importlib.util
import math
import os
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import UserError


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_classes=10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, n_classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, seq_len):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        # Constant causal mask: becomes a constant in the imported step.
        self.register_buffer("mask", torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool)),
                             persistent=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.n_heads
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class GPTBlock(nn.Module):
    """GPT-2 style pre-LN block followed by a per-token classification head."""

    def __init__(self, d_model=32, n_heads=4, seq_len=8, n_classes=16):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, seq_len)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.fc_proj = nn.Linear(4 * d_model, d_model)
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.fc_proj(F.gelu(self.fc(self.ln2(x))))
        return self.head(self.ln_f(x))


def resnet18(n_classes=10):
    import torchvision
    return torchvision.models.resnet18(num_classes=n_classes)


BUILTINS = {
    "mlp": (lambda: MLP(), (8, 32), "MLP 32-64-10, ReLU"),
    "gpt-block": (lambda: GPTBlock(), (2, 8, 32), "GPT block d=32 h=4 T=8, head 16"),
    "resnet18": (lambda: resnet18(), (2, 3, 32, 32), "torchvision ResNet-18, 10 classes"),
}


def normalize_for_training(module):
    """Make the module a pure function of (params, input) for one step.

    BatchNorm: the module itself tracks no running statistics
    (track_running_stats=False; in training mode it normalises with batch
    statistics either way); its running mean/var (and momentum) move to
    `module.mpt_running_stats`, and the step updates them as "buffer"
    arguments (step.batch_norm_updates).  A BatchNorm with momentum=None
    (cumulative average, which needs num_batches_tracked) keeps none."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.mpt_running_stats = None
            if m.track_running_stats and m.momentum is not None:
                m.mpt_running_stats = (m.running_mean.detach().clone(), m.running_var.detach().clone(),
                                       float(m.momentum))
            m.track_running_stats = False
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
    module.train()
    return module


def parse_shape(text):
    try:
        dims = tuple(int(d) for d in re.split(r"[,x]", text.strip()))
    except ValueError:
        raise UserError(f"bad shape '{text}': expected e.g. 8,32 or 8x32")
    if not dims or any(d <= 0 for d in dims):
        raise UserError(f"bad shape '{text}': dimensions must be positive")
    return dims


def load_model(name, input_shape=None, seed=0):
    """Returns (module, input_shape, description); parameters are
    initialised deterministically from `seed`."""
    torch.manual_seed(seed)
    if name in BUILTINS:
        factory, shape, desc = BUILTINS[name]
        module = factory()
    elif ":" in name:
        mod_name, _, attr = name.rpartition(":")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            if mod_name.endswith(".py"):
                if not os.path.exists(mod_name):
                    raise ImportError(f"no such file '{mod_name}'")
                spec = importlib.util.spec_from_file_location(
                    os.path.splitext(os.path.basename(mod_name))[0], mod_name)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
            else:
                mod = importlib.import_module(mod_name)
        except ImportError as e:
            raise UserError(f"cannot import model module '{mod_name}': {e}")
        if not hasattr(mod, attr):
            raise UserError(f"model module '{mod_name}' has no attribute '{attr}'")
        torch.manual_seed(seed)
        module = getattr(mod, attr)()
        if not isinstance(module, nn.Module):
            raise UserError(f"model factory '{name}' returned {type(module).__name__}, not torch.nn.Module")
        shape = getattr(module, "example_input_shape", None)
        desc = name
    else:
        raise UserError(f"unknown model '{name}' (builtins: {', '.join(BUILTINS)}; "
                        "or module.path:factory, file.py:factory)")
    if input_shape is not None:
        shape = input_shape
    if shape is None:
        raise UserError(f"model '{name}' has no example_input_shape; pass --input-shape")
    return normalize_for_training(module), tuple(shape), desc
