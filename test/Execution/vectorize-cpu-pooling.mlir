// Max pooling (linalg.pooling_nchw_max) under --mpt-vectorize-cpu-loops:
// 16 outputs along OW at a time (8 or 4 when OW is not a multiple of 16),
// one vector per window tap combined into them in the window's order, as the
// scalar loops combine each output's taps; a tap with stride 2 is one load
// of a contiguous run (masked where the last run reaches past the row) read
// as elements of twice the width, whose low halves are the taps; bf16 is
// compared in f32, widened and narrowed as bits. Max is exact
// and the order is the loops' order, so the results must be the loops' bit
// for bit, on one thread and on two (`diff` of the printed bit patterns, no
// tolerance; the inputs are sines). Cases: ResNet's stem pooling in bf16
// (3x3, stride 2, a padded 34x34 input, OW = 16), with the plain body and
// with the body autocast gives it (max in f32), stride 1 in f32 (OW = 8),
// and stride 2 with OW = 12 (vectors of 4) whose last runs reach past the
// row (the mask). A 2x2 window with OW = 19 stays loops (no vector width
// divides 19).
//
// The exact case (CHECK lines) makes the test fail even if all paths went
// wrong alike: x[n, c, h, w] = w, so the max of a window is its last
// column: 2 * ow + 2 for the stride-2 3x3 windows, ow + 2 at stride 1.
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

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// IR-LABEL: func.func @kernels
// IR-NOT: linalg.pooling
// IR: vector.load {{.*}} vector<32xbf16>
// IR: vector.bitcast {{.*}} vector<32xbf16> to vector<16xi32>
// IR: arith.shli
// IR: arith.maximumf {{.*}} : vector<16xf32>
// IR: arith.shrui
// IR: vector.store {{.*}} vector<16xbf16>
// IR: arith.maximumf {{.*}} : vector<16xf32>
// IR: vector.store {{.*}} vector<16xbf16>
// IR: vector.load {{.*}} vector<8xf32>
// IR: arith.maximumf {{.*}} : vector<8xf32>
// IR: vector.maskedload {{.*}} vector<8xf32>
// IR: arith.trunci {{.*}} vector<4xi64> to vector<4xi32>
// IR: arith.maximumf {{.*}} : vector<4xf32>
// IR: linalg.pooling_nchw_max
// IR-LABEL: func.func @printBits
func.func @kernels(%xb: memref<2x32x34x34xbf16>, %yb: memref<2x32x16x16xbf16>,
                   %yb2: memref<2x32x16x16xbf16>,
                   %x1: memref<2x16x10x10xf32>, %y1: memref<2x16x8x8xf32>,
                   %x2: memref<1x16x9x25xf32>, %y2: memref<1x16x4x12xf32>,
                   %x3: memref<1x16x2x20xf32>, %y3: memref<1x16x1x19xf32>) {
  %w3 = memref.alloc() : memref<3x3xf32>
  %w3b = memref.alloc() : memref<3x3xbf16>
  %w2 = memref.alloc() : memref<2x2xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%xb, %w3b : memref<2x32x34x34xbf16>, memref<3x3xbf16>) outs(%yb : memref<2x32x16x16xbf16>)
  // The same with the body autocast gives it: the max in f32 of the widened
  // values, narrowed back (generic form: the custom one prints no body).
  "linalg.pooling_nchw_max"(%xb, %w3b, %yb2) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : vector<2xi64>}> ({
  ^bb0(%in: bf16, %win: bf16, %out: bf16):
    %eo = arith.extf %out : bf16 to f32
    %ei = arith.extf %in : bf16 to f32
    %m = arith.maximumf %eo, %ei : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  }) : (memref<2x32x34x34xbf16>, memref<3x3xbf16>, memref<2x32x16x16xbf16>) -> ()
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x1, %w3 : memref<2x16x10x10xf32>, memref<3x3xf32>) outs(%y1 : memref<2x16x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x2, %w3 : memref<1x16x9x25xf32>, memref<3x3xf32>) outs(%y2 : memref<1x16x4x12xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x3, %w2 : memref<1x16x2x20xf32>, memref<2x2xf32>) outs(%y3 : memref<1x16x1x19xf32>)
  memref.dealloc %w3 : memref<3x3xf32>
  memref.dealloc %w3b : memref<3x3xbf16>
  memref.dealloc %w2 : memref<2x2xf32>
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

