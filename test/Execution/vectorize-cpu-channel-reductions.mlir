// Per-channel reductions under --mpt-vectorize-cpu-loops (BatchNorm's
// statistics and its backward's sums over [N, C, H, W]): the trailing
// reduction loops that every operand reads contiguously become one ([N, C,
// H*W]), or the channel loop moves inside the other reductions ([N, H, C,
// W]), so that the op is a row reduction: 16 channels at a time, one lane
// per channel, each 16x16 tile transposed by shuffles and its columns added
// in order. Each channel still adds its terms in the scalar loops' order,
// so the results must be the scalar loops' bit for bit, on one thread and
// on two: the inputs are sines (inexact: a change of summation order shows
// in the last bits) and the runs must print the same bit patterns (`diff`,
// no tolerance). Covered: a contiguous [N, C, 3, 16] sum, a variance with
// math.fpowi by 2, a bf16 body that rounds its products (autocast's
// BatchNorm backward), an op whose channel loop is outermost, a window
// whose H and W do not collapse (W = 16), and one that stays an ordered
// reduction (W = 7).
//
// The exact case (CHECK lines) makes the test fail even if all paths went
// wrong alike: x[n, c, j] = 2^-(j mod 8) over the 48 columns j of each row,
// so a channel's sum over [2, 48] is 12 * (2 - 2^-7) = 23.90625; over the
// [2, 2, 16] window 8 * (2 - 2^-7) = 15.9375; over the [2, 2, 7] window
// 4 * (2 - 2^-6) = 7.9375.
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

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#cn_in = affine_map<(c, n, h, w) -> (n, c, h, w)>
#cn_out = affine_map<(c, n, h, w) -> (c)>

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// Every op is vectorized (the bf16 one too: a contraction whose inputs read
// all of its output's loops). Four are row reductions, a 16x16 transpose of
// 64 shuffles each; the W = 7 one is the only ordered vector.reduction (its
// 4 + 2 + 1 split).
// IR-LABEL: func.func @kernels
// IR-NOT: linalg.
// IR-NOT: math.fpowi
// IR-NOT: vector.reduction <add>, %{{.*}} : vector<16xf32>
// IR: vector.reduction <add>, %{{.*}} : vector<4xf32>
// IR: vector.reduction <add>, %{{.*}} : vector<2xf32>
// IR-NOT: vector.reduction
// IR-NOT: linalg.
// SHUFFLES: 256
func.func @kernels(%x: memref<2x32x3x16xf32>,
                   %xw: memref<2x32x2x16xf32, strided<[1536, 48, 24, 1]>>,
                   %x7: memref<2x32x2x7xf32, strided<[1536, 48, 24, 1]>>,
                   %sum: memref<32xf32>, %var: memref<32xf32>,
                   %dot: memref<32xf32>, %wsum: memref<32xf32>,
                   %sum7: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : i32
  linalg.fill ins(%zero : f32) outs(%sum : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%x : memref<2x32x3x16xf32>) outs(%sum : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  // sum (x - sum[c])^2, the square as math.fpowi by 2 (as imported).
  linalg.fill ins(%zero : f32) outs(%var : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%x, %sum : memref<2x32x3x16xf32>, memref<32xf32>) outs(%var : memref<32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %p = math.fpowi %d, %c2 : f32, i32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  }
  // bf16 operands whose products are rounded to bf16 before the f32 sum.
  %xb = memref.alloc() : memref<2x32x3x16xbf16>
  linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x : memref<2x32x3x16xf32>) outs(%xb : memref<2x32x3x16xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.fill ins(%zero : f32) outs(%dot : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%xb, %xb : memref<2x32x3x16xbf16>, memref<2x32x3x16xbf16>) outs(%dot : memref<32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %m = arith.mulf %ea, %eb : f32
    %r = arith.truncf %m : f32 to bf16
    %e = arith.extf %r : bf16 to f32
    %s = arith.addf %e, %o : f32
    linalg.yield %s : f32
  }
  memref.dealloc %xb : memref<2x32x3x16xbf16>
  // The channel loop outermost; H (stride 24) and W (16) do not collapse.
  linalg.fill ins(%zero : f32) outs(%wsum : memref<32xf32>)
  linalg.generic {indexing_maps = [#cn_in, #cn_out], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
    ins(%xw : memref<2x32x2x16xf32, strided<[1536, 48, 24, 1]>>) outs(%wsum : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  // W = 7: no row reduction, an ordered one.
  linalg.fill ins(%zero : f32) outs(%sum7 : memref<32xf32>)
  linalg.generic {indexing_maps = [#nchw, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%x7 : memref<2x32x2x7xf32, strided<[1536, 48, 24, 1]>>) outs(%sum7 : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
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

// x[i, j] = sin((i * 48 + j + 1) * scale), or 2^-(j mod 8) when scale is 0
// (the exact case).
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
  %flat = memref.alloc() : memref<64x48xf32>
  call @init(%flat, %scale) : (memref<64x48xf32>, f32) -> ()
  %x = memref.expand_shape %flat [[0, 1], [2, 3]] output_shape [2, 32, 3, 16] : memref<64x48xf32> into memref<2x32x3x16xf32>
  %x24 = memref.expand_shape %flat [[0, 1], [2, 3]] output_shape [2, 32, 2, 24] : memref<64x48xf32> into memref<2x32x2x24xf32>
  %xw = memref.subview %x24[0, 0, 0, 0] [2, 32, 2, 16] [1, 1, 1, 1] : memref<2x32x2x24xf32> to memref<2x32x2x16xf32, strided<[1536, 48, 24, 1]>>
  %x7 = memref.subview %x24[0, 0, 0, 0] [2, 32, 2, 7] [1, 1, 1, 1] : memref<2x32x2x24xf32> to memref<2x32x2x7xf32, strided<[1536, 48, 24, 1]>>
  %sum = memref.alloc() : memref<32xf32>
  %var = memref.alloc() : memref<32xf32>
  %dot = memref.alloc() : memref<32xf32>
  %wsum = memref.alloc() : memref<32xf32>
  %sum7 = memref.alloc() : memref<32xf32>
  call @kernels(%x, %xw, %x7, %sum, %var, %dot, %wsum, %sum7)
    : (memref<2x32x3x16xf32>, memref<2x32x2x16xf32, strided<[1536, 48, 24, 1]>>,
       memref<2x32x2x7xf32, strided<[1536, 48, 24, 1]>>, memref<32xf32>,
       memref<32xf32>, memref<32xf32>, memref<32xf32>, memref<32xf32>) -> ()
  %zero = arith.constant 0.0 : f32
  %exact = arith.cmpf oeq, %scale, %zero : f32
  call @print(%sum, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%var, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%dot, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%wsum, %exact) : (memref<32xf32>, i1) -> ()
  call @print(%sum7, %exact) : (memref<32xf32>, i1) -> ()
  memref.dealloc %flat : memref<64x48xf32>
  memref.dealloc %sum : memref<32xf32>
  memref.dealloc %var : memref<32xf32>
  memref.dealloc %dot : memref<32xf32>
  memref.dealloc %wsum : memref<32xf32>
  memref.dealloc %sum7 : memref<32xf32>
  return
}

// CHECK: data =
// CHECK-NEXT: [23.9062,  23.9062,
// CHECK: data =
// CHECK: data =
// CHECK: data =
// CHECK-NEXT: [15.9375,  15.9375,
// CHECK: data =
// CHECK-NEXT: [7.9375,  7.9375,
func.func @main() {
  %exact = arith.constant 0.0 : f32
  call @run(%exact) : (f32) -> ()
  %scale = arith.constant 1.0 : f32
  call @run(%scale) : (f32) -> ()
  return
}
