// --mpt-conv-to-im2col: a static NCHW convolution becomes im2col with the
// batch folded into the columns (filled tap by tap), one linalg.matmul of
// the filter [F, C*KH*KW] by the columns [C*KH*KW, N*OH*OW], and a
// transpose back to NCHW. Numerics: test/Execution/amx-conv.mlir and
// avx512-conv.mlir run these shapes against the convolution's loops.
// RUN: mpt-opt %s --split-input-file --mpt-conv-to-im2col | FileCheck %s
// With parallel=1, many small taps are filled by an scf.forall (the first
// case: 9 taps of 96 elements); large taps stay an scf.for (the last case).
// RUN: mpt-opt %s --split-input-file --mpt-conv-to-im2col=parallel=1 | FileCheck %s --check-prefix=PAR

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x9x9xbf16>, %[[W:.*]]: tensor<8x3x3x3xbf16>)
// The zero fill of the convolution's init is gone; the matmul's init is a
// fill of the same value.
// CHECK-NOT: linalg.fill {{.*}} tensor<2x8x4x4xf32>
// CHECK: %[[COL:.*]] = scf.for %[[I:.*]] = %c0 to %c3 step %c1 iter_args(%[[C0:.*]] = %{{.*}}) -> (tensor<3x3x3x2x4x4xbf16>)
// CHECK: scf.for %[[J:.*]] = %c0 to %c3{{.*}} step %c1 iter_args(%[[C1:.*]] = %[[C0]])
// CHECK: %[[TAP:.*]] = tensor.extract_slice %[[X]][0, 0, %[[I]], %[[J]]] [2, 3, 4, 4] [1, 1, 2, 2]
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[C1]][0, %[[I]], %[[J]], 0, 0, 0] [3, 1, 1, 2, 4, 4] [1, 1, 1, 1, 1, 1] : tensor<3x3x3x2x4x4xbf16> to tensor<3x2x4x4xbf16>
// CHECK: %[[MOVED:.*]] = linalg.transpose ins(%[[TAP]] : tensor<2x3x4x4xbf16>) outs(%[[DEST]] : tensor<3x2x4x4xbf16>) permutation = [1, 0, 2, 3]
// CHECK: tensor.insert_slice %[[MOVED]] into %[[C1]][0, %[[I]], %[[J]], 0, 0, 0]
// CHECK: %[[COL2:.*]] = tensor.collapse_shape %[[COL]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<3x3x3x2x4x4xbf16> into tensor<27x32xbf16>
// CHECK: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<8x3x3x3xbf16> into tensor<8x27xbf16>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[W2]], %[[COL2]] : tensor<8x27xbf16>, tensor<27x32xbf16>) outs(%[[INIT]] : tensor<8x32xf32>)
// CHECK: %[[MM4:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1, 2, 3]] output_shape [8, 2, 4, 4]
// CHECK: %[[OUT:.*]] = linalg.transpose ins(%[[MM4]] : tensor<8x2x4x4xf32>) outs(%{{.*}} : tensor<2x8x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK: return %[[OUT]]
// PAR-LABEL: func.func @forward
// PAR-SAME: (%[[X:.*]]: tensor<2x3x9x9xbf16>
// PAR: %[[COL:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (3, 3) shared_outs(%[[C:.*]] = %{{.*}}) -> (tensor<3x3x3x2x4x4xbf16>)
// PAR: %[[TAP:.*]] = tensor.extract_slice %[[X]][0, 0, %[[I]], %[[J]]] [2, 3, 4, 4] [1, 1, 2, 2]
// PAR: %[[DEST:.*]] = tensor.extract_slice %[[C]][0, %[[I]], %[[J]], 0, 0, 0] [3, 1, 1, 2, 4, 4]
// PAR: %[[MOVED:.*]] = linalg.transpose ins(%[[TAP]] : tensor<2x3x4x4xbf16>) outs(%[[DEST]] : tensor<3x2x4x4xbf16>) permutation = [1, 0, 2, 3]
// PAR: scf.forall.in_parallel
// PAR-NEXT: tensor.parallel_insert_slice %[[MOVED]] into %[[C]][0, %[[I]], %[[J]], 0, 0, 0]
// PAR: tensor.collapse_shape %[[COL]]
func.func @forward(%x: tensor<2x3x9x9xbf16>, %w: tensor<8x3x3x3xbf16>) -> tensor<2x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x9x9xbf16>, tensor<8x3x3x3xbf16>) outs(%z : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %r : tensor<2x8x4x4xf32>
}

// -----

