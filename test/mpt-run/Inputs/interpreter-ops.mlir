// A step of the ops the imported examples use little or not at all, for
// test/mpt-run/interpreted-steps.test: padding, strided and rank-reducing
// slices, concatenation, strided insertion, loop indices and integer
// arithmetic in a body, tensor.extract in a body (a flip, and a flip and
// transpose read as an input with an index still used), libm functions,
// linalg.reduce and linalg.map, bf16 and f64 values, scf.if and scf.for.
// The loss is a function of all of them; the "gradient" is the loss's seed
// times a mix of them (not a true gradient: what is checked is that the
// interpreter computes the same values as the compiled step).
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#all2 = affine_map<(i, j) -> ()>
#id1 = affine_map<(i) -> (i)>
#all1 = affine_map<(i) -> ()>
#s0 = affine_map<() -> ()>
func.func @interp_step(%w: tensor<4x6xf32> {mpt.role = "param"},
                       %x: tensor<2x4xf32> {mpt.role = "data"},
                       %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4x6xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4_i32 = arith.constant 4 : i32
  %c5_i32 = arith.constant 5 : i32
  %c3_i32 = arith.constant 3 : i32
  %c0_i32 = arith.constant 0 : i32
  %up = arith.constant 1.5 : f32
  %down = arith.constant -0.5 : f32
  // y = x @ w
  %e26 = tensor.empty() : tensor<2x6xf32>
  %z26 = linalg.fill ins(%zero : f32) outs(%e26 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x6xf32>)
                     outs(%z26 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %p = tensor.pad %y low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %half : f32
  } : tensor<2x6xf32> to tensor<2x8xf32>
  // Every other column, and row 1 alone.
  %s = tensor.extract_slice %p[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %r1 = tensor.extract_slice %s[1, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %cc = tensor.concat dim(0) %s, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %e48 = tensor.empty() : tensor<4x8xf32>
  %z48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ins = tensor.insert_slice %r1 into %z48[2, 1] [1, 4] [1, 2] : tensor<4xf32> into tensor<4x8xf32>
  %e44 = tensor.empty() : tensor<4x4xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%cc : tensor<4x4xf32>) outs(%e44 : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %k = arith.muli %ii, %c4_i32 : i32
    %k2 = arith.addi %k, %jj : i32
    %k3 = arith.xori %k2, %c5_i32 : i32
    %k4 = arith.remsi %k3, %c3_i32 : i32
    %isz = arith.cmpi eq, %k4, %c0_i32 : i32
    %sel = arith.select %isz, %up, %down : f32
    %t = math.tanh %a : f32
    %ex = math.exp %a : f32
    %er = math.erf %a : f32
    %ab = math.absf %a : f32
    %sq = math.sqrt %ab : f32
    %m1 = arith.mulf %t, %sel : f32
    %m2 = arith.mulf %ex, %er : f32
    %s1 = arith.addf %m1, %m2 : f32
    %s2 = arith.addf %s1, %sq : f32
    %fl = arith.sitofp %k4 : i32 to f32
    %s3 = arith.addf %s2, %fl : f32
    %mx = arith.maximumf %s3, %down : f32
    linalg.yield %mx : f32
  } -> tensor<4x4xf32>
  // Columns flipped through tensor.extract at computed indices.
  %g = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e44 : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %fj = arith.subi %c3, %j : index
    %v = tensor.extract %h[%i, %fj] : tensor<4x4xf32>
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  // Transposed and flipped through tensor.extract, times the row index
  // (the extract is read as an input; the index stays for the product).
  %g2 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e44 : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %fi = arith.subi %c3, %i : index
    %v = tensor.extract %h[%j, %fi] : tensor<4x4xf32>
    %ii = arith.index_cast %i : index to i32
    %fl = arith.sitofp %ii : i32 to f32
    %prod = arith.mulf %v, %fl : f32
    linalg.yield %prod : f32
  } -> tensor<4x4xf32>
  %e44s = tensor.empty() : tensor<4x4xf32>
  %gs = linalg.map { arith.addf } ins(%g, %g2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e44s : tensor<4x4xf32>)
  // Through bf16 and back.
  %e44b = tensor.empty() : tensor<4x4xbf16>
  %gb = linalg.map { arith.truncf } ins(%gs : tensor<4x4xf32>) outs(%e44b : tensor<4x4xbf16>)
  %gf = linalg.map { arith.extf } ins(%gb : tensor<4x4xbf16>) outs(%e44 : tensor<4x4xf32>)
  // Row sums (linalg.reduce) of the flip and of the insertion, in f64.
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %rows = linalg.reduce ins(%gf : tensor<4x4xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  %zd = arith.constant 0.0 : f64
  %e0d = tensor.empty() : tensor<f64>
  %z0d = linalg.fill ins(%zd : f64) outs(%e0d : tensor<f64>) -> tensor<f64>
  %tot = linalg.generic {indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%ins : tensor<4x8xf32>) outs(%z0d : tensor<f64>) {
  ^bb0(%a: f32, %acc: f64):
    %ad = arith.extf %a : f32 to f64
    %sq = arith.mulf %ad, %ad : f64
    %sum = arith.addf %sq, %acc : f64
    linalg.yield %sum : f64
  } -> tensor<f64>
  %totv = tensor.extract %tot[] : tensor<f64>
  %totf = arith.truncf %totv : f64 to f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%totf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sumrows = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]}
      ins(%rows : tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %l = math.log1p %a : f32
    %sum = arith.addf %l, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<f32>
  // A branch on the value and a loop that carries a tensor.
  %sv = tensor.extract %sumrows[] : tensor<f32>
  %pos = arith.cmpf ogt, %sv, %zero : f32
  %br = scf.if %pos -> (tensor<f32>) {
    %neg = linalg.map { arith.negf } ins(%sumrows : tensor<f32>) outs(%e0 : tensor<f32>)
    scf.yield %neg : tensor<f32>
  } else {
    scf.yield %sumrows : tensor<f32>
  }
  %loss = scf.for %iv = %c0 to %c3 step %c1 iter_args(%acc = %br) -> (tensor<f32>) {
    %ivf = arith.index_cast %iv : index to i32
    %ivx = arith.sitofp %ivf : i32 to f32
    %next = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []}
        ins(%acc : tensor<f32>) outs(%e0 : tensor<f32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %half : f32
      %s2 = arith.addf %m, %ivx : f32
      linalg.yield %s2 : f32
    } -> tensor<f32>
    scf.yield %next : tensor<f32>
  }
  %seed = mpt.grad_seed %loss : tensor<f32>
  // dw[k, j] = seed * (rows[k] + y[0, j] * 0.5)
  %e46 = tensor.empty() : tensor<4x6xf32>
  %y0 = tensor.extract_slice %y[0, 0] [1, 6] [1, 1] : tensor<2x6xf32> to tensor<6xf32>
  %dw = linalg.generic {indexing_maps = [#all2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%seed, %rows, %y0 : tensor<f32>, tensor<4xf32>, tensor<6xf32>) outs(%e46 : tensor<4x6xf32>) {
  ^bb0(%sd: f32, %r: f32, %yy: f32, %o: f32):
    %m = arith.mulf %yy, %half : f32
    %a = arith.addf %r, %m : f32
    %d = arith.mulf %sd, %a : f32
    linalg.yield %d : f32
  } -> tensor<4x6xf32>
  %gw = mpt.gradient %dw : tensor<4x6xf32>
  %nw = linalg.generic {indexing_maps = [#id2, #id2, #all2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %gw, %lr : tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>) outs(%e46 : tensor<4x6xf32>) {
  ^bb0(%pw: f32, %gg: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %gg : f32
    %n = arith.subf %pw, %d : f32
    linalg.yield %n : f32
  } -> tensor<4x6xf32>
  return %loss, %nw : tensor<f32>, tensor<4x6xf32>
}
