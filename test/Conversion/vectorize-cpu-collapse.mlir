// --mpt-vectorize-cpu-loops runs an elementwise op's trailing loops as one
// loop when every operand reads them as one contiguous run of memory: an
// optimizer update on a [64, 32, 3, 3] weight is 1152 vectors of 16 instead
// of 2048 rows of 3 (results are bit-identical: each lane computes what its
// scalar iteration did; test/Execution/vectorize-cpu-loops.mlir diffs the
// outputs). A scalar read by every lane (the learning rate) is one load and
// a broadcast. Runs that are not contiguous stay separate loops. Ops that
// permute outer dimensions run in 16x16 blocks of them.
// RUN: mpt-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s

#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
#scalar = affine_map<(a, b, c, d) -> ()>

// CHECK-LABEL: func.func @weight_update
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<64x32x3x3xf32> into memref<18432xf32>
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<64x32x3x3xbf16> into memref<18432xbf16>
// CHECK: scf.for %{{.*}} = %c0 to %c18432 step %c16
// CHECK: %[[LR:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: vector.broadcast %[[LR]] : f32 to vector<16xf32>
// CHECK-NOT: vector.insert
// CHECK: return
func.func @weight_update(%w: memref<64x32x3x3xf32>, %g: memref<64x32x3x3xbf16>,
                         %lr: memref<f32>, %out: memref<64x32x3x3xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #scalar, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %g, %lr : memref<64x32x3x3xf32>, memref<64x32x3x3xbf16>, memref<f32>)
      outs(%out : memref<64x32x3x3xf32>) {
  ^bb0(%a: f32, %b: bf16, %l: f32, %o: f32):
    %e = arith.extf %b : bf16 to f32
    %m = arith.mulf %e, %l : f32
    %s = arith.subf %a, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(a, b, c, d) -> (a, b, c, d)>

// The input's rows are 512 apart, not 32 * 3 * 4 = 384: only the last three
// loops become one.
// CHECK-LABEL: func.func @padded_rows
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : memref<64x32x3x4xf32, strided<[512, 12, 4, 1]>> into memref<64x384xf32, strided<[512, 1]>>
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c384 step %c16
func.func @padded_rows(%x: memref<64x32x3x4xf32, strided<[512, 12, 4, 1]>>,
                       %out: memref<64x32x3x4xf32>) {
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<64x32x3x4xf32, strided<[512, 12, 4, 1]>>)
      outs(%out : memref<64x32x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#in = affine_map<(a, b, c) -> (b, a, c)>
#id = affine_map<(a, b, c) -> (a, b, c)>

// A transpose of the outer two dimensions: only the innermost loop runs
// contiguously in both operands, nothing is collapsed.
// CHECK-LABEL: func.func @outer_transpose
// CHECK-NOT: memref.collapse_shape
// CHECK: return
func.func @outer_transpose(%x: memref<8x4x9xf32>, %out: memref<4x8x9xf32>) {
  linalg.generic {indexing_maps = [#in, #id],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<8x4x9xf32>) outs(%out : memref<4x8x9xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
#channel = affine_map<(a, b, c, d) -> (0, b, 0, 0)>

// A per-channel parameter read through unit dimensions ((0, d1, 0, 0): a
// batch norm's scale) is not a projected permutation; upstream's
// collapseOpIterationDims crashes on such maps, so the op is vectorized
// uncollapsed.
// CHECK-LABEL: func.func @channel_scale
// CHECK-NOT: memref.collapse_shape
// CHECK: vector.transfer_read
// CHECK: return
func.func @channel_scale(%x: memref<2x4x8x16xf32>, %s: memref<1x4x1x1xf32>,
                         %out: memref<2x4x8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<2x4x8x16xf32>, memref<1x4x1x1xf32>)
      outs(%out : memref<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A fill (its value is a scalar operand) of a contiguous weight: one loop.
// CHECK-LABEL: func.func @fill_weight
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<64x32x3x3xf32> into memref<18432xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c18432 step %c16
func.func @fill_weight(%out: memref<64x32x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<64x32x3x3xf32>)
  return
}

// -----

// A filter's channel swap with its cast, [512, 512, 3, 3] -> [512, 512, 3, 3]
// with the first two dimensions exchanged: (kh, kw) become one run of 9,
// and the outer loops run in 16x16 blocks (the input's rows are 18 KiB
// apart; unblocked, they all fall into the same L1 sets).
#swap = affine_map<(a, b, c, d) -> (b, a, c, d)>
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
// CHECK-LABEL: func.func @filter_swap
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<512x512x3x3xf32> into memref<512x512x9xf32>
// CHECK: scf.for %[[A:.*]] = %c0 to %c512 step %c16
// CHECK: scf.for %[[B:.*]] = %c0 to %c512 step %c16
// CHECK: memref.subview %{{.*}}[%[[B]], %[[A]], 0] [16, 16, 9]
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
func.func @filter_swap(%w: memref<512x512x3x3xf32>, %out: memref<512x512x3x3xbf16>) {
  linalg.generic {indexing_maps = [#swap, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : memref<512x512x3x3xf32>) outs(%out : memref<512x512x3x3xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}
