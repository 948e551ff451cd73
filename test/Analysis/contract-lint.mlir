// The contract lint: steps that follow the contract but are almost certainly
// not meant give a located warning in every pass that reads the contract
// (here the training-graph report, autocast and loss scaling), once each;
// --mpt-contract-strict makes them errors. docs/TrainingGraphContract.md,
// "Warnings", says how to fix each.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-training-graph-report -o /dev/null
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-autocast -o /dev/null
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-insert-loss-scaling -o /dev/null
// RUN: mpt-opt %s --split-input-file --mpt-training-graph-report --mpt-autocast -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONCE --implicit-check-not=warning:
// RUN: not mpt-opt %s --split-input-file --mpt-contract-strict --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT

// Each warning once, although two passes read the contract (no other
// "warning:" line anywhere).
// ONCE: warning: parameter argument #1 has no mpt.gradient marker
// ONCE: warning: parameter argument #0 is updated by no result
// ONCE: warning: the step has a backward seed but no result marked mpt.role = "loss"
// ONCE: warning: the gradient of parameter argument #1 is zero: it does not depend on the backward seed
// ONCE: warning: attribute 'mpt.rnage' is read by no mpt rule
// STRICT: error: parameter argument #1 has no mpt.gradient marker
// STRICT: error: the step has a backward seed but no result marked
// STRICT: error: the gradient of parameter argument #1 is zero

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

// %b is a parameter whose gradient is never marked (its "update" is a
// copy): loss scaling would not unscale it.
func.func @no_gradient(
    %w: tensor<4xf32> {mpt.role = "param"},
    // expected-warning@+1 {{parameter argument #1 has no mpt.gradient marker: loss scaling will not unscale its gradient}}
    %b: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %xb = arith.addf %x, %b : tensor<4xf32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %xb : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%xb, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

// %w has its gradient, but no result updates it: it stays frozen.
func.func @not_updated(
    // expected-warning@+1 {{parameter argument #0 is updated by no result (no mpt.updates = 0): it stays frozen}}
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}

// -----

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

// A seed, but the loss result is not marked: nothing counts as forward.
func.func @no_loss(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32>, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // expected-warning@+1 {{the step has a backward seed but no result marked mpt.role = "loss": no op counts as forward}}
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}

// -----

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

// %u does not reach the loss (a Longformer's global-attention weights in a
// batch without global tokens): its gradient is a zero fill, as torch.func.vjp
// gives it, not a value of the backward pass. PyTorch leaves its .grad None;
// the step's update reads zeros (here a weight decay still applies).
func.func @zero_gradient(
    %w: tensor<4xf32> {mpt.role = "param"},
    %u: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  %du = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  // expected-warning@+1 {{the gradient of parameter argument #1 is zero: it does not depend on the backward seed (the parameter does not reach the loss; PyTorch leaves its .grad None); its update reads a zero gradient}}
  %gu = mpt.gradient %du : tensor<4xf32>
  %decay = arith.constant dense<0.99> : tensor<4xf32>
  %ud = arith.mulf %u, %decay : tensor<4xf32>
  %nu = arith.subf %ud, %gu : tensor<4xf32>
  return %loss, %nw, %nu : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// An mpt.* attribute no rule reads (a misspelt mpt.range, on an op).
func.func @unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning@+1 {{attribute 'mpt.rnage' is read by no mpt rule}}
  %y = arith.addf %x, %x {mpt.rnage = [0.0, 1.0]} : tensor<4xf32>
  return %y : tensor<4xf32>
}
