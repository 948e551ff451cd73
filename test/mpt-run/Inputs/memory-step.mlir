// A step whose heap allocations are known exactly (test/mpt-run/memory.test):
//   u = w * x        (32 B, forward only: dies before the backward)
//   h = exp(u)       (32 B, kept: dL/dw = x * h)
//   loss = sum(h)    (4 B, returned)
//   seed             (4 B, the ones strip-training-markers makes)
//   dw = x * h * s   (32 B, the gradient)
//   w' = w - lr * dw (32 B, returned)
// Every tensor.empty is a fresh buffer; @in_place_step names w as the
// destination of w' (bufferization still gives it a buffer of its own:
// arguments are not writable).
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @step(
    %w: tensor<8xf32> {mpt.role = "param"},
    %x: tensor<8xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%w, %x : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %e8h = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%u : tensor<8xf32>) outs(%e8h : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%h : tensor<8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e8g = tensor.empty() : tensor<8xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %h, %seed : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e8g : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %g = arith.mulf %p, %s : f32
    linalg.yield %g : f32
  } -> tensor<8xf32>
  %g = mpt.gradient %dw : tensor<8xf32>
  %e8w = tensor.empty() : tensor<8xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e8w : tensor<8xf32>) {
  ^bb0(%p: f32, %d: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %d : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %loss, %nw : tensor<f32>, tensor<8xf32>
}

func.func @in_place_step(
    %w: tensor<8xf32> {mpt.role = "param"},
    %x: tensor<8xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%w, %x : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %e8h = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%u : tensor<8xf32>) outs(%e8h : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%h : tensor<8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e8g = tensor.empty() : tensor<8xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %h, %seed : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e8g : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %g = arith.mulf %p, %s : f32
    linalg.yield %g : f32
  } -> tensor<8xf32>
  %g = mpt.gradient %dw : tensor<8xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%w : tensor<8xf32>) {
  ^bb0(%p: f32, %d: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %d : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %loss, %nw : tensor<f32>, tensor<8xf32>
}
