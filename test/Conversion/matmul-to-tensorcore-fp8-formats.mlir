// FP8 formats other than f8E4M3FN and f8E5M2 have no wgmma type: the matmul
// takes the general path with the element types as the reason (sm_90a), and
// is not the sm_80 FP8 error either.
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="chip=sm_90a general=host"
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="chip=sm_80 general=host"

func.func @fnuz(%u: memref<128x128xf8E4M3FNUZ>, %v: memref<128x128xf8E4M3>, %c: memref<128x128xf32>) {
  // expected-remark @below {{matmul not lowered to Tensor Cores (general path: left as is): element types f8E4M3FNUZ x f8E4M3FNUZ -> f32 (Tensor Cores need f16 x f16 or bf16 x bf16 -> f32, or FP8 f8E4M3FN/f8E5M2 in any pairing -> f32 on sm_90a)}}
  linalg.matmul ins(%u, %u : memref<128x128xf8E4M3FNUZ>, memref<128x128xf8E4M3FNUZ>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{element types f8E4M3 x f8E4M3 -> f32}}
  linalg.matmul ins(%v, %v : memref<128x128xf8E4M3>, memref<128x128xf8E4M3>) outs(%c : memref<128x128xf32>)
  return
}
