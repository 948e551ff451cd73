// RUN: mpt-opt %s --split-input-file --verify-diagnostics --verify-each=0 --mpt-decompose-aggregate-ops
// (--verify-each=0: the pass itself must report, not the pass manager's
// verifier after it.)

// A softmax verifies with compatible but different input and output types;
// its decomposition would build a linalg.generic whose result type is not
// its init's: reported at the softmax instead (found by mpt-fuzz on
// mpt-mixed-precision{dtype=bf16},mpt-lower-to-cpu).
func.func @softmax_dynamic_into_static(%x: tensor<4x?xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.softmax' op input type 'tensor<4x?xf32>' and output type 'tensor<4x8xf32>' differ: its decomposition needs one type}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x?xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
