"""Checks two of the model zoo's criteria (bench/zoo/zoo.py):
loss_falls, and the eager FP32 reference that skips the steps a dynamic loss
scale skipped (torch_reference.train(skip_steps=...))."""
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
print("zoo criteria: ok")
