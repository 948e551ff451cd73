#!/usr/bin/env bash
# Regenerate the bundled PyTorch training-step examples (deterministic:
# fixed seeds) and check that each parses and verifies with MLIR 22's mlir-opt.
#   examples/torch/regenerate.sh        (needs .venv: scripts/setup-python.sh)
# Env: MLIR_OPT (default: mlir-opt on PATH, else /usr/lib/llvm-22/bin/mlir-opt).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
imp="$repo/tools/mpt-import-torch/mpt-import-torch"
opt="${MLIR_OPT:-$(command -v mlir-opt || echo /usr/lib/llvm-22/bin/mlir-opt)}"

gen() {  # name, importer args...
  local name="$1"; shift
  "$imp" "$@" --check -o "$here/$name.mlir" 2>&1 | sed "s/^/$name: /"
  "$opt" --allow-unregistered-dialect --verify-diagnostics "$here/$name.mlir" -o /dev/null
  echo "$name: $(du -h "$here/$name.mlir" | cut -f1) mlir, $(du -h "$here/$name.npz" | cut -f1) npz, parses with $("$opt" --version | grep -o 'version [0-9.]*')"
}

gen mlp_sgd        --model mlp       --loss cross-entropy --optimizer sgd --lr 0.05 --momentum 0.9
gen gpt_block_adamw --model gpt-block --loss cross-entropy --optimizer adamw --lr 1e-3 --weight-decay 0.01
gen resnet18_sgd   --model resnet18  --loss cross-entropy --optimizer sgd --lr 0.01 --momentum 0.9
