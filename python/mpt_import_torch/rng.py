"""Random numbers as step state: a counter-based generator (Philox4x32-10,
the generator PyTorch uses on GPUs) computed inside the step from an
argument `rng_state = [seed, offset]` (tensor<2xi64>, mpt.role =
"rng_state"), whose next value the step returns (mpt.updates), so that the
step stays a pure function and the same seed gives the same masks in every
run (docs/TrainingGraphContract.md, "Random numbers").

Every random op of the model (aten.bernoulli.p: nn.Dropout, dropout inside
scaled_dot_product_attention, torchvision's stochastic depth) is one *call*.
Call k of a step (k = 0, 1, ... in program order) draws its n numbers from
the Philox blocks with counter (j, lo32(offset + k), hi32(offset + k), 0),
j = 0 .. ceil(n/4) - 1, and key (lo32(seed), hi32(seed)); the 4 words of
block j are numbers 4j .. 4j+3.  The next state is [seed, offset + calls]:
no (call, element) pair ever reuses a counter while a call has fewer than
2^34 elements.  A Bernoulli(p) draw is 1 when the word's top 24 bits, as
an integer u, satisfy u < round(p * 2^24) (PyTorch's CPU kernel also draws
24-bit uniforms), so the generator is integer arithmetic only: autocast has
no float op in it to lower, and the mask is exact in any precision.

The same functions run eagerly (`PhiloxMode`): the eager reference then
draws the very masks the imported step draws.
"""

import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten

MASK32 = 0xFFFFFFFF
# Philox4x32 multipliers and Weyl key increments (Salmon et al., SC'11;
# Random123's philox.h).
M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10
UNIFORM_BITS = 24


def _mulhilo(a, m):
    # a < 2^32 and m < 2^32: the product fits in 64 bits; in int64 it may
    # wrap negative, but its bit pattern is the unsigned product's, so an
    # arithmetic shift then a mask gives the high word.
    p = a * m
    return (p >> 32) & MASK32, p & MASK32


def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on int64 tensors holding 32-bit words (broadcasting)."""
    for r in range(ROUNDS):
        hi0, lo0 = _mulhilo(c0, M0)
        hi1, lo1 = _mulhilo(c2, M1)
        c0, c1, c2, c3 = (hi1 ^ c1) ^ k0, lo1, (hi0 ^ c3) ^ k1, lo0
        if r + 1 < ROUNDS:
            k0 = (k0 + W0) & MASK32
            k1 = (k1 + W1) & MASK32
    return c0, c1, c2, c3


def random_words(seed, subsequence, n):
    """n 32-bit random words (int64 tensor [n]) of the stream (seed,
    subsequence); seed and subsequence are int64 0-d tensors."""
    blocks = (n + 3) // 4
    zeros = torch.zeros(blocks, dtype=torch.int64)
    c0 = torch.arange(blocks, dtype=torch.int64)
    c1 = zeros + (subsequence & MASK32)
    c2 = zeros + ((subsequence >> 32) & MASK32)
    k0 = seed & MASK32
    k1 = (seed >> 32) & MASK32
    words = torch.stack(philox4x32(c0, c1, c2, zeros, k0, k1), dim=1)
    return words.reshape(blocks * 4)[:n]


def _uniform_bits(seed, subsequence, shape):
    """The stream's 24-bit uniform integers (int64) in `shape`."""
    n = 1
    for d in shape:
        n *= d
    return (random_words(seed, subsequence, n) >> (32 - UNIFORM_BITS)).reshape(tuple(shape))


def bernoulli_mask(seed, subsequence, shape, p, dtype):
    """1 with probability p (quantised to 2^-24), else 0, as `dtype`."""
    threshold = round(float(p) * (1 << UNIFORM_BITS))
    return (_uniform_bits(seed, subsequence, shape) < threshold).to(dtype)


def uniform(seed, subsequence, shape, dtype):
    """Uniform [0, 1) numbers on the 2^-24 grid (the 24-bit uniforms the
    Bernoulli draw compares; exact in float32), as `dtype`: aten.rand (HF's
    drop_path: keep_prob + rand, floored)."""
    bits = _uniform_bits(seed, subsequence, shape)
    return (bits.to(torch.float32) * (1.0 / (1 << UNIFORM_BITS))).to(dtype)


class Stream:
    """The state one step (or an eager run) draws from: each call takes the
    next subsequence."""

    def __init__(self, state):
        self.state = state      # int64 [2] tensor: [seed, offset]
        self.calls = 0

    def _next(self):
        """(seed, subsequence) of the next call."""
        subsequence = self.state[1] + self.calls
        self.calls += 1
        return self.state[0], subsequence

    def bernoulli(self, like, p):
        return bernoulli_mask(*self._next(), like.shape, p, like.dtype)

    def uniform(self, shape, dtype):
        return uniform(*self._next(), shape, dtype)


# The stream of the step being traced (set by step.trace around fwd_bwd).
_ACTIVE = None


@contextlib.contextmanager
def drawing_from(stream):
    global _ACTIVE
    saved, _ACTIVE = _ACTIVE, stream
    try:
        yield stream
    finally:
        _ACTIVE = saved


def bernoulli_p(self, p=0.5, generator=None):
    """The decomposition of aten.bernoulli.p while a step is traced."""
    if _ACTIVE is None:
        raise RuntimeError("aten.bernoulli.p outside a step with an rng_state")
    return _ACTIVE.bernoulli(self, p)


def rand(size, *, dtype=None, layout=None, device=None, pin_memory=None, generator=None):
    """The decomposition of aten.rand.default while a step is traced."""
    if _ACTIVE is None:
        raise RuntimeError("aten.rand outside a step with an rng_state")
    return _ACTIVE.uniform(size, dtype or torch.get_default_dtype())


class PhiloxMode(TorchDispatchMode):
    """Eager PyTorch drawing its Bernoulli masks as the imported step does
    from `state` = [seed, offset]; `stream.calls` counts the calls, so a
    run of steps continues where the last one ended (as the step's offset
    does) when the same mode is entered again."""

    def __init__(self, state):
        super().__init__()
        self.stream = Stream(state)

    def next_state(self):
        return self.stream.state + torch.tensor([0, self.stream.calls], dtype=torch.int64)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is aten.bernoulli.p or func is aten.bernoulli_.float:
            like, p = args[0], (args[1] if len(args) > 1 else kwargs.get("p", 0.5))
            mask = self.stream.bernoulli(like, p)
            if func is aten.bernoulli_.float:
                return like.copy_(mask)
            return mask
        if func is aten.rand.default and kwargs.get("generator") is None:
            size = args[0] if args else kwargs["size"]
            return self.stream.uniform(size, kwargs.get("dtype") or torch.get_default_dtype())
        return func(*args, **kwargs)
