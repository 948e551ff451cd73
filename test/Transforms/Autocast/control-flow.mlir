// Control flow: values carried by scf.for / scf.if and passed across
// func.call keep their types (f32); the ops inside are painted one by one
// and casts of loop-invariant values are placed next to their producer,
// outside the loop.
// RUN: mpt-opt %s --split-input-file --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-autocast -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --split-input-file --mpt-autocast -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// CHECK-LABEL: func.func @accumulate_step
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mpt.role = "param"}, %[[X:.*]]: tensor<4x4xf32> {mpt.role = "data"}, %[[DL:.*]]: tensor<f32> {mpt.role = "loss_grad"}
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[DL16:.*]] = arith.truncf %[[DL]] : tensor<f32> to tensor<f16>
// CHECK: %[[G0:.*]] = linalg.fill {{.*}} -> tensor<4x8xf32>
// CHECK: %[[RES:.*]]:2 = scf.for {{.*}} iter_args(%[[LACC:.*]] = %{{.*}}, %[[GACC:.*]] = %[[G0]]) -> (tensor<f32>, tensor<4x8xf32>)
// CHECK-NOT: arith.truncf
// CHECK:   tensor.extract_slice %[[X16]]{{.*}} : tensor<4x4xf16> to tensor<2x4xf16>
// CHECK:   linalg.matmul ins(%{{.*}}, %[[W16]] : tensor<2x4xf16>, tensor<4x8xf16>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK:   %[[L:.*]] = linalg.generic {{.*}} outs(%[[LACC]] : tensor<f32>)
// CHECK:   linalg.broadcast ins(%[[DL16]] : tensor<f16>)
// The gradient accumulator stays the f32 accumulator of the matmul.
// CHECK:   %[[DW:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xf16>, tensor<2x8xf16>) outs(%[[GACC]] : tensor<4x8xf32>)
// CHECK:   scf.yield %[[L]], %[[DW]] : tensor<f32>, tensor<4x8xf32>
// CHECK: mpt.gradient %[[RES]]#1 : tensor<4x8xf32>
#id = affine_map<(i, j) -> (i, j)>
#scal = affine_map<(i, j) -> ()>

// Gradient accumulation over 2 micro-batches of 2 rows: the loop carries
// the loss sum and the f32 gradient accumulator; the seed comes in as the
// "loss_grad" argument.
func.func @accumulate_step(
    %w: tensor<4x8xf32> {mpt.role = "param"},
    %x: tensor<4x4xf32> {mpt.role = "data"},
    %dloss: tensor<f32> {mpt.role = "loss_grad"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %e0 = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e48 = tensor.empty() : tensor<4x8xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e28 = tensor.empty() : tensor<2x8xf32>
  %z28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e42 = tensor.empty() : tensor<4x2xf32>
  %loss, %gsum = scf.for %i = %c0 to %c4 step %c2 iter_args(%lacc = %loss0, %gacc = %g0) -> (tensor<f32>, tensor<4x8xf32>) {
    %xb = tensor.extract_slice %x[%i, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
    %y = linalg.matmul ins(%xb, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z28 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %l = linalg.generic {indexing_maps = [#id, #scal], iterator_types = ["reduction", "reduction"]}
        ins(%y : tensor<2x8xf32>) outs(%lacc : tensor<f32>) {
    ^bb0(%a: f32, %acc: f32):
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    %dy = linalg.broadcast ins(%dloss : tensor<f32>) outs(%e28 : tensor<2x8xf32>) dimensions = [0, 1]
    %xt = linalg.transpose ins(%xb : tensor<2x4xf32>) outs(%e42 : tensor<4x2xf32>) permutation = [1, 0]
    %dw = linalg.matmul ins(%xt, %dy : tensor<4x2xf32>, tensor<2x8xf32>) outs(%gacc : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %l, %dw : tensor<f32>, tensor<4x8xf32>
  }
  %g = mpt.gradient %gsum : tensor<4x8xf32>
  %w2 = linalg.generic {indexing_maps = [#id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %loss, %w2 : tensor<f32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// scf.if results and func.call operands and results stay f32: the infer op
// between the matmul and the call is not between allow ops.
// CHECK-LABEL: func.func @branch_and_call
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<4x8xf32>) {
// CHECK:   %[[T:.*]] = arith.negf %[[MM]] : tensor<4x8xf32>
// CHECK:   scf.yield %[[T]] : tensor<4x8xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[MM]] : tensor<4x8xf32>
// CHECK: %[[C:.*]] = call @callee(%[[IF]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: arith.truncf %[[C]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @branch_and_call(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %flag: i1) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = scf.if %flag -> (tensor<4x8xf32>) {
    %n = arith.negf %mm : tensor<4x8xf32>
    scf.yield %n : tensor<4x8xf32>
  } else {
    scf.yield %mm : tensor<4x8xf32>
  }
  %c = func.call @callee(%r) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm2 = linalg.matmul ins(%c, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm2 : tensor<4x8xf32>
}
func.func @callee(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = math.tanh %a : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// scf.while: the matmul in the loop body gets f16 inputs (the weight cast
// once, outside the loop); the carried value stays f32.
// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %{{.*}}: i1)
// CHECK: %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: scf.while (%[[A:.*]] = %[[X]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: do {
// CHECK: ^bb0(%[[B:.*]]: tensor<4x4xf32>):
// CHECK:   %[[B16:.*]] = arith.truncf %[[B]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:   %[[M:.*]] = linalg.matmul ins(%[[B16]], %[[W16]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:   scf.yield %[[M]] : tensor<4x4xf32>
func.func @while_loop(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %go: i1) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.while (%a = %x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
    scf.condition(%go) %a : tensor<4x4xf32>
  } do {
  ^bb0(%b: tensor<4x4xf32>):
    %m = linalg.matmul ins(%b, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
