// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-training-graph-report="format=json output=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mpt-opt %s --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: mpt-opt %s --mpt-training-graph-report | FileCheck %s --check-prefix=IR

// The report on the bundled MLP step: regions, the loss, the seed, each
// parameter with its gradient, and the memory estimate by element type.
// Activations kept for backward: x (8x16), y (8x4), h and relu(h) (8x32
// each), exp(logits) (8x4) and its row sums (8): 4 * (128+32+256+256+32+8)
// = 2848 bytes.
// TEXT-LABEL: mpt training-graph report: @mlp_step (
// TEXT-SAME: mlp_step.mlir:15:1)
// TEXT-NEXT:   ops: forward 24 backward 26 update 4 unused 0
// TEXT-NEXT:   loss: result #0 tensor<f32>
// TEXT-NEXT:   backward seed: mpt.grad_seed at {{.*}}mlp_step.mlir:115:11
// TEXT-NEXT:   params: 4
// TEXT-NEXT:     arg #0 tensor<16x32xf32>  gradient at {{.*}}mlp_step.mlir:167:10
// TEXT-NEXT:     arg #1 tensor<32xf32>  gradient at {{.*}}mlp_step.mlir:168:10
// TEXT-NEXT:     arg #2 tensor<32x4xf32>  gradient at {{.*}}mlp_step.mlir:169:10
// TEXT-NEXT:     arg #3 tensor<4xf32>  gradient at {{.*}}mlp_step.mlir:170:10
// TEXT-NEXT:   gradients: 4
// TEXT-NEXT:     tensor<16x32xf32> at {{.*}}:167:10 -> updates arg #0
// TEXT-NEXT:     tensor<32xf32> at {{.*}}:168:10 -> updates arg #1
// TEXT-NEXT:     tensor<32x4xf32> at {{.*}}:169:10 -> updates arg #2
// TEXT-NEXT:     tensor<4xf32> at {{.*}}:170:10 -> updates arg #3
// TEXT-NEXT:   memory estimate:
// TEXT-NEXT:     params                  2704 B  (f32: 2704)
// TEXT-NEXT:     gradients               2704 B  (f32: 2704)
// TEXT-NEXT:     optimizer_state            0 B
// TEXT-NEXT:     activations             2848 B  (f32: 2848)
// TEXT-NEXT:     total                   8256 B

// JSON:      "functions": [
// JSON:          "function": "mlp_step",
// JSON:          "gradients": [
// JSON:              "param_arg": 0,
// JSON:              "type": "tensor<16x32xf32>"
// JSON:          "loss_result": 0,
// JSON:          "memory": {
// JSON:            "activations": {
// JSON-NEXT:         "bytes_by_type": {
// JSON-NEXT:           "f32": 2848
// JSON:          "ops": {
// JSON-NEXT:       "backward": 26,
// JSON-NEXT:       "forward": 24,
// JSON-NEXT:       "unused": 0,
// JSON-NEXT:       "update": 4
// JSON:          "training_step": true

// A function without markers is reported as plain forward code; a
// declaration is skipped. The IR itself passes through unchanged.
// PLAIN-LABEL: mpt training-graph report: @inference
// PLAIN-NEXT:   no training markers: every op counts as forward
// PLAIN-NEXT:   ops: forward 1 backward 0 update 0 unused 0
// PLAIN-NEXT:   params: 0
// PLAIN-NEXT:   gradients: 0
// PLAIN-NOT: @external
// IR-LABEL: func.func @inference
// IR-NEXT: arith.mulf
func.func @inference(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = arith.mulf %x, %x : tensor<4xf16>
  return %y : tensor<4xf16>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
