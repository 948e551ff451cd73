// dtype=fp8 where contractions share operands: a forward activation that a
// backward contraction reads (h in dW = h^T @ dy), and a weight two forward
// contractions read (tied). Rewriting the first contraction replaces its
// result by the descaled one, and the second contraction's operand was then
// looked up under that new value: a null entry, and mpt-opt segfaulted
// (found by a survey of hand-written steps). Operands are keyed before any
// rewrite now; h's FP8 cast reads the descaled product.
// RUN: mpt-opt %s --split-input-file --mpt-autocast="dtype=fp8" | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision="dtype=fp8" -o /dev/null
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision="dtype=fp8" | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @activation_in_backward(
// CHECK: %[[H:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>)
// CHECK: %[[HD:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<16x16xf32>)
// CHECK: arith.divf
// CHECK: %[[QH:.*]] = linalg.generic {{.*}} ins(%[[HD]] : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf8E4M3FN>)
// (y = h @ x reads no parameter: the loss region, f32.)
// CHECK: linalg.matmul ins(%[[HD]], %{{.*}} : tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK: linalg.matmul {{.*}} ins(%[[QH]], %{{.*}} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E5M2>)
// PIPE-LABEL: func.func @activation_in_backward(
func.func @activation_in_backward(%W: tensor<16x16xf32> {mpt.role = "param"}, %x: tensor<16x16xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<16x16xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %h = linalg.matmul ins(%x, %W : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.matmul ins(%h, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<16x16xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<16x16xf32>) dimensions = [0, 1]
  %dW = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%h, %dy : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = mpt.gradient %dW : tensor<16x16xf32>
  %n = linalg.sub ins(%W, %g : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %loss, %n : tensor<f32>, tensor<16x16xf32>
}

// -----

// One FP8 tensor for W, which both forward contractions read (four FP8
// tensors: W, x, h and the seed's broadcast).
// CHECK-LABEL: func.func @tied_weight(
// CHECK-SAME: tensor<1024x4xf32> {mpt.initial_value = 0.000000e+00 : f32, mpt.role = "fp8_amax_history"}
// CHECK: linalg.matmul ins(%{{.*}}, %[[QW:[0-9]+]] : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[QW]] : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>)
// PIPE-LABEL: func.func @tied_weight(
func.func @tied_weight(%W: tensor<16x16xf32> {mpt.role = "param"}, %x: tensor<16x16xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<16x16xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %h = linalg.matmul ins(%x, %W : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.matmul ins(%h, %W : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<16x16xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<16x16xf32>) dimensions = [0, 1]
  %dW = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = mpt.gradient %dW : tensor<16x16xf32>
  %n = linalg.sub ins(%W, %g : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %loss, %n : tensor<f32>, tensor<16x16xf32>
}
