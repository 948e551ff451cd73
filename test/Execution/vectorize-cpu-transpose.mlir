// Transposes and copies into slices under --mpt-vectorize-cpu-loops: a transpose whose input and
// output are contiguous along different loops, both ranges multiples of 16,
// moves 16 x 16 blocks with 16 row loads, a vector.shuffle network and 16
// row stores; a ragged range (20, 40) does so for its whole blocks and
// keeps one scalar load per lane for the rest. A transpose whose body casts
// (a 1x1 filter's transpose to bf16, on buffers with a layout and unit
// dimensions, as the outlined ops have them) casts the moved vectors. A
// transpose moves data: the results must be the scalar loops' bit for bit
// (`diff`, no tolerance). Inputs are distinct integers (x = flat index,
// exact in f32; i16 wraps, still distinct per block; bf16 the index mod 256,
// exact), so any element out of place shows.
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
// The four blocked transposes are shuffles (16 x 4 stages x 2 = 64 per
// block, counted on the first); the ragged one keeps scalar loads per lane:
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=IR

#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>

func.func private @printMemrefF32(memref<*xf32>)

// IR-LABEL: func.func @transposes
// IR-COUNT-16: vector.load {{.*}} : memref<48x32xf32>, vector<16xf32>
// IR-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// IR-COUNT-16: vector.store {{.*}} : memref<32x48xf32>, vector<16xf32>
// IR: vector.shuffle {{.*}} : vector<16xi16>, vector<16xi16>
// IR: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// IR: vector.shuffle {{.*}} : vector<16xbf16>, vector<16xbf16>
// IR: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// IR-NOT: linalg.
// IR-LABEL: func.func @transpose_cast
// IR-COUNT-16: vector.load {{.*}} : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
// IR-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// IR: arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// IR-NEXT: vector.store {{.*}} : memref<32x32xbf16, strided<[40, 1], offset: ?>>, vector<16xbf16>
// The last 8 filters: one load per lane.
// IR: memref.subview {{.*}}[32, 0] [8, 32] [1, 1]
// IR-NOT: linalg.
// A copy into a slice (what a concatenation bufferizes to) is vectorized,
// not left to the runtime's element-by-element memrefCopy:
// A body that yields a value from outside is not a transpose of its input
// (it crashed the shuffle network's body copy):
// IR-LABEL: func.func @yields_constant
// IR-NOT: vector.shuffle
// IR-LABEL: func.func @concat
// IR-NOT: memref.copy
// IR: vector.transfer_read {{.*}} vector<16xf32>
// IR-LABEL: func.func @fill
func.func @transposes(%a: memref<48x32xf32>, %at: memref<32x48xf32>,
                      %b: memref<2x32x64xi16>, %bt: memref<2x64x32xi16>,
                      %c: memref<2x16x3x32xf32>, %ct: memref<2x32x3x16xf32>,
                      %d: memref<64x16xbf16>, %dt: memref<16x64xbf16>,
                      %e: memref<32x20xf32>, %et: memref<20x32xf32>,
                      %f: memref<2x64x4x16xf32>, %ft: memref<64x2x4x16xf32>) {
  linalg.transpose ins(%a : memref<48x32xf32>) outs(%at : memref<32x48xf32>) permutation = [1, 0]
  // A batch of transposes; i16 takes the same 16-bit shuffles as bf16.
  linalg.transpose ins(%b : memref<2x32x64xi16>) outs(%bt : memref<2x64x32xi16>) permutation = [0, 2, 1]
  // 4-d: the input's contiguous dimension becomes the output's second.
  linalg.transpose ins(%c : memref<2x16x3x32xf32>) outs(%ct : memref<2x32x3x16xf32>) permutation = [0, 3, 2, 1]
  // A transpose written as a generic.
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
    ins(%d : memref<64x16xbf16>) outs(%dt : memref<16x64xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    linalg.yield %x : bf16
  }
  // 20 is not a multiple of 16: the first 16 columns are a block, the
  // last 4 one load per lane.
  linalg.transpose ins(%e : memref<32x20xf32>) outs(%et : memref<20x32xf32>) permutation = [1, 0]
  // An im2col tap's copy ([N, C, H, W] -> [C, N, H, W]): rows of 16 moved
  // whole; in parallel, only its outer loops (64 x 2 iterations) are
  // (parallel-loops.test).
  linalg.transpose ins(%f : memref<2x64x4x16xf32>) outs(%ft : memref<64x2x4x16xf32>) permutation = [1, 0, 2, 3]
  return
}

