// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-recompute-in-backward -o /dev/null
// RUN: not mpt-opt %s --mpt-recompute-in-backward -o /dev/null 2>&1 | FileCheck %s

// A step whose contract is broken is reported (one error at its location)
// and the pass fails: nothing is recomputed from regions it cannot trust.
// CHECK: error: a second 'mpt.grad_seed'
func.func @two_seeds(%l: tensor<f32>) -> (tensor<f32> {mpt.role = "loss"}) {
  // expected-note @+1 {{the first one is here}}
  %s0 = mpt.grad_seed %l : tensor<f32>
  // expected-error @+1 {{a second 'mpt.grad_seed'; a training step has exactly one backward seed}}
  %s1 = mpt.grad_seed %l : tensor<f32>
  return %l : tensor<f32>
}
