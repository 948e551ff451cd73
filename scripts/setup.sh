#!/usr/bin/env bash
# Sets up everything mpt needs on Debian 12 and builds it, idempotently and
# quietly: the Debian packages (MLIR/LLVM 22, CMake, Ninja), then a CMake +
# Ninja build in build/. Safe to run again; it only does what is missing.
# Then the Python frontend's pinned environment (.venv: torch, torch-mlir,
# numpy, matplotlib) via scripts/setup-python.sh, unless MPT_SKIP_PYTHON=1.
#   MPT_BUILD_DIR   build directory (default: <repo>/build)
#   MPT_JOBS        parallel build jobs (default: number of cores)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${MPT_BUILD_DIR:-$repo/build}
jobs=${MPT_JOBS:-$(nproc)}

log() { echo "[setup] $*" >&2; }

# mpich: the MPI that data-parallel steps call (docs/Distributed.md; MLIR 22 lowers mpi ops to its ABI).
packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools cmake ninja-build g++ binutils zlib1g-dev python3-venv libomp-dev mpich libmpich-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  log "configuring $build"
  cmake -G Ninja -S "$repo" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
log "building (ninja -j$jobs)"
ninja -C "$build" -j "$jobs" all > "$build/ninja.log" 2>&1 || {
  tail -50 "$build/ninja.log" >&2
  exit 1
}
if [ "${MPT_SKIP_PYTHON:-0}" != 1 ]; then
  "$repo/scripts/setup-python.sh" >&2
fi
log "done: $build/bin/mpt-opt"
