// Per-channel reductions over small maps under --mpt-vectorize-cpu-loops
// (BatchNorm's sums and a depthwise convolution's weight gradient on 2x2 to
// 8x8 maps, as in EfficientNet's and MobileNet's later stages): when the
// innermost reduction range is 4 or 8 (not a multiple of 16) and divides
// the channels, the row reduction runs on square tiles of that side, 4 or
// 8 channels at a time, one lane per channel, each tile transposed by
// shuffles and its columns added in order; they were ordered reductions
// (a chain of 4 to 8 dependent adds per row). Each channel still adds its
// terms in the scalar loops' order, so the results must be the loops' bit
// for bit, on one thread and on two: the inputs are sines and the runs must
// print the same bit patterns (`diff`, no tolerance). Cases: [N, C, 2, 4]
// contiguous (H and W collapse to 8), [N, C, 2, 2] (4), [N, C, 4, 4] read
// through a strided view (the channel loop moves inside, W = 4), a bf16
// body rounding its products on [N, C, 4, 8] strided (W = 8), and W = 2,
// which stays an ordered reduction.
//
// The exact case (CHECK lines): x = 2^-(w' mod 8) for the column w' of the
// buffer each view reads, so a channel's sums are 2 * (2 - 2^-7) =
// 3.98438, 2 * 1.875 = 3.75, 8 * 1.875 = 15, 8 * (1 - 4^-8) / (1 - 1/4) =
// 10.6665 (the squares, exact in bf16) and 4 * 1.5 = 6.
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
// RUN:   | sed -n '/func.func @kernels/,/func.func @printBits/p' > %t.ir
// RUN: FileCheck %s --check-prefix=IR < %t.ir

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// Four row reductions on 8x8 and 4x4 tiles (their adds on vector<8xf32>
// and vector<4xf32>), then W = 2's ordered reduction, the only one.
// IR-LABEL: func.func @kernels
// IR-NOT: linalg.
// IR-NOT: vector.reduction
// IR: arith.addf {{.*}} : vector<8xf32>
// IR-NOT: vector.reduction
// IR: arith.addf {{.*}} : vector<4xf32>
// IR-NOT: vector.reduction
// IR: arith.addf {{.*}} : vector<4xf32>
// IR-NOT: vector.reduction
// IR: arith.addf {{.*}} : vector<8xf32>
// IR: vector.reduction <add>, {{.*}} : vector<2xf32>
// IR-NOT: vector.reduction
// IR-NOT: linalg.
func.func @kernels(%a: memref<2x32x2x4xf32>, %b: memref<2x32x2x2xf32>,
                   %c: memref<2x32x4x4xf32, strided<[1024, 32, 8, 1]>>,
                   %d: memref<2x32x4x8xbf16, strided<[2048, 64, 16, 1]>>,
                   %e: memref<2x32x2x2xf32, strided<[256, 8, 4, 1]>>,
                   %sa: memref<32xf32>, %sb: memref<32xf32>, %sc: memref<32xf32>,
                   %sd: memref<32xf32>, %se: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sa : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%a : memref<2x32x2x4xf32>) outs(%sa : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%sb : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%b : memref<2x32x2x2xf32>) outs(%sb : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%sc : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%c : memref<2x32x4x4xf32, strided<[1024, 32, 8, 1]>>) outs(%sc : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  // A depthwise weight gradient's body under bf16 autocast: the product
  // rounded to bf16, summed in f32.
  linalg.fill ins(%zero : f32) outs(%sd : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%d, %d : memref<2x32x4x8xbf16, strided<[2048, 64, 16, 1]>>, memref<2x32x4x8xbf16, strided<[2048, 64, 16, 1]>>)
    outs(%sd : memref<32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %ex = arith.extf %x : bf16 to f32
    %ey = arith.extf %y : bf16 to f32
    %m = arith.mulf %ex, %ey : f32
    %r = arith.truncf %m : f32 to bf16
    %er = arith.extf %r : bf16 to f32
    %s = arith.addf %er, %o : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%se : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%e : memref<2x32x2x2xf32, strided<[256, 8, 4, 1]>>) outs(%se : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
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
  ^bb0(%v: f32, %o: i32):
    %i = arith.bitcast %v : f32 to i32
    linalg.yield %i : i32
  }
  %u = memref.cast %bits : memref<?xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %bits : memref<?xi32>
  return
}

