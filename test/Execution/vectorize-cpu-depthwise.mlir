// Depthwise and grouped convolution (linalg.depthwise_conv_2d_nchw_chw,
// linalg.conv_2d_ngchw_gfchw; f32 accumulator) under
// --mpt-vectorize-cpu-loops: as max pooling, 16 outputs
// along OW at a time (8 or 4 when OW is not a multiple of 16), one vector
// per window tap in the window's order; each tap is multiplied by its
// weight (one scalar of the [C, KH, KW] filter, broadcast; for a depthwise
// convolution once per plane, outside the row loops) and added to the
// accumulator, mulf then addf as the scalar loops do (no FMA). A tap with
// stride 2 is one load of a contiguous run read as elements of twice the
// width (masked where the last run reaches past the row); bf16 inputs are
// widened to f32 as bits. Every output adds its taps in the loops' order
// with the loops' operations, so the results must be the loops' bit for
// bit, on one thread and on two (`diff` of the printed bit patterns, no
// tolerance; the inputs and weights are sines). Cases: 3x3 stride 1 in f32
// (OW = 8), 3x3 stride 2 on bf16 inputs (autocast's form: bf16 x bf16 ->
// f32, a padded 34x34 input, OW = 16), 5x5 stride 2 in f32 with OW = 12
// (vectors of 4, the mask), OW = 2 (vectors of 2) and OW = 1, which stays
// loops; grouped: 2 groups of 4 input and 3 output channels, 3x3 stride 1
// in f32 (OW = 8), and 2 groups of 2 and 2 on bf16 inputs, 3x3 stride 2
// (OW = 16); a group's input channels are a loop outside each channel's
// window, the loops' order, and its output channels are computed 4 or 2 at
// a time where their count allows (the bf16 case: 2, one tap load for
// both; the f32 case's 3 one at a time).
//
// The exact case (CHECK lines) makes the test fail even if all paths went
// wrong alike: x[n, c, h, w] = w and every weight 1, so an output is KH
// times the sum of its window's columns: 9 ow + 9 (3x3, stride 1),
// 18 ow + 9 (3x3, stride 2), 50 ow + 50 (5x5, stride 2); grouped, C times
// that: 36 ow + 36 (4 channels, 3x3, stride 1), 36 ow + 18 (2 channels,
// 3x3, stride 2).
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec
// Results do not depend on the vector length: 8 lanes (AVX2's f32 width) too.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 vector-lanes=8 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec8
// RUN: mpt-opt %s --mpt-lower-to-cpu="deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.vec %t.loops
// RUN: diff %t.vec8 %t.loops
// RUN: FileCheck %s < %t.vec
// RUN: %if openmp %{ mpt-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{parallel=1 parallel-min=1}))" \
// RUN:   | mpt-opt --mpt-lower-to-cpu="parallel=1 deallocate=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.par %}
// RUN: %if openmp %{ diff %t.par %t.loops %}
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="amx=0 avx512=1 report=-" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT

