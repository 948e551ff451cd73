// After loss scaling, every gradient still updates its own parameter: the
// overflow flag of mpt.unscale_and_check guards every update, but it is not
// gradient data, so the training graph does not follow it when it matches a
// gradient to the parameter it updates. (It used to: after
// --mpt-insert-loss-scaling no gradient matched a parameter of a shared type,
// and --mpt-mixed-precision warned "has no mpt.gradient marker" for every
// such parameter.)
// RUN: mpt-opt %s --mpt-mixed-precision 2>&1 | FileCheck %s --check-prefix=QUIET --implicit-check-not=warning:
// RUN: mpt-opt %s --mpt-insert-loss-scaling | mpt-opt --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s

// QUIET-LABEL: func.func @two_params

// CHECK-LABEL: mpt training-graph report: @two_params
// CHECK:      params: 2
// CHECK-NEXT:   arg #0 tensor<4xf32>  gradient at
// CHECK-NEXT:   arg #1 tensor<4xf32>  gradient at
// CHECK:      gradients: 2
// CHECK-NEXT:   tensor<4xf32> at {{.*}} -> updates arg #0
// CHECK-NEXT:   tensor<4xf32> at {{.*}} -> updates arg #1

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
func.func @two_params(
    %w: tensor<4xf32> {mpt.role = "param"},
    %v: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<4xf32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %xv = arith.mulf %x, %v : tensor<4xf32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %xv : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%xv, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %dwx = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %dv = arith.mulf %dwx, %x : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %gv = mpt.gradient %dv : tensor<4xf32>
  %sw = arith.mulf %lr, %gw : tensor<4xf32>
  %nw = arith.subf %w, %sw : tensor<4xf32>
  %sv = arith.mulf %lr, %gv : tensor<4xf32>
  %nv = arith.subf %v, %sv : tensor<4xf32>
  return %loss, %nw, %nv : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
