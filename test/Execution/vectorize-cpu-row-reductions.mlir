// Row reductions under --mpt-vectorize-cpu-loops: an op that reduces along
// its innermost loop over rows that its next loop indexes (both ranges
// multiples of 16) runs 16 rows at a time, one lane per row: a 16x16 tile
// is transposed by shuffles and its columns are added to the accumulator in
// order. Each row is summed in the scalar loops' order, so the results must
// be the scalar loops' bit for bit; the inputs are sines (inexact: a change
// of summation order shows in the last bits) and the two runs must print the
// same bit patterns (`diff`, no tolerance). Also a reduction over the outer
// loops with a contraction-like body (two inputs multiplied; a LayerNorm
// weight gradient), one lane per column.
//
// The exact case (CHECK lines) makes the test fail even if both paths went
// wrong alike: x[i, j] = 2^-(j mod 8) (the bf16 copy is exact too), so each
// row of 48 sums to 6 * (2 - 2^-7) = 11.953125, its squares to
// 6 * (4 - 4^-7) / 3 = 7.9998779296875 and its max is 1; each column sum of
// x * x over the 2 x 32 rows is 64 * 4^-(j mod 8).
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
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=IR

#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (b, i)>
#col3 = affine_map<(b, i, j) -> (j)>

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// IR-LABEL: func.func @kernels
// IR-NOT: linalg.
// IR-NOT: vector.reduction
// IR: vector.shuffle
// IR-LABEL: func.func @printBits
func.func @kernels(%x: memref<2x32x48xf32>, %rsum: memref<2x32xf32>,
                   %rsq: memref<2x32xf32>, %rmax: memref<2x32xf32>,
                   %csum: memref<48xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%rsum : memref<2x32xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%x : memref<2x32x48xf32>) outs(%rsum : memref<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  // A body before the combiner.
  linalg.fill ins(%zero : f32) outs(%rsq : memref<2x32xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%x : memref<2x32x48xf32>) outs(%rsq : memref<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  }
  // A bf16 input, widened in the body.
  %xb = memref.alloc() : memref<2x32x48xbf16>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%x : memref<2x32x48xf32>) outs(%xb : memref<2x32x48xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.fill ins(%ninf : f32) outs(%rmax : memref<2x32xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%xb : memref<2x32x48xbf16>) outs(%rmax : memref<2x32xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.maximumf %o, %e : f32
    linalg.yield %s : f32
  }
  memref.dealloc %xb : memref<2x32x48xbf16>
  // Reduction loops outside, the parallel one innermost.
  linalg.fill ins(%zero : f32) outs(%csum : memref<48xf32>)
  linalg.generic {indexing_maps = [#id3, #id3, #col3], iterator_types = ["reduction", "reduction", "parallel"]}
    ins(%x, %x : memref<2x32x48xf32>, memref<2x32x48xf32>) outs(%csum : memref<48xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %o : f32
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
  ^bb0(%a: f32, %o: i32):
    %b = arith.bitcast %a : f32 to i32
    linalg.yield %b : i32
  }
  %u = memref.cast %bits : memref<?xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %bits : memref<?xi32>
  return
}

// x[b, i, j] = sin(((b * 32 + i) * 48 + j + 1) * scale'), or 2^-(j mod 8)
// when scale is 0 (the exact case).
func.func @init(%m: memref<64x48xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c48 step %c1 {
      %k0 = arith.muli %i, %c48 : index
      %k1 = arith.addi %k0, %j : index
      %k2 = arith.addi %k1, %c1 : index
      %ki = arith.index_cast %k2 : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      %s = math.sin %kf : f32
      %v = arith.mulf %s, %scale : f32
      %p = arith.andi %j, %c7 : index
      %pi = arith.index_cast %p : index to i32
      %pw = math.fpowi %half, %pi : f32, i32
      %x = arith.select %exact, %pw, %v : f32
      memref.store %x, %m[%i, %j] : memref<64x48xf32>
    }
  }
  return
}

func.func @run(%scale: f32) {
  %flat = memref.alloc() : memref<64x48xf32>
  call @init(%flat, %scale) : (memref<64x48xf32>, f32) -> ()
  %x = memref.expand_shape %flat [[0, 1], [2]] output_shape [2, 32, 48] : memref<64x48xf32> into memref<2x32x48xf32>
  %rsum = memref.alloc() : memref<2x32xf32>
  %rsq = memref.alloc() : memref<2x32xf32>
  %rmax = memref.alloc() : memref<2x32xf32>
  %csum = memref.alloc() : memref<48xf32>
  call @kernels(%x, %rsum, %rsq, %rmax, %csum)
    : (memref<2x32x48xf32>, memref<2x32xf32>, memref<2x32xf32>, memref<2x32xf32>, memref<48xf32>) -> ()
  %exact = arith.constant 0.0 : f32
  %isExact = arith.cmpf oeq, %scale, %exact : f32
  scf.if %isExact {
    %1 = memref.cast %rsum : memref<2x32xf32> to memref<*xf32>
    func.call @printMemrefF32(%1) : (memref<*xf32>) -> ()
    %2 = memref.cast %rsq : memref<2x32xf32> to memref<*xf32>
    func.call @printMemrefF32(%2) : (memref<*xf32>) -> ()
    %3 = memref.cast %rmax : memref<2x32xf32> to memref<*xf32>
    func.call @printMemrefF32(%3) : (memref<*xf32>) -> ()
    %4 = memref.cast %csum : memref<48xf32> to memref<*xf32>
    func.call @printMemrefF32(%4) : (memref<*xf32>) -> ()
  } else {
    %1 = memref.collapse_shape %rsum [[0, 1]] : memref<2x32xf32> into memref<64xf32>
    %u1 = memref.cast %1 : memref<64xf32> to memref<*xf32>
    func.call @printBits(%u1) : (memref<*xf32>) -> ()
    %2 = memref.collapse_shape %rsq [[0, 1]] : memref<2x32xf32> into memref<64xf32>
    %u2 = memref.cast %2 : memref<64xf32> to memref<*xf32>
    func.call @printBits(%u2) : (memref<*xf32>) -> ()
    %3 = memref.collapse_shape %rmax [[0, 1]] : memref<2x32xf32> into memref<64xf32>
    %u3 = memref.cast %3 : memref<64xf32> to memref<*xf32>
    func.call @printBits(%u3) : (memref<*xf32>) -> ()
    %4 = memref.cast %csum : memref<48xf32> to memref<*xf32>
    func.call @printBits(%4) : (memref<*xf32>) -> ()
  }
  memref.dealloc %flat : memref<64x48xf32>
  memref.dealloc %rsum : memref<2x32xf32>
  memref.dealloc %rsq : memref<2x32xf32>
  memref.dealloc %rmax : memref<2x32xf32>
  memref.dealloc %csum : memref<48xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: {{\[}}[11.9531,
// CHECK-NOT: {{[0-9]}}.{{[0-9]+}}e
// CHECK: data =
// CHECK-NEXT: {{\[}}[7.99988,
// CHECK: data =
// CHECK-NEXT: {{\[}}[1,
// CHECK: data =
// CHECK-NEXT: [64,  16,  4,  1,  0.25,  0.0625,  0.015625,  0.00390625,  64,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
