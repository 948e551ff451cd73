"""The decomposition layer: what the step is traced with (make_fx), so that
every op reaching torch-mlir lowers to upstream MLIR and mixed precision
sees the structure it needs (contractions as matmuls/convolutions, softmax
and reductions as their own ops).

Two mechanisms, torch's own first:

* `tracing_context()` picks PyTorch's own decomposed implementations of
  fused ops that are chosen *above* autograd (a decomposition table cannot
  reach them: make_fx only sees ops below autograd, and the backward of a
  fused op is another fused op):
    - scaled_dot_product_attention: the MATH backend
      (aten._scaled_dot_product_attention_math: matmul, scale, causal/additive
      mask, softmax, dropout, matmul) instead of
      _scaled_dot_product_flash_attention_for_cpu (+ its fused backward);
    - nn.LSTM / nn.GRU: oneDNN off, so aten.lstm/gru run their cell-by-cell
      implementation (addmm gates, sigmoid/tanh, stack) instead of
      aten.mkldnn_rnn_layer.
* `table()`: torch-mlir's decomposition table (torch's core aten
  decompositions, extended) plus our own where torch has none that lowers
  without torch-mlir's tm_tensor dialect (outside upstream MLIR):
    - upsample_bilinear2d_backward (and nearest's to a size that is not a
      whole multiple): two matmuls with the interpolation matrices;
      upsample_bilinear2d itself: PyTorch's decomposition; bicubic and
      trilinear upsampling and nearest of a volume the same way, one matrix
      per dimension; replicate padding's backward by edge sums; erfinv by
      a polynomial and Newton steps; cdist's pairwise form and gradient;
    - max_pool2d/3d_with_indices_backward and avg_pool2d/3d_backward: window by
      window (strided slices, zero insertion + pad); the adaptive average
      pool's as two matmuls with constant averaging matrices;
    - convolution_backward of a transposed 2-D or 3-D convolution: forward
      convolutions (its input gradient is one, its weight gradient that
      one's weight gradient); a 1-D convolution's backward as the 2-D one on
      rows of height 1; a 3-D one's (and a dilated 2-D one's) as forward
      convolutions (torch-mlir's are convolution-shaped generics); a grouped
      3-D convolution's forward as one convolution per group;
    - convolution_backward with groups > 1 or stride > 1: the weight gradient
      as one batched contraction per kernel offset (a per-channel sum of
      products for a depthwise convolution; torch-mlir's grouped
      weight gradient builds an invalid tensor.expand_shape, its strided one
      a per-sample gradient N times the weight's size); the grouped input
      gradient as a forward grouped convolution (torch-mlir's builds an
      invalid tensor.collapse_shape for depthwise convolutions); the
      ungrouped strided input gradient by phases (one stride-1 correlation
      per phase of input rows and columns with the taps that reach it,
      where torch-mlir's inserts zeros into the output gradient: s*s times
      the work); the stride-1 input gradient and the bias as torch-mlir
      lowers them;
    - as_strided / as_strided_scatter over a whole contiguous tensor in
      row-major order: a reshape (ATen's 1x1 adaptive average pool of a
      channels-last-looking input restrides it; torch-mlir's form of the
      backward scatter does not legalize); as_strided_scatter into any other
      view of a contiguous tensor (Longformer's chunks): a gather with a
      constant index map;
    - embedding_dense_backward: a one-hot contraction, chunked over the
      vocabulary (torch's decomposition is index_put -> tm_tensor.scatter);
      an accumulating index_put with one index tensor (the backward of
      table[index]: Swin's relative position bias) the same way;
    - embedding_bag (sum, mean, max; offsets, padding_idx, per-sample
      weights) and its backward: a bag x index membership matrix (torch-mlir
      lowers only some forms of the forward and none of the backward), the
      backward through embedding_dense_backward's contraction;
    - native_layer_norm (f32): mean and variance in f32, as eager's kernel
      (torch's decomposition uses var_mean, which torch-mlir computes in f64);
      its backward without torch's N x gradient intermediate (overflows f16
      under a loss scale for wide layers);
    - native_batch_norm (training, f32): normalised with the batch mean
      summed in f64, as eager's kernel sums it (torch-mlir's lowering
      normalises with a second mean summed in f32, element after element,
      whose error deep BatchNorm networks amplify);
    - cumsum: log2(n) shifted additions (torch-mlir: tm_tensor.scan);
      cumprod, logcumsumexp, cummax and cummin the same way;
    - topk, sort, kthvalue and the medians by ranks (torch-mlir:
      tm_tensor.sort / tm_tensor.topk / not legalized), scatter and
      scatter_add by comparing every index with every position (torch-mlir
      crashed on aten.scatter: the backward of torch.max over a dimension
      and of topk, F.one_hot) and scatter_reduce (graph networks), each up
      to SELECTION_ELEMENTS comparisons;
    - gelu with approximate="tanh" (torch-mlir's sqrt(2/pi) is 0.797724);
    - masked_scatter and its backward: a gather of the source at each
      position's rank among the mask's true ones, and its transpose;
    - histc (counts as sums of comparisons), torch._grouped_mm (dense
      matmuls masked by group) and a non-accumulating index_put with one
      index tensor (a scatter): transformers' grouped_mm experts (Mixtral);
    - constant_pad_nd with a negative amount (the backward of any padding):
      a crop, then the non-negative padding (torch-mlir builds a tensor.pad
      with negative high padding, invalid when run).

Why one-hot and not a segment sum for the embedding gradient: a segment sum
(scatter-add of each token's gradient row into its vocabulary row) costs
N*D additions for N tokens and D features but writes to data-dependent rows,
which linalg cannot express (it needs tm_tensor.scatter or a sequential
scf.for of tensor.insert_slice, which no pass here would vectorise or put
in low precision).  The one-hot form, onehot(ids)^T @ grad_out, costs N*V*D
multiply-adds (V the vocabulary) -- the same as the logits matmul of a tied
output head, so it at most adds a third to the head's forward + backward --
but it is a plain matmul: it lowers to linalg.matmul, runs on Tensor Cores
under bf16 autocast, and is exact in bf16 inputs (one-hot entries are 0 or
1; the f32 accumulator sums the gradient rows).  In f16 autocast keeps it
f32 (docs/Autocast.md: a one-hot contraction in the backward), as PyTorch
runs the embedding backward: its gradient operand can exceed f16's range.
For a large vocabulary the N x V one-hot matrix would not fit, so it is
built in vocabulary chunks of at most ONEHOT_CHUNK_ELEMENTS elements (one
N x Vc slab at a time, one matmul per chunk, concatenated): memory is
bounded, FLOPs unchanged.
"""

import contextlib
import itertools
import math
import os

import torch
import torch.nn.functional as F
from torch._decomp import decomposition_table as torch_decompositions
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

aten = torch.ops.aten

# Largest one-hot slab (N tokens x Vc vocabulary rows) built at once: 2^24
# elements = 64 MiB in f32.  GPT-2's 50257 rows with 8192 tokens would be
# 1.6 GB at once; chunked, 26 slabs of 2048 rows.
# MPT_IMPORT_ONEHOT_CHUNK_ELEMENTS overrides it (tests force small chunks).
ONEHOT_CHUNK_ELEMENTS = int(os.environ.get("MPT_IMPORT_ONEHOT_CHUNK_ELEMENTS", 1 << 24))