// An init that is not a fill is transposed into the matmul's layout; the
// dilation scales the tap's offset.
// CHECK-LABEL: func.func @accumulate_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x9x10xbf16>, %{{.*}}: tensor<17x5x2x3xbf16>, %[[ACC:.*]]: tensor<4x17x7x4xf32>)
// CHECK: scf.for %[[I:.*]] = %c0 to %c2
// CHECK: scf.for %[[J:.*]] = %c0 to %c3
// CHECK: %[[ROW:.*]] = arith.muli %[[I]], %c2
// CHECK: tensor.extract_slice %[[X]][0, 0, %[[ROW]], %[[J]]] [4, 5, 7, 4] [1, 1, 1, 2]
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[ACC]] : tensor<4x17x7x4xf32>) outs(%{{.*}} : tensor<17x4x7x4xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[INIT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<17x4x7x4xf32> into tensor<17x112xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<17x30xbf16>, tensor<30x112xbf16>) outs(%[[INIT]] : tensor<17x112xf32>)
func.func @accumulate_dilated(%x: tensor<4x5x9x10xbf16>, %w: tensor<17x5x2x3xbf16>,
                              %acc: tensor<4x17x7x4xf32>) -> tensor<4x17x7x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<4x5x9x10xbf16>, tensor<17x5x2x3xbf16>) outs(%acc : tensor<4x17x7x4xf32>) -> tensor<4x17x7x4xf32>
  return %r : tensor<4x17x7x4xf32>
}

// -----

// A weight gradient as the importer writes it: a convolution of the input
// with batch and channels swapped, truncated by autocast, transposed back to
// [F, C, KH, KW]. The product, moved to [F, C*KH*KW], is already in that
// layout: the truncation runs on it and the transpose back is folded away.
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
// CHECK-LABEL: func.func @weight_gradient
// Fewer output positions (3x3) than taps (4x4): col's transpose is filled per
// position by plain copies of 4x4 windows, and the product is computed
// transposed ([positions, F]), then moved to [F, C*KH*KW] by a 2-d
// transpose, where the truncation runs; no transpose of the [C, F] result.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[WIN:.*]] = tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}] [3, 2, 4, 4] [1, 1, 1, 1] : tensor<3x2x6x6xbf16> to tensor<3x2x4x4xbf16>
// CHECK: linalg.copy ins(%[[WIN]] : tensor<3x2x4x4xbf16>)
// CHECK: %[[GT:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x32xbf16>) outs(%{{.*}} : tensor<32x8xbf16>) permutation = [1, 0]
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %[[GT]] : tensor<27x32xbf16>, tensor<32x8xbf16>) outs(%{{.*}} : tensor<27x8xf32>)
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[MM]] : tensor<27x8xf32>) outs(%{{.*}} : tensor<8x27xf32>) permutation = [1, 0]
// CHECK: %[[MM4:.*]] = tensor.expand_shape %[[BACK]] {{\[\[}}0], [1, 2, 3]] output_shape [8, 3, 3, 3]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[MM4]] : tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<8x3x3x3xbf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[G]] : tensor<8x3x3x3xbf16>
func.func @weight_gradient(%xt: tensor<3x2x6x6xbf16>, %gt: tensor<8x2x4x4xbf16>) -> tensor<8x3x3x3xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xt, %gt : tensor<3x2x6x6xbf16>, tensor<8x2x4x4xbf16>) outs(%z : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %eb = tensor.empty() : tensor<3x8x3x3xbf16>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<3x8x3x3xf32>) outs(%eb : tensor<3x8x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<3x8x3x3xbf16>
  %et = tensor.empty() : tensor<8x3x3x3xbf16>
  %back = linalg.transpose ins(%b : tensor<3x8x3x3xbf16>) outs(%et : tensor<8x3x3x3xbf16>) permutation = [1, 0, 2, 3]
  return %back : tensor<8x3x3x3xbf16>
}

// -----