// The kernels' report says where these convolutions go.
// REPORT: linalg.depthwise_conv_2d_nchw_chw 2x8x8x16x3x3 f32 x f32 -> f32: left as is: convolution: no kernel; --mpt-vectorize-cpu-loops runs it along its output rows
// REPORT: linalg.conv_2d_ngchw_gfchw {{.*}}: left as is: convolution: no kernel; --mpt-vectorize-cpu-loops runs it along its output rows

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// IR-LABEL: func.func @kernels
// IR-NOT: linalg.depthwise
// A depthwise filter's weights are broadcast once per (n, c) plane, before
// its row loops.
// IR: vector.broadcast {{.*}} : f32 to vector<8xf32>
// IR: scf.for
// IR: vector.load {{.*}} vector<8xf32>
// IR: arith.mulf {{.*}} : vector<8xf32>
// IR: arith.addf {{.*}} : vector<8xf32>
// IR: arith.extf {{.*}} : bf16 to f32
// IR-NEXT: vector.broadcast {{.*}} : f32 to vector<16xf32>
// IR: scf.for
// IR: vector.load {{.*}} vector<32xbf16>
// IR: vector.bitcast {{.*}} vector<32xbf16> to vector<16xi32>
// IR: arith.shli
// IR: arith.mulf {{.*}} : vector<16xf32>
// IR: arith.addf {{.*}} : vector<16xf32>
// IR: vector.store {{.*}} vector<16xf32>
// IR: vector.maskedload {{.*}} vector<8xf32>
// IR: arith.mulf {{.*}} : vector<4xf32>
// IR: arith.mulf {{.*}} : vector<2xf32>
// IR: linalg.depthwise_conv_2d_nchw_chw
// IR-NOT: linalg.conv_2d_ngchw_gfchw
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>)
// IR: arith.mulf {{.*}} : vector<8xf32>
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// IR: arith.mulf {{.*}} : vector<16xf32>
// IR-LABEL: func.func @printBits
func.func @kernels(%x1: memref<2x16x10x10xf32>, %w1: memref<16x3x3xf32>, %y1: memref<2x16x8x8xf32>,
                   %xb: memref<2x32x34x34xbf16>, %wb: memref<32x3x3xbf16>, %yb: memref<2x32x16x16xf32>,
                   %x2: memref<1x16x11x27xf32>, %w2: memref<16x5x5xf32>, %y2: memref<1x16x4x12xf32>,
                   %x3: memref<1x16x4x4xf32>, %y3: memref<1x16x2x2xf32>,
                   %x4: memref<1x16x3x3xf32>, %y4: memref<1x16x1x1xf32>,
                   %xg: memref<2x2x4x10x10xf32>, %wg: memref<2x3x4x3x3xf32>, %yg: memref<2x2x3x8x8xf32>,
                   %xgb: memref<1x2x2x34x34xbf16>, %wgb: memref<2x2x2x3x3xbf16>, %ygb: memref<1x2x2x16x16xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x1, %w1 : memref<2x16x10x10xf32>, memref<16x3x3xf32>) outs(%y1 : memref<2x16x8x8xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%xb, %wb : memref<2x32x34x34xbf16>, memref<32x3x3xbf16>) outs(%yb : memref<2x32x16x16xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x2, %w2 : memref<1x16x11x27xf32>, memref<16x5x5xf32>) outs(%y2 : memref<1x16x4x12xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x3, %w1 : memref<1x16x4x4xf32>, memref<16x3x3xf32>) outs(%y3 : memref<1x16x2x2xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x4, %w1 : memref<1x16x3x3xf32>, memref<16x3x3xf32>) outs(%y4 : memref<1x16x1x1xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%xg, %wg : memref<2x2x4x10x10xf32>, memref<2x3x4x3x3xf32>) outs(%yg : memref<2x2x3x8x8xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%xgb, %wgb : memref<1x2x2x34x34xbf16>, memref<2x2x2x3x3xbf16>) outs(%ygb : memref<1x2x2x16x16xf32>)
  return
}

// Prints the bit patterns of an f32 buffer.
func.func @printBits(%m: memref<*xf32>) {
  %r = memref.cast %m : memref<*xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %r, %c0 : memref<?xf32>
  %bits = memref.alloc(%n) : memref<?xi32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
    ins(%r : memref<?xf32>) outs(%bits : memref<?xi32>) {
  ^bb0(%a: f32, %o: i32):
    %b = arith.bitcast %a : f32 to i32
    linalg.yield %b : i32
  }
  %u = memref.cast %bits : memref<?xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %bits : memref<?xi32>
  return
}

