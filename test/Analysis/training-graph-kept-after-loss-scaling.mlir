// --mpt-insert-loss-scaling adds the ops it inserts to the TrainingGraph
// analysis with their regions and keeps it, so that the next pass that reads
// the graph (here --mpt-test-training-graph, in the pipeline
// --mpt-recompute-in-backward) does not build it again. The kept graph gives
// every op the region a new analysis of the rewritten step gives it: the
// remarks of both are the same, on this step and on the example steps, in
// dynamic and static mode.
//
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mpt-test-training-graph --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// CHECK-LABEL: Execution time report
// CHECK:      InsertLossScaling
// CHECK-NEXT:   (A) mpt::TrainingGraph
// CHECK-NEXT: 'func.func' Pipeline
// CHECK-NEXT:   TestTrainingGraphPass
// CHECK-NOT:    (A) mpt::TrainingGraph
// CHECK:      Output
//
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.kept
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mlir-print-debuginfo | mpt-opt --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.new
// RUN: diff %t.kept %t.new
// RUN: FileCheck %s --check-prefix=REGIONS < %t.kept
// RUN: mpt-opt %s --mpt-insert-loss-scaling=mode=static --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.kept
// RUN: mpt-opt %s --mpt-insert-loss-scaling=mode=static --mlir-print-debuginfo | mpt-opt --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.new
// RUN: diff %t.kept %t.new
//
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast --mpt-insert-loss-scaling --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.kept
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast --mpt-insert-loss-scaling --mlir-print-debuginfo | mpt-opt --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.new
// RUN: diff %t.kept %t.new
// RUN: mpt-opt %mpt_src/examples/torch/gpt_block_adamw.mlir --mpt-autocast=dtype=bf16 --mpt-insert-loss-scaling=mode=static --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.kept
// RUN: mpt-opt %mpt_src/examples/torch/gpt_block_adamw.mlir --mpt-autocast=dtype=bf16 --mpt-insert-loss-scaling=mode=static --mlir-print-debuginfo | mpt-opt --mpt-test-training-graph -o /dev/null 2>&1 | grep remark: > %t.new
// RUN: diff %t.kept %t.new

// The inserted ops, each after the op whose location it takes: the scaled
// seed (after mpt.grad_seed) is backward; the unscaling (after the marker),
// the guard (after the update it guards) and the scale update (at the
// return) are the update.
// REGIONS:      :[[#SEED:]]:11: remark: backward
// REGIONS-NEXT: :[[#SEED]]:11: remark: backward
// REGIONS:      :[[#GRAD:]]:11: remark: backward
// REGIONS-NEXT: :[[#GRAD]]:11: remark: update
// REGIONS-NEXT: :[[#GRAD+1]]:10: remark: update
// REGIONS-NEXT: :[[#GRAD+1]]:10: remark: update
// REGIONS-NEXT: :[[#GRAD+2]]:3: remark: update
// REGIONS-NOT:  remark

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %g = linalg.generic {indexing_maps = [#sc, #id, #id], iterator_types = ["parallel"]}
      ins(%seed, %x : tensor<f32>, tensor<4xf32>) outs(%w : tensor<4xf32>) {
  ^bb0(%s: f32, %b: f32, %o: f32):
    %p = arith.mulf %s, %b : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %grad = mpt.gradient %g : tensor<4xf32>
  %new = arith.subf %w, %grad : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}
