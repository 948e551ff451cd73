// Loss scaling on an SGD-with-momentum step, static and dynamic: the seed is
// scaled, both gradients go through one unscale_and_check before the
// optimizer reads them, every mpt.updates result (parameters and momentum
// buffers) is guarded, and dynamic mode appends the scale state (the ABI).
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-insert-loss-scaling | FileCheck %s --check-prefix=DYNAMIC
// RUN: mpt-opt %s --mpt-insert-loss-scaling="growth-factor=4.0 backoff-factor=0.25 growth-interval=100 min-scale=1.0 init-scale=32768" | FileCheck %s --check-prefix=OPTIONS
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=none" | FileCheck %s --check-prefix=NONE

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>

// pred = w * x + b (elementwise), loss = sum(pred);
// v' = mu * v + g, p' = p - lr * v' for p in (w, b).

// STATIC-LABEL: func.func @sgd_momentum_step(
// STATIC-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[B:[a-z0-9]+]]: tensor<f32> {mpt.role = "param"}, %[[VW:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "optimizer_state"}, %[[VB:[a-z0-9]+]]: tensor<f32> {mpt.role = "optimizer_state"}, %{{.*}}: tensor<4xf32> {mpt.role = "data"}, %{{.*}}: tensor<f32> {mpt.role = "hyperparameter"}, %{{.*}}: tensor<f32> {mpt.role = "hyperparameter"})
// STATIC-SAME: -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}, tensor<f32> {mpt.updates = 1 : i64}, tensor<4xf32> {mpt.updates = 2 : i64}, tensor<f32> {mpt.updates = 3 : i64})
// STATIC: %[[SCALE:.*]] = arith.constant dense<1.024000e+03> : tensor<f32>
// STATIC: %[[SEED:.*]] = mpt.grad_seed %[[LOSS:.*]] : tensor<f32>
// STATIC-NEXT: %[[SCALED:.*]] = mpt.scale %[[SEED]] by %[[SCALE]] : tensor<f32>
// STATIC: linalg.generic {{.*}} ins(%{{.*}}, %[[SCALED]] :
// STATIC: %[[GW:.*]] = mpt.gradient %{{.*}} : tensor<4xf32>
// STATIC: %[[GB:.*]] = mpt.gradient %{{.*}} : tensor<f32>
// STATIC-NEXT: %[[U:.*]]:2, %[[FOUND:.*]] = mpt.unscale_and_check %[[GW]], %[[GB]] by %[[SCALE]] : tensor<4xf32>, tensor<f32>
// STATIC: %[[NVW:.*]] = linalg.generic {{.*}} ins(%[[VW]], %[[U]]#0, %{{.*}} :
// STATIC: %[[NVB:.*]] = linalg.generic {{.*}} ins(%[[VB]], %[[U]]#1, %{{.*}} :
// STATIC: %[[NW:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[NVW]], %{{.*}} :
// STATIC: %[[NB:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[NVB]], %{{.*}} :
// STATIC: %[[GUARD_W:.*]] = mpt.guard_update %[[NW]], %[[W]] if %[[FOUND]] : tensor<4xf32>
// STATIC-NEXT: %[[GUARD_B:.*]] = mpt.guard_update %[[NB]], %[[B]] if %[[FOUND]] : tensor<f32>
// STATIC-NEXT: %[[GUARD_VW:.*]] = mpt.guard_update %[[NVW]], %[[VW]] if %[[FOUND]] : tensor<4xf32>
// STATIC-NEXT: %[[GUARD_VB:.*]] = mpt.guard_update %[[NVB]], %[[VB]] if %[[FOUND]] : tensor<f32>
// STATIC-NOT: mpt.update_scale
// STATIC-NEXT: return %[[LOSS]], %[[GUARD_W]], %[[GUARD_B]], %[[GUARD_VW]], %[[GUARD_VB]] : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>

