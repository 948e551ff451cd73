// A conv + batch-norm training step: the named convolution and the filter
// gradient (a linalg.generic recognised as a convolution by its structure)
// are allow ops with f32 accumulators; the batch statistics (reductions),
// rsqrt (deny) and the ops they taint stay f32.
// RUN: mpt-opt %s --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mpt-opt %s --mpt-autocast -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-autocast -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// CHECK-LABEL: func.func @conv_bn_step
// CHECK-SAME: (%[[F:.*]]: tensor<3x3x2x4xf32> {mpt.role = "param"}, %[[X:.*]]: tensor<2x6x6x2xf32> {mpt.role = "data"}
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x6x6x2xf32> to tensor<2x6x6x2xf16>
// CHECK-DAG: %[[F16:.*]] = arith.truncf %[[F]] : tensor<3x3x2x4xf32> to tensor<3x3x2x4xf16>
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X16]], %[[F16]] : tensor<2x6x6x2xf16>, tensor<3x3x2x4xf16>) outs(%{{.*}} : tensor<2x4x4x4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%[[CONV]] : tensor<2x4x4x4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: mpt.grad_seed
// CHECK: %[[DZ:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x4x4xf32>)
// CHECK: %[[DZ16:.*]] = arith.truncf %[[DZ]] : tensor<2x4x4x4xf32> to tensor<2x4x4x4xf16>
// The input's cast is reused by the filter gradient.
// CHECK: %[[DF:.*]] = linalg.generic {{.*}} ins(%[[X16]], %[[DZ16]] : tensor<2x6x6x2xf16>, tensor<2x4x4x4xf16>) outs(%{{.*}} : tensor<3x3x2x4xf32>)
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[C:.*]]: f32):
// CHECK-DAG: arith.extf %[[A]] : f16 to f32
// CHECK-DAG: arith.extf %[[B]] : f16 to f32
// CHECK: mpt.gradient %[[DF]] : tensor<3x3x2x4xf32>

// REPORT: ops: f16 2, f32 14
// REPORT: linalg.conv_2d_nhwc_hwcf [forward] f16: allow (default allow list): f16 inputs, f32 accumulator and result
// REPORT: linalg.generic [forward] f32: reduction (structure: reduction iterator): accumulates in f32
// REPORT: linalg.generic [forward] f32: deny (body uses math.rsqrt (deny list))
// No layer follows the batch norm: its output ops are in the loss region
// (f32 before the loss-region rule too, downstream of the f32 statistics).
// REPORT: linalg.generic [forward] f32: infer op in the loss region (after the last forward contraction, before the loss)
// REPORT: linalg.generic [backward] f16: allow (structure: convolution): f16 inputs, f32 accumulator and result
// REPORT: linalg.generic [update] f32: infer op in the update region: the optimizer runs in f32
#x6  = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chn = affine_map<(n, h, w, c) -> (c)>
#s4  = affine_map<(n, h, w, c) -> ()>
// filter gradient: dF[kh, kw, ci, co] = sum_{n, oh, ow} x[n, oh + kh, ow + kw, ci] * dy[n, oh, ow, co]
#gx  = affine_map<(kh, kw, ci, co, n, oh, ow) -> (n, oh + kh, ow + kw, ci)>
#gdy = affine_map<(kh, kw, ci, co, n, oh, ow) -> (n, oh, ow, co)>
#gdf = affine_map<(kh, kw, ci, co, n, oh, ow) -> (kh, kw, ci, co)>
#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#sc4 = affine_map<(a, b, c, d) -> ()>

// One SGD step of conv -> batch norm -> relu -> sum, on a 2x6x6x2 batch
// with a 3x3x2x4 filter. The batch statistics are treated as constants in
// the backward pass (as with frozen statistics), so the filter gradient is
// dF = conv_filter_grad(x, seed * relu'(z) * rstd).
func.func @conv_bn_step(
    %filter: tensor<3x3x2x4xf32> {mpt.role = "param"},
    %x: tensor<2x6x6x2xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<3x3x2x4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.03125 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<2x4x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %filter : tensor<2x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%acc : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  // batch norm over n, h, w per channel
  %ec = tensor.empty() : tensor<4xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#x6, #chn], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%conv : tensor<2x4x4x4xf32>) outs(%zc : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %centred = linalg.generic {indexing_maps = [#x6, #chn, #x6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %sum : tensor<2x4x4x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x4xf32>
  %var = linalg.generic {indexing_maps = [#x6, #chn], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%centred : tensor<2x4x4x4xf32>) outs(%zc : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %q = arith.mulf %a, %a : f32
    %r = arith.addf %q, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>], iterator_types = ["parallel"]}
      ins(%var : tensor<4xf32>) outs(%ec : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %inv_n : f32
    %a = arith.addf %m, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %bn = linalg.generic {indexing_maps = [#x6, #chn, #x6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%centred, %rstd : tensor<2x4x4x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4x4x4xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %n = arith.mulf %a, %r : f32
    %y = arith.maximumf %n, %zero : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id4, #sc4], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%bn : tensor<2x4x4x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  // dz = seed * (bn > 0) * rstd
  %dz = linalg.generic {indexing_maps = [#x6, #chn, #s4, #x6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bn, %rstd, %seed : tensor<2x4x4x4xf32>, tensor<4xf32>, tensor<f32>) outs(%e : tensor<2x4x4x4xf32>) {
  ^bb0(%y: f32, %r: f32, %g: f32, %o: f32):
    %pos = arith.cmpf ogt, %y, %zero : f32
    %gr = arith.mulf %g, %r : f32
    %d = arith.select %pos, %gr, %zero : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4x4xf32>
  %ef = tensor.empty() : tensor<3x3x2x4xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<3x3x2x4xf32>) -> tensor<3x3x2x4xf32>
  %df = linalg.generic {indexing_maps = [#gx, #gdy, #gdf],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %dz : tensor<2x6x6x2xf32>, tensor<2x4x4x4xf32>) outs(%zf : tensor<3x3x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x3x2x4xf32>
  %g = mpt.gradient %df : tensor<3x3x2x4xf32>
  %new = linalg.generic {indexing_maps = [#id4, #id4, #sc4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%filter, %g, %lr : tensor<3x3x2x4xf32>, tensor<3x3x2x4xf32>, tensor<f32>) outs(%ef : tensor<3x3x2x4xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<3x3x2x4xf32>
  return %loss, %new : tensor<f32>, tensor<3x3x2x4xf32>
}
