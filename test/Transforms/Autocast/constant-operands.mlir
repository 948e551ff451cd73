// RUN: mpt-opt %s --split-input-file --mpt-autocast | FileCheck %s

// The low-precision copy of a constant is a constant: autocast folds the cast
// (as the greedy driver would) instead of leaving the step to round the
// constant on every run, and the f32 constant goes when nothing else reads it.
// CHECK-LABEL: func.func @constant_weight(
// CHECK-NOT: arith.constant dense<5.000000e-01> : tensor<8x2xf32>
// CHECK-DAG: %[[X:.*]] = arith.truncf %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<8x2xf16>
// CHECK-NOT: arith.truncf
// CHECK: linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf16>, tensor<8x2xf16>)
func.func @constant_weight(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<0.5> : tensor<8x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A constant something else reads in f32 stays, next to its f16 copy.
// CHECK-LABEL: func.func @constant_read_twice(
// CHECK-DAG: %[[W32:.*]] = arith.constant dense<5.000000e-01> : tensor<8x2xf32>
// CHECK-DAG: %[[W16:.*]] = arith.constant dense<5.000000e-01> : tensor<8x2xf16>
// CHECK: linalg.matmul ins(%{{.*}}, %[[W16]] : tensor<4x8xf16>, tensor<8x2xf16>)
// CHECK: return %{{.*}}, %[[W32]]
func.func @constant_read_twice(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<8x2xf32>) {
  %w = arith.constant dense<0.5> : tensor<8x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y, %w : tensor<4x2xf32>, tensor<8x2xf32>
}
