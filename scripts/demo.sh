#!/usr/bin/env bash
# The main job on the bundled example: analyse the MLP training step and print
# its training-graph report (regions, params, gradients, memory).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${MPT_BUILD_DIR:-$repo/build}
cd "$repo"
example=${1:-examples/mlp/mlp_step.mlir}

echo "== mpt-opt --mpt-training-graph-report $example"
"$build/bin/mpt-opt" --mpt-training-graph-report "$example" -o /dev/null
