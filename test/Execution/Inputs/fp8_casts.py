"""FP8 rounding of mpt-run against torch's float8_e4m3fn / float8_e5m2.

  fp8_casts.py inputs OUT.npz        writes the deterministic input x
  fp8_casts.py check IN.npz SAVED.npz  compares mpt-run's --save with torch

x holds (4096 values): every value of both formats (exact round trips, so
extension is checked on all 256 codes of each), the midpoints between
neighbouring values of each format (ties, rounded to even), the midpoints
nudged by one f32 ulp either way, the values around the largest finite
value and the overflow threshold, signed zeros, infinities, NaN, f32
subnormals, and seeded normal samples at scales from 2^-20 to 2^20 for the
rest. The check is exact: the same bits (every NaN counts as equal to every
NaN; neither format's NaN payload is specified by arith.truncf).
"""
import sys
import numpy as np
import torch

N = 4096


def codes(dtype):
    values = torch.arange(256, dtype=torch.uint8).view(dtype).float()
    return values[torch.isfinite(values)]


def inputs():
    parts = []
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        v = torch.sort(torch.unique(codes(dtype)))[0]
        parts.append(v)
        mid = (v[1:].double() + v[:-1].double()) / 2
        mid32 = mid.float()
        parts += [mid32, torch.nextafter(mid32, torch.tensor(np.inf)),
                  torch.nextafter(mid32, torch.tensor(-np.inf))]
    special = torch.tensor([0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 464.0,
                            464.00003, 479.99997, 480.0, -464.0, -480.0,
                            57344.0, 61440.0, 61440.004, 65535.996, 65536.0,
                            1e30, -1e30, 2.0**-149, -(2.0**-149), 2.0**-127,
                            2.0**-9, 2.0**-10, 3 * 2.0**-11, 2.0**-16,
                            2.0**-17, 3 * 2.0**-18])
    parts.append(special)
    x = torch.cat(parts)
    g = torch.Generator().manual_seed(17)
    rest = N - x.numel()
    scales = 2.0 ** torch.randint(-20, 21, (rest,), generator=g).float()
    x = torch.cat([x, torch.randn(rest, generator=g) * scales])
    assert x.numel() == N
    return x.numpy().astype(np.float32)


def same(a, b):
    a = a.view(np.uint32)
    b = b.view(np.uint32)
    nan_a = np.isnan(a.view(np.float32))
    nan_b = np.isnan(b.view(np.float32))
    return (nan_a == nan_b) & (nan_a | (a == b))


def check(inputs_path, saved_path):
    x = np.load(inputs_path)["x"]
    saved = np.load(saved_path)
    xt = torch.from_numpy(x)
    refs = {
        "e4": xt.to(torch.float8_e4m3fn).float(),
        "e5": xt.to(torch.float8_e5m2).float(),
        "b4": xt.bfloat16().to(torch.float8_e4m3fn).float(),
        "b5": xt.bfloat16().to(torch.float8_e5m2).float(),
    }
    bad = 0
    for key, ref in refs.items():
        got = saved[key]
        ok = same(got, ref.numpy())
        for i in np.flatnonzero(~ok)[:5]:
            print(f"{key}[{i}]: x = {x[i]!r} ({x[i].view(np.uint32):#010x}): "
                  f"mpt {got[i]!r}, torch {ref[i].item()!r}")
        bad += int((~ok).sum())
        print(f"{key}: {int(ok.sum())}/{ok.size} equal")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        np.savez(sys.argv[2], x=inputs())
    else:
        check(sys.argv[2], sys.argv[3])
