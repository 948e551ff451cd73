// RUN: mpt-opt %s --split-input-file --mpt-fuse-elementwise | FileCheck %s

// A chain of elementwise ops whose intermediates have one reader each
// becomes one op: x*x, * -0.5, exp (a GELU backward's factor).
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %c = arith.constant -0.5 : f32
  %e = tensor.empty() : tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    linalg.yield %p : f32
  } -> tensor<16xf32>
  %sc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%sq : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    linalg.yield %p : f32
  } -> tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%sc : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.exp %a : f32
    linalg.yield %p : f32
  } -> tensor<16xf32>
  return %ex : tensor<16xf32>
}

// -----

// A value two ops read is not fused (it would be computed twice and kept
// anyway): h stays, both readers read it.
#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[H:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
func.func @two_readers(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.exp %a : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]}
      ins(%h : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.addf %a, %acc : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%h, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<f32>, tensor<8xf32>
}

// -----

// One fill of zeros and one empty tensor shared by a forward and a backward
// contraction: each contraction gets its own, right before it, so that
// bufferization does not allocate the backward's buffer in the forward.
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill {{.*}} outs(%[[E1]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[M1:.*]] = linalg.matmul {{.*}} outs(%[[F1]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[TR:.*]] = linalg.transpose ins(%[[M1]] : tensor<4x4xf32>) outs(%[[T]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[F2:.*]] = linalg.fill {{.*}} outs(%[[E2]] : tensor<4x4xf32>)
// CHECK-NEXT: linalg.matmul ins(%[[TR]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
func.func @shared_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = linalg.transpose ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
  %g = linalg.matmul ins(%t, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// -----

// A fill read inside a loop keeps its place (a clone in the body would
// allocate in every iteration).
// CHECK-LABEL: func.func @fill_in_loop
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @fill_in_loop(%a: tensor<4x4xf32>, %n: index) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4x4xf32> {
    %m = linalg.matmul ins(%acc, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// SGD with momentum: the new momentum is returned and read by the parameter
// update, its only linalg reader. The update takes the momentum's
// computation in and yields the new momentum too (computed once, one pass
// over memory); the return reads that result, and the momentum op goes.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @returned_and_read_once
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: %[[M:.*]] = arith.addf
// CHECK: %[[P:.*]] = arith.subf
// CHECK: linalg.yield %[[M]], %[[P]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @returned_and_read_once(%p: tensor<8xf32>, %m: tensor<8xf32>, %g: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %mu = arith.constant 0.9 : f32
  %lr = arith.constant 0.1 : f32
  %e = tensor.empty() : tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %mu : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %p2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %m2 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %b, %lr : f32
    %t = arith.subf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %p2, %m2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A reader that is not a linalg op but comes before the op that would take
// the producer in (the fused op, in that op's place, would not dominate
// it): nothing is fused.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @read_before_the_reader
// CHECK: %[[H:.*]] = linalg.generic
// CHECK: tensor.extract %[[H]]
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<8xf32>)
func.func @read_before_the_reader(%x: tensor<8xf32>, %i: index) -> (f32, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.exp %a : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %v = tensor.extract %h[%i] : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%h : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %v, %y : f32, tensor<8xf32>
}
