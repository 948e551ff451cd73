// `mpt.updates` names an argument that does not exist.

func.func @step(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 5 : i64}) {
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
