// An FP32 step (no casts, no scaling) whose backward signal underflows f16:
//   h = x @ w1, o = h @ w2, loss = 2^-12 * sum(o)
//   dO = 2^-12 * seed, dH = dO @ w2^T = 2^-12 * 2^-14 = 2^-26 (w2 = 2^-14),
//   dW1 = x^T @ dH, dW2 = h^T @ dO; SGD.
// Under --mpt-mixed-precision (f16) the matmul dW1 reads dH in f16, where
// 2^-26 is below the smallest subnormal (2^-24) and flushes to zero unless
// the loss is scaled.
#id = affine_map<(i, j) -> (i, j)>
#sc = affine_map<(i, j) -> ()>
func.func @tiny_grads(%w1: tensor<4x4xf32> {mpt.role = "param"},
                      %w2: tensor<4x1xf32> {mpt.role = "param"},
                      %x: tensor<2x4xf32> {mpt.role = "data"},
                      %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x4xf32> {mpt.updates = 0 : i64},
        tensor<4x1xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 2.44140625e-4 : f32
  %e24 = tensor.empty() : tensor<2x4xf32>
  %z24 = linalg.fill ins(%zero : f32) outs(%e24 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%z24 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e21 = tensor.empty() : tensor<2x1xf32>
  %z21 = linalg.fill ins(%zero : f32) outs(%e21 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %o = linalg.matmul ins(%h, %w2 : tensor<2x4xf32>, tensor<4x1xf32>) outs(%z21 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
      ins(%o : tensor<2x1xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dO = linalg.generic {indexing_maps = [#sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e21 : tensor<2x1xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.mulf %s, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x1xf32>
  %e14 = tensor.empty() : tensor<1x4xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<4x1xf32>) outs(%e14 : tensor<1x4xf32>) permutation = [1, 0]
  %dH = linalg.matmul ins(%dO, %w2T : tensor<2x1xf32>, tensor<1x4xf32>) outs(%z24 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e42 = tensor.empty() : tensor<4x2xf32>
  %xT = linalg.transpose ins(%x : tensor<2x4xf32>) outs(%e42 : tensor<4x2xf32>) permutation = [1, 0]
  %e44 = tensor.empty() : tensor<4x4xf32>
  %z44 = linalg.fill ins(%zero : f32) outs(%e44 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %dW1 = linalg.matmul ins(%xT, %dH : tensor<4x2xf32>, tensor<2x4xf32>) outs(%z44 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %hT = linalg.transpose ins(%h : tensor<2x4xf32>) outs(%e42 : tensor<4x2xf32>) permutation = [1, 0]
  %e41 = tensor.empty() : tensor<4x1xf32>
  %z41 = linalg.fill ins(%zero : f32) outs(%e41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %dW2 = linalg.matmul ins(%hT, %dO : tensor<4x2xf32>, tensor<2x1xf32>) outs(%z41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %g1 = mpt.gradient %dW1 : tensor<4x4xf32>
  %g2 = mpt.gradient %dW2 : tensor<4x1xf32>
  %nw1 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %g1, %lr : tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>) outs(%e44 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %out: f32):
    %d = arith.mulf %r, %g : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4x4xf32>
  %nw2 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %g2, %lr : tensor<4x1xf32>, tensor<4x1xf32>, tensor<f32>) outs(%e41 : tensor<4x1xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %out: f32):
    %d = arith.mulf %r, %g : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4x1xf32>
  return %loss, %nw1, %nw2 : tensor<f32>, tensor<4x4xf32>, tensor<4x1xf32>
}
