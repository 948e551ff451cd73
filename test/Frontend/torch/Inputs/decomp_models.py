"""Small models for test/Frontend/torch/decompositions-*.test: one per op of
the importer's decomposition layer (python/mpt_import_torch/decomp.py),
with the variants that change its code paths.  Each factory takes no
arguments (mpt-import-torch --model FILE.py:FACTORY)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSDPA(nn.Module):
    """F.scaled_dot_product_attention, causal, 2 heads (fused flash op in eager)."""
    example_input_shape = (2, 8, 16)

    def __init__(self, causal=True, mask=False):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 5)
        self.causal = causal
        self.mask = mask

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, 2, d // 2).permute(2, 0, 3, 1, 4)
        # An additive float mask (as HF models pass), else is_causal.
        mask = torch.triu(torch.full((t, t), -1e4), diagonal=1) if self.mask else None
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.causal and not self.mask)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


def sdpa_causal():
    return CausalSDPA()


def sdpa_mask():
    return CausalSDPA(mask=True)


class Encoder(nn.Module):
    """nn.TransformerEncoder (MultiheadAttention calls SDPA inside)."""
    example_input_shape = (2, 8, 16)

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.out = nn.Linear(16, 5)

    def forward(self, x):
        return self.out(self.enc(x))


def encoder():
    return Encoder()


class GroupedConv(nn.Module):
    """Depthwise (stride 2, multiplier 2), grouped (dilation 2), with and without bias."""
    example_input_shape = (2, 4, 9, 9)

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=4)
        self.g2 = nn.Conv2d(8, 6, 3, padding=2, dilation=2, groups=2, bias=False)
        self.out = nn.Linear(6, 5)

    def forward(self, x):
        return self.out(F.relu(self.g2(F.relu(self.dw(x)))).mean((2, 3)))


def grouped_conv():
    return GroupedConv()


class TokenModel(nn.Module):
    """Integer token input (make_example_input), embedding, mean over tokens."""
    example_input_shape = (2, 8)

    def __init__(self, vocab=20, padding_idx=None, scale_grad_by_freq=False):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, 16, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
        self.out = nn.Linear(16, 5)

    def make_example_input(self, shape, generator):
        return torch.randint(0, self.vocab, shape, generator=generator)

    def forward(self, ids):
        return self.out(self.emb(ids))


def embedding():
    return TokenModel()


def embedding_padding_freq():
    return TokenModel(vocab=7, padding_idx=3, scale_grad_by_freq=True)


class RNN(nn.Module):
    example_input_shape = (2, 6, 8)

    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(8, 12, num_layers=2, batch_first=True)
        self.out = nn.Linear(12, 5)

    def forward(self, x):
        return self.out(self.rnn(x)[0])


def lstm():
    return RNN(nn.LSTM)


def gru():
    return RNN(nn.GRU)


class AvgPool(nn.Module):
    """avg_pool2d: ceil_mode without counting padding, and padding counted."""
    example_input_shape = (2, 3, 9, 9)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 2)  # 9x9 -> 8x8
        self.p1 = nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False)
        self.p2 = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=True)
        self.out = nn.Linear(4 * 4 * 4 + 4 * 3 * 3, 5)

    def forward(self, x):
        x = self.conv(x)
        return self.out(torch.cat([self.p1(x).flatten(1), self.p2(x[:, :, :5, :5]).flatten(1)], 1))


def avg_pool():
    return AvgPool()


class Unsupported(nn.Module):
    """Ops the importer cannot take (for the error test): torch.special.i1
    (torch-mlir has no lowering), a non-accumulating index_put with a 2-D
    index tensor (tm_tensor.scatter; index_add's accumulating one decomposes:
    index_add below), rand_like
    (random numbers other than the Bernoulli draws of dropout)."""
    example_input_shape = (2, 16)

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16, 5)

    def forward(self, x):
        h = self.fc(x)
        if self.kind == "i1":
            h = torch.special.i1(h)
        elif self.kind == "index_add":
            h = h.index_add(1, torch.tensor([1, 3]), h[:, :2])
        elif self.kind == "scatter2":
            h = h * torch.zeros(16, dtype=torch.long).index_put((h.argmax(1),), torch.ones(2, dtype=torch.long), True)
        elif self.kind == "rand":
            h = h * torch.rand_like(h)
        elif (h > 0).any():  # a branch on the data (XLM asserts on .item() of its lengths)
            h = h * 2
        return self.out(h)


def unsupported_i1():
    return Unsupported("i1")


def index_add():
    return Unsupported("index_add")


def unsupported_scatter():
    return Unsupported("scatter2")


def unsupported_rand():
    return Unsupported("rand")


def unsupported_branch():
    return Unsupported("branch")


class StridedConv(nn.Module):
    """Ungrouped stride-2 convolutions (3x3 padded, and a 1x1 projection as in a
    ResNet downsample block); the height is even, so the last window stops
    short of the padded input and the weight gradient's dilated convolution
    is cropped (to 3 of 4 rows, 1 of 2), the width odd (no crop)."""
    example_input_shape = (3, 4, 10, 9)

    def __init__(self):
        super().__init__()
        self.c3 = nn.Conv2d(4, 6, 3, stride=2, padding=1)
        self.c1 = nn.Conv2d(4, 6, 1, stride=2, bias=False)
        self.out = nn.Linear(6, 5)

    def forward(self, x):
        return self.out(F.relu(self.c3(x) + self.c1(x)).mean((2, 3)))


def strided_conv():
    return StridedConv()


class DepthwiseConv(nn.Module):
    """Input gradients of grouped convolutions with one input channel per
    group (MobileNet/EfficientNet/ShuffleNet's depthwise 3x3 and 5x5, stride 1
    and 2), and the edge cases of their zero insertion and padding: padding
    beyond the kernel's reach (cropped), stride 3 with a 2x2 kernel, dilation
    with a 3x1 kernel on an odd, non-square input."""
    example_input_shape = (2, 4, 9, 8)

    def __init__(self):
        super().__init__()
        self.pre = nn.Conv2d(4, 4, 1)  # so that the input gradient is needed
        self.dw3 = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.dw5 = nn.Conv2d(4, 4, 5, stride=2, padding=2, groups=4)
        self.wide = nn.Conv2d(4, 4, 3, padding=2, groups=4, bias=False)
        self.g2 = nn.Conv2d(4, 8, 2, stride=3, groups=2, bias=False)
        self.dil = nn.Conv2d(8, 8, (3, 1), stride=(2, 1), padding=(3, 0), dilation=(2, 1), groups=8)
        self.out = nn.Linear(8, 5)

    def forward(self, x):
        x = self.pre(x)
        x = F.relu(self.dw3(x)) + F.relu(x)
        x = F.relu(self.wide(self.dw5(x)))
        return self.out(self.dil(F.relu(self.g2(x))).mean((2, 3)))


def depthwise_conv():
    return DepthwiseConv()


class ChannelsLastPool(nn.Module):
    """ConvNeXt's LayerNorm2d (permute, layer_norm, permute back) before
    AdaptiveAvgPool2d(1): the input looks channels-last, so ATen's pooling
    restrides its 1x1 result with as_strided_, whose backward scatters into a
    zero storage (as_strided_scatter)."""
    example_input_shape = (2, 3, 6, 6)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.LayerNorm(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.out = nn.Linear(8, 5)

    def forward(self, x):
        x = self.norm(self.conv(x).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.out(self.pool(x).flatten(1))


def channels_last_pool():
    return ChannelsLastPool()


class WideLayerNorm(nn.Module):
    """A layer norm over 256 features between two linears: torch's own
    layer-norm backward decomposition holds 256 x the gradient, which
    overflows f16 under a 65536 loss scale."""
    example_input_shape = (8, 256)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 256)
        self.ln = nn.LayerNorm(256)
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.ln(self.fc(x)))


def wide_layer_norm():
    return WideLayerNorm()


class RelativeBias(nn.Module):
    """A parameter table gathered by a constant index buffer (Swin's and
    MaxViT's relative position bias): its backward is an accumulating
    index_put (torch-mlir: tm_tensor.scatter)."""
    example_input_shape = (2, 4, 8)

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(7, 2))
        self.register_buffer("index", torch.tensor([[0, 1, 2, 3], [6, 5, 4, 3], [1, 1, 1, 1], [-1, 0, -7, 2]]))
        self.fc = nn.Linear(8, 8)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        bias = self.table[self.index].permute(2, 0, 1)  # [2 heads, 4, 4]; rows repeat, negative indices
        att = self.fc(x).unsqueeze(1) @ x.unsqueeze(1).transpose(-1, -2) + bias.unsqueeze(0)
        return self.head((att.softmax(-1) @ x.unsqueeze(1)).mean(1))


def relative_bias():
    return RelativeBias()


class InnerListIndex(nn.Module):
    """A list index on an inner dimension of an activation (Falcon's fused
    QKV split: fused[..., :-2, :], fused[..., [-2], :], fused[..., [-1], :]),
    plus a repeated index: its backward is an accumulating index_put whose
    one index tensor is not on the first dimension."""
    example_input_shape = (2, 4, 8)

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 4 * 6)
        self.head = nn.Linear(6, 5)

    def forward(self, x):
        fused = self.qkv(x).view(2, 4, 4, 6)
        q, k, v = fused[..., :-2, :], fused[..., [-2], :], fused[:, :, [3, 3], :]
        att = (q @ k.transpose(-1, -2)).softmax(-2)
        return self.head((att * v[:, :, :1] + v[:, :, 1:]).mean((1, 2)))


def inner_list_index():
    return InnerListIndex()


class AdaptivePool(nn.Module):
    """Adaptive average pools whose output is larger than 1x1: 5x7 -> 3x4
    (overlapping windows) and 1x1 -> 2x2 (VGG's 7x7 pool of a 1x1 map
    repeats it)."""
    example_input_shape = (2, 3, 5, 7)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.fc = nn.Linear(4 * 12 + 4 * 4, 5)

    def forward(self, x):
        h = self.conv(x)
        a = F.adaptive_avg_pool2d(h, (3, 4)).flatten(1)
        b = F.adaptive_avg_pool2d(h.mean((2, 3), keepdim=True), 2).flatten(1)
        return self.fc(torch.cat([a, b], 1))


def adaptive_pool():
    return AdaptivePool()


class NegativePad(nn.Module):
    """F.pad with negative amounts (a crop) mixed with positive ones, with a
    fill value, and Swin's window padding (bottom/right, then cropped back),
    whose backward pads the gradient by the negated amounts."""
    example_input_shape = (2, 3, 5, 6)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.fc = nn.Linear(4 * 5 * 7 + 4 * 8 * 8, 5)

    def forward(self, x):
        h = self.conv(x)
        # Crop 1 left and 2 bottom, pad 2 right and 1 top with 0.5: [.., 5+1-2, 6-1+2] = [.., 4, 7].
        a = F.pad(h, (-1, 2, 1, -2), value=0.5)
        a = F.pad(a, (0, 0, -1, 2))  # [.., 5, 7]
        # Swin: pad to the window size (8), attend, crop back.
        b = F.pad(h, (0, 2, 0, 3)).tanh()
        return self.fc(torch.cat([a.flatten(1), b.flatten(1)], 1))


def negative_pad():
    return NegativePad()


class ReadsValue(nn.Module):
    """Reads tensor values in Python (XLM's `assert lengths.max().item() <=
    slen`, an `if` on a tensor) and, through a tensor-op shape computation,
    a constant of the trace (Longformer's chunk count)."""
    example_input_shape = (2, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def make_example_input(self, shape, generator):
        return torch.randint(0, 4, shape, generator=generator).float()

    def forward(self, x):
        lengths = (x != 0).sum(1)
        assert lengths.max().item() <= x.shape[1]
        chunks = int(torch.div(x.shape[1], 4, rounding_mode="trunc"))  # a constant: no guard
        h = self.fc(x.view(x.shape[0], chunks, 4).flatten(1))
        if (x == 3).any():
            h = h * 2
        return h


def reads_value():
    return ReadsValue()


class StridedWrite(nn.Module):
    """An in-place write through an as_strided view that is not the whole
    tensor (Longformer's chunking): functionalized to as_strided_scatter."""
    example_input_shape = (2, 12)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        buf = self.fc(x) * 0.5
        win = buf.as_strided((2, 2, 4), (12, 6, 1), 1)  # windows of 4 at 1 and 7 of each row
        win.mul_(torch.tanh(win))
        return self.out(buf)


def strided_write():
    return StridedWrite()


class Cumsum(nn.Module):
    """cumsum of an int mask (HF position ids from padding) and of floats
    along an odd length (7: shifts 1, 2, 4, the last one partial)."""
    example_input_shape = (2, 7)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(7, 7)
        self.out = nn.Linear(14, 3)

    def forward(self, x):
        m = (x > 0).int()
        pos = torch.cumsum(m, dim=1).type_as(m) * m
        h = torch.cumsum(self.fc(x), -1)
        return self.out(torch.cat([h, pos.float()], 1))


def cumsum():
    return Cumsum()


class UnusedBranch(nn.Module):
    """A layer the forward pass skips for every batch (Longformer's global
    attention without global tokens): its parameters get zero gradients."""
    example_input_shape = (4, 6)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)
        self.global_proj = nn.Linear(6, 6)
        self.use_global = False

    def forward(self, x):
        if self.use_global:
            x = x + self.global_proj(x)
        return self.fc(x)


def unused_branch():
    return UnusedBranch()


class _TanhGelu(torch.autograd.Function):
    """An old-style autograd.Function (forward takes ctx, no setup_context),
    as BLOOM's GeLUFunction: a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t = torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x))
        return g * (0.5 * x * ((1 - t * t) * (0.79788456 + 0.1070322243 * x * x)) + 0.5 * (1 + t))


class _StraightThroughRound(torch.autograd.Function):
    """Rounding with the identity as its gradient (a straight-through
    estimator): a backward that is not the derivative of the forward, so
    only the Function's own backward gives eager PyTorch's gradients."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return torch.round(x * scale) / scale

    @staticmethod
    def backward(ctx, g):
        return g, None


class CustomFunction(nn.Module):
    example_input_shape = (4, 8)

    def __init__(self, function):
        super().__init__()
        self.function = function
        self.fc = nn.Linear(8, 16)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        h = self.fc(x)
        h = _TanhGelu.apply(h) if self.function == "gelu" else _StraightThroughRound.apply(h, 4.0)
        return self.head(h)


def old_style_gelu():
    return CustomFunction("gelu")


def straight_through():
    return CustomFunction("round")


class TransposedConv(nn.Module):
    """Transposed convolutions (a decoder's upsampling) after a strided
    convolution: stride 2 with padding and output padding (the output gets
    rows that no input window reaches), a grouped one with dilation, and a
    plain 2x2 stride-2 one without bias."""
    example_input_shape = (2, 3, 9, 8)

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.grouped = nn.ConvTranspose2d(6, 4, 3, stride=1, padding=2, dilation=2, groups=2)
        self.plain = nn.ConvTranspose2d(4, 5, 2, stride=2, bias=False)
        self.out = nn.Linear(5, 4)

    def forward(self, x):
        y = F.relu(self.up(F.relu(self.down(x))))
        return self.out(self.plain(F.relu(self.grouped(y))).mean((2, 3)))


def transposed_conv():
    return TransposedConv()


class StridedInputGrad(nn.Module):
    """Strided convolutions whose input gradient is needed (each after
    another layer): 3x3 stride 2 padded, 1x1 stride 2 (a downsample), 4x4
    stride 2 padded (an even kernel), 5x5 stride 3 (a ragged last phase)."""
    example_input_shape = (2, 3, 23, 21)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv2d(3, 4, 3, padding=1)
        self.c1 = nn.Conv2d(4, 6, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(6, 6, 1, stride=2, bias=False)
        self.c3 = nn.Conv2d(6, 5, 4, stride=2, padding=1)
        self.c4 = nn.Conv2d(4, 5, 5, stride=3, padding=2)
        self.out = nn.Linear(5, 3)

    def forward(self, x):
        y = F.relu(self.c0(x))
        z = self.c3(F.relu(self.c2(F.relu(self.c1(y)))))
        return self.out(z.mean((2, 3)) + self.c4(y).mean((2, 3)))


def strided_input_grad():
    return StridedInputGrad()


class FixedStridedConv(nn.Module):
    """Strided convolutions with fixed weights (buffers: a fixed downsampling
    filter, a frozen projection) after a trained layer: their backward needs
    the input gradient alone, 3x3 stride 2 padded and 2x2 stride 2."""
    example_input_shape = (2, 3, 17, 19)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv2d(3, 4, 3, padding=1)
        self.register_buffer("w1", torch.randn(5, 4, 3, 3) / 6)
        self.register_buffer("w2", torch.randn(5, 4, 2, 2) / 4)
        self.out = nn.Linear(5, 3)

    def forward(self, x):
        y = F.relu(self.c0(x))
        a = F.conv2d(y, self.w1, stride=2, padding=1)
        b = F.conv2d(y, self.w2, stride=2)
        return self.out(F.relu(a).mean((2, 3)) + b.mean((2, 3)))


def fixed_strided_conv():
    return FixedStridedConv()


class FrozenMiddle(nn.Module):
    """Fine-tuning: a frozen block (requires_grad=False: a strided
    convolution and its BatchNorm's affine parameters) between a trained stem
    and a trained head, so the backward needs the frozen convolution's input
    gradient but none of the frozen parameters' gradients."""
    example_input_shape = (2, 3, 16, 16)

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.block = nn.Sequential(nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.BatchNorm2d(6), nn.ReLU())
        self.head = nn.Linear(6, 3)
        for p in self.block.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.head(self.block(F.relu(self.stem(x))).mean((2, 3)))


def frozen_middle():
    return FrozenMiddle()


class Conv1dFamily(nn.Module):
    """1-D convolutions (audio, sequence models): a dilated one (a temporal
    convolutional network's), a strided one whose input gradient is needed,
    a depthwise strided one, a transposed one with stride, padding and
    output padding, and a grouped dilated transposed one."""
    example_input_shape = (2, 4, 19)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv1d(4, 4, 3, padding=1)
        self.tcn = nn.Conv1d(4, 4, 3, padding=2, dilation=2)
        self.down = nn.Conv1d(4, 8, 4, stride=3, padding=1)
        self.dw = nn.Conv1d(8, 8, 5, stride=2, padding=2, groups=8)
        self.up = nn.ConvTranspose1d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.grouped = nn.ConvTranspose1d(6, 4, 3, padding=2, dilation=2, groups=2)
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        y = F.relu(self.tcn(F.relu(self.c0(x))))
        y = F.relu(self.dw(F.relu(self.down(y))))
        return self.out(F.relu(self.grouped(F.relu(self.up(y)))).mean(2))


def conv1d_family():
    return Conv1dFamily()


class Conv3dFamily(nn.Module):
    """3-D convolutions (video, volumes: a 3-D U-Net): stride 1, a grouped
    one, stride 2 after another layer, a transposed one with stride and
    output padding and a grouped transposed one."""
    example_input_shape = (2, 3, 6, 7, 5)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv3d(3, 4, 3, padding=1)
        self.dw = nn.Conv3d(4, 4, 3, padding=1, groups=2, bias=False)
        self.down = nn.Conv3d(4, 6, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose3d(6, 4, 3, stride=2, padding=1, output_padding=1)
        self.grouped = nn.ConvTranspose3d(4, 4, 2, groups=2, bias=False)
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        y = F.relu(self.down(F.relu(self.dw(F.relu(self.c0(x))))))
        return self.out(self.grouped(F.relu(self.up(y))).mean((2, 3, 4)))


def conv3d_family():
    return Conv3dFamily()


class AtrousConv(nn.Module):
    """Dilated ungrouped 2-D convolutions (DeepLab's atrous convolutions):
    stride 1 with dilation 2, and stride 2 with dilation (2, 1)."""
    example_input_shape = (2, 3, 13, 12)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv2d(3, 4, 3, padding=1)
        self.atrous = nn.Conv2d(4, 6, 3, padding=2, dilation=2)
        self.strided = nn.Conv2d(6, 5, 3, stride=2, padding=2, dilation=(2, 1))
        self.out = nn.Linear(5, 3)

    def forward(self, x):
        return self.out(self.strided(F.relu(self.atrous(F.relu(self.c0(x))))).mean((2, 3)))


def atrous_conv():
    return AtrousConv()


class Upsample(nn.Module):
    """F.interpolate as segmentation heads and FPNs use it: bilinear to a
    size (align_corners False) and by a scale factor (align_corners True and
    False), nearest by per-axis scale factors and to a size."""
    example_input_shape = (2, 3, 7, 6)

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv2d(3, 4, 3, padding=1)
        self.c1 = nn.Conv2d(4, 4, 3, padding=1)
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        y = F.relu(self.c0(x))
        a = self.c1(F.interpolate(y, size=(13, 11), mode="bilinear", align_corners=False))
        b = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=True)
        c = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        d = F.interpolate(y, scale_factor=(2, 3), mode="nearest")
        e = F.interpolate(y, size=(10, 9), mode="nearest")
        z = (a.mean((2, 3)) + (b[:, :, 3:, 1:] ** 2).mean((2, 3)) + (c[:, :, :13, :11] * a).mean((2, 3))
             + (d * d).mean((2, 3)) + e.amax((2, 3)))
        return self.out(z)


def upsample():
    return Upsample()


class TopKRouter(nn.Module):
    """A mixture of experts' router: top-k of a softmax (for the error test)."""
    example_input_shape = (2, 16)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16, 5)

    def forward(self, x):
        h = self.fc(x)
        return self.out(torch.cat([torch.topk(h.softmax(-1), 2, -1)[0], h[:, 2:]], 1))


def unsupported_topk():
    return TopKRouter()


def topk_router():
    return TopKRouter()


class MoE(nn.Module):
    """A mixture of experts as Mixtral routes it: softmax over 4 experts,
    top-2, the two weights renormalised, each token's output the weighted
    sum of its experts' (computed densely: every expert on every token, the
    gates zero where an expert was not picked, as transformers'
    batched_mm experts do); the gates are a scatter of the top-2 weights
    into the 4 experts."""
    example_input_shape = (2, 8, 16)

    def __init__(self):
        super().__init__()
        self.router = nn.Linear(16, 4, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 16))
                                     for _ in range(4))
        self.out = nn.Linear(16, 5)

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        weights, chosen = torch.topk(probs, 2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        gates = torch.zeros_like(probs).scatter(-1, chosen, weights)
        y = sum(gates[..., e:e + 1] * expert(x) for e, expert in enumerate(self.experts))
        return self.out((x + y).mean(1))


def moe():
    return MoE()


class GroupedMoE(MoE):
    """The same routing with the experts run as transformers' grouped_mm
    experts run them (its default): the (token, expert) pairs sorted by
    expert, counted per expert with histc, their offsets a cumsum, one
    F.grouped_mm per projection, the sort's permutation inverted by an
    index_put, each token's two outputs summed."""

    def __init__(self):
        super().__init__()
        self.up = nn.Parameter(torch.randn(4, 16, 32) / 4)
        self.down = nn.Parameter(torch.randn(4, 32, 16) / 6)

    def forward(self, x):
        tokens = x.reshape(-1, 16)
        probs = self.router(tokens).softmax(-1)
        weights, chosen = torch.topk(probs, 2, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).reshape(-1)
        expert, perm = torch.sort(chosen.reshape(-1))
        counts = torch.histc(expert.float(), bins=4, min=0, max=3)
        offsets = torch.cumsum(counts, dim=0, dtype=torch.int32)
        h = F.silu(F.grouped_mm(tokens[perm // 2], self.up, offs=offsets))
        h = F.grouped_mm(h, self.down, offs=offsets) * weights[perm].unsqueeze(-1)
        inverse = torch.empty_like(perm)
        inverse[perm] = torch.arange(perm.shape[0])
        y = h[inverse].view(-1, 2, 16).sum(1).view_as(x)
        return self.out((x + y).mean(1))


def grouped_moe():
    return GroupedMoE()


class Selections(nn.Module):
    """Value-selecting reductions and sorts: torch.max over a dimension (its
    backward scatters the gradient to the argmax), the smallest 3 of each
    row, a descending sort and an argsort used as an index, a one-hot."""
    example_input_shape = (4, 16)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 24)
        self.out = nn.Linear(6 + 3 + 4 + 4, 5)

    def forward(self, x):
        h = self.fc(x)
        top = h.view(-1, 6, 4).max(dim=-1).values
        low = torch.topk(h, 3, dim=1, largest=False).values
        ordered = torch.sort(h[:, :4], dim=1, descending=True).values
        ranked = torch.gather(h[:, 4:8], 1, torch.argsort(h[:, 8:12], dim=1))
        return self.out(torch.cat([top, low, ordered, ranked], 1))


def selections():
    return Selections()


class ShortScatter(nn.Module):
    """A scatter whose index covers 2 of the 4 rows: not decomposed."""
    example_input_shape = (4, 16)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        return h.scatter(1, torch.zeros(2, 3, dtype=torch.int64), 1.0)


def unsupported_short_scatter():
    return ShortScatter()


def _bessel(h):
    """A helper the forward calls: the op's own line is the one to name."""
    return torch.special.i1(h)


class HelperOp(nn.Module):
    """An op torch-mlir cannot lower, issued in a function the forward calls."""
    example_input_shape = (2, 16)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        return _bessel(self.fc(x))


def unsupported_in_helper():
    return HelperOp()


class ScansAndMedians(nn.Module):
    """Prefix products, log-sum-exps, maxima and minima (torch-mlir:
    tm_tensor.scan, or not legalized) and order statistics (median,
    nanmedian, kthvalue: not legalized, or tm_tensor.topk), each with a
    gradient."""
    example_input_shape = (4, 16)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16 * 4 + 3, 5)

    def forward(self, x):
        h = self.fc(x)
        scans = [torch.cumprod(h.tanh() + 1, 1), torch.logcumsumexp(h, 1), h.cummax(1).values, h.cummin(1).values]
        stats = [h.median(1, keepdim=True).values, h.nanmedian(1, keepdim=True).values,
                 h.kthvalue(5, 1, keepdim=True).values]
        return self.out(torch.cat(scans + stats, 1))


def scans_and_medians():
    return ScansAndMedians()


class GraphAggregation(nn.Module):
    """Message passing as graph networks write it: each edge's message (a
    gather of its source node) reduced into its destination node by
    scatter_reduce over dimension 0: mean and amax without the node's own
    value, sum with it; node 4 receives nothing."""
    example_input_shape = (6, 16)

    def __init__(self):
        super().__init__()
        self.message = nn.Linear(16, 16)
        self.out = nn.Linear(48, 5)
        self.register_buffer("dst", torch.tensor([0, 1, 1, 2, 3, 3, 3, 5, 0, 2]))
        self.register_buffer("src", torch.tensor([1, 0, 2, 1, 0, 2, 4, 4, 5, 3]))

    def forward(self, x):
        m = self.message(x)[self.src]
        idx = self.dst.unsqueeze(1).expand(-1, 16)
        mean = torch.zeros_like(x).scatter_reduce(0, idx, m, "mean", include_self=False)
        peak = torch.zeros_like(x).scatter_reduce(0, idx, m, "amax", include_self=False)
        total = x.scatter_reduce(0, idx, m, "sum")
        return self.out(torch.cat([mean, peak, total], 1))


def graph_aggregation():
    return GraphAggregation()


class BagRecommender(nn.Module):
    """A DLRM-style recommender: nn.EmbeddingBag tables (sum over bags
    given by offsets with learned per-sample weights, mean over fixed-length
    bags with a padding index, max over offsets with an empty bag) beside a
    dense MLP, then pairwise dot interactions. torch-mlir lowers only some
    forms of embedding_bag and none of its backward."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.summed = nn.EmbeddingBag(20, 8, mode="sum")
        self.averaged = nn.EmbeddingBag(12, 8, mode="mean", padding_idx=0)
        self.peak = nn.EmbeddingBag(10, 8, mode="max")
        self.weights = nn.Parameter(torch.linspace(0.5, 1.5, 11))
        self.dense = nn.Linear(8, 8)
        self.out = nn.Linear(6, 5)
        self.register_buffer("flat", torch.tensor([1, 2, 3, 3, 4, 0, 5, 19, 6, 6, 6]))
        self.register_buffer("offsets", torch.tensor([0, 3, 5, 8]))
        self.register_buffer("grid", torch.tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0], [11, 4, 4]]))
        self.register_buffer("peak_ids", torch.tensor([9, 1, 1, 2, 7, 3]))
        self.register_buffer("peak_offsets", torch.tensor([0, 2, 2, 5]))

    def forward(self, x):
        feats = [torch.relu(self.dense(x)),
                 self.summed(self.flat, self.offsets, per_sample_weights=self.weights),
                 self.averaged(self.grid),
                 self.peak(self.peak_ids, self.peak_offsets)]
        pairs = [(feats[i] * feats[j]).sum(1, keepdim=True) for i in range(4) for j in range(i + 1, 4)]
        return self.out(torch.cat(pairs, 1))


def bag_recommender():
    torch.manual_seed(0)
    return BagRecommender()


class ImageTokenMerge(nn.Module):
    """A vision-language model's merge (LLaVA's): projected image patch
    features written into the text embeddings at the image-token positions
    with masked_scatter (mask [B, T, 1] broadcast over the features), then a
    small head; both the patches' projection and the text embeddings train."""
    example_input_shape = (2, 3, 8)

    def __init__(self):
        super().__init__()
        self.project = nn.Linear(8, 16)
        self.embed = nn.Embedding(10, 16)
        self.out = nn.Linear(16, 5)
        self.register_buffer("ids", torch.tensor([[1, 9, 9, 4, 9, 2], [9, 3, 9, 5, 6, 7]]))

    def forward(self, patches):
        text = self.embed(self.ids)
        image = self.project(patches).reshape(-1, 16)[:5]
        merged = text.masked_scatter((self.ids == 9).unsqueeze(-1), image)
        return self.out(torch.tanh(merged).mean(1))


def image_token_merge():
    torch.manual_seed(0)
    return ImageTokenMerge()


class TanhGelu(nn.Module):
    """GELU's tanh approximation (transformers' gelu_pytorch_tanh: Gemma,
    GPT-BigCode) between two linear layers; inputs of order 1 after the
    first layer's unit-variance weights, where the approximation's constant
    matters."""
    example_input_shape = (4, 16)

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(16, 64)
        self.down = nn.Linear(64, 8)
        nn.init.normal_(self.up.weight, std=1.0)

    def forward(self, x):
        return self.down(F.gelu(self.up(x), approximate="tanh"))


def tanh_gelu():
    torch.manual_seed(0)
    return TanhGelu()


class TokenPooling(nn.Module):
    """A sequence classifier's pooling: each sequence's last real token
    (h[arange(B), lengths - 1], transformers' *ForSequenceClassification)
    and the position of its largest id (h[arange(B), ids.argmax(-1)], CLIP's
    EOS pooling): two index tensors on adjacent dimensions, whose backward
    is an accumulating index_put with both."""
    example_input_shape = (3, 6, 8)

    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(8, 8)
        self.out = nn.Linear(16, 5)
        self.register_buffer("lengths", torch.tensor([6, 2, 4]))
        self.register_buffer("ids", torch.tensor([[1, 5, 2, 0, 0, 0], [3, 9, 4, 4, 1, 0], [7, 2, 8, 1, 0, 0]]))

    def forward(self, x):
        h = self.mix(x)
        rows = torch.arange(h.shape[0])
        last = h[rows, self.lengths - 1]
        eos = h[rows, self.ids.argmax(-1)]
        return self.out(torch.cat([last, eos], 1))


def token_pooling():
    torch.manual_seed(0)
    return TokenPooling()


class UnfoldFold(nn.Module):
    """Patches by F.unfold, mixed by a linear layer, put back by F.fold
    (overlapping windows summed): their gradients are index_puts with index
    tensors on two adjacent dimensions."""
    example_input_shape = (2, 3, 6, 6)

    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(12, 12)
        self.out = nn.Linear(108, 5)

    def forward(self, x):
        patches = F.unfold(x, 2, stride=1)                  # [2, 12, 25]
        mixed = self.mix(patches.transpose(1, 2)).transpose(1, 2)
        image = F.fold(mixed, (6, 6), 2, stride=1)           # [2, 3, 6, 6]
        return self.out(image.flatten(1))


def unfold_fold():
    torch.manual_seed(0)
    return UnfoldFold()


class NormedAttention(nn.Module):
    """nn.MultiheadAttention with dropout and a key padding mask, then
    LayerNorm: run-check's float64 import of such a step failed
    (torch.constant.bool from torch-mlir's var_mean) exactly where it was
    needed, to tell an ill-conditioned step from a wrong import."""
    example_input_shape = (2, 6, 16)

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, dropout=0.1, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.out = nn.Linear(16, 5)
        self.register_buffer("pad", torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))

    def forward(self, x):
        a, _ = self.mha(x, x, x, key_padding_mask=self.pad, need_weights=False)
        return self.out(self.norm(x + a).mean(1))


def normed_attention():
    torch.manual_seed(0)
    return NormedAttention()


class PaddedSeq2Seq(nn.Module):
    """nn.Transformer (one pre-norm encoder and decoder layer, GELU, no
    dropout) on token ids with padding (id 0, the last 3 positions of row 1;
    Embedding(padding_idx=0): a zero row), key padding and causal masks.
    The encoder's first layer norm sees the zero rows: 1/std = 1/sqrt(eps)
    = 316 scales their gradient, which reaches the embedding's."""
    example_input_shape = (2, 12)

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 32, padding_idx=0)
        self.tr = nn.Transformer(32, 4, 1, 1, 64, dropout=0.0, batch_first=True, norm_first=True,
                                 activation="gelu")
        self.head = nn.Linear(32, 50)

    def make_example_input(self, shape, generator):
        ids = torch.randint(1, 50, shape, generator=generator)
        ids[1, -3:] = 0
        return ids

    def forward(self, ids):
        x = self.emb(ids)
        pad = ids == 0
        causal = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        y = self.tr(x, x, tgt_mask=causal, src_key_padding_mask=pad, tgt_key_padding_mask=pad,
                    memory_key_padding_mask=pad, tgt_is_causal=True)
        return self.head(y)


def padded_seq2seq():
    torch.manual_seed(0)
    return PaddedSeq2Seq()


class GappedIndex(nn.Module):
    """Index tensors with a gap between them (x[i, :, j], broadcast index
    shapes, a negative index) read and written: PyTorch puts the index
    dimensions first; torch-mlir failed on the gap (torch.vtensor.literal)."""
    example_input_shape = (4, 24)

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(24, 24)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        h = self.lin(x).reshape(4, 2, 3, 4)
        i = torch.arange(4).reshape(4, 1)                    # [4, 1]
        j = torch.arange(3) - 1                              # [3], -1 counts from the end
        picked = h[i, :, j]                                  # [4, 3, 2, 4]
        out = torch.zeros_like(h)
        out[i, :, j] = picked * 2.0                          # non-accumulating write
        return self.out(out.reshape(4, -1)[:, :12] + picked.reshape(4, -1)[:, :12])


def gapped_index():
    torch.manual_seed(0)
    return GappedIndex()


class OwnLoss(nn.Module):
    """Returns its own (scalar) loss: refused with one line."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        return (self.lin(x) - x).pow(2).mean()


def own_loss():
    return OwnLoss()


class Checkpointed(nn.Module):
    """Blocks under torch.utils.checkpoint in its three spellings: imported
    as plain calls (the backward's memory is mpt's decision)."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
        self.b = nn.Sequential(nn.Linear(16, 16), nn.GELU())
        self.c = nn.Sequential(nn.Linear(16, 16), nn.SiLU(), nn.Linear(16, 16), nn.Tanh())
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        from torch.utils.checkpoint import checkpoint, checkpoint_sequential
        h = checkpoint(self.a, x, use_reentrant=False)
        h = checkpoint(lambda t, scale: self.b(t) * scale, h, scale=0.5, use_reentrant=False)
        h = checkpoint(self.c, h, use_reentrant=True) + checkpoint_sequential(self.c, 2, h, use_reentrant=False)
        return self.head(h)


def checkpointed():
    torch.manual_seed(0)
    return Checkpointed()


class Bf16Buffer(nn.Module):
    """A bfloat16 constant (RecurrentGemma's normalizer buffer) cast to the
    activations' dtype in the forward."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.register_buffer("normalizer", torch.tensor(8 ** 0.5, dtype=torch.bfloat16), persistent=False)

    def forward(self, x):
        return self.fc(x * self.normalizer.type(x.dtype))


def bf16_buffer():
    torch.manual_seed(0)
    return Bf16Buffer()


class SpatialTransformer(nn.Module):
    """F.affine_grid + F.grid_sample (a spatial transformer), and a learned
    grid sampled in the other modes: bilinear with reflection and aligned
    corners, nearest with border padding (grid values beyond [-1, 1])."""
    example_input_shape = (2, 3, 6, 5)

    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(3 * 6 * 5, 6)
        with torch.no_grad():
            self.loc.weight.mul_(0.05)
            self.loc.bias.copy_(torch.tensor([0.9, 0.2, 0.1, -0.1, 1.1, 0.0]))
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.grid = nn.Parameter(torch.rand(1, 3, 4, 2) * 2.6 - 1.3)
        self.head = nn.Linear(4 * 4 * 5 + 2 * 4 * 12, 5)

    def forward(self, x):
        theta = self.loc(x.flatten(1)).view(-1, 2, 3)
        grid = F.affine_grid(theta, (x.shape[0], 4, 4, 5), align_corners=False)
        h = self.conv(x)
        a = F.grid_sample(h, grid, align_corners=False)
        g = self.grid.expand(x.shape[0], -1, -1, -1)
        b = F.grid_sample(h, g, padding_mode="reflection", align_corners=True)
        c = F.grid_sample(h, g, mode="nearest", padding_mode="border", align_corners=False)
        return self.head(torch.cat([a.flatten(1), b.flatten(1), c.flatten(1)], 1))


def spatial_transformer():
    torch.manual_seed(0)
    return SpatialTransformer()


class AdaptiveMaxPools(nn.Module):
    """nn.AdaptiveMaxPool1d/2d/3d with overlapping windows (7 -> 3, 5 -> 4),
    where one input element can be the maximum of two windows."""
    example_input_shape = (2, 3, 7, 5)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.pool2 = nn.AdaptiveMaxPool2d((3, 4))
        self.pool1 = nn.AdaptiveMaxPool1d(4)
        self.pool3 = nn.AdaptiveMaxPool3d((2, 3, 4))
        self.head = nn.Linear(4 * 12 + 4 * 7 * 4 + 2 * 3 * 4, 5)

    def forward(self, x):
        h = self.conv(x)
        a = self.pool2(h)
        b = self.pool1(h.flatten(2, 3).reshape(2, 4 * 7, 5))
        c = self.pool3(h.unsqueeze(1))
        return self.head(torch.cat([a.flatten(1), b.flatten(1), c.flatten(1)], 1))


def adaptive_max_pools():
    torch.manual_seed(0)
    return AdaptiveMaxPools()


class BufferEma(nn.Module):
    """Updates a registered buffer in place in its forward: refused with one line."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.register_buffer("ema", torch.zeros(8))

    def forward(self, x):
        with torch.no_grad():
            self.ema.mul_(0.9).add_(0.1 * x.mean(0))
        return self.fc(x - self.ema)


def buffer_ema():
    return BufferEma()


def spectral_normed():
    """torch.nn.utils.parametrizations.spectral_norm: its power iteration
    writes the _u/_v buffers in training mode."""
    from torch.nn.utils.parametrizations import spectral_norm
    torch.manual_seed(0)
    model = nn.Sequential(spectral_norm(nn.Linear(8, 16)), nn.ReLU(), nn.Linear(16, 3))
    model.example_input_shape = (4, 8)
    return model


class InvertibleConv(nn.Module):
    """Glow's invertible 1x1 convolution: the log-determinant of its weight
    (torch.slogdet, torch.linalg.slogdet's named result, torch.logdet and
    torch.det of a batch of matrices), a pivot that must be swapped up (the
    weight's first column starts with a zero)."""
    example_input_shape = (2, 5, 3, 3)

    def __init__(self):
        super().__init__()
        w = torch.linalg.qr(torch.randn(5, 5))[0]
        w[0, 0] = 0.0
        self.w = nn.Parameter(w)
        self.pair = nn.Parameter(torch.eye(2).repeat(3, 1, 1) + 0.3 * torch.randn(3, 2, 2))
        self.head = nn.Linear(5 * 9, 4)

    def forward(self, x):
        z = F.conv2d(x, self.w[:, :, None, None])
        sign, logabs = torch.slogdet(self.w)
        spd = self.w @ self.w.t() + torch.eye(5)
        extra = torch.linalg.slogdet(self.w).logabsdet + torch.logdet(spd) + torch.det(self.pair).sum()
        out = self.head(z.flatten(1))
        return out + (sign * logabs * 9 + extra * 0.1)


def invertible_conv():
    torch.manual_seed(0)
    return InvertibleConv()


class BlockScatter(nn.Module):
    """scatter_ into one block of a 5-D view of a zeros tensor (BigBird's
    block-sparse attention probabilities)."""
    example_input_shape = (2, 8)

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        a = torch.zeros(2, 8, 8)
        v = a.view(2, 4, 2, 4, 2)
        idx = torch.tensor([3]).view(1, 1, 1, 1).expand(2, 2, 1, 2)
        v[:, 1].scatter_(2, idx, self.lin(x).view(2, 2, 1, 4)[..., :2])
        return self.head(a.sum(1))


def block_scatter():
    torch.manual_seed(0)
    return BlockScatter()


def same_shaped_layers():
    """Two layers of one shape: under global-norm clipping every gradient
    reaches every update through the norm."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    model.example_input_shape = (4, 8)
    return model


class Pools3d(nn.Module):
    """3-D pools, whose backwards torch-mlir cannot lower: avg_pool3d with
    ceil_mode, padding counted and not; nn.LocalResponseNorm, which pools
    squares across channels with avg_pool3d; max_pool3d with stride,
    padding and dilation, of an input whose last dimension repeats each
    element (windows of two equal maxima: only the first offset takes the
    gradient); an adaptive average pool to overlapping windows."""
    example_input_shape = (2, 2, 5, 6, 6)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 2)  # 5x6x6 -> 4x5x5
        self.p1 = nn.AvgPool3d(2, ceil_mode=True, count_include_pad=False)
        self.p2 = nn.AvgPool3d((3, 2, 3), stride=(2, 1, 2), padding=1, ceil_mode=True)
        self.lrn = nn.LocalResponseNorm(3)
        self.mp = nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), dilation=(1, 2, 1), ceil_mode=True)
        self.ap = nn.AdaptiveAvgPool3d((3, 2, 3))
        self.out = nn.Linear(4 * (2 * 3 * 3 + 3 * 6 * 3 + 5 * 5 + 5 * 2 * 5 + 3 * 2 * 3), 5)

    def forward(self, x):
        x = self.conv(x)
        pools = [self.p1(x), self.p2(x), self.lrn(x[:, :, 0]), self.mp(x.repeat_interleave(2, -1)), self.ap(x)]
        return self.out(torch.cat([p.flatten(1) for p in pools], 1))


def pools_3d():
    return Pools3d()


class Resampling(nn.Module):
    """Interpolations and replicate paddings whose backwards torch-mlir
    cannot lower: bicubic (2-D) and trilinear (3-D) upsampling, whose
    forwards it cannot lower either, nearest upsampling of a volume, and
    replicate padding in one, two and three dimensions (with a crop)."""
    example_input_shape = (2, 2, 3, 4, 4)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 3, 1)
        self.out = nn.Linear(RESAMPLING_FEATURES, 5)

    def forward(self, x):
        x = self.conv(x)
        parts = [F.interpolate(x[:, :, 0], size=(6, 7), mode="bicubic", align_corners=True),
                 F.interpolate(x[:, :, 1], scale_factor=1.5, mode="bicubic"),
                 F.interpolate(x, scale_factor=1.5, mode="trilinear"),
                 F.interpolate(x, size=(4, 6, 5), mode="nearest"),
                 F.pad(x, (1, 2, 0, 1, 1, 0), mode="replicate"),
                 F.pad(x[:, :, 1], (2, -1, 1, 2), mode="replicate"),
                 F.pad(x[:, :, 1, 1], (1, 3), mode="replicate")]
        return self.out(torch.cat([p.flatten(1) for p in parts], 1))


RESAMPLING_FEATURES = 3 * (6 * 7 + 6 * 6 + 4 * 6 * 6 + 4 * 6 * 5 + 4 * 5 * 7 + 7 * 5 + 8)


def resampling():
    return Resampling()


class ErfInv(nn.Module):
    """torch.erfinv (a probit link; torch's decomposition is prims.erf_inv,
    which torch-mlir does not lower), over most of (-1, 1)."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        return self.out(torch.erfinv(0.999 * torch.tanh(3 * self.fc(x))))


def erfinv():
    return ErfInv()


class PrototypeDistances(nn.Module):
    """torch.cdist to learned prototypes (a prototypical / metric-learning
    head) in the p-norms that PyTorch computes pair by pair (_cdist_forward:
    p=2 with at most 25 rows, and every other p), batched and not."""
    example_input_shape = (4, 8)

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 6)
        self.prototypes = nn.Parameter(torch.randn(5, 6))
        self.out = nn.Linear(4 * 5 + 2 * 3, 3)

    def forward(self, x):
        e = self.embed(x)
        dists = [torch.cdist(e, self.prototypes, p=p) for p in (2.0, 1.0, 3.0, float("inf"))]
        pairs = torch.cdist(e.view(2, 2, 6), e.view(2, 2, 6)[:, :1].expand(2, 3, 6) * 0.5, p=1.5)
        return self.out(torch.cat([d.flatten(1) for d in dists] + [pairs.flatten(1).repeat(2, 1)], 1))


def prototype_distances():
    return PrototypeDistances()


class AdaptiveMaxHead(nn.Module):
    """Conv -> AdaptiveMaxPool2d -> linear: torch-mlir recovers the pool's
    indices by comparing each input element with the pooled maximum
    (tensor.extract in a linalg body), which must see the pool's own input."""
    example_input_shape = (2, 2, 6, 6)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.pool = nn.AdaptiveMaxPool2d((3, 3))
        self.fc = nn.Linear(4 * 9, 3)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x)).flatten(1))


def adaptive_max_head():
    return AdaptiveMaxHead()


class AdaptiveMaxUneven(nn.Module):
    """AdaptiveMaxPool2d from 6x6 to 4x4 (overlapping windows of 2 and 3):
    torch-mlir's lowering builds an invalid tensor.cast."""
    example_input_shape = (2, 2, 6, 6)

    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((4, 4))
        self.fc = nn.Linear(2 * 16, 3)

    def forward(self, x):
        pooled = self.pool(x)
        return self.fc(pooled.flatten(1))


def adaptive_max_uneven():
    return AdaptiveMaxUneven()


class TwoInputs(nn.Module):
    """A model of (ids, mask): the importer takes one input tensor."""
    example_input_shape = (2, 5)

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 4)
        self.fc = nn.Linear(4, 3)

    def make_example_input(self, shape, generator):
        ids = torch.randint(0, 8, shape, generator=generator)
        return ids, torch.ones(shape)

    def forward(self, inputs):
        ids, mask = inputs
        return self.fc((self.embed(ids) * mask[..., None]).mean(1))


def two_inputs():
    return TwoInputs()