// f32 convolutions are left to the loops without avx512, and NHWC ones go
// to upstream's rewrite (a batch of matmuls sharing the filter).
// CHECK-LABEL: func.func @not_folded
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: return
func.func @not_folded(%x: tensor<1x3x6x6xf32>, %w: tensor<4x3x3x3xf32>, %a: tensor<1x4x4x4xf32>,
                      %y: tensor<1x6x6x3xbf16>, %v: tensor<3x3x3x4xbf16>, %b: tensor<1x4x4x4xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) outs(%a : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<1x6x6x3xbf16>, tensor<3x3x3x4xbf16>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r, %s : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// An input gradient's filter as torch-mlir writes it (flipped in space,
// channels swapped, read through tensor.extract, truncated): the filter is
// read unflipped by a transposing generic, the taps are gathered from the
// far end (2 - i, 2 - j), and the gather is erased.
// CHECK-LABEL: func.func @input_gradient
// CHECK-SAME: (%[[GO:.*]]: tensor<2x4x9x9xbf16>, %[[W:.*]]: tensor<4x6x3x3xf32>)
// CHECK-NOT: tensor.extract %
// CHECK: scf.for %[[I:.*]] = %c0 to %c3
// CHECK: scf.for %[[J:.*]] = %c0 to %c3
// CHECK: %[[ROW:.*]] = arith.subi %c2{{.*}}, %[[I]]
// CHECK: %[[COL:.*]] = arith.subi %c2{{.*}}, %[[J]]
// CHECK: tensor.extract_slice %[[GO]][0, 0, %[[ROW]], %[[COL]]] [2, 4, 7, 7] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[SWAP:.*]], #{{.*}}], {{.*}} ins(%[[W]] : tensor<4x6x3x3xf32>) outs(%{{.*}} : tensor<6x4x3x3xbf16>)
// CHECK: arith.truncf
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<6x4x3x3xbf16> into tensor<6x36xbf16>
// CHECK-NOT: tensor.extract %
// CHECK: return
func.func @input_gradient(%go: tensor<2x4x9x9xbf16>, %w: tensor<4x6x3x3xf32>) -> tensor<2x6x7x7xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<6x4x3x3xbf16>
  %flip = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<6x4x3x3xbf16>) {
  ^bb0(%out: bf16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2, %i2 : index
    %r3 = arith.subi %c2, %i3 : index
    %x = tensor.extract %w[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xf32>
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<6x4x3x3xbf16>
  %zero = arith.constant 0.0 : f32
  %gi0 = tensor.empty() : tensor<2x6x7x7xf32>
  %gi = linalg.fill ins(%zero : f32) outs(%gi0 : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%go, %flip : tensor<2x4x9x9xbf16>, tensor<6x4x3x3xbf16>) outs(%gi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  return %r : tensor<2x6x7x7xf32>
}

// -----

// The same input gradient in a step whose forward already rounded the
// weight to bf16 (autocast's cast for the forward convolution): the
// unflipped filter is that copy transposed, bf16 to bf16 (half the bytes
// read), not the f32 weight rounded again.
// CHECK-LABEL: func.func @input_gradient_after_forward
// CHECK-SAME: (%[[GO:.*]]: tensor<2x4x9x9xbf16>, %[[W:.*]]: tensor<4x6x3x3xf32>)
// CHECK: %[[WB:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<4x6x3x3xf32>) outs(%{{.*}} : tensor<4x6x3x3xbf16>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[WB]] : tensor<4x6x3x3xbf16>) outs(%{{.*}} : tensor<6x4x3x3xbf16>) permutation = [1, 0, 2, 3]
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<6x4x3x3xbf16> into tensor<6x36xbf16>
// CHECK-NOT: tensor.extract %
// CHECK: return
func.func @input_gradient_after_forward(%go: tensor<2x4x9x9xbf16>, %w: tensor<4x6x3x3xf32>) -> (tensor<4x6x3x3xbf16>, tensor<2x6x7x7xf32>) {
  %c2 = arith.constant 2 : index
  %eb = tensor.empty() : tensor<4x6x3x3xbf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<4x6x3x3xf32>) outs(%eb : tensor<4x6x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x6x3x3xbf16>
  %e = tensor.empty() : tensor<6x4x3x3xbf16>
  %flip = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<6x4x3x3xbf16>) {
  ^bb0(%out: bf16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2, %i2 : index
    %r3 = arith.subi %c2, %i3 : index
    %x = tensor.extract %w[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xf32>
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<6x4x3x3xbf16>
  %zero = arith.constant 0.0 : f32
  %gi0 = tensor.empty() : tensor<2x6x7x7xf32>
  %gi = linalg.fill ins(%zero : f32) outs(%gi0 : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%go, %flip : tensor<2x4x9x9xbf16>, tensor<6x4x3x3xbf16>) outs(%gi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  return %wb, %r : tensor<4x6x3x3xbf16>, tensor<2x6x7x7xf32>
}

// -----

// A gather that also reads its init is not a flipped filter: it stays, and
// the convolution reads it as it is (taps in order).
// CHECK-LABEL: func.func @not_a_flip
// CHECK: tensor.extract %
// CHECK-NOT: arith.subi %c2{{.*}}, %arg
// CHECK: linalg.matmul
func.func @not_a_flip(%go: tensor<2x4x9x9xbf16>, %w: tensor<4x6x3x3xbf16>, %acc: tensor<6x4x3x3xbf16>) -> tensor<2x6x7x7xf32> {
  %c2 = arith.constant 2 : index
  %flip = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%acc : tensor<6x4x3x3xbf16>) {
  ^bb0(%out: bf16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2, %i2 : index
    %r3 = arith.subi %c2, %i3 : index
    %x = tensor.extract %w[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xbf16>
    %s = arith.addf %x, %out : bf16
    linalg.yield %s : bf16
  } -> tensor<6x4x3x3xbf16>
  %zero = arith.constant 0.0 : f32
  %gi0 = tensor.empty() : tensor<2x6x7x7xf32>
  %gi = linalg.fill ins(%zero : f32) outs(%gi0 : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%go, %flip : tensor<2x4x9x9xbf16>, tensor<6x4x3x3xbf16>) outs(%gi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  return %r : tensor<2x6x7x7xf32>
}

// -----

// Large taps (64 x 1 x 64 x 64 elements each) stay an scf.for with
// parallel=1: each of their transposes runs in parallel itself.
// CHECK-LABEL: func.func @large_taps
// CHECK: scf.for
// PAR-LABEL: func.func @large_taps
// PAR-NOT: scf.forall
// PAR: scf.for
// PAR-NOT: scf.forall
// PAR: linalg.matmul
func.func @large_taps(%x: tensor<1x64x66x66xbf16>, %w: tensor<8x64x3x3xbf16>) -> tensor<1x8x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x66x66xbf16>, tensor<8x64x3x3xbf16>) outs(%z : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  return %r : tensor<1x8x64x64xf32>
}

// -----

// Fewer output positions (2x2) than taps (3x3), but col (P = 8 columns) is
// smaller than the filter (F = 16 rows) that a transposed product would move:
// a deep stage's forward convolution keeps the tap gather and [F, P].
// CHECK-LABEL: func.func @small_output_forward
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x2x2xbf16>) outs(%{{.*}} : tensor<8x2x2x2xbf16>) permutation = [1, 0, 2, 3]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x72xbf16>, tensor<72x8xbf16>) outs(%{{.*}} : tensor<16x8xf32>)
func.func @small_output_forward(%x: tensor<2x8x4x4xbf16>, %w: tensor<16x8x3x3xbf16>) -> tensor<2x16x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x4x4xbf16>, tensor<16x8x3x3xbf16>) outs(%z : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  return %r : tensor<2x16x2x2xf32>
}

// -----

// A weight gradient's input as the importer writes it: the activation with
// batch and channels swapped, then padded in space. The windows are read
// from the activation padded instead, each swapped back by a transpose whose
// runs are KW long, and the swapped, padded copy of the activation is gone.
// CHECK-LABEL: func.func @weight_gradient_swapped_input
// CHECK-NOT: tensor<3x2x6x6xbf16>
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor<2x3x4x4xbf16> to tensor<2x3x6x6xbf16>
// CHECK-NOT: tensor<3x2x6x6xbf16>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[WIN:.*]] = tensor.extract_slice %[[P]][0, 0, %{{.*}}, %{{.*}}] [2, 3, 4, 4] [1, 1, 1, 1] : tensor<2x3x6x6xbf16> to tensor<2x3x4x4xbf16>
// CHECK: linalg.transpose ins(%[[WIN]] : tensor<2x3x4x4xbf16>) outs(%{{.*}} : tensor<3x2x4x4xbf16>) permutation = [1, 0, 2, 3]
// CHECK-NOT: tensor<3x2x6x6xbf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<27x32xbf16>, tensor<32x8xbf16>) outs(%{{.*}} : tensor<27x8xf32>)
func.func @weight_gradient_swapped_input(%x: tensor<2x3x4x4xbf16>, %gt: tensor<8x2x4x4xbf16>) -> tensor<3x8x3x3xf32> {
  %e = tensor.empty() : tensor<3x2x4x4xbf16>
  %xt = linalg.transpose ins(%x : tensor<2x3x4x4xbf16>) outs(%e : tensor<3x2x4x4xbf16>) permutation = [1, 0, 2, 3]
  %pad = arith.constant 0.0 : bf16
  %xp = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pad : bf16
  } : tensor<3x2x4x4xbf16> to tensor<3x2x6x6xbf16>
  %zero = arith.constant 0.0 : f32
  %eo = tensor.empty() : tensor<3x8x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%eo : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xp, %gt : tensor<3x2x6x6xbf16>, tensor<8x2x4x4xbf16>) outs(%z : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  return %r : tensor<3x8x3x3xf32>
}

// -----

// A stride-2 convolution's weight gradient as the importer writes it: the
// forward stride is this convolution's dilation (2x2), 3x3 positions of 4x4
// taps. By position too: each window is read at the dilation (runs of KW
// elements two apart) instead of 16 taps of 3-element runs.
// CHECK-LABEL: func.func @strided_weight_gradient
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[WIN:.*]] = tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}] [3, 2, 4, 4] [1, 1, 2, 2] : tensor<3x2x9x9xbf16> to tensor<3x2x4x4xbf16>
// CHECK: linalg.copy ins(%[[WIN]] : tensor<3x2x4x4xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<27x32xbf16>, tensor<32x8xbf16>) outs(%{{.*}} : tensor<27x8xf32>)
func.func @strided_weight_gradient(%xt: tensor<3x2x9x9xbf16>, %gt: tensor<8x2x4x4xbf16>) -> tensor<3x8x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
      ins(%xt, %gt : tensor<3x2x9x9xbf16>, tensor<8x2x4x4xbf16>) outs(%z : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  return %r : tensor<3x8x3x3xf32>
}

