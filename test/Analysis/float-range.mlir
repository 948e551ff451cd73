// RUN: mpt-opt %s --split-input-file --mpt-range-report -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-range-report="format=json output=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-insert-loss-scaling --mpt-range-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEED

// The floating-point range analysis: each float value's interval (sound:
// unbounded data stays unbounded), its reach when that differs (what the
// bounded sources push into it, with unbounded inputs of order one, [-1, 1]),
// whether it may be inf or NaN, and the source of the reach. The expected
// lines were derived by hand and agree with the output; the derivation is
// beside each.

// Layer norm over rows of 8.
// CHECK-LABEL: mpt range report: @layer_norm
// CHECK-NEXT: argument #0: [-inf, +inf] reach [-1, 1]
// The 0 fill is the only bounded source; it does not bound the row sum,
// whose terms are unknown (a sum of unknown terms is not grown by its
// extent: reach of one term).
// CHECK: linalg.fill at {{[^ ]+}}: [0, 0] from arith.constant
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [-inf, +inf] reach [-1, 1]{{$}}
// x - sum/8: 1 + 0.125.
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [-inf, +inf] reach [-1.125, 1.125]{{$}}
// A sum of squares is >= 0; reach 1.125^2 = 1.26562.
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, +inf] reach [0, 1.26562]{{$}}
// rsqrt(var + 1e-5) <= 1/sqrt(1e-5) = 316.228 whatever the data; reach from
// 1/sqrt(1.26562/8 + 1e-5) = 2.51408.
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, 316.228] reach [2.51408, 316.228]{{$}}
// 1.125 x 316.228.
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [-inf, +inf] reach [-355.756, 355.756]{{$}}

// Softmax: the row max of unknown data is unknown (the -inf start is not
// one of its bounds); exp(x - max(x)) is in [0, 1] (reach e^-2 = 0.135335:
// x and max both reach [-1, 1]); its row sum holds the 1 of the maximum:
// [1, 8], reach 8 x 0.135335 = 1.08268; the probabilities are in [0, 1].
// CHECK-LABEL: mpt range report: @softmax
// CHECK: linalg.fill at {{[^ ]+}}: [-inf, -inf] may-be-inf from arith.constant
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [-inf, +inf] reach [-1, 1]{{$}}
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, 1] reach [0.135335, 1]{{$}}
// CHECK: linalg.generic at {{[^ ]+}}: [1, 8] reach [1.08268, 8]{{$}}
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, 1] reach [0.0169169, 0.923632]{{$}}
// CHECK-NEXT: linalg.softmax at {{[^ ]+}}: [0, 1]{{$}}

// Masked log_softmax: the masked logits reach -1e9 - 1 (printed -1e+09),
// and so does their row max, from the -1e9 constant (not the -inf start);
// exp(x - max(x)) is in [0, 1], its sum in [1, 8], so log(sum) is in
// [0, 2.08] and the log-probabilities are <= 0 and reach -1e9.
// CHECK-LABEL: mpt range report: @masked_log_softmax
// CHECK: arith.constant at [[BIG:[^ ]+]]: [-1e+09, -1e+09]
// CHECK: linalg.generic at {{[^ ]+}}: [-inf, +inf] reach [-1e+09, 1] from arith.constant at [[BIG]]{{$}}
// CHECK-NEXT: linalg.fill at {{[^ ]+}}: [-inf, -inf] may-be-inf
// CHECK-NEXT: linalg.reduce at {{[^ ]+}}: [-inf, +inf] reach [-1e+09, 1] from arith.constant at [[BIG]]{{$}}
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, 1]
// CHECK: linalg.reduce at {{[^ ]+}}: [1, 8]
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [-inf, 0] reach [-1e+09, 0] from arith.constant at [[BIG]]{{$}}

// torch-mlir's row max also computes the argmax (a second, i64 result): it
// is still the max, so exp(x - max(x)) is in [0, 1] (e^-2 = 0.135335).
// CHECK-LABEL: mpt range report: @torch_max_with_argmax
// CHECK: linalg.generic at {{[^ ]+}}: [-inf, 0] reach [-2, 0]{{$}}
// CHECK-NEXT: linalg.generic at {{[^ ]+}}: [0, 1] reach [0.135335, 1]{{$}}

