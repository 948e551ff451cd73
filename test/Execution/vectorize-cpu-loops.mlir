// --mpt-lower-to-cpu="vectorize=1" (--mpt-vectorize-cpu-loops) against the
// same functions on scalar loops. The pass claims the scalar loops' results
// bit for bit: each lane does what one scalar iteration did, outer loops keep
// their order and a reduction along the innermost loop is an ordered
// vector.reduction (LLVM adds the lanes in order from the accumulator, as the
// loop did). So the inputs are sines (inexact, where a change of summation
// order or of rounding shows in the last bit) and the two runs must print the
// same bit patterns (f32 results bitcast to i32): `diff`, no tolerance.
// Shapes are ragged (37 = 2 vectors of 16 + remainders of 4 and 1; 24 = 16 + 8;
// 3 < 16) so both parts of a split op and a vector shorter than 16 run.
//
// The exact case (CHECK lines) makes the test fail even if both paths went
// wrong alike: inputs are powers of two, x[i, j] = 2^-(j mod 8), so the row
// sums of the first 37 columns and the bf16 round trip are exact and known.
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
// The ops really are vectors (no op is left to the scalar loops):
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=IR

#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#bc3 = affine_map<(b, i, j) -> (i, j)>

func.func private @printMemrefI32(memref<*xi32>)

