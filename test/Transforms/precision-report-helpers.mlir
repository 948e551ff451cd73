// A helper the step calls is rewritten by --mpt-autocast as inference code
// (its matmul gets f16 inputs), so the precision report lists it beside the
// step, though it reports only the steps of a module otherwise
// (report-steps-only.mlir: a helper autocast leaves alone is not listed).
// RUN: mpt-opt %s --mpt-precision-report -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %s --mpt-autocast | FileCheck %s --check-prefix=IR

// CHECK-LABEL: mpt precision report: @forward_helper
// CHECK: no training markers: plain autocast, every op counts as forward
// CHECK: ops: f16 1,
// CHECK: linalg.matmul [forward] f16: allow
// CHECK-NOT: @unchanged_helper
// CHECK-LABEL: mpt precision report: @step
// CHECK: func.call [forward] unchanged
// CHECK-NOT: @unchanged_helper

// IR-LABEL: func.func private @forward_helper
// IR: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<3x2xf16>)
// IR-LABEL: func.func private @unchanged_helper
// IR-NOT: f16
// IR-LABEL: func.func @step

func.func private @forward_helper(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %p = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %p : tensor<4x2xf32>
}

func.func private @unchanged_helper(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %y = arith.mulf %x, %x : tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

func.func @step(%w: tensor<3x2xf32> {mpt.role = "param"}, %x: tensor<4x3xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<3x2xf32> {mpt.updates = 0 : i64}) {
  %p = func.call @forward_helper(%x, %w) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %q = func.call @unchanged_helper(%p) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %loss = linalg.reduce ins(%q : tensor<4x2xf32>) outs(%zero : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e = tensor.empty() : tensor<3x2xf32>
  %g0 = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<3x2xf32>) dimensions = [0, 1]
  %g = mpt.gradient %g0 : tensor<3x2xf32>
  %lr = arith.constant dense<0.1> : tensor<3x2xf32>
  %d = arith.mulf %g, %lr : tensor<3x2xf32>
  %w1 = arith.subf %w, %d : tensor<3x2xf32>
  return %loss, %w1 : tensor<f32>, tensor<3x2xf32>
}