// CHECK-LABEL: mpt range report: @user_range
// CHECK-NEXT: argument #0: [0, 1]{{$}}
// CHECK-NEXT: argument #1: [-inf, +inf] reach [-1, 1]{{$}}
// CHECK-NEXT: arith.mulf at {{[^ ]+}}: [-inf, +inf] reach [-1, 1] from argument #0 (mpt.range)
// CHECK-NEXT: math.exp at {{[^ ]+}}: [1, 2.71828] from argument #0 (mpt.range)
// CHECK-NEXT: math.log at {{[^ ]+}}: [0, 1] from argument #0 (mpt.range)

// The loop's carried value grows by 1 per iteration: after a few growths
// its upper bound widens to +inf and the analysis ends.
// CHECK-LABEL: mpt range report: @loop
// CHECK: scf.for at {{[^ ]+}}: [1, +inf] from arith.constant
// CHECK-NEXT: arith.addf at {{[^ ]+}}: [2, +inf] from arith.constant
// JSON: "functions"

// The scaled seed: mpt.scale multiplies the seed (1) by the loss scale,
// positive and finite, starting from 65536.
// SEED: mpt.scale at {{.*}}: [0, 3.40282e+38] reach [0, 65536] from the loss scale

#id  = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#id1 = affine_map<(i) -> (i)>

func.func @layer_norm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %inv_n = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %rstd = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%sq : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %v = arith.mulf %s, %inv_n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xc, %rstd : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %p = arith.mulf %a, %r : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id  = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %n4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%n4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %exps = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<4x8xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exps : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exps, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %named = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

#id  = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @masked_log_softmax(%logits: tensor<4x8xf32>, %valid: tensor<4x8xi1>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %big = arith.constant -1.0e9 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %valid : tensor<4x8xf32>, tensor<4x8xi1>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %v: i1, %o: f32):
    %m = arith.select %v, %zero, %big : f32
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %n4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce ins(%z : tensor<4x8xf32>) outs(%n4 : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  %exps = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<4x8xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce ins(%exps : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %logp = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %max, %sum : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %l = math.log %s : f32
    %r = arith.subf %d, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %logp : tensor<4x8xf32>
}

// -----

#id  = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (i, 0)>

func.func @torch_max_with_argmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %i4 = tensor.empty() : tensor<4xi64>
  %n4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %z4 = linalg.fill ins(%c0 : i64) outs(%i4 : tensor<4xi64>) -> tensor<4xi64>
  %max:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%n4, %z4 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%a: f32, %m: f32, %idx: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %mx = arith.maximumf %a, %m : f32
    %gt = arith.cmpf ogt, %a, %m : f32
    %ni = arith.select %gt, %ji, %idx : i64
    linalg.yield %mx, %ni : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  %mcol = tensor.expand_shape %max#0 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %d = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mcol : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %s = arith.subf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x2 = math.exp %a : f32
    linalg.yield %x2 : f32
  } -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// mpt.range on an argument: a user bound the analysis starts from.
func.func @user_range(%p: tensor<4xf32> {mpt.range = [0.0, 1.0]}, %q: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.mulf %p, %q : tensor<4xf32>
  %x = math.exp %p : tensor<4xf32>
  %l = math.log %x : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A loop that grows its carried value: the bounds widen and the analysis
// ends.
func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%acc = %one) -> tensor<4xf32> {
    %n = arith.addf %acc, %one : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop that writes a constant into a slice of its carried tensor: the
// carried value is the union of [0, 1] and 0.5, which does not grow, and
// the analysis ends. (The union of an op's operands counted as a growth:
// on every visit the insert_slice "grew" past its first operand, the
// carried range never stopped changing, and the analysis never ended.)
// CHECK-LABEL: mpt range report: @insert_in_loop
// CHECK: scf.for at {{[^ ]+}}: [0, 1] from argument #0
// CHECK-NEXT: tensor.insert_slice at {{[^ ]+}}: [0, 1] from argument #0
func.func @insert_in_loop(%init: tensor<4xf32> {mpt.range = [0.0, 1.0]}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant dense<0.5> : tensor<2xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %next = tensor.insert_slice %half into %acc[%i] [2] [1] : tensor<2xf32> into tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
