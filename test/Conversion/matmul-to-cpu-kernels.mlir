// --mpt-matmul-to-cpu-kernels: contractions on memrefs become calls of one
// kernel function per module and element type: bf16 on AMX, f32 and f16 on
// AVX-512 (bf16 too without AMX); other contractions are left as they are.
// (That the kernels compute the right numbers is checked by running them:
// test/Execution/amx-matmul.mlir, test/Execution/avx512-matmul.mlir.)
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="amx=0" | FileCheck %s --check-prefix=NOAMX
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="amx=0 avx512=0" | FileCheck %s --check-prefix=NONE
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="amx=0 avx512-bf16=1" | FileCheck %s --check-prefix=DOT
// RUN: mpt-opt %s --split-input-file --mpt-matmul-to-cpu-kernels="amx=0 avx512=0 avx2=1" | FileCheck %s --check-prefix=AVX2

// One kernel per module, however many contractions call it.
// CHECK-LABEL: func.func private @__mpt_amx_matmul_bf16(
// CHECK-SAME: memref<?x?xbf16, strided<[?, 1], offset: ?>>, {{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>, {{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, {{.*}}: i1, {{.*}}: i1, {{.*}}: i1, {{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>, {{.*}}: i1)
// CHECK: amx.tile_mulf
// CHECK-NOT: func.func private @__mpt_amx_matmul_bf16
// CHECK-LABEL: func.func @two_matmuls(
// CHECK-SAME: %[[A:.*]]: memref<64x32xbf16>, %[[B:.*]]: memref<32x48xbf16>, %[[C:.*]]: memref<64x48xf32>
// CHECK: %[[AC:.*]] = memref.cast %[[A]] : memref<64x32xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: %[[BC:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: call @__mpt_amx_matmul_bf16(%[[AC]], %[[BC]], %[[CC]], %false, %false{{.*}}, %false{{.*}}, %{{.*}}, %false{{.*}})
// CHECK: call @__mpt_amx_matmul_bf16
// CHECK-NOT: linalg.matmul
// NOAMX-LABEL: func.func private @__mpt_avx512_matmul_bf16(
// NOAMX: arith.extf %{{.*}} : vector<32xbf16> to vector<32xf32>
// NOAMX-LABEL: func.func @two_matmuls(
// NOAMX-COUNT-2: call @__mpt_avx512_matmul_bf16
// NONE-NOT: call
// NONE-COUNT-2: linalg.matmul
// Without AVX-512, the AVX2 kernel: 16-column panels, a full vector of a
// pack loaded plainly (only the edges masked), carried across the branch as
// i16, and widened; a panel of at most 2 or 4 rows calls the 2- or 4-row
// register block, else the 6-row one (six vector<16xf32> accumulators).
// AVX2-LABEL: func.func private @__mpt_avx2_matmul_bf16(
// AVX2: %[[FULL:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// AVX2: scf.if %[[FULL]] -> (vector<16xi16>) {
// AVX2: vector.load {{.*}} vector<16xbf16>
// AVX2: } else {
// AVX2: vector.maskedload
// AVX2: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// AVX2: func.call @__mpt_avx2_matmul_bf16_block2(
// AVX2-NEXT: } else {
// AVX2-NEXT: scf.if %{{.*}} {
// AVX2-NEXT: func.call @__mpt_avx2_matmul_bf16_block4(
// AVX2: } else {
// AVX2-NEXT: func.call @__mpt_avx2_matmul_bf16_block6(
// AVX2-LABEL: func.func private @__mpt_avx2_matmul_bf16_block6(
// AVX2: scf.for {{.*}} iter_args({{[^)]*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2-COUNT-6: vector.fma
// AVX2-LABEL: func.func @two_matmuls(
// AVX2-COUNT-2: call @__mpt_avx2_matmul_bf16(
func.func @two_matmuls(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %c: memref<64x48xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// A batch is a loop of kernel calls on rank-reduced views.
// CHECK-LABEL: func.func @batch(
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.subview %{{.*}}[%[[I]], 0, 0] [1, 17, 33] [1, 1, 1] : memref<3x17x33xbf16> to memref<17x33xbf16, strided<[33, 1], offset: ?>>
// CHECK: call @__mpt_amx_matmul_bf16
func.func @batch(%a: memref<3x17x33xbf16>, %b: memref<3x33x40xbf16>, %c: memref<3x17x40xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x17x33xbf16>, memref<3x33x40xbf16>) outs(%c : memref<3x17x40xf32>)
  return
}

