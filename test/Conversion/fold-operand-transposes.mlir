// --mpt-fold-operand-transposes: a transpose of the two innermost dimensions
// of a bf16 contraction input folds into the contraction's indexing map (the
// AMX kernel packs from either layout); anything else stays. That results
// are unchanged is checked by running a step both ways
// (test/Execution/amx-matmul.mlir runs the kernel on transposed inputs).
// RUN: mpt-opt %s --split-input-file --mpt-fold-operand-transposes | FileCheck %s

// x @ w^T: the weight is read as it is stored.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xbf16>, %[[W:.*]]: tensor<48x32xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]]
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<64x32xbf16>, tensor<48x32xbf16>)
func.func @linear(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %e = tensor.empty() : tensor<32x48xbf16>
  %wt = linalg.transpose ins(%w : tensor<48x32xbf16>) outs(%e : tensor<32x48xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %wt : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

// A batch: K^T of attention, (b, k, n) read as (b, n, k).
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @attention_scores(
// CHECK-SAME: %[[Q:.*]]: tensor<4x16x8xbf16>, %[[K:.*]]: tensor<4x16x8xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BT]], #{{.*}}]
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<4x16x8xbf16>, tensor<4x16x8xbf16>)
func.func @attention_scores(%q: tensor<4x16x8xbf16>, %k: tensor<4x16x8xbf16>, %c: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %e = tensor.empty() : tensor<4x8x16xbf16>
  %kt = linalg.transpose ins(%k : tensor<4x16x8xbf16>) outs(%e : tensor<4x8x16xbf16>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%q, %kt : tensor<4x16x8xbf16>, tensor<4x8x16xbf16>) outs(%c : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %r : tensor<4x16x16xf32>
}

// -----

// A transpose that another op reads stays for that op; the contraction
// still reads the untransposed tensor.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %[[G:.*]]: tensor<64x32xbf16>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[G]]
// CHECK: linalg.generic {{.*}} ins(%[[G]], %{{.*}} : tensor<64x32xbf16>, tensor<64x48xbf16>)
// CHECK: return %{{.*}}, %[[T]]
func.func @shared(%g: tensor<64x32xbf16>, %x: tensor<64x48xbf16>, %c: tensor<32x48xf32>) -> (tensor<32x48xf32>, tensor<32x64xbf16>) {
  %e = tensor.empty() : tensor<32x64xbf16>
  %gt = linalg.transpose ins(%g : tensor<64x32xbf16>) outs(%e : tensor<32x64xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%gt, %x : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %r, %gt : tensor<32x48xf32>, tensor<32x64xbf16>
}

// -----

// Left alone: f32 inputs (the AVX-512 kernel reads rows, a transposed input
// would be copied with strided loads), and a transpose that moves an outer
// dimension.
// CHECK-LABEL: func.func @f32_input(
// CHECK: linalg.transpose
// CHECK: linalg.matmul
func.func @f32_input(%x: tensor<64x32xf32>, %w: tensor<48x32xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %e = tensor.empty() : tensor<32x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x32xf32>) outs(%e : tensor<32x48xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %wt : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
// CHECK-LABEL: func.func @outer_permutation(
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul
func.func @outer_permutation(%q: tensor<16x4x8xbf16>, %k: tensor<4x8x16xbf16>, %c: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %e = tensor.empty() : tensor<4x16x8xbf16>
  %qt = linalg.transpose ins(%q : tensor<16x4x8xbf16>) outs(%e : tensor<4x16x8xbf16>) permutation = [1, 0, 2]
  %r = linalg.batch_matmul ins(%qt, %k : tensor<4x16x8xbf16>, tensor<4x8x16xbf16>) outs(%c : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %r : tensor<4x16x16xf32>
}
