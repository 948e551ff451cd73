// --mpt-fold-extracts-into-operands: a tensor.extract in a linalg.generic's
// body at the op's own loop indices (or 0) becomes an input operand with the
// matching indexing map; an extract at any other index stays. The maps
// below are the whole claim: an operand read through the map is the element
// the extract read. (The transposing cast that the first case becomes is
// run against the scalar loops in test/Execution/vectorize-cpu-transpose.mlir.)
// RUN: mpt-opt %s --split-input-file --mpt-fold-extracts-into-operands | FileCheck %s
// What the pass writes lowers for the CPU, vectorized:
// RUN: mpt-opt %s --split-input-file --mpt-fold-extracts-into-operands \
// RUN:   --mpt-lower-to-cpu="vectorize=1 deallocate=0" > /dev/null

// torch-mlir's flip of a 1x1 filter with its channels swapped (the input
// gradient of a 1x1 convolution), fused with autocast's cast: a transpose.
// CHECK-DAG: #[[TR:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, 0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @flip_1x1(
// CHECK-SAME: %[[W:.*]]: tensor<64x32x1x1xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TR]], #[[ID]]]
// CHECK-SAME: ins(%[[W]] : tensor<64x32x1x1xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]]
// CHECK-NOT: tensor.extract
func.func @flip_1x1(%w: tensor<64x32x1x1xf32>) -> tensor<32x64x1x1xbf16> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<32x64x1x1xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<32x64x1x1xbf16>) {
  ^bb0(%out: bf16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %x = tensor.extract %w[%j, %i, %c0, %c0] : tensor<64x32x1x1xf32>
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x64x1x1xbf16>
  return %r : tensor<32x64x1x1xbf16>
}

// -----

// Two extracts beside an input: each becomes an input after the existing
// ones, in the order of the body.
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[T2:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @two_extracts(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x8xf32>, %[[C:.*]]: tensor<16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[T2]], #[[ROW]], #[[ID2]]]
// CHECK-SAME: ins(%[[A]], %[[B]], %[[C]] : tensor<8x16xf32>, tensor<16x8xf32>, tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[S]], %[[Z]]
func.func @two_extracts(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %y = tensor.extract %b[%j, %i] : tensor<16x8xf32>
    %s = arith.addf %x, %y : f32
    %z = tensor.extract %c[%j] : tensor<16xf32>
    %p = arith.mulf %s, %z : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A flip (2 - k), a loop read twice (a diagonal) and a data-dependent index
// with a nonzero constant are not indexing maps this pass writes: they
// stay. The indices themselves are read at the loop index: an operand.
// CHECK-LABEL: func.func @not_maps(
// CHECK: ins(%{{.*}} : tensor<3xindex>)
// CHECK-COUNT-3: tensor.extract %{{.*}} : tensor<3x3xf32>
// CHECK-NOT: tensor.extract
func.func @not_maps(%w: tensor<3x3xf32>, %ids: tensor<3xindex>) -> tensor<3x3xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<3x3xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c2, %j : index
    %flip = tensor.extract %w[%i, %k] : tensor<3x3xf32>
    %diag = tensor.extract %w[%i, %i] : tensor<3x3xf32>
    %id = tensor.extract %ids[%j] : tensor<3xindex>
    %gather = tensor.extract %w[%id, %c1] : tensor<3x3xf32>
    %s = arith.addf %flip, %diag : f32
    %t = arith.addf %s, %gather : f32
    linalg.yield %t : f32
  } -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

// A tensor larger than the loop it is read at (17 elements read at a loop of
// 16), or of a dynamic size, is a valid extract but would be an operand of
// the wrong shape: it stays (the generic failed to verify, found by
// mpt-fuzz). The 16-element read beside them folds.
// CHECK-LABEL: func.func @sizes_differ(
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<17xf32>
// CHECK: tensor.extract %{{.*}} : tensor<?xf32>
func.func @sizes_differ(%x: tensor<8x16xf32>, %long: tensor<17xf32>, %same: tensor<16xf32>,
                        %dyn: tensor<?xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %a = tensor.extract %long[%j] : tensor<17xf32>
    %b = tensor.extract %same[%j] : tensor<16xf32>
    %c = tensor.extract %dyn[%j] : tensor<?xf32>
    %s = arith.addf %in, %a : f32
    %t = arith.mulf %s, %b : f32
    %u = arith.addf %t, %c : f32
    linalg.yield %u : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
