#!/usr/bin/env bash
# The main job on the bundled example (examples/mlp/mlp_step.mlir, an MLP
# SGD training step):
#   1. analyse it: forward / backward / update, params, gradients, memory;
#   2. decide what runs in f16 and why (the precision report, summary);
#   3. compile it with --mpt-mixed-precision (autocast + dynamic loss scaling
#      + lowering) and show the memory the f16 step saves;
#   4. train it on the CPU with mpt-run for 320 steps in FP32, f16 (+ dynamic
#      loss scaling) and bf16 on a synthetic task, and print the loss curves.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${MPT_BUILD_DIR:-$repo/build}
cd "$repo"
example=${1:-examples/mlp/mlp_step.mlir}
opt="$build/bin/mpt-opt"
run="$build/bin/mpt-run"
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== 1. mpt-opt --mpt-training-graph-report $example"
"$opt" --mpt-training-graph-report "$example" -o /dev/null 2>&1

echo
echo "== 2. mpt-opt --mpt-precision-report $example   (summary and first ops; every op has a line)"
# Into a file first: head closing the pipe early would end mpt-opt with SIGPIPE.
"$opt" --mpt-precision-report "$example" -o /dev/null 2>"$work/precision-report.txt"
head -24 "$work/precision-report.txt"

echo
echo "== 3. mpt-opt --mpt-mixed-precision $example   (autocast f16 + dynamic loss scaling + lowering)"
"$opt" --mpt-mixed-precision "$example" -o "$work/mlp_f16.mlir"
echo "   upstream MLIR only: $(grep -cE '(= |^ *)"?mpt\.[a-z_]+' "$work/mlp_f16.mlir" || true) mpt ops left;" \
  "$(grep -c 'linalg.matmul ins(.*xf16>, .*xf16>) outs(.*xf32>)' "$work/mlp_f16.mlir") matmuls with f16 inputs and f32 accumulator"
echo "   the step's new state (the loss-scaling ABI):"
grep -o '%arg[0-9]*: tensor<[a-z0-9]*> {mpt.initial_value = [^}]*}' "$work/mlp_f16.mlir" | sed 's/^/     /'

echo
echo "== 4. mpt-run: 320 SGD steps on 4 Gaussian blobs (lr 0.05), FP32 vs f16 vs bf16"
"$python" test/Numerics/Inputs/synth.py blobs "$work/data.npz" --batches 64 --noise 2
common=(--init=seed:1 --hparam lr=0.05 --data "$work/data.npz" --steps 320 --no-progress)
"$run" "$example" "${common[@]}" --log "$work/fp32.csv"
"$run" "$example" "${common[@]}" --passes=mpt-mixed-precision --log "$work/f16.csv"
"$run" "$example" "${common[@]}" --passes='mpt-mixed-precision{dtype=bf16}' --log "$work/bf16.csv"
"$python" scripts/plot-training.py "$work/fp32.csv=FP32" "$work/f16.csv=f16+scaling" \
  "$work/bf16.csv=bf16" --table-every 32
echo "(per-batch losses; scripts/plot-training.py ... -o losses.png draws the curves)"
