// A step in float64: loss = sum(w); dL/dw = 1; w' = w - lr.
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @f64_step(
    %w: tensor<4xf64> {mpt.role = "param"},
    %lr: tensor<f64> {mpt.role = "hyperparameter"})
    -> (tensor<f64> {mpt.role = "loss"}, tensor<4xf64> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<f64>
  %z0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %loss = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%w : tensor<4xf64>) outs(%z0 : tensor<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %t = arith.addf %x, %acc : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  %seed = mpt.grad_seed %loss : tensor<f64>
  %ew = tensor.empty() : tensor<4xf64>
  %nw = linalg.generic {indexing_maps = [#id1, #sc1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %seed, %lr : tensor<4xf64>, tensor<f64>, tensor<f64>) outs(%ew : tensor<4xf64>) {
  ^bb0(%p: f64, %g: f64, %r: f64, %o: f64):
    %d = arith.mulf %r, %g : f64
    %n = arith.subf %p, %d : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  return %loss, %nw : tensor<f64>, tensor<4xf64>
}