@contextlib.contextmanager
def tracing_context():
    """PyTorch's decomposed implementations of fused attention and RNNs, and
    custom autograd.Functions traced through their forward (check_functions);
    stack traces with every frame below the model's forward."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.MATH]), torch.backends.mkldnn.flags(enabled=False), functions_as_forward(), \
            _all_stack_frames(), _functions_replaced():
        yield


@contextlib.contextmanager
def _functions_replaced():
    """Functions whose ATen backward torch-mlir cannot lower, replaced while
    tracing by differentiable compositions, so the backward is the autograd
    of those (the decomposition table sees only ops below autograd):
    - torch.affine_grid_generator (F.affine_grid calls it by its module
      name): PyTorch's decomposition, base grid times theta. ATen's backward
      is a composite op that builds its base grid with in-place writes
      (`unsqueeze_`, `copy_` into slices; spatial transformer networks).
    - torch.grid_sampler (F.grid_sample): _grid_sampler.
    - torch.slogdet, logdet, det and their torch.linalg names (Glow's
      invertible 1x1 convolution): _slogdet.
    The check's eager step keeps PyTorch's own functions: the reference."""
    with _attributes_replaced([
            (torch, "affine_grid_generator", torch_decompositions[aten.affine_grid_generator.default]),
            (torch, "grid_sampler", _grid_sampler),
            (torch, "slogdet", _slogdet), (torch.linalg, "slogdet", _slogdet),
            (torch, "logdet", _logdet), (torch, "det", _det), (torch.linalg, "det", _det)]):
        yield


@contextlib.contextmanager
def _attributes_replaced(replacements):
    """(module, name, value) set while the context lasts, restored after."""
    originals = [(module, name, getattr(module, name)) for module, name, _ in replacements]
    for module, name, value in replacements:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in originals:
            setattr(module, name, value)


SLOGDET_MAX_SIZE = 256


def _slogdet(A):
    """(sign, log|det A|) of square matrices (a batch of them) by Gaussian
    elimination with partial pivoting, unrolled over the columns: each step
    swaps the largest remaining pivot up (a permutation matrix from a
    one-hot of the argmax, so the data choose it in the graph) and
    eliminates below it.  Its autograd gives log|det|'s gradient, A^-T
    (torch-mlir lowers neither aten._linalg_slogdet nor the LU solves of
    its backward).  C steps of O(C^2) elementwise work: up to
    SLOGDET_MAX_SIZE columns."""
    from . import UserError
    n = A.shape[-1]
    if A.dim() < 2 or A.shape[-2] != n:
        raise UserError(f"slogdet of a {list(A.shape)} tensor: square matrices only")
    if n > SLOGDET_MAX_SIZE:
        raise UserError(f"slogdet of {n}x{n} matrices: the importer unrolls the elimination up to "
                        f"{SLOGDET_MAX_SIZE} columns")
    rows = torch.arange(n)
    eye = torch.eye(n, dtype=A.dtype)
    sign = torch.ones(A.shape[:-2], dtype=A.dtype)
    logabs = torch.zeros(A.shape[:-2], dtype=A.dtype)
    for k in range(n):
        column = A[..., :, k].abs().masked_fill(rows < k, -1.0)
        pivot = column.argmax(-1, keepdim=True)                        # [..., 1]
        e_p = (rows == pivot).to(A.dtype)                   # [..., n]
        e_k = eye[k].expand_as(e_p)
        swap = eye - e_k.unsqueeze(-1) * e_k.unsqueeze(-2) - e_p.unsqueeze(-1) * e_p.unsqueeze(-2) \
            + e_k.unsqueeze(-1) * e_p.unsqueeze(-2) + e_p.unsqueeze(-1) * e_k.unsqueeze(-2)
        A = swap @ A
        sign = torch.where(pivot.squeeze(-1) == k, sign, -sign)
        u = A[..., k, k]
        sign = sign * torch.sign(u)
        logabs = logabs + u.abs().log()
        if k + 1 < n:
            below = (rows > k).to(A.dtype)
            factors = A[..., :, k] / u.unsqueeze(-1) * below           # [..., n]
            A = A - factors.unsqueeze(-1) * A[..., k, :].unsqueeze(-2)
    return torch.return_types.slogdet((sign, logabs))


def _logdet(A):
    sign, logabs = _slogdet(A)
    return torch.where(sign < 0, torch.full_like(logabs, float("nan")),
                       torch.where(sign == 0, torch.full_like(logabs, float("-inf")), logabs))


def _det(A):
    sign, logabs = _slogdet(A)
    return sign * logabs.exp()


def _grid_source_index(coords, size, padding_mode, align_corners):
    """grid coordinates in [-1, 1] to input positions, with PyTorch's
    border (clamp) or reflection padding (ATen's grid_sampler rules, as
    torch._decomp's grid_sampler_2d computes them)."""
    scale = (size - 1) / 2 if align_corners else size / 2
    pos = coords * scale + (size - 1) / 2
    if padding_mode == 1:
        return pos.clamp(0, size - 1)
    if padding_mode == 2:
        low, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
        if span <= 0:
            return torch.zeros_like(pos)
        # fmod and remainder by scalars leave torch.constant.float behind
        dist = (pos - low).abs()
        flips = (dist / span).floor()
        extra = dist - flips * span
        odd = flips - (flips / 2).floor() * 2 == 1
        return torch.where(odd, span + low - extra, extra + low).clamp(0, size - 1)
    return pos


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """F.grid_sample of an image (bilinear or nearest) as one interpolation
    matrix per sample: out[n, c] = M[n] @ x[n, c] over the flattened plane,
    M[n][p, q] the weight of input position q in output position p (a
    one-hot of each corner times its weight; zero outside the image).  Its
    derivative is the autograd of these ops: a matmul for the input,
    through the weights for the grid (ATen's grid_sampler_2d_backward is not
    lowered by torch-mlir; spatial transformers, flow warping).  N * P * Q
    matrix elements, against (N C P) x (N C Q) for the gather PyTorch's
    decomposition has, whose backward is an index_put over all of x; up to
    SELECTION_ELEMENTS, beyond (and bicubic, 5-D): PyTorch's decomposition
    or ATen's op."""
    if input.dim() != 4:
        return _grid_sampler.original(input, grid, interpolation_mode, padding_mode, align_corners)
    n, c, h, w = input.shape
    p = grid.shape[1] * grid.shape[2]
    if interpolation_mode not in (0, 1) or n * p * h * w > SELECTION_ELEMENTS:
        return torch_decompositions[aten.grid_sampler_2d.default](
            input, grid, interpolation_mode, padding_mode, align_corners)
    ix = _grid_source_index(grid[..., 0].reshape(n, p), w, padding_mode, align_corners)
    iy = _grid_source_index(grid[..., 1].reshape(n, p), h, padding_mode, align_corners)
    if interpolation_mode == 0:
        x0, y0 = ix.floor(), iy.floor()
        x1, y1 = x0 + 1, y0 + 1
        corners = [(x0, y0, (x1 - ix) * (y1 - iy)), (x1, y0, (ix - x0) * (y1 - iy)),
                   (x0, y1, (x1 - ix) * (iy - y0)), (x1, y1, (ix - x0) * (iy - y0))]
    else:  # nearest: round half to even, as ATen's nearbyint
        corners = [(ix.round(), iy.round(), torch.ones_like(ix))]
    positions = torch.arange(h * w, dtype=torch.int64)
    m = None
    for cx, cy, weight in corners:
        inside = (cx >= 0) & (cx <= w - 1) & (cy >= 0) & (cy <= h - 1)
        flat = (cy.clamp(0, h - 1) * w + cx.clamp(0, w - 1)).to(torch.int64)
        weight = torch.where(inside, weight, torch.zeros((), dtype=weight.dtype))
        term = torch.where(flat.unsqueeze(-1) == positions, weight.unsqueeze(-1),
                           torch.zeros((), dtype=weight.dtype))
        m = term if m is None else m + term
    out = input.reshape(n, c, h * w) @ m.transpose(1, 2).to(input.dtype)
    return out.reshape(n, c, grid.shape[1], grid.shape[2])


_grid_sampler.original = torch.grid_sampler


@contextlib.contextmanager
def _all_stack_frames():
    """make_fx records in each node's stack trace only the frames of
    functions named `forward`, so an op issued in a helper the forward calls
    (transformers' experts functions, a model's own helpers) was located at
    the forward's line that called it, not at the op's own line.  The FX
    tracer's other filter keeps every frame from the first forward on;
    errors and --debug-info locations then name the innermost model line.
    (A private flag of torch.fx: without it, nothing changes.)"""
    from torch.fx.proxy import TracerBase
    original = TracerBase.__dict__.get("_filter_traceback_frames")
    if original is None or not hasattr(TracerBase, "_record_forward_stack_traces_only"):
        yield
        return

    def filter_frames(self, summary):
        forward_only = self._record_forward_stack_traces_only
        self._record_forward_stack_traces_only = False
        try:
            return original(self, summary)
        finally:
            self._record_forward_stack_traces_only = forward_only

    TracerBase._filter_traceback_frames = filter_frames
    try:
        yield
    finally:
        TracerBase._filter_traceback_frames = original


@contextlib.contextmanager
def functions_as_forward():
    """Custom autograd.Functions run their forward, differentiated by the
    transforms (the traced step, and eager_step, its reference); checkpointed
    functions are called directly (_checkpoints_inlined)."""
    with _functions_applied(_forward_only), _checkpoints_inlined():
        yield


@contextlib.contextmanager
def _checkpoints_inlined():
    """torch.utils.checkpoint(fn, *args) (and checkpoint_sequential, and
    transformers' gradient checkpointing, which call it) becomes fn(*args).
    Checkpointing trades memory for a second forward in PyTorch's autograd
    and changes no value or gradient; in the compiled step what the backward
    keeps or recomputes is mpt's decision (--mpt-recompute-in-backward).
    Left in, the non-reentrant form fails under torch.func.vjp (saved tensor
    hooks) and the reentrant one is an autograd.Function whose forward runs
    without grad.  Every public entry point calls the private
    _checkpoint_impl by its global name, so one patch covers them however
    the model imported `checkpoint`."""
    import torch.utils.checkpoint as checkpoint_module
    if not hasattr(checkpoint_module, "_checkpoint_impl"):  # another torch: checkpoints stay
        yield
        return

    def call(function, args, kwargs, **_options):
        return function(*args, **kwargs)

    with _attributes_replaced([(checkpoint_module, "_checkpoint_impl", call)]):
        yield


@contextlib.contextmanager
def check_functions():
    """While the model runs eagerly with autograd: every custom
    autograd.Function call also compares the Function's own backward with
    autograd's derivative of its forward.  functorch's functionalize, which
    traces the step, has no rule for autograd.Function (old-style ones are
    refused even earlier), so the step differentiates the forward; that is
    the Function's gradient only when its backward is that derivative (a
    hand-written GeLU backward, BLOOM's, is; a straight-through estimator is
    not, and is one error naming the Function and the model line)."""
    with _functions_applied(_checked), _checkpoints_inlined():
        yield


@contextlib.contextmanager
def _functions_applied(how):
    original = torch.autograd.Function.__dict__["apply"]

    def apply(cls, *args, **kwargs):
        return how(cls, lambda *a, **k: original.__get__(None, cls)(*a, **k), *args, **kwargs)

    torch.autograd.Function.apply = classmethod(apply)
    try:
        yield
    finally:
        torch.autograd.Function.apply = original


class _ForwardContext:
    """The ctx an old-style forward (forward(ctx, ...), BLOOM's GeLUFunction)
    gets when only its output is wanted."""

    def __init__(self, n_inputs):
        self.needs_input_grad = (True,) * n_inputs

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass


def _forward_only(cls, apply, *args, **kwargs):
    from torch.autograd.function import _is_setup_context_defined
    if _is_setup_context_defined(cls.setup_context):
        return cls.forward(*args, **kwargs)
    return cls.forward(_ForwardContext(len(args)), *args, **kwargs)


def _checked(cls, apply, *args, **kwargs):
    out = apply(*args, **kwargs)
    if not torch.is_grad_enabled():
        return out
    # Detached copies: the check leaves the model's own graph alone.
    inputs = [a.detach().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point()
              and a.requires_grad else a for a in args]
    leaves = [a for a, orig in zip(inputs, args) if a is not orig]
    if not leaves:
        return out
    with torch.enable_grad():
        own = apply(*inputs, **kwargs)
        derived = _forward_only(cls, apply, *inputs, **kwargs)
    own, derived = ((o,) if isinstance(o, torch.Tensor) else tuple(o) for o in (own, derived))
    pairs = [(o, d) for o, d in zip(own, derived)
             if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad and d.requires_grad]
    if not pairs:
        return out
    gen = torch.Generator().manual_seed(0)
    cot = [torch.randn(o.shape, generator=gen, dtype=o.dtype) for o, _ in pairs]
    g_own = torch.autograd.grad([o for o, _ in pairs], leaves, cot, allow_unused=True)
    g_der = torch.autograd.grad([d for _, d in pairs], leaves, cot, allow_unused=True)
    for a, b in zip(g_own, g_der):
        a = torch.zeros_like(b) if a is None and b is not None else a
        b = torch.zeros_like(a) if b is None and a is not None else b
        # f32 rounding of two formulas of one derivative: relative 1e-4 of
        # the gradient's size.
        if a is not None and (a - b).abs().max() > 1e-4 * max(1.0, float(b.abs().max())):
            from . import UserError
            raise UserError(f"autograd.Function {cls.__name__}{_caller_line()} has a backward that is not the "
                            f"derivative of its forward (a straight-through estimator?): the traced step "
                            f"differentiates the forward, so it cannot import this Function")
    return out


def _caller_line():
    """' at FILE:LINE' of the model line that called apply."""
    import traceback
    from .stitch import is_library_path
    for frame in reversed(traceback.extract_stack()[:-2]):
        if not is_library_path(frame.filename):
            return f" at {frame.filename}:{frame.lineno} ({frame.line})"
    return ""


def _ntuple(v, n):
    """A convolution parameter (an int, or a list of one or n) as n values."""
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v * n if len(v) == 1 else v


_CONV_ND = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _pair(v, default=None):
    if v is None or len(v) == 0:
        return default
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _zero_insert_and_pad(c, offsets, strides, sizes):
    """Put c[n, k, i, j, ...] at [o_0 + i*s_0, o_1 + j*s_1, ...] of a zero
    [n, k, *sizes] map (zero insertion, crop, pad)."""
    lead = c.dim() - len(sizes)
    for d, st in enumerate(strides):
        if st > 1:
            axis = lead + d
            shape = list(c.shape)
            shape[axis] *= st
            c = torch.stack([c] + [torch.zeros_like(c)] * (st - 1), dim=axis + 1).reshape(shape)
    c = c[(Ellipsis, *(slice(0, min(c.shape[lead + d], sizes[d] - o)) for d, o in enumerate(offsets)))]
    pads = []
    for d in reversed(range(len(sizes))):
        pads += [offsets[d], sizes[d] - offsets[d] - c.shape[lead + d]]
    return F.pad(c, pads)


def _per_dim(v, spatial, default):
    """A pooling argument (kernel_size, stride, padding, dilation) as one
    value per spatial dimension; empty means `default`."""
    v = list(v) if v is not None and len(v) else list(default)
    return v * spatial if len(v) == 1 else v


def _max_pool_backward(spatial, grad_output, self, kernel_size, stride, padding, dilation):
    """For every kernel offset, the strided view of the (-inf padded) input is
    compared with the window maximum; the first offset (row-major, as
    PyTorch's CPU kernel) that attains it gets the output gradient, placed
    back by zero insertion and pad.  Exact PyTorch semantics, no scatter."""
    kernel = _per_dim(kernel_size, spatial, ())
    strides = _per_dim(stride, spatial, kernel)
    pads = _per_dim(padding, spatial, [0])
    dilations = _per_dim(dilation, spatial, [1])
    squeeze = self.dim() == spatial + 1
    if squeeze:
        self, grad_output = self.unsqueeze(0), grad_output.unsqueeze(0)
    sizes = list(self.shape[2:])
    out_sizes = list(grad_output.shape[2:])
    padded = [max(n + 2 * p, (no - 1) * st + (k - 1) * dl + 1)
              for n, no, k, st, p, dl in zip(sizes, out_sizes, kernel, strides, pads, dilations)]
    border = []
    for d in reversed(range(spatial)):
        border += [pads[d], padded[d] - sizes[d] - pads[d]]
    xp = F.pad(self, border, value=float("-inf"))
    offs = [tuple(i * dl for i, dl in zip(index, dilations))
            for index in itertools.product(*(range(k) for k in kernel))]
    wins = [xp[(Ellipsis, *(slice(o, o + (no - 1) * st + 1, st) for o, no, st in zip(off, out_sizes, strides)))]
            for off in offs]
    m = wins[0]
    for win in wins[1:]:
        m = torch.maximum(m, win)
    taken = torch.zeros_like(m, dtype=torch.bool)
    zero = torch.zeros_like(grad_output)
    gp = None
    for off, win in zip(offs, wins):
        sel = (win == m) & ~taken
        taken = taken | sel
        part = _zero_insert_and_pad(torch.where(sel, grad_output, zero), off, strides, padded)
        gp = part if gp is None else gp + part
    g = gp[(Ellipsis, *(slice(p, p + n) for p, n in zip(pads, sizes)))]
    return g.squeeze(0) if squeeze else g


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    """nn.MaxPool2d: _max_pool_backward."""
    return _max_pool_backward(2, grad_output, self, kernel_size, stride, padding, dilation)


def max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    """nn.MaxPool3d (torch-mlir lowers the forward, not this):
    _max_pool_backward."""
    return _max_pool_backward(3, grad_output, self, kernel_size, stride, padding, dilation)


def _avg_pool_divisors(sizes, out_sizes, kernel, stride, padding, count_include_pad, divisor_override):
    """PyTorch's divisor of every output position, [*out_sizes]
    (aten/src/ATen/native/cpu/AvgPoolKernel.cpp): a window is a box, so its
    divisor is the product of its extents along each dimension, cut at the
    padded border (ceil_mode), and without the padding unless counted."""
    if divisor_override:
        return torch.full(out_sizes, float(divisor_override))
    div = torch.ones(())
    for n, no, k, st, p in zip(sizes, out_sizes, kernel, stride, padding):
        extents = []
        for o in range(no):
            lo = o * st - p
            hi = min(lo + k, n + p)
            extents.append(float(hi - lo if count_include_pad else min(hi, n) - max(lo, 0)))
        div = div.unsqueeze(-1) * torch.tensor(extents)
    return div


def _avg_pool_backward(spatial, grad_output, self, kernel_size, stride, padding, count_include_pad,
                       divisor_override):
    """Each output gradient divided by its window's divisor (a constant map
    over the output positions: ceil_mode windows are cut at the padded
    border, and with count_include_pad=False padding is not counted), then
    added back to every input of its window: per kernel offset, zero
    insertion + pad.  torch has no decomposition; torch-mlir's lowering of
    avg_pool2d_backward fails on torch.constant.int, and it has none for
    avg_pool3d_backward."""
    kernel = _per_dim(kernel_size, spatial, ())
    strides = _per_dim(stride, spatial, kernel)
    pads = _per_dim(padding, spatial, [0])
    squeeze = self.dim() == spatial + 1
    if squeeze:
        self, grad_output = self.unsqueeze(0), grad_output.unsqueeze(0)
    sizes = list(self.shape[2:])
    out_sizes = list(grad_output.shape[2:])
    with disable_proxy_modes_tracing():  # a constant of the graph, not traced ops
        div = _avg_pool_divisors(sizes, out_sizes, kernel, strides, pads, count_include_pad,
                                 divisor_override).to(grad_output.dtype)
    g = grad_output / div
    padded = [max(n + 2 * p, (no - 1) * st + k)
              for n, no, k, st, p in zip(sizes, out_sizes, kernel, strides, pads)]
    gp = None
    for offsets in itertools.product(*(range(k) for k in kernel)):
        part = _zero_insert_and_pad(g, offsets, strides, padded)
        gp = part if gp is None else gp + part
    out = gp[(Ellipsis, *(slice(p, p + n) for p, n in zip(pads, sizes)))]
    return out.squeeze(0) if squeeze else out


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    """nn.AvgPool2d: _avg_pool_backward."""
    return _avg_pool_backward(2, grad_output, self, kernel_size, stride, padding, count_include_pad,
                              divisor_override)


def avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    """nn.AvgPool3d, and nn.LocalResponseNorm (an avg_pool3d of the squares
    across channels): _avg_pool_backward."""
    return _avg_pool_backward(3, grad_output, self, kernel_size, stride, padding, count_include_pad,
                              divisor_override)


def replication_pad_backward(grad_output, self, padding):
    """The gradient of a replicate padding (padding in F.pad's order, last
    dimension first): per padded dimension, the inner part of the gradient
    plus the sums of its padded ends added to the first and last inner
    positions (the inputs that were replicated). Replicate padding is one
    dimension after another, so is its gradient. torch has no
    decomposition and torch-mlir no lowering (nn.ReplicationPad1d/2d/3d,
    F.pad(mode="replicate"))."""
    g = grad_output
    for i in range(len(padding) // 2):
        axis = g.dim() - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        n = self.shape[axis]
        # A negative pad crops: the cropped inputs get no gradient.
        inner = g.narrow(axis, max(lo, 0), g.shape[axis] - max(lo, 0) - max(hi, 0))
        inner = F.pad(inner.movedim(axis, -1), (max(-lo, 0), max(-hi, 0))).movedim(-1, axis)
        if lo > 0:
            edge = g.narrow(axis, 0, lo).sum(axis, keepdim=True)
            inner = inner + F.pad(edge.movedim(axis, -1), (0, n - 1)).movedim(-1, axis)
        if hi > 0:
            edge = g.narrow(axis, g.shape[axis] - hi, hi).sum(axis, keepdim=True)
            inner = inner + F.pad(edge.movedim(axis, -1), (n - 1, 0)).movedim(-1, axis)
        g = inner
    return g


def _adaptive_pool_matrix(n_in, n_out, dtype):
    """[n_out, n_in]: row i averages PyTorch's adaptive window i,
    [floor(i*n_in/n_out), ceil((i+1)*n_in/n_out))."""
    m = torch.zeros(n_out, n_in, dtype=dtype)
    for i in range(n_out):
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d_backward(grad_output, self):
    """The adaptive average pool is separable, out = A_h @ x @ A_w^T with
    constant averaging matrices, so its backward is A_h^T @ g @ A_w: two
    matmuls (torch has no decomposition; torch-mlir cannot lower it when the
    output is larger than 1x1, e.g. VGG's 7x7 pool of a 1x1 map)."""
    if tuple(grad_output.shape[-2:]) == (1, 1):
        return NotImplemented  # a global average pool: torch-mlir lowers it
    return _adaptive_avg_pool_backward(2, grad_output, self)


def adaptive_avg_pool3d_backward(grad_output, self):
    """nn.AdaptiveAvgPool3d, and F.interpolate(mode="area") of a volume
    (torch-mlir has no lowering): _adaptive_avg_pool_backward."""
    return _adaptive_avg_pool_backward(3, grad_output, self)


def _adaptive_avg_pool_backward(spatial, grad_output, self):
    """The pool's constant averaging matrices: _separable_linear_backward."""
    sizes, out_sizes = self.shape[-spatial:], grad_output.shape[-spatial:]
    with disable_proxy_modes_tracing():  # constants of the graph
        mats = [_adaptive_pool_matrix(n, no, grad_output.dtype) for n, no in zip(sizes, out_sizes)]
    return _separable_linear_backward(grad_output, mats)


def _separable_linear_backward(grad_output, mats):
    """The gradient of out = x multiplied by A_d [o_d, n_d] along each of
    its last len(mats) dimensions: A^T @ g along each, the leading ones
    (a volume's depth) by a transposed matmul, then A_h^T @ g @ A_w."""
    with disable_proxy_modes_tracing():  # a constant of the graph, not a traced transpose
        a_h_t = mats[-2].t().contiguous()
    g = grad_output
    spatial = len(mats)
    for d in range(spatial - 2):
        axis = g.dim() - spatial + d
        g = (g.transpose(axis, -1) @ mats[d]).transpose(axis, -1)
    return a_h_t @ g @ mats[-1]


def _adaptive_max_pool_backward(spatial, grad_output, self, indices):
    """The gradient goes to the input position each output took its maximum
    from: `indices` (flat over the pooled plane or volume, from the
    forward), a scatter_add over the flattened plane (torch-mlir cannot
    lower adaptive_max_pool2d/3d_backward: `nn.AdaptiveMaxPool2d`, spatial
    pyramid pooling).  Outputs that share an argmax add up, as in ATen's
    kernel."""
    plane = math.prod(self.shape[-spatial:])
    zeros = torch.zeros(*self.shape[:-spatial], plane, dtype=grad_output.dtype)
    grad = scatter_add(zeros, zeros.dim() - 1, indices.flatten(-spatial), grad_output.flatten(-spatial))
    return grad if grad is NotImplemented else grad.reshape(self.shape)


def adaptive_max_pool2d_backward(grad_output, self, indices):
    return _adaptive_max_pool_backward(2, grad_output, self, indices)


def adaptive_max_pool3d_backward(grad_output, self, indices):
    return _adaptive_max_pool_backward(3, grad_output, self, indices)


def _upsample_backward(forward, grad_output, output_size, input_size, scales, *mode):
    """An upsampling is separable and linear: out = x multiplied by A_d along
    each spatial dimension (2-D: A_h @ x @ A_w^T), so its backward is
    _separable_linear_backward, matmuls. The matrices are the forward op
    itself applied to unit vectors along one dimension at a time, in eager
    mode (constants of the graph): PyTorch's own source indices and weights
    for the sizes, scales and align_corners given. In 2-D the matmuls do
    H*OH*OW + H*OW*W multiply-adds per channel where a scatter does
    4*OH*OW (at 64x64 -> 128x128, 48x as many), which the matmul kernels
    make up for at training sizes; nearest upsampling's backward by a whole
    multiple is torch-mlir's."""
    spatial = len(output_size)
    mats = []
    with disable_proxy_modes_tracing():
        for d, (n, o) in enumerate(zip(input_size[-spatial:], output_size)):
            unit = [n if i == d else 1 for i in range(spatial)]
            eye = torch.eye(n, dtype=grad_output.dtype).reshape(n, 1, *unit)
            sizes = [o if i == d else 1 for i in range(spatial)]
            along = [scales[i] if i == d else None for i in range(spatial)]
            mats.append(forward(eye, sizes, *mode, *along).reshape(n, o).t().contiguous())  # [o, n]
    return _separable_linear_backward(grad_output, mats)


def upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h=None,
                                 scales_w=None):
    """Bilinear upsampling's backward (segmentation heads, FPNs: DeepLab's
    F.interpolate), which torch-mlir does not legalize: _upsample_backward."""
    return _upsample_backward(aten.upsample_bilinear2d.default, grad_output, output_size, input_size,
                              (scales_h, scales_w), align_corners)


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    """Nearest upsampling's backward to a size that is not a whole multiple
    of the input's (7 -> 10): _upsample_backward. torch-mlir's lowering
    sends some gradients to the wrong input rows there (a loss through amax
    was off by 2.5e-2 against eager); whole multiples keep it (a sum of
    strided views, cheaper than the matmuls)."""
    h, w = input_size[-2:]
    oh, ow = output_size
    whole = (oh % h == 0 and ow % w == 0 and scales_h in (None, oh // h) and scales_w in (None, ow // w))
    if whole:
        return NotImplemented
    return _upsample_backward(aten.upsample_nearest2d.default, grad_output, output_size, input_size,
                              (scales_h, scales_w))


def upsample_bicubic2d_backward(grad_output, output_size, input_size, align_corners, scales_h=None,
                                scales_w=None):
    """Bicubic upsampling's backward (F.interpolate(mode="bicubic"); the
    forward is PyTorch's decomposition): _upsample_backward. Its clamped
    border taps repeat an index, which the matrices sum as the scatter does."""
    return _upsample_backward(aten.upsample_bicubic2d.default, grad_output, output_size, input_size,
                              (scales_h, scales_w), align_corners)


def upsample_trilinear3d_backward(grad_output, output_size, input_size, align_corners, scales_d=None,
                                  scales_h=None, scales_w=None):
    """Trilinear upsampling's backward (3-D segmentation decoders; the
    forward is PyTorch's decomposition): _upsample_backward."""
    return _upsample_backward(aten.upsample_trilinear3d.default, grad_output, output_size, input_size,
                              (scales_d, scales_h, scales_w), align_corners)


def upsample_nearest3d_backward(grad_output, output_size, input_size, scales_d=None, scales_h=None,
                                scales_w=None):
    """Nearest upsampling of a volume (torch-mlir lowers the forward, not
    this): _upsample_backward."""
    return _upsample_backward(aten.upsample_nearest3d.default, grad_output, output_size, input_size,
                              (scales_d, scales_h, scales_w))


def erfinv(x):
    """torch.erfinv (torch's decomposition is prims.erf_inv, which torch-mlir
    does not lower): Giles' single-precision polynomial ("Approximating the
    erfinv function", GPU Computing Gems, 2011; relative error about 4e-7),
    then two Newton steps on erf(y) = x, which take it to the dtype's
    rounding (PyTorch's CPU kernel refines its rational approximation the
    same way). +-1 give +-inf and |x| > 1 NaN, as PyTorch."""
    w = -torch.log((1 - x) * (1 + x))
    central, tail = w - 2.5, torch.sqrt(w) - 3
    p = torch.full_like(x, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * central
    q = torch.full_like(x, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * tail
    y = torch.where(w < 5, p, q) * x
    inside = torch.abs(x) < 1
    for _ in range(2):
        step = (torch.erf(y) - x) / (1.1283791670955126 * torch.exp(-y * y))
        y = torch.where(inside, y - step, y)
    # At +-1 the tail polynomial of an infinite w has the wrong sign.
    return torch.where(torch.abs(x) == 1, x * float("inf"), y)


def cdist_forward(x1, x2, p, compute_mode=None):
    """torch.cdist where PyTorch does not take its matmul form (p != 2, or
    at most 25 rows per side): the p-norm of every row difference, as an
    [..., P, R, M] tensor (torch-mlir lowers neither _cdist_forward nor its
    backward)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 0:
        return (diff != 0).sum(-1).to(x1.dtype)
    if p == 1:
        return diff.abs().sum(-1)
    if p == 2:
        return torch.sqrt((diff * diff).sum(-1))
    if math.isinf(p):
        return diff.abs().amax(-1)
    return (diff.abs() ** p).sum(-1) ** (1.0 / p)


def cdist_backward(grad_output, x1, x2, p, cdist):
    """The gradient of cdist for x1, as PyTorch's kernel
    (aten/src/ATen/native/Distance.cpp): per pair, sign(d) |d|^(p-1) /
    dist^(p-1) times the pair's gradient, zero where the distance is zero;
    p = inf sends it to every coordinate that attains the maximum; summed
    over x2's rows. (x2's gradient is this with the operands swapped.)"""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    g = grad_output.unsqueeze(-1)
    dist = cdist.unsqueeze(-1)
    zero = torch.zeros_like(diff)
    if p == 0:
        return torch.zeros_like(x1)
    if p == 1:
        term = torch.sign(diff)
    elif p == 2:
        term = torch.where(dist == 0, zero, diff / dist)
    elif math.isinf(p):
        term = torch.sign(diff) * (diff.abs() == dist).to(diff.dtype)
    else:
        term = torch.sign(diff) * diff.abs() ** (p - 1) / dist ** (p - 1)
        term = torch.where((dist == 0) | (diff == 0), zero, term)
    return (g * term).sum(-2).sum_to_size(x1.shape)


def _conv2d_geometry(input, weight, stride, padding, dilation, groups):
    """A 2-D convolution's shapes and parameters: the input's (N, C, H, W),
    the weight's (F, C/groups, KH, KW), filters per group, and the stride,
    padding and dilation as pairs."""
    f = weight.shape[0]
    return (tuple(input.shape), tuple(weight.shape), f // groups, _pair(stride), _pair(padding),
            _pair(dilation))


def _pad_or_crop(x, dim, before, after):
    """Zero padding of `dim` by (before, after); a negative amount crops."""
    if before < 0:
        x = x.narrow(dim, -before, x.shape[dim] + before)
        before = 0
    if after < 0:
        x = x.narrow(dim, 0, x.shape[dim] + after)
        after = 0
    if before or after:
        pads = [0, 0] * (x.dim() - 1 - dim) + [before, after]
        x = F.pad(x, pads)
    return x


def constant_pad_nd(self, pad, value=0):
    """Constant padding with a negative amount somewhere: crop those sides
    first (slices), then pad the rest.  A negative pad is what the backward
    of any constant padding is (Swin's window padding: autograd pads its
    gradient by the negated amounts), and torch-mlir lowers it to a
    tensor.pad with negative high padding, which is invalid IR that fails
    only when run.  Non-negative pads are left to torch-mlir."""
    if all(p >= 0 for p in pad):
        return NotImplemented
    x = self
    # pad lists (before, after) pairs from the last dimension backwards.
    for k in range(len(pad) // 2):
        x = _pad_or_crop(x, self.dim() - 1 - k, min(pad[2 * k], 0), min(pad[2 * k + 1], 0))
    rest = [max(p, 0) for p in pad]
    return F.pad(x, rest, value=value) if any(rest) else x.clone()


def cumsum(self, dim, dtype=None):
    """Prefix sum in ceil(log2 n) shifted additions (Hillis-Steele): x +=
    x shifted by 1, 2, 4, ... along `dim` (zeros shifted in).  torch-mlir
    lowers cumsum to tm_tensor.scan, outside upstream MLIR (HF position ids
    from a padding mask: Longformer, RoBERTa).  Integers are exact; floats
    are summed in another order than the sequential kernel (error ~log2(n)
    ulp, not n)."""
    return _prefix(self, dim, dtype, torch.add, 0)


def cumprod(self, dim, dtype=None):
    """Prefix product by _scan (torch-mlir: tm_tensor.scan); floats are
    multiplied in another order than the sequential kernel."""
    return _prefix(self, dim, dtype, torch.mul, 1)


def _prefix(self, dim, dtype, combine, identity):
    """cumsum / cumprod: the dtype as torch promotes it (integers and bool
    to int64), then _scan."""
    if dtype is None and not (self.is_floating_point() or self.is_complex()):
        dtype = torch.int64
    x = self.to(dtype) if dtype is not None and dtype != self.dtype else self
    return x.clone() if x.dim() == 0 else _scan(x, dim % x.dim(), combine, identity)


def _scan(x, dim, combine, identity):
    """Inclusive scan in ceil(log2 n) steps (Hillis-Steele): each step
    combines every element with the one `shift` before it (`identity`
    shifted in).  `combine(earlier, later)` must be associative; x is a
    tensor, or a tuple of tensors of one shape combined together (combine
    then takes and returns tuples).  Returns new tensors, never x's."""
    tupled = isinstance(x, tuple)
    parts, idents = (x, identity) if tupled else ((x,), (identity,))
    n, shift = parts[0].shape[dim], 1
    if n <= 1:
        return tuple(t.clone() for t in parts) if tupled else x.clone()
    while shift < n:
        pad = list(parts[0].shape)
        pad[dim] = shift
        earlier = tuple(torch.cat([t.new_full(pad, v), t.narrow(dim, 0, n - shift)], dim)
                        for t, v in zip(parts, idents))
        parts = combine(earlier, parts) if tupled else (combine(earlier[0], parts[0]),)
        shift *= 2
    return parts if tupled else parts[0]


def logcumsumexp(self, dim):
    """log(cumsum(exp(x))) by _scan of log-add-exp (torch-mlir:
    tm_tensor.scan): max + log1p(exp(min - max)), equal operands (both
    infinite too) max + log 2, NaN propagated."""
    if not self.is_floating_point() or self.dim() == 0:
        return NotImplemented

    def log_add_exp(a, b):
        high, low = torch.maximum(a, b), torch.minimum(a, b)
        return torch.where(low == high, high + 0.6931471805599453, high + torch.log1p(torch.exp(low - high)))
    return _scan(self, dim % self.dim(), log_add_exp, float("-inf"))


def _cumulative_extreme(self, dim, greater):
    """cummax / cummin by _scan of (value, index) pairs with ATen's rule: a
    later element wins if it is NaN, or if the running value is not NaN and
    the element is >= (cummax) / <= (cummin) it (ties: the last index)."""
    if self.dim() == 0 or self.is_complex():
        return NotImplemented
    dim = dim % self.dim()
    shape = [1] * self.dim()
    shape[dim] = self.shape[dim]
    index = torch.arange(self.shape[dim], dtype=torch.int64).view(shape).expand(self.shape)
    if self.is_floating_point():
        worst, isnan = (float("-inf") if greater else float("inf")), torch.isnan
    else:
        info = torch.iinfo(self.dtype)
        worst, isnan = (info.min if greater else info.max), (lambda t: torch.zeros_like(t, dtype=torch.bool))

    def combine(earlier, later):
        (v0, i0), (v1, i1) = earlier, later
        wins = isnan(v1) | (~isnan(v0) & ((v1 >= v0) if greater else (v1 <= v0)))
        return torch.where(wins, v1, v0), torch.where(wins, i1, i0)
    return _scan((self, index), dim, combine, (worst, -1))


def cummax(self, dim):
    return _cumulative_extreme(self, dim, greater=True)


def cummin(self, dim):
    return _cumulative_extreme(self, dim, greater=False)


# Largest comparison tensor (rows x n x n, or index elements x n for a
# scatter) the selection decompositions below build at once: 2^24 elements.
# Beyond it the op is left to the importer's error (top-k over a vocabulary
# would need n^2 per row).  MPT_IMPORT_SELECTION_ELEMENTS overrides it.
SELECTION_ELEMENTS = int(os.environ.get("MPT_IMPORT_SELECTION_ELEMENTS", 1 << 24))


def _rank_select(self, k, dim, largest):
    """The k first of `self` along `dim` in order (largest or smallest
    first) and their indices, by ranks instead of a sort: element i's rank
    is the number of elements j that come before it (a greater key, or an
    equal key and j < i; NaN is the greatest key, as torch.topk and
    torch.sort order it), and the element of rank r is picked by a one-hot
    of the ranks.  torch-mlir lowers topk and sort only to tm_tensor.sort
    (outside upstream MLIR); comparisons, sums and a gather are upstream
    linalg.  Exact: the values are gathered, not computed.  Costs n^2
    comparisons per row: for the short rows of a mixture of experts' router
    (top-2 of 8 experts), not for a vocabulary."""
    if self.dim() == 0 or self.is_complex():
        return NotImplemented
    dim = dim % self.dim()
    n = self.shape[dim]
    if k > n or self.numel() * n > SELECTION_ELEMENTS:
        return NotImplemented
    x = self.movedim(dim, -1)
    rank, position = _ranks(x, largest)
    picked = rank.unsqueeze(-2) == torch.arange(k, dtype=torch.int64).view(k, 1)  # [.., r, i]
    indices = torch.where(picked, position, 0).sum(-1)  # [.., r]
    values = torch.gather(x, -1, indices)
    return values.movedim(-1, dim), indices.movedim(-1, dim)


def _ranks(x, largest):
    """Each element's rank along the last dimension (_rank_select), and the
    positions 0..n-1."""
    n = x.shape[-1]
    xi, xj = x.unsqueeze(-1), x.unsqueeze(-2)          # [.., i, 1], [.., 1, j]
    if x.is_floating_point():
        nan_i, nan_j = xi.isnan(), xj.isnan()
    else:
        nan_i = nan_j = torch.zeros((), dtype=torch.bool)
    if largest:
        first = (xj > xi) | (nan_j & ~nan_i)
    else:
        first = (xj < xi) | (nan_i & ~nan_j)
    position = torch.arange(n, dtype=torch.int64)
    tie = ((xj == xi) | (nan_j & nan_i)) & (position.view(1, n) < position.view(n, 1))
    return (first | tie).sum(-1), position              # [.., i]: a permutation of 0..n-1


def _pick_rank(self, dim, keepdim, target):
    """The element of rank `target(n, nan_count)` (a per-row tensor, smallest
    first, NaN last) along `dim` and its index: kthvalue and the medians."""
    if self.dim() == 0 or self.is_complex():
        return NotImplemented
    dim = dim % self.dim()
    n = self.shape[dim]
    if self.numel() * n > SELECTION_ELEMENTS:
        return NotImplemented
    x = self.movedim(dim, -1)
    rank, position = _ranks(x, largest=False)
    nans = x.isnan().sum(-1, keepdim=True) if self.is_floating_point() else torch.zeros_like(rank[..., :1])
    r = target(n, nans)                                # [.., 1]
    index = torch.where(rank == r, position, 0).sum(-1, keepdim=True)
    value = torch.gather(x, -1, index)
    if not keepdim:
        return value.squeeze(-1), index.squeeze(-1)
    return value.movedim(-1, dim), index.movedim(-1, dim)


def kthvalue(self, k, dim=-1, keepdim=False):
    """The k-th smallest by ranks (torch-mlir: tm_tensor.topk); a row with
    NaN gives its first NaN, as it sorts last."""
    if not 1 <= k <= (self.shape[dim] if self.dim() else 1):
        return NotImplemented
    return _pick_rank(self, dim, keepdim, lambda n, nans: torch.full_like(nans, k - 1))


def median_dim(self, dim, keepdim=False):
    """The lower median by ranks (not legalized by torch-mlir); a row with
    NaN gives NaN (its first NaN), as torch.median."""
    return _pick_rank(self, dim, keepdim,
                      lambda n, nans: torch.where(nans > 0, n - nans, torch.full_like(nans, (n - 1) // 2)))


def nanmedian_dim(self, dim, keepdim=False):
    """The lower median of the non-NaN elements by ranks; NaN for a row of
    NaN only."""
    return _pick_rank(self, dim, keepdim, lambda n, nans: ((n - nans - 1) // 2).clamp(min=0))


def topk(self, k, dim=-1, largest=True, sorted=True):
    """torch.topk by ranks (_rank_select); unsorted top-k may come in any
    order, sorted is one."""
    return _rank_select(self, k, dim, largest)


def sort(self, dim=-1, descending=False):
    """torch.sort (stable: equal keys keep their order) by ranks."""
    return _rank_select(self, self.shape[dim] if self.dim() else 1, dim, descending)


def sort_stable(self, *, stable=None, dim=-1, descending=False):
    return sort(self, dim, descending)


def _scatter_hits(self, dim, index):
    """Every index compared with every position along `dim`: (hits [..,
    j, position], self with `dim` last), or None.  torch-mlir's
    convert-torch-to-tmtensor crashes on aten.scatter (the importer died
    with a segfault, nothing printed) and lowers scatter_add and
    scatter_reduce to tm_tensor.scatter; the scatters below are these
    comparisons.  Only for an index as large as `self` in every other
    dimension and up to SELECTION_ELEMENTS comparisons (else: the
    importer's error)."""
    if self.dim() == 0 or index.dim() != self.dim() or \
            any(index.shape[d] != self.shape[d] for d in range(self.dim()) if d != dim):
        return None
    n = self.shape[dim]
    if index.numel() * n > SELECTION_ELEMENTS:
        return None
    target = index.movedim(dim, -1).unsqueeze(-1)       # [.., j, 1]
    return target == torch.arange(n, dtype=index.dtype), self.movedim(dim, -1)


def _writers(src, index, dim):
    """src's part that index covers, `dim` last, as [.., j, 1] against hits."""
    return src[tuple(slice(0, s) for s in index.shape)].movedim(dim, -1).unsqueeze(-1)


def _scatter_last(self, dim, index, written_value):
    """self.scatter(dim, index, ...): the backward of a value-selecting
    reduction (torch.max(x, dim), topk: grad.new_zeros().scatter(dim,
    indices, grad)) and F.one_hot write one position per row this way.
    Where several indices of a row name one position, the last one writes
    it, as ATen's CPU kernel writes in order; `written_value(writer)` is the
    value at each position from the one-hot of its writer."""
    dim = dim % max(self.dim(), 1)
    found = _scatter_hits(self, dim, index)
    if found is None:
        return NotImplemented
    hits, base = found
    m = index.shape[dim]
    order = torch.arange(m, dtype=torch.int64).view(m, 1)
    last = torch.where(hits, order, -1).amax(-2)         # [.., position]
    writer = hits & (order == last.unsqueeze(-2))        # one j per written position
    # Row-major, as ATen's scatter returns: functionalization writes an
    # in-place scatter_ back through views of the result (BigBird's
    # scatter_ into a block of a 5-D view), which a permuted layout breaks.
    return torch.where(last >= 0, written_value(writer).to(self.dtype), base).movedim(-1, dim).contiguous()


def scatter_src(self, dim, index, src):
    if src.dim() != index.dim():
        return NotImplemented
    values = _writers(src, index, dim % max(self.dim(), 1))
    # The sum over the one writer (where, not a product, so that inf and
    # NaN elsewhere in the row stay out).
    return _scatter_last(self, dim, index,
                         lambda writer: torch.where(writer, values, torch.zeros((), dtype=src.dtype)).sum(-2))


def scatter_value(self, dim, index, value):
    return _scatter_last(self, dim, index, lambda writer: torch.full((), value, dtype=self.dtype))


_SCATTER_REDUCTIONS = {  # reduce: (identity of the writers' reduction, reduction over writers, with self)
    "sum": (0.0, lambda v: v.sum(-2), torch.add),
    "prod": (1.0, lambda v: v.prod(-2), torch.mul),
    "amax": (float("-inf"), lambda v: v.amax(-2), torch.maximum),
    "amin": (float("inf"), lambda v: v.amin(-2), torch.minimum),
}


def _scatter_reduced(self, dim, index, src, reduce, include_self):
    """Each position reduces its writers' values ('sum', 'prod', 'mean',
    'amax', 'amin'), with its own when include_self; a position nobody
    writes keeps its value."""
    mean = reduce == "mean"
    if src.dim() != index.dim() or (reduce not in _SCATTER_REDUCTIONS and not mean):
        return NotImplemented
    dim = dim % max(self.dim(), 1)
    found = _scatter_hits(self, dim, index)
    if found is None:
        return NotImplemented
    hits, base = found
    identity, over_writers, with_self = _SCATTER_REDUCTIONS["sum" if mean else reduce]
    values = _writers(src, index, dim).to(self.dtype)
    result = over_writers(torch.where(hits, values, torch.full((), identity, dtype=self.dtype)))
    count = hits.sum(-2)
    if include_self:
        result = with_self(base, result)
        if mean:
            result = result / (count + 1).to(self.dtype)
    elif mean:
        result = result / count.clamp(min=1).to(self.dtype)
    return torch.where(count > 0, result, base).movedim(-1, dim).contiguous()  # as _scatter_last


def scatter_add(self, dim, index, src):
    """scatter_add (the backward of torch.gather): each position adds the
    sum of its writers (exact with one writer per position, as an
    argsort's index; with several, their sum is rounded once before it is
    added, where ATen adds them one by one)."""
    return _scatter_reduced(self, dim, index, src, "sum", include_self=True)


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """scatter_reduce (message passing in graph networks): _scatter_reduced,
    NaN propagating through amax/amin as in ATen.  Floats only; sums and
    products are taken in another order than ATen's, one writer after
    another."""
    if not self.is_floating_point():
        return NotImplemented
    return _scatter_reduced(self, dim, index, src, reduce, include_self)


def gelu(self, approximate="none"):
    """GELU's tanh approximation by PyTorch's decomposition
    (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))): torch-mlir's lowering
    takes sqrt(2/pi) as 0.797724 instead of 0.7978846, so the imported
    forward differed from eager's (by up to 2e-4 relative) while the backward
    (gelu_backward) used the right constant.  The exact GELU is left to
    torch-mlir's lowering (erf), which matches eager."""
    if approximate != "tanh":
        return NotImplemented
    return torch_decompositions[aten.gelu.default](self, approximate=approximate)


def _mask_ranks(mask, shape):
    """The mask broadcast to `shape`, flattened in row-major order, and each
    position's rank among its true ones (-1 before the first): cumsum's
    shifted additions, where torch-mlir's lowering takes tm_tensor.scan."""
    taken = mask.expand(shape).reshape(-1)
    return taken, cumsum(taken.to(torch.int64), 0) - 1


def masked_scatter(self, mask, source):
    """x.masked_scatter(mask, source): the mask's (j+1)-th true position (in
    row-major order) takes source element j: a gather of the source at each
    position's rank among the true ones."""
    shape = torch.broadcast_shapes(self.shape, mask.shape)
    taken, rank = _mask_ranks(mask, shape)
    rank = rank.clamp(min=0)
    flat = source.reshape(-1)
    if flat.numel() == 0:
        return self.expand(shape).clone()
    rank = rank.clamp(max=flat.numel() - 1)
    picked = flat.index_select(0, rank).to(self.dtype)
    return torch.where(taken, picked, self.expand(shape).reshape(-1)).reshape(shape)


def masked_scatter_backward(grad_output, mask, sizes):
    """The source's gradient of x.masked_scatter(mask, source) (a
    vision-language model merges image features into the text embeddings
    so): source element j took the position of the mask's (j+1)-th true
    element, in row-major order, so it gets that position's gradient; the
    rest of the source gets zero.  Every position's rank among the true ones
    (a cumsum) compared with every source element: up to SELECTION_ELEMENTS
    comparisons (torch-mlir has no lowering)."""
    s = math.prod(sizes)
    if grad_output.numel() * s > SELECTION_ELEMENTS:
        return NotImplemented
    taken, rank = _mask_ranks(mask, grad_output.shape)
    hits = (rank.unsqueeze(1) == torch.arange(s, dtype=torch.int64)) & taken.unsqueeze(1)
    picked = torch.where(hits, grad_output.reshape(-1, 1), torch.zeros((), dtype=grad_output.dtype))
    return picked.sum(dim=0).reshape(sizes)


def histc(self, bins=100, min=0, max=0):
    """torch.histc over a given range (transformers' grouped experts count
    their tokens per expert with it; torch-mlir does not legalize it): each
    element's bin as ATen's CPU kernel computes it, (x - min) * bins / (max
    - min) truncated, max itself in the last bin, elements outside the range
    and NaN in none; the counts are sums of comparisons (bins per element,
    up to SELECTION_ELEMENTS).  The data's own range (min == max) is left to
    the importer's error."""
    if not self.is_floating_point() or not min < max or self.numel() * bins > SELECTION_ELEMENTS:
        return NotImplemented
    x = self.reshape(-1)
    inside = (x >= min) & (x <= max)
    position = ((x - min) * bins / (max - min)).clamp(0, bins - 1).to(torch.int64)
    hits = (position.unsqueeze(-1) == torch.arange(bins, dtype=torch.int64)) & inside.unsqueeze(-1)
    return hits.sum(0).to(self.dtype)


def grouped_mm(self, mat2, offs=None, bias=None, out_dtype=None):
    """torch._grouped_mm (F.grouped_mm: transformers' grouped experts, and
    its own backward) as dense matmuls masked by group: group g holds rows
    (or, for the weight gradient, the contracted positions) offs[g-1] <= i <
    offs[g]; rows past the last offset are zero.  G times the FLOPs of the
    grouped kernel, as transformers' batched_mm experts; torch-mlir has no
    lowering of the op."""
    if offs is None or bias is not None or out_dtype not in (None, self.dtype) or offs.dim() != 1:
        return NotImplemented
    groups = offs.shape[0]
    ends = offs.to(torch.int64)
    starts = torch.cat([ends.new_zeros(1), ends[:-1]])

    def member(n):  # [G, n]: position i in group g
        i = torch.arange(n, dtype=torch.int64)
        return (i >= starts.unsqueeze(-1)) & (i < ends.unsqueeze(-1))

    zero = torch.zeros((), dtype=self.dtype)
    if self.dim() == 2 and mat2.dim() == 3 and mat2.shape[0] == groups:
        # [S, K] x [G, K, N] -> [S, N]: each row times its group's matrix.
        products = torch.matmul(self.unsqueeze(0), mat2)        # [G, S, N]
        return torch.where(member(self.shape[0]).unsqueeze(-1), products, zero).sum(0)
    if self.dim() == 2 and mat2.dim() == 2:
        # [K, S] x [S, N] -> [G, K, N]: each group's part of the contraction.
        masked = torch.where(member(self.shape[1]).unsqueeze(1), self.unsqueeze(0), zero)  # [G, K, S]
        return torch.matmul(masked, mat2)
    return NotImplemented


def _strided_conv_input_grad(grad_output, input, weight, stride, padding):
    """The input gradient of an ungrouped, undilated strided 2-D convolution
    by phases: the rows h = s*q + a of one phase a receive the kernel rows i
    with i = a + p (mod s) only, at output rows q + (a + p - i)/s, so each
    phase (a, b) is a stride-1 correlation of the output gradient with the
    flipped sub-kernel of those taps, and the s*s phases are interleaved.
    torch-mlir's form correlates the whole kernel with the output gradient
    after inserting s - 1 zeros between its rows and columns: s*s times the
    multiply-adds (4x for ResNet's and a U-Net's stride-2 convolutions) and
    an s*s times larger operand."""
    (n, c, h, w), (_, _, kh, kw), _, (sh, sw), (ph, pw), _ = _conv2d_geometry(
        input, weight, stride, padding, (1, 1), 1)
    oh, ow = grad_output.shape[-2:]
    q0, r0 = -(-h // sh), -(-w // sw)  # rows and columns of phase 0

    def taps(k, s, p, a):
        """The kernel taps of phase a, i0, i0 + s, ... (as a slice, for a
        strided view of the weight), their count and the output-gradient
        offset of the last one (t = (a + p - i) / s)."""
        i0 = (a + p) % s
        count = len(range(i0, k, s))
        return slice(i0, k, s), count, ((a + p - (i0 + (count - 1) * s)) // s if count else 0)

    rows = []
    for a in range(sh):
        ia, ka, offa = taps(kh, sh, ph, a)
        cols = []
        for b in range(sw):
            jb, kb, offb = taps(kw, sw, pw, b)
            if not ka or not kb:
                cols.append(grad_output.new_zeros(n, c, q0, r0))
                continue
            # v[c, f, m] = w[f, c, tap K-1-m]: the correlation reads
            # dy[q + off + m] (off: the last tap's offset), zeros outside.
            v = weight[:, :, ia, jb].flip(2, 3).transpose(0, 1)
            qa, rb = -(-(h - a) // sh), -(-(w - b) // sw)
            dy = _pad_or_crop(grad_output, 2, -offa, qa + ka - 1 - (oh - offa))
            dy = _pad_or_crop(dy, 3, -offb, rb + kb - 1 - (ow - offb))
            part = F.conv2d(dy, v)
            cols.append(_pad_or_crop(_pad_or_crop(part, 2, 0, q0 - qa), 3, 0, r0 - rb))
        rows.append(torch.stack(cols, dim=-1))  # [N, C, Q0, R0, s]
    full = torch.stack(rows, dim=3).reshape(n, c, q0 * sh, r0 * sw)
    return full[:, :, :h, :w]


def _strided_conv_weight_grad(grad_output, input, kernel, stride, padding, dilation):
    """The weight gradient of an ungrouped convolution (any number of spatial
    dimensions) as ONE convolution:
    gw[f, c, i, j] = sum_{n,y,x} go[n, f, y, x] * xpad[n, c, y*s + i*d, x*s + j*d]
    is a convolution of xpad with batch and channels swapped ([C, N, H, W])
    by go as the filter ([F, N, OH, OW]) with stride d and dilation s, whose
    [C, F, KH, KW] result is transposed.  One contraction of K = N*OH*OW,
    where one batched matmul per kernel offset re-reads the output gradient
    KH*KW times.  The padded input is cropped to the rows and columns that
    some window reads, (KH-1)*d + (OH-1)*s + 1: past them the convolution
    would compute offsets beyond the kernel (KH' > KH), up to 4x the work
    of a 1x1 stride-2 convolution's gradient, only to crop them away."""
    spatial = grad_output.shape[2:]
    pads = []
    for p in reversed(padding):
        pads += [p, p]
    xp = F.pad(input, pads)
    for dim, (k, o, s, d) in enumerate(zip(kernel, spatial, stride, dilation), start=2):
        xp = xp.narrow(dim, 0, min(xp.shape[dim], (k - 1) * d + (o - 1) * s + 1))
    gw = _CONV_ND[len(spatial)](xp.transpose(0, 1), grad_output.transpose(0, 1), None, tuple(dilation), 0,
                                 tuple(stride))
    return gw.transpose(0, 1)


def _transposed_conv_backward(grad_output, input, weight, stride, padding, dilation, groups, output_mask):
    """Backward of a 2-D or 3-D transposed convolution (ConvTranspose2d/3d, a
    U-Net's or a decoder's upsampling), which torch-mlir does not legalize.
    The transposed convolution is the input gradient of the forward
    convolution z -> conv(z, w, s, p, d, groups), so its own gradients are
    that convolution's: the input gradient is conv(grad_output, w) (w is
    [C_in, C_out/G, *K], which conv reads as [out, in/G, *K]; the output
    padding only adds rows that no window reaches), and the weight gradient
    is that convolution's weight gradient with the roles of input and output
    gradient swapped, per group."""
    rank = input.dim() - 2
    stride, padding, dilation = (_ntuple(v, rank) for v in (stride, padding, dilation))
    gi = (_CONV_ND[rank](grad_output, weight, None, stride, padding, dilation, groups)
          if output_mask[0] else None)
    gw = None
    if output_mask[1]:
        kernel = tuple(weight.shape[2:])
        cin, cout = input.shape[1] // groups, grad_output.shape[1] // groups
        gw = torch.cat([_strided_conv_weight_grad(input[:, g * cin:(g + 1) * cin],
                                                  grad_output[:, g * cout:(g + 1) * cout], kernel, stride,
                                                  padding, dilation) for g in range(groups)])
    gb = grad_output.sum(dim=[0] + list(range(2, grad_output.dim()))) if output_mask[2] else None
    return gi, gw, gb


def _conv_input_grad_nd(grad_output, input, weight, stride, padding, dilation, groups):
    """The input gradient of a convolution with any number of spatial
    dimensions as one forward convolution: the output gradient with s - 1
    zeros inserted between positions (stride s), padded by d*(k-1) - p
    (cropped where negative), correlated with the kernel flipped in space and
    its in/out channels swapped per group, dilation d.  torch-mlir's own
    lowering (a transposed convolution) builds an invalid
    tensor.collapse_shape whenever a group has one input channel (depthwise
    convolutions: MobileNet, EfficientNet, ShuffleNet), and lowers the
    dilated and 3-D ones to convolution-shaped generics."""
    rank = input.dim() - 2
    f, cg, kernel = weight.shape[0], weight.shape[1], tuple(weight.shape[2:])
    go = grad_output
    for i in range(rank):
        dim, s, k, p, d = 2 + i, stride[i], kernel[i], padding[i], dilation[i]
        if s > 1:
            o = go.shape[dim]
            go = torch.stack([go] + [torch.zeros_like(go)] * (s - 1), dim=dim + 1).flatten(dim, dim + 1)
            go = go.narrow(dim, 0, (o - 1) * s + 1)
        go = _pad_or_crop(go, dim, d * (k - 1) - p, input.shape[dim] + p - go.shape[dim])
    fg = f // groups
    wt = weight.reshape(groups, fg, cg, *kernel).transpose(1, 2).reshape(groups * cg, fg, *kernel)
    wt = wt.flip(list(range(2, 2 + rank)))
    return _CONV_ND[rank](go, wt, None, 1, 0, tuple(dilation), groups)


def _conv3d_backward(grad_output, input, weight, stride, padding, dilation, groups, output_mask):
    """A 3-D convolution's backward as forward 3-D convolutions (3-D U-Nets,
    video models): torch-mlir lowers it to convolution-shaped linalg.generic
    ops (nine loops, scalar), where a linalg.conv_3d_ncdhw_fcdhw goes to the
    CPU kernels through im2col. The weight gradient is one convolution
    dilated by the stride per group (_strided_conv_weight_grad), the input
    gradient a forward convolution (_conv_input_grad_nd; the zeros it
    inserts for a stride are torch-mlir's form too)."""
    stride, padding, dilation = (_ntuple(v, 3) for v in (stride, padding, dilation))
    gi = (_conv_input_grad_nd(grad_output, input, weight, stride, padding, dilation, groups)
          if output_mask[0] else None)
    gw = None
    if output_mask[1]:
        cg, fg = input.shape[1] // groups, grad_output.shape[1] // groups
        gw = torch.cat([_strided_conv_weight_grad(grad_output[:, g * fg:(g + 1) * fg],
                                                  input[:, g * cg:(g + 1) * cg], tuple(weight.shape[2:]),
                                                  stride, padding, dilation) for g in range(groups)])
    gb = grad_output.sum(dim=(0, 2, 3, 4)) if output_mask[2] else None
    return gi, gw, gb


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """A grouped 3-D convolution (video models' channel-separated and
    depthwise 3-D convolutions) as one 3-D convolution per group,
    concatenated: torch-mlir legalizes grouped convolutions in 2-D only.
    Everything else is left to torch-mlir."""
    if input.dim() != 5 or groups == 1 or transposed:
        return NotImplemented
    cg, fg = input.shape[1] // groups, weight.shape[0] // groups
    return torch.cat([F.conv3d(input[:, g * cg:(g + 1) * cg], weight[g * fg:(g + 1) * fg],
                               None if bias is None else bias[g * fg:(g + 1) * fg], stride, padding, dilation)
                      for g in range(groups)], dim=1)


def _conv1d_backward_as_2d(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                           output_padding, groups, output_mask):
    """A 1-D convolution's backward as the 2-D one of rows of height 1, so
    that 1-D convolutions (audio, sequence models' Conv1d, ConvTranspose1d)
    get what the 2-D decompositions give: transposed convolutions legalize,
    strided ones get their input gradient by phases and no per-sample weight
    gradient; where the 2-D path leaves the op to torch-mlir, torch-mlir's
    2-D form (convolutions; its 1-D form has convolution-shaped generics)."""
    lift = lambda v, fill: [fill] + list(_ntuple(v, 1))
    args = (lift(stride, 1), lift(padding, 0), lift(dilation, 1), transposed, lift(output_padding, 0), groups,
            output_mask)
    lifted = (grad_output.unsqueeze(2), input.unsqueeze(2), weight.unsqueeze(2), bias_sizes)
    grads = convolution_backward(*lifted, *args)
    if grads is NotImplemented:
        grads = aten.convolution_backward(*lifted, *args)
    gi, gw, gb = grads
    return (gi.squeeze(2) if gi is not None else None, gw.squeeze(2) if gw is not None else None, gb)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """Grouped, depthwise or strided 2-D convolution backward.  The weight gradient of
    group g at kernel offset (i, j) is a contraction over batch and output
    positions: gw[g, f, c, i, j] = sum_{n,y,x} go[n, g, f, y, x] * xpad[n, g, c,
    y*s + i*d, x*s + j*d]: for one group a single dilated convolution
    (_strided_conv_weight_grad), for several one batched matmul (batch G) per
    kernel offset over strided views of the padded input, or for a depthwise
    convolution (one input and one output channel per group) one per-channel
    sum of products per kernel offset.  The input gradient of a
    grouped convolution is a forward grouped convolution
    (_conv_input_grad_nd), of an ungrouped strided one s*s phases
    (_strided_conv_input_grad); a stride-1 one and the bias gradient are
    left to torch-mlir, which lowers them correctly (checked against eager by
    the tests).  Ungrouped strided
    convolutions take this path too: torch-mlir's weight gradient for stride
    s > 1 is a convolution with the batch as groups whose result holds one
    weight gradient per sample (N x |W| x s^2 elements: 128 MiB for one of
    ResNet-18's 3x3 stride-2 convolutions at batch 16) before summing it."""
    if input.dim() == 3:
        return _conv1d_backward_as_2d(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                                      transposed, output_padding, groups, output_mask)
    if transposed and input.dim() in (4, 5):
        return _transposed_conv_backward(grad_output, input, weight, stride, padding, dilation, groups,
                                         output_mask)
    if input.dim() == 5:
        return _conv3d_backward(grad_output, input, weight, stride, padding, dilation, groups, output_mask)
    if transposed or input.dim() != 4:
        return NotImplemented
    # torch-mlir's own lowering is one convolution without blow-up for an
    # ungrouped stride-1 undilated convolution; a dilated one's gradients it
    # lowers to convolution-shaped linalg.generic ops (scalar loops on the
    # CPU), so those take the forms below too.
    phases = tuple(_pair(stride)) != (1, 1) and tuple(_pair(dilation)) == (1, 1)
    if groups == 1 and tuple(_pair(stride)) == (1, 1) and tuple(_pair(dilation)) == (1, 1):
        return NotImplemented
    (n, c, h, w), (f, cg, kh, kw), fg, (sh, sw), (ph, pw), (dh, dw) = _conv2d_geometry(
        input, weight, stride, padding, dilation, groups)
    ho, wo = grad_output.shape[-2:]
    gw = None
    if output_mask[1] and groups == 1:
        gw = _strided_conv_weight_grad(grad_output, input, (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    elif output_mask[1]:
        xp = F.pad(input, (pw, pw, ph, ph))
        go = grad_output.reshape(n, groups, fg, ho, wo)
        parts = []
        for i in range(kh):
            for j in range(kw):
                xs = xp[:, :, i * dh: i * dh + (ho - 1) * sh + 1: sh, j * dw: j * dw + (wo - 1) * sw + 1: sw]
                if fg == 1 and cg == 1:
                    # Depthwise: one dot product per channel, a per-channel
                    # sum of products over the strided view (what BatchNorm's
                    # backward sums are). The einsum's batched matmul (batch C,
                    # 1 x 1 outputs) read both operands through transposes
                    # that copied them once per kernel offset.
                    parts.append((grad_output * xs).sum(dim=(0, 2, 3)).reshape(groups, 1, 1))
                else:
                    parts.append(torch.einsum("ngfyx,ngcyx->gfc", go, xs.reshape(n, groups, cg, ho, wo)))
        gw = torch.stack(parts, dim=-1).reshape(f, cg, kh, kw)
    gi = None
    if output_mask[0]:
        if groups == 1 and phases:
            gi = _strided_conv_input_grad(grad_output, input, weight, (sh, sw), (ph, pw))
        else:
            gi = _conv_input_grad_nd(grad_output, input, weight, (sh, sw), (ph, pw), (dh, dw), groups)
    gb = grad_output.sum(dim=(0, 2, 3)) if output_mask[2] else None
    return gi, gw, gb


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """grad_weight = onehot(indices)^T @ grad_output, in vocabulary chunks (see
    the module docstring for why one-hot and how large vocabularies fit)."""
    d = grad_output.shape[-1]
    ids = indices.reshape(-1)
    go = grad_output.reshape(-1, d)
    n = ids.shape[0]
    chunk = max(1, min(num_weights, ONEHOT_CHUNK_ELEMENTS // max(1, n)))
    parts = []
    for v0 in range(0, num_weights, chunk):
        v1 = min(num_weights, v0 + chunk)
        onehot = (ids.unsqueeze(1) == torch.arange(v0, v1, dtype=ids.dtype)).to(go.dtype)
        if padding_idx is not None and v0 <= padding_idx < v1:
            keep = torch.arange(v0, v1) != padding_idx
            onehot = onehot * keep.to(go.dtype)
        part = onehot.t() @ go
        if scale_grad_by_freq:
            part = part / onehot.sum(dim=0).clamp(min=1.0).unsqueeze(1)
        parts.append(part)
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=0)


def _bag_of_each_index(indices, offsets, offset2bag):
    """The bag of every position of the 1-D indices: the forward's offset2bag
    where it made one (ATen leaves it empty on the sum fast path), else the
    number of bag starts at or before the position, less one."""
    if offset2bag.dim() == 1 and offset2bag.shape[0] == indices.shape[0]:
        return offset2bag.to(torch.int64)
    positions = torch.arange(indices.shape[0], dtype=torch.int64)
    starts = (offsets.to(torch.int64).unsqueeze(0) <= positions.unsqueeze(1)).to(torch.int64)
    return starts.sum(dim=1) - 1


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """nn.EmbeddingBag's forward (sum, mean, max over bags given by offsets)
    as the rows gathered and a bag x index membership matrix: a matmul for
    sum and mean, a masked max for max (torch-mlir lowers only some modes).
    Up to SELECTION_ELEMENTS memberships (bags x indices); beyond, torch-mlir's
    lowering or its error.  Returns ATen's four results: output, the bag of
    each index, each bag's size (indices other than padding_idx) and, for
    max, the row that won each feature."""
    ids = indices.reshape(-1).to(torch.int64)
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    n = ids.shape[0]
    if bags * n * (weight.shape[1] if mode == 2 else 1) > SELECTION_ELEMENTS:
        return NotImplemented
    bag = _bag_of_each_index(ids, offsets, offsets.new_empty(0))
    member = bag.unsqueeze(0) == torch.arange(bags, dtype=torch.int64).unsqueeze(1)   # [bags, n]
    if padding_idx is not None and padding_idx >= 0:
        member = member & (ids != padding_idx).unsqueeze(0)
    bag_size = member.to(torch.int64).sum(dim=1)
    rows = weight.index_select(0, ids)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1).to(rows.dtype)
    if mode == 2:
        masked = torch.where(member.unsqueeze(-1), rows.unsqueeze(0), float("-inf"))
        values, winner = masked.max(dim=1)
        output = torch.where(bag_size.unsqueeze(1) > 0, values, 0.0)
        max_indices = torch.where(bag_size.unsqueeze(1) > 0, ids[winner], -1)
    else:
        output = member.to(rows.dtype) @ rows
        if mode == 1:
            output = output / bag_size.clamp(min=1).to(rows.dtype).unsqueeze(1)
        max_indices = bag_size.new_zeros(bags)
    return output, bag.to(offsets.dtype), bag_size.to(offsets.dtype), max_indices.to(offsets.dtype)


def embedding_bag_padding_idx(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              include_last_offset, padding_idx):
    return embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                         include_last_offset, -1 if padding_idx is None else padding_idx)


def embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                           scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    """nn.EmbeddingBag's weight gradient (dense): sum and mean send each
    bag's gradient row to every index of the bag (mean divided by the bag's
    size, weighted by per_sample_weights), then the embedding gradient's
    one-hot contraction; max sends each feature's gradient to the row that
    won it (maximum_indices), vocabulary chunk by chunk as that contraction.
    torch-mlir has no lowering for aten._embedding_bag_backward."""
    if sparse:
        return NotImplemented
    padding = padding_idx if padding_idx is not None and padding_idx >= 0 else None
    ids = indices.reshape(-1).to(torch.int64)
    if mode == 2:
        d = grad.shape[-1]
        winners = maximum_indices.to(torch.int64)
        chunk = max(1, min(num_weights, ONEHOT_CHUNK_ELEMENTS // max(1, winners.numel())))
        parts = []
        for v0 in range(0, num_weights, chunk):
            v1 = min(num_weights, v0 + chunk)
            won = (winners.unsqueeze(-1) == torch.arange(v0, v1, dtype=torch.int64)).to(grad.dtype)
            parts.append((won * grad.unsqueeze(-1)).sum(dim=0).t().reshape(v1 - v0, d))
        return parts[0] if len(parts) == 1 else torch.cat(parts, dim=0)
    bag = _bag_of_each_index(ids, offsets, offset2bag)
    rows = grad.index_select(0, bag)
    if mode == 1:
        rows = rows / bag_size.to(grad.dtype).clamp(min=1.0).index_select(0, bag).unsqueeze(1)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1).to(grad.dtype)
    return embedding_dense_backward(rows, ids, num_weights, padding, scale_grad_by_freq)


def embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    """The gradient of each per-sample weight: its bag's gradient row dotted
    with the row it weighted (zero for the padding index)."""
    ids = indices.reshape(-1).to(torch.int64)
    bag = _bag_of_each_index(ids, offsets, offset2bag)
    dots = (grad.index_select(0, bag) * weight.index_select(0, ids).to(grad.dtype)).sum(dim=1)
    if padding_idx is not None and padding_idx >= 0:
        dots = dots * (ids != padding_idx).to(grad.dtype)
    return dots


def _merge_index_dims(self, indices, tensors):
    """(self with the dimensions several integer index tensors index, adjacent
    ones tensors[0] .. tensors[-1], merged into one; the one index tensor
    that addresses it: each position's row-major offset over those
    dimensions, negative indices counted from the end; the merged
    dimension), or None for another form (a gap between the index tensors,
    a boolean mask)."""
    first, last = tensors[0], tensors[-1]
    if tensors != list(range(first, last + 1)) or \
            any(indices[k].dtype not in (torch.int64, torch.int32) for k in tensors):
        return None
    index = None
    for k in tensors:
        size = self.shape[k]
        idx = indices[k].to(torch.int64)
        idx = torch.where(idx < 0, idx + size, idx)
        index = idx if index is None else index * size + idx
    rows = math.prod(self.shape[first:last + 1])
    return self.reshape(tuple(self.shape[:first]) + (rows,) + tuple(self.shape[last + 1:])), index, first


def _indexed_dims_first(self, indices):
    """(the permutation that brings the dimensions several integer index
    tensors index, not all adjacent (x[i, :, j]), to the front in order, the
    index tensors), or None for another form.  PyTorch puts the broadcast
    index dimensions of such an index first, then the other dimensions in
    order: exactly what indexing the permuted tensor at its front gives (the
    form torch-mlir lowers; it fails on the gap, at a torch.vtensor.literal)."""
    tensors = [k for k, i in enumerate(indices) if i is not None]
    if len(tensors) < 2 or tensors == list(range(tensors[0], tensors[-1] + 1)) or \
            any(indices[k].dtype not in (torch.int64, torch.int32) for k in tensors):
        return None
    return tensors + [d for d in range(self.dim()) if d not in tensors], [indices[k] for k in tensors]


def index_tensor(self, indices):
    """x[i, :, j] (index tensors with a gap) as the front indexing of x with
    the indexed dimensions moved first (_indexed_dims_first); other forms are
    left to torch-mlir."""
    front = _indexed_dims_first(self, indices)
    if front is None:
        return NotImplemented
    order, tensors = front
    return torch.ops.aten.index.Tensor(self.permute(order), tensors)


def index_put(self, indices, values, accumulate=False):
    """Accumulating index_put with one index tensor (the backward of
    table[index]: Swin's relative position bias, any gather of parameter
    rows; on another dimension, x[..., [i], :]: Falcon's fused QKV split):
    self + onehot(index)^T @ values over the indexed dimension, the
    embedding gradient's contraction (embedding_dense_backward).  Other
    forms (several index tensors) are left to torch-mlir.  Without
    accumulation, one 1-D index tensor (x[perm] = v; transformers' grouped
    experts invert their sort's permutation so) is a scatter of whole
    slices (the last write of a repeated index wins, as on the CPU).
    Several index tensors on adjacent dimensions (x[arange(B), last]: a
    classifier's pooling of each sequence's last token, CLIP's EOS pooling)
    are first made one, over those dimensions merged."""
    tensors = [k for k, i in enumerate(indices) if i is not None]
    front = _indexed_dims_first(self, indices)
    if front is not None:
        # Index tensors with a gap: their values are laid out as the front
        # indexing of the permuted tensor (index_tensor).
        order, front_indices = front
        out = index_put(self.permute(order), front_indices, values, accumulate)
        if out is NotImplemented:
            return NotImplemented
        inverse = [order.index(d) for d in range(self.dim())]
        return out.permute(inverse)
    if len(tensors) > 1:
        merged = _merge_index_dims(self, indices, tensors)
        if merged is None:
            return NotImplemented
        target, index, first = merged
        out = index_put(target, [None] * first + [index], values, accumulate)
        return NotImplemented if out is NotImplemented else out.reshape(self.shape)
    if not accumulate and len(tensors) == 1 and indices[tensors[0]].dim() > 1 \
            and indices[tensors[0]].dtype in (torch.int64, torch.int32):
        # An index of several dimensions (merged ones, x[i, j] = v with
        # broadcast i, j): the same scatter over the index flattened.
        dim, idx = tensors[0], indices[tensors[0]]
        full = tuple(self.shape[:dim]) + tuple(idx.shape) + tuple(self.shape[dim + 1:])
        vals = values.to(self.dtype).expand(full).reshape(
            tuple(self.shape[:dim]) + (idx.numel(),) + tuple(self.shape[dim + 1:]))
        return index_put(self, [None] * dim + [idx.reshape(-1)], vals, accumulate)
    if not accumulate and len(tensors) == 1 and indices[tensors[0]].dim() == 1 \
            and indices[tensors[0]].dtype in (torch.int64, torch.int32):
        dim, idx = tensors[0], indices[tensors[0]].to(torch.int64)
        target = self.movedim(dim, 0)
        idx = torch.where(idx < 0, idx + target.shape[0], idx)
        full = (idx.shape[0],) + tuple(target.shape[1:])
        vals = values.to(self.dtype).expand(tuple(self.shape[:dim]) + (idx.shape[0],) + tuple(self.shape[dim + 1:]))
        index = idx.view((-1,) + (1,) * (target.dim() - 1)).expand(full)
        out = scatter_src(target, 0, index, vals.movedim(dim, 0))
        return NotImplemented if out is NotImplemented else out.movedim(0, dim)
    if not accumulate or len(tensors) != 1 or not self.is_floating_point():
        return NotImplemented
    dim = tensors[0]
    idx = indices[dim]
    if idx.dtype not in (torch.int64, torch.int32):
        return NotImplemented
    # The indexed dimension first: values' index dimensions stand where the
    # indexed dimension stood (one index tensor: they are adjacent).
    target = self.movedim(dim, 0)
    full = tuple(self.shape[:dim]) + tuple(idx.shape) + tuple(self.shape[dim + 1:])
    vals = values.expand(full).movedim(list(range(dim, dim + idx.dim())), list(range(idx.dim())))
    rows = target.shape[0]
    vals = vals.reshape(idx.numel(), -1)
    # Negative indices count from the end, as PyTorch's.
    ids = torch.where(idx < 0, idx + rows, idx).reshape(-1)
    grad = embedding_dense_backward(vals, ids, rows, None, False)
    return self + grad.reshape(target.shape).movedim(0, dim).to(self.dtype)


def _is_contiguous_layout(size, stride):
    """Row-major strides for `size` (dims of size 1 may have any stride)."""
    expect = 1
    for n, st in zip(reversed(list(size)), reversed(list(stride))):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


def _whole_contiguous_view(base, size, stride, storage_offset):
    """Whether as_strided(base, size, stride, storage_offset) views all of a
    contiguous base in row-major order, i.e. is base.reshape(size)."""
    offset = base.storage_offset() if storage_offset is None else storage_offset
    numel = 1
    for n in size:
        numel *= n
    return (base.is_contiguous() and offset == base.storage_offset() and numel == base.numel()
            and _is_contiguous_layout(size, stride))


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer norm with its statistics in the input's dtype, as PyTorch's CPU
    and CUDA kernels compute them for f32 (mean, then the mean of the squared
    deviations).  torch's own decomposition goes through var_mean, which
    torch-mlir computes in f64: a step of f64 conversions and reductions over
    every activation a layer norm reads, and statistics more exact than the
    eager kernel the importer is checked against.  Also for f64 (run-check's
    float64 import): torch-mlir's var_mean leaves a torch.constant.bool that
    does not legalize."""
    if input.dtype not in (torch.float32, torch.float64):
        return NotImplemented
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    rstd = torch.rsqrt((centered * centered).mean(dims, keepdim=True) + eps)
    out = centered * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """Layer norm backward with every intermediate the size of a gradient:
    d_input = rstd * (g - mean(g) - x_hat * mean(g * x_hat)), g = grad_out * weight.
    torch's decomposition computes the same as rstd / N * (N * g - sum(g) -
    x_hat * sum(g * x_hat)): its N * g term is N (the normalised width) times
    the gradient, which overflows f16 under a loss scale when mixed precision
    runs the backward in f16 (timm's ViT, width 192: 192 x a gradient of
    ~1e3 at scale 65536), where PyTorch's one fused kernel holds no such
    intermediate.  Weight and bias gradients as torch's."""
    if input.dtype not in (torch.float32, torch.float64):
        return NotImplemented
    n_norm = len(normalized_shape)
    inner = list(range(input.dim() - n_norm, input.dim()))
    outer = list(range(input.dim() - n_norm))
    x_hat = (input - mean) * rstd
    g = grad_out * weight if weight is not None else grad_out
    d_input = d_weight = d_bias = None
    if output_mask[0]:
        d_input = rstd * (g - g.mean(inner, keepdim=True) - x_hat * (g * x_hat).mean(inner, keepdim=True))
    if output_mask[1] and weight is not None:
        d_weight = (grad_out * x_hat).sum(outer) if outer else grad_out * x_hat
    if output_mask[2] and bias is not None:
        d_bias = grad_out.sum(outer) if outer else grad_out.clone()
    return d_input, d_weight, d_bias


def batch_statistics_f64(input):
    """A batch's per-channel mean (keepdim, f64) and sum of squared
    deviations from it (f64), summed in f64 as PyTorch's CPU kernel sums
    them.  native_batch_norm normalises with them and step.loss_fn updates
    the running statistics from them: the same ops, which CSE merges."""
    dims = [0] + list(range(2, input.dim()))
    x64 = input.to(torch.float64)
    mean64 = x64.sum(dims, keepdim=True) / (input.numel() // input.shape[1])
    centered64 = x64 - mean64
    return mean64, (centered64 * centered64).sum(dims)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Training-mode batch norm of an f32 input with the batch mean summed in
    f64, as PyTorch's CPU kernel sums it (batch_norm_cpu_collect_stats:
    acc_type<float> is double) and as torch-mlir's own lowering already sums
    the mean its variance is taken about.  That lowering then normalises with
    a second mean, summed in f32 one element after another over N*H*W: in
    torchvision's RegNetX-400MF (2048 values a channel in the first blocks)
    20-70x further from float64 than eager's, an error the following
    batch norms amplify (near-constant channels: large 1/std) until every
    activation is 2-3x further from float64 than eager's and ReLU masks
    differ from float64's where eager's do not (12 against 2): each such
    element moves the gradient of everything below it (the step's gradients
    were up to 5000x further from float64 than eager's).  Here the one f64
    mean serves both, rounded to f32 for the normalisation (the f32 mean
    eager saves, bit for bit); the rest is torch-mlir's lowering: the
    variance in f64 about the f64 mean, rstd = rsqrt(f32(var) + eps) in f32,
    (x - mean) * rstd * w + b.  With running statistics to update in place
    (the importer passes none: models.normalize_for_training) or in eval
    mode: torch-mlir's lowering."""
    if (input.dtype != torch.float32 or not training or running_mean is not None or running_var is not None
            or input.numel() == 0):
        return NotImplemented
    n = input.numel() // input.shape[1]
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    mean64, squares64 = batch_statistics_f64(input)
    var = squares64 / n
    mean = mean64.reshape(-1).to(torch.float32)
    rstd = torch.rsqrt(var.to(torch.float32) + eps)
    out = (input - mean.reshape(shape)) * rstd.reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out, mean, rstd


def as_strided(self, size, stride, storage_offset=None):
    """A row-major view of a whole contiguous tensor is a reshape.  ATen's
    adaptive_avg_pool2d to 1x1 restrides its result in place when the input
    looks channels-last (ConvNeXt's LayerNorm2d permutes make it so), and the
    backward of that as_strided_ is a scatter into a zero storage, which
    torch-mlir lowers to index ops on int64 literals it cannot legalize."""
    if _whole_contiguous_view(self, size, stride, storage_offset):
        return self.reshape(size)
    return NotImplemented


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    """Scattering into the whole of a contiguous base in row-major order
    replaces it: src reshaped to the base's shape (see as_strided).  Any
    other view of a contiguous base (Longformer's overlapping chunks, whose
    in-place writes functionalize to this) is a gather with a constant index
    map: element j of the base takes the src element written to it (the last
    one where windows overlap), or keeps its value; torch-mlir's own form does
    not legalize."""
    if _whole_contiguous_view(self, size, stride, storage_offset):
        return src.reshape(self.shape).clone()
    offset = self.storage_offset() if storage_offset is None else storage_offset
    if not self.is_contiguous() or self.storage_offset() != 0:
        return NotImplemented
    with disable_proxy_modes_tracing():  # constants of the graph
        pos = torch.full((), offset, dtype=torch.int64)
        for n, st in zip(size, stride):
            pos = pos.unsqueeze(-1) + torch.arange(n, dtype=torch.int64) * st
        pos = pos.reshape(-1)
        if pos.numel() and (int(pos.min()) < 0 or int(pos.max()) >= self.numel()):
            return NotImplemented
        source = torch.full((self.numel(),), -1, dtype=torch.int64)
        source[pos] = torch.arange(pos.numel(), dtype=torch.int64)  # repeated positions: the last wins
        written = source >= 0
        source = source.clamp(min=0)
    out = torch.where(written, src.reshape(-1)[source], self.reshape(-1))
    return out.reshape(self.shape)


OWN = {
    aten.max_pool2d_with_indices_backward.default: max_pool2d_with_indices_backward,
    aten.max_pool3d_with_indices_backward.default: max_pool3d_with_indices_backward,
    aten.avg_pool2d_backward.default: avg_pool2d_backward,
    aten.avg_pool3d_backward.default: avg_pool3d_backward,
    aten.convolution_backward.default: convolution_backward,
    aten.convolution.default: convolution,
    aten.upsample_bilinear2d_backward.default: upsample_bilinear2d_backward,
    aten.upsample_nearest2d_backward.default: upsample_nearest2d_backward,
    # PyTorch's own (gathers and lerps); torch-mlir's lowering of the op
    # leaves torch.constant.int behind.
    aten.upsample_bilinear2d.default: torch_decompositions[aten.upsample_bilinear2d.default],
    aten.upsample_bicubic2d.default: torch_decompositions[aten.upsample_bicubic2d.default],
    aten.erfinv.default: erfinv,
    aten._cdist_forward.default: cdist_forward,
    aten._cdist_backward.default: cdist_backward,
    aten.upsample_bicubic2d_backward.default: upsample_bicubic2d_backward,
    aten.upsample_trilinear3d.default: torch_decompositions[aten.upsample_trilinear3d.default],
    aten.upsample_trilinear3d_backward.default: upsample_trilinear3d_backward,
    aten.upsample_nearest3d_backward.default: upsample_nearest3d_backward,
    aten.embedding_dense_backward.default: embedding_dense_backward,
    aten._embedding_bag.default: embedding_bag,
    aten.embedding_bag.padding_idx: embedding_bag_padding_idx,
    aten._embedding_bag_backward.default: embedding_bag_backward,
    aten._embedding_bag_per_sample_weights_backward.default: embedding_bag_per_sample_weights_backward,
    aten.as_strided.default: as_strided,
    aten.native_layer_norm.default: native_layer_norm,
    aten.native_layer_norm_backward.default: native_layer_norm_backward,
    aten.native_batch_norm.default: native_batch_norm,
    aten.as_strided_scatter.default: as_strided_scatter,
    aten.index.Tensor: index_tensor,
    aten.index_put.default: index_put,
    aten._adaptive_avg_pool2d_backward.default: adaptive_avg_pool2d_backward,
    aten._adaptive_avg_pool3d_backward.default: adaptive_avg_pool3d_backward,
    aten.replication_pad1d_backward.default: replication_pad_backward,
    aten.replication_pad2d_backward.default: replication_pad_backward,
    aten.replication_pad3d_backward.default: replication_pad_backward,
    aten._unsafe_index_put.default: index_put,
    aten.constant_pad_nd.default: constant_pad_nd,
    aten.cumsum.default: cumsum,
    aten.topk.default: topk,
    aten.sort.default: sort,
    aten.sort.stable: sort_stable,
    aten.scatter.src: scatter_src,
    aten.scatter.value: scatter_value,
    aten.scatter_add.default: scatter_add,
    aten.scatter_reduce.two: scatter_reduce,
    aten.histc.default: histc,
    aten.masked_scatter.default: masked_scatter,
    aten.gelu.default: gelu,
    aten.masked_scatter_backward.default: masked_scatter_backward,
    aten.kthvalue.default: kthvalue,
    aten.median.dim: median_dim,
    aten.nanmedian.dim: nanmedian_dim,
    aten.cumprod.default: cumprod,
    aten.logcumsumexp.default: logcumsumexp,
    aten.cummax.default: cummax,
    aten.cummin.default: cummin,
    aten._grouped_mm.default: grouped_mm,
    aten.adaptive_max_pool2d_backward.default: adaptive_max_pool2d_backward,
    aten.adaptive_max_pool3d_backward.default: adaptive_max_pool3d_backward,
}


def table(without=()):
    """torch-mlir's decomposition table with ours; `without` names aten ops
    (aten.avg_pool3d_backward) left to torch-mlir's own lowering, to see
    whether it lowers them (--no-decomposition)."""
    from . import UserError
    t = dict(get_decomposition_table())
    t.update(OWN)
    known = {str(op) for op in t} | {str(op).rsplit(".", 1)[0] for op in t}
    for name in without:
        name = name.replace("::", ".")
        if name not in known:
            raise UserError(f"--no-decomposition {name}: no decomposition of that aten op "
                            "(spelled aten.<op> or aten.<op>.<overload>)")
        for op in [op for op in t if name in (str(op), str(op).rsplit(".", 1)[0])]:
            del t[op]
    return t
