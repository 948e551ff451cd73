// RUN: mpt-opt %s --split-input-file --verify-diagnostics --verify-each=0 --mpt-strip-training-markers
// (--verify-each=0: the pass itself must report, not the pass manager's
// verifier after it.)

// The seed becomes a constant of ones; a TOSA zero point must be 0, so a
// seed read as one is reported at the op that reads it, not left as IR that
// does not verify (found by mpt-fuzz).
func.func @seed_as_zero_point(%a: tensor<1x4x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<1x4x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %seed = mpt.grad_seed %zero : tensor<1xf32>
  // expected-error @below {{'tosa.matmul' op a zero point must be zero for non-int8 integer types}}
  %m = tosa.matmul %a, %b, %seed, %seed : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  return %m : tensor<1x4x8xf32>
}

// -----

// Also through a gradient marker, which forwards the seed.
func.func @seed_through_gradient(%a: tensor<1x4x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<1x4x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %seed = mpt.grad_seed %zero : tensor<1xf32>
  %g = mpt.gradient %seed : tensor<1xf32>
  // expected-error @below {{'tosa.matmul' op a zero point must be zero for non-int8 integer types}}
  %m = tosa.matmul %a, %b, %g, %g : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  return %m : tensor<1x4x8xf32>
}

// -----

// Also through a cast of the seed (autocast's truncf), which folds to a
// constant once the seed is one: left alone, the next folding pass would
// make the zero point a visible 1 and the step stop verifying there
// (found by mpt-fuzz on mpt-mixed-precision{dtype=bf16},mpt-lower-to-cpu).
func.func @seed_through_cast(%a: tensor<1x4x8xbf16>, %b: tensor<1x8x8xbf16>) -> tensor<1x4x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %seed = mpt.grad_seed %zero : tensor<1xf32>
  %low = arith.truncf %seed : tensor<1xf32> to tensor<1xbf16>
  // expected-error @below {{'tosa.matmul' op a zero point must be zero for non-int8 integer types}}
  %m = tosa.matmul %a, %b, %low, %low : (tensor<1x4x8xbf16>, tensor<1x8x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x8xf32>
  return %m : tensor<1x4x8xf32>
}
