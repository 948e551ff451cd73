// An unranked float tensor (the tensor.cast that printMemrefF32 reads) is left
// alone: autocast used to make the cast low precision and give its reader an
// arith.extf of unranked tensors, which does not verify (the IR of
// test/Execution/avx512-conv.mlir failed after --mpt-autocast).
// RUN: mpt-opt %s --mpt-autocast | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

// CHECK-LABEL: func.func @print_product
// CHECK:         %[[MM:.*]] = linalg.matmul ins({{.*}} : tensor<4x8xf16>, tensor<8x2xf16>) outs({{.*}} : tensor<4x2xf32>)
// CHECK:         %[[CAST:.*]] = tensor.cast %[[MM]] : tensor<4x2xf32> to tensor<*xf32>
// CHECK:         call @printMemrefF32(%[[CAST]]) : (tensor<*xf32>) -> ()
func.func @print_product(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>)
                      outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  %u = tensor.cast %mm : tensor<4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
