// 1-D and 3-D convolutions on the kernels: --mpt-conv-to-im2col lifts a
// conv_1d_ncw_fcw to the 2-D convolution of rows of height 1 (then
// im2col + one matmul as for 2-D ones) and rewrites a conv_3d_ncdhw_fcdhw
// into a 3-D im2col (taps over kd, kh, kw) + one matmul. Both were scalar
// loops. Inputs are small integers (|x| <= 3, exact in bf16), every partial
// sum is exact, so the printed outputs must equal the generic path's
// convolution loops exactly (`diff`): a misplaced element shows, rounding
// cannot. Cases: 1-D stride 3 into a fill (f32); 1-D dilation 2 in bf16
// into an init that is not a fill; a 1-D weight gradient's shape (3 output
// positions, 28 taps: the by-position product) negated; 3-D strides
// (2, 1, 2) and dilations (1, 2, 1) into a fill (f32); 3-D in bf16 into an
// init that is not a fill; a 3-D weight gradient's shape (27 output
// positions, 64 taps: by position, the product transposed, 81x5x128)
// negated and transposed back to [F, C, ...] (the rewrite folds the
// transpose away); a strided convolution's weight gradient in 1-D and 3-D
// (the importer's: the forward stride is this convolution's dilation; by
// position, each window's runs read at that stride), bf16 in 1-D.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.kernel
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.kernel %t.loops
// RUN: FileCheck %s < %t.kernel
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: %if avx512bf16 %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 avx512-bf16=1" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.dot %}
// RUN: %if avx512bf16 %{ diff %t.dot %t.loops %}
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx2=1 vectorize=1" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.avx2
// RUN: diff %t.avx2 %t.loops
// The rewrite's form: test/Conversion/conv-to-im2col.mlir.
// REPORT: CPU kernels (no amx, avx512): 8 of 8 contractions lowered
// REPORT: linalg.matmul 12x10x12 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 7x48x15 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul 9x8x56 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 10x72x54 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 6x64x32 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul 81x5x128 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 9x8x56 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul 12x5x64 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT-NOT: left as is
// CHECK: sizes = [2, 12, 5]
// CHECK: sizes = [3, 7, 16]
// CHECK: sizes = [3, 8, 3]
// CHECK: sizes = [2, 10, 3, 6, 2]
// CHECK: sizes = [1, 6, 4, 4, 4]
// CHECK: sizes = [5, 3, 3, 3, 3]
// CHECK: sizes = [3, 8, 3]
// CHECK: sizes = [3, 5, 1, 2, 2]

func.func private @printMemrefF32(tensor<*xf32>)

// ((5i + 3j + 2k + l) mod 7) - 3
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

func.func @values5(%i: index, %j: index, %k: index, %l: index, %m: index) -> f32 {
  %c4 = arith.constant 4 : index
  %m4 = arith.muli %m, %c4 : index
  %l2 = arith.addi %l, %m4 : index
  %v = func.call @values(%i, %j, %k, %l2) : (index, index, index, index) -> f32
  return %v : f32
}

