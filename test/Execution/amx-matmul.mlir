// The AMX kernel of --mpt-lower-to-cpu="amx=1" (--mpt-matmul-to-cpu-kernels)
// against the generic lowering in f32 (avx512=0: the f32 reference matmuls
// stay loops). Inputs are small integers (|x| <= 3), so every
// bf16 input, product and partial sum (at most 600 * 9) is exact in bf16 and
// f32: the kernel must agree with the reference exactly, whatever the order
// of summation, and each case prints the largest absolute difference, 0.
// Shapes: multiples of the 32x32 block (one K block; and several row blocks,
// column panels and K blocks, so that C's tiles are loaded in place), ragged
// in M, N and K (edge blocks through the scratch copy), 1x1x1, K past the
// 256 K block (a ragged last block), a batch, and transposed operands (named
// and generic; the kernel packs them from their transposes: ragged, exact,
// and several K blocks).
// REQUIRES: amx
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mpt_amx_runtime,%mlir_runner_libs | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// A wrong element anywhere makes its case print a non-zero difference: C
// starts at 1, not 0, so a kernel that drops C's old value fails too.

// REPORT: CPU kernels (amx, no avx512): 7 of 14 contractions lowered
// REPORT: ?x?x? bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 ({{.*}}A is transposed: packed from its transpose; B is transposed: packed from its transpose)
// REPORT: ?x?x? bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 ({{.*}}; B is transposed: packed from its transpose)
// REPORT: 70x33x600 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 ({{.*}}C's zero fill left to the kernel)
// REPORT: ?x?x? bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 ({{.*}}; its rounding to bf16 written by the kernel)
// REPORT: ?x?x? bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16 ({{.*}}; C written rounded to bf16 for the op that reads it rounded)

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapAt = affine_map<(m, n, k) -> (k, m)>
#mapB = affine_map<(m, n, k) -> (k, n)>
#mapBt = affine_map<(m, n, k) -> (n, k)>
#mapC = affine_map<(m, n, k) -> (m, n)>

// x[i, j] = ((a*i + b*j) mod 7) - 3
func.func @fill(%x: memref<?x?xbf16>, %a: index, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %r = memref.dim %x, %c0 : memref<?x?xbf16>
  %c = memref.dim %x, %c1 : memref<?x?xbf16>
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ai = arith.muli %a, %i : index
      %bj = arith.muli %b, %j : index
      %s = arith.addi %ai, %bj : index
      %t = arith.remui %s, %c7 : index
      %u = arith.subi %t, %c3 : index
      %v = arith.index_cast %u : index to i32
      %f = arith.sitofp %v : i32 to bf16
      memref.store %f, %x[%i, %j] : memref<?x?xbf16>
    }
  }
  return
}

func.func @widen(%x: memref<?x?xbf16>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xbf16>
  %c = memref.dim %x, %c1 : memref<?x?xbf16>
  %y = memref.alloc(%r, %c) : memref<?x?xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xbf16>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  return %y : memref<?x?xf32>
}

// Largest |x - y|; the accumulators start at 1 so that C is read too.
func.func @maxdiff(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xf32>
  %c = memref.dim %x, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %d = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %zero) -> f32 {
    %d2 = scf.for %j = %c0 to %c step %c1 iter_args(%acc2 = %acc) -> f32 {
      %a = memref.load %x[%i, %j] : memref<?x?xf32>
      %b = memref.load %y[%i, %j] : memref<?x?xf32>
      %e = arith.subf %a, %b : f32
      %ae = math.absf %e : f32
      %m = arith.maximumf %ae, %acc2 : f32
      scf.yield %m : f32
    }
    scf.yield %d2 : f32
  }
  vector.print %d : f32
  return
}

func.func @ones(%r: index, %c: index) -> memref<?x?xf32> {
  %one = arith.constant 1.0 : f32
  %x = memref.alloc(%r, %c) : memref<?x?xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<?x?xf32>)
  return %x : memref<?x?xf32>
}

