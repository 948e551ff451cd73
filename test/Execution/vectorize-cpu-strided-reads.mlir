// Reads of every other element (a stride-2 convolution's taps, a strided
// weight gradient's windows) under --mpt-vectorize-cpu-loops with
// strided-loads (what --mpt-lower-to-cpu sets with avx512): one masked load
// of the contiguous run of 2 x 16 elements, read as 16 elements of twice the
// width and truncated to their low halves, instead of one load per lane.
// The run's last element is masked off: each view below ends at its
// buffer's last element (the run past it would read beyond the buffer). The
// values moved must be the scalar loops' bit for bit (`diff`): inputs are
// the flat index (exact in f32, i16; bf16 and f16 the index mod 256), so any
// element out of place shows. Ragged ranges (19, 18, 20 = 16 + remainders)
// run the narrower vectors too; odd offsets (the view starting at element 1)
// and a transpose.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 avx512=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec
// Results do not depend on the vector length: 8 lanes (AVX2's f32 width) too.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 vector-lanes=8 avx512=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec8
// RUN: mpt-opt %s --mpt-lower-to-cpu="deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.vec %t.loops
// RUN: diff %t.vec8 %t.loops
// RUN: FileCheck %s < %t.vec
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{strided-loads=1}))" \
// RUN:   | FileCheck %s --check-prefix=IR
// Without the option, one load per lane:
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=PERLANE

// IR-LABEL: func.func @every_other
// IR: vector.maskedload {{.*}} : memref<32xbf16, strided<[1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
// IR-NEXT: vector.bitcast {{.*}} : vector<32xbf16> to vector<16xi32>
// IR-NEXT: arith.trunci {{.*}} : vector<16xi32> to vector<16xi16>
// IR: vector.maskedload {{.*}} : memref<32xf32, strided<[1], offset: ?>>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// IR-NEXT: vector.bitcast {{.*}} : vector<32xf32> to vector<16xi64>
// IR-NEXT: arith.trunci {{.*}} : vector<16xi64> to vector<16xi32>
// IR: vector.maskedload {{.*}} vector<32xi16> into vector<32xi16>
// IR: vector.maskedload {{.*}} vector<32xf16> into vector<32xf16>
// PERLANE-LABEL: func.func @every_other
// PERLANE-NOT: vector.maskedload
// PERLANE: memref.load

func.func private @printMemrefF32(memref<*xf32>)

#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(i, j, k) -> (i, j, k)>

func.func @every_other(%b: memref<3x37xbf16>, %f: memref<3x37xf32>,
                       %s: memref<2x3x40xi16>, %h: memref<3x38xf16>,
                       %b0: memref<3x19xbf16>, %f1: memref<3x18xf32>,
                       %st: memref<3x2x20xi16>, %h1: memref<3x19xf16>) {
  // bf16 from element 0 (19 of 37: the last is the row's last), f32 from
  // element 1, i16 transposed, f16 from element 1 of an even row.
  %vb = memref.subview %b[0, 0] [3, 19] [1, 2] : memref<3x37xbf16> to memref<3x19xbf16, strided<[37, 2]>>
  linalg.copy ins(%vb : memref<3x19xbf16, strided<[37, 2]>>) outs(%b0 : memref<3x19xbf16>)
  %vf = memref.subview %f[0, 1] [3, 18] [1, 2] : memref<3x37xf32> to memref<3x18xf32, strided<[37, 2], offset: 1>>
  linalg.copy ins(%vf : memref<3x18xf32, strided<[37, 2], offset: 1>>) outs(%f1 : memref<3x18xf32>)
  %vs = memref.subview %s[0, 0, 0] [2, 3, 20] [1, 1, 2] : memref<2x3x40xi16> to memref<2x3x20xi16, strided<[120, 40, 2]>>
  linalg.transpose ins(%vs : memref<2x3x20xi16, strided<[120, 40, 2]>>) outs(%st : memref<3x2x20xi16>) permutation = [1, 0, 2]
  %vh = memref.subview %h[0, 1] [3, 19] [1, 2] : memref<3x38xf16> to memref<3x19xf16, strided<[38, 2], offset: 1>>
  linalg.copy ins(%vh : memref<3x19xf16, strided<[38, 2], offset: 1>>) outs(%h1 : memref<3x19xf16>)
  return
}

