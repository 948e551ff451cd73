// sm_80 Tensor Cores have no FP8 (mma.sync takes e4m3/e5m2 from sm_89 on):
// an FP8 matmul with chip=sm_80 is an error at the matmul, whatever its
// shape, and the pass fails (docs/TensorCore.md says why this is not a
// fallback).
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-matmul-to-tensorcore="chip=sm_80" -o /dev/null
// RUN: not mpt-opt %s --split-input-file --mpt-gpu-codegen="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: FP8 matmul (f8E4M3FN x f8E4M3FN) cannot use sm_80 Tensor Cores: mma.sync takes e4m3/e5m2 operands from sm_89 on; use chip=sm_90a (wgmma) or autocast with dtype=bf16

func.func @e4m3(%a: memref<128x128xf8E4M3FN>, %c: memref<128x128xf32>) {
  // expected-error @below {{FP8 matmul (f8E4M3FN x f8E4M3FN) cannot use sm_80 Tensor Cores: mma.sync takes e4m3/e5m2 operands from sm_89 on; use chip=sm_90a (wgmma) or autocast with dtype=bf16}}
  linalg.matmul ins(%a, %a : memref<128x128xf8E4M3FN>, memref<128x128xf8E4M3FN>) outs(%c : memref<128x128xf32>)
  return
}

// -----

// Mixed formats and an odd shape: still the error, not a fallback.
func.func @hybrid(%a: memref<100x64xf8E5M2>, %b: memref<64x32xf8E4M3FN>, %c: memref<100x32xf32>) {
  // expected-error @below {{FP8 matmul (f8E5M2 x f8E4M3FN) cannot use sm_80 Tensor Cores}}
  linalg.matmul ins(%a, %b : memref<100x64xf8E5M2>, memref<64x32xf8E4M3FN>) outs(%c : memref<100x32xf32>)
  return
}
