"""Checks the dropout masks of MaskProbe (dropout_models.py) trained by
mpt-run: usage check_dropout_masks.py SEED STEP1.npz STEP2.npz AGAIN.npz.

The masks are read back from the parameter w (ones before the first step;
an element moves iff kept, see MaskProbe) and compared with Philox4x32-10
written here again in plain Python (independent of the importer's torch
version, itself checked on Random123's known-answer vectors)."""

import sys

import numpy as np

MASK = 0xFFFFFFFF


def philox(c, k):
    c, k = list(c), list(k)
    for r in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
        k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
    return c


# Random123 kat_vectors: philox4x32_10.
assert philox([0] * 4, [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
assert philox([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0]) == \
    [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def keep_mask(seed, subsequence, n, keep_p):
    """docs/TrainingGraphContract.md: block j of call `subsequence` has counter
    (j, lo32, hi32, 0), key (lo32(seed), hi32(seed)); kept iff top 24 bits < round(keep_p 2^24)."""
    words = []
    for j in range((n + 3) // 4):
        words += philox([j, subsequence & MASK, subsequence >> 32, 0], [seed & MASK, seed >> 32])
    threshold = round(keep_p * (1 << 24))
    return np.array([(w >> 8) < threshold for w in words[:n]])


seed = int(sys.argv[1])
s1, s2, again = (np.load(f) for f in sys.argv[2:5])
w0 = np.ones(4096, dtype=np.float32)
w1, w2 = s1["arg0"].reshape(-1), s2["arg0"].reshape(-1)
mask1, mask2 = w1 != w0, w2 != w1
for k, (mask, s) in enumerate([(mask1, s1), (mask2, s2)]):
    ref = keep_mask(seed, k, 4096, 0.5)
    assert (mask == ref).all(), f"step {k}: {int((mask != ref).sum())} mask elements differ from Philox"
    assert list(s["rng_state"]) == [seed, k + 1], f"rng_state after step {k}: {list(s['rng_state'])}"
    # Kept ~ Binomial(4096, 1/2): mean 2048, sd 32.  A correct generator is
    # outside 2048 +- 192 (6 sd) for fewer than 2e-9 of all seeds; a biased
    # one (e.g. p and 1-p swapped at p != 0.5, or 2 of 4 words used twice)
    # shows up as an exact mismatch above.
    kept = int(mask.sum())
    assert abs(kept - 2048) <= 192, f"step {k}: kept {kept} of 4096"
    print(f"step {k}: mask = Philox(seed {seed}, offset {k}), kept {kept}/4096")
same = int((mask1 == mask2).sum())
# Independent masks agree on ~half the elements (sd 32): identical ones would be 4096.
assert abs(same - 2048) <= 192, f"the masks of steps 0 and 1 agree on {same}/4096 elements"
print(f"steps 0 and 1 agree on {same}/4096 elements")
assert set(again.files) == set(s1.files) and all(np.array_equal(again[f], s1[f]) for f in s1.files), \
    "a second run from the same seed differs"
print("same seed, second run: identical")