func.func @main() {
  %b = memref.alloc() : memref<3x37xbf16>
  %f = memref.alloc() : memref<3x37xf32>
  %s = memref.alloc() : memref<2x3x40xi16>
  %h = memref.alloc() : memref<3x38xf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      outs(%b, %f : memref<3x37xbf16>, memref<3x37xf32>) {
  ^bb0(%o0: bf16, %o1: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %c256 = arith.constant 256 : index
    %r = arith.muli %i, %c37 : index
    %n = arith.addi %r, %j : index
    %m = arith.remui %n, %c256 : index
    %ni = arith.index_cast %n : index to i32
    %mi = arith.index_cast %m : index to i32
    %nf = arith.sitofp %ni : i32 to f32
    %mf = arith.sitofp %mi : i32 to bf16
    linalg.yield %mf, %nf : bf16, f32
  }
  linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%s : memref<2x3x40xi16>) {
  ^bb0(%o: i16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %c3 = arith.constant 3 : index
    %c40 = arith.constant 40 : index
    %a = arith.muli %i, %c3 : index
    %a2 = arith.addi %a, %j : index
    %a3 = arith.muli %a2, %c40 : index
    %n = arith.addi %a3, %k : index
    %ni = arith.index_cast %n : index to i16
    linalg.yield %ni : i16
  }
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%h : memref<3x38xf16>) {
  ^bb0(%o: f16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c38 = arith.constant 38 : index
    %c256 = arith.constant 256 : index
    %r = arith.muli %i, %c38 : index
    %n = arith.addi %r, %j : index
    %m = arith.remui %n, %c256 : index
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f16
    linalg.yield %mf : f16
  }
  %b0 = memref.alloc() : memref<3x19xbf16>
  %f1 = memref.alloc() : memref<3x18xf32>
  %st = memref.alloc() : memref<3x2x20xi16>
  %h1 = memref.alloc() : memref<3x19xf16>
  func.call @every_other(%b, %f, %s, %h, %b0, %f1, %st, %h1)
      : (memref<3x37xbf16>, memref<3x37xf32>, memref<2x3x40xi16>, memref<3x38xf16>,
         memref<3x19xbf16>, memref<3x18xf32>, memref<3x2x20xi16>, memref<3x19xf16>) -> ()
  %pb = memref.alloc() : memref<3x19xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b0 : memref<3x19xbf16>) outs(%pb : memref<3x19xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  %ps = memref.alloc() : memref<3x2x20xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%st : memref<3x2x20xi16>) outs(%ps : memref<3x2x20xf32>) {
  ^bb0(%in: i16, %o: f32):
    %e = arith.sitofp %in : i16 to f32
    linalg.yield %e : f32
  }
  %ph = memref.alloc() : memref<3x19xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h1 : memref<3x19xf16>) outs(%ph : memref<3x19xf32>) {
  ^bb0(%in: f16, %o: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  }
  %ub = memref.cast %pb : memref<3x19xf32> to memref<*xf32>
  %uf = memref.cast %f1 : memref<3x18xf32> to memref<*xf32>
  %us = memref.cast %ps : memref<3x2x20xf32> to memref<*xf32>
  %uh = memref.cast %ph : memref<3x19xf32> to memref<*xf32>
  call @printMemrefF32(%ub) : (memref<*xf32>) -> ()
  call @printMemrefF32(%uf) : (memref<*xf32>) -> ()
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  call @printMemrefF32(%uh) : (memref<*xf32>) -> ()
  return
}
// The exact values, so that the test fails if both paths went wrong alike.
// CHECK: sizes = [3, 19]
// CHECK-NEXT: [0,   2,   4,   6,   8,   10,   12,   14,   16,   18,   20,   22,   24,   26,   28,   30,   32,   34,   36],
// CHECK-NEXT: [37,   39,
// CHECK: sizes = [3, 18]
// CHECK-NEXT: [1,   3,   5,
// CHECK: sizes = [3, 2, 20]
// CHECK-NEXT: {{\[\[}}0,   2,   4,
// CHECK-NEXT: [120,   122,
// CHECK: sizes = [3, 19]
// CHECK-NEXT: [1,   3,   5,
