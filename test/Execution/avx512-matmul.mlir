// The AVX-512 kernels of --mpt-lower-to-cpu="avx512=1" are bit-identical to
// the generic lowering (convert-linalg-to-loops): they add the products in
// the same order, each rounded to f32 before it is added. The inputs are
// sines (no exact arithmetic here); each case prints a checksum of the bit
// patterns of its result, and the two runs must print the same lines.
// Cases: f32 at multiples of the 8x32 block, ragged, 1x1x1, long K, B
// transposed (copied), a batch; f16 and bf16 inputs (widened to f32 in the
// packs, exactly). The vector code runs on any x86-64 (LLVM splits the
// 512-bit vectors where AVX-512 is missing), so no CPU feature is required.
// RUN: mpt-opt %s --mpt-lower-to-cpu | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs > %t.generic
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 kernel-report=%t.report" | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs > %t.avx512
// RUN: diff %t.generic %t.avx512
// RUN: FileCheck %s < %t.avx512
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// Every case printed a checksum (the diff is not vacuous):
// CHECK-COUNT-8: {{^-?[0-9]+$}}
// REPORT: CPU kernels (no amx, avx512): 5 of 5 contractions lowered
// REPORT: linalg.matmul ?x?x? f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul ?x?x? f16 x f16 -> f32: @__mpt_avx512_matmul_f16
// REPORT: linalg.matmul ?x?x? bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapBt = affine_map<(m, n, k) -> (n, k)>
#mapC = affine_map<(m, n, k) -> (m, n)>

// x[i, j] = sin(a*i + b*j)
func.func @fill(%x: memref<?x?xf32>, %a: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xf32>
  %c = memref.dim %x, %c1 : memref<?x?xf32>
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
  return
}

func.func @sines(%r: index, %c: index, %a: f32, %b: f32) -> memref<?x?xf32> {
  %x = memref.alloc(%r, %c) : memref<?x?xf32>
  func.call @fill(%x, %a, %b) : (memref<?x?xf32>, f32, f32) -> ()
  return %x : memref<?x?xf32>
}

// h = h * 31 + bits(x[i, j]), wrapping.
func.func @checksum(%x: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xf32>
  %c = memref.dim %x, %c1 : memref<?x?xf32>
  %zero = arith.constant 0 : i64
  %k31 = arith.constant 31 : i64
  %h = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %zero) -> i64 {
    %h2 = scf.for %j = %c0 to %c step %c1 iter_args(%acc2 = %acc) -> i64 {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %bits = arith.bitcast %v : f32 to i32
      %wide = arith.extui %bits : i32 to i64
      %m = arith.muli %acc2, %k31 : i64
      %s = arith.addi %m, %wide : i64
      scf.yield %s : i64
    }
    scf.yield %h2 : i64
  }
  vector.print %h : i64
  return
}

func.func @f32(%M: index, %N: index, %K: index) {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 1.13 : f32
  %A = func.call @sines(%M, %K, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %B = func.call @sines(%K, %N, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  func.call @checksum(%C) : (memref<?x?xf32>) -> ()
  return
}

func.func @transposed(%M: index, %N: index, %K: index) {
  %a = arith.constant 0.71 : f32
  %b = arith.constant 0.23 : f32
  %A = func.call @sines(%M, %K, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %Bt = func.call @sines(%N, %K, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  linalg.matmul indexing_maps = [#mapA, #mapBt, #mapC]
      ins(%A, %Bt : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  func.call @checksum(%C) : (memref<?x?xf32>) -> ()
  return
}

// 3 x (17 x 40 x 33)
func.func @batch() {
  %c40 = arith.constant 40 : index
  %c51 = arith.constant 51 : index
  %c99 = arith.constant 99 : index
  %c33 = arith.constant 33 : index
  %a = arith.constant 0.19 : f32
  %b = arith.constant 0.83 : f32
  %A2 = func.call @sines(%c51, %c33, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %B2 = func.call @sines(%c99, %c40, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %C2 = func.call @sines(%c51, %c40, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %A2s = memref.cast %A2 : memref<?x?xf32> to memref<51x33xf32>
  %B2s = memref.cast %B2 : memref<?x?xf32> to memref<99x40xf32>
  %C2s = memref.cast %C2 : memref<?x?xf32> to memref<51x40xf32>
  %A = memref.expand_shape %A2s [[0, 1], [2]] output_shape [3, 17, 33] : memref<51x33xf32> into memref<3x17x33xf32>
  %B = memref.expand_shape %B2s [[0, 1], [2]] output_shape [3, 33, 40] : memref<99x40xf32> into memref<3x33x40xf32>
  %C = memref.expand_shape %C2s [[0, 1], [2]] output_shape [3, 17, 40] : memref<51x40xf32> into memref<3x17x40xf32>
  linalg.batch_matmul ins(%A, %B : memref<3x17x33xf32>, memref<3x33x40xf32>) outs(%C : memref<3x17x40xf32>)
  func.call @checksum(%C2) : (memref<?x?xf32>) -> ()
  return
}

// f16 and bf16 inputs: the sines rounded to the input type.
func.func @half(%M: index, %N: index, %K: index) {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 1.13 : f32
  %A = func.call @sines(%M, %K, %a, %b) : (index, index, f32, f32) -> memref<?x?xf32>
  %B = func.call @sines(%K, %N, %b, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  %Ah = memref.alloc(%M, %K) : memref<?x?xf16>
  %Bh = memref.alloc(%K, %N) : memref<?x?xf16>
  %Ab = memref.alloc(%M, %K) : memref<?x?xbf16>
  %Bb = memref.alloc(%K, %N) : memref<?x?xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<?x?xf32>) outs(%Ah, %Ab : memref<?x?xf16>, memref<?x?xbf16>) {
  ^bb0(%x: f32, %h: f16, %bb: bf16):
    %xh = arith.truncf %x : f32 to f16
    %xb = arith.truncf %x : f32 to bf16
    linalg.yield %xh, %xb : f16, bf16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%B : memref<?x?xf32>) outs(%Bh, %Bb : memref<?x?xf16>, memref<?x?xbf16>) {
  ^bb0(%x: f32, %h: f16, %bb: bf16):
    %xh = arith.truncf %x : f32 to f16
    %xb = arith.truncf %x : f32 to bf16
    linalg.yield %xh, %xb : f16, bf16
  }
  %C = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  linalg.matmul ins(%Ah, %Bh : memref<?x?xf16>, memref<?x?xf16>) outs(%C : memref<?x?xf32>)
  func.call @checksum(%C) : (memref<?x?xf32>) -> ()
  %C2 = func.call @sines(%M, %N, %a, %a) : (index, index, f32, f32) -> memref<?x?xf32>
  linalg.matmul ins(%Ab, %Bb : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C2 : memref<?x?xf32>)
  func.call @checksum(%C2) : (memref<?x?xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %c33 = arith.constant 33 : index
  %c64 = arith.constant 64 : index
  %c70 = arith.constant 70 : index
  %c600 = arith.constant 600 : index
  func.call @f32(%c64, %c64, %c64) : (index, index, index) -> ()
  func.call @f32(%c33, %c70, %c17) : (index, index, index) -> ()
  func.call @f32(%c1, %c1, %c1) : (index, index, index) -> ()
  func.call @f32(%c70, %c33, %c600) : (index, index, index) -> ()
  func.call @transposed(%c33, %c70, %c600) : (index, index, index) -> ()
  func.call @batch() : () -> ()
  func.call @half(%c33, %c70, %c600) : (index, index, index) -> ()
  return
}
