// A layer whose weight the model computes from parameters before reading it
// (weight norm's scaling, a weight concatenated from two) is a layer of the
// model: the loss region starts after it, and it runs f16. It was kept f32
// as "in the loss region" with the whole forward (found by a survey of
// hand-written steps): only transposes, broadcasts, reshapes, slices and
// casts of a parameter counted. A contraction of data-derived values (the
// loss's target times its output) is still in the loss region.
// RUN: mpt-opt %s --split-input-file --mpt-precision-report -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: mpt precision report: @scaled_weights
// CHECK: :[[#@LINE+13]]:8 linalg.matmul [forward] f16: allow (default allow list)
// CHECK-NEXT: :[[#@LINE+13]]:8 linalg.matmul [forward] f16: allow (default allow list)
// CHECK: :[[#@LINE+16]]:9 linalg.matmul [forward] f32: allow op in the loss region
func.func @scaled_weights(%w1: tensor<4x4xf32> {mpt.role = "param"}, %w2: tensor<4x4xf32> {mpt.role = "param"},
                          %x: tensor<8x4xf32> {mpt.role = "data"}, %t: tensor<4x8xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x4xf32> {mpt.updates = 0 : i64}, tensor<4x4xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant dense<0.5> : tensor<4x4xf32>
  %m1 = arith.mulf %w1, %half : tensor<4x4xf32>
  %n = arith.mulf %w2, %w2 : tensor<4x4xf32>
  %m2 = arith.divf %w2, %n : tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = linalg.matmul ins(%x, %m1 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%h, %m2 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  // The target times the output: data-derived operands, the loss region.
  %ty = linalg.matmul ins(%t, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%ty : tensor<4x4xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %gs = linalg.broadcast ins(%seed : tensor<f32>) outs(%e4 : tensor<4x4xf32>) dimensions = [0, 1]
  %g1 = mpt.gradient %gs : tensor<4x4xf32>
  %g2 = mpt.gradient %gs : tensor<4x4xf32>
  %n1 = arith.subf %w1, %g1 : tensor<4x4xf32>
  %n2 = arith.subf %w2, %g2 : tensor<4x4xf32>
  return %loss, %n1, %n2 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: mpt precision report: @concatenated_weight
// CHECK: :[[#@LINE+8]]:8 linalg.matmul [forward] f16: allow (default allow list)
func.func @concatenated_weight(%wa: tensor<4x2xf32> {mpt.role = "param"}, %wb: tensor<4x2xf32> {mpt.role = "param"},
                               %x: tensor<8x4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x2xf32> {mpt.updates = 0 : i64}, tensor<4x2xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %w = tensor.concat dim(1) %wa, %wb : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<8x4xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e2 = tensor.empty() : tensor<4x2xf32>
  %gs = linalg.broadcast ins(%seed : tensor<f32>) outs(%e2 : tensor<4x2xf32>) dimensions = [0, 1]
  %ga = mpt.gradient %gs : tensor<4x2xf32>
  %gb = mpt.gradient %gs : tensor<4x2xf32>
  %na = arith.subf %wa, %ga : tensor<4x2xf32>
  %nb = arith.subf %wb, %gb : tensor<4x2xf32>
  return %loss, %na, %nb : tensor<f32>, tensor<4x2xf32>, tensor<4x2xf32>
}
