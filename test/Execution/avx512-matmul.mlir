// The AVX-512 kernels of --mpt-lower-to-cpu="avx512=1" (f32, and f16 / bf16
// inputs widened to f32 in the packs) against a reference written as plain
// scf loops (f64 sums, so no matmul here reaches the kernels by accident).
//
// Exact cases: inputs are small integers (|x| <= 3, exact in f16 and bf16),
// every product and partial sum (at most 1030 * 9 + 1) is exact in f32, so the
// kernel must agree with the reference exactly whatever its rounding (FMA)
// and each case prints the largest absolute difference, 0. C starts at 1, so
// a kernel that drops C's old value fails too. Shapes: multiples of the 14x32
// register block and of the K block (256 k; 512 in the AVX512-BF16 kernel:
// C loaded and stored per K block),
// ragged in M, N and K, 1x1x1, more rows than one 112-row block, K past the K
// block, more columns than one task packs (split into column ranges), B
// transposed (copied), a batch.
//
// Rounding case (sines, f32): the kernel fuses each multiply-add (one rounding
// per k, vector.fma) where the scalar loops round the product and the sum, so
// it is not bit-identical to the generic path. The k order is the same, and
// both obey the bound for recursive summation (Higham, Accuracy and Stability
// of Numerical Algorithms, 3.1): |C - exact| <= K * u * (|C0| + sum_k |A B|)
// with u = 2^-24 (K * u << 1 here). The case prints how many elements break
// the bound: 0. A wrong element breaks it by far more than rounding does.
// The vector code runs on any x86-64 (LLVM splits the 512-bit vectors and
// calls fmaf where AVX-512 or FMA is missing), so no CPU feature is required.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// With AVX512-BF16, bf16 takes the vdpbf16ps kernel (avx512-bf16=1): the
// same cases, the same exact results; its sums add each k pair's two exact
// products in turn (another order than the loops), within the same bound
// (the rounding case in bf16 below; the flush of f32 denormals adds at most
// K * 2^-126 to an error bounded by K * 2^-24 * S, with S >= 1 here).
// RUN: %if avx512bf16 %{ mpt-opt %s --mpt-lower-to-cpu="avx512=1 avx512-bf16=1 kernel-report=%t.bf16.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s %}
// RUN: %if avx512bf16 %{ FileCheck %s --check-prefix=BF16 < %t.bf16.report %}
// The AVX2 kernels (avx2=1, no avx512): the same cases and results, with
// their 6x16 register block and its 4- and 2-row blocks (ragged rows 33 =
// 5 x 6 + 3, 115 = 2 x 48 + 3 x 6 + 1, M = 1, 3, 5; 48-row blocks),
// 16-column panels (1100 columns: 69 panels, two ranges of at most 1 MiB of
// B's pack), and the
// packs' unmasked loads of full vectors beside the masked edges.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx2=1 kernel-report=%t.avx2.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.report
// AVX2: CPU kernels (no amx, no avx512, avx2): 8 of 8 contractions lowered
// AVX2: linalg.matmul ?x?x? f32 x f32 -> f32: @__mpt_avx2_matmul_f32 (AVX2: 6x16 f32 register block
// AVX2: linalg.matmul ?x?x? f16 x f16 -> f32: @__mpt_avx2_matmul_f16
// AVX2: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx2_matmul_bf16
// BF16: CPU kernels (no amx, avx512, avx512bf16): 8 of 8 contractions lowered
// BF16: linalg.matmul ?x?x? f16 x f16 -> f32: @__mpt_avx512_matmul_f16
// BF16: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512bf16_matmul_bf16 (AVX512-BF16:
// BF16: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512bf16_matmul_bf16
// REPORT: CPU kernels (no amx, avx512): 8 of 8 contractions lowered
// REPORT: linalg.matmul ?x?x? f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul ?x?x? f16 x f16 -> f32: @__mpt_avx512_matmul_f16
// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT: linalg.matmul 150x97x300 f32 x f32 -> f32: @__mpt_avx512_matmul_f32 ({{.*}}C's zero fill left to the kernel)

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapBt = affine_map<(m, n, k) -> (n, k)>
#mapC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
!mat = memref<?x?xf32, strided<[?, ?], offset: ?>>

