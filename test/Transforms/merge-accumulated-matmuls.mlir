// RUN: mpt-opt %s --split-input-file --mpt-merge-accumulated-matmuls | FileCheck %s

// An RNN's recurrent weight gradient: a sum over time steps of products of
// K = 4 (the batch) into zero fills, plus a term that is not a matmul (the
// gradient of another use). The three products become one matmul of the
// operands concatenated along K (4 + 4 + 4), the other term is added to it.
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @rnn_weight_gradient
// CHECK-SAME: (%[[A0:.*]]: tensor<32x4xf32>, %[[B0:.*]]: tensor<4x16xf32>, %[[A1:.*]]: tensor<32x4xf32>, %[[B1:.*]]: tensor<4x16xf32>, %[[A2:.*]]: tensor<32x4xf32>, %[[B2:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<32x16xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[A:.*]] = tensor.concat dim(1) %[[A0]], %[[A1]], %[[A2]] : {{.*}} -> tensor<32x12xf32>
// CHECK: %[[B:.*]] = tensor.concat dim(0) %[[B0]], %[[B1]], %[[B2]] : {{.*}} -> tensor<12x16xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<32x12xf32>, tensor<12x16xf32>) outs(%[[FILL]] : tensor<32x16xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[G]] :
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @rnn_weight_gradient(%a0: tensor<32x4xf32>, %b0: tensor<4x16xf32>, %a1: tensor<32x4xf32>, %b1: tensor<4x16xf32>,
                               %a2: tensor<32x4xf32>, %b2: tensor<4x16xf32>, %g: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %p0 = linalg.matmul ins(%a0, %b0 : tensor<32x4xf32>, tensor<4x16xf32>) outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  %p1 = linalg.matmul ins(%a1, %b1 : tensor<32x4xf32>, tensor<4x16xf32>) outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p0, %p1 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<32x16xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %s0 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<32x16xf32>
  %p2 = linalg.matmul ins(%a2, %b2 : tensor<32x4xf32>, tensor<4x16xf32>) outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s1, %p2 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %y, %x : f32
    linalg.yield %r : f32
  } -> tensor<32x16xf32>
  return %s2 : tensor<32x16xf32>
}

// -----

// Autocast's form: bf16 products of f32 sums, each rounded to bf16 by a
// truncf generic, added in bf16 (widened, added in f32, rounded). The
// merged matmul's f32 sums are rounded once.
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @autocast_bf16
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<32x8xbf16>
// CHECK: tensor.concat dim(0) {{.*}} -> tensor<8x16xbf16>
// CHECK: %[[P:.*]] = linalg.matmul ins({{.*}} : tensor<32x8xbf16>, tensor<8x16xbf16>) outs({{.*}} : tensor<32x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<32x16xf32>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @autocast_bf16(%a0: tensor<32x4xbf16>, %b0: tensor<4x16xbf16>, %a1: tensor<32x4xbf16>, %b1: tensor<4x16xbf16>) -> tensor<32x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %eb = tensor.empty() : tensor<32x16xbf16>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %p0 = linalg.matmul ins(%a0, %b0 : tensor<32x4xbf16>, tensor<4x16xbf16>) outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  %t0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p0 : tensor<32x16xf32>) outs(%eb : tensor<32x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x16xbf16>
  %p1 = linalg.matmul ins(%a1, %b1 : tensor<32x4xbf16>, tensor<4x16xbf16>) outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  %t1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p1 : tensor<32x16xf32>) outs(%eb : tensor<32x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x16xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t0, %t1 : tensor<32x16xbf16>, tensor<32x16xbf16>) outs(%eb : tensor<32x16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %r = arith.addf %xf, %yf : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<32x16xbf16>
  return %s : tensor<32x16xbf16>
}

// -----

// Sums that stay: products whose K is as large as the product (K (M + N) >
// M N: the kernel amortises C already), a product that something else reads
// too, a product into an init that is not a zero fill, and an add that
// reads its init (an accumulation, not a sum of two).
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @stays
// CHECK-NOT: tensor.concat
// CHECK-COUNT-6: linalg.matmul
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @stays(%a: tensor<8x64xf32>, %b: tensor<64x8xf32>, %c: tensor<8x2xf32>, %d: tensor<2x8xf32>, %i: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %big0 = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %big1 = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%big0, %big1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %shared = linalg.matmul ins(%c, %d : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %init = linalg.matmul ins(%c, %d : tensor<8x2xf32>, tensor<2x8xf32>) outs(%i : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shared, %init : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %q0 = linalg.matmul ins(%c, %d : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %q1 = linalg.matmul ins(%c, %d : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q0, %q1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%i : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    %ro = arith.addf %r, %o : f32
    linalg.yield %ro : f32
  } -> tensor<8x8xf32>
  return %s0, %s1, %shared, %s2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// The operands of merged products stay live until the merged matmul runs,
// so a group takes products while their operands total at most two
// products' elements: 8x8 products of K = 2 have 32 operand elements each,
// so four (128 = 2 x 64) make a group and the fifth stays a matmul of its
// own, added to the group's result.
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @operand_budget
// CHECK: %[[Q:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x2xf32>, tensor<2x8xf32>)
// CHECK: %[[A:.*]] = tensor.concat dim(1) {{.*}} -> tensor<8x8xf32>
// CHECK: %[[B:.*]] = tensor.concat dim(0) {{.*}} -> tensor<8x8xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %[[B]] :
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[Q]] :
// CHECK-NOT: linalg.matmul
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @operand_budget(%a: tensor<8x2xf32>, %b: tensor<2x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p0 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p1 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p2 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p3 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p4 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p0, %p1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2, %p3 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s0, %s1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s2, %p4 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %s3 : tensor<8x8xf32>
}
