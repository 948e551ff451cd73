// Every bad input of --mpt-insert-loss-scaling: one diagnostic at its
// location, and a failing exit with no output for any of them.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-insert-loss-scaling
// RUN: not mpt-opt %s --split-input-file --mpt-insert-loss-scaling -o %t 2>/dev/null
// RUN: not grep func.func %t

// A step (it has a loss and updates state) without a backward seed.
// expected-error @+1 {{loss scaling needs the backward seed, an 'mpt.grad_seed' or a "loss_grad" argument; the step has none}}
func.func @no_seed(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %nw = arith.subf %w, %loss : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// The contract lint (a warning, before the pass runs) names the parameter.
// expected-error @+2 {{loss scaling needs the gradients, marked with 'mpt.gradient'; the step has none}}
// expected-warning @+1 {{parameter argument #0 has no mpt.gradient marker: loss scaling will not unscale its gradient}}
func.func @no_gradient(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %nw = arith.subf %w, %seed : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// A gradient whose element type is not a float is rejected by the verifier
// of 'mpt.gradient' before any pass runs.
func.func @integer_gradient(%w: tensor<4xi32> {mpt.role = "param"})
    -> (tensor<4xi32> {mpt.updates = 0 : i64}) {
  // expected-error @+1 {{'mpt.gradient' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %g = mpt.gradient %w : tensor<4xi32>
  return %g : tensor<4xi32>
}

// -----

// An integer "loss_grad" seed cannot be scaled. (The step also has no loss
// result: the contract lint warns.)
// expected-error @+2 {{loss scaling needs a backward seed that is a ranked float tensor; the "loss_grad" argument #1 is 'tensor<i32>'}}
// expected-warning @+1 {{the step has a backward seed but no result marked mpt.role = "loss": no op counts as forward}}
func.func @integer_seed(%w: tensor<4xf32> {mpt.role = "param"},
                        %dl: tensor<i32> {mpt.role = "loss_grad"})
    -> (tensor<4xf32> {mpt.updates = 0 : i64}) {
  %e = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%dl : tensor<i32>) outs(%e : tensor<4xf32>) {
  ^bb0(%s: i32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %nw : tensor<4xf32>
}

// -----

// Scaling twice would multiply the seed by scale^2 and unscale once.
func.func @already_scaled(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %scale = arith.constant dense<1024.0> : tensor<f32>
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  // expected-error @+1 {{the step is already loss-scaled ('mpt.scale'); run --mpt-insert-loss-scaling once}}
  %scaled = mpt.scale %seed by %scale : tensor<4xf32>
  %dw = arith.mulf %scaled, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// A step with the dynamic-scaling state (e.g. already scaled and lowered).
// expected-error @+1 {{the step is already loss-scaled (argument #1 has mpt.role = "loss_scale"); run --mpt-insert-loss-scaling once}}
func.func @already_has_scale_state(%w: tensor<4xf32> {mpt.role = "param"},
                                   %s: tensor<f32> {mpt.role = "loss_scale"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{loss scaling needs a step whose body is a single block (express control flow with scf); this one has 2 blocks}}
func.func @two_blocks(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  cf.br ^bb1
^bb1:
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @nested_gradient(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = scf.execute_region -> tensor<4xf32> {
    // expected-error @+1 {{loss scaling needs every 'mpt.gradient' at the top level of the step (one overflow check covers them all); this one is nested in 'scf.execute_region'}}
    %gi = mpt.gradient %dw : tensor<4xf32>
    scf.yield %gi : tensor<4xf32>
  }
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// The late gradient depends on a call with unknown side effects, which
// cannot be moved above the update that already reads the first gradient.
func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>
func.func @unmovable_gradient(%w: tensor<4xf32> {mpt.role = "param"},
                              %b: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  %db = func.call @opaque(%seed) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{cannot move this gradient before the first op that reads a gradient (its computation has side effects); loss scaling needs all gradients before the optimizer update}}
  %gb = mpt.gradient %db : tensor<4xf32>
  %nb = arith.subf %b, %gb : tensor<4xf32>
  return %loss, %nw, %nb : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Contract violations found by the TrainingGraph analysis fail the pass.
func.func @gradient_without_seed(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.updates = 0 : i64}) {
  // expected-error @+1 {{'mpt.gradient' in a step without a backward seed (an 'mpt.grad_seed' or a "loss_grad" argument)}}
  %g = mpt.gradient %w : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %nw : tensor<4xf32>
}
