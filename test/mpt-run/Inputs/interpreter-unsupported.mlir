// A step with an op the interpreter does not know (math.atan), for
// test/mpt-run/interpreted-steps.test: loss = sum(w * x), dL/dw = seed * atan(x).
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>
func.func @atan_step(%w: tensor<4xf32> {mpt.role = "param"},
                      %x: tensor<4xf32> {mpt.role = "data"},
                      %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#sc1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%seed, %x : tensor<f32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%s: f32, %b: f32, %out: f32):
    %at = math.atan %b : f32
    %p = arith.mulf %s, %at : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %out: f32):
    %d = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}