// x[i, j] = ((a*i + b*j) mod 7) - 3
func.func @ints(%r: index, %c: index, %a: index, %b: index) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %x = memref.alloc(%r, %c) : memref<?x?xf32>
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ai = arith.muli %a, %i : index
      %bj = arith.muli %b, %j : index
      %s = arith.addi %ai, %bj : index
      %t = arith.remui %s, %c7 : index
      %u = arith.subi %t, %c3 : index
      %v = arith.index_cast %u : index to i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %x[%i, %j] : memref<?x?xf32>
    }
  }
  return %x : memref<?x?xf32>
}

// x[i, j] = sin(a*i + b*j)
func.func @sines(%r: index, %c: index, %a: f32, %b: f32) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc(%r, %c) : memref<?x?xf32>
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %fj = arith.sitofp %jj : i32 to f32
      %u = arith.mulf %fi, %a : f32
      %v = arith.mulf %fj, %b : f32
      %w = arith.addf %u, %v : f32
      %s = math.sin %w : f32
      memref.store %s, %x[%i, %j] : memref<?x?xf32>
    }
  }
  return %x : memref<?x?xf32>
}

func.func @ones(%r: index, %c: index) -> memref<?x?xf32> {
  %one = arith.constant 1.0 : f32
  %x = memref.alloc(%r, %c) : memref<?x?xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<?x?xf32>)
  return %x : memref<?x?xf32>
}

func.func @copy(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xf32>
  %c = memref.dim %x, %c1 : memref<?x?xf32>
  %y = memref.alloc(%r, %c) : memref<?x?xf32>
  memref.copy %x, %y : memref<?x?xf32> to memref<?x?xf32>
  return %y : memref<?x?xf32>
}

