// RUN: not mpt-opt %s --split-input-file --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s
// RUN: not mpt-opt %s --split-input-file --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// mpt-import-torch --debug-info locates each mpt.gradient marker at
// loc("NAME.grad"(model line that defines parameter NAME)): a diagnostic
// about a gradient names it and points at the model's source, not at a line
// of the step (the --verify-diagnostics tests are in
// training-graph-invalid.mlir and contract-lint.mlir; these locations lie
// outside this file).

// CHECK: model.py:12:0: error: the gradient 'enc.query_global.weight.grad' of parameter argument #0 does not depend on the backward seed
// CHECK: training-graph-gradient-location.mlir:[[# @LINE + 6]]:{{[0-9]+}}: note: its operand comes from this 'arith.constant', which the backward seed does not reach
func.func @located(%w: tensor<4xf32> {mpt.role = "param"}, %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l0 = arith.constant dense<1.0> : tensor<f32>
  %l = arith.mulf %l0, %l0 : tensor<f32>
  %s = mpt.grad_seed %l : tensor<f32>
  %c = arith.constant dense<0.5> : tensor<4xf32>
  %g = mpt.gradient %c : tensor<4xf32> loc("enc.query_global.weight.grad"("model.py":12:0))
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %l, %w2 : tensor<f32>, tensor<4xf32>
}

// -----

// A zero gradient (the parameter does not reach the loss) is a warning, with
// the same name and line.
// ZERO: model.py:13:0: warning: the gradient 'enc.key_global.bias.grad' of parameter argument #0 is zero: it does not depend on the backward seed
func.func @located_zero(%w: tensor<4xf32> {mpt.role = "param"}, %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l0 = arith.constant dense<1.0> : tensor<f32>
  %l = arith.mulf %l0, %l0 : tensor<f32>
  %s = mpt.grad_seed %l : tensor<f32>
  %c = arith.constant dense<0.0> : tensor<4xf32>
  %g = mpt.gradient %c : tensor<4xf32> loc("enc.key_global.bias.grad"("model.py":13:0))
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %l, %w2 : tensor<f32>, tensor<4xf32>
}
