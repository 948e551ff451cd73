// Loss scaling on an Adam step: the moments and the step counter are
// optimizer state, so on overflow they are kept along with the parameter
// (GradScaler skips optimizer.step() altogether, the step count included).
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=static" | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=dynamic growth-interval=1000" | FileCheck %s --check-prefix=DYNAMIC

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
#s0 = affine_map<() -> ()>

// STATIC-LABEL: func.func @adam_step(
// STATIC-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[M:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "optimizer_state"}, %[[V:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "optimizer_state"}, %[[T:[a-z0-9]+]]: tensor<f32> {mpt.role = "optimizer_state"},
// STATIC-NOT: loss_scale
// STATIC-SAME: -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}, tensor<4xf32> {mpt.updates = 1 : i64}, tensor<4xf32> {mpt.updates = 2 : i64}, tensor<f32> {mpt.updates = 3 : i64}) {
// STATIC: %[[SCALE:.*]] = arith.constant dense<6.553600e+04> : tensor<f32>
// STATIC: %[[SEED:.*]] = mpt.grad_seed
// STATIC-NEXT: %[[SCALED:.*]] = mpt.scale %[[SEED]] by %[[SCALE]] : tensor<f32>
// STATIC: %[[G:.*]] = mpt.gradient %{{.*}} : tensor<4xf32>
// STATIC: %[[U:.*]], %[[FOUND:.*]] = mpt.unscale_and_check %[[G]] by %[[SCALE]] : tensor<4xf32>
// The unscaling comes right before the first op that reads the gradient,
// and both moments read the unscaled gradient.
// STATIC-NEXT: %[[NM:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[U]], %{{.*}} :
// STATIC: %[[NV:.*]] = linalg.generic {{.*}} ins(%[[V]], %[[U]], %{{.*}} :
// STATIC: mpt.guard_update %{{.*}}, %[[W]] if %[[FOUND]] : tensor<4xf32>
// STATIC-NEXT: mpt.guard_update %[[NM]], %[[M]] if %[[FOUND]] : tensor<4xf32>
// STATIC-NEXT: mpt.guard_update %[[NV]], %[[V]] if %[[FOUND]] : tensor<4xf32>
// STATIC-NEXT: mpt.guard_update %{{.*}}, %[[T]] if %[[FOUND]] : tensor<f32>
// STATIC-NEXT: return

// DYNAMIC-LABEL: func.func @adam_step(
// DYNAMIC-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {mpt.initial_value = 6.553600e+04 : f32, mpt.role = "loss_scale"}, %[[TRACKER:[a-z0-9]+]]: tensor<i32> {mpt.initial_value = 0 : i32, mpt.role = "loss_scale_growth_tracker"})
// DYNAMIC-SAME: tensor<f32> {mpt.updates = 3 : i64}, tensor<f32> {mpt.updates = 9 : i64}, tensor<i32> {mpt.updates = 10 : i64})
// DYNAMIC: mpt.scale %{{.*}} by %[[SCALE]] : tensor<f32>
// DYNAMIC: %{{.*}}, %[[FOUND:.*]] = mpt.unscale_and_check %{{.*}} by %[[SCALE]] : tensor<4xf32>
// DYNAMIC-COUNT-4: mpt.guard_update {{.*}} if %[[FOUND]]
// DYNAMIC-NEXT: %[[NS:.*]], %[[NT:.*]] = mpt.update_scale %[[SCALE]], %[[TRACKER]], %[[FOUND]] {growth_interval = 1000 : i32}
// DYNAMIC-NEXT: return {{.*}}, %[[NS]], %[[NT]] :
func.func @adam_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %m: tensor<4xf32> {mpt.role = "optimizer_state"},
    %v: tensor<4xf32> {mpt.role = "optimizer_state"},
    %t: tensor<f32> {mpt.role = "optimizer_state"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"},
    %beta1: tensor<f32> {mpt.role = "hyperparameter"},
    %beta2: tensor<f32> {mpt.role = "hyperparameter"},
    %eps: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64},
        tensor<4xf32> {mpt.updates = 2 : i64},
        tensor<f32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  // ---- forward: loss = sum(w * x) ----
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %acc: f32):
    %p = arith.mulf %wi, %xi : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // ---- backward: dw = x * seed ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  // ---- update (Adam) ----
  %nt = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []}
      ins(%t : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%ti: f32, %o: f32):
    %n = arith.addf %ti, %one : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %nm = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%m, %g, %beta1 : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%mi: f32, %gi: f32, %b1: f32, %o: f32):
    %a = arith.mulf %b1, %mi : f32
    %c = arith.subf %one, %b1 : f32
    %d = arith.mulf %c, %gi : f32
    %n = arith.addf %a, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nv = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%v, %g, %beta2 : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%vi: f32, %gi: f32, %b2: f32, %o: f32):
    %a = arith.mulf %b2, %vi : f32
    %c = arith.subf %one, %b2 : f32
    %g2 = arith.mulf %gi, %gi : f32
    %d = arith.mulf %c, %g2 : f32
    %n = arith.addf %a, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  // w' = w - lr * (m' / (1 - b1^t')) / (sqrt(v' / (1 - b2^t')) + eps)
  %nw = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #sc, #sc, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %nm, %nv, %nt, %lr, %beta1, %beta2, %eps : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e4 : tensor<4xf32>) {
  ^bb0(%wi: f32, %mi: f32, %vi: f32, %ti: f32, %r: f32, %b1: f32, %b2: f32, %ep: f32, %o: f32):
    %p1 = math.powf %b1, %ti : f32
    %c1 = arith.subf %one, %p1 : f32
    %mhat = arith.divf %mi, %c1 : f32
    %p2 = math.powf %b2, %ti : f32
    %c2 = arith.subf %one, %p2 : f32
    %vhat = arith.divf %vi, %c2 : f32
    %sq = math.sqrt %vhat : f32
    %den = arith.addf %sq, %ep : f32
    %step = arith.divf %mhat, %den : f32
    %lstep = arith.mulf %r, %step : f32
    %n = arith.subf %wi, %lstep : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw, %nm, %nv, %nt : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