// m[i, j] = sin((i * cols + j + 1) * scale), or j when scale is 0 (the
// exact case; j is the column, w, of every 4-d view below).
func.func @init(%m: memref<?x?xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
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
      %x = arith.select %exact, %jf, %v : f32
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// Fills an output with -inf (the pooling's init).
func.func @ninf(%m: memref<?xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%m : memref<?xf32>)
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

func.func @widen(%y: memref<2x32x16x16xbf16>, %o: memref<16384xf32>) {
  %yf = memref.collapse_shape %y [[0, 1, 2, 3]] : memref<2x32x16x16xbf16> into memref<16384xbf16>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
    ins(%yf : memref<16384xbf16>) outs(%o : memref<16384xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %e = arith.extf %a : bf16 to f32
    linalg.yield %e : f32
  }
  return
}

func.func @run(%scale: f32) {
  %zero = arith.constant 0.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  // Inputs as [rows, W] buffers, viewed as [N, C, H, W].
  %fb = memref.alloc() : memref<2176x34xf32>
  %fb_d = memref.cast %fb : memref<2176x34xf32> to memref<?x?xf32>
  call @init(%fb_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %xf = memref.expand_shape %fb [[0, 1, 2], [3]] output_shape [2, 32, 34, 34] : memref<2176x34xf32> into memref<2x32x34x34xf32>
  %xb = memref.alloc() : memref<2x32x34x34xbf16>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%xf : memref<2x32x34x34xf32>) outs(%xb : memref<2x32x34x34xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  }
  %f1 = memref.alloc() : memref<320x10xf32>
  %f1_d = memref.cast %f1 : memref<320x10xf32> to memref<?x?xf32>
  call @init(%f1_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %x1 = memref.expand_shape %f1 [[0, 1, 2], [3]] output_shape [2, 16, 10, 10] : memref<320x10xf32> into memref<2x16x10x10xf32>
  %f2 = memref.alloc() : memref<144x25xf32>
  %f2_d = memref.cast %f2 : memref<144x25xf32> to memref<?x?xf32>
  call @init(%f2_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %x2 = memref.expand_shape %f2 [[0, 1, 2], [3]] output_shape [1, 16, 9, 25] : memref<144x25xf32> into memref<1x16x9x25xf32>
  %f3 = memref.alloc() : memref<32x20xf32>
  %f3_d = memref.cast %f3 : memref<32x20xf32> to memref<?x?xf32>
  call @init(%f3_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %x3 = memref.expand_shape %f3 [[0, 1, 2], [3]] output_shape [1, 16, 2, 20] : memref<32x20xf32> into memref<1x16x2x20xf32>
  // Outputs, filled with -inf.
  %yb = memref.alloc() : memref<2x32x16x16xbf16>
  %yb2 = memref.alloc() : memref<2x32x16x16xbf16>
  %ninf_b = arith.constant 0xFF80 : bf16
  linalg.fill ins(%ninf_b : bf16) outs(%yb : memref<2x32x16x16xbf16>)
  linalg.fill ins(%ninf_b : bf16) outs(%yb2 : memref<2x32x16x16xbf16>)
  %o1 = memref.alloc() : memref<2048xf32>
  %o2 = memref.alloc() : memref<768xf32>
  %o3 = memref.alloc() : memref<304xf32>
  %o1_d = memref.cast %o1 : memref<2048xf32> to memref<?xf32>
  %o2_d = memref.cast %o2 : memref<768xf32> to memref<?xf32>
  %o3_d = memref.cast %o3 : memref<304xf32> to memref<?xf32>
  call @ninf(%o1_d) : (memref<?xf32>) -> ()
  call @ninf(%o2_d) : (memref<?xf32>) -> ()
  call @ninf(%o3_d) : (memref<?xf32>) -> ()
  %y1 = memref.expand_shape %o1 [[0, 1, 2, 3]] output_shape [2, 16, 8, 8] : memref<2048xf32> into memref<2x16x8x8xf32>
  %y2 = memref.expand_shape %o2 [[0, 1, 2, 3]] output_shape [1, 16, 4, 12] : memref<768xf32> into memref<1x16x4x12xf32>
  %y3 = memref.expand_shape %o3 [[0, 1, 2, 3]] output_shape [1, 16, 1, 19] : memref<304xf32> into memref<1x16x1x19xf32>
  call @kernels(%xb, %yb, %yb2, %x1, %y1, %x2, %y2, %x3, %y3)
    : (memref<2x32x34x34xbf16>, memref<2x32x16x16xbf16>, memref<2x32x16x16xbf16>, memref<2x16x10x10xf32>, memref<2x16x8x8xf32>,
       memref<1x16x9x25xf32>, memref<1x16x4x12xf32>, memref<1x16x2x20xf32>, memref<1x16x1x19xf32>) -> ()
  %ob = memref.alloc() : memref<16384xf32>
  %ob_d = memref.cast %ob : memref<16384xf32> to memref<?xf32>
  call @widen(%yb, %ob) : (memref<2x32x16x16xbf16>, memref<16384xf32>) -> ()
  call @print(%ob_d, %exact) : (memref<?xf32>, i1) -> ()
  call @widen(%yb2, %ob) : (memref<2x32x16x16xbf16>, memref<16384xf32>) -> ()
  call @print(%ob_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o1_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o2_d, %exact) : (memref<?xf32>, i1) -> ()
  call @print(%o3_d, %exact) : (memref<?xf32>, i1) -> ()
  memref.dealloc %fb : memref<2176x34xf32>
  memref.dealloc %xb : memref<2x32x34x34xbf16>
  memref.dealloc %f1 : memref<320x10xf32>
  memref.dealloc %f2 : memref<144x25xf32>
  memref.dealloc %f3 : memref<32x20xf32>
  memref.dealloc %yb : memref<2x32x16x16xbf16>
  memref.dealloc %yb2 : memref<2x32x16x16xbf16>
  memref.dealloc %o1 : memref<2048xf32>
  memref.dealloc %o2 : memref<768xf32>
  memref.dealloc %o3 : memref<304xf32>
  memref.dealloc %ob : memref<16384xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: [2,  4,  6,  8,  10,  12,  14,  16,  18,  20,  22,  24,  26,  28,  30,  32,  2,
// CHECK: data =
// CHECK-NEXT: [2,  4,  6,  8,  10,  12,  14,  16,  18,  20,  22,  24,  26,  28,  30,  32,  2,
// CHECK: data =
// CHECK-NEXT: [2,  3,  4,  5,  6,  7,  8,  9,  2,
// CHECK: data =
// CHECK-NEXT: [2,  4,  6,  8,  10,  12,  14,  16,  18,  20,  22,  24,  2,
// CHECK: data =
// CHECK-NEXT: [1,  2,  3,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
