// RUN: mpt-opt %s --split-input-file --verify-diagnostics --verify-each=0 --mpt-fuse-elementwise
// (--verify-each=0: the pass itself must report, not the pass manager's
// verifier after it.)

// Linalg's verifier skips zero-sized dimensions, so this op verifies
// although its operands disagree on the loop's size (8 and 0). Fusion drops
// the unused first input, after which the loop takes its size from the
// second and the op no longer verifies: reported at the op instead (found by
// mpt-fuzz on mpt-mixed-precision{dtype=bf16},mpt-lower-to-cpu).
#id = affine_map<(i) -> (i)>
func.func @zero_and_eight(%a: tensor<8xf32>, %b: tensor<0xf32>) -> tensor<8xf32> {
  %init = tensor.empty() : tensor<8xf32>
  // expected-error @below {{'linalg.generic' op operand #1 has size 0 along loop 0, operand #0 has size 8}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<0xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %y, %y : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
