// Range safety: a constant (or a value filled or moved from one) that the
// low type cannot hold keeps its consumer in f32, and the report says why.
// -1e9 overflows f16 (max 65504) but fits bf16; 1e-30 flushes to zero in
// f16 (smallest subnormal 2^-24) but not in bf16 (2^-133).
// RUN: mpt-opt %s --split-input-file --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-autocast="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %s --split-input-file --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

#id = affine_map<(i, j) -> (i, j)>

// The mask add sits between two matmuls, but its mask is a -1e9 constant:
// it stays f32 in f16 mode and becomes bf16 in bf16 mode.
// CHECK-LABEL: func.func @mask_between_matmuls
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// BF16-LABEL: func.func @mask_between_matmuls
// BF16: %[[MASK:.*]] = arith.constant dense<-1.000000e+09> : tensor<4x4xf32>
// BF16: %[[MASK16:.*]] = arith.truncf %[[MASK]] : tensor<4x4xf32> to tensor<4x4xbf16>
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %[[MASK16]] : tensor<4x4xbf16>, tensor<4x4xbf16>) outs(%{{.*}} : tensor<4x4xbf16>)
// REPORT-LABEL: mpt precision report: @mask_between_matmuls
// REPORT: range.mlir:[[@LINE+7]]:13 linalg.generic [forward] f32: range: reads constant -1e+09 overflows f16 (max 65504) (arith.constant at {{.*}}range.mlir:[[@LINE+5]]:11): kept f32
func.func @mask_between_matmuls(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mask = arith.constant dense<-1.0e9> : tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %mask : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %mm2 = linalg.matmul ins(%masked, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm2 : tensor<4x4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A value the pass can bound: a fill of 1e-30, moved by a transpose. The
// fill, the transpose and the multiply that reads it stay f32 in f16 mode;
// in bf16 mode they are between the matmuls and become bf16.
// CHECK-LABEL: func.func @tiny_fill
// CHECK: %[[TINY:.*]] = arith.constant 1.000000e-30 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[TINY]] : f32) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[F]] : tensor<4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[T]] : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// BF16-LABEL: func.func @tiny_fill
// BF16: %[[TINY:.*]] = arith.constant 1.000000e-30 : f32
// BF16: %[[TINY16:.*]] = arith.truncf %[[TINY]] : f32 to bf16
// BF16: linalg.fill ins(%[[TINY16]] : bf16) outs(%{{.*}} : tensor<4x4xbf16>)
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16>) outs(%{{.*}} : tensor<4x4xbf16>)
// REPORT-LABEL: mpt precision report: @tiny_fill
// REPORT: linalg.fill [forward] f32: range: reads constant 1e-30 flushes to zero in f16 (smallest subnormal 5.96046e-08)
// REPORT: linalg.transpose [forward] f32: range: reads constant 1e-30 flushes to zero in f16
// REPORT: linalg.generic [forward] f32: range: reads constant 1e-30 flushes to zero in f16
func.func @tiny_fill(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %tiny = arith.constant 1.0e-30 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %f = linalg.fill ins(%tiny : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = linalg.transpose ins(%f : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
  %mm = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %s = arith.mulf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %mm2 = linalg.matmul ins(%p, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm2 : tensor<4x4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A causal mask built in a generic body from a -1e9 scalar: the body
// constant keeps the generic f32, and -inf (a max-reduction's start value)
// is fine: infinities convert exactly.
// CHECK-LABEL: func.func @mask_in_body
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// REPORT-LABEL: mpt precision report: @mask_in_body
// REPORT: linalg.generic [forward] f32: range: body reads constant -1e+09 overflows f16 (max 65504)
// REPORT: linalg.fill [forward] f16: clear (default clear list) next to f16 op linalg.matmul
// The add reads the mask, which reaches -1e9 (the range analysis).
// REPORT: arith.addf [forward] f32: range: reads linalg.generic at {{.*}}range.mlir:{{[0-9]+}}:11, which reaches -1e+09 (bound from arith.constant at {{.*}}range.mlir:{{[0-9]+}}:10); f16 holds 65504, with margin 16 up to 4094: kept f32
func.func @mask_in_body(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %big = arith.constant -1.0e9 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %above = arith.cmpi ugt, %j, %i : index
    %m = arith.select %above, %big, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %n = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%n, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = arith.addf %mm, %mask : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// The range analysis' reach counts where a bounded source pushes it: x times
// a 1e4 constant (which f16 holds) reaches 1e4, beyond f16's 65504 / 16: the
// product and the matmul that reads it stay f32.
// REPORT-LABEL: mpt precision report: @scaled_by_constant
// REPORT: arith.mulf [forward] f32: range: reads arith.constant at {{.*}}range.mlir:[[#@LINE+6]]:8, which reaches 10000; f16 holds 65504, with margin 16 up to 4094: kept f32
// REPORT: linalg.matmul [forward] f32: range: reads arith.mulf at {{.*}}range.mlir:[[#@LINE+6]]:8, which reaches -10000 (bound from arith.constant at {{.*}}range.mlir:[[#@LINE+5]]:8)
// BF16-LABEL: func.func @scaled_by_constant
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16>)
func.func @scaled_by_constant(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<1.0e4> : tensor<4x4xf32>
  %s = arith.mulf %x, %c : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%s, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}

// -----

// Without a bounded source the reach is a guess about unbounded data (here
// exp(exp(exp(x))) with x of order one reaches 3.8e6) and keeps nothing
// f32: the rule does not invent bounds.
// REPORT-LABEL: mpt precision report: @unsourced_reach
// REPORT: linalg.matmul [forward] f16: allow (default allow list)
func.func @unsourced_reach(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = math.exp %x : tensor<4x4xf32>
  %b = math.exp %a : tensor<4x4xf32>
  %c = math.exp %b : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%c, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
