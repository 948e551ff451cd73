// The MLP of examples/mlp/mlp_step.mlir with a masked cross-entropy, the
// case of issue 13: loss = -sum(y * log_softmax(logits + mask)) / batch,
// where the mask puts -1e9 on the classes a sample cannot be (keep = 0).
// In f16 -1e9 is -inf and 0 * -inf = NaN: the log-probabilities and what
// reads them must stay f32.
#id   = affine_map<(i, j) -> (i, j)>
#col  = affine_map<(i, j) -> (j)>
#row  = affine_map<(i, j) -> (i)>
#scal = affine_map<(i, j) -> ()>
#id1  = affine_map<(i) -> (i)>
#sc1  = affine_map<(i) -> ()>

func.func @masked_ce_step(
    %w1: tensor<16x32xf32> {mpt.role = "param"},
    %b1: tensor<32xf32> {mpt.role = "param"},
    %w2: tensor<32x4xf32> {mpt.role = "param"},
    %b2: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<8x16xf32> {mpt.role = "data"},
    %y: tensor<8x4xf32> {mpt.role = "data"},
    %keep: tensor<8x4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<16x32xf32> {mpt.updates = 0 : i64},
        tensor<32xf32> {mpt.updates = 1 : i64},
        tensor<32x4xf32> {mpt.updates = 2 : i64},
        tensor<4xf32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inv_batch = arith.constant 0.125 : f32
  %neg_inv_batch = arith.constant -0.125 : f32
  %half = arith.constant 0.5 : f32
  %big = arith.constant -1.0e9 : f32

  // ---- forward ----
  %e8x32 = tensor.empty() : tensor<8x32xf32>
  %z8x32 = linalg.fill ins(%zero : f32) outs(%e8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %xw1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>)
                       outs(%z8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xw1, %b1 : tensor<8x32xf32>, tensor<32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e8x4 = tensor.empty() : tensor<8x4xf32>
  %z8x4 = linalg.fill ins(%zero : f32) outs(%e8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %aw2 = linalg.matmul ins(%act, %w2 : tensor<8x32xf32>, tensor<32x4xf32>)
                       outs(%z8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %logits = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%aw2, %b2 : tensor<8x4xf32>, tensor<4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>

  // The mask: -1e9 on the classes a sample cannot be (keep = 0).
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %keep : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %k: f32, %o: f32):
    %kept = arith.cmpf ogt, %k, %half : f32
    %m = arith.select %kept, %zero, %big : f32
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  // log_softmax(z) = z - m - log(sum(exp(z - m)))
  %e8 = tensor.empty() : tensor<8xf32>
  %ninf8 = linalg.fill ins(%ninf : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %rowmax = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<8x4xf32>) outs(%ninf8 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %exps = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %rowmax : tensor<8x4xf32>, tensor<8xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x4xf32>
  %zero8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %sumexp = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exps : tensor<8x4xf32>) outs(%zero8 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %logp = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %rowmax, %sumexp : tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %l = math.log %s : f32
    %r = arith.subf %d, %l : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  // loss = -sum(y * logp) / batch: per sample a target-times-log-probability
  // contraction (masked classes: 0 * -1e9), then the batch mean.
  %ylogp = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y, %logp : tensor<8x4xf32>, tensor<8x4xf32>) outs(%zero8 : tensor<8xf32>) {
  ^bb0(%t: f32, %l: f32, %acc: f32):
    %p = arith.mulf %t, %l : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %zero0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %losssum = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%ylogp : tensor<8xf32>) outs(%zero0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%losssum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %neg_inv_batch : f32
    linalg.yield %m : f32
  } -> tensor<f32>

  // ---- backward ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  // dL/dz = (softmax(z) - y) * seed / batch; softmax(z) = exp(logp) is 0 on
  // the masked classes.
  %dlogits = linalg.generic {indexing_maps = [#id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%logp, %y, %seed : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>)
      outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%l: f32, %t: f32, %g: f32, %o: f32):
    %p = math.exp %l : f32
    %d = arith.subf %p, %t : f32
    %gs = arith.mulf %g, %inv_batch : f32
    %r = arith.mulf %d, %gs : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  // dw2 = act^T @ dz ; db2 = sum_batch dz
  %e32x8 = tensor.empty() : tensor<32x8xf32>
  %actT = linalg.transpose ins(%act : tensor<8x32xf32>) outs(%e32x8 : tensor<32x8xf32>) permutation = [1, 0]
  %e32x4 = tensor.empty() : tensor<32x4xf32>
  %z32x4 = linalg.fill ins(%zero : f32) outs(%e32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %dw2 = linalg.matmul ins(%actT, %dlogits : tensor<32x8xf32>, tensor<8x4xf32>)
                       outs(%z32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %db2 = linalg.reduce ins(%dlogits : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  // da = dz @ w2^T ; dh = da * (h > 0)
  %e4x32 = tensor.empty() : tensor<4x32xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<32x4xf32>) outs(%e4x32 : tensor<4x32xf32>) permutation = [1, 0]
  %dact = linalg.matmul ins(%dlogits, %w2T : tensor<8x4xf32>, tensor<4x32xf32>)
                        outs(%z8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dact, %h : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%g: f32, %a: f32, %o: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  // dw1 = x^T @ dh ; db1 = sum_batch dh
  %e16x8 = tensor.empty() : tensor<16x8xf32>
  %xT = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e16x8 : tensor<16x8xf32>) permutation = [1, 0]
  %e16x32 = tensor.empty() : tensor<16x32xf32>
  %z16x32 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %dw1 = linalg.matmul ins(%xT, %dh : tensor<16x8xf32>, tensor<8x32xf32>)
                       outs(%z16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e32 = tensor.empty() : tensor<32xf32>
  %z32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<32xf32>) -> tensor<32xf32>
  %db1 = linalg.reduce ins(%dh : tensor<8x32xf32>) outs(%z32 : tensor<32xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %gw1 = mpt.gradient %dw1 : tensor<16x32xf32>
  %gb1 = mpt.gradient %db1 : tensor<32xf32>
  %gw2 = mpt.gradient %dw2 : tensor<32x4xf32>
  %gb2 = mpt.gradient %db2 : tensor<4xf32>

  // ---- update: p - lr * g ----
  %nw1 = linalg.generic {indexing_maps = [#id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %gw1, %lr : tensor<16x32xf32>, tensor<16x32xf32>, tensor<f32>) outs(%e16x32 : tensor<16x32xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x32xf32>
  %nb1 = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%b1, %gb1, %lr : tensor<32xf32>, tensor<32xf32>, tensor<f32>) outs(%e32 : tensor<32xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  %nw2 = linalg.generic {indexing_maps = [#id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %gw2, %lr : tensor<32x4xf32>, tensor<32x4xf32>, tensor<f32>) outs(%e32x4 : tensor<32x4xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<32x4xf32>
  %nb2 = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%b2, %gb2, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw1, %nb1, %nw2, %nb2
      : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
}
