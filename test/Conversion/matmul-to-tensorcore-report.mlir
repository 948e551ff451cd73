// The report lists every matmul: which reached Tensor Cores (kernel function
// and configuration) and why the others did not.
// RUN: mpt-opt %s --mpt-matmul-to-tensorcore="report=%t.txt" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=TEXT < %t.txt
// RUN: mpt-opt %s --mpt-matmul-to-tensorcore="chip=sm_90a report=- report-format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// The options every report has, output= and format=, of which report= and
// report-format= are deprecated aliases: the same reports.
// RUN: mpt-opt %s --mpt-matmul-to-tensorcore="output=%t.output.txt" -o /dev/null 2>/dev/null
// RUN: diff %t.txt %t.output.txt
// RUN: mpt-opt %s --mpt-matmul-to-tensorcore="chip=sm_90a output=- format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// TEXT: Tensor Cores (sm_80): 2 of 3 matmuls lowered
// TEXT-NEXT: {{.*}}matmul-to-tensorcore-report.mlir:[[@LINE+20]]:3: linalg.matmul 256x256x256 f16: Tensor Cores in @f_tensorcore (mma.sync m16n8k16, block tile 128x128x32, warp tile 64x64, 3 cp.async stages, 128 threads)
// TEXT-NEXT: {{.*}}matmul-to-tensorcore-report.mlir:[[@LINE+20]]:3: linalg.matmul 100x256x256 bf16: general path (SIMT GPU kernel in @f_simt): 100x256x256 is not a multiple of the 128x128x32 tile
// TEXT-NEXT: {{.*}}matmul-to-tensorcore-report.mlir:[[@LINE+20]]:3: linalg.batch_matmul 2 x 256x256x256 f16: Tensor Cores in @f_tensorcore_0

// JSON: "chip": "sm_90a",
// JSON-NEXT: "lowered": 1,
// JSON-NEXT: "matmuls": [
// JSON: "function": "f_tensorcore",
// JSON-NEXT: "kernel": "TMA + wgmma.mma_async m64n128k16, block tile 128x128x64, 3 mbarrier stages, 128 threads",
// JSON: "matmul": "256x256x256 f16",
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "tensor_cores": true
// JSON: "reason": "100x256x256 is not a multiple of the 128x128x64 wgmma tile",
// JSON-NEXT: "tensor_cores": false
// JSON: "matmul": "2 x 256x256x256 f16",
// JSON-NEXT: "op": "linalg.batch_matmul",
// JSON-NEXT: "reason": "batch_matmul is not lowered to wgmma yet (sm_80 lowers it)",
// JSON: "not_lowered": 2
func.func @f(%a: memref<256x256xf16>, %c: memref<256x256xf32>, %ab: memref<100x256xbf16>, %bb: memref<256x256xbf16>,
             %cb: memref<100x256xf32>, %ba: memref<2x256x256xf16>, %bc: memref<2x256x256xf32>) {
  linalg.matmul ins(%a, %a : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf32>)
  linalg.matmul ins(%ab, %bb : memref<100x256xbf16>, memref<256x256xbf16>) outs(%cb : memref<100x256xf32>)
  linalg.batch_matmul ins(%ba, %ba : memref<2x256x256xf16>, memref<2x256x256xf16>) outs(%bc : memref<2x256x256xf32>)
  return
}
