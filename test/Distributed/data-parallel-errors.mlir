// Every bad input of --mpt-data-parallel: one diagnostic at its location
// and a failing exit with no output.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-data-parallel
// RUN: not mpt-opt %s --split-input-file --mpt-data-parallel -o %t 2>/dev/null
// RUN: not grep func.func %t
// RUN: not mpt-opt %s --mpt-data-parallel="bucket-bytes=2" 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: mpt-data-parallel: bucket-bytes must be at least 4 (one f32), got 2
// RUN: not mpt-opt %s --mpt-data-parallel="reduce-dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: for the --reduce-dtype option: Cannot find option named 'f8'!

// Running the pass twice.
// expected-error @+1 {{the step is already data-parallel (mpt.data_parallel = "f32"); run --mpt-data-parallel once}}
func.func @twice(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) attributes {mpt.data_parallel = "f32"} {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %g = mpt.gradient %seed : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @hand_written_all_reduce(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %g = mpt.gradient %seed : tensor<4xf32>
  // expected-error @+1 {{the step is already data-parallel ('mpt.all_reduce'); run --mpt-data-parallel once}}
  %r = mpt.all_reduce mean %g : tensor<4xf32>
  %nw = arith.subf %w, %r : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+2 {{data parallelism needs the gradients, marked with 'mpt.gradient'; the step has none}}
// expected-warning @+1 {{parameter argument #0 has no mpt.gradient marker: loss scaling will not unscale its gradient}}
func.func @no_gradient(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %nw = arith.subf %w, %seed : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// Loss scaling already lowered: its found-inf flag is gone.
// expected-error @+1 {{the step's loss scaling is already lowered: its found-inf flag can no longer be all-reduced; run --mpt-data-parallel after --mpt-insert-loss-scaling and before --mpt-lower-loss-scaling}}
func.func @lowered_scaling(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) attributes {mpt.loss_scaling = "static"} {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %g = mpt.gradient %seed : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @nested_marker(%w: tensor<4xf32> {mpt.role = "param"}, %p: i1)
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %r = scf.if %p -> tensor<4xf32> {
    // expected-error @+1 {{data parallelism needs every 'mpt.gradient' at the top level of the step (its all-reduce follows it); this one is nested in 'scf.if'}}
    %g = mpt.gradient %seed : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  } else {
    scf.yield %seed : tensor<4xf32>
  }
  %nw = arith.subf %w, %r : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @f64_gradient(%w: tensor<4xf64> {mpt.role = "param"})
    -> (tensor<4xf64> {mpt.role = "loss"}, tensor<4xf64> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf64>
  %seed = mpt.grad_seed %loss : tensor<4xf64>
  // expected-error @+1 {{data parallelism reduces gradients in f32; this one is 'tensor<4xf64>'}}
  %g = mpt.gradient %seed : tensor<4xf64>
  %nw = arith.subf %w, %g : tensor<4xf64>
  return %loss, %nw : tensor<4xf64>, tensor<4xf64>
}
