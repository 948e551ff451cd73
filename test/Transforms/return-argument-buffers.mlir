// RUN: mpt-opt %s --split-input-file --mpt-return-argument-buffers | FileCheck %s

// A clone of an argument buffer the step updated in place is returned as
// the argument; a clone of anything else stays.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: memref<8xf32>, %[[V:.*]]: memref<8xf32>)
// CHECK-NOT: bufferization.clone %[[W]]
// CHECK: %[[C:.*]] = bufferization.clone %[[S:.*]] :
// CHECK: return %[[W]], %[[C]]
func.func @step(%w: memref<8xf32>, %v: memref<8xf32>) -> (memref<8xf32>, memref<4xf32>) {
  %c = bufferization.clone %w : memref<8xf32> to memref<8xf32>
  %s = memref.subview %v[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %k = bufferization.clone %s : memref<4xf32, strided<[1]>> to memref<4xf32>
  return %c, %k : memref<8xf32>, memref<4xf32>
}
