"""Delayed scaling of mpt-run against a reference of Transformer Engine's.

  fp8_scaling.py data OUT.npz
      batches for Inputs/fp8_scaling_step.mlir: x scripted so that its amax
      (max |x|) follows AMAX_X step by step (0: all zeros; inf: one
      infinite element), w with amax 2 every step
  fp8_scaling.py check DATA.npz LOG.csv SAVED.npz LEN MARGIN max|most_recent
      replays the steps with the reference below and compares the final
      amax history and scales with mpt-run's --save (bit for bit) and each
      step's loss with mpt-run's log
  fp8_scaling.py current DATA.npz LOG.csv MARGIN
      current scaling (fp8-scaling=current): each step's scales come from
      that step's amaxes, scale = (fp8_max / amax) / 2^margin, 1 where amax
      is 0 or not finite, at most the largest f32 (Transformer Engine's
      compute_scale_from_amax); compares each step's loss with mpt-run's
      log (1e-6 relative, as below) and prints the scales of every step

The reference is Transformer Engine's delayed scaling (transformer_engine/
pytorch/fp8.py, _default_get_amax_and_update_history and _default_sf_compute,
and the fused CUDA kernel that replaced them, which divides): the forward
records max |x| in history row 0; after the step
    amax  = max(history, axis 0)   or   history[0]   (amax-compute)
    scale = (fp8_max / amax) / 2^margin, kept when amax <= 0 or not finite
    history = roll(history, -1, axis 0); history[0] = 0
in f32 with correctly rounded division (numpy). (PyTorch evaluates
`448.0 / tensor` as reciprocal(tensor) * 448, which can differ in the last
bit; TE's CUDA kernel and mpt divide.) Each operand is cast as
float8_e4m3fn(clamp(x * scale, -448, 448)) with the scale of the step
before, the product accumulated in f32 and divided by the product of the
two scales. The loss tolerance, 1e-6 relative, covers f32 summation order
only: the FP8 products are exact in f32 and the sums have 4 and 6 terms.
"""
import csv
import sys
import numpy as np
import torch

AMAX_X = [1.0, 4.0, 0.5, 1000.0, 0.0, 3.0, np.inf, 0.25, 2.0, 8.0]
FP8_MAX = np.float32(448.0)


def data():
    g = np.random.default_rng(5)
    xs, ws = [], []
    for a in AMAX_X:
        x = g.uniform(-1, 1, (2, 4)).astype(np.float32)
        x /= np.abs(x).max()
        x[1, 2] = 1.0  # max |x| = 1 exactly
        if a == 0:
            x[:] = 0
        elif np.isinf(a):
            x[0, 0] = np.inf
        else:
            x *= np.float32(a)
        w = g.uniform(-2, 2, (4, 3)).astype(np.float32)
        w[0, 0] = -2.0
        xs.append(x)
        ws.append(w)
    return np.stack(xs), np.stack(ws)


def check(data_path, log_path, saved_path, length, margin, algo):
    d = np.load(data_path)
    xs, ws = d["x"], d["w"]
    history = np.zeros((length, 2), np.float32)
    scale = np.ones(2, np.float32)
    divisor = np.float32(2.0 ** margin)
    losses = []
    for x, w in zip(xs, ws):
        def q(t, s):
            t = torch.from_numpy(np.clip(t * s, -FP8_MAX, FP8_MAX))
            return t.to(torch.float8_e4m3fn).float().numpy()
        y = q(x, scale[0]) @ q(w, scale[1])
        losses.append(np.float32((y / (scale[0] * scale[1])).sum()))
        with np.errstate(all="ignore"):
            amax_now = np.array([np.abs(x).max(), np.abs(w).max()], np.float32)
            history[0] = amax_now
            amax = history.max(axis=0) if algo == "max" else history[0].copy()
            if length > 1:
                history = np.roll(history, -1, axis=0)
            history[0] = 0
            sf = (FP8_MAX / amax) / divisor
            scale = np.where((amax > 0) & np.isfinite(amax), sf, scale)
            scale = scale.astype(np.float32)
    saved = np.load(saved_path)
    got_h, got_s = saved["arg2"], saved["arg3"]
    ok = True
    if not np.array_equal(got_h.view(np.uint32), history.view(np.uint32)):
        print("history differs:\n", got_h, "\nreference:\n", history)
        ok = False
    if not np.array_equal(got_s.view(np.uint32), scale.view(np.uint32)):
        print("scales differ:", got_s, "reference:", scale)
        ok = False
    rows = list(csv.DictReader(open(log_path)))
    got_l = np.array([float(r["loss"]) for r in rows], np.float64)
    ref_l = np.array(losses, np.float64)
    if not np.allclose(got_l, ref_l, rtol=1e-6, atol=0):
        print("losses differ:", got_l, "reference:", ref_l)
        ok = False
    print(f"scales {scale.tolist()}")
    print("state bit-identical" if ok else "MISMATCH")
    sys.exit(0 if ok else 1)


def current(data_path, log_path, margin):
    d = np.load(data_path)
    xs, ws = d["x"], d["w"]
    divisor = np.float32(2.0 ** margin)
    f32max = np.finfo(np.float32).max
    losses, used = [], []
    for x, w in zip(xs, ws):
        with np.errstate(all="ignore"):
            amax = np.array([np.abs(x).max(), np.abs(w).max()], np.float32)
            sf = np.minimum((FP8_MAX / amax) / divisor, f32max)
            scale = np.where((amax > 0) & np.isfinite(amax), sf,
                             np.float32(1)).astype(np.float32)
        def q(t, s):
            t = torch.from_numpy(np.clip(t * s, -FP8_MAX, FP8_MAX))
            return t.to(torch.float8_e4m3fn).float().numpy()
        with np.errstate(all="ignore"):
            y = q(x, scale[0]) @ q(w, scale[1])
            losses.append(np.float32((y / (scale[0] * scale[1])).sum()))
        used.append(float(scale[0]))
    rows = list(csv.DictReader(open(log_path)))
    got_l = np.array([float(r["loss"]) for r in rows], np.float64)
    ref_l = np.array(losses, np.float64)
    # NaN where the reference is NaN (the step with an infinite x).
    ok = got_l.shape == ref_l.shape and np.allclose(got_l, ref_l, rtol=1e-6,
                                                     atol=0, equal_nan=True)
    if not ok:
        print("losses differ:", got_l, "reference:", ref_l)
    print("x scales " + " ".join(f"{s:.9g}" for s in used))
    print("losses match" if ok else "MISMATCH")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "current":
        current(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "data":
        x, w = data()
        np.savez(sys.argv[2], x=x, w=w)
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
              int(sys.argv[6]), sys.argv[7])
