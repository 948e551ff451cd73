// Ops with unit loops under --mpt-vectorize-cpu-loops: their unit loops are
// dropped (upstream dropUnitDims, rank-reducing subviews) before they are
// tiled. A batch of dot products (linalg.batch_matmul B x 1 x 1 x K: a
// depthwise convolution's filter gradient as imported, one per tap) is then
// a row reduction, 16 batch elements at a time, one lane per element, each
// 16x16 tile transposed by shuffles and its columns added in order (the
// kernels, which would pad every element to a 14x32 register block with one
// call per element, leave it here: the AVX512 RUN line); an elementwise op
// on [N, C, 1, 1] (an SE block's scales) vectorizes along C instead of
// staying scalar loops along its unit W; a transpose that moves unit
// dimensions is a copy along its one non-unit loop.
//
// Each output still adds its terms in the scalar loops' order, so the
// results must be the scalar loops' bit for bit, on one thread and on two:
// the inputs are sines (inexact: a change of summation order shows in the
// last bits) and the runs must print the same bit patterns (`diff`, no
// tolerance). The exact case (CHECK lines) makes the test fail even if all
// paths went wrong alike: x[b, k] = 2^-(k mod 8) over the 48 columns k of
// each row, so a dot of a row with itself is 6 * (1 + 1/4 + ... + 2^-14)
// = 7.99987793 (f32 and bf16: the powers of two are exact in both).
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
// RUN: grep -c vector.shuffle %t.ir | FileCheck %s --check-prefix=SHUFFLES
// RUN: mpt-opt %s --mpt-matmul-to-cpu-kernels="amx=0 avx512=1 avx512-bf16=1 report=-" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// AVX512: CPU kernels (no amx, avx512, avx512bf16): 0 of 2 contractions lowered
// AVX512: linalg.batch_matmul 32x1x1x48 f32 x f32 -> f32: left as is: a dot product per output element (M = N = 1)
// AVX512: linalg.batch_matmul 32x1x1x48 bf16 x bf16 -> f32: left as is: a dot product per output element (M = N = 1)

// Every op is vectorized: the two dots are row reductions (two 16x16 tiles
// of 64 shuffles per 16 rows), the scale and the transpose 16 lanes wide.
// IR-LABEL: func.func @kernels
// IR-NOT: linalg.
// IR-NOT: vector.reduction
// IR: vector.transfer_read {{.*}} vector<16xf32>
// IR-NOT: linalg.
// IR-NOT: vector.reduction
// SHUFFLES: 128
func.func @kernels(%a: memref<32x1x48xf32>, %b: memref<32x48x1xf32>,
                   %ab: memref<32x1x48xbf16>, %bb: memref<32x48x1xbf16>,
                   %dot: memref<32x1x1xf32>, %dotb: memref<32x1x1xf32>,
                   %x: memref<2x32x1x1xf32>, %s: memref<2x32x1x1xf32>,
                   %xs: memref<2x32x1x1xf32>, %t: memref<32x2x1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dot : memref<32x1x1xf32>)
  linalg.batch_matmul ins(%a, %b : memref<32x1x48xf32>, memref<32x48x1xf32>)
                      outs(%dot : memref<32x1x1xf32>)
  linalg.fill ins(%zero : f32) outs(%dotb : memref<32x1x1xf32>)
  linalg.batch_matmul ins(%ab, %bb : memref<32x1x48xbf16>, memref<32x48x1xbf16>)
                      outs(%dotb : memref<32x1x1xf32>)
  linalg.mul ins(%x, %s : memref<2x32x1x1xf32>, memref<2x32x1x1xf32>)
             outs(%xs : memref<2x32x1x1xf32>)
  linalg.transpose ins(%xs : memref<2x32x1x1xf32>) outs(%t : memref<32x2x1x1xf32>)
                   permutation = [1, 0, 3, 2]
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

// x[i, j] = sin((i * 48 + j + 1) * scale), or 2^-(j mod 8) when scale is 0
// (the exact case).
func.func @init(%m: memref<32x48xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  scf.for %i = %c0 to %c32 step %c1 {
    scf.for %j = %c0 to %c48 step %c1 {
      %k0 = arith.muli %i, %c48 : index
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
      memref.store %x, %m[%i, %j] : memref<32x48xf32>
    }
  }
  return
}

func.func @print(%m: memref<*xf32>, %exact: i1) {
  scf.if %exact {
    func.call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  } else {
    func.call @printBits(%m) : (memref<*xf32>) -> ()
  }
  return
}