// m[i, j] = sin((i * cols + j + 1) * scale), or (exact, scale 0) the
// column j, or 1 where `ones`.
func.func @init(%m: memref<?x?xf32>, %scale: f32, %ones: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %k0 = arith.muli %i, %cols : index
      %k1 = arith.addi %k0, %j : index
      %k2 = arith.addi %k1, %c1 : index
      %ki = arith.index_cast %k2 : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      %s = math.sin %kf : f32
      %v = arith.mulf %s, %scale : f32
      %ji = arith.index_cast %j : index to i64
      %jf = arith.sitofp %ji : i64 to f32
      %e = arith.select %ones, %one, %jf : f32
      %x = arith.select %exact, %e, %v : f32
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @print(%m: memref<?xf32>, %exact: i1) {
  %u = memref.cast %m : memref<?xf32> to memref<*xf32>
  scf.if %exact {
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  } else {
    func.call @printBits(%u) : (memref<*xf32>) -> ()
  }
  return
}

func.func @toBF16(%x: memref<?xf32>, %y: memref<?xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
    ins(%x : memref<?xf32>) outs(%y : memref<?xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

func.func @run(%scale: f32) {
  %zero = arith.constant 0.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  %false = arith.constant false
  %true = arith.constant true
  // Inputs and filters as [rows, W] buffers, viewed as [N, C, H, W] and
  // [C, KH, KW].
  %f1 = memref.alloc() : memref<320x10xf32>
  %f1_d = memref.cast %f1 : memref<320x10xf32> to memref<?x?xf32>
  call @init(%f1_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %x1 = memref.expand_shape %f1 [[0, 1, 2], [3]] output_shape [2, 16, 10, 10] : memref<320x10xf32> into memref<2x16x10x10xf32>
  %g1 = memref.alloc() : memref<48x3xf32>
  %g1_d = memref.cast %g1 : memref<48x3xf32> to memref<?x?xf32>
  call @init(%g1_d, %scale, %true) : (memref<?x?xf32>, f32, i1) -> ()
  %w1 = memref.expand_shape %g1 [[0, 1], [2]] output_shape [16, 3, 3] : memref<48x3xf32> into memref<16x3x3xf32>
  %fb = memref.alloc() : memref<2176x34xf32>
  %fb_d = memref.cast %fb : memref<2176x34xf32> to memref<?x?xf32>
  call @init(%fb_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %xbf = memref.alloc() : memref<73984xbf16>
  %fb_flat = memref.collapse_shape %fb [[0, 1]] : memref<2176x34xf32> into memref<73984xf32>
  %fb_flat_d = memref.cast %fb_flat : memref<73984xf32> to memref<?xf32>
  %xbf_d = memref.cast %xbf : memref<73984xbf16> to memref<?xbf16>
  call @toBF16(%fb_flat_d, %xbf_d) : (memref<?xf32>, memref<?xbf16>) -> ()
  %xb = memref.expand_shape %xbf [[0, 1, 2, 3]] output_shape [2, 32, 34, 34] : memref<73984xbf16> into memref<2x32x34x34xbf16>
  %gb = memref.alloc() : memref<96x3xf32>
  %gb_d = memref.cast %gb : memref<96x3xf32> to memref<?x?xf32>
  call @init(%gb_d, %scale, %true) : (memref<?x?xf32>, f32, i1) -> ()
  %wbf = memref.alloc() : memref<288xbf16>
  %gb_flat = memref.collapse_shape %gb [[0, 1]] : memref<96x3xf32> into memref<288xf32>
  %gb_flat_d = memref.cast %gb_flat : memref<288xf32> to memref<?xf32>
  %wbf_d = memref.cast %wbf : memref<288xbf16> to memref<?xbf16>
  call @toBF16(%gb_flat_d, %wbf_d) : (memref<?xf32>, memref<?xbf16>) -> ()
  %wb = memref.expand_shape %wbf [[0, 1, 2]] output_shape [32, 3, 3] : memref<288xbf16> into memref<32x3x3xbf16>
  %f2 = memref.alloc() : memref<176x27xf32>
  %f2_d = memref.cast %f2 : memref<176x27xf32> to memref<?x?xf32>
  call @init(%f2_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %x2 = memref.expand_shape %f2 [[0, 1, 2], [3]] output_shape [1, 16, 11, 27] : memref<176x27xf32> into memref<1x16x11x27xf32>
  %g2 = memref.alloc() : memref<80x5xf32>
  %g2_d = memref.cast %g2 : memref<80x5xf32> to memref<?x?xf32>
  call @init(%g2_d, %scale, %true) : (memref<?x?xf32>, f32, i1) -> ()
  %w2 = memref.expand_shape %g2 [[0, 1], [2]] output_shape [16, 5, 5] : memref<80x5xf32> into memref<16x5x5xf32>
  %f3 = memref.alloc() : memref<64x4xf32>
  %f3_d = memref.cast %f3 : memref<64x4xf32> to memref<?x?xf32>
  call @init(%f3_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %x3 = memref.expand_shape %f3 [[0, 1, 2], [3]] output_shape [1, 16, 4, 4] : memref<64x4xf32> into memref<1x16x4x4xf32>
  %f4 = memref.alloc() : memref<48x3xf32>
  %f4_d = memref.cast %f4 : memref<48x3xf32> to memref<?x?xf32>
  call @init(%f4_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %x4 = memref.expand_shape %f4 [[0, 1, 2], [3]] output_shape [1, 16, 3, 3] : memref<48x3xf32> into memref<1x16x3x3xf32>
  // Grouped: [2, 2, 4, 10, 10] and [2, 3, 4, 3, 3] in f32; [1, 2, 2, 34, 34]
  // and [2, 2, 2, 3, 3] in bf16.
  %fg = memref.alloc() : memref<160x10xf32>
  %fg_d = memref.cast %fg : memref<160x10xf32> to memref<?x?xf32>
  call @init(%fg_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %xg = memref.expand_shape %fg [[0, 1, 2, 3], [4]] output_shape [2, 2, 4, 10, 10] : memref<160x10xf32> into memref<2x2x4x10x10xf32>
  %gg = memref.alloc() : memref<72x3xf32>
  %gg_d = memref.cast %gg : memref<72x3xf32> to memref<?x?xf32>
  call @init(%gg_d, %scale, %true) : (memref<?x?xf32>, f32, i1) -> ()
  %wg = memref.expand_shape %gg [[0, 1, 2, 3], [4]] output_shape [2, 3, 4, 3, 3] : memref<72x3xf32> into memref<2x3x4x3x3xf32>
  %fgb = memref.alloc() : memref<136x34xf32>
  %fgb_d = memref.cast %fgb : memref<136x34xf32> to memref<?x?xf32>
  call @init(%fgb_d, %scale, %false) : (memref<?x?xf32>, f32, i1) -> ()
  %fgb_flat = memref.collapse_shape %fgb [[0, 1]] : memref<136x34xf32> into memref<4624xf32>
  %fgb_flat_d = memref.cast %fgb_flat : memref<4624xf32> to memref<?xf32>
  %xgbf = memref.alloc() : memref<4624xbf16>
  %xgbf_d = memref.cast %xgbf : memref<4624xbf16> to memref<?xbf16>
  call @toBF16(%fgb_flat_d, %xgbf_d) : (memref<?xf32>, memref<?xbf16>) -> ()
  %xgb = memref.expand_shape %xgbf [[0, 1, 2, 3, 4]] output_shape [1, 2, 2, 34, 34] : memref<4624xbf16> into memref<1x2x2x34x34xbf16>
  %ggb = memref.alloc() : memref<24x3xf32>
  %ggb_d = memref.cast %ggb : memref<24x3xf32> to memref<?x?xf32>
  call @init(%ggb_d, %scale, %true) : (memref<?x?xf32>, f32, i1) -> ()
  %ggb_flat = memref.collapse_shape %ggb [[0, 1]] : memref<24x3xf32> into memref<72xf32>
  %ggb_flat_d = memref.cast %ggb_flat : memref<72xf32> to memref<?xf32>
  %wgbf = memref.alloc() : memref<72xbf16>
  %wgbf_d = memref.cast %wgbf : memref<72xbf16> to memref<?xbf16>
  call @toBF16(%ggb_flat_d, %wgbf_d) : (memref<?xf32>, memref<?xbf16>) -> ()
  %wgb = memref.expand_shape %wgbf [[0, 1, 2, 3, 4]] output_shape [2, 2, 2, 3, 3] : memref<72xbf16> into memref<2x2x2x3x3xbf16>
  // Outputs, zero.
  %o1 = memref.alloc() : memref<2048xf32>
  %ob = memref.alloc() : memref<16384xf32>
  %o2 = memref.alloc() : memref<768xf32>
  %o3 = memref.alloc() : memref<64xf32>
  %o4 = memref.alloc() : memref<16xf32>
  %og = memref.alloc() : memref<768xf32>
  %ogb = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%zero : f32) outs(%o1 : memref<2048xf32>)
  linalg.fill ins(%zero : f32) outs(%ob : memref<16384xf32>)
  linalg.fill ins(%zero : f32) outs(%o2 : memref<768xf32>)
  linalg.fill ins(%zero : f32) outs(%o3 : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%o4 : memref<16xf32>)
  linalg.fill ins(%zero : f32) outs(%og : memref<768xf32>)
  linalg.fill ins(%zero : f32) outs(%ogb : memref<1024xf32>)
  %y1 = memref.expand_shape %o1 [[0, 1, 2, 3]] output_shape [2, 16, 8, 8] : memref<2048xf32> into memref<2x16x8x8xf32>
  %yb = memref.expand_shape %ob [[0, 1, 2, 3]] output_shape [2, 32, 16, 16] : memref<16384xf32> into memref<2x32x16x16xf32>
  %y2 = memref.expand_shape %o2 [[0, 1, 2, 3]] output_shape [1, 16, 4, 12] : memref<768xf32> into memref<1x16x4x12xf32>
  %y3 = memref.expand_shape %o3 [[0, 1, 2, 3]] output_shape [1, 16, 2, 2] : memref<64xf32> into memref<1x16x2x2xf32>
  %y4 = memref.expand_shape %o4 [[0, 1, 2, 3]] output_shape [1, 16, 1, 1] : memref<16xf32> into memref<1x16x1x1xf32>
  %yg = memref.expand_shape %og [[0, 1, 2, 3, 4]] output_shape [2, 2, 3, 8, 8] : memref<768xf32> into memref<2x2x3x8x8xf32>
  %ygb = memref.expand_shape %ogb [[0, 1, 2, 3, 4]] output_shape [1, 2, 2, 16, 16] : memref<1024xf32> into memref<1x2x2x16x16xf32>
  call @kernels(%x1, %w1, %y1, %xb, %wb, %yb, %x2, %w2, %y2, %x3, %y3, %x4, %y4,
                %xg, %wg, %yg, %xgb, %wgb, %ygb)
    : (memref<2x16x10x10xf32>, memref<16x3x3xf32>, memref<2x16x8x8xf32>,
       memref<2x32x34x34xbf16>, memref<32x3x3xbf16>, memref<2x32x16x16xf32>,
       memref<1x16x11x27xf32>, memref<16x5x5xf32>, memref<1x16x4x12xf32>,
       memref<1x16x4x4xf32>, memref<1x16x2x2xf32>,
       memref<1x16x3x3xf32>, memref<1x16x1x1xf32>,
       memref<2x2x4x10x10xf32>, memref<2x3x4x3x3xf32>, memref<2x2x3x8x8xf32>,
       memref<1x2x2x34x34xbf16>, memref<2x2x2x3x3xbf16>, memref<1x2x2x16x16xf32>) -> ()
  %o1_d = memref.cast %o1 : memref<2048xf32> to memref<?xf32>
  %ob_d = memref.cast %ob : memref<16384xf32> to memref<?xf32>
  %o2_d = memref.cast %o2 : memref<768xf32> to memref<?xf32>
  %o3_d = memref.cast %o3 : memref<64xf32> to memref<?xf32>
  %o4_d = memref.cast %o4 : memref<16xf32> to memref<?xf32>
  %og_d = memref.cast %og : memref<768xf32> to memref<?xf32>
  %ogb_d = memref.cast %ogb : memref<1024xf32> to memref<?xf32>
  call @print(%o1_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%ob_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o2_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o3_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o4_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%og_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%ogb_d, %exact) : (memref<?xf32>, i1) -> ()
  memref.dealloc %f1 : memref<320x10xf32>
  memref.dealloc %g1 : memref<48x3xf32>
  memref.dealloc %fb : memref<2176x34xf32>
  memref.dealloc %xbf : memref<73984xbf16>
  memref.dealloc %gb : memref<96x3xf32>
  memref.dealloc %wbf : memref<288xbf16>
  memref.dealloc %f2 : memref<176x27xf32>
  memref.dealloc %g2 : memref<80x5xf32>
  memref.dealloc %f3 : memref<64x4xf32>
  memref.dealloc %o1 : memref<2048xf32>
  memref.dealloc %ob : memref<16384xf32>
  memref.dealloc %o2 : memref<768xf32>
  memref.dealloc %o3 : memref<64xf32>
  memref.dealloc %f4 : memref<48x3xf32>
  memref.dealloc %o4 : memref<16xf32>
  memref.dealloc %fg : memref<160x10xf32>
  memref.dealloc %gg : memref<72x3xf32>
  memref.dealloc %fgb : memref<136x34xf32>
  memref.dealloc %xgbf : memref<4624xbf16>
  memref.dealloc %ggb : memref<24x3xf32>
  memref.dealloc %wgbf : memref<72xbf16>
  memref.dealloc %og : memref<768xf32>
  memref.dealloc %ogb : memref<1024xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: [9,  18,  27,  36,  45,  54,  63,  72,  9,
// CHECK: data =
// CHECK-NEXT: [9,  27,  45,  63,  81,  99,  117,  135,  153,  171,  189,  207,  225,  243,  261,  279,  9,
// CHECK: data =
// CHECK-NEXT: [50,  100,  150,  200,  250,  300,  350,  400,  450,  500,  550,  600,  50,
// CHECK: data =
// CHECK-NEXT: [9,  18,  9,  18,
// CHECK: data =
// CHECK-NEXT: [9,  9,  9,
// CHECK: data =
// CHECK-NEXT: [36,  72,  108,  144,  180,  216,  252,  288,  36,
// CHECK: data =
// CHECK-NEXT: [18,  54,  90,  126,  162,  198,  234,  270,  306,  342,  378,  414,  450,  486,  522,  558,  18,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
