// linalg ops are classified by structure and body, not by name: a
// contraction written as a generic is an allow op, a sigmoid body is safe
// although it uses math.exp, a body op on no list (math.cbrt) keeps the generic f32,
// and the user's lists override the structural classes.
// RUN: mpt-opt %s --split-input-file --mpt-precision-report 2>&1 >/dev/null | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-precision-report="deny=linalg.generic" 2>&1 >/dev/null | FileCheck %s --check-prefix=OVERRIDE

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: mpt precision report: @generic_ops
// CHECK: linalg.generic [forward] f16: allow (structure: contraction): f16 inputs, f32 accumulator and result
// CHECK: linalg.generic [forward] f16: infer (structure: elementwise arithmetic) between allow ops: painted f16
// CHECK: linalg.generic [forward] f32: unlisted (body uses math.cbrt, which is on no list): kept f32
// OVERRIDE-LABEL: mpt precision report: @generic_ops
// OVERRIDE: linalg.generic [forward] f32: deny (deny list, option 'deny')
// OVERRIDE: linalg.generic [forward] f32: deny (deny list, option 'deny')
// OVERRIDE: linalg.generic [forward] f32: deny (deny list, option 'deny')
func.func @generic_ops(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // sigmoid(x) = 1 / (1 + exp(-x)) is bounded in (0, 1)
  %sig = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %mm2 = linalg.matmul ins(%sig, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sin = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cbrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %mm3 = linalg.matmul ins(%sin, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm3 : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// exp(x) + 1 is not a sigmoid: the generic is denied.
// CHECK-LABEL: mpt precision report: @not_sigmoid
// CHECK: linalg.generic [forward] f32: deny (body uses math.exp (deny list))
func.func @not_sigmoid(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    %r = arith.addf %ex, %one : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %mm2 = linalg.matmul ins(%g, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm2 : tensor<4x8xf32>
}

// -----

// linalg.softmax is on the deny list; linalg.reduce accumulates in f32.
// CHECK-LABEL: mpt precision report: @named_ops
// CHECK: linalg.softmax [forward] f32: deny (default deny list)
// CHECK: linalg.reduce [forward] f32: reduction (default deny list (reduction)): accumulates in f32
func.func @named_ops(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%s : tensor<4x8xf32>) outs(%z : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
    }
  return %r : tensor<4xf32>
}
