// An i32 hyperparameter (the number of something): values must fit.
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %n: tensor<i32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
