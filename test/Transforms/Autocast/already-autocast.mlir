// A training step already autocast to one low type is not painted again in
// the other: autocast would keep the existing f16 ops and exit 0 with a mix.
// (Functions that are not training steps, like a test driver, may hold
// anything.)
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-autocast="dtype=bf16"
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-precision-report="dtype=bf16"
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast | mpt-opt --mpt-autocast -o /dev/null
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast | not mpt-opt --mpt-autocast=dtype=bf16 -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'arith.truncf' produces 'f16' but autocast runs with dtype 'bf16': the step was already autocast to 'f16' (autocast the FP32 step, or use that dtype)

func.func @f16_step(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  // expected-error @+1 {{'arith.truncf' produces 'f16' but autocast runs with dtype 'bf16': the step was already autocast to 'f16' (autocast the FP32 step, or use that dtype)}}
  %w16 = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
  %l16 = arith.mulf %w16, %w16 : tensor<4xf16>
  %loss = arith.extf %l16 : tensor<4xf16> to tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %w : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// A driver is not a step: left alone.
func.func @driver(%a: tensor<4xf32>) -> tensor<4xf32> {
  %h = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %e = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  return %e : tensor<4xf32>
}