// -----

// B stored N x K (x @ w^T): the AMX kernel packs it from that layout
// (transB = true, no copy); the AVX-512 kernel reads rows of B, so there it
// is viewed transposed and copied to a row-major buffer.
// CHECK-LABEL: func.func @transposed_b(
// CHECK-SAME: %[[A:.*]]: memref<64x32xbf16>, %[[BT:.*]]: memref<48x32xbf16>
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref.transpose
// CHECK: %[[BC:.*]] = memref.cast %[[BT]] : memref<48x32xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: call @__mpt_amx_matmul_bf16(%{{.*}}, %[[BC]], %{{.*}}, %false, %false{{.*}}, %true, %{{.*}}, %false{{.*}})
// NOAMX-LABEL: func.func @transposed_b(
// NOAMX: %[[T:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0)
// NOAMX: %[[BUF:.*]] = memref.alloc() : memref<32x48xbf16>
// NOAMX: linalg.copy ins(%[[T]] : {{.*}}) outs(%[[BUF]] : memref<32x48xbf16>)
// NOAMX: call @__mpt_avx512_matmul_bf16
// NOAMX: memref.dealloc %[[BUF]]
func.func @transposed_b(%a: memref<64x32xbf16>, %bt: memref<48x32xbf16>, %c: memref<64x48xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : memref<64x32xbf16>, memref<48x32xbf16>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// f32 and f16 inputs with an f32 accumulator: the AVX-512 kernels, one per
// element type.
// CHECK-DAG: func.func private @__mpt_avx512_matmul_f32(
// CHECK-DAG: func.func private @__mpt_avx512_matmul_f16(
// CHECK-LABEL: func.func @avx512(
// CHECK: call @__mpt_avx512_matmul_f32
// CHECK: call @__mpt_avx512_matmul_f16
// CHECK: call @__mpt_avx512_matmul_f32
func.func @avx512(%f: memref<8x8xf32>, %h: memref<8x8xf16>, %hc: memref<8x8xf32>) {
  linalg.matmul ins(%f, %f : memref<8x8xf32>, memref<8x8xf32>) outs(%hc : memref<8x8xf32>)
  linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%hc : memref<8x8xf32>)
  linalg.matmul ins(%f, %f : memref<8x8xf32>, memref<8x8xf32>) outs(%hc : memref<8x8xf32>)
  return
}

// -----

// Left as they are: an f16 accumulator (rounded at every step by the
// loops), tensors, a transposed output.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @left_alone(
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x8xf16>, memref<8x8xf16>) outs(%{{.*}} : memref<8x8xf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xbf16>
// CHECK: linalg.generic
// CHECK-NOT: call
func.func @left_alone(%h: memref<8x8xf16>, %hc: memref<8x8xf32>,
                      %t: tensor<8x8xbf16>, %tc: tensor<8x8xf32>,
                      %b: memref<8x8xbf16>) -> tensor<8x8xf32> {
  linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%h : memref<8x8xf16>)
  %r = linalg.matmul ins(%t, %t : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%tc : tensor<8x8xf32>) -> tensor<8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%b, %b : memref<8x8xbf16>, memref<8x8xbf16>) outs(%hc : memref<8x8xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %r : tensor<8x8xf32>
}

// -----

