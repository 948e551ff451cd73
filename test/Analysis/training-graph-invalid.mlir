// RUN: mpt-opt %s --split-input-file --mpt-test-training-graph --verify-diagnostics -o /dev/null
// RUN: not mpt-opt %s --split-input-file --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Every contract violation the TrainingGraph analysis finds is one error at
// its location, and the passes that query it fail.
// REPORT: error: a second 'mpt.grad_seed'

func.func @two_seeds(%l: tensor<f32>) -> (tensor<f32> {mpt.role = "loss"}) {
  // expected-note @+1 {{the first one is here}}
  %s0 = mpt.grad_seed %l : tensor<f32>
  // expected-error @+1 {{a second 'mpt.grad_seed'; a training step has exactly one backward seed}}
  %s1 = mpt.grad_seed %l : tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @seed_and_loss_grad(%l: tensor<f32>, %dl: tensor<f32> {mpt.role = "loss_grad"})
    -> (tensor<f32> {mpt.role = "loss"}) {
  // expected-error @+1 {{the step has both an 'mpt.grad_seed' and a "loss_grad" argument (#1); a training step has one backward seed}}
  %s = mpt.grad_seed %l : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{arguments #0 and #1 are both marked mpt.role = "loss_grad"; a training step has one backward seed}}
func.func @two_loss_grads(%a: tensor<f32> {mpt.role = "loss_grad"}, %b: tensor<f32> {mpt.role = "loss_grad"}) {
  return
}

// -----

// expected-error @+1 {{results #0 and #1 are both marked mpt.role = "loss"; a training step has one loss}}
func.func @two_losses(%a: tensor<f32>) -> (tensor<f32> {mpt.role = "loss"}, tensor<f32> {mpt.role = "loss"}) {
  return %a, %a : tensor<f32>, tensor<f32>
}

// -----

func.func @gradient_without_seed(%w: tensor<4xf32> {mpt.role = "param"}) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.gradient' in a step without a backward seed (an 'mpt.grad_seed' or a "loss_grad" argument)}}
  %g = mpt.gradient %w : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A gradient the seed does not reach is named by the parameter it updates,
// with a note where its operand comes from: here a data argument.
func.func @gradient_not_from_seed(%w: tensor<4xf32> {mpt.role = "param"},
    // expected-note @+1 {{its operand is block argument #1}}
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  %s = mpt.grad_seed %l : tensor<f32>
  // expected-error @+1 {{the gradient of parameter argument #0 does not depend on the backward seed}}
  %g = mpt.gradient %x : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %l, %w2 : tensor<f32>, tensor<4xf32>
}

// -----

// A constant other than zero: not a parameter that misses the loss (that is
// a warning, contract-lint.mlir) but a wrong marker.
func.func @gradient_constant_not_zero(%w: tensor<4xf32> {mpt.role = "param"}, %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  %s = mpt.grad_seed %l : tensor<f32>
  // expected-note @+1 {{its operand comes from this 'arith.constant', which the backward seed does not reach}}
  %c = arith.constant dense<0.5> : tensor<4xf32>
  // expected-error @+1 {{the gradient of parameter argument #0 does not depend on the backward seed}}
  %g = mpt.gradient %c : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %l, %w2 : tensor<f32>, tensor<4xf32>
}

// -----

func.func @gradient_of_gradient(%w: tensor<4xf32> {mpt.role = "param"}, %dl: tensor<4xf32> {mpt.role = "loss_grad"})
    -> (tensor<4xf32> {mpt.updates = 0 : i64}) {
  %g0 = mpt.gradient %dl : tensor<4xf32>
  %d = arith.mulf %g0, %dl : tensor<4xf32>
  // expected-error @+1 {{the gradient of parameter argument #0 depends on an 'mpt.gradient' (another, or its own carried by a loop: mark a gradient accumulated in a loop after the loop); gradients feed only the optimizer update}}
  %g1 = mpt.gradient %d : tensor<4xf32>
  %w2 = arith.subf %w, %g1 : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @seed_of_something_else(%x: tensor<f32> {mpt.role = "data"}) -> (tensor<f32> {mpt.role = "loss"}) {
  %other = arith.mulf %x, %x : tensor<f32>
  // expected-error @+1 {{the seed's operand does not contribute to the loss (result #0)}}
  %s = mpt.grad_seed %other : tensor<f32>
  return %x : tensor<f32>
}

// -----

func.func @loss_depends_on_seed(%x: tensor<f32> {mpt.role = "data"}) -> (tensor<f32> {mpt.role = "loss"}) {
  %l = arith.mulf %x, %x : tensor<f32>
  %s = mpt.grad_seed %l : tensor<f32>
  // expected-error @+1 {{the loss depends on the backward seed}}
  %l2 = arith.addf %l, %s : tensor<f32>
  return %l2 : tensor<f32>
}
