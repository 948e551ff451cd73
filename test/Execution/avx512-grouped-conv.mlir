// Grouped convolutions (linalg.conv_2d_ngchw_gfchw: RegNet, ResNeXt, a
// grouped convolution's input gradient) on the matmul kernels: with avx512=1,
// --mpt-conv-to-im2col rewrites one of bf16 inputs with at least 8 output
// channels per group into an im2col per group and one batched matmul over
// the groups, which the AVX-512 kernel runs (its bf16 kernel, or the
// AVX512-BF16 one). Inputs are small integers (|x| <= 3, exact in bf16) and
// every partial sum is exact, so the outputs must equal the generic path's
// convolution loops exactly (`diff`): summation order and FMA cannot show,
// a misplaced element does. Cases: stride 2, into a fill; dilation 2 and a
// ragged 2x3 filter, into an init that is not a fill; and two that stay
// convolutions (--mpt-vectorize-cpu-loops runs them): 4 channels per group
// (the kernels' row block would compute mostly padding) and f32 inputs
// (the window code runs FMA as the kernel would, without the copies).
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 vectorize=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.kernel
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.kernel %t.loops
// RUN: FileCheck %s < %t.kernel
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: %if openmp %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 vectorize=1 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs,%omp_runtime \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.parallel %}
// RUN: %if openmp %{ diff %t.parallel %t.loops %}
// RUN: %if avx512bf16 %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 avx512-bf16=1 vectorize=1" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.dot %}
// RUN: %if avx512bf16 %{ diff %t.dot %t.loops %}
// On the AVX2 kernels (avx2=1): the grouped bf16 ones on the AVX2 bf16 kernel.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx2=1 vectorize=1 kernel-report=%t.avx2.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.avx2
// RUN: diff %t.avx2 %t.loops
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.report
// AVX2: linalg.batch_matmul 3x8x18x72 bf16 x bf16 -> f32: @__mpt_avx2_matmul_bf16
// AVX2: linalg.batch_matmul 2x16x50x24 bf16 x bf16 -> f32: @__mpt_avx2_matmul_bf16
// REPORT: linalg.batch_matmul 3x8x18x72 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.batch_matmul 2x16x50x24 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.conv_2d_ngchw_gfchw 2x3x4x5x5x4x3x3 bf16 x bf16 -> f32: left as is: convolution: no kernel; --mpt-vectorize-cpu-loops runs it along its output rows
// REPORT: linalg.conv_2d_ngchw_gfchw 2x3x8x3x3x8x3x3 f32 x f32 -> f32: left as is: convolution: no kernel; --mpt-vectorize-cpu-loops runs it along its output rows
// CHECK: sizes = [2, 3, 8, 3, 3]
// CHECK: sizes = [2, 2, 16, 5, 5]
// CHECK: sizes = [2, 3, 4, 5, 5]
// CHECK: sizes = [2, 3, 8, 3, 3]

func.func private @printMemrefF32(tensor<*xf32>)

// ((5 i + 3 j + 2 k + l + m) mod 7) - 3
func.func @values(%i: index, %j: index, %k: index, %l: index, %m: index) -> f32 {
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
  %s4 = arith.addi %s3, %m : index
  %r = arith.remui %s4, %c7 : index
  %v = arith.subi %r, %c3 : index
  %x = arith.index_cast %v : index to i32
  %f = arith.sitofp %x : i32 to f32
  return %f : f32
}

func.func @main() {
  %one = arith.constant 1.0 : f32
  // 3 groups of 8 -> 8 channels, stride 2.
  %x = tensor.generate {
  ^bb0(%n: index, %g: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%n, %g, %c, %h, %w) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x8x7x7xf32>
  %wt = tensor.generate {
  ^bb0(%g: index, %f: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%f, %c, %w, %g, %h) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x8x8x3x3xf32>
  %e = tensor.empty() : tensor<2x3x8x3x3xf32>
  %acc = linalg.fill ins(%one : f32) outs(%e : tensor<2x3x8x3x3xf32>) -> tensor<2x3x8x3x3xf32>
  %x16 = arith.truncf %x : tensor<2x3x8x7x7xf32> to tensor<2x3x8x7x7xbf16>
  %wt16 = arith.truncf %wt : tensor<3x8x8x3x3xf32> to tensor<3x8x8x3x3xbf16>
  %r = linalg.conv_2d_ngchw_gfchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x16, %wt16 : tensor<2x3x8x7x7xbf16>, tensor<3x8x8x3x3xbf16>) outs(%acc : tensor<2x3x8x3x3xf32>) -> tensor<2x3x8x3x3xf32>
  %p = tensor.cast %r : tensor<2x3x8x3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p) : (tensor<*xf32>) -> ()

  // 2 groups of 4 -> 16 channels, a 2x3 filter dilated by 2,
  // accumulated into values.
  %y = tensor.generate {
  ^bb0(%n: index, %g: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%w, %h, %n, %c, %g) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x2x4x7x9xf32>
  %u = tensor.generate {
  ^bb0(%g: index, %f: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%c, %g, %h, %w, %f) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x16x4x2x3xf32>
  %acc2 = tensor.generate {
  ^bb0(%n: index, %g: index, %f: index, %h: index, %w: index):
    %v = func.call @values(%h, %f, %w, %n, %g) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x2x16x5x5xf32>
  %y16 = arith.truncf %y : tensor<2x2x4x7x9xf32> to tensor<2x2x4x7x9xbf16>
  %u16 = arith.truncf %u : tensor<2x16x4x2x3xf32> to tensor<2x16x4x2x3xbf16>
  %s = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
      ins(%y16, %u16 : tensor<2x2x4x7x9xbf16>, tensor<2x16x4x2x3xbf16>) outs(%acc2 : tensor<2x2x16x5x5xf32>) -> tensor<2x2x16x5x5xf32>
  %q = tensor.cast %s : tensor<2x2x16x5x5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%q) : (tensor<*xf32>) -> ()

  // 4 channels per group: a convolution still.
  %z = tensor.generate {
  ^bb0(%n: index, %g: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%g, %w, %c, %n, %h) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x4x7x7xf32>
  %k = tensor.generate {
  ^bb0(%g: index, %f: index, %c: index, %h: index, %w: index):
    %v = func.call @values(%h, %f, %g, %c, %w) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x4x4x3x3xf32>
  %e3 = tensor.empty() : tensor<2x3x4x5x5xf32>
  %acc3 = linalg.fill ins(%one : f32) outs(%e3 : tensor<2x3x4x5x5xf32>) -> tensor<2x3x4x5x5xf32>
  %z16 = arith.truncf %z : tensor<2x3x4x7x7xf32> to tensor<2x3x4x7x7xbf16>
  %k16 = arith.truncf %k : tensor<3x4x4x3x3xf32> to tensor<3x4x4x3x3xbf16>
  %t = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%z16, %k16 : tensor<2x3x4x7x7xbf16>, tensor<3x4x4x3x3xbf16>) outs(%acc3 : tensor<2x3x4x5x5xf32>) -> tensor<2x3x4x5x5xf32>
  %o = tensor.cast %t : tensor<2x3x4x5x5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%o) : (tensor<*xf32>) -> ()

  // f32 inputs: a convolution still.
  %r32 = linalg.conv_2d_ngchw_gfchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %wt : tensor<2x3x8x7x7xf32>, tensor<3x8x8x3x3xf32>) outs(%acc : tensor<2x3x8x3x3xf32>) -> tensor<2x3x8x3x3xf32>
  %p32 = tensor.cast %r32 : tensor<2x3x8x3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p32) : (tensor<*xf32>) -> ()
  return
}
