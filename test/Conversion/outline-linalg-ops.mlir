// RUN: mpt-opt %s --mpt-outline-linalg-ops --split-input-file | FileCheck %s

// Identical ops share one function: the two fills of 4x8 views at different
// offsets call @__mpt_linalg_fill_0 (offsets are dynamic in its signature),
// the 8x8 fill gets its own; the constant is cloned into the function, which
// LLVM must not inline back (noinline).

// CHECK-LABEL: func.func @fills(
// CHECK-NOT:     linalg.fill
// CHECK:         call @__mpt_linalg_fill_0(
// CHECK:         call @__mpt_linalg_fill_0(
// CHECK:         call @__mpt_linalg_fill_1(
// CHECK-LABEL: func.func private @__mpt_linalg_fill_0(
// CHECK-SAME:      %[[M:.*]]: memref<4x8xf32, strided<[8, 1], offset: ?>>)
// CHECK-SAME:      attributes {passthrough = ["noinline"]}
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill ins(%[[ZERO]] : f32) outs(%[[M]]
// CHECK-LABEL: func.func private @__mpt_linalg_fill_1(
// CHECK-SAME:      %{{.*}}: memref<8x8xf32, strided<[8, 1], offset: ?>>)
func.func @fills(%m: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.subview %m[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  %bottom = memref.subview %m[4, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  linalg.fill ins(%zero : f32) outs(%top : memref<4x8xf32, strided<[8, 1]>>)
  linalg.fill ins(%zero : f32) outs(%bottom : memref<4x8xf32, strided<[8, 1], offset: 32>>)
  linalg.fill ins(%zero : f32) outs(%m : memref<8x8xf32>)
  return
}

// -----

// A value the body uses from above, not a constant, becomes an argument;
// ops on tensors stay where they are.

// CHECK-LABEL: func.func @scale(
// CHECK:         call @__mpt_linalg_generic_0(%{{.*}}, %{{.*}}) : (memref<4xf32, strided<[1], offset: ?>>, f32) -> ()
// CHECK:         linalg.fill {{.*}} -> tensor<4xf32>
// CHECK-LABEL: func.func private @__mpt_linalg_generic_0(
// CHECK-SAME:      %{{.*}}: memref<4xf32, strided<[1], offset: ?>>, %[[S:.*]]: f32)
// CHECK:         arith.mulf %{{.*}}, %[[S]] : f32
func.func @scale(%m: memref<4xf32>, %s: f32) -> tensor<4xf32> {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%m : memref<4xf32>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  }
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}
