// Policy level promote keeps a broadcast input f32 only where a generic's
// body can read it in f32; a named op such as linalg.broadcast needs one
// element type, so its input is cast with it (found by mpt-fuzz: the f32
// input with a bf16 init printed IR that did not parse back).
// RUN: mpt-opt %s --mpt-autocast=dtype=bf16 | FileCheck %s
// RUN: mpt-opt %s --mpt-autocast=dtype=bf16 | mpt-opt -o /dev/null

// CHECK-LABEL: func.func @broadcast_between_matmuls
// CHECK-SAME: (%{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[S16:.*]] = arith.truncf %[[S]] : tensor<f32> to tensor<bf16>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%[[S16]] : tensor<bf16>) outs(%{{.*}} : tensor<8x3xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<2x8xbf16>, tensor<8x3xbf16>)
func.func @broadcast_between_matmuls(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %eb = tensor.empty() : tensor<8x3xf32>
  %b = linalg.broadcast ins(%s : tensor<f32>) outs(%eb : tensor<8x3xf32>) dimensions = [0, 1]
  %e2 = tensor.empty() : tensor<2x3xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%h, %b : tensor<2x8xf32>, tensor<8x3xf32>) outs(%acc2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
