// f32 and f16 convolutions on the AVX-512 kernel: with avx512=1,
// --mpt-lower-to-cpu rewrites f32 x f32 -> f32 and f16 x f16 -> f32
// convolutions into im2col + a contraction too (--mpt-conv-to-im2col
// avx512=1), which the AVX-512 kernel runs. Inputs are small integers
// (|x| <= 3, exact in f16), every partial sum is exact, so the printed
// outputs must equal the generic path's convolution loops exactly (`diff`);
// rounding (FMA, order) cannot show on exact sums, a misplaced element does.
// Cases: 3x3 stride 2 on a ragged image (f32), 1x1 stride 1 (f16 inputs),
// a 2x3 filter with dilation (2, 1), stride (1, 2) accumulating into an init
// that is not a fill (f32), a weight gradient's form (a convolution
// negated elementwise and transposed back, which the rewrite folds away),
// and in bf16 (autocast's form) a forward convolution of a rounded weight
// and an input gradient whose flipped filter is gathered from the f32
// weight and rounded, which the rewrite reads as the forward's bf16 copy
// transposed (also on the AVX512-BF16 kernel where the CPU has it).
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.kernel
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.kernel %t.loops
// RUN: FileCheck %s < %t.kernel
// On two threads (parallel=1): these taps are all small, so the im2col
// fills them in parallel (scf.forall, then scf.parallel on OpenMP), and the
// kernels split their work; the outputs stay exact.
// RUN: %if openmp %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs,%omp_runtime \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.parallel %}
// RUN: %if openmp %{ diff %t.parallel %t.loops %}
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: %if avx512bf16 %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 avx512-bf16=1" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.dot %}
// RUN: %if avx512bf16 %{ diff %t.dot %t.loops %}
// On the AVX2 kernels (avx2=1), which take the same convolutions.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx2=1 vectorize=1 kernel-report=%t.avx2.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.avx2
// RUN: diff %t.avx2 %t.loops
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.report
// AVX2: CPU kernels (no amx, no avx512, avx2): 8 of 8 contractions lowered
// AVX2: linalg.matmul 40x50x27 f32 x f32 -> f32: @__mpt_avx2_matmul_f32
// AVX2: linalg.matmul 4x98x54 bf16 x bf16 -> f32: @__mpt_avx2_matmul_bf16
// AVX2-NOT: left as is
// REPORT: CPU kernels (no amx, avx512): 8 of 8 contractions lowered
// REPORT: linalg.matmul 40x50x27 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 33x108x64 f16 x f16 -> f32: @__mpt_avx512_matmul_f16
// REPORT: linalg.matmul 17x112x30 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 27x8x32 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 36x5x120 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 36x6x75 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 4x98x54 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul 6x98x36 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// CHECK: sizes = [2, 40, 5, 5]
// CHECK: sizes = [3, 33, 6, 6]
// CHECK: sizes = [4, 17, 7, 4]
// CHECK: sizes = [8, 3, 3, 3]
// CHECK: sizes = [3, 5, 3, 4]
// CHECK: sizes = [4, 6, 3, 3]
// CHECK: sizes = [2, 4, 7, 7]
// CHECK: sizes = [2, 6, 7, 7]

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

  %z32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %l, %j, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x5x9x10xf32>
  %u32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %l, %i, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<17x5x2x3xf32>
  %acc3 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %i, %k, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x17x7x4xf32>
  %t32 = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%z32, %u32 : tensor<4x5x9x10xf32>, tensor<17x5x2x3xf32>) outs(%acc3 : tensor<4x17x7x4xf32>) -> tensor<4x17x7x4xf32>
  %e = tensor.cast %t32 : tensor<4x17x7x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%e) : (tensor<*xf32>) -> ()

  %xt = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %k, %l, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x2x6x6xf32>
  %gt = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %j, %i, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<8x2x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %ew = tensor.empty() : tensor<3x8x3x3xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %gw = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xt, %gt : tensor<3x2x6x6xf32>, tensor<8x2x4x4xf32>) outs(%zw : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%gw : tensor<3x8x3x3xf32>) outs(%ew : tensor<3x8x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<3x8x3x3xf32>
  %eb = tensor.empty() : tensor<8x3x3x3xf32>
  %back = linalg.transpose ins(%neg : tensor<3x8x3x3xf32>) outs(%eb : tensor<8x3x3x3xf32>) permutation = [1, 0, 2, 3]
  %g = tensor.cast %back : tensor<8x3x3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%g) : (tensor<*xf32>) -> ()

  %q32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %k, %i, %l) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x4x13x12xf32>
  %h32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %i, %l, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<5x4x5x6xf32>
  %acc5 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %k, %j, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x5x3x4xf32>
  %p32 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%q32, %h32 : tensor<3x4x13x12xf32>, tensor<5x4x5x6xf32>) outs(%acc5 : tensor<3x5x3x4xf32>) -> tensor<3x5x3x4xf32>
  %pc = tensor.cast %p32 : tensor<3x5x3x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%pc) : (tensor<*xf32>) -> ()

  %a0 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %j, %l, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x4x5x5xf32>
  %ea0 = tensor.empty() : tensor<4x3x5x5xf32>
  %a0t = linalg.transpose ins(%a0 : tensor<3x4x5x5xf32>) outs(%ea0 : tensor<4x3x5x5xf32>) permutation = [1, 0, 2, 3]
  %a0p = tensor.pad %a0t low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<4x3x5x5xf32> to tensor<4x3x7x7xf32>
  %g6 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %l, %k, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<6x3x5x5xf32>
  %e6 = tensor.empty() : tensor<4x6x3x3xf32>
  %z6 = linalg.fill ins(%one : f32) outs(%e6 : tensor<4x6x3x3xf32>) -> tensor<4x6x3x3xf32>
  %w6 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%a0p, %g6 : tensor<4x3x7x7xf32>, tensor<6x3x5x5xf32>) outs(%z6 : tensor<4x6x3x3xf32>) -> tensor<4x6x3x3xf32>
  %w6c = tensor.cast %w6 : tensor<4x6x3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%w6c) : (tensor<*xf32>) -> ()

  // bf16 (autocast's form): the weight rounded for a forward convolution,
  // and an input gradient's flipped filter gathered from the f32 weight and
  // rounded, which the rewrite reads as the forward's bf16 copy transposed.
  %wf = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %i, %l, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x6x3x3xf32>
  %ewb = tensor.empty() : tensor<4x6x3x3xbf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%wf : tensor<4x6x3x3xf32>) outs(%ewb : tensor<4x6x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x6x3x3xbf16>
  %xb32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %j, %i, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x6x9x9xf32>
  %xb = arith.truncf %xb32 : tensor<2x6x9x9xf32> to tensor<2x6x9x9xbf16>
  %ef = tensor.empty() : tensor<2x4x7x7xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  %fw = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xb, %wb : tensor<2x6x9x9xbf16>, tensor<4x6x3x3xbf16>) outs(%zf : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  %fwc = tensor.cast %fw : tensor<2x4x7x7xf32> to tensor<*xf32>
  func.call @printMemrefF32(%fwc) : (tensor<*xf32>) -> ()
  %c2i = arith.constant 2 : index
  %efl = tensor.empty() : tensor<6x4x3x3xbf16>
  %flip = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%efl : tensor<6x4x3x3xbf16>) {
  ^bb0(%out: bf16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2i, %i2 : index
    %r3 = arith.subi %c2i, %i3 : index
    %x = tensor.extract %wf[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xf32>
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<6x4x3x3xbf16>
  %gob32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %i, %j, %l) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x4x9x9xf32>
  %gob = arith.truncf %gob32 : tensor<2x4x9x9xf32> to tensor<2x4x9x9xbf16>
  %egi = tensor.empty() : tensor<2x6x7x7xf32>
  %zgi = linalg.fill ins(%zero : f32) outs(%egi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %gi = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%gob, %flip : tensor<2x4x9x9xbf16>, tensor<6x4x3x3xbf16>) outs(%zgi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %gic = tensor.cast %gi : tensor<2x6x7x7xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gic) : (tensor<*xf32>) -> ()
  return
}
