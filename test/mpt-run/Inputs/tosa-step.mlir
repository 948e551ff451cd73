// A step written in TOSA (tosa.matmul, tanh, reduce_sum, transpose, const)
// with its backward in tensor-level arith: loss = sum(tanh(x w)), SGD on w.
func.func @step(%w: tensor<1x4x3xf32> {mpt.role = "param"}, %x: tensor<1x6x4xf32> {mpt.role = "data"},
                %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<1x4x3xf32> {mpt.updates = 0 : i64}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x6x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x3xf32>
  %h = tosa.tanh %y : (tensor<1x6x3xf32>) -> tensor<1x6x3xf32>
  %s1 = tosa.reduce_sum %h {axis = 1 : i32} : (tensor<1x6x3xf32>) -> tensor<1x1x3xf32>
  %s2 = tosa.reduce_sum %s1 {axis = 2 : i32} : (tensor<1x1x3xf32>) -> tensor<1x1x1xf32>
  %loss = tensor.collapse_shape %s2 [] : tensor<1x1x1xf32> into tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %sv = tensor.extract %seed[] : tensor<f32>
  %sb = tensor.splat %sv : tensor<1x6x3xf32>
  %hh = arith.mulf %h, %h : tensor<1x6x3xf32>
  %ones = arith.constant dense<1.0> : tensor<1x6x3xf32>
  %om = arith.subf %ones, %hh : tensor<1x6x3xf32>
  %dy = arith.mulf %om, %sb : tensor<1x6x3xf32>
  %xT = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x6x4xf32>) -> tensor<1x4x6xf32>
  %dw = tosa.matmul %xT, %dy, %zp, %zp : (tensor<1x4x6xf32>, tensor<1x6x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3xf32>
  %gw = mpt.gradient %dw : tensor<1x4x3xf32>
  %lv = tensor.extract %lr[] : tensor<f32>
  %lrs = tensor.splat %lv : tensor<1x4x3xf32>
  %st = arith.mulf %gw, %lrs : tensor<1x4x3xf32>
  %nw = arith.subf %w, %st : tensor<1x4x3xf32>
  return %loss, %nw : tensor<f32>, tensor<1x4x3xf32>
}
