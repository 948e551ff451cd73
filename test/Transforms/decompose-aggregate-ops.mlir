// RUN: mpt-opt %s --split-input-file --mpt-decompose-aggregate-ops | FileCheck %s

// linalg.softmax becomes max-reduction, exp, sum-reduction and division
// generics.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:   linalg.softmax
// CHECK:       linalg.generic
// CHECK-SAME:  iterator_types = ["parallel", "reduction"]
// CHECK:       arith.maxnumf
// CHECK:       math.exp
// CHECK:       arith.divf
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// Other ops are left alone (tensor.concat bufferizes as it is).
// CHECK-LABEL: func.func @others
// CHECK:       linalg.matmul
// CHECK:       tensor.concat
func.func @others(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  %cat = tensor.concat dim(0) %r, %r : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %cat : tensor<4x2xf32>
}
