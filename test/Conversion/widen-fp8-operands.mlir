// The FP8 operands of a contraction become bf16 (exact) before the CPU
// kernels; elementwise ops and non-FP8 operands are left alone.
// RUN: mpt-opt %s --split-input-file --mpt-widen-fp8-operands | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf8E4M3FN>, %[[B:.*]]: tensor<4x3xf8E5M2>
// CHECK: %[[WA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x4xf8E4M3FN>) outs(%{{.*}} : tensor<2x4xbf16>)
// CHECK: arith.extf %{{.*}} : f8E4M3FN to bf16
// CHECK: %[[WB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4x3xf8E5M2>) outs(%{{.*}} : tensor<4x3xbf16>)
// CHECK: arith.extf %{{.*}} : f8E5M2 to bf16
// CHECK: linalg.matmul ins(%[[WA]], %[[WB]] : tensor<2x4xbf16>, tensor<4x3xbf16>) outs(%{{.*}} : tensor<2x3xf32>)
func.func @matmul(%a: tensor<2x4xf8E4M3FN>, %b: tensor<4x3xf8E5M2>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x4xf8E4M3FN>, tensor<4x3xf8E5M2>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: bf16
// CHECK: return
func.func @elementwise(%a: tensor<4xf8E4M3FN>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf8E4M3FN>) outs(%c : tensor<4xf32>) {
  ^bb0(%x: f8E4M3FN, %o: f32):
    %e = arith.extf %x : f8E4M3FN to f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
