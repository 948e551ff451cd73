"""Checks the model zoo's criteria (bench/zoo/zoo.py): loss_falls; the eager
FP32 reference that skips the steps a dynamic loss scale skipped
(torch_reference.train(skip_steps=...)); AMP f16 made to skip given steps;
and the rounding-noise reruns (noise_runs), which also sample AMP's gap."""
import os
import sys

root = sys.argv[1]
sys.path[:0] = [os.path.join(root, "bench", "zoo"), os.path.join(root, "bench", "peer")]
import models  # noqa: E402
import torch_reference  # noqa: E402
import zoo  # noqa: E402

# A loss that falls only on average (dropout) falls; one that rises does not.
assert zoo.loss_falls([3.99, 3.81, 1.36, 4.12])
assert zoo.loss_falls([2.0, 1.9])
assert not zoo.loss_falls([1.0, 1.2, 1.1, 1.3])
assert not zoo.loss_falls([1.0])

# The GRU (no dropout) on one repeated batch: with step 1's update skipped,
# step 2 sees step 1's weights, so its loss is step 1's, bit for bit; without
# the skip it is lower.
entry = models.ZOO["gru"]
p = torch_reference.cli.make_parser()
for flag in ("--steps", "--distinct-batches"):
    p.add_argument(flag, type=int)
p.add_argument("--out-dir")
a = p.parse_args(["--model", os.path.join(root, "bench", "zoo", "models.py") + ":" + entry.factory.__name__,
                  *entry.flags, "--steps", "3", "--distinct-batches", "1", "--out-dir", sys.argv[2]])
plain = zoo.eager_fp32(a, 3)
skipped = zoo.eager_fp32(a, 3, skip_steps=[1])
print("plain", plain)
print("skip step 1", skipped)
assert skipped[:2] == plain[:2], "steps before the skip differ"
assert skipped[2] == skipped[1], "the skipped step's update was applied"
assert plain[2] < plain[1], "the GRU does not train"

# AMP f16 made to skip step 1: the step is skipped and halves the scale, so
# step 2 sees step 1's weights (its loss is step 1's, bit for bit) at half
# the scale; step 2 itself is applied.
rows, _ = zoo.without_missing_onednn(lambda: zoo.eager_rows(a, 3, "f16", skip_steps=[1]))
print("f16, step 1 skipped:", [(r[2], r[3], r[4]) for r in rows])
assert [r[4] for r in rows] == [0, 1, 0], "the imposed skip pattern was not followed"
assert rows[2][3] == rows[1][3] / 2, "an imposed skip did not halve the scale"
assert rows[2][2] == rows[1][2], "the skipped step's update was applied"

# The reruns from 1-ulp perturbed weights: FP32 moves by rounding noise only
# (well below 1e-4 of the GRU's loss of about 1), and each AMP mode's gap to
# FP32 is measured (positive: 16-bit rounding is far above 1 ulp of f32).
noise = zoo.noise_runs(a, 3)
print("noise", noise)
assert len(noise["fp32"]) == 3 and max(noise["fp32"]) < 1e-4 * abs(plain[0]), "FP32 noise too large"
assert noise["fp32"] == sorted(noise["fp32"]), "the FP32 noise is not a running maximum"
assert noise["bf16"] > max(noise["fp32"]) and noise["f16"] > max(noise["fp32"]), "AMP's gap not sampled"
print("zoo criteria: ok")
