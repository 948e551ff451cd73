// An op the user puts on the allow list that mpt has no allow rule for (here
// tensor.pad, which mpt rewrites only as a clear or infer op) stays f32 with
// the reason in the report; it used to reach the TOSA allow rewrite and crash.
// RUN: mpt-opt %s --mpt-autocast="allow=tensor.pad" | FileCheck %s
// RUN: mpt-opt %s --mpt-precision-report="allow=tensor.pad" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @pad_on_allow_list
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[1, 0] high[1, 0]
// CHECK: } : tensor<4x8xf32> to tensor<6x8xf32>
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<6x8xf32> to tensor<6x8xf16>
// CHECK: linalg.matmul ins(%[[P16]], %{{.*}} : tensor<6x8xf16>, tensor<8x10xf16>) outs(%{{.*}} : tensor<6x10xf32>)
// REPORT: tensor.pad [forward] f32: allow (allow list, option 'allow'), but mpt has no low-precision rewrite for this op: kept f32
// REPORT: linalg.matmul [forward] f16: allow (default allow list)
func.func @pad_on_allow_list(%x: tensor<4x8xf32>, %w: tensor<10x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x8xf32>
  %e = tensor.empty() : tensor<6x10xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x10xf32>) -> tensor<6x10xf32>
  %wt = tensor.empty() : tensor<8x10xf32>
  %t = linalg.transpose ins(%w : tensor<10x8xf32>) outs(%wt : tensor<8x10xf32>) permutation = [1, 0]
  %mm = linalg.matmul ins(%p, %t : tensor<6x8xf32>, tensor<8x10xf32>) outs(%acc : tensor<6x10xf32>) -> tensor<6x10xf32>
  %s = tensor.extract_slice %mm[0, 0] [4, 8] [1, 1] : tensor<6x10xf32> to tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