func.func @main() {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index

  // 1-D, stride 3, into a fill.
  %x1 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%i, %j, %k, %c0) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x17xf32>
  %w1 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%k, %i, %j, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<12x3x4xf32>
  %e1 = tensor.empty() : tensor<2x12x5xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<2x12x5xf32>) -> tensor<2x12x5xf32>
  %r1 = linalg.conv_1d_ncw_fcw {strides = dense<3> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
      ins(%x1, %w1 : tensor<2x3x17xf32>, tensor<12x3x4xf32>) outs(%f1 : tensor<2x12x5xf32>) -> tensor<2x12x5xf32>
  %p1 = tensor.cast %r1 : tensor<2x12x5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p1) : (tensor<*xf32>) -> ()

  // 1-D, dilation 2, bf16 inputs, an init that is not a fill.
  %x2 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%j, %k, %i, %c0) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x5x20xf32>
  %w2 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%i, %k, %k, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<7x5x3xf32>
  %i2 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%k, %j, %i, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x7x16xf32>
  %x2b = arith.truncf %x2 : tensor<3x5x20xf32> to tensor<3x5x20xbf16>
  %w2b = arith.truncf %w2 : tensor<7x5x3xf32> to tensor<7x5x3xbf16>
  %r2 = linalg.conv_1d_ncw_fcw {strides = dense<1> : tensor<1xi64>, dilations = dense<2> : tensor<1xi64>}
      ins(%x2b, %w2b : tensor<3x5x20xbf16>, tensor<7x5x3xbf16>) outs(%i2 : tensor<3x7x16xf32>) -> tensor<3x7x16xf32>
  %p2 = tensor.cast %r2 : tensor<3x7x16xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p2) : (tensor<*xf32>) -> ()

  // 1-D weight gradient's shape: 3 positions, 28 taps, negated.
  %x3 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%k, %i, %j, %c0) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x2x30xf32>
  %w3 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%j, %k, %i, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<8x2x28xf32>
  %e3 = tensor.empty() : tensor<3x8x3xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x8x3xf32>) -> tensor<3x8x3xf32>
  %r3 = linalg.conv_1d_ncw_fcw {strides = dense<1> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
      ins(%x3, %w3 : tensor<3x2x30xf32>, tensor<8x2x28xf32>) outs(%f3 : tensor<3x8x3xf32>) -> tensor<3x8x3xf32>
  %n3 = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r3 : tensor<3x8x3xf32>) outs(%e3 : tensor<3x8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<3x8x3xf32>
  %p3 = tensor.cast %n3 : tensor<3x8x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p3) : (tensor<*xf32>) -> ()

  // 3-D, strides (2, 1, 2), dilations (1, 2, 1), into a fill.
  %x4 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%i, %j, %k, %l, %m) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x7x8x6xf32>
  %w4 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%m, %k, %i, %j, %l) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<10x3x3x2x3xf32>
  %e4 = tensor.empty() : tensor<2x10x3x6x2xf32>
  %f4 = linalg.fill ins(%one : f32) outs(%e4 : tensor<2x10x3x6x2xf32>) -> tensor<2x10x3x6x2xf32>
  %r4 = linalg.conv_3d_ncdhw_fcdhw {strides = dense<[2, 1, 2]> : tensor<3xi64>, dilations = dense<[1, 2, 1]> : tensor<3xi64>}
      ins(%x4, %w4 : tensor<2x3x7x8x6xf32>, tensor<10x3x3x2x3xf32>) outs(%f4 : tensor<2x10x3x6x2xf32>) -> tensor<2x10x3x6x2xf32>
  %p4 = tensor.cast %r4 : tensor<2x10x3x6x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p4) : (tensor<*xf32>) -> ()

  // 3-D in bf16 into an init that is not a fill.
  %x5 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%j, %k, %l, %m, %i) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<1x4x5x5x5xf32>
  %w5 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%l, %i, %m, %k, %j) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<6x4x2x2x2xf32>
  %i5 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%m, %l, %k, %j, %i) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<1x6x4x4x4xf32>
  %x5b = arith.truncf %x5 : tensor<1x4x5x5x5xf32> to tensor<1x4x5x5x5xbf16>
  %w5b = arith.truncf %w5 : tensor<6x4x2x2x2xf32> to tensor<6x4x2x2x2xbf16>
  %r5 = linalg.conv_3d_ncdhw_fcdhw {strides = dense<1> : tensor<3xi64>, dilations = dense<1> : tensor<3xi64>}
      ins(%x5b, %w5b : tensor<1x4x5x5x5xbf16>, tensor<6x4x2x2x2xbf16>) outs(%i5 : tensor<1x6x4x4x4xf32>) -> tensor<1x6x4x4x4xf32>
  %p5 = tensor.cast %r5 : tensor<1x6x4x4x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p5) : (tensor<*xf32>) -> ()

  // 3-D weight gradient's shape, negated and transposed back.
  %x6 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%k, %m, %j, %i, %l) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x2x6x6x6xf32>
  %w6 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%i, %l, %m, %j, %k) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<5x2x4x4x4xf32>
  %e6 = tensor.empty() : tensor<3x5x3x3x3xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<3x5x3x3x3xf32>) -> tensor<3x5x3x3x3xf32>
  %r6 = linalg.conv_3d_ncdhw_fcdhw {strides = dense<1> : tensor<3xi64>, dilations = dense<1> : tensor<3xi64>}
      ins(%x6, %w6 : tensor<3x2x6x6x6xf32>, tensor<5x2x4x4x4xf32>) outs(%f6 : tensor<3x5x3x3x3xf32>) -> tensor<3x5x3x3x3xf32>
  %n6 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>, affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%r6 : tensor<3x5x3x3x3xf32>) outs(%e6 : tensor<3x5x3x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<3x5x3x3x3xf32>
  %eb = tensor.empty() : tensor<5x3x3x3x3xf32>
  %back = linalg.transpose ins(%n6 : tensor<3x5x3x3x3xf32>) outs(%eb : tensor<5x3x3x3x3xf32>) permutation = [1, 0, 2, 3, 4]
  %p6 = tensor.cast %back : tensor<5x3x3x3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p6) : (tensor<*xf32>) -> ()

  // A stride-2 1-D convolution's weight gradient, in bf16: 3 positions, 28
  // taps at dilation 2.
  %x7 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%k, %j, %i, %c0) : (index, index, index, index) -> f32
    %b = arith.truncf %v : f32 to bf16
    tensor.yield %b : bf16
  } : tensor<3x2x57xbf16>
  %w7 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @values(%j, %i, %k, %k) : (index, index, index, index) -> f32
    %b = arith.truncf %v : f32 to bf16
    tensor.yield %b : bf16
  } : tensor<8x2x28xbf16>
  %e7 = tensor.empty() : tensor<3x8x3xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<3x8x3xf32>) -> tensor<3x8x3xf32>
  %r7 = linalg.conv_1d_ncw_fcw {strides = dense<1> : tensor<1xi64>, dilations = dense<2> : tensor<1xi64>}
      ins(%x7, %w7 : tensor<3x2x57xbf16>, tensor<8x2x28xbf16>) outs(%f7 : tensor<3x8x3xf32>) -> tensor<3x8x3xf32>
  %p7 = tensor.cast %r7 : tensor<3x8x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p7) : (tensor<*xf32>) -> ()

  // A 3-D weight gradient with dilations (1, 2, 3): 1x2x2 positions of
  // 2x4x4 taps.
  %x8 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%j, %i, %k, %l, %m) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x2x2x8x11xf32>
  %w8 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    %v = func.call @values5(%l, %i, %m, %j, %k) : (index, index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<5x2x2x4x4xf32>
  %e8 = tensor.empty() : tensor<3x5x1x2x2xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<3x5x1x2x2xf32>) -> tensor<3x5x1x2x2xf32>
  %r8 = linalg.conv_3d_ncdhw_fcdhw {strides = dense<1> : tensor<3xi64>, dilations = dense<[1, 2, 3]> : tensor<3xi64>}
      ins(%x8, %w8 : tensor<3x2x2x8x11xf32>, tensor<5x2x2x4x4xf32>) outs(%f8 : tensor<3x5x1x2x2xf32>) -> tensor<3x5x1x2x2xf32>
  %p8 = tensor.cast %r8 : tensor<3x5x1x2x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p8) : (tensor<*xf32>) -> ()
  return
}