// out[c, f] = bf16(w[f, c]) over [F, C, 1, 1] filters (40 is ragged).
func.func @transpose_cast(%w: memref<40x32x1x1xf32, strided<[32, 1, 1, 1], offset: ?>>,
                          %wt: memref<32x40x1x1xbf16, strided<[40, 1, 1, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, 0, 0)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%w : memref<40x32x1x1xf32, strided<[32, 1, 1, 1], offset: ?>>)
    outs(%wt : memref<32x40x1x1xbf16, strided<[40, 1, 1, 1], offset: ?>>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

func.func @yields_constant(%a: memref<32x32xf32>, %b: memref<32x32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : memref<32x32xf32>) outs(%b : memref<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %one : f32
  }
  return
}

func.func @concat(%x: memref<4x32xf32>, %y: memref<4x32xf32>, %xy: memref<4x64xf32>) {
  %l = memref.subview %xy[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
  %r = memref.subview %xy[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
  memref.copy %x, %l : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1]>>
  memref.copy %y, %r : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
  return
}

// Fills a buffer with its flat indices (bf16: modulo 256).
func.func @fill(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    memref.store %f, %m[%i] : memref<?xf32>
  }
  return
}

func.func @print(%m: memref<?xf32>) {
  %u = memref.cast %m : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %a = memref.alloc() : memref<1536xf32>
  %c = memref.alloc() : memref<3072xf32>
  %e = memref.alloc() : memref<640xf32>
  %g = memref.alloc() : memref<8192xf32>
  %bf = memref.alloc() : memref<4096xf32>
  %df = memref.alloc() : memref<1024xf32>
  %ad = memref.cast %a : memref<1536xf32> to memref<?xf32>
  %cd = memref.cast %c : memref<3072xf32> to memref<?xf32>
  %ed = memref.cast %e : memref<640xf32> to memref<?xf32>
  %fd = memref.cast %g : memref<8192xf32> to memref<?xf32>
  %bfd = memref.cast %bf : memref<4096xf32> to memref<?xf32>
  call @fill(%ad) : (memref<?xf32>) -> ()
  call @fill(%cd) : (memref<?xf32>) -> ()
  call @fill(%ed) : (memref<?xf32>) -> ()
  call @fill(%fd) : (memref<?xf32>) -> ()
  %b = memref.alloc() : memref<4096xi16>
  %d = memref.alloc() : memref<1024xbf16>
  %n4096 = arith.constant 4096 : index
  %n1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %n4096 step %c1 {
    %ii = arith.index_cast %i : index to i16
    memref.store %ii, %b[%i] : memref<4096xi16>
  }
  scf.for %i = %c0 to %n1024 step %c1 {
    %r = arith.remui %i, %c256 : index
    %ri = arith.index_cast %r : index to i64
    %f = arith.sitofp %ri : i64 to bf16
    memref.store %f, %d[%i] : memref<1024xbf16>
  }
  %a2 = memref.expand_shape %a [[0, 1]] output_shape [48, 32] : memref<1536xf32> into memref<48x32xf32>
  %b3 = memref.expand_shape %b [[0, 1, 2]] output_shape [2, 32, 64] : memref<4096xi16> into memref<2x32x64xi16>
  %c4 = memref.expand_shape %c [[0, 1, 2, 3]] output_shape [2, 16, 3, 32] : memref<3072xf32> into memref<2x16x3x32xf32>
  %d2 = memref.expand_shape %d [[0, 1]] output_shape [64, 16] : memref<1024xbf16> into memref<64x16xbf16>
  %e2 = memref.expand_shape %e [[0, 1]] output_shape [32, 20] : memref<640xf32> into memref<32x20xf32>
  %f4 = memref.expand_shape %g [[0, 1, 2, 3]] output_shape [2, 64, 4, 16] : memref<8192xf32> into memref<2x64x4x16xf32>
  %at = memref.alloc() : memref<32x48xf32>
  %bt = memref.alloc() : memref<2x64x32xi16>
  %ct = memref.alloc() : memref<2x32x3x16xf32>
  %dt = memref.alloc() : memref<16x64xbf16>
  %et = memref.alloc() : memref<20x32xf32>
  %ft = memref.alloc() : memref<64x2x4x16xf32>
  call @transposes(%a2, %at, %b3, %bt, %c4, %ct, %d2, %dt, %e2, %et, %f4, %ft)
    : (memref<48x32xf32>, memref<32x48xf32>, memref<2x32x64xi16>, memref<2x64x32xi16>,
       memref<2x16x3x32xf32>, memref<2x32x3x16xf32>, memref<64x16xbf16>, memref<16x64xbf16>,
       memref<32x20xf32>, memref<20x32xf32>, memref<2x64x4x16xf32>, memref<64x2x4x16xf32>) -> ()
  // CHECK: Unranked Memref {{.*}} sizes = [1536]
  // at[j, i] = a[i, j] = 32 i + j: row j of at is j, 32 + j, 64 + j, ...
  // CHECK-NEXT: [0,  32,  64,  96,  128,  160,  192,  224,  256,  288,  320,  352,  384,  416,  448,  480,  512,  544,  576,  608,  640,  672,  704,  736,  768,  800,  832,  864,  896,  928,  960,  992,  1024,  1056,  1088,  1120,  1152,  1184,  1216,  1248,  1280,  1312,  1344,  1376,  1408,  1440,  1472,  1504,  1,  33,  65,
  %atf = memref.collapse_shape %at [[0, 1]] : memref<32x48xf32> into memref<1536xf32>
  %atd = memref.cast %atf : memref<1536xf32> to memref<?xf32>
  call @print(%atd) : (memref<?xf32>) -> ()
  // The i16 and bf16 results widened to f32 by scalar loops, for printing.
  %btf = memref.collapse_shape %bt [[0, 1, 2]] : memref<2x64x32xi16> into memref<4096xi16>
  scf.for %i = %c0 to %n4096 step %c1 {
    %v = memref.load %btf[%i] : memref<4096xi16>
    %w = arith.sitofp %v : i16 to f32
    memref.store %w, %bf[%i] : memref<4096xf32>
  }
  // CHECK: Unranked Memref {{.*}} sizes = [4096]
  // bt[0, j, i] = b[0, i, j] = 64 i + j:
  // CHECK-NEXT: [0,  64,  128,  192,
  call @print(%bfd) : (memref<?xf32>) -> ()
  %ctf = memref.collapse_shape %ct [[0, 1, 2, 3]] : memref<2x32x3x16xf32> into memref<3072xf32>
  %ctd = memref.cast %ctf : memref<3072xf32> to memref<?xf32>
  // ct[0, l, k, j] = c[0, j, k, l] = 96 j + 32 k + l:
  // CHECK: Unranked Memref {{.*}} sizes = [3072]
  // CHECK-NEXT: [0,  96,  192,  288,
  call @print(%ctd) : (memref<?xf32>) -> ()
  %dtf = memref.collapse_shape %dt [[0, 1]] : memref<16x64xbf16> into memref<1024xbf16>
  scf.for %i = %c0 to %n1024 step %c1 {
    %v = memref.load %dtf[%i] : memref<1024xbf16>
    %w = arith.extf %v : bf16 to f32
    memref.store %w, %df[%i] : memref<1024xf32>
  }
  %dfd = memref.cast %df : memref<1024xf32> to memref<?xf32>
  // dt[j, i] = d[i, j] = (16 i + j) mod 256:
  // CHECK: Unranked Memref {{.*}} sizes = [1024]
  // CHECK-NEXT: [0,  16,  32,  48,
  call @print(%dfd) : (memref<?xf32>) -> ()
  %etf = memref.collapse_shape %et [[0, 1]] : memref<20x32xf32> into memref<640xf32>
  %etd = memref.cast %etf : memref<640xf32> to memref<?xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [640]
  // CHECK-NEXT: [0,  20,  40,  60,
  call @print(%etd) : (memref<?xf32>) -> ()
  %ftf = memref.collapse_shape %ft [[0, 1, 2, 3]] : memref<64x2x4x16xf32> into memref<8192xf32>
  %ftd = memref.cast %ftf : memref<8192xf32> to memref<?xf32>
  // ft[c, n, h, w] = f[n, c, h, w] = 4096 n + 64 c + 16 h + w:
  // CHECK: Unranked Memref {{.*}} sizes = [8192]
  // CHECK-NEXT: [0,  1,  2,  {{.*}}  62,  63,  4096,  4097,  {{.*}}  4158,  4159,  64,  65,
  call @print(%ftd) : (memref<?xf32>) -> ()
  // The filters are a[0:1280] (w[f, c] = 32 f + c), 40 x 32 x 1 x 1.
  %w1 = memref.subview %a[0] [1280] [1] : memref<1536xf32> to memref<1280xf32, strided<[1]>>
  %w2 = memref.expand_shape %w1 [[0, 1, 2, 3]] output_shape [40, 32, 1, 1]
    : memref<1280xf32, strided<[1]>> into memref<40x32x1x1xf32>
  %w3 = memref.cast %w2 : memref<40x32x1x1xf32> to memref<40x32x1x1xf32, strided<[32, 1, 1, 1], offset: ?>>
  %wt = memref.alloc() : memref<32x40x1x1xbf16>
  %wt3 = memref.cast %wt : memref<32x40x1x1xbf16> to memref<32x40x1x1xbf16, strided<[40, 1, 1, 1], offset: ?>>
  call @transpose_cast(%w3, %wt3)
    : (memref<40x32x1x1xf32, strided<[32, 1, 1, 1], offset: ?>>, memref<32x40x1x1xbf16, strided<[40, 1, 1, 1], offset: ?>>) -> ()
  %wtf = memref.collapse_shape %wt [[0, 1, 2, 3]] : memref<32x40x1x1xbf16> into memref<1280xbf16>
  %wf = memref.alloc() : memref<1280xf32>
  %n1280 = arith.constant 1280 : index
  scf.for %i = %c0 to %n1280 step %c1 {
    %v = memref.load %wtf[%i] : memref<1280xbf16>
    %x = arith.extf %v : bf16 to f32
    memref.store %x, %wf[%i] : memref<1280xf32>
  }
  %wfd = memref.cast %wf : memref<1280xf32> to memref<?xf32>
  // wt[c, f] = bf16(32 f + c): row 0 is 32 f (exact in bf16) up to 1248,
  // then row 1 is 32 f + 1 (exact below 256; 257 rounds to 256).
  // CHECK: Unranked Memref {{.*}} sizes = [1280]
  // CHECK-NEXT: [0,  32,  64,  96,  128,  160,  192,  224,  256,  288,  {{.*}}  1248,  1,  33,  65,
  call @print(%wfd) : (memref<?xf32>) -> ()
  // The rows of a (4 x 32, a[0:128]) and at (4 x 32, at[0:128]) side by side.
  %xy = memref.alloc() : memref<256xf32>
  %x2 = memref.subview %a[0] [128] [1] : memref<1536xf32> to memref<128xf32, strided<[1]>>
  %y2 = memref.subview %atf[0] [128] [1] : memref<1536xf32> to memref<128xf32, strided<[1]>>
  %x2c = memref.cast %x2 : memref<128xf32, strided<[1]>> to memref<128xf32>
  %y2c = memref.cast %y2 : memref<128xf32, strided<[1]>> to memref<128xf32>
  %xm = memref.expand_shape %x2c [[0, 1]] output_shape [4, 32] : memref<128xf32> into memref<4x32xf32>
  %ym = memref.expand_shape %y2c [[0, 1]] output_shape [4, 32] : memref<128xf32> into memref<4x32xf32>
  %xym = memref.expand_shape %xy [[0, 1]] output_shape [4, 64] : memref<256xf32> into memref<4x64xf32>
  call @concat(%xm, %ym, %xym) : (memref<4x32xf32>, memref<4x32xf32>, memref<4x64xf32>) -> ()
  %xyd = memref.cast %xy : memref<256xf32> to memref<?xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [256]
  // CHECK-NEXT: [0,  1,  2,  {{.*}}  31,  0,  32,  64,
  call @print(%xyd) : (memref<?xf32>) -> ()
  return
}
