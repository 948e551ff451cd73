// A step with dynamic loss scaling written out in arith/linalg (no mpt
// loss-scaling ops), to test how mpt-run logs the loss scale and skipped
// steps. GradScaler semantics with growth_interval = 2:
//   loss = sum(w * x); g = unscale(scale * dL/dw) = x (exactly, powers of 2)
//   found_inf = any(g is inf or NaN)
//   w' = found_inf ? w : w - lr * g
//   found_inf: scale' = scale * 0.5, tracker' = 0
//   else:      tracker' = tracker + 1; at 2: scale' = scale * 2, tracker' = 0

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @scaled_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"},
    %scale: tensor<f32> {mpt.role = "loss_scale", mpt.initial_value = 65536.0 : f32},
    %tracker: tensor<i32> {mpt.role = "loss_scale_growth_tracker", mpt.initial_value = 0 : i32})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<f32> {mpt.updates = 3 : i64},
        tensor<i32> {mpt.updates = 4 : i64}) {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %false = arith.constant false
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
  %s = tensor.extract %scale[] : tensor<f32>
  %seed_one = arith.constant 1.0 : f32
  %inv = arith.divf %seed_one, %s : f32
  // scaled gradient, then unscaled
  %g = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %sd: f32, %o: f32):
    %scaled = arith.mulf %a, %sd : f32
    %up = arith.mulf %scaled, %s : f32
    %un = arith.mulf %up, %inv : f32
    linalg.yield %un : f32
  } -> tensor<4xf32>
  %gw = mpt.gradient %g : tensor<4xf32>
  %ef = tensor.empty() : tensor<i1>
  %f0 = linalg.fill ins(%false : i1) outs(%ef : tensor<i1>) -> tensor<i1>
  %found = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%gw : tensor<4xf32>) outs(%f0 : tensor<i1>) {
  ^bb0(%a: f32, %acc: i1):
    %abs = math.absf %a : f32
    %isinf = arith.cmpf oeq, %abs, %inf : f32
    %isnan = arith.cmpf uno, %a, %a : f32
    %bad = arith.ori %isinf, %isnan : i1
    %r = arith.ori %bad, %acc : i1
    linalg.yield %r : i1
  } -> tensor<i1>
  %fi = tensor.extract %found[] : tensor<i1>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %gw, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %gv: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %gv : f32
    %n = arith.subf %p, %d : f32
    %keep = arith.select %fi, %p, %n : f32
    linalg.yield %keep : f32
  } -> tensor<4xf32>
  // scale update
  %t = tensor.extract %tracker[] : tensor<i32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %t1 = arith.addi %t, %c1 : i32
  %grow = arith.cmpi eq, %t1, %c2 : i32
  %grown = arith.mulf %s, %two : f32
  %good_scale = arith.select %grow, %grown, %s : f32
  %good_t = arith.select %grow, %c0, %t1 : i32
  %backed = arith.mulf %s, %half : f32
  %ns = arith.select %fi, %backed, %good_scale : f32
  %nt = arith.select %fi, %c0, %good_t : i32
  %nst = tensor.from_elements %ns : tensor<f32>
  %ntt = tensor.from_elements %nt : tensor<i32>
  return %loss, %nw, %nst, %ntt : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>
}
