// Dynamic loss scaling appends the scale state to a step's arguments and
// results. Calls written against the old signature are an error at the call
// (before the step is touched), not a module that fails to verify; calls that
// already pass the state, and static scaling, are fine.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-insert-loss-scaling
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-mixed-precision
// RUN: mpt-opt %mpt_src/test/Pipelines/lower-to-cpu.mlir --mpt-insert-loss-scaling=mode=static | mpt-opt --verify-each -o /dev/null
// RUN: not mpt-opt %mpt_src/test/Pipelines/lower-to-cpu.mlir --mpt-mixed-precision 2>&1 | FileCheck %s --check-prefix=PIPELINE --implicit-check-not=error:
// PIPELINE: lower-to-cpu.mlir:83:{{[0-9]+}}: error: calls @step, which dynamic loss scaling gives two more arguments and results (the loss scale and its growth tracker); calls are not rewritten: pass and return the scale state here, or use mode=static

// expected-note @+1 {{the step}}
func.func @step(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

func.func @driver(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{calls @step, which dynamic loss scaling gives two more arguments and results (the loss scale and its growth tracker); calls are not rewritten: pass and return the scale state here, or use mode=static}}
  %l, %nw = func.call @step(%w) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %nw : tensor<4xf32>
}
