// RUN: not mpt-opt %s --split-input-file 2>&1 | FileCheck %s

// Malformed MLIR: one error at its location, a non-zero exit, no output.
// CHECK: bad-input.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: use of undeclared SSA value name
// CHECK-NOT: func.func
func.func @undefined_value() -> tensor<f32> {
  return %nothing : tensor<f32>
}

// -----

// CHECK: bad-input.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: custom op 'mpt.not_an_op' is unknown
func.func @unknown_mpt_op(%x: tensor<f32>) -> tensor<f32> {
  %0 = mpt.not_an_op %x : tensor<f32>
  return %0 : tensor<f32>
}
