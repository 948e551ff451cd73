"""Decompositions applied while tracing the step (make_fx).

torch-mlir's table (fx_decomp_util.get_decomposition_table) plus
replacements for backward ops that torch-mlir would otherwise lower to its
own tm_tensor dialect (not upstream MLIR, so MLIR 22's mlir-opt rejects it):

  max_pool2d_with_indices_backward: torch-mlir emits tm_tensor.scatter.  Here
  it is recomputed window by window: for every kernel offset, the strided
  view of the (-inf padded) input is compared with the window maximum; the
  first offset (row-major, as PyTorch's CPU kernel) that attains it gets the
  output gradient, placed back by zero-insertion (stack + reshape) and pad.
  Only elementwise ops, strided slices, reshapes and pads: exact PyTorch
  semantics (ties go to the first maximum) without scatter.
"""

import torch
import torch.nn.functional as F
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

aten = torch.ops.aten


def _pair(v, default=None):
    if v is None or len(v) == 0:
        return default
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _place(c, oi, oj, sh, sw, hp, wp):
    """Put c[n, k, i, j] at [oi + i*sh, oj + j*sw] of a zero [.., hp, wp] map."""
    n, ch, ho, wo = c.shape
    if sw > 1:
        c = torch.stack([c] + [torch.zeros_like(c)] * (sw - 1), dim=-1).reshape(n, ch, ho, wo * sw)
    if sh > 1:
        c = torch.stack([c] + [torch.zeros_like(c)] * (sh - 1), dim=3).reshape(n, ch, ho * sh, c.shape[-1])
    c = c[:, :, : min(c.shape[2], hp - oi), : min(c.shape[3], wp - oj)]
    return F.pad(c, (oj, wp - oj - c.shape[3], oi, hp - oi - c.shape[2]))


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride, (kh, kw))
    ph, pw = _pair(padding, (0, 0))
    dh, dw = _pair(dilation, (1, 1))
    squeeze = self.dim() == 3
    if squeeze:
        self, grad_output = self.unsqueeze(0), grad_output.unsqueeze(0)
    _, _, h, w = self.shape
    ho, wo = grad_output.shape[-2:]
    hp = max(h + 2 * ph, (ho - 1) * sh + (kh - 1) * dh + 1)
    wp = max(w + 2 * pw, (wo - 1) * sw + (kw - 1) * dw + 1)
    xp = F.pad(self, (pw, wp - w - pw, ph, hp - h - ph), value=float("-inf"))
    offs = [(i * dh, j * dw) for i in range(kh) for j in range(kw)]
    wins = [xp[:, :, oi: oi + (ho - 1) * sh + 1: sh, oj: oj + (wo - 1) * sw + 1: sw] for oi, oj in offs]
    m = wins[0]
    for win in wins[1:]:
        m = torch.maximum(m, win)
    taken = torch.zeros_like(m, dtype=torch.bool)
    zero = torch.zeros_like(grad_output)
    gp = None
    for (oi, oj), win in zip(offs, wins):
        sel = (win == m) & ~taken
        taken = taken | sel
        part = _place(torch.where(sel, grad_output, zero), oi, oj, sh, sw, hp, wp)
        gp = part if gp is None else gp + part
    g = gp[:, :, ph: ph + h, pw: pw + w]
    return g.squeeze(0) if squeeze else g


def table():
    t = dict(get_decomposition_table())
    t[aten.max_pool2d_with_indices_backward.default] = max_pool2d_with_indices_backward
    return t