// A zero fill of the whole output just before the contraction is left to
// the kernel (zeroC = true), which starts from zero tiles and writes every
// element of C.
// CHECK-LABEL: func.func @zero_fill(
// CHECK-NOT: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %true{{(_[0-9]+)?}}, %false{{.*}}, %false{{.*}}, %{{.*}}, %false{{.*}})
// CHECK-NOT: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %true{{(_[0-9]+)?}}, %false{{.*}}, %false{{.*}}, %{{.*}}, %false{{.*}})
func.func @zero_fill(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>) -> (memref<64x48xf32>, memref<2x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x48xf32>)
  %cc = memref.cast %c : memref<64x48xf32> to memref<64x48xf32, strided<[48, 1]>>
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%cc : memref<64x48xf32, strided<[48, 1]>>)
  %d = memref.alloc() : memref<2x64x48xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<2x64x48xf32>)
  %a2 = memref.alloc() : memref<2x64x32xbf16>
  %b2 = memref.alloc() : memref<2x32x48xbf16>
  linalg.batch_matmul ins(%a2, %b2 : memref<2x64x32xbf16>, memref<2x32x48xbf16>) outs(%d : memref<2x64x48xf32>)
  return %c, %d : memref<64x48xf32>, memref<2x64x48xf32>
}

// -----

// The fill stays, and the kernel reads C, when: an op that may write memory
// comes between; the fill is of another value (1.0, or -0.0, whose sum with
// +0.0 products would differ); it fills only part of C; K may be empty.
// CHECK-LABEL: func.func @fill_kept(
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{(_[0-9]+)?}})
// CHECK: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{(_[0-9]+)?}})
// CHECK: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{(_[0-9]+)?}})
// CHECK: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{(_[0-9]+)?}})
// CHECK: linalg.fill
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{(_[0-9]+)?}})
func.func @fill_kept(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %c: memref<64x48xf32>,
                     %ad: memref<64x?xbf16>, %bd: memref<?x48xbf16>) {
  %zero = arith.constant 0.0 : f32
  %negzero = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%c : memref<64x48xf32>)
  memref.store %one, %c[%i, %i] : memref<64x48xf32>
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  linalg.fill ins(%one : f32) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  linalg.fill ins(%negzero : f32) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  %part = memref.subview %c[0, 0] [64, 16] [1, 1] : memref<64x48xf32> to memref<64x16xf32, strided<[48, 1]>>
  linalg.fill ins(%zero : f32) outs(%part : memref<64x16xf32, strided<[48, 1]>>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%ad, %bd : memref<64x?xbf16>, memref<?x48xbf16>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// C rounded to bf16 and read by nothing else: the AMX kernel writes the
// rounded values into D itself (toD = true) and the rounding op goes; D's
// allocation moves before the call.
// CHECK-LABEL: func.func @rounded(
// CHECK: %[[D:.*]] = memref.alloc() : memref<64x48xbf16>
// CHECK: %[[DC:.*]] = memref.cast %[[D]] : memref<64x48xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %[[DC]], %true{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
// NOAMX-LABEL: func.func @rounded(
// NOAMX: call @__mpt_avx512_matmul_bf16
// NOAMX: linalg.generic
// The AVX512-BF16 kernel has the same epilogue (its last K block rounds),
// in its register block's function, which is never inlined (so that LLVM
// allocates the K loop's 28 accumulators on their own: inside the parallel
// kernel's OpenMP region it spilled some of them).
// DOT-LABEL: func.func private @__mpt_avx512bf16_matmul_bf16(
// DOT-SAME: %{{[^:]*}}: i1, %[[KD:[^:]*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %[[TOD:[^:]*]]: i1)
// DOT: %[[EPI:.*]] = arith.andi %[[TOD]], %{{.*}} : i1
// DOT: func.call @__mpt_avx512bf16_matmul_bf16_block(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[KD]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[EPI]], %{{[^,]*}}, %{{[^,]*}}, %{{[^)]*}})
// DOT-LABEL: func.func private @__mpt_avx512bf16_matmul_bf16_block(
// DOT-SAME: %[[BD:[^:]*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %{{[^:]*}}: index, {{.*}}, %[[BEPI:[^:]*]]: i1, %{{[^:]*}}: i1, %{{[^:]*}}: index, %{{[^:]*}}: index) attributes {passthrough = ["noinline"]}
// DOT: scf.if %[[BEPI]] {
// DOT: %[[RB:.*]] = arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// DOT: vector.maskedstore %[[BD]][%{{.*}}, %{{.*}}], %{{.*}}, %[[RB]]
// DOT-LABEL: func.func @rounded(
// DOT: %[[D:.*]] = memref.alloc() : memref<64x48xbf16>
// DOT: %[[DC:.*]] = memref.cast %[[D]] : memref<64x48xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %[[DC]], %true{{.*}})
// DOT-NOT: linalg.generic
// DOT-NOT: scf.if
// DOT: return %[[D]]
func.func @rounded(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>) -> memref<64x48xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  %d = memref.alloc() : memref<64x48xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x48xf32>) outs(%d : memref<64x48xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<64x48xf32>
  return %d : memref<64x48xbf16>
}

