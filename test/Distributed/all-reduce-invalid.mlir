// The verifier of mpt.all_reduce: one error each.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics

func.func @two_d(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'mpt.all_reduce' op needs a 1-D tensor of static size}}
  %r = mpt.all_reduce sum %x : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @integer_mean(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mpt.all_reduce' op 'mean' needs a floating-point tensor}}
  %r = mpt.all_reduce mean %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @f16_wire_on_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'mpt.all_reduce' op a wire type needs an f32 input}}
  %r = mpt.all_reduce sum %x {wire = f16} : tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

func.func @wire_on_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.all_reduce' op a wire type needs 'sum' or 'mean'}}
  %r = mpt.all_reduce max %x {wire = bf16} : tensor<4xf32>
  return %r : tensor<4xf32>
}
