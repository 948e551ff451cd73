// Control flow: a value carried by scf.for (init, iter_arg, yield, result),
// scf.if (both yields, result) or scf.while is painted as one clear node, so
// it has one precision on every side; func.call operands and results keep
// their types. The ops inside regions are painted one by one,
// and casts of loop-invariant values sit next to their producer, outside
// the loop. A gradient accumulator stays f32.
// RUN: mpt-opt %s --split-input-file --mpt-autocast=policy-level=conservative | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-autocast=policy-level=conservative -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --split-input-file --mpt-autocast=policy-level=conservative -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: mpt-opt %s --split-input-file --mpt-precision-report=policy-level=conservative 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @accumulate_step
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mpt.role = "param"}, %[[X:.*]]: tensor<4x4xf32> {mpt.role = "data"}, %[[DL:.*]]: tensor<f32> {mpt.role = "loss_grad"}
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[G0:.*]] = linalg.fill {{.*}} -> tensor<4x8xf32>
// CHECK: %[[RES:.*]]:2 = scf.for {{.*}} iter_args(%[[LACC:.*]] = %{{.*}}, %[[GACC:.*]] = %[[G0]]) -> (tensor<f32>, tensor<4x8xf32>)
// CHECK-NOT: arith.truncf
// CHECK:   tensor.extract_slice %[[X16]]{{.*}} : tensor<4x4xf16> to tensor<2x4xf16>
// CHECK:   linalg.matmul ins(%{{.*}}, %[[W16]] : tensor<2x4xf16>, tensor<4x8xf16>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK:   %[[L:.*]] = linalg.generic {{.*}} outs(%[[LACC]] : tensor<f32>)
// The seed's broadcast is in the loss region (from the seed to the first
// backward contraction): f32, cast where the matmul reads it.
// CHECK:   %[[DY:.*]] = linalg.broadcast ins(%[[DL]] : tensor<f32>)
// CHECK:   %[[DY16:.*]] = arith.truncf %[[DY]] : tensor<2x8xf32> to tensor<2x8xf16>
// The gradient accumulator stays the f32 accumulator of the matmul.
// CHECK:   %[[DW:.*]] = linalg.matmul ins(%{{.*}}, %[[DY16]] : tensor<4x2xf16>, tensor<2x8xf16>) outs(%[[GACC]] : tensor<4x8xf32>)
// CHECK:   scf.yield %[[L]], %[[DW]] : tensor<f32>, tensor<4x8xf32>
// CHECK: mpt.gradient %[[RES]]#1 : tensor<4x8xf32>
// The loss sum starts from a fill in the loss region (f32) and is tainted by
// it; the gradient accumulator is fed by the matmul's f32 accumulator and
// read by nothing low.
// REPORT-LABEL: mpt precision report: @accumulate_step
// REPORT: linalg.fill [forward] f32: clear op in the loss region (after the last forward contraction, before the loss)
// REPORT: scf.for [backward] unchanged: control flow: its carried values are painted (listed below)
// REPORT-NEXT: carried value #0: f32: carried value downstream of f32 op linalg.fill at {{.*}} before another infer/deny op: stays f32
// REPORT-NEXT: carried value #1: f32: carried value not between allow ops: stays f32
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

// func.call operands and results stay f32, so the scf.if result between the
// matmul and the call is not between allow ops: it stays f32, and so does
// the negf in its branch.
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

// scf.while: its values are read through RegionBranchOpInterface like
// scf.for's (RegionFlow.h). The `before` argument (init, yield) and the
// `after` argument with the result (condition operand) are two carried
// values; both lie between the matmul's accumulator and its input, so both
// become f16: the loop carries half the bytes and casts nothing per
// iteration but the matmul's f32 result (before, each iteration truncated
// its f32 argument for the matmul). The weight is cast once, outside.
// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[GO:.*]]: i1)
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[R:.*]] = scf.while (%[[A:.*]] = %[[X16]]) : (tensor<4x4xf16>) -> tensor<4x4xf16> {
// CHECK:   scf.condition(%[[GO]]) %[[A]] : tensor<4x4xf16>
// CHECK: } do {
// CHECK: ^bb0(%[[B:.*]]: tensor<4x4xf16>):
// CHECK:   %[[M:.*]] = linalg.matmul ins(%[[B]], %[[W16]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:   %[[M16:.*]] = arith.truncf %[[M]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:   scf.yield %[[M16]] : tensor<4x4xf16>
// CHECK: %[[R32:.*]] = arith.extf %[[R]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: return %[[R32]] : tensor<4x4xf32>
// REPORT-LABEL: mpt precision report: @while_loop
// REPORT: scf.while [forward] unchanged: control flow: its carried values are painted (listed below)
// REPORT-NEXT: carried value #0 (region 0 argument): f16: carried value between allow ops: painted f16
// REPORT-NEXT: carried value #0: f16: carried value between allow ops: painted f16
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

// -----

#id = affine_map<(i, j) -> (i, j)>

// A value carried by scf.for is painted like a clear op: here the hidden
// state goes from a tanh (between matmuls) through the iter_arg back into
// the matmul, so init, iter_arg, yield and result all become f16; the loop
// carries half the bytes and casts nothing per iteration but the matmul's
// f32 result.
// CHECK-LABEL: func.func @recurrent
// CHECK-SAME: (%[[H0:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %{{.*}}: index)
// CHECK-DAG: %[[H016:.*]] = arith.truncf %[[H0]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: %[[H:.*]] = scf.for {{.*}} iter_args(%[[HI:.*]] = %[[H016]]) -> (tensor<4x8xf16>) {
// CHECK:   %[[MM:.*]] = linalg.matmul ins(%[[HI]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:   %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK:   %[[T:.*]] = linalg.generic {{.*}} ins(%[[MM16]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK:   scf.yield %[[T]] : tensor<4x8xf16>
// CHECK: linalg.matmul ins(%[[H]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16>)
// REPORT-LABEL: mpt precision report: @recurrent
// REPORT: scf.for [forward] unchanged: control flow: its carried values are painted (listed below)
// REPORT-NEXT: carried value #0: f16: carried value between allow ops: painted f16
func.func @recurrent(%h0: tensor<4x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = scf.for %i = %c0 to %n step %c1 iter_args(%hi = %h0) -> (tensor<4x8xf32>) {
    %mm = linalg.matmul ins(%hi, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    } -> tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  }
  %out = linalg.matmul ins(%h, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// An scf.if result between two matmuls: both yields and the result are f16
// (the negf in the then-branch follows it).
// CHECK-LABEL: func.func @branch_between_matmuls
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<4x8xf16>) {
// CHECK:   %[[N:.*]] = arith.negf %[[MM16]] : tensor<4x8xf16>
// CHECK:   scf.yield %[[N]] : tensor<4x8xf16>
// CHECK: } else {
// CHECK:   scf.yield %[[MM16]] : tensor<4x8xf16>
// CHECK: linalg.matmul ins(%[[IF]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
// REPORT-LABEL: mpt precision report: @branch_between_matmuls
// REPORT: scf.if [forward] unchanged: control flow: its carried values are painted (listed below)
// REPORT-NEXT: carried value #0: f16: carried value between allow ops: painted f16
// REPORT-NEXT: arith.negf [forward] f16: clear (default clear list) between allow ops: painted f16
func.func @branch_between_matmuls(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %flag: i1) -> tensor<4x8xf32> {
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
  %mm2 = linalg.matmul ins(%r, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm2 : tensor<4x8xf32>
}
