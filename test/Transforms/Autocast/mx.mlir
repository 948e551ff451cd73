// dtype=mxfp8 / mxfp4: the contractions bf16 autocast would paint take MX
// operands: each operand in blocks of 32 along its reduction dimension
// (expand_shape; a short dimension padded with zeros first), an E8M0
// scale per block from the block's amax (biased exponent - emax, clamped
// at 0, 0xFF for NaN/inf), elements cast with arith.scaling_truncf and read
// back in bf16 with arith.scaling_extf; f32 accumulation. No state.
// docs/MX.md.
// RUN: mpt-opt %s --mpt-autocast="dtype=mxfp8" | FileCheck %s --check-prefix=FP8
// RUN: mpt-opt %s --mpt-autocast="dtype=mxfp4" | FileCheck %s --check-prefix=FP4
// RUN: mpt-opt %s --mpt-autocast="dtype=mxfp4 mx-backward=bf16" | FileCheck %s --check-prefix=FP4BF16
// RUN: mpt-opt %s --mpt-mixed-precision="dtype=mxfp8" | FileCheck %s --check-prefix=PIPE

#id = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>

// loss = sum(x @ w); dw = x^T @ dy. The forward reduces over 64 (two
// blocks); the backward over the batch, 2 (one block, padded).
// FP8-LABEL: func.func @linear
// FP8-SAME: attributes {mpt.mx = "mxfp8"}
// x^T's operand: x blocked along its rows (the backward's reduction),
// padded from 2 to 32.
// FP8: %[[PX:.*]] = tensor.insert_slice %arg1 into %{{.*}}[0, 0] [2, 64] [1, 1] : tensor<2x64xf32> into tensor<32x64xf32>
// FP8-NEXT: tensor.expand_shape %[[PX]] {{\[}}[0, 1], [2]] output_shape [1, 32, 64]
// w, blocked along its rows: the amax of each block, its E8M0 scale, the
// elements, the bf16 read.
// FP8: %[[BW:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [2, 32, 3] : tensor<64x3xf32> into tensor<2x32x3xf32>
// FP8: %[[AW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[BW]] : tensor<2x32x3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// FP8: math.absf
// FP8-NEXT: arith.maximumf
// FP8: %[[SW:.*]] = linalg.generic {{.*}} ins(%[[AW]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf8E8M0FNU>)
// FP8: arith.constant 8 : i32
// FP8-NEXT: arith.subi
// FP8: arith.maxsi
// FP8: %[[QW:.*]] = linalg.generic {{.*}} ins(%[[BW]], %[[SW]] : tensor<2x32x3xf32>, tensor<2x3xf8E8M0FNU>) outs(%{{.*}} : tensor<2x32x3xf8E4M3FN>)
// FP8-NEXT: ^bb0
// FP8-NEXT: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f8E4M3FN
// FP8: %[[RW:.*]] = linalg.generic {{.*}} ins(%[[QW]], %[[SW]] : tensor<2x32x3xf8E4M3FN>, tensor<2x3xf8E8M0FNU>) outs(%{{.*}} : tensor<2x32x3xbf16>)
// FP8-NEXT: ^bb0
// FP8-NEXT: arith.scaling_extf %{{.*}}, %{{.*}} : f8E4M3FN, f8E8M0FNU to bf16
// FP8: %[[W:.*]] = tensor.collapse_shape %[[RW]] {{\[}}[0, 1], [2]] : tensor<2x32x3xbf16> into tensor<64x3xbf16>
// x, blocked along its columns.
// FP8: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 2, 32] : tensor<2x64xf32> into tensor<2x2x32xf32>
// FP8: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<2x2x32xbf16> into tensor<2x64xbf16>
// FP8: linalg.matmul ins(%[[X]], %[[W]] : tensor<2x64xbf16>, tensor<64x3xbf16>) outs(%{{.*}} : tensor<2x3xf32>)
// The backward: dy in blocks along the batch (padded), x^T the transpose
// of x's other blocking.
// FP8: mpt.grad_seed
// FP8: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<32x3xf32>
// FP8: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f8E4M3FN
// FP8: %[[DY:.*]] = tensor.extract_slice %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<32x3xbf16> to tensor<2x3xbf16>
// FP8: %[[XT:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x64xbf16>) outs(%{{.*}} : tensor<64x2xbf16>) permutation = [1, 0]
// FP8-NEXT: linalg.matmul ins(%[[XT]], %[[DY]] : tensor<64x2xbf16>, tensor<2x3xbf16>) outs(%{{.*}} : tensor<64x3xf32>)
// FP8-NOT: arith.truncf %arg1

