// Invalid IR (a value used before its definition) for verify-result.mlir.
func.func @use_before_definition(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %1, %x : tensor<4xf32>
  %1 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