func.func @matmul(%M: index, %N: index, %K: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %A = memref.alloc(%M, %K) : memref<?x?xbf16>
  %B = memref.alloc(%K, %N) : memref<?x?xbf16>
  func.call @fill(%A, %c2, %c3) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B, %c5, %c2) : (memref<?x?xbf16>, index, index) -> ()
  %C = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %R = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf = func.call @widen(%B) : (memref<?x?xbf16>) -> memref<?x?xf32>
  linalg.matmul ins(%Af, %Bf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  func.call @maxdiff(%C, %R) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// A stored K x M and B stored N x K: a named matmul with transposed maps and
// the same contraction as a linalg.generic.
func.func @transposed(%M: index, %N: index, %K: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %At = memref.alloc(%K, %M) : memref<?x?xbf16>
  %Bt = memref.alloc(%N, %K) : memref<?x?xbf16>
  func.call @fill(%At, %c3, %c1) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%Bt, %c1, %c3) : (memref<?x?xbf16>, index, index) -> ()
  %Atf = func.call @widen(%At) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Btf = func.call @widen(%Bt) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %C = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %R = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  linalg.matmul indexing_maps = [#mapAt, #mapBt, #mapC]
      ins(%At, %Bt : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  linalg.matmul indexing_maps = [#mapAt, #mapBt, #mapC]
      ins(%Atf, %Btf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  func.call @maxdiff(%C, %R) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  %A = memref.alloc(%M, %K) : memref<?x?xbf16>
  func.call @fill(%A, %c1, %c3) : (memref<?x?xbf16>, index, index) -> ()
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %C2 = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  %R2 = func.call @ones(%M, %N) : (index, index) -> memref<?x?xf32>
  linalg.generic {indexing_maps = [#mapA, #mapBt, #mapC],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %Bt : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C2 : memref<?x?xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul indexing_maps = [#mapA, #mapBt, #mapC]
      ins(%Af, %Btf : memref<?x?xf32>, memref<?x?xf32>) outs(%R2 : memref<?x?xf32>)
  func.call @maxdiff(%C2, %R2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// 3 x (17 x 40 x 33), static shapes.
func.func @batch() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  %c40 = arith.constant 40 : index
  %c51 = arith.constant 51 : index
  %c99 = arith.constant 99 : index
  %c120 = arith.constant 120 : index
  // Filled as 2-d arrays of stacked matrices, then viewed as 3-d.
  %A2 = memref.alloc(%c51, %c99) : memref<?x?xbf16>
  %B2 = memref.alloc(%c99, %c40) : memref<?x?xbf16>
  func.call @fill(%A2, %c2, %c1) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B2, %c1, %c3) : (memref<?x?xbf16>, index, index) -> ()
  %A2s = memref.cast %A2 : memref<?x?xbf16> to memref<51x99xbf16>
  %B2s = memref.cast %B2 : memref<?x?xbf16> to memref<99x40xbf16>
  %A = memref.expand_shape %A2s [[0, 1], [2]] output_shape [3, 17, 99] : memref<51x99xbf16> into memref<3x17x99xbf16>
  %A3 = memref.subview %A[0, 0, 0] [3, 17, 33] [1, 1, 3] : memref<3x17x99xbf16> to memref<3x17x33xbf16, strided<[1683, 99, 3]>>
  %B = memref.expand_shape %B2s [[0, 1], [2]] output_shape [3, 33, 40] : memref<99x40xbf16> into memref<3x33x40xbf16>
  %Af2 = func.call @widen(%A2) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf2 = func.call @widen(%B2) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Af2s = memref.cast %Af2 : memref<?x?xf32> to memref<51x99xf32>
  %Bf2s = memref.cast %Bf2 : memref<?x?xf32> to memref<99x40xf32>
  %Af = memref.expand_shape %Af2s [[0, 1], [2]] output_shape [3, 17, 99] : memref<51x99xf32> into memref<3x17x99xf32>
  %Af3 = memref.subview %Af[0, 0, 0] [3, 17, 33] [1, 1, 3] : memref<3x17x99xf32> to memref<3x17x33xf32, strided<[1683, 99, 3]>>
  %Bf = memref.expand_shape %Bf2s [[0, 1], [2]] output_shape [3, 33, 40] : memref<99x40xf32> into memref<3x33x40xf32>
  %C2 = func.call @ones(%c51, %c40) : (index, index) -> memref<?x?xf32>
  %R2 = func.call @ones(%c51, %c40) : (index, index) -> memref<?x?xf32>
  %C2s = memref.cast %C2 : memref<?x?xf32> to memref<51x40xf32>
  %R2s = memref.cast %R2 : memref<?x?xf32> to memref<51x40xf32>
  %C = memref.expand_shape %C2s [[0, 1], [2]] output_shape [3, 17, 40] : memref<51x40xf32> into memref<3x17x40xf32>
  %R = memref.expand_shape %R2s [[0, 1], [2]] output_shape [3, 17, 40] : memref<51x40xf32> into memref<3x17x40xf32>
  // A's K is strided (every third column): the kernel copies it first.
  linalg.batch_matmul ins(%A3, %B : memref<3x17x33xbf16, strided<[1683, 99, 3]>>, memref<3x33x40xbf16>) outs(%C : memref<3x17x40xf32>)
  linalg.batch_matmul ins(%Af3, %Bf : memref<3x17x33xf32, strided<[1683, 99, 3]>>, memref<3x33x40xf32>) outs(%R : memref<3x17x40xf32>)
  func.call @maxdiff(%C2, %R2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// C = A * B from zeros: the zero fill just before the contraction is left
// to the kernel (its zeroC argument), which must then not read C: C holds
// ones before the fill, so a kernel that read it would be off by one. K = 600
// spans three K blocks (the later ones must read what the first stored), and
// 70 x 33 has edge blocks (the scratch copy must start from zeros too).
func.func @zero_init() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c33 = arith.constant 33 : index
  %c70 = arith.constant 70 : index
  %c600 = arith.constant 600 : index
  %zero = arith.constant 0.0 : f32
  %A = memref.alloc(%c70, %c600) : memref<?x?xbf16>
  %B = memref.alloc(%c600, %c33) : memref<?x?xbf16>
  func.call @fill(%A, %c2, %c3) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B, %c1, %c2) : (memref<?x?xbf16>, index, index) -> ()
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf = func.call @widen(%B) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %C = func.call @ones(%c70, %c33) : (index, index) -> memref<?x?xf32>
  %R = func.call @ones(%c70, %c33) : (index, index) -> memref<?x?xf32>
  %As = memref.cast %A : memref<?x?xbf16> to memref<70x600xbf16>
  %Bs = memref.cast %B : memref<?x?xbf16> to memref<600x33xbf16>
  %Cs = memref.cast %C : memref<?x?xf32> to memref<70x33xf32>
  linalg.fill ins(%zero : f32) outs(%Cs : memref<70x33xf32>)
  linalg.matmul ins(%As, %Bs : memref<70x600xbf16>, memref<600x33xbf16>) outs(%Cs : memref<70x33xf32>)
  linalg.fill ins(%zero : f32) outs(%R : memref<?x?xf32>)
  linalg.matmul ins(%Af, %Bf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  func.call @maxdiff(%C, %R) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// C = A * B rounded to bf16 by a separate op, C read by nothing else: the
// kernel writes the rounded values itself (its epilogue; the REPORT line
// says so). Sums of products of |x| <= 3 reach a few thousand, past bf16's 8
// significant bits, so the rounding is not trivial; f32 sums of integers
// are exact in any order, so both roundings must agree bit for bit. Ragged
// M and N, K past one K block (the f32 partial sums go through C first).
func.func @rounded(%M: index, %N: index, %K: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %A = memref.alloc(%M, %K) : memref<?x?xbf16>
  %B = memref.alloc(%K, %N) : memref<?x?xbf16>
  func.call @fill(%A, %c2, %c1) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B, %c1, %c2) : (memref<?x?xbf16>, index, index) -> ()
  %C = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%C : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %D = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%C : memref<?x?xf32>) outs(%D : memref<?x?xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf = func.call @widen(%B) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %R = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%R : memref<?x?xf32>)
  linalg.matmul ins(%Af, %Bf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  %Rb = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%R : memref<?x?xf32>) outs(%Rb : memref<?x?xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %Dw = func.call @widen(%D) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Rw = func.call @widen(%Rb) : (memref<?x?xbf16>) -> memref<?x?xf32>
  func.call @maxdiff(%Dw, %Rw) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// The same product read by a bias add that rounds it to bf16 first
// (autocast's x W^T + b): the kernel writes a bf16 copy of C that the add
// reads instead of rounding C itself. bias[j] = j - 20 (exact in bf16);
// the reference rounds the f32 loops' product the same way.
func.func @rounded_bias(%M: index, %N: index, %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %A = memref.alloc(%M, %K) : memref<?x?xbf16>
  %B = memref.alloc(%K, %N) : memref<?x?xbf16>
  func.call @fill(%A, %c2, %c1) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B, %c1, %c2) : (memref<?x?xbf16>, index, index) -> ()
  %bias = memref.alloc(%N) : memref<?xbf16>
  scf.for %j = %c0 to %N step %c1 {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to bf16
    %c20 = arith.constant 20.0 : bf16
    %v = arith.subf %jf, %c20 : bf16
    memref.store %v, %bias[%j] : memref<?xbf16>
  }
  %C = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%C : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %D = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : memref<?x?xf32>, memref<?xbf16>) outs(%D : memref<?x?xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %re = arith.extf %r : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %s = arith.addf %re, %ye : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf = func.call @widen(%B) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %R = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%R : memref<?x?xf32>)
  linalg.matmul ins(%Af, %Bf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  %Rb = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%R, %bias : memref<?x?xf32>, memref<?xbf16>) outs(%Rb : memref<?x?xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %re = arith.extf %r : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %s = arith.addf %re, %ye : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  %Dw = func.call @widen(%D) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Rw = func.call @widen(%Rb) : (memref<?x?xbf16>) -> memref<?x?xf32>
  func.call @maxdiff(%Dw, %Rw) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %c33 = arith.constant 33 : index
  %c64 = arith.constant 64 : index
  %c70 = arith.constant 70 : index
  %c600 = arith.constant 600 : index
  %c96 = arith.constant 96 : index
  %c97 = arith.constant 97 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  %c300 = arith.constant 300 : index
  %c512 = arith.constant 512 : index
  // CHECK: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  func.call @matmul(%c64, %c64, %c64) : (index, index, index) -> ()
  func.call @matmul(%c96, %c128, %c512) : (index, index, index) -> ()
  func.call @matmul(%c33, %c70, %c17) : (index, index, index) -> ()
  func.call @matmul(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @matmul(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @matmul(%c100, %c97, %c300) : (index, index, index) -> ()
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  func.call @transposed(%c33, %c70, %c600) : (index, index, index) -> ()
  func.call @transposed(%c64, %c64, %c64) : (index, index, index) -> ()
  func.call @transposed(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @transposed(%c100, %c97, %c300) : (index, index, index) -> ()
  // CHECK-NEXT: 0
  func.call @batch() : () -> ()
  // CHECK-NEXT: 0
  func.call @zero_init() : () -> ()
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  func.call @rounded(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @rounded(%c64, %c64, %c64) : (index, index, index) -> ()
  // CHECK-NEXT: 0
  func.call @rounded_bias(%c70, %c33, %c600) : (index, index, index) -> ()
  return
}