// mxfp4: the forward's operands in E2M1 (emax 2), the backward's in E4M3.
// FP4-LABEL: func.func @linear
// FP4-SAME: attributes {mpt.mx = "mxfp4"}
// FP4: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f8E4M3FN
// FP4: arith.constant 2 : i32
// FP4-NEXT: arith.subi
// FP4: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f4E2M1FN
// FP4: arith.scaling_extf %{{.*}}, %{{.*}} : f4E2M1FN, f8E8M0FNU to bf16
// FP4: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f4E2M1FN
// FP4: linalg.matmul
// FP4: mpt.grad_seed
// FP4: arith.scaling_truncf %{{.*}}, %{{.*}} : f32, f8E8M0FNU to f8E4M3FN
// FP4: linalg.matmul

// mx-backward=bf16: the backward matmul reads bf16 casts, as with
// dtype=bf16.
// FP4BF16-LABEL: func.func @linear
// FP4BF16: %[[XB:.*]] = arith.truncf %arg1 : tensor<2x64xf32> to tensor<2x64xbf16>
// FP4BF16: linalg.matmul
// FP4BF16-NOT: scaling_truncf
// FP4BF16: %[[DYB:.*]] = arith.truncf %{{.*}} : tensor<2x3xf32> to tensor<2x3xbf16>
// FP4BF16: %[[XTB:.*]] = linalg.transpose ins(%[[XB]] : tensor<2x64xbf16>)
// FP4BF16: linalg.matmul ins(%[[XTB]], %[[DYB]] : tensor<64x2xbf16>, tensor<2x3xbf16>)

// PIPE-LABEL: func.func @linear
// PIPE-NOT: mpt.grad_seed
// PIPE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x64xbf16>, tensor<64x3xbf16>)
// PIPE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x2xbf16>, tensor<2x3xbf16>)
func.func @linear(%w: tensor<64x3xf32> {mpt.role = "param"},
                  %x: tensor<2x64xf32> {mpt.role = "data"},
                  %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<64x3xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e23 = tensor.empty() : tensor<2x3xf32>
  %z23 = linalg.fill ins(%zero : f32) outs(%e23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x64xf32>, tensor<64x3xf32>) outs(%z23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<2x3xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e23 : tensor<2x3xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e42 = tensor.empty() : tensor<64x2xf32>
  %xt = linalg.transpose ins(%x : tensor<2x64xf32>) outs(%e42 : tensor<64x2xf32>) permutation = [1, 0]
  %e43 = tensor.empty() : tensor<64x3xf32>
  %z43 = linalg.fill ins(%zero : f32) outs(%e43 : tensor<64x3xf32>) -> tensor<64x3xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<64x2xf32>, tensor<2x3xf32>) outs(%z43 : tensor<64x3xf32>) -> tensor<64x3xf32>
  %g = mpt.gradient %dw : tensor<64x3xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<64x3xf32>, tensor<64x3xf32>, tensor<f32>) outs(%e43 : tensor<64x3xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %m = arith.mulf %b, %l : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<64x3xf32>
  return %loss, %nw : tensor<f32>, tensor<64x3xf32>
}