// -----

// C's f32 values are read again after the rounding: they must be written,
// so the rounding stays a separate op.
// CHECK-LABEL: func.func @rounded_and_read(
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %false{{.*}})
// CHECK: linalg.generic
// DOT-LABEL: func.func @rounded_and_read(
// DOT: %[[P:.*]] = ub.poison : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %[[P]], %false{{.*}})
// DOT: linalg.generic
func.func @rounded_and_read(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %c: memref<64x48xf32>) -> memref<64x48xbf16> {
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  %d = memref.alloc() : memref<64x48xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x48xf32>) outs(%d : memref<64x48xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  return %d : memref<64x48xbf16>
}

// -----

// C read once more, only rounded to bf16, next to a bias (autocast's x W^T
// + b): the kernel writes C rounded into a bf16 buffer that the reader reads
// instead, its truncation gone; the buffer is freed after the reader.
// CHECK-LABEL: func.func @rounded_reader(
// CHECK: %[[R:.*]] = memref.alloc() {{.*}}: memref<64x48xbf16>
// CHECK: %[[RC:.*]] = memref.cast %[[R]] : memref<64x48xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %[[RC]], %true{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[R]], %{{.*}} : memref<64x48xbf16>, memref<48xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16, %[[B:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: memref.dealloc %[[R]]
// DOT-LABEL: func.func @rounded_reader(
// DOT: %[[R:.*]] = memref.alloc() {{.*}}: memref<64x48xbf16>
// DOT: %[[RC:.*]] = memref.cast %[[R]] : memref<64x48xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %[[RC]], %true{{.*}})
// DOT: linalg.generic {{.*}} ins(%[[R]], %{{.*}} : memref<64x48xbf16>, memref<48xbf16>)
// DOT: memref.dealloc %[[R]]
func.func @rounded_reader(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %bias: memref<48xbf16>) -> memref<64x48xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<64x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x48xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%c : memref<64x48xf32>)
  %d = memref.alloc() : memref<64x48xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x48xf32>, memref<48xbf16>) outs(%d : memref<64x48xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %re = arith.extf %r : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %s = arith.addf %re, %ye : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<64x48xf32>
  return %d : memref<64x48xbf16>
}

// -----

// A convolution's weight gradient: C is computed as a matrix and rounded
// as [F, C, KH, KW] through an expand_shape. The kernel writes D seen as
// C's matrix (the expand undone: a collapse_shape of D).
// CHECK-LABEL: func.func @rounded_reshaped(
// CHECK: %[[D:.*]] = memref.alloc() : memref<8x4x3x3xbf16>
// CHECK: %[[DM:.*]] = memref.collapse_shape %[[D]] {{\[}}[0], [1, 2, 3]] : memref<8x4x3x3xbf16> into memref<8x36xbf16>
// CHECK: %[[DC:.*]] = memref.cast %[[DM]]
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %[[DC]], %true{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
// DOT-LABEL: func.func @rounded_reshaped(
// DOT: %[[D:.*]] = memref.alloc() : memref<8x4x3x3xbf16>
// DOT: %[[DM:.*]] = memref.collapse_shape %[[D]] {{\[}}[0], [1, 2, 3]] : memref<8x4x3x3xbf16> into memref<8x36xbf16>
// DOT: %[[DC:.*]] = memref.cast %[[DM]]
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %[[DC]], %true{{.*}})
// DOT-NOT: linalg.generic
// DOT: return %[[D]]
func.func @rounded_reshaped(%a: memref<8x64xbf16>, %b: memref<64x36xbf16>) -> memref<8x4x3x3xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x36xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x36xf32>)
  linalg.matmul ins(%a, %b : memref<8x64xbf16>, memref<64x36xbf16>) outs(%c : memref<8x36xf32>)
  %e = memref.expand_shape %c [[0], [1, 2, 3]] output_shape [8, 4, 3, 3] : memref<8x36xf32> into memref<8x4x3x3xf32>
  %d = memref.alloc() : memref<8x4x3x3xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e : memref<8x4x3x3xf32>) outs(%d : memref<8x4x3x3xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<8x36xf32>
  return %d : memref<8x4x3x3xbf16>
}

