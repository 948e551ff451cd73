// A parameter with a zero-sized dimension (--init must not divide by it).
func.func @step(%w: tensor<4x0xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x0xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4x0xf32>
}