// DYNAMIC-LABEL: func.func @sgd_momentum_step(
// DYNAMIC-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[B:[a-z0-9]+]]: tensor<f32> {mpt.role = "param"}, %[[VW:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "optimizer_state"}, %[[VB:[a-z0-9]+]]: tensor<f32> {mpt.role = "optimizer_state"}, %{{.*}}: tensor<4xf32> {mpt.role = "data"}, %{{.*}}: tensor<f32> {mpt.role = "hyperparameter"}, %{{.*}}: tensor<f32> {mpt.role = "hyperparameter"},
// DYNAMIC-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {mpt.initial_value = 6.553600e+04 : f32, mpt.role = "loss_scale"}, %[[TRACKER:[a-z0-9]+]]: tensor<i32> {mpt.initial_value = 0 : i32, mpt.role = "loss_scale_growth_tracker"})
// DYNAMIC-SAME: -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}, tensor<f32> {mpt.updates = 1 : i64}, tensor<4xf32> {mpt.updates = 2 : i64}, tensor<f32> {mpt.updates = 3 : i64}, tensor<f32> {mpt.updates = 7 : i64}, tensor<i32> {mpt.updates = 8 : i64})
// DYNAMIC-NOT: arith.constant dense<{{.*}}> : tensor<f32>
// DYNAMIC: %[[SEED:.*]] = mpt.grad_seed %[[LOSS:.*]] : tensor<f32>
// DYNAMIC-NEXT: %[[SCALED:.*]] = mpt.scale %[[SEED]] by %[[SCALE]] : tensor<f32>
// DYNAMIC: %[[U:.*]]:2, %[[FOUND:.*]] = mpt.unscale_and_check %{{.*}}, %{{.*}} by %[[SCALE]] : tensor<4xf32>, tensor<f32>
// DYNAMIC: %[[GUARD_W:.*]] = mpt.guard_update %{{.*}}, %[[W]] if %[[FOUND]] : tensor<4xf32>
// DYNAMIC-NEXT: %[[GUARD_B:.*]] = mpt.guard_update %{{.*}}, %[[B]] if %[[FOUND]] : tensor<f32>
// DYNAMIC-NEXT: %[[GUARD_VW:.*]] = mpt.guard_update %{{.*}}, %[[VW]] if %[[FOUND]] : tensor<4xf32>
// DYNAMIC-NEXT: %[[GUARD_VB:.*]] = mpt.guard_update %{{.*}}, %[[VB]] if %[[FOUND]] : tensor<f32>
// GradScaler's defaults are the attributes' defaults, so none is printed.
// DYNAMIC-NEXT: %[[NEW_SCALE:.*]], %[[NEW_TRACKER:.*]] = mpt.update_scale %[[SCALE]], %[[TRACKER]], %[[FOUND]]{{$}}
// DYNAMIC-NEXT: return %[[LOSS]], %[[GUARD_W]], %[[GUARD_B]], %[[GUARD_VW]], %[[GUARD_VB]], %[[NEW_SCALE]], %[[NEW_TRACKER]] : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>

// OPTIONS-LABEL: func.func @sgd_momentum_step(
// OPTIONS-SAME: {mpt.initial_value = 3.276800e+04 : f32, mpt.role = "loss_scale"}
// OPTIONS: mpt.update_scale %{{.*}}, %{{.*}}, %{{.*}} {backoff_factor = 2.500000e-01 : f32, growth_factor = 4.000000e+00 : f32, growth_interval = 100 : i32, min_scale = 1.000000e+00 : f32}

// NONE-LABEL: func.func @sgd_momentum_step(
// NONE-NOT: mpt.scale
// NONE-NOT: mpt.unscale_and_check
// NONE-NOT: mpt.guard_update
// NONE: return
func.func @sgd_momentum_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %b: tensor<f32> {mpt.role = "param"},
    %vw: tensor<4xf32> {mpt.role = "optimizer_state"},
    %vb: tensor<f32> {mpt.role = "optimizer_state"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"},
    %mu: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<f32> {mpt.updates = 1 : i64},
        tensor<4xf32> {mpt.updates = 2 : i64},
        tensor<f32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  // ---- forward ----
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc, #sc], iterator_types = ["reduction"]}
      ins(%w, %x, %b : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%z0 : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %bi: f32, %acc: f32):
    %p = arith.mulf %wi, %xi : f32
    %q = arith.addf %p, %bi : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // ---- backward: dw = x * seed, db = 4 * seed ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %db = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%seed : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %four = arith.constant 4.0 : f32
    %p = arith.mulf %s, %four : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %gb = mpt.gradient %db : tensor<f32>
  // ---- update ----
  %nvw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%vw, %gw, %mu : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%v: f32, %g: f32, %m: f32, %o: f32):
    %p = arith.mulf %m, %v : f32
    %s = arith.addf %p, %g : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %nvb = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%vb, %gb, %mu : tensor<f32>, tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%v: f32, %g: f32, %m: f32, %o: f32):
    %p = arith.mulf %m, %v : f32
    %s = arith.addf %p, %g : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %nvw, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %v: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %v : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nb = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%b, %nvb, %lr : tensor<f32>, tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%p: f32, %v: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %v : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %loss, %nw, %nb, %nvw, %nvb : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>
}
