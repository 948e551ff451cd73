// The AVX512-BF16 kernel's rounding epilogue (--mpt-matmul-to-cpu-kernels,
// the same as the AMX kernel's): when C's only reader rounds it to bf16, the
// kernel's last K block writes the rounded sums itself and C's f32 values
// are never stored. Against the f32 reference rounded by a separate op:
// inputs are small integers (|x| <= 3), so every product and f32 partial
// sum is exact in any order, and the sums (up to a few thousand, past
// bf16's 8 significant bits) must round to the same bf16 bit for bit; each
// case prints the largest absolute difference, 0. C starts at 1.5 (not 0),
// so a kernel that drops C's old value fails, and K = 0 (no K block: the
// rounding of C as it is, after the call) gives 1.5 rounded.
// REQUIRES: avx512bf16, openmp
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=0 avx512=1 avx512-bf16=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// Two threads: each task rounds its own block of C.
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=0 avx512=1 avx512-bf16=1 parallel=1 parallel-min-work=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime | FileCheck %s

// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512bf16_matmul_bf16 ({{.*}}its rounding to bf16 written by the kernel)
// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512bf16_matmul_bf16 ({{.*}}C written rounded to bf16 for the op that reads it rounded)
// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512bf16_matmul_bf16 ({{.*}}its rounding to bf16 written by the kernel)

#id2 = affine_map<(i, j) -> (i, j)>
#id4 = affine_map<(i, j, k, l) -> (i, j, k, l)>

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
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xbf16>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  return %y : memref<?x?xf32>
}

// Largest |x - y|, x and y bf16.
func.func @maxdiff(%xb: memref<?x?xbf16>, %yb: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = func.call @widen(%xb) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %y = func.call @widen(%yb) : (memref<?x?xbf16>) -> memref<?x?xf32>
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

// The f32 reference, 1.5 + A B in f32 (the f32 kernel: exact on these
// integers), rounded to bf16 by a separate op.
func.func @reference(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>) -> memref<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 1.5 : f32
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %Af = func.call @widen(%A) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %Bf = func.call @widen(%B) : (memref<?x?xbf16>) -> memref<?x?xf32>
  %R = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%init : f32) outs(%R : memref<?x?xf32>)
  linalg.matmul ins(%Af, %Bf : memref<?x?xf32>, memref<?x?xf32>) outs(%R : memref<?x?xf32>)
  %Rb = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%R : memref<?x?xf32>) outs(%Rb : memref<?x?xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  return %Rb : memref<?x?xbf16>
}

func.func @inputs(%M: index, %N: index, %K: index) -> (memref<?x?xbf16>, memref<?x?xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %A = memref.alloc(%M, %K) : memref<?x?xbf16>
  %B = memref.alloc(%K, %N) : memref<?x?xbf16>
  func.call @fill(%A, %c2, %c1) : (memref<?x?xbf16>, index, index) -> ()
  func.call @fill(%B, %c1, %c2) : (memref<?x?xbf16>, index, index) -> ()
  return %A, %B : memref<?x?xbf16>, memref<?x?xbf16>
}

// C = 1.5 + A B rounded to bf16 by an op that reads nothing else: the
// kernel writes the rounded values into D.
func.func @rounded(%M: index, %N: index, %K: index) {
  %init = arith.constant 1.5 : f32
  %A, %B = func.call @inputs(%M, %N, %K) : (index, index, index) -> (memref<?x?xbf16>, memref<?x?xbf16>)
  %C = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%init : f32) outs(%C : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %D = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%C : memref<?x?xf32>) outs(%D : memref<?x?xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %R = func.call @reference(%A, %B) : (memref<?x?xbf16>, memref<?x?xbf16>) -> memref<?x?xbf16>
  func.call @maxdiff(%D, %R) : (memref<?x?xbf16>, memref<?x?xbf16>) -> ()
  return
}

