// An mpt.initial_value that an i32 argument cannot hold.
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %n: tensor<i32> {mpt.role = "optimizer_state", mpt.initial_value = 1.0e30 : f64})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<i32> {mpt.updates = 1 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  return %l, %w, %n : tensor<f32>, tensor<4xf32>, tensor<i32>
}
