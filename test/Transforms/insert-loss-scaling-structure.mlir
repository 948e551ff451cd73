// Where --mpt-insert-loss-scaling puts things: a "loss_grad" argument as the
// seed, gradients interleaved with the update, functions that are not steps,
// state returned unchanged.
// RUN: mpt-opt %s --split-input-file --mpt-insert-loss-scaling="mode=static" | FileCheck %s

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>

// The seed is an argument: it is scaled at the top of the body, and every
// use of it reads the scaled value.
// CHECK-LABEL: func.func @loss_grad_argument(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[X:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "data"}, %[[DL:[a-z0-9]+]]: tensor<f32> {mpt.role = "loss_grad"})
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant dense<6.553600e+04> : tensor<f32>
// CHECK-NEXT: %[[SCALED:.*]] = mpt.scale %[[DL]] by %[[SCALE]] : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[SCALED]] :
// CHECK: %[[G:.*]] = mpt.gradient
// CHECK-NEXT: %[[U:.*]], %[[FOUND:.*]] = mpt.unscale_and_check %[[G]] by %[[SCALE]]
// CHECK: mpt.guard_update %{{.*}}, %[[W]] if %[[FOUND]]
func.func @loss_grad_argument(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %dl: tensor<f32> {mpt.role = "loss_grad"})
    -> (tensor<4xf32> {mpt.updates = 0 : i64}) {
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %dl : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %nw : tensor<4xf32>
}

// -----

// The update of w reads its gradient before the gradient of b is complete:
// the marker of b (with what it needs) moves up so that one check covers
// both gradients before any optimizer op reads one.
// CHECK-LABEL: func.func @interleaved_update(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[B:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}
// CHECK: %[[GW:.*]] = mpt.gradient %{{.*}} : tensor<4xf32>
// CHECK-NEXT: %[[DB:.*]] = arith.mulf
// CHECK-NEXT: %[[GB:.*]] = mpt.gradient %[[DB]] : tensor<4xf32>
// CHECK-NEXT: %[[U:.*]]:2, %[[FOUND:.*]] = mpt.unscale_and_check %[[GW]], %[[GB]] by
// CHECK-NEXT: %[[NW:.*]] = arith.subf %[[W]], %[[U]]#0 : tensor<4xf32>
// CHECK-NEXT: %[[NB:.*]] = arith.subf %[[B]], %[[U]]#1 : tensor<4xf32>
// CHECK-NEXT: %[[GUARD_W:.*]] = mpt.guard_update %[[NW]], %[[W]] if %[[FOUND]]
// CHECK-NEXT: %[[GUARD_B:.*]] = mpt.guard_update %[[NB]], %[[B]] if %[[FOUND]]
// CHECK-NEXT: return %{{.*}}, %[[GUARD_W]], %[[GUARD_B]]
func.func @interleaved_update(
    %w: tensor<4xf32> {mpt.role = "param"},
    %b: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %loss = arith.mulf %w, %x : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %x : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  %db = arith.mulf %seed, %seed : tensor<4xf32>
  %gb = mpt.gradient %db : tensor<4xf32>
  %nb = arith.subf %b, %gb : tensor<4xf32>
  return %loss, %nw, %nb : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A function with no part of the training-graph contract is not a step: it
// is left alone (no error for the missing seed).
// CHECK-LABEL: func.func @helper(
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A state argument returned as is (a parameter this step does not train)
// needs no guard.
// CHECK-LABEL: func.func @frozen_param(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[FROZEN:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}
// CHECK: %[[GUARD_W:.*]] = mpt.guard_update %{{.*}}, %[[W]] if
// CHECK-NOT: mpt.guard_update
// CHECK: return %{{.*}}, %[[GUARD_W]], %[[FROZEN]] :
func.func @frozen_param(
    %w: tensor<4xf32> {mpt.role = "param"},
    %frozen: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %y = arith.mulf %w, %x : tensor<4xf32>
  %loss = arith.addf %y, %frozen : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %x : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  return %loss, %nw, %frozen : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
