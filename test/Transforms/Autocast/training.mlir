// Training-graph rules: the update region (an Adam optimizer here) stays
// f32, gradients reach the optimizer in f32, parameters stay f32 in the
// signature and are cast once where the step reads them, the loss and its
// reduction stay f32.
// RUN: mpt-opt %s --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// Running autocast twice gives the same IR as once.
// RUN: mpt-opt %s --mpt-autocast -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-autocast -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// CHECK-LABEL: func.func @adam_step
// The signature is unchanged.
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mpt.role = "param"}, %[[M:.*]]: tensor<4x8xf32> {mpt.role = "optimizer_state"}, %[[V:.*]]: tensor<4x8xf32> {mpt.role = "optimizer_state"}, %[[X:.*]]: tensor<2x4xf32> {mpt.role = "data"}, %{{.*}}: tensor<f32> {mpt.role = "hyperparameter"})
// CHECK-SAME: -> (tensor<f32> {mpt.role = "loss"}, tensor<4x8xf32> {mpt.updates = 0 : i64}, tensor<4x8xf32> {mpt.updates = 1 : i64}, tensor<4x8xf32> {mpt.updates = 2 : i64})
// One cast of the parameter, at function entry.
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: linalg.matmul ins(%[[X16]], %[[W16]] : tensor<2x4xf16>, tensor<4x8xf16>) outs(%{{.*}} : tensor<2x8xf32>)
// The loss reduction accumulates in f32.
// CHECK: %[[LOSS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<2x8xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[SEED:.*]] = mpt.grad_seed %[[LOSS]] : tensor<f32>
// The transposed input reuses the input's cast: no second truncf of %x.
// CHECK: linalg.transpose ins(%[[X16]] : tensor<2x4xf16>)
// CHECK: %[[DW:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xf16>, tensor<2x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[G:.*]] = mpt.gradient %[[DW]] : tensor<4x8xf32>
// The optimizer reads f32 state and gradients and writes f32.
// CHECK: %[[M2:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NOT: arith.extf
// CHECK: %[[V2:.*]] = linalg.generic {{.*}} ins(%[[V]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[W2:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[M2]], %[[V2]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: return %[[LOSS]], %[[W2]], %[[M2]], %[[V2]] : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>

// REPORT: mpt precision report: @adam_step ({{.*}}training.mlir:{{[0-9]+}}:1), dtype f16
// REPORT-NEXT: ops: f16 3, f32 10, unchanged 10
// REPORT-NEXT: casts inserted: 3 on tensors
// REPORT: memory estimate before:
// REPORT: activations 32 B (f32: 32)
// REPORT: memory estimate after:
// REPORT: activations 16 B (f16: 16)
// REPORT: training.mlir:[[@LINE+33]]:8 linalg.matmul [forward] f16: allow (default allow list): f16 inputs, f32 accumulator and result
// REPORT: training.mlir:[[@LINE+35]]:11 linalg.generic [forward] f32: reduction (structure: reduction iterator): accumulates in f32
// REPORT: mpt.grad_seed [backward] f32: training marker
// The seed's broadcast (dL/dy) is in the loss region: f32, cast to f16 where
// the matmul reads it (PyTorch's fp32 list keeps a loss's backward f32).
// REPORT: training.mlir:[[@LINE+39]]:9 linalg.broadcast [backward] f32: clear op in the loss region (from the backward seed to the first backward contraction)
// REPORT: mpt.gradient {{.*}} f32: training marker: gradients and the seed stay f32
// REPORT: linalg.generic [update] f32: infer op in the update region: the optimizer runs in f32
// REPORT: linalg.generic [update] f32: infer op in the update region: the optimizer runs in f32
// REPORT: linalg.generic [update] f32: infer op in the update region: the optimizer runs in f32

#id = affine_map<(i, j) -> (i, j)>
#scal = affine_map<(i, j) -> ()>

// One Adam step of a linear layer: loss = sum(x @ w).
func.func @adam_step(
    %w: tensor<4x8xf32> {mpt.role = "param"},
    %m: tensor<4x8xf32> {mpt.role = "optimizer_state"},
    %v: tensor<4x8xf32> {mpt.role = "optimizer_state"},
    %x: tensor<2x4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4x8xf32> {mpt.updates = 0 : i64},
        tensor<4x8xf32> {mpt.updates = 1 : i64},
        tensor<4x8xf32> {mpt.updates = 2 : i64}) {
  %zero = arith.constant 0.0 : f32
  %b1 = arith.constant 0.9 : f32
  %b1c = arith.constant 0.1 : f32
  %b2 = arith.constant 0.999 : f32
  %b2c = arith.constant 0.001 : f32
  %eps = arith.constant 1.0e-8 : f32
  %e28 = tensor.empty() : tensor<2x8xf32>
  %z28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #scal], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<2x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  // dL/dy = seed broadcast; dL/dw = x^T @ dy
  %dy = linalg.broadcast ins(%seed : tensor<f32>) outs(%e28 : tensor<2x8xf32>) dimensions = [0, 1]
  %e42 = tensor.empty() : tensor<4x2xf32>
  %xt = linalg.transpose ins(%x : tensor<2x4xf32>) outs(%e42 : tensor<4x2xf32>) permutation = [1, 0]
  %e48 = tensor.empty() : tensor<4x8xf32>
  %z48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<4x2xf32>, tensor<2x8xf32>) outs(%z48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = mpt.gradient %dw : tensor<4x8xf32>
  // Adam: m' = b1 m + (1 - b1) g; v' = b2 v + (1 - b2) g^2;
  //       w' = w - lr m' / (sqrt(v') + eps)   (bias correction omitted)
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s1 = arith.mulf %a, %b1 : f32
    %s2 = arith.mulf %b, %b1c : f32
    %r = arith.addf %s1, %s2 : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %v2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s1 = arith.mulf %a, %b2 : f32
    %gg = arith.mulf %b, %b : f32
    %s2 = arith.mulf %gg, %b2c : f32
    %r = arith.addf %s1, %s2 : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %w2 = linalg.generic {indexing_maps = [#id, #id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %m2, %v2, %lr : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %mm: f32, %vv: f32, %r: f32, %o: f32):
    %sq = math.sqrt %vv : f32
    %den = arith.addf %sq, %eps : f32
    %q = arith.divf %mm, %den : f32
    %st = arith.mulf %q, %r : f32
    %n = arith.subf %p, %st : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %loss, %w2, %m2, %v2 : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
