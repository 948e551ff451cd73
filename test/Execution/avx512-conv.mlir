// f32 and f16 convolutions on the AVX-512 kernel: with avx512=1,
// --mpt-lower-to-cpu rewrites f32 x f32 -> f32 and f16 x f16 -> f32
// convolutions into im2col + a contraction too (--mpt-conv-to-im2col
// avx512=1), which the AVX-512 kernel runs. Inputs are small integers
// (|x| <= 3, exact in f16), every partial sum is exact, so the printed
// outputs must equal the generic path's convolution loops exactly (`diff`);
// rounding (FMA, order) cannot show on exact sums, a misplaced element does.
// Cases: 3x3 stride 2 on a ragged image (f32), 1x1 stride 1 (f16 inputs).
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.kernel
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.kernel %t.loops
// RUN: FileCheck %s < %t.kernel
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// REPORT: CPU kernels (no amx, avx512): 2 of 2 contractions lowered
// REPORT: linalg.generic {{.*}} f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.generic {{.*}} f16 x f16 -> f32: @__mpt_avx512_matmul_f16
// CHECK: sizes = [2, 40, 5, 5]
// CHECK: sizes = [3, 33, 6, 6]

func.func private @printMemrefF32(tensor<*xf32>)

// ((a*i + b*j + c*k + d*l) mod 7) - 3
func.func @values(%i: index, %j: index, %k: index, %l: index) -> f32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %a = arith.muli %i, %c5 : index
  %b = arith.muli %j, %c3 : index
  %c = arith.muli %k, %c2 : index
  %s1 = arith.addi %a, %b : index
  %s2 = arith.addi %s1, %c : index
  %s3 = arith.addi %s2, %l : index
  %r = arith.remui %s3, %c7 : index
  %v = arith.subi %r, %c3 : index
  %x = arith.index_cast %v : index to i32
  %f = arith.sitofp %x : i32 to f32
  return %f : f32
}

func.func @main() {
  %one = arith.constant 1.0 : f32
  %x32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %j, %k, %l) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x11x11xf32>
  %w32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %k, %i, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<40x3x3x3xf32>
  %init = tensor.empty() : tensor<2x40x5x5xf32>
  %acc = linalg.fill ins(%one : f32) outs(%init : tensor<2x40x5x5xf32>) -> tensor<2x40x5x5xf32>
  %r32 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x32, %w32 : tensor<2x3x11x11xf32>, tensor<40x3x3x3xf32>) outs(%acc : tensor<2x40x5x5xf32>) -> tensor<2x40x5x5xf32>
  %a = tensor.cast %r32 : tensor<2x40x5x5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%a) : (tensor<*xf32>) -> ()

  %y32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %i, %l, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x64x6x6xf32>
  %v32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %j, %j, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<33x64x1x1xf32>
  %y16 = arith.truncf %y32 : tensor<3x64x6x6xf32> to tensor<3x64x6x6xf16>
  %v16 = arith.truncf %v32 : tensor<33x64x1x1xf32> to tensor<33x64x1x1xf16>
  %init2 = tensor.empty() : tensor<3x33x6x6xf32>
  %acc2 = linalg.fill ins(%one : f32) outs(%init2 : tensor<3x33x6x6xf32>) -> tensor<3x33x6x6xf32>
  %s16 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%y16, %v16 : tensor<3x64x6x6xf16>, tensor<33x64x1x1xf16>) outs(%acc2 : tensor<3x33x6x6xf32>) -> tensor<3x33x6x6xf32>
  %c = tensor.cast %s16 : tensor<3x33x6x6xf32> to tensor<*xf32>
  func.call @printMemrefF32(%c) : (tensor<*xf32>) -> ()
  return
}
