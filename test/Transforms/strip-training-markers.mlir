// RUN: mpt-opt %s --split-input-file --mpt-strip-training-markers | FileCheck %s

// The seed becomes ones of the loss's type; a gradient marker forwards its
// operand.
// CHECK-LABEL: func.func @static_shapes
// CHECK-SAME: (%[[L:.*]]: tensor<f32>, %[[G:.*]]: tensor<4xf32>)
// CHECK-NOT: mpt.
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: return %[[ONE]], %[[G]]
func.func @static_shapes(%l: tensor<f32>, %g: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %s = mpt.grad_seed %l : tensor<f32>
  %gw = mpt.gradient %g : tensor<4xf32>
  return %s, %gw : tensor<f32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_loss
// CHECK-SAME: (%[[L:.*]]: tensor<?xbf16>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : bf16
// CHECK-DAG: %[[D:.*]] = tensor.dim %[[L]], %{{.*}} : tensor<?xbf16>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xbf16>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ONE]] : bf16) outs(%[[E]] : tensor<?xbf16>)
// CHECK: return %[[F]]
func.func @dynamic_loss(%l: tensor<?xbf16>) -> tensor<?xbf16> {
  %s = mpt.grad_seed %l : tensor<?xbf16>
  return %s : tensor<?xbf16>
}