// m[i, j] = sin((i * cols + j + 1) * scale), or 2^-(j mod 8) when scale is
// 0 (the exact case).
func.func @init(%m: memref<?x?xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %k0 = arith.muli %i, %cols : index
      %k1 = arith.addi %k0, %j : index
      %k2 = arith.addi %k1, %c1 : index
      %ki = arith.index_cast %k2 : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      %sn = math.sin %kf : f32
      %v = arith.mulf %sn, %scale : f32
      %p = arith.andi %j, %c7 : index
      %pi = arith.index_cast %p : index to i32
      %pw = math.fpowi %half, %pi : f32, i32
      %x = arith.select %exact, %pw, %v : f32
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @print(%m: memref<32xf32>, %exact: i1) {
  %u = memref.cast %m : memref<32xf32> to memref<*xf32>
  scf.if %exact {
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  } else {
    func.call @printBits(%u) : (memref<*xf32>) -> ()
  }
  return
}

func.func @run(%scale: f32) {
  %fa = memref.alloc() : memref<64x8xf32>
  %fa_d = memref.cast %fa : memref<64x8xf32> to memref<?x?xf32>
  call @init(%fa_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %a = memref.expand_shape %fa [[0, 1], [2, 3]] output_shape [2, 32, 2, 4] : memref<64x8xf32> into memref<2x32x2x4xf32>
  %fb = memref.alloc() : memref<64x4xf32>
  %fb_d = memref.cast %fb : memref<64x4xf32> to memref<?x?xf32>
  call @init(%fb_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %b = memref.expand_shape %fb [[0, 1], [2, 3]] output_shape [2, 32, 2, 2] : memref<64x4xf32> into memref<2x32x2x2xf32>
  %fc = memref.alloc() : memref<256x8xf32>
  %fc_d = memref.cast %fc : memref<256x8xf32> to memref<?x?xf32>
  call @init(%fc_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %c4 = memref.expand_shape %fc [[0, 1, 2], [3]] output_shape [2, 32, 4, 8] : memref<256x8xf32> into memref<2x32x4x8xf32>
  %c = memref.subview %c4[0, 0, 0, 0] [2, 32, 4, 4] [1, 1, 1, 1] : memref<2x32x4x8xf32> to memref<2x32x4x4xf32, strided<[1024, 32, 8, 1]>>
  %fd = memref.alloc() : memref<256x16xf32>
  %fd_d = memref.cast %fd : memref<256x16xf32> to memref<?x?xf32>
  call @init(%fd_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %db = memref.alloc() : memref<256x16xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%fd : memref<256x16xf32>) outs(%db : memref<256x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }
  %d4 = memref.expand_shape %db [[0, 1, 2], [3]] output_shape [2, 32, 4, 16] : memref<256x16xbf16> into memref<2x32x4x16xbf16>
  %d = memref.subview %d4[0, 0, 0, 0] [2, 32, 4, 8] [1, 1, 1, 1] : memref<2x32x4x16xbf16> to memref<2x32x4x8xbf16, strided<[2048, 64, 16, 1]>>
  %fe = memref.alloc() : memref<128x4xf32>
  %fe_d = memref.cast %fe : memref<128x4xf32> to memref<?x?xf32>
  call @init(%fe_d, %scale) : (memref<?x?xf32>, f32) -> ()
  %e4 = memref.expand_shape %fe [[0, 1, 2], [3]] output_shape [2, 32, 2, 4] : memref<128x4xf32> into memref<2x32x2x4xf32>
  %e = memref.subview %e4[0, 0, 0, 0] [2, 32, 2, 2] [1, 1, 1, 1] : memref<2x32x2x4xf32> to memref<2x32x2x2xf32, strided<[256, 8, 4, 1]>>
  %sa = memref.alloc() : memref<32xf32>
  %sb = memref.alloc() : memref<32xf32>
  %sc = memref.alloc() : memref<32xf32>
  %sd = memref.alloc() : memref<32xf32>
  %se = memref.alloc() : memref<32xf32>
  call @kernels(%a, %b, %c, %d, %e, %sa, %sb, %sc, %sd, %se)
    : (memref<2x32x2x4xf32>, memref<2x32x2x2xf32>,
       memref<2x32x4x4xf32, strided<[1024, 32, 8, 1]>>,
       memref<2x32x4x8xbf16, strided<[2048, 64, 16, 1]>>,
       memref<2x32x2x2xf32, strided<[256, 8, 4, 1]>>,
       memref<32xf32>, memref<32xf32>, memref<32xf32>, memref<32xf32>, memref<32xf32>) -> ()
  %zero = arith.constant 0.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  call @print(%sa, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%sb, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%sc, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%sd, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%se, %exact) : (memref<32xf32>, i1) -> ()
  memref.dealloc %fa : memref<64x8xf32>
  memref.dealloc %fb : memref<64x4xf32>
  memref.dealloc %fc : memref<256x8xf32>
  memref.dealloc %fd : memref<256x16xf32>
  memref.dealloc %db : memref<256x16xbf16>
  memref.dealloc %fe : memref<128x4xf32>
  memref.dealloc %sa : memref<32xf32>
  memref.dealloc %sb : memref<32xf32>
  memref.dealloc %sc : memref<32xf32>
  memref.dealloc %sd : memref<32xf32>
  memref.dealloc %se : memref<32xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: [3.98438,  3.98438,
// CHECK: data =
// CHECK-NEXT: [3.75,  3.75,
// CHECK: data =
// CHECK-NEXT: [15,  15,
// CHECK: data =
// CHECK-NEXT: [10.6665,  10.6665,
// CHECK: data =
// CHECK-NEXT: [6,  6,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