// The reference: R = C + A * B with f64 sums, and S = |C| + |A| * |B| (the
// scale of the rounding bound), as plain loops.
func.func @reference(%A: !mat, %B: !mat, %C: !mat, %R: memref<?x?xf64>, %S: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %A, %c0 : !mat
  %K = memref.dim %A, %c1 : !mat
  %N = memref.dim %B, %c1 : !mat
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %c = memref.load %C[%i, %j] : !mat
      %cd = arith.extf %c : f32 to f64
      %ca = math.absf %cd : f64
      %r:2 = scf.for %k = %c0 to %K step %c1 iter_args(%s = %cd, %t = %ca) -> (f64, f64) {
        %a = memref.load %A[%i, %k] : !mat
        %b = memref.load %B[%k, %j] : !mat
        %ad = arith.extf %a : f32 to f64
        %bd = arith.extf %b : f32 to f64
        %p = arith.mulf %ad, %bd : f64
        %pa = math.absf %p : f64
        %s2 = arith.addf %s, %p : f64
        %t2 = arith.addf %t, %pa : f64
        scf.yield %s2, %t2 : f64, f64
      }
      memref.store %r#0, %R[%i, %j] : memref<?x?xf64>
      memref.store %r#1, %S[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the largest |X - R| (exact cases) and the number of elements with
// |X - R| > K * 2^-24 * S (the rounding bound).
func.func @compare(%X: !mat, %R: memref<?x?xf64>, %S: memref<?x?xf64>, %K: index, %exact: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %X, %c0 : !mat
  %N = memref.dim %X, %c1 : !mat
  %zero = arith.constant 0.0 : f64
  %u = arith.constant 5.9604644775390625e-08 : f64
  %Ki = arith.index_cast %K : index to i64
  %Kf = arith.sitofp %Ki : i64 to f64
  %Ku = arith.mulf %Kf, %u : f64
  %r:2 = scf.for %i = %c0 to %M step %c1 iter_args(%d = %zero, %n = %c0) -> (f64, index) {
    %r2:2 = scf.for %j = %c0 to %N step %c1 iter_args(%d2 = %d, %n2 = %n) -> (f64, index) {
      %x = memref.load %X[%i, %j] : !mat
      %xd = arith.extf %x : f32 to f64
      %ref = memref.load %R[%i, %j] : memref<?x?xf64>
      %s = memref.load %S[%i, %j] : memref<?x?xf64>
      %e = arith.subf %xd, %ref : f64
      %ae = math.absf %e : f64
      %bound = arith.mulf %Ku, %s : f64
      %bad = arith.cmpf ugt, %ae, %bound : f64
      %n3 = arith.addi %n2, %c1 : index
      %n4 = arith.select %bad, %n3, %n2 : index
      %d3 = arith.maximumf %d2, %ae : f64
      scf.yield %d3, %n4 : f64, index
    }
    scf.yield %r2#0, %r2#1 : f64, index
  }
  scf.if %exact {
    vector.print %r#0 : f64
  } else {
    vector.print %r#1 : index
  }
  return
}

func.func @check(%A: !mat, %B: !mat, %C0: memref<?x?xf32>, %X: memref<?x?xf32>, %exact: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %X, %c0 : memref<?x?xf32>
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : !mat
  %R = memref.alloc(%M, %N) : memref<?x?xf64>
  %S = memref.alloc(%M, %N) : memref<?x?xf64>
  %C0v = memref.cast %C0 : memref<?x?xf32> to !mat
  %Xv = memref.cast %X : memref<?x?xf32> to !mat
  func.call @reference(%A, %B, %C0v, %R, %S) : (!mat, !mat, !mat, memref<?x?xf64>, memref<?x?xf64>) -> ()
  func.call @compare(%Xv, %R, %S, %K, %exact) : (!mat, memref<?x?xf64>, memref<?x?xf64>, index, i1) -> ()
  return
}

func.func @f32(%M: index, %N: index, %K: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %true = arith.constant true
  %A = func.call @ints(%M, %K, %c2, %c3) : (index, index, index, index) -> memref<?x?xf32>
  %B = func.call @ints(%K, %N, %c5, %c2) : (index, index, index, index) -> memref<?x?xf32>
  %C = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %C0 = func.call @copy(%C) : (memref<?x?xf32>) -> memref<?x?xf32>
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %Bv = memref.cast %B : memref<?x?xf32> to !mat
  func.call @check(%Av, %Bv, %C0, %C, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

// f16 and bf16 inputs: the same integers, exact in both types.
func.func @half(%M: index, %N: index, %K: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %true = arith.constant true
  %A = func.call @ints(%M, %K, %c3, %c1) : (index, index, index, index) -> memref<?x?xf32>
  %B = func.call @ints(%K, %N, %c1, %c4) : (index, index, index, index) -> memref<?x?xf32>
  %Ah = memref.alloc(%M, %K) : memref<?x?xf16>
  %Bh = memref.alloc(%K, %N) : memref<?x?xf16>
  %Ab = memref.alloc(%M, %K) : memref<?x?xbf16>
  %Bb = memref.alloc(%K, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<?x?xf32>) outs(%Ah, %Ab : memref<?x?xf16>, memref<?x?xbf16>) {
  ^bb0(%x: f32, %h: f16, %bb: bf16):
    %xh = arith.truncf %x : f32 to f16
    %xb = arith.truncf %x : f32 to bf16
    linalg.yield %xh, %xb : f16, bf16
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%B : memref<?x?xf32>) outs(%Bh, %Bb : memref<?x?xf16>, memref<?x?xbf16>) {
  ^bb0(%x: f32, %h: f16, %bb: bf16):
    %xh = arith.truncf %x : f32 to f16
    %xb = arith.truncf %x : f32 to bf16
    linalg.yield %xh, %xb : f16, bf16
  }
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %Bv = memref.cast %B : memref<?x?xf32> to !mat
  %C = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %C0 = func.call @copy(%C) : (memref<?x?xf32>) -> memref<?x?xf32>
  linalg.matmul ins(%Ah, %Bh : memref<?x?xf16>, memref<?x?xf16>) outs(%C : memref<?x?xf32>)
  func.call @check(%Av, %Bv, %C0, %C, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  %C2 = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  linalg.matmul ins(%Ab, %Bb : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C2 : memref<?x?xf32>)
  func.call @check(%Av, %Bv, %C0, %C2, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

// The rounding case in bf16: sines rounded to bf16 (Ab, Bb), and the same
// values widened back to f32 for the reference (Ar, Br): every product is
// exact in f32, so only the sums round.
func.func @rounding_bf16(%M: index, %N: index, %K: index) {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 1.13 : f32
  %false = arith.constant false
  %A = func.call @sines(%M, %K, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %B = func.call @sines(%K, %N, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %Ab = memref.alloc(%M, %K) : memref<?x?xbf16>
  %Bb = memref.alloc(%K, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<?x?xf32>) outs(%Ab, %A : memref<?x?xbf16>, memref<?x?xf32>) {
  ^bb0(%x: f32, %xb0: bf16, %xr0: f32):
    %xb = arith.truncf %x : f32 to bf16
    %xr = arith.extf %xb : bf16 to f32
    linalg.yield %xb, %xr : bf16, f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%B : memref<?x?xf32>) outs(%Bb, %B : memref<?x?xbf16>, memref<?x?xf32>) {
  ^bb0(%x: f32, %xb0: bf16, %xr0: f32):
    %xb = arith.truncf %x : f32 to bf16
    %xr = arith.extf %xb : bf16 to f32
    linalg.yield %xb, %xr : bf16, f32
  }
  %C = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C0 = func.call @copy(%C) : (memref<?x?xf32>) -> memref<?x?xf32>
  linalg.matmul ins(%Ab, %Bb : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %Bv = memref.cast %B : memref<?x?xf32> to !mat
  func.call @check(%Av, %Bv, %C0, %C, %false) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

// C = A * B from zeros (f32, 150 x 97 x 300: two row blocks, edge columns,
// two K blocks): the zero fill just before the contraction is left to the
// kernel (zeroC), which must not read C then; C holds ones before the fill.
func.func @zero_init() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c97 = arith.constant 97 : index
  %c150 = arith.constant 150 : index
  %c300 = arith.constant 300 : index
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  // Static copies: K must be known for the fill to be left to the kernel.
  %A = func.call @ints(%c150, %c300, %c2, %c3) : (index, index, index, index) -> memref<?x?xf32>
  %B = func.call @ints(%c300, %c97, %c5, %c2) : (index, index, index, index) -> memref<?x?xf32>
  %C = func.call @ones(%c150, %c97) : (index, index) -> memref<?x?xf32>
  %C0 = func.call @ones(%c150, %c97) : (index, index) -> memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%C0 : memref<?x?xf32>)
  %As = memref.alloc() : memref<150x300xf32>
  %Bs = memref.alloc() : memref<300x97xf32>
  %Cs = memref.alloc() : memref<150x97xf32>
  memref.copy %A, %As : memref<?x?xf32> to memref<150x300xf32>
  memref.copy %B, %Bs : memref<?x?xf32> to memref<300x97xf32>
  memref.copy %C, %Cs : memref<?x?xf32> to memref<150x97xf32>
  linalg.fill ins(%zero : f32) outs(%Cs : memref<150x97xf32>)
  linalg.matmul ins(%As, %Bs : memref<150x300xf32>, memref<300x97xf32>) outs(%Cs : memref<150x97xf32>)
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %Bv = memref.cast %B : memref<?x?xf32> to !mat
  %X = memref.cast %Cs : memref<150x97xf32> to memref<?x?xf32>
  func.call @check(%Av, %Bv, %C0, %X, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

// B stored N x K: the pass copies it to row-major before the kernel.
func.func @transposed(%M: index, %N: index, %K: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %true = arith.constant true
  %A = func.call @ints(%M, %K, %c1, %c3) : (index, index, index, index) -> memref<?x?xf32>
  %Bt = func.call @ints(%N, %K, %c3, %c1) : (index, index, index, index) -> memref<?x?xf32>
  %C = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %C0 = func.call @copy(%C) : (memref<?x?xf32>) -> memref<?x?xf32>
  linalg.matmul indexing_maps = [#mapA, #mapBt, #mapC]
      ins(%A, %Bt : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %B = memref.transpose %Bt (i, j) -> (j, i) : memref<?x?xf32> to memref<?x?xf32, strided<[1, ?]>>
  %Bv = memref.cast %B : memref<?x?xf32, strided<[1, ?]>> to !mat
  func.call @check(%Av, %Bv, %C0, %C, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

// 3 x (17 x 40 x 33): one kernel call per batch element.
func.func @batch() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  %c33 = arith.constant 33 : index
  %c40 = arith.constant 40 : index
  %c51 = arith.constant 51 : index
  %c99 = arith.constant 99 : index
  %true = arith.constant true
  %A2 = func.call @ints(%c51, %c33, %c2, %c1) : (index, index, index, index) -> memref<?x?xf32>
  %B2 = func.call @ints(%c99, %c40, %c1, %c3) : (index, index, index, index) -> memref<?x?xf32>
  %C2 = func.call @ones(%c51, %c40) : (index, index) -> memref<?x?xf32>
  %C0 = func.call @copy(%C2) : (memref<?x?xf32>) -> memref<?x?xf32>
  %A2s = memref.cast %A2 : memref<?x?xf32> to memref<51x33xf32>
  %B2s = memref.cast %B2 : memref<?x?xf32> to memref<99x40xf32>
  %C2s = memref.cast %C2 : memref<?x?xf32> to memref<51x40xf32>
  %A = memref.expand_shape %A2s [[0, 1], [2]] output_shape [3, 17, 33] : memref<51x33xf32> into memref<3x17x33xf32>
  %B = memref.expand_shape %B2s [[0, 1], [2]] output_shape [3, 33, 40] : memref<99x40xf32> into memref<3x33x40xf32>
  %C = memref.expand_shape %C2s [[0, 1], [2]] output_shape [3, 17, 40] : memref<51x40xf32> into memref<3x17x40xf32>
  linalg.batch_matmul ins(%A, %B : memref<3x17x33xf32>, memref<3x33x40xf32>) outs(%C : memref<3x17x40xf32>)
  scf.for %b = %c0 to %c3 step %c1 {
    %i0 = arith.muli %b, %c17 : index
    %k0 = arith.muli %b, %c33 : index
    %Ab = memref.subview %A2[%i0, 0] [17, 33] [1, 1] : memref<?x?xf32> to memref<17x33xf32, strided<[?, 1], offset: ?>>
    %Bb = memref.subview %B2[%k0, 0] [33, 40] [1, 1] : memref<?x?xf32> to memref<33x40xf32, strided<[?, 1], offset: ?>>
    %Cb = memref.subview %C2[%i0, 0] [17, 40] [1, 1] : memref<?x?xf32> to memref<17x40xf32, strided<[?, 1], offset: ?>>
    %C0b = memref.subview %C0[%i0, 0] [17, 40] [1, 1] : memref<?x?xf32> to memref<17x40xf32, strided<[?, 1], offset: ?>>
    %Cbc = func.call @copy2(%Cb) : (memref<17x40xf32, strided<[?, 1], offset: ?>>) -> memref<?x?xf32>
    %C0bc = func.call @copy2(%C0b) : (memref<17x40xf32, strided<[?, 1], offset: ?>>) -> memref<?x?xf32>
    %Av = memref.cast %Ab : memref<17x33xf32, strided<[?, 1], offset: ?>> to !mat
    %Bv = memref.cast %Bb : memref<33x40xf32, strided<[?, 1], offset: ?>> to !mat
    func.call @check(%Av, %Bv, %C0bc, %Cbc, %true) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  }
  return
}

func.func @copy2(%x: memref<17x40xf32, strided<[?, 1], offset: ?>>) -> memref<?x?xf32> {
  %c17 = arith.constant 17 : index
  %c40 = arith.constant 40 : index
  %y = memref.alloc(%c17, %c40) : memref<?x?xf32>
  %ys = memref.cast %y : memref<?x?xf32> to memref<17x40xf32>
  memref.copy %x, %ys : memref<17x40xf32, strided<[?, 1], offset: ?>> to memref<17x40xf32>
  return %y : memref<?x?xf32>
}

// Sines in f32: the rounding bound.
func.func @rounding(%M: index, %N: index, %K: index) {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 1.13 : f32
  %false = arith.constant false
  %A = func.call @sines(%M, %K, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %B = func.call @sines(%K, %N, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C0 = func.call @copy(%C) : (memref<?x?xf32>) -> memref<?x?xf32>
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  %Av = memref.cast %A : memref<?x?xf32> to !mat
  %Bv = memref.cast %B : memref<?x?xf32> to !mat
  func.call @check(%Av, %Bv, %C0, %C, %false) : (!mat, !mat, memref<?x?xf32>, memref<?x?xf32>, i1) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %c28 = arith.constant 28 : index
  %c33 = arith.constant 33 : index
  %c64 = arith.constant 64 : index
  %c70 = arith.constant 70 : index
  %c97 = arith.constant 97 : index
  %c150 = arith.constant 150 : index
  %c300 = arith.constant 300 : index
  %c512 = arith.constant 512 : index
  %c600 = arith.constant 600 : index
  %c601 = arith.constant 601 : index
  %c130 = arith.constant 130 : index
  %c40 = arith.constant 40 : index
  %c257 = arith.constant 257 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %c30 = arith.constant 30 : index
  %c45 = arith.constant 45 : index
  %c50 = arith.constant 50 : index
  %c115 = arith.constant 115 : index
  %c256 = arith.constant 256 : index
  %c514 = arith.constant 514 : index
  %c5 = arith.constant 5 : index
  %c1100 = arith.constant 1100 : index
  %c1030 = arith.constant 1030 : index
  // Wide C (1100 columns, 35 panels): one task packs at most 512 KiB of B a
  // K block (16 f32 panels, 16 bf16 pair panels of 512 k), so the columns
  // are split into ranges (unequal: 11 + 12 + 12 panels) even on one thread.
  // CHECK-COUNT-7: {{^}}0{{$}}
  func.call @f32(%c5, %c1100, %c40) : (index, index, index) -> ()
  func.call @f32(%c28, %c64, %c512) : (index, index, index) -> ()
  func.call @f32(%c33, %c70, %c17) : (index, index, index) -> ()
  func.call @f32(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @f32(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @f32(%c150, %c97, %c300) : (index, index, index) -> ()
  func.call @transposed(%c33, %c70, %c600) : (index, index, index) -> ()
  // CHECK-COUNT-3: {{^}}0{{$}}
  func.call @batch() : () -> ()
  // f16 and bf16: 2 lines each; odd K (a k pair padded with zero), K one
  // past the K block (257; the AVX512-BF16 kernel's K blocks are 512), ragged
  // rows (30 = 2 x 14 + 2, 115 = 112 + 3), a ragged panel (40 = 32 + 8), K
  // past two K blocks (514; 1030 for AVX512-BF16's) and K = 2.
  // CHECK-COUNT-18: {{^}}0{{$}}
  func.call @half(%c5, %c1100, %c40) : (index, index, index) -> ()
  func.call @half(%c150, %c97, %c300) : (index, index, index) -> ()
  func.call @half(%c33, %c70, %c17) : (index, index, index) -> ()
  func.call @half(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @half(%c130, %c40, %c257) : (index, index, index) -> ()
  func.call @half(%c30, %c40, %c514) : (index, index, index) -> ()
  func.call @half(%c30, %c40, %c1030) : (index, index, index) -> ()
  func.call @half(%c115, %c64, %c256) : (index, index, index) -> ()
  func.call @half(%c3, %c20, %c2) : (index, index, index) -> ()
  // The rounding case with K odd and even.
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounding_bf16(%c70, %c33, %c601) : (index, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounding_bf16(%c45, %c50, %c600) : (index, index, index) -> ()
  // The bound (this prints a count, not a difference).
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounding(%c70, %c33, %c600) : (index, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @zero_init() : () -> ()
  // CHECK-NOT: {{.}}
  return
}
