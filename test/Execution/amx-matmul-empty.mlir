// The AMX kernel on an empty C (N = 0 or M = 0, shapes known only at run
// time), serial and on two threads: nothing to compute, C untouched, no
// trap. (The parallel kernel's task split divided by its number of column
// blocks, 0 for N = 0: SIGFPE.) The 4x4 C beside them is exact: a 4x64 A
// of ones times a 64x4 B of ones is 64 everywhere.
// REQUIRES: amx, openmp
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mpt_amx_runtime,%mlir_runner_libs | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=1 deallocate=0 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mpt_amx_runtime,%mlir_runner_libs,%omp_runtime | FileCheck %s

// CHECK: empty done
// CHECK: [64,   64,   64,   64]

func.func private @printMemrefF32(memref<*xf32>)

func.func @mm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : bf16
  %zero = arith.constant 0.0 : f32
  // N = 0.
  %A = memref.alloc(%c32, %c64) : memref<?x?xbf16>
  %B = memref.alloc(%c64, %c0) : memref<?x?xbf16>
  %C = memref.alloc(%c32, %c0) : memref<?x?xf32>
  linalg.fill ins(%one : bf16) outs(%A : memref<?x?xbf16>)
  call @mm(%A, %B, %C) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>) -> ()
  // M = 0.
  %A2 = memref.alloc(%c0, %c64) : memref<?x?xbf16>
  %B2 = memref.alloc(%c64, %c32) : memref<?x?xbf16>
  %C2 = memref.alloc(%c0, %c32) : memref<?x?xf32>
  linalg.fill ins(%one : bf16) outs(%B2 : memref<?x?xbf16>)
  call @mm(%A2, %B2, %C2) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>) -> ()
  vector.print str "empty done\n"
  // A non-empty one after them.
  %A3 = memref.alloc(%c4, %c64) : memref<?x?xbf16>
  %B3 = memref.alloc(%c64, %c4) : memref<?x?xbf16>
  %C3 = memref.alloc(%c4, %c4) : memref<?x?xf32>
  linalg.fill ins(%one : bf16) outs(%A3 : memref<?x?xbf16>)
  linalg.fill ins(%one : bf16) outs(%B3 : memref<?x?xbf16>)
  linalg.fill ins(%zero : f32) outs(%C3 : memref<?x?xf32>)
  call @mm(%A3, %B3, %C3) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>) -> ()
  %u = memref.cast %C3 : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
