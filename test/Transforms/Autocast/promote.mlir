// Policy level promote on the conv + batch-norm step of conv-bn.mlir: the
// ops after the convolution follow its (low) precision as under PyTorch's
// type promotion; the batch statistics (reductions, rsqrt) stay f32 and
// are read in f32 by the low normalisation (broadcast inputs); the
// backward reads the f16 normalised activations.
// No layer follows the batch norm here: by default it is in the loss region
// (f32, checked by LOSSREGION); loss-region=0 lets the promote level paint it,
// as it does in a network where a layer follows (promote-examples.test).
// RUN: mpt-opt %s --mpt-autocast="policy-level=promote loss-region=0" | FileCheck %s
// RUN: mpt-opt %s --mpt-precision-report="policy-level=promote loss-region=0" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mpt-opt %s --mpt-precision-report=policy-level=conservative 2>&1 >/dev/null | FileCheck %s --check-prefix=CONSERVATIVE
// RUN: mpt-opt %s --mpt-precision-report=policy-level=promote 2>&1 >/dev/null | FileCheck %s --check-prefix=LOSSREGION
// RUN: mpt-opt %s --mpt-autocast="policy-level=promote loss-region=0" -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-autocast="policy-level=promote loss-region=0" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// CHECK-LABEL: func.func @conv_bn_step
// CHECK-SAME: (%[[F:.*]]: tensor<3x3x2x4xf32> {mpt.role = "param"}, %[[X:.*]]: tensor<2x6x6x2xf32> {mpt.role = "data"}
// One f16 copy of the filter, shared by every op that reads it.
// CHECK: %[[F16:.*]] = arith.truncf %[[F]] : tensor<3x3x2x4xf32> to tensor<3x3x2x4xf16>
// CHECK-NOT: arith.truncf %[[F]]
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<2x4x4x4xf32>)
// CHECK: %[[CONV16:.*]] = arith.truncf %[[CONV]] : tensor<2x4x4x4xf32> to tensor<2x4x4x4xf16>
// The mean accumulates the f32 accumulator in f32.
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<2x4x4x4xf32>) outs(%{{.*}} : tensor<4xf32>)
// Centring: f16 in and out, the f32 statistic read as is.
// CHECK: %[[CENTRED:.*]] = linalg.generic {{.*}} ins(%[[CONV16]], %[[SUM]] : tensor<2x4x4x4xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x4x4xf16>)
// The variance reads the f16 centred values extended to f32.
// CHECK: %[[CENTRED32:.*]] = arith.extf %[[CENTRED]] : tensor<2x4x4x4xf16> to tensor<2x4x4x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[CENTRED32]] : tensor<2x4x4x4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: %[[BN:.*]] = linalg.generic {{.*}} ins(%[[CENTRED]], %[[RSTD]] : tensor<2x4x4x4xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x4x4xf16>)
// CHECK: mpt.grad_seed
// The backward reads the f16 normalised activation (no f32 copy is kept); it reads a low
// forward value (the backward of a low op), so it is promoted in f16 too.
// CHECK: %[[DZ:.*]] = linalg.generic {{.*}} ins(%[[BN]], %[[RSTD]], %{{.*}} : tensor<2x4x4x4xf16>, tensor<4xf32>, tensor<f32>) outs(%{{.*}} : tensor<2x4x4x4xf16>)
// CHECK: %[[DF:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[DZ]] : tensor<2x6x6x2xf16>, tensor<2x4x4x4xf16>) outs(%{{.*}} : tensor<3x3x2x4xf32>)
// CHECK: mpt.gradient %[[DF]] : tensor<3x3x2x4xf32>

// REPORT-LABEL: mpt precision report: @conv_bn_step ({{.*}}), dtype f16, policy level promote
// REPORT: ops: f16 5, f32 11, unchanged 7
// REPORT: memory estimate before:
// REPORT: activations             1104 B  (f32: 1104)
// REPORT: memory estimate after:
// REPORT: activations              560 B  (f16: 544, f32: 16)
// REPORT: linalg.conv_2d_nhwc_hwcf [forward] f16: allow (default allow list)
// REPORT: linalg.generic [forward] f32: reduction (structure: reduction iterator): accumulates in f32
// REPORT: linalg.generic [forward] f16: infer (structure: elementwise arithmetic) promote: its full-size inputs are f16 (linalg.conv_2d_nhwc_hwcf at {{.*}}promote.mlir:{{[0-9]+}}:{{[0-9]+}}): painted f16, broadcast inputs stay f32
// REPORT: linalg.generic [forward] f32: deny (body uses math.rsqrt (deny list))
// REPORT: linalg.generic [forward] f16: infer (structure: elementwise arithmetic) promote: its full-size inputs are f16 (linalg.generic at
// REPORT: linalg.generic [forward] f32: reduction
// REPORT: linalg.generic [backward] f16: infer (structure: elementwise arithmetic) promote: its full-size inputs are f16
// REPORT: linalg.generic [update] f32: infer op in the update region

// The conservative level keeps the normalisation f32.
// CONSERVATIVE-LABEL: mpt precision report: @conv_bn_step ({{.*}}), dtype f16, policy level conservative
// CONSERVATIVE: ops: f16 2, f32 14
// CONSERVATIVE: activations             1104 B  (f32: 1104)
// CONSERVATIVE: activations              816 B  (f16: 288, f32: 528)

// LOSSREGION-LABEL: mpt precision report: @conv_bn_step ({{.*}}), dtype f16, policy level promote
// LOSSREGION: ops: f16 2, f32 14
// LOSSREGION: linalg.generic [forward] f32: infer op in the loss region (after the last forward contraction, before the loss)

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
