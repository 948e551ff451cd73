// RUN: mpt-opt %s --split-input-file --mpt-range-report -o /dev/null 2>&1 | FileCheck %s
// The sweep (one forward pass over a function of one block without control
// flow) against the dataflow solver: the same report on this file, on the
// range analysis' tests (their loops and branches run the solver either way)
// and on the example steps, before and after loss scaling and autocast.
// RUN: mpt-opt %s --split-input-file --mpt-range-report -o /dev/null 2> %t.sweep
// RUN: mpt-opt %s --split-input-file --mpt-range-report=solver=true -o /dev/null 2> %t.solver
// RUN: diff %t.sweep %t.solver
// RUN: mpt-opt %S/float-range.mlir --split-input-file --mpt-range-report -o /dev/null 2> %t.sweep
// RUN: mpt-opt %S/float-range.mlir --split-input-file --mpt-range-report=solver=true -o /dev/null 2> %t.solver
// RUN: diff %t.sweep %t.solver
// RUN: mpt-opt %mpt_src/examples/cnn/cnn_step.mlir --mpt-insert-loss-scaling --mpt-autocast --mpt-range-report=format=json -o /dev/null 2> %t.sweep
// RUN: mpt-opt %mpt_src/examples/cnn/cnn_step.mlir --mpt-insert-loss-scaling --mpt-autocast --mpt-range-report="format=json solver=true" -o /dev/null 2> %t.solver
// RUN: diff %t.sweep %t.solver
// RUN: mpt-opt %mpt_src/examples/torch/resnet18_sgd.mlir --mpt-range-report -o /dev/null 2> %t.sweep
// RUN: mpt-opt %mpt_src/examples/torch/resnet18_sgd.mlir --mpt-range-report=solver=true -o /dev/null 2> %t.solver
// RUN: diff %t.sweep %t.solver
// RUN: mpt-opt %mpt_src/examples/torch/gpt_block_adamw.mlir --mpt-range-report -o /dev/null 2> %t.sweep
// RUN: mpt-opt %mpt_src/examples/torch/gpt_block_adamw.mlir --mpt-range-report=solver=true -o /dev/null 2> %t.solver
// RUN: diff %t.sweep %t.solver

// A body that reads a value from above (the 1e4 bound comes from the
// capture), computes an integer (not a float value) and yields two results.
// CHECK-LABEL: mpt range report: @capture_two_results
// CHECK-NEXT: argument #0: [-inf, +inf] reach [-1, 1]
// CHECK-NEXT: arith.constant at {{[^ ]+}}: [10000, 10000]
// CHECK-NEXT: tensor.empty at {{[^ ]+}}: empty
// CHECK-NEXT: linalg.generic at {{[^ ]+}} (result #0): [-inf, +inf] reach [-10000, 10000] from arith.constant
// CHECK-NEXT: linalg.generic at {{[^ ]+}} (result #1): [-inf, +inf] reach [-1, 1]{{$}}
func.func @capture_two_results(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %big = arith.constant 1.0e4 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                       affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %neg = arith.cmpf olt, %in, %big : f32
    %s = arith.mulf %in, %big : f32
    %t = arith.select %neg, %in, %in : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A tensor.pad whose body only yields a value from above is swept: its pad
// value is known when the sweep reaches it.
// CHECK-LABEL: mpt range report: @pad_value_from_above
// CHECK-NEXT: argument #0: [-inf, +inf] reach [-1, 1]
// CHECK-NEXT: arith.constant at {{[^ ]+}}: [-3, -3]
// CHECK-NEXT: tensor.pad at {{[^ ]+}}: [-inf, +inf] reach [-3, 1] from arith.constant
func.func @pad_value_from_above(%x: tensor<4xf32>) -> tensor<6xf32> {
  %c = arith.constant -3.0 : f32
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// One that computes its pad value in the body runs the solver (which reads
// that value only on its second visit of the pad and joins it with the
// first); the report is the same.
// CHECK-LABEL: mpt range report: @pad_value_in_body
// CHECK-NEXT: argument #0: [-inf, +inf] reach [-1, 1]
// CHECK-NEXT: tensor.pad at {{[^ ]+}}: [-inf, +inf] reach [-3, 1] from arith.constant
// CHECK-NEXT: arith.constant at {{[^ ]+}}: [-3, -3]
func.func @pad_value_in_body(%x: tensor<4xf32>) -> tensor<6xf32> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    %c = arith.constant -3.0 : f32
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}
