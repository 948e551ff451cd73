// An argument whose size in bytes does not fit in 64 bits.
func.func @step(%w: tensor<4294967296x4294967296xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