// -----

// A 1-D convolution is the 2-D one on rows of height 1 (stride and
// dilation 1 in height), which is then rewritten as every 2-D one: a fill
// init stays a fill, and the product is collapsed back to [N, F, OW].
// CHECK-LABEL: func.func @conv_1d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x17xbf16>, %[[W:.*]]: tensor<12x3x4xbf16>)
// CHECK-NOT: linalg.conv_1d_ncw_fcw
// CHECK-DAG: tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 3, 1, 17]
// CHECK-DAG: tensor.expand_shape %[[W]] {{\[\[}}0], [1], [2, 3]] output_shape [12, 3, 1, 4]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}] [2, 3, 1, 5] [1, 1, 1, 3]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x12xbf16>, tensor<12x10xbf16>) outs(%{{.*}} : tensor<12x10xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<2x12x1x5xf32> into tensor<2x12x5xf32>
// CHECK-NOT: linalg.conv_
func.func @conv_1d(%x: tensor<2x3x17xbf16>, %w: tensor<12x3x4xbf16>) -> tensor<2x12x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x12x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x12x5xf32>) -> tensor<2x12x5xf32>
  %r = linalg.conv_1d_ncw_fcw {strides = dense<3> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<2x3x17xbf16>, tensor<12x3x4xbf16>) outs(%z : tensor<2x12x5xf32>) -> tensor<2x12x5xf32>
  return %r : tensor<2x12x5xf32>
}

