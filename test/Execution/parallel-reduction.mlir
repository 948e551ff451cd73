// REQUIRES: openmp
// RUN: mpt-opt %s --mpt-lower-to-cpu="parallel=1" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 parallel=1" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %s

// An scf.parallel with a reduction becomes an omp.wsloop whose reduction is
// declared outside the functions (omp.declare_reduction); its combiner's
// arith ops are converted to LLVM with the omp ops, on both conversion paths
// (the arith conversion of --mpt-lower-to-cpu runs on the functions only).
// Exact: a sum of small integers.

func.func @sum(%m: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
    %v = memref.load %m[%i] : memref<64xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %m[%i] : memref<64xf32>
  }
  %s = func.call @sum(%m) : (memref<64xf32>) -> f32
  // 0 + 1 + ... + 63
  // CHECK: 2016
  vector.print %s : f32
  return
}