// IR-LABEL: func.func @kernels
// IR-NOT: linalg.
// The elementwise ops on contiguous 8x37 buffers run as one loop of 296
// elements (18 vectors + 8).
// IR: memref.collapse_shape {{.*}} into memref<296xf32>
// IR: arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// IR: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
// IR: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// IR: vector.reduction <maximumf>, {{.*}} : vector<16xf32> into f32
// The outer reduction: one vector add per row, lanes independent.
// IR: arith.addf {{.*}} : vector<16xf32>
// IR-LABEL: func.func @printBits
func.func @kernels(%x: memref<8x37xf32>, %y: memref<37x24xf32>,
                   %ew: memref<8x37xf32>, %rt: memref<8x37xf32>,
                   %rsum: memref<8xf32>, %rmax: memref<8xf32>,
                   %csum: memref<37xf32>, %t: memref<24x37xf32>,
                   %b3: memref<3x37x24xf32>, %small: memref<8x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Elementwise with a bf16 operand (extf) and a transcendental (libm per lane).
  %xb = memref.alloc() : memref<8x37xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : memref<8x37xf32>) outs(%xb : memref<8x37xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x, %xb : memref<8x37xf32>, memref<8x37xbf16>) outs(%ew : memref<8x37xf32>) {
  ^bb0(%a: f32, %b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    %m = arith.mulf %a, %e : f32
    %s = arith.subf %m, %a : f32
    %g = math.exp %s : f32
    linalg.yield %g : f32
  }
  // The bf16 round trip alone.
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%xb : memref<8x37xbf16>) outs(%rt : memref<8x37xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  memref.dealloc %xb : memref<8x37xbf16>
  // Reductions along the innermost loop (ordered) and along the outer one
  // (lanes independent).
  linalg.fill ins(%zero : f32) outs(%rsum : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%x : memref<8x37xf32>) outs(%rsum : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%ninf : f32) outs(%rmax : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%x : memref<8x37xf32>) outs(%rmax : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %o, %a : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%csum : memref<37xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
    ins(%x : memref<8x37xf32>) outs(%csum : memref<37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  // A transpose (strided reads) and a broadcast over a batch.
  linalg.transpose ins(%y : memref<37x24xf32>) outs(%t : memref<24x37xf32>) permutation = [1, 0]
  linalg.generic {indexing_maps = [#bc3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%y : memref<37x24xf32>) outs(%b3 : memref<3x37x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  // An innermost loop shorter than a vector, on a strided view.
  %xs = memref.subview %x[0, 2] [8, 3] [1, 1] : memref<8x37xf32> to memref<8x3xf32, strided<[37, 1], offset: 2>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%xs : memref<8x3xf32, strided<[37, 1], offset: 2>>) outs(%small : memref<8x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
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
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %bits : memref<?xi32>
  return
}

// Fills `m` (rows x cols) with sin(i * cols + j + 1) * scale, or with
// 2^-(j mod 8) when scale is 0 (the exact case).
func.func @init(%m: memref<?x?xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
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
      %p = arith.andi %j, %c7 : index
      %pi = arith.index_cast %p : index to i32
      %pw = math.fpowi %half, %pi : f32, i32
      %x = arith.select %exact, %pw, %v : f32
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @run(%scale: f32) {
  %x = memref.alloc() : memref<8x37xf32>
  %y = memref.alloc() : memref<37x24xf32>
  %xd = memref.cast %x : memref<8x37xf32> to memref<?x?xf32>
  %yd = memref.cast %y : memref<37x24xf32> to memref<?x?xf32>
  call @init(%xd, %scale) : (memref<?x?xf32>, f32) -> ()
  call @init(%yd, %scale) : (memref<?x?xf32>, f32) -> ()
  %ew = memref.alloc() : memref<8x37xf32>
  %rt = memref.alloc() : memref<8x37xf32>
  %rsum = memref.alloc() : memref<8xf32>
  %rmax = memref.alloc() : memref<8xf32>
  %csum = memref.alloc() : memref<37xf32>
  %t = memref.alloc() : memref<24x37xf32>
  %b3 = memref.alloc() : memref<3x37x24xf32>
  %small = memref.alloc() : memref<8x3xf32>
  call @kernels(%x, %y, %ew, %rt, %rsum, %rmax, %csum, %t, %b3, %small)
    : (memref<8x37xf32>, memref<37x24xf32>, memref<8x37xf32>, memref<8x37xf32>,
       memref<8xf32>, memref<8xf32>, memref<37xf32>, memref<24x37xf32>,
       memref<3x37x24xf32>, memref<8x3xf32>) -> ()
  %1 = memref.cast %rsum : memref<8xf32> to memref<*xf32>
  call @printBits(%1) : (memref<*xf32>) -> ()
  %2 = memref.cast %rmax : memref<8xf32> to memref<*xf32>
  call @printBits(%2) : (memref<*xf32>) -> ()
  %3 = memref.collapse_shape %rt [[0, 1]] : memref<8x37xf32> into memref<296xf32>
  %u3 = memref.cast %3 : memref<296xf32> to memref<*xf32>
  call @printBits(%u3) : (memref<*xf32>) -> ()
  %4 = memref.collapse_shape %ew [[0, 1]] : memref<8x37xf32> into memref<296xf32>
  %u4 = memref.cast %4 : memref<296xf32> to memref<*xf32>
  call @printBits(%u4) : (memref<*xf32>) -> ()
  %5 = memref.cast %csum : memref<37xf32> to memref<*xf32>
  call @printBits(%5) : (memref<*xf32>) -> ()
  %6 = memref.collapse_shape %t [[0, 1]] : memref<24x37xf32> into memref<888xf32>
  %u6 = memref.cast %6 : memref<888xf32> to memref<*xf32>
  call @printBits(%u6) : (memref<*xf32>) -> ()
  %7 = memref.collapse_shape %b3 [[0, 1, 2]] : memref<3x37x24xf32> into memref<2664xf32>
  %u7 = memref.cast %7 : memref<2664xf32> to memref<*xf32>
  call @printBits(%u7) : (memref<*xf32>) -> ()
  %8 = memref.collapse_shape %small [[0, 1]] : memref<8x3xf32> into memref<24xf32>
  %u8 = memref.cast %8 : memref<24xf32> to memref<*xf32>
  call @printBits(%u8) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<8x37xf32>
  memref.dealloc %y : memref<37x24xf32>
  memref.dealloc %ew : memref<8x37xf32>
  memref.dealloc %rt : memref<8x37xf32>
  memref.dealloc %rsum : memref<8xf32>
  memref.dealloc %rmax : memref<8xf32>
  memref.dealloc %csum : memref<37xf32>
  memref.dealloc %t : memref<24x37xf32>
  memref.dealloc %b3 : memref<3x37x24xf32>
  memref.dealloc %small : memref<8x3xf32>
  return
}

// The exact case first: each row of x is 1, 1/2, ..., 1/128 repeated; the
// first 37 columns sum to 4 * 255/128 + (1 + 1/2 + 1/4 + 1/8 + 1/16)
// = 7.96875 + 1.9375 = 9.90625 (0x411E8000), the row maximum is 1
// (0x3F800000), and bf16 keeps every power of two (the round trip prints
// 1.0 = 1065353216 first).
// CHECK: data =
// CHECK-NEXT: [1092517888, 1092517888, 1092517888, 1092517888, 1092517888, 1092517888, 1092517888, 1092517888]
// CHECK: data =
// CHECK-NEXT: [1065353216, 1065353216, 1065353216, 1065353216, 1065353216, 1065353216, 1065353216, 1065353216]
// CHECK: data =
// CHECK-NEXT: [1065353216, 1056964608, 1048576000,
func.func @main() {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 3.0 : f32
  call @run(%zero) : (f32) -> ()
  call @run(%scale) : (f32) -> ()
  return
}

// math.fpowi stays a loop: on vectors its exponent is a vector, which LLVM's
// powi (one scalar exponent) cannot lower.
// IR-LABEL: func.func @powi_stays_loops
// IR: linalg.generic
// IR-NOT: vector.
// IR: return
func.func @powi_stays_loops(%x: memref<4x32xf32>, %y: memref<4x32xf32>) {
  %c3 = arith.constant 3 : i64
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : memref<4x32xf32>) outs(%y : memref<4x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c3 : f32, i64
    linalg.yield %p : f32
  }
  return
}

// But a square (a variance's (x - mean)^2) is x * x, what a scalar powi by 2
// computes, and vectorizes (executed in vectorize-cpu-channel-reductions.mlir).
// IR-LABEL: func.func @square_vectorized
// IR-NOT: linalg.generic
// IR-NOT: math.fpowi
// IR: arith.mulf %{{.*}} : vector<16xf32>
// IR: return
func.func @square_vectorized(%x: memref<4x32xf32>, %y: memref<4x32xf32>) {
  %c2 = arith.constant 2 : i64
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : memref<4x32xf32>) outs(%y : memref<4x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c2 : f32, i64
    linalg.yield %p : f32
  }
  return
}
