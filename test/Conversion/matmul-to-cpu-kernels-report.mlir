// The report lists every contraction and convolution: the kernel it got, or
// why it got none.
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="avx512=0 report=%t.txt" -o /dev/null
// RUN: FileCheck %s --check-prefix=TEXT < %t.txt
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="avx512=0 report=- report-format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// The options every report has (report= and report-format= are their
// deprecated aliases): the same reports.
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="avx512=0 output=%t.output.txt" -o /dev/null
// RUN: diff %t.txt %t.output.txt
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="avx512=0 output=- format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// TEXT: CPU kernels (amx, no avx512): 2 of 4 contractions lowered
// TEXT-NEXT: {{.*}}matmul-to-cpu-kernels-report.mlir:[[@LINE+19]]:3: linalg.matmul 33x70x17 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 (AMX: 2x2 16x16 f32 tiles, K block 256, A and B packed into tiles)
// TEXT-NEXT: {{.*}}matmul-to-cpu-kernels-report.mlir:[[@LINE+19]]:3: linalg.batch_matmul 2x33x70x17 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 (AMX: 2x2 16x16 f32 tiles, K block 256, A and B packed into tiles; one kernel call per batch element)
// TEXT-NEXT: {{.*}}matmul-to-cpu-kernels-report.mlir:[[@LINE+19]]:3: linalg.matmul 33x70x17 f32 x f32 -> f32: left as is: no AVX-512 or AVX2 on the target
// TEXT-NEXT: {{.*}}matmul-to-cpu-kernels-report.mlir:[[@LINE+19]]:3: linalg.conv_2d_nchw_fchw 1x4x6x6x3x3x3 bf16 x bf16 -> f32: left as is: convolution: no kernel yet (scalar loops)
// JSON: "amx": true,
// JSON-NEXT: "avx2": false,
// JSON-NEXT: "avx512": false,
// JSON-NEXT: "avx512bf16": false,
// JSON-NEXT: "contractions": [
// JSON: "kernel": "@__mpt_amx_matmul_bf16 (AMX: 2x2 16x16 f32 tiles, K block 256, A and B packed into tiles)",
// JSON-NEXT: "location": "{{.*}}matmul-to-cpu-kernels-report.mlir:[[@LINE+9]]:3",
// JSON-NEXT: "lowered": true,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "shape": "33x70x17 bf16 x bf16 -> f32"
// JSON: "lowered": false,
// JSON: "reason": "no AVX-512 or AVX2 on the target",
// JSON: "lowered": 2,
// JSON-NEXT: "not_lowered": 2
func.func @f(%a: memref<33x17xbf16>, %b: memref<17x70xbf16>, %c: memref<33x70xf32>, %ba: memref<2x33x17xbf16>, %bb: memref<2x17x70xbf16>, %bc: memref<2x33x70xf32>, %fa: memref<33x17xf32>, %fb: memref<17x70xf32>, %img: memref<1x3x8x8xbf16>, %w: memref<4x3x3x3xbf16>, %o: memref<1x4x6x6xf32>) {
  linalg.matmul ins(%a, %b : memref<33x17xbf16>, memref<17x70xbf16>) outs(%c : memref<33x70xf32>)
  linalg.batch_matmul ins(%ba, %bb : memref<2x33x17xbf16>, memref<2x17x70xbf16>) outs(%bc : memref<2x33x70xf32>)
  linalg.matmul ins(%fa, %fb : memref<33x17xf32>, memref<17x70xf32>) outs(%c : memref<33x70xf32>)
  linalg.conv_2d_nchw_fchw ins(%img, %w : memref<1x3x8x8xbf16>, memref<4x3x3x3xbf16>) outs(%o : memref<1x4x6x6xf32>)
  return
}
