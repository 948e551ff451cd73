// The AVX-512 bf16 kernels (widened to f32 FMA, and the AVX512-BF16 kernel
// where the CPU has it) on amx-matmul-empty.mlir's cases: an empty C (N = 0
// or M = 0, known only at run time), serial and on two threads, must leave C
// untouched without a trap (the task split divides by its numbers of row and
// column ranges, at least 1 each); the 4x4 C beside them is exact (64).
// REQUIRES: openmp
// RUN: mpt-opt %S/amx-matmul-empty.mlir --mpt-lower-to-cpu="amx=0 avx512=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %S/amx-matmul-empty.mlir
// RUN: mpt-opt %S/amx-matmul-empty.mlir --mpt-lower-to-cpu="amx=0 avx512=1 deallocate=0 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %S/amx-matmul-empty.mlir
// RUN: mpt-opt %S/amx-matmul-empty.mlir --mpt-lower-to-cpu="avx2=1 deallocate=0 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %S/amx-matmul-empty.mlir
// RUN: %if avx512bf16 %{ mpt-opt %S/amx-matmul-empty.mlir --mpt-lower-to-cpu="amx=0 avx512=1 avx512-bf16=1 deallocate=0 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %S/amx-matmul-empty.mlir %}
// RUN: %if avx512bf16 %{ mpt-opt %S/amx-matmul-empty.mlir --mpt-lower-to-cpu="amx=0 avx512=1 avx512-bf16=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %S/amx-matmul-empty.mlir %}
