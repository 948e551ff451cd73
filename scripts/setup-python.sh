#!/usr/bin/env bash
# Create <repo>/.venv with the pinned PyTorch frontend environment
# (python/requirements-torch.txt): torch, torch-mlir, torchvision, numpy, ml_dtypes,
# matplotlib.  Idempotent: does nothing when the venv matches the pins.
# Quiet: prints one line on success; on failure prints the log and exits 1.
# Env: PYTHON (default python3, must be 3.11: torch-mlir ships cp311 only).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
req="$repo/python/requirements-torch.txt"
req_zoo="$repo/python/requirements-zoo.txt"   # optional (the model zoo's transformers, timm)
stubs="$repo/python/mpt_setup/cuda_stubs.py"
py="${PYTHON:-python3}"
start=$(date +%s)

stamp_want="$(cat "$req" "$req_zoo" "$stubs" "$0" | sha256sum | cut -d' ' -f1)"
if [[ -f "$venv/.mpt-stamp" && "$(cat "$venv/.mpt-stamp")" == "$stamp_want" ]] &&
   "$venv/bin/python" -c "import torch, torch_mlir.fx, torchvision" >/dev/null 2>&1; then
  echo "setup-python: .venv up to date (torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)'))"
  exit 0
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
fail() { cat "$log" >&2; echo "setup-python: FAILED: $*" >&2; exit 1; }

"$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
  fail "$py is not Python 3.11 (torch-mlir 20261001 has cp311 wheels only); set PYTHON"
command -v gcc >/dev/null && command -v readelf >/dev/null || fail "needs gcc and readelf (binutils)"

rm -f "$venv/.mpt-stamp"
[[ -x "$venv/bin/python" ]] || "$py" -m venv "$venv" >>"$log" 2>&1 || fail "venv creation"
# --no-deps: everything is pinned in $req; this keeps pip from pulling torch's
# CUDA wheels (nvidia-*, cuda-toolkit, triton: several GB).
PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install -q --no-deps -r "$req" >>"$log" 2>&1 ||
  fail "pip install"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
stubmsg="$("$venv/bin/python" "$stubs" "$site" 2>>"$log")" || fail "cuda stubs"
"$venv/bin/python" - >>"$log" 2>&1 <<'PY' || fail "smoke test"
import torch, torch_mlir.fx, torchvision, numpy, matplotlib, ml_dtypes
a = torch.ones(2, 2)
assert float((a @ a).sum()) == 8.0
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert (a @ a).dtype == torch.bfloat16
PY
# Optional packages: a failure is one line, not a failed setup (the zoo
# skips the models that need them).
zoo="; zoo models: transformers, timm"
if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install -q --no-deps -r "$req_zoo" >>"$log" 2>&1 ||
   ! "$venv/bin/python" -c "import transformers, timm" >>"$log" 2>&1; then
  echo "setup-python: optional python/requirements-zoo.txt did not install; bench/zoo skips its HF/timm models" >&2
  zoo="; zoo models: not installed"
fi
echo "$stamp_want" >"$venv/.mpt-stamp"
size="$(du -sh "$venv" | cut -f1)"
echo "setup-python: .venv ready in $(( $(date +%s) - start ))s ($size; torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)'), $stubmsg$zoo)"