func.func @run(%scale: f32) {
  %flat = memref.alloc() : memref<32x48xf32>
  call @init(%flat, %scale) : (memref<32x48xf32>, f32) -> ()
  %a = memref.expand_shape %flat [[0, 1], [2]] output_shape [32, 1, 48] : memref<32x48xf32> into memref<32x1x48xf32>
  %b = memref.expand_shape %flat [[0], [1, 2]] output_shape [32, 48, 1] : memref<32x48xf32> into memref<32x48x1xf32>
  %flatb = memref.alloc() : memref<32x48xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%flat : memref<32x48xf32>) outs(%flatb : memref<32x48xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  }
  %ab = memref.expand_shape %flatb [[0, 1], [2]] output_shape [32, 1, 48] : memref<32x48xbf16> into memref<32x1x48xbf16>
  %bb = memref.expand_shape %flatb [[0], [1, 2]] output_shape [32, 48, 1] : memref<32x48xbf16> into memref<32x48x1xbf16>
  // x and s: the first two columns of the rows (64 values each).
  %x2 = memref.subview %flat[0, 0] [32, 2] [1, 1] : memref<32x48xf32> to memref<32x2xf32, strided<[48, 1]>>
  %s2 = memref.subview %flat[0, 2] [32, 2] [1, 1] : memref<32x48xf32> to memref<32x2xf32, strided<[48, 1], offset: 2>>
  %x = memref.alloc() : memref<2x32x1x1xf32>
  %s = memref.alloc() : memref<2x32x1x1xf32>
  %xc = memref.collapse_shape %x [[0], [1, 2, 3]] : memref<2x32x1x1xf32> into memref<2x32xf32>
  %sc = memref.collapse_shape %s [[0], [1, 2, 3]] : memref<2x32x1x1xf32> into memref<2x32xf32>
  linalg.transpose ins(%x2 : memref<32x2xf32, strided<[48, 1]>>) outs(%xc : memref<2x32xf32>) permutation = [1, 0]
  linalg.transpose ins(%s2 : memref<32x2xf32, strided<[48, 1], offset: 2>>) outs(%sc : memref<2x32xf32>) permutation = [1, 0]
  %dot = memref.alloc() : memref<32x1x1xf32>
  %dotb = memref.alloc() : memref<32x1x1xf32>
  %xs = memref.alloc() : memref<2x32x1x1xf32>
  %t = memref.alloc() : memref<32x2x1x1xf32>
  call @kernels(%a, %b, %ab, %bb, %dot, %dotb, %x, %s, %xs, %t)
    : (memref<32x1x48xf32>, memref<32x48x1xf32>, memref<32x1x48xbf16>,
       memref<32x48x1xbf16>, memref<32x1x1xf32>, memref<32x1x1xf32>,
       memref<2x32x1x1xf32>, memref<2x32x1x1xf32>, memref<2x32x1x1xf32>,
       memref<32x2x1x1xf32>) -> ()
  %zero = arith.constant 0.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  %f0 = memref.collapse_shape %dot [[0, 1, 2]] : memref<32x1x1xf32> into memref<32xf32>
  %f1 = memref.collapse_shape %dotb [[0, 1, 2]] : memref<32x1x1xf32> into memref<32xf32>
  %f2 = memref.collapse_shape %xs [[0, 1, 2, 3]] : memref<2x32x1x1xf32> into memref<64xf32>
  %f3 = memref.collapse_shape %t [[0, 1, 2, 3]] : memref<32x2x1x1xf32> into memref<64xf32>
  %u0 = memref.cast %f0 : memref<32xf32> to memref<*xf32>
  %u1 = memref.cast %f1 : memref<32xf32> to memref<*xf32>
  %u2 = memref.cast %f2 : memref<64xf32> to memref<*xf32>
  %u3 = memref.cast %f3 : memref<64xf32> to memref<*xf32>
  call @print(%u0, %exact) : (memref<*xf32>, i1) -> ()
  call @print(%u1, %exact) : (memref<*xf32>, i1) -> ()
  call @print(%u2, %exact) : (memref<*xf32>, i1) -> ()
  call @print(%u3, %exact) : (memref<*xf32>, i1) -> ()
  memref.dealloc %flat : memref<32x48xf32>
  memref.dealloc %flatb : memref<32x48xbf16>
  memref.dealloc %x : memref<2x32x1x1xf32>
  memref.dealloc %s : memref<2x32x1x1xf32>
  memref.dealloc %dot : memref<32x1x1xf32>
  memref.dealloc %dotb : memref<32x1x1xf32>
  memref.dealloc %xs : memref<2x32x1x1xf32>
  memref.dealloc %t : memref<32x2x1x1xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: [7.99988,  7.99988,
// CHECK: data =
// CHECK-NEXT: [7.99988,  7.99988,
// x * s = 2^-0 * 2^-2 (the first row's columns 0 and 2), then 2^-1 * 2^-3,
// and the transpose of those [2, 32] products, row by row.
// CHECK: data =
// CHECK-NEXT: [0.25,  0.25,
// CHECK: data =
// CHECK-NEXT: [0.25,  0.0625,  0.25,  0.0625,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
