// Tensors autocast leaves alone (f64, integer), dynamic shapes, IR without
// training markers, TOSA ops. The report says what it left alone.
// RUN: mpt-opt %s --split-input-file --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @f64_and_integers
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf64>, tensor<4x4xf64>) outs(%{{.*}} : tensor<4x4xf64>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xi32>, tensor<4x4xi32>) outs(%{{.*}} : tensor<4x4xi32>)
// CHECK-NOT: arith.truncf
// REPORT-LABEL: mpt precision report: @f64_and_integers
// REPORT-NEXT: no training markers: plain autocast, every op counts as forward
// REPORT: ops: f16 0, f32 0, unchanged 4
// REPORT: linalg.matmul [forward] unchanged: f64 tensors: left alone
// REPORT: linalg.matmul [forward] unchanged: integer tensors: left alone
func.func @f64_and_integers(%a: tensor<4x4xf64>, %acc: tensor<4x4xf64>, %i: tensor<4x4xi32>, %iacc: tensor<4x4xi32>)
    -> (tensor<4x4xf64>, tensor<4x4xi32>) {
  %r = linalg.matmul ins(%a, %a : tensor<4x4xf64>, tensor<4x4xf64>) outs(%acc : tensor<4x4xf64>) -> tensor<4x4xf64>
  %s = linalg.matmul ins(%i, %i : tensor<4x4xi32>, tensor<4x4xi32>) outs(%iacc : tensor<4x4xi32>) -> tensor<4x4xi32>
  %r2 = arith.addf %r, %r : tensor<4x4xf64>
  %s2 = arith.addi %s, %s : tensor<4x4xi32>
  return %r2, %s2 : tensor<4x4xf64>, tensor<4x4xi32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Dynamic shapes: casts and the low-precision tensor.empty keep the
// dynamic sizes.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[N:.*]]: index)
// CHECK-DAG: arith.truncf %[[X]] : tensor<?x8xf32> to tensor<?x8xf16>
// CHECK-DAG: arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: %[[E16:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[E16]] : tensor<?x8xf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<?x8xf32>)
func.func @dynamic(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x8xf32>
  %mm2 = linalg.matmul ins(%r, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %mm2 : tensor<?x8xf32>
}

// -----

// TOSA, in its f16 profiles: tosa.matmul gets f16 inputs and zero points
// (new constants: TOSA wants constant zero points) and keeps its f32 result;
// tosa.conv2d gets f16 input, weight, bias and zero points, accumulates in
// f32 and returns f16. The tosa.add between the matmuls becomes f16. The
// result passes --tosa-validate.
// RUN: mpt-opt %s --split-input-file --mpt-autocast | mpt-opt --split-input-file --tosa-validate -o /dev/null
// CHECK-LABEL: func.func @tosa_ops
// CHECK-NOT: tensor<1xf32>
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
// CHECK: %[[MM:.*]] = tosa.matmul %{{.*}}, %{{.*}}, %[[ZP]], %[[ZP]] : (tensor<1x4x8xf16>, tensor<1x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x8xf32>
// CHECK: %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<1x4x8xf32> to tensor<1x4x8xf16>
// CHECK: tosa.add %[[MM16]], %{{.*}} : (tensor<1x4x8xf16>, tensor<1x4x8xf16>) -> tensor<1x4x8xf16>
// CHECK: tosa.matmul %{{.*}} : (tensor<1x4x8xf16>, tensor<1x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x8xf32>
// CHECK: %[[C:.*]] = tosa.conv2d %{{.*}}, %{{.*}}, %{{.*}}, %[[ZP]], %[[ZP]] {acc_type = f32, {{.*}}} : (tensor<1x4x4x8xf16>, tensor<8x1x1x8xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4x8xf16>
// CHECK: %[[CE:.*]] = arith.extf %[[C]] : tensor<1x4x4x8xf16> to tensor<1x4x4x8xf32>
// CHECK: return %{{.*}}, %[[CE]]
// REPORT-LABEL: mpt precision report: @tosa_ops
// REPORT: tosa.matmul [forward] f16: allow (default allow list): f16 inputs, f32 accumulator and result
// REPORT: tosa.add [forward] f16: infer (default infer list) between allow ops: painted f16
// REPORT: tosa.conv2d [forward] f16: allow (default allow list): f16 inputs and result, f32 accumulator (TOSA's f16 profile)
func.func @tosa_ops(%x: tensor<1x4x8xf32>, %w: tensor<1x8x8xf32>, %img: tensor<1x4x4x8xf32>, %f: tensor<8x1x1x8xf32>, %bias: tensor<8xf32>)
    -> (tensor<1x4x8xf32>, tensor<1x4x4x8xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %a = tosa.add %mm, %x : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %mm2 = tosa.matmul %a, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %c = tosa.conv2d %img, %f, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  return %mm2, %c : tensor<1x4x8xf32>, tensor<1x4x4x8xf32>
}

// -----

// A clear op that makes an unranked tensor (tensor.cast to tensor<*xf32>)
// stays f32, the conversion back to f32 before it: arith.extf and arith.truncf
// do not take unranked tensors (found by mpt-fuzz).
// CHECK-LABEL: func.func @unranked_cast
// CHECK:         %[[N:.*]] = arith.extf %{{.*}} : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[N]] : tensor<4x4xf32> to tensor<*xf32>
// CHECK-NEXT:    return %[[C]] : tensor<*xf32>
func.func @unranked_cast(%a: tensor<4x4xf32>, %acc: tensor<4x4xf32>) -> tensor<*xf32> {
  %m = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = arith.negf %m : tensor<4x4xf32>
  %c = tensor.cast %n : tensor<4x4xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}