// -----

// The same through a reader that rounds C next to a bias: the kernel's bf16
// copy is a matrix, which the reader reads expanded as it read C.
// DOT-LABEL: func.func @rounded_reshaped_reader(
// DOT: %[[R:.*]] = memref.alloc() {{.*}}: memref<8x36xbf16>
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %true{{.*}})
// DOT: %[[RE:.*]] = memref.expand_shape %[[R]] {{\[}}[0], [1, 2, 3]] output_shape [8, 4, 3, 3] : memref<8x36xbf16> into memref<8x4x3x3xbf16>
// DOT: linalg.generic {{.*}} ins(%[[RE]], %{{.*}} : memref<8x4x3x3xbf16>, memref<8x4x3x3xbf16>)
// DOT: memref.dealloc %[[R]]
func.func @rounded_reshaped_reader(%a: memref<8x64xbf16>, %b: memref<64x36xbf16>, %y: memref<8x4x3x3xbf16>) -> memref<8x4x3x3xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<8x36xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x36xf32>)
  linalg.matmul ins(%a, %b : memref<8x64xbf16>, memref<64x36xbf16>) outs(%c : memref<8x36xf32>)
  %e = memref.expand_shape %c [[0], [1, 2, 3]] output_shape [8, 4, 3, 3] : memref<8x36xf32> into memref<8x4x3x3xf32>
  %d = memref.alloc() : memref<8x4x3x3xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %y : memref<8x4x3x3xf32>, memref<8x4x3x3xbf16>) outs(%d : memref<8x4x3x3xbf16>) {
  ^bb0(%x: f32, %w: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %re = arith.extf %r : bf16 to f32
    %we = arith.extf %w : bf16 to f32
    %s = arith.addf %re, %we : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<8x36xf32>
  return %d : memref<8x4x3x3xbf16>
}

// -----

// K known only at run time: with K = 0 the kernels run no K block, so the
// rounding they would do in the last one is done after the call, of C as it
// is.
// CHECK-LABEL: func.func @rounded_dynamic_k(
// CHECK: call @__mpt_amx_matmul_bf16({{.*}}, %true{{.*}})
// CHECK: %[[K:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[K]], %c0
// CHECK: scf.if %[[EMPTY]] {
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// DOT-LABEL: func.func @rounded_dynamic_k(
// DOT: call @__mpt_avx512bf16_matmul_bf16({{.*}}, %true{{.*}})
// DOT: %[[K:.*]] = memref.dim %{{.*}}, %c1
// DOT: %[[EMPTY:.*]] = arith.cmpi eq, %[[K]], %c0
// DOT: scf.if %[[EMPTY]] {
// DOT: arith.truncf %{{.*}} : f32 to bf16
func.func @rounded_dynamic_k(%a: memref<64x?xbf16>, %b: memref<?x48xbf16>, %c: memref<64x48xf32>) -> memref<64x48xbf16> {
  %c2 = memref.alloc() : memref<64x48xf32>
  memref.copy %c, %c2 : memref<64x48xf32> to memref<64x48xf32>
  linalg.matmul ins(%a, %b : memref<64x?xbf16>, memref<?x48xbf16>) outs(%c2 : memref<64x48xf32>)
  %d = memref.alloc() : memref<64x48xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<64x48xf32>) outs(%d : memref<64x48xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c2 : memref<64x48xf32>
  return %d : memref<64x48xbf16>
}
