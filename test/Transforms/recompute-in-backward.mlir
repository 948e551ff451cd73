// RUN: mpt-opt %s --split-input-file --mpt-recompute-in-backward | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-recompute-in-backward=max-ops=1 | FileCheck %s --check-prefix=ONE
// RUN: mpt-opt %s --split-input-file --mpt-recompute-in-backward --mpt-training-graph-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// The copies survive CSE (the attribute), and lose their mark with the
// contract attributes.
// RUN: mpt-opt %s --split-input-file --mpt-recompute-in-backward --cse | FileCheck %s --check-prefix=CSE
// RUN: mpt-opt %s --split-input-file --mpt-recompute-in-backward --mpt-strip-contract-attributes | FileCheck %s --check-prefix=STRIP

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#sc = affine_map<(i, j) -> ()>
#ma = affine_map<(i, j, k) -> (i, k)>
#mb = affine_map<(i, j, k) -> (k, j)>
#mc = affine_map<(i, j, k) -> (i, j)>
#hT = affine_map<(i, j, k) -> (k, i)>
#dyk = affine_map<(i, j, k) -> (k, j)>
#wT = affine_map<(i, j, k) -> (j, k)>

// A normalisation: xhat = (x - m) * r from the data x and per-row statistics
// (4 x f32, 1/32 of xhat's size: small), h = xhat * g, y = h W. The backward
// reads h (the W gradient) and xhat (the g gradient). Both are recomputed
// before their first backward reader: xhat from x, m and r; h from a copy of
// xhat of its own and g (each kept value gets its own copies: they fuse into
// their reader on the CPU, and none lives longer than its reader needs); the
// forward xhat stays (h reads it), the forward h stays (the matmul reads it). The kept activations go from h and xhat (1024 B) to x
// and the statistics (544 B): x is the caller's anyway.
// CHECK-LABEL: func.func @norm_step
// CHECK-SAME: %[[G:[^:]*]]: tensor<32xf32> {{.*}} %[[X:[^:]*]]: tensor<4x32xf32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[XHAT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[R]] :
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[XHAT]], %[[G]] :
// CHECK: linalg.matmul ins(%[[H]],
// CHECK: mpt.grad_seed
// CHECK: %[[XHAT2:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[R]] : {{.*}} attrs = {mpt.recomputed}
// CHECK: %[[H2:.*]] = linalg.generic {{.*}} ins(%[[XHAT2]], %[[G]] : {{.*}} attrs = {mpt.recomputed}
// CHECK: linalg.generic {{.*}} ins(%[[H2]], %{{.*}} : tensor<4x32xf32>, tensor<4x8xf32>)
// CHECK: %[[XHAT3:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[R]] : {{.*}} attrs = {mpt.recomputed}
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[XHAT3]] : tensor<4x32xf32>, tensor<4x32xf32>)
// With one op allowed, h (two ops from kept values) stays kept; xhat, one
// op from x and the statistics, is recomputed, and then h cannot start from
// it: h is kept.
// ONE-LABEL: func.func @norm_step
// ONE: mpt.grad_seed
// ONE-COUNT-1: mpt.recomputed
// ONE-NOT: mpt.recomputed
// REPORT-LABEL: mpt training-graph report: @norm_step
// REPORT: activations 544 B (f32: 544)
// CSE-LABEL: func.func @norm_step
// CSE-COUNT-2: mpt.recomputed
// STRIP-LABEL: func.func @norm_step
// STRIP-NOT: mpt.recomputed
func.func @norm_step(
    %g: tensor<32xf32> {mpt.role = "param"},
    %w: tensor<32x8xf32> {mpt.role = "param"},
    %x: tensor<4x32xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<32xf32> {mpt.updates = 0 : i64},
        tensor<32x8xf32> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x32xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x32xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %q = arith.mulf %a, %a : f32
    %t = arith.addf %q, %s : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %xhat = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %r : tensor<4x32xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %p = arith.mulf %d, %c : f32
    linalg.yield %p : f32
  } -> tensor<4x32xf32>
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xhat, %g : tensor<4x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4x32xf32>
  %ey = tensor.empty() : tensor<4x8xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%h, %w : tensor<4x32xf32>, tensor<32x8xf32>) outs(%zy : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<4x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%ey : tensor<4x8xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %ew = tensor.empty() : tensor<32x8xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<32x8xf32>) -> tensor<32x8xf32>
  %dw = linalg.generic {indexing_maps = [#hT, #dyk, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %dy : tensor<4x32xf32>, tensor<4x8xf32>) outs(%zw : tensor<32x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x8xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %dh = linalg.generic {indexing_maps = [#ma, #wT, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : tensor<4x8xf32>, tensor<32x8xf32>) outs(%zh : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  %e32 = tensor.empty() : tensor<32xf32>
  %z32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<32xf32>) -> tensor<32xf32>
  %dg = linalg.generic {indexing_maps = [#id, #id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dh, %xhat : tensor<4x32xf32>, tensor<4x32xf32>) outs(%z32 : tensor<32xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32):
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %p, %s : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  %gg = mpt.gradient %dg : tensor<32xf32>
  %gw = mpt.gradient %dw : tensor<32x8xf32>
  %newg = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%g, %gg, %lr : tensor<32xf32>, tensor<32xf32>, tensor<f32>) outs(%e32 : tensor<32xf32>) {
  ^bb0(%p: f32, %q: f32, %l: f32, %o: f32):
    %s = arith.mulf %l, %q : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  %neww = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %gw, %lr : tensor<32x8xf32>, tensor<32x8xf32>, tensor<f32>) outs(%ew : tensor<32x8xf32>) {
  ^bb0(%p: f32, %q: f32, %l: f32, %o: f32):
    %s = arith.mulf %l, %q : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<32x8xf32>
  return %loss, %newg, %neww : tensor<f32>, tensor<32xf32>, tensor<32x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#sc = affine_map<(i, j) -> ()>

// What is not recomputed: e = exp(y) starts from y, a forward value the
// backward does not keep and that no elementwise op computes (a matmul);
// s, a reduction, is no elementwise op either. Both stay.
// CHECK-LABEL: func.func @kept_step
// CHECK-NOT: mpt.recomputed
// CHECK: return
func.func @kept_step(
    %w: tensor<8x8xf32> {mpt.role = "param"},
    %x: tensor<4x8xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<8x8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x8xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%zy : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x8xf32>) outs(%ey : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
      ins(%ex : tensor<4x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %s : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id, #sc, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s, %seed : tensor<4x8xf32>, tensor<f32>, tensor<f32>) outs(%ey : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.divf %p, %b : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %ew = tensor.empty() : tensor<8x8xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<8x8xf32>) -> tensor<8x8xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<4x8xf32>, tensor<4x8xf32>) outs(%zw : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %c, %p : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %gw = mpt.gradient %dw : tensor<8x8xf32>
  %new = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %gw, %lr : tensor<8x8xf32>, tensor<8x8xf32>, tensor<f32>) outs(%ew : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %l: f32, %o: f32):
    %t = arith.mulf %l, %q : f32
    %n = arith.subf %p, %t : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %s, %new : tensor<f32>, tensor<8x8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// No training markers: nothing is forward or backward, nothing changes.
// CHECK-LABEL: func.func @inference
// CHECK-NOT: mpt.recomputed
func.func @inference(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
