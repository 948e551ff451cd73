"""Imports a model's step in float64 as run-check does when float32 rounding
cannot tell a wrong import from an ill-conditioned one (check.py,
_check_in_float64), runs it, and compares every result with eager float64:
usage check_float64_import.py FILE:FUNC. Prints the largest distance
relative to the result's size and exits 1 above 1e-9 (float64 rounding,
2^-52, amplified by a few thousand) or when the import fails."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "python"))
import torch  # noqa: E402
from mpt_import_torch import check, cli, execute, stitch  # noqa: E402

cli._quiet_torch()
args = cli.make_parser().parse_args(["--model", sys.argv[1], "-o", os.devnull])
spec, _ = cli.build(args)
spec64 = check._float64_spec(spec)
try:
    module = stitch.import_step(spec64, func_name="step")
except Exception as err:  # noqa: BLE001 - reported, the test fails
    print(f"float64 import failed: {str(err).splitlines()[0]}")
    sys.exit(1)
results = execute.run_step(module.operation.get_asm(), [a.value.numpy() for a in spec64.args], "step")
want = check._eager_results(spec64)
worst = 0.0
for got, ref in zip(results, want):
    ref = ref.detach().double()
    worst = max(worst, float((torch.from_numpy(got).double() - ref).abs().max()) / max(1.0, float(ref.abs().max())))
print(f"float64 import matches eager float64: {worst:.1e}" if worst <= 1e-9 else f"float64 import differs: {worst:.1e}")
sys.exit(0 if worst <= 1e-9 else 1)
