// Running --mpt-insert-loss-scaling on its own output is an error, not
// double scaling (static and dynamic).
// RUN: mpt-opt %s --verify-diagnostics --mpt-insert-loss-scaling --mpt-insert-loss-scaling
// RUN: mpt-opt %s --verify-diagnostics --mpt-insert-loss-scaling=mode=static --mpt-insert-loss-scaling=mode=static
// RUN: not mpt-opt %s --mpt-insert-loss-scaling --mpt-insert-loss-scaling -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: the step is already loss-scaled ('mpt.scale'); run --mpt-insert-loss-scaling once

func.func @step(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  // The scale op inserted by the first run carries the seed's location.
  // expected-error @+1 {{the step is already loss-scaled ('mpt.scale'); run --mpt-insert-loss-scaling once}}
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}
