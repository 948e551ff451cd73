#!/usr/bin/env bash
# The whole GPU check in one go, for a machine with an NVIDIA GPU (sm_80 or
# newer) and the CUDA toolkit: builds mpt (with mpt-tc-bench and the CUDA
# runtime shim) if needed, runs every Tensor Core kernel the device supports
# against a CPU reference (exact) and cuBLAS, and prints TFLOP/s and the
# ratio to cuBLAS. Exits non-zero if a kernel gives a wrong result.
#   MPT_BUILD_DIR  build directory (default: <repo>/build)
#   extra arguments go to mpt-tc-bench (--quick: only 4096^3;
#   --filter=sm90a_bf16: only matching kernels)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${MPT_BUILD_DIR:-$repo/build}

if [ ! -x "$build/bin/mpt-tc-bench" ]; then
  echo "[run.sh] building mpt-tc-bench in $build" >&2
  # The GPU check needs no Python frontend (GPU machines may be offline).
  MPT_SKIP_PYTHON=1 MPT_BUILD_DIR="$build" "$repo/scripts/setup.sh"
  ninja -C "$build" mpt-tc-bench >/dev/null
fi
if [ ! -x "$build/bin/mpt-tc-bench" ]; then
  echo "[run.sh] mpt-tc-bench was not built: is the CUDA toolkit installed" \
       "(/usr/local/cuda)?" >&2
  exit 2
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
# Everything (24 kernels up to 8192^3, their checks and cuBLAS) takes a few
# minutes; the timeout keeps the whole check under 10 minutes.
exec timeout 540 "$build/bin/mpt-tc-bench" "$@"