// The same product read by an op that rounds it to bf16 and then adds a
// bias (autocast's x W^T + b): the kernel writes a bf16 copy of C that the
// op reads instead. bias[j] = j - 20 (exact in bf16); the reference adds it
// to its rounded product the same way.
func.func @rounded_bias(%M: index, %N: index, %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 1.5 : f32
  %A, %B = func.call @inputs(%M, %N, %K) : (index, index, index) -> (memref<?x?xbf16>, memref<?x?xbf16>)
  %bias = memref.alloc(%N) : memref<?xbf16>
  %c20 = arith.constant 20.0 : bf16
  scf.for %j = %c0 to %N step %c1 {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to bf16
    %v = arith.subf %jf, %c20 : bf16
    memref.store %v, %bias[%j] : memref<?xbf16>
  }
  %C = memref.alloc(%M, %N) : memref<?x?xf32>
  linalg.fill ins(%init : f32) outs(%C : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %D = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (j)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : memref<?x?xf32>, memref<?xbf16>) outs(%D : memref<?x?xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %re = arith.extf %r : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %s = arith.addf %re, %ye : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  %R = func.call @reference(%A, %B) : (memref<?x?xbf16>, memref<?x?xbf16>) -> memref<?x?xbf16>
  %Rb = memref.alloc(%M, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (j)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%R, %bias : memref<?x?xbf16>, memref<?xbf16>) outs(%Rb : memref<?x?xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %re = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %s = arith.addf %re, %ye : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  func.call @maxdiff(%D, %Rb) : (memref<?x?xbf16>, memref<?x?xbf16>) -> ()
  return
}

// A convolution's weight gradient: the product is a 20 x 36 matrix rounded
// as 20 x 4 x 3 x 3 (an expand_shape between); K = 600, past one K block (512 k).
func.func @rounded_reshaped() {
  %c20 = arith.constant 20 : index
  %c36 = arith.constant 36 : index
  %c600 = arith.constant 600 : index
  %init = arith.constant 1.5 : f32
  %A, %B = func.call @inputs(%c20, %c36, %c600) : (index, index, index) -> (memref<?x?xbf16>, memref<?x?xbf16>)
  %As = memref.cast %A : memref<?x?xbf16> to memref<20x600xbf16>
  %Bs = memref.cast %B : memref<?x?xbf16> to memref<600x36xbf16>
  %C = memref.alloc() : memref<20x36xf32>
  linalg.fill ins(%init : f32) outs(%C : memref<20x36xf32>)
  linalg.matmul ins(%As, %Bs : memref<20x600xbf16>, memref<600x36xbf16>) outs(%C : memref<20x36xf32>)
  %C4 = memref.expand_shape %C [[0], [1, 2, 3]] output_shape [20, 4, 3, 3] : memref<20x36xf32> into memref<20x4x3x3xf32>
  %D4 = memref.alloc() : memref<20x4x3x3xbf16>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%C4 : memref<20x4x3x3xf32>) outs(%D4 : memref<20x4x3x3xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %D = memref.collapse_shape %D4 [[0], [1, 2, 3]] : memref<20x4x3x3xbf16> into memref<20x36xbf16>
  %Dd = memref.cast %D : memref<20x36xbf16> to memref<?x?xbf16>
  %R = func.call @reference(%A, %B) : (memref<?x?xbf16>, memref<?x?xbf16>) -> memref<?x?xbf16>
  func.call @maxdiff(%Dd, %R) : (memref<?x?xbf16>, memref<?x?xbf16>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c33 = arith.constant 33 : index
  %c64 = arith.constant 64 : index
  %c70 = arith.constant 70 : index
  %c600 = arith.constant 600 : index
  // Ragged M and N, K past one K block of 512 k (the f32 partial sums go
  // through C first); one K block; 1x1x1; K = 0.
  // CHECK: {{^}}0{{$}}
  // CHECK-NEXT: {{^}}0{{$}}
  // CHECK-NEXT: {{^}}0{{$}}
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounded(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @rounded(%c64, %c64, %c64) : (index, index, index) -> ()
  func.call @rounded(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @rounded(%c5, %c7, %c0) : (index, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounded_bias(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @rounded_bias(%c5, %c7, %c0) : (index, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @rounded_reshaped() : () -> ()
  // CHECK-NOT: {{.}}
  return
}
