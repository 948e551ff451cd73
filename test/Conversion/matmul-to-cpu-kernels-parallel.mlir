// --mpt-matmul-to-cpu-kernels="parallel=1": which contractions fork. A single
// call large enough (parallel-min-work multiply-adds, 2^23 by default) calls
// the parallel kernel; a smaller one the serial kernel ("_serial"), where a
// fork and join would cost more than the work; a batch runs its elements in
// parallel, one serial kernel call each. (The parallel and serial kernels give
// the same results bit for bit: test/Execution/parallel-amx.test and
// parallel-kernels.test run the parallel ones against the serial checks.)
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="parallel=1" | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="parallel=1 parallel-min-work=0" | FileCheck %s --check-prefix=ALL
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="parallel=1 report=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// 16x32x32: 16384 multiply-adds.
// CHECK-LABEL: func.func @small(
// CHECK: call @__mpt_amx_matmul_bf16_serial(
// ALL-LABEL: func.func @small(
// ALL: call @__mpt_amx_matmul_bf16(
// REPORT: linalg.matmul 16x32x32 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16_serial ({{.*}}serial: fewer than parallel-min-work multiply-adds)
func.func @small(%a: memref<16x32xbf16>, %b: memref<32x32xbf16>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// 256x256x256: 2^24 multiply-adds.
// CHECK-LABEL: func.func private @__mpt_amx_matmul_bf16(
// CHECK: scf.parallel
// CHECK-LABEL: func.func @large(
// CHECK: call @__mpt_amx_matmul_bf16(
func.func @large(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x256xbf16>, memref<256x256xbf16>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// 32 x 128x128x64: 2^25 multiply-adds in all, 2^20 per element.
// CHECK-LABEL: func.func private @__mpt_avx512_matmul_f32_serial(
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func @batch(
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: memref.subview %{{.*}}[%[[I]], 0, 0]
// CHECK: call @__mpt_avx512_matmul_f32_serial(
// CHECK-NEXT: scf.reduce
// REPORT: linalg.batch_matmul 32x128x128x64 f32 x f32 -> f32: @__mpt_avx512_matmul_f32_serial ({{.*}}one serial kernel call per batch element, the batch in parallel)
func.func @batch(%a: memref<32x128x64xf32>, %b: memref<32x64x128xf32>, %c: memref<32x128x128xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<32x128x64xf32>, memref<32x64x128xf32>) outs(%c : memref<32x128x128xf32>)
  return
}

// -----

// A small batch: serial loop, serial kernel.
// CHECK-LABEL: func.func @small_batch(
// CHECK: scf.for
// CHECK: call @__mpt_avx512_matmul_f32_serial(
// CHECK-NOT: scf.parallel
func.func @small_batch(%a: memref<3x17x33xf32>, %b: memref<3x33x40xf32>, %c: memref<3x17x40xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x17x33xf32>, memref<3x33x40xf32>) outs(%c : memref<3x17x40xf32>)
  return
}

// -----

// parallel-min-work counts AMX multiply-adds: the AVX-512 kernel does an
// eighth as many in the same time, so an f32 contraction forks from 2^20
// (128x128x128: 2^21) and stays serial below (64x64x128: 2^19).
// CHECK-LABEL: func.func private @__mpt_avx512_matmul_f32_serial(
// CHECK-LABEL: func.func private @__mpt_avx512_matmul_f32(
// CHECK: scf.parallel
// CHECK-LABEL: func.func @f32_forks(
// CHECK: call @__mpt_avx512_matmul_f32(
// CHECK-LABEL: func.func @f32_serial(
// CHECK: call @__mpt_avx512_matmul_f32_serial(
// REPORT: linalg.matmul 128x128x128 f32 x f32 -> f32: @__mpt_avx512_matmul_f32 (
// REPORT-NOT: serial
// REPORT: linalg.matmul 64x64x128 f32 x f32 -> f32: @__mpt_avx512_matmul_f32_serial ({{.*}}serial: fewer than parallel-min-work multiply-adds)
func.func @f32_forks(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  linalg.matmul ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
  return
}
func.func @f32_serial(%a: memref<64x128xf32>, %b: memref<128x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