// -----

// A 3-D convolution: col [C, KD, KH, KW, N, OD, OH, OW] filled tap by tap by
// a nest of three loops (each tap a strided slice with the depth, height
// and width strides, transposed (N, C) -> (C, N)), one matmul of the filter
// [F, C*KD*KH*KW] by col, and a transpose back to NCDHW.
// CHECK-LABEL: func.func @conv_3d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x7x8x6xbf16>, %[[W:.*]]: tensor<10x3x3x2x3xbf16>)
// CHECK: scf.for {{.*}} -> (tensor<3x3x2x3x2x3x6x2xbf16>)
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[TAP:.*]] = tensor.extract_slice %[[X]][0, 0, %{{.*}}, %{{.*}}, %{{.*}}] [2, 3, 3, 6, 2] [1, 1, 2, 1, 2]
// CHECK: linalg.transpose ins(%[[TAP]] : tensor<2x3x3x6x2xbf16>) outs(%{{.*}} : tensor<3x2x3x6x2xbf16>) permutation = [1, 0, 2, 3, 4]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<10x54xbf16>, tensor<54x72xbf16>) outs(%{{.*}} : tensor<10x72xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<10x2x3x6x2xf32>) outs(%{{.*}} : tensor<2x10x3x6x2xf32>) permutation = [1, 0, 2, 3, 4]
// CHECK-NOT: linalg.conv_
func.func @conv_3d(%x: tensor<2x3x7x8x6xbf16>, %w: tensor<10x3x3x2x3xbf16>) -> tensor<2x10x3x6x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x10x3x6x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x10x3x6x2xf32>) -> tensor<2x10x3x6x2xf32>
  %r = linalg.conv_3d_ncdhw_fcdhw {strides = dense<[2, 1, 2]> : tensor<3xi64>, dilations = dense<[1, 2, 1]> : tensor<3xi64>}
      ins(%x, %w : tensor<2x3x7x8x6xbf16>, tensor<10x3x3x2x3xbf16>) outs(%z : tensor<2x10x3x6x2xf32>) -> tensor<2x10x3x6x2xf32>
  return %r : tensor<2x10x3x6x2xf32>
}
