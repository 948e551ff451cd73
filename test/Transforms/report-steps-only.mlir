// The reports list the training steps of a module (functions with mpt.role /
// mpt.updates or training markers), not the helpers beside them, unless
// all-functions=1; a module without any step has all its functions reported
// (training-graph-report.mlir's @inference, Autocast/types.mlir). The
// precision report also lists a helper that autocast changes
// (precision-report-helpers.mlir); this one it leaves alone.
// RUN: mpt-opt %s --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TG
// RUN: mpt-opt %s --mpt-training-graph-report=all-functions=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TG-ALL
// RUN: mpt-opt %s --mpt-precision-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREC
// RUN: mpt-opt %s --mpt-precision-report=all-functions=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREC-ALL
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mpt-loss-scaling-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=LS
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mpt-loss-scaling-report=all-functions=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LS-ALL

// TG-NOT: @helper
// TG: mpt training-graph report: @step
// TG-NOT: @helper
// TG-ALL: mpt training-graph report: @helper
// TG-ALL: no training markers
// TG-ALL: mpt training-graph report: @step
// PREC-NOT: @helper
// PREC: mpt precision report: @step
// PREC-NOT: @helper
// PREC-ALL: mpt precision report: @helper
// PREC-ALL: mpt precision report: @step
// LS-NOT: @helper
// LS: @step
// LS-NOT: @helper
// LS-ALL: @helper
// LS-ALL: @step

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.mulf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @step(%w: tensor<4xf32> {mpt.role = "param"}, %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %h = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %p = arith.mulf %w, %h : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %loss = linalg.reduce ins(%p : tensor<4xf32>) outs(%zero : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %g0 = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<4xf32>) dimensions = [0]
  %g1 = arith.mulf %g0, %h : tensor<4xf32>
  %g = mpt.gradient %g1 : tensor<4xf32>
  %lr = arith.constant dense<0.1> : tensor<4xf32>
  %d = arith.mulf %g, %lr : tensor<4xf32>
  %w1 = arith.subf %w, %d : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}
