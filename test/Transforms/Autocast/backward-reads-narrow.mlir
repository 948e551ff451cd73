// Policy level promote: a backward op that reads an f32 forward value which
// an elementwise generic converted exactly from a narrower value (here a
// mask: uitofp of i1) reads the narrow value and converts it in its own
// body. No numerical change (the conversion is exact); the backward keeps
// 1 byte an element instead of 4 (in the report the kept f32 mask, 128 B, becomes
// 32 B of i1; the 48 B are the f16 copy of x the weight gradient reads).
// An inexact conversion (i32 -> f32 rounds above 2^24) is left alone.
// RUN: mpt-opt %s --split-input-file --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

#id2 = affine_map<(i, j) -> (i, j)>
#sc2 = affine_map<(i, j) -> ()>
#mx = affine_map<(i, j, k) -> (k, i)>
#mdy = affine_map<(i, j, k) -> (k, j)>
#mdw = affine_map<(i, j, k) -> (i, j)>

// CHECK-LABEL: func.func @masked_step
// CHECK: %[[MASKI1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x4xi1>)
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[MASKI1]] : tensor<8x4xi1>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: mpt.grad_seed
// The backward reads the i1 mask and converts it in its body.
// CHECK: linalg.generic {{.*}} ins(%[[MASKI1]], %{{.*}} : tensor<8x4xi1>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.uitofp %[[M]] : i1 to f32
// REPORT-LABEL: mpt precision report: @masked_step
// REPORT: memory estimate before:
// REPORT: activations              224 B  (f32: 224)
// REPORT: memory estimate after:
// REPORT: activations               80 B  (f16: 48, i1: 32)
func.func @masked_step(
    %w: tensor<3x4xf32> {mpt.role = "param"},
    %x: tensor<8x3xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<3x4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x3xf32>, tensor<3x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %eb = tensor.empty() : tensor<8x4xi1>
  %pos = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x4xf32>) outs(%eb : tensor<8x4xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<8x4xi1>
  %mask = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%pos : tensor<8x4xi1>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: i1, %o: f32):
    %f = arith.uitofp %a : i1 to f32
    linalg.yield %f : f32
  } -> tensor<8x4xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %mask : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.mulf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<8x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %seed : tensor<8x4xf32>, tensor<f32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%m: f32, %g: f32, %o: f32):
    %r = arith.mulf %m, %g : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %ew = tensor.empty() : tensor<3x4xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<3x4xf32>) -> tensor<3x4xf32>
  %dw = linalg.generic {indexing_maps = [#mx, #mdy, #mdw], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<8x3xf32>, tensor<8x4xf32>) outs(%zw : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  %g = mpt.gradient %dw : tensor<3x4xf32>
  %new = linalg.generic {indexing_maps = [#id2, #id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) outs(%ew : tensor<3x4xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<3x4xf32>
  return %loss, %new : tensor<f32>, tensor<3x4xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>
#sc2 = affine_map<(i, j) -> ()>
#mx = affine_map<(i, j, k) -> (k, i)>
#mdy = affine_map<(i, j, k) -> (k, j)>
#mdw = affine_map<(i, j, k) -> (i, j)>

// CHECK-LABEL: func.func @rounded_count_step
// CHECK: %[[COUNT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x4xi32>)
// CHECK: %[[FLOAT:.*]] = linalg.generic {{.*}} ins(%[[COUNT]] : tensor<8x4xi32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: mpt.grad_seed
// CHECK: linalg.generic {{.*}} ins(%[[FLOAT]], %{{.*}} : tensor<8x4xf32>, tensor<f32>)
func.func @rounded_count_step(
    %w: tensor<3x4xf32> {mpt.role = "param"},
    %x: tensor<8x3xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<3x4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x3xf32>, tensor<3x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %eb = tensor.empty() : tensor<8x4xi32>
  %pos = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x4xf32>) outs(%eb : tensor<8x4xi32>) {
  ^bb0(%a: f32, %o: i32):
    %c = arith.fptosi %a : f32 to i32
    linalg.yield %c : i32
  } -> tensor<8x4xi32>
  %mask = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%pos : tensor<8x4xi32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: i32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8x4xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %mask : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.mulf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<8x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %seed : tensor<8x4xf32>, tensor<f32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%m: f32, %g: f32, %o: f32):
    %r = arith.mulf %m, %g : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %ew = tensor.empty() : tensor<3x4xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<3x4xf32>) -> tensor<3x4xf32>
  %dw = linalg.generic {indexing_maps = [#mx, #mdy, #mdw], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<8x3xf32>, tensor<8x4xf32>) outs(%zw : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  %g = mpt.gradient %dw : tensor<3x4xf32>
  %new = linalg.generic {indexing_maps = [#id2, #id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) outs(%ew : tensor<3x4xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<3x4xf32>
  return %loss, %new : tensor<f32>, tensor<3x4xf32>
}

