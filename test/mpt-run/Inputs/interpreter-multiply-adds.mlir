// Multiply-adds of sizes that leave partial blocks, for
// test/mpt-run/interpreted-steps.test: the interpreter sums them in blocks
// of 8 x 4 outputs (StepInterpreter.cpp, mulAddBlock) with the last outputs
// of each loop in smaller blocks and tiles. A convolution (blocks along the
// output's contiguous rows and its filters: 9 = 8 + 1 pixels, 5 = 4 + 1
// filters), a matrix multiply whose second input is the contiguous one (the
// inputs swap roles; 10 = 8 + 2 columns, 13 = 4 + 4 + 4 + 1 rows), the same
// on bf16 inputs summed in f32, and one whose inputs are both read across
// their rows (strided block loads), f32 and bf16. A convolution whose
// output rows (7) are too short for a block, so that its blocks run along
// the 42 filters (16 + 16 + 8 + 2) and the weights, strided there, are packed
// into panels first, f32 and bf16; the transpose of its weights (a copy of
// a strided view) is the filter of one more. The loss is the sum of
// all their outputs; each parameter is updated by a multiple of the loss
// (not a true gradient: what is checked is that the interpreter computes
// the same values as the compiled step).
#id2 = affine_map<(i, j) -> (i, j)>
#id4 = affine_map<(i, j, k, l) -> (i, j, k, l)>
#all2 = affine_map<(i, j) -> ()>
#all4 = affine_map<(i, j, k, l) -> ()>
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @multiply_adds(%w: tensor<5x3x3x3xf32> {mpt.role = "param"},
                         %a: tensor<13x7xf32> {mpt.role = "param"},
                         %b: tensor<7x10xf32> {mpt.role = "param"},
                         %x: tensor<2x3x9x11xf32> {mpt.role = "data"},
                         %lr: tensor<f32> {mpt.role = "hyperparameter"},
                         %w3: tensor<42x3x3x3xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<5x3x3x3xf32> {mpt.updates = 0 : i64},
        tensor<13x7xf32> {mpt.updates = 1 : i64},
        tensor<7x10xf32> {mpt.updates = 2 : i64},
        tensor<42x3x3x3xf32> {mpt.updates = 5 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  // y = conv(x, w): 2x5x7x9.
  %ey = tensor.empty() : tensor<2x5x7x9xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x5x7x9xf32>) -> tensor<2x5x7x9xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x9x11xf32>, tensor<5x3x3x3xf32>)
      outs(%zy : tensor<2x5x7x9xf32>) -> tensor<2x5x7x9xf32>
  // c = a @ b: 13x10.
  %ec = tensor.empty() : tensor<13x10xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<13x10xf32>) -> tensor<13x10xf32>
  %c = linalg.matmul ins(%a, %b : tensor<13x7xf32>, tensor<7x10xf32>)
                     outs(%zc : tensor<13x10xf32>) -> tensor<13x10xf32>
  // The same on bf16 inputs, summed in f32.
  %ea16 = tensor.empty() : tensor<13x7xbf16>
  %a16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<13x7xf32>) outs(%ea16 : tensor<13x7xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<13x7xbf16>
  %eb16 = tensor.empty() : tensor<7x10xbf16>
  %b16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<7x10xf32>) outs(%eb16 : tensor<7x10xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<7x10xbf16>
  %c16 = linalg.matmul ins(%a16, %b16 : tensor<13x7xbf16>, tensor<7x10xbf16>)
                       outs(%zc : tensor<13x10xf32>) -> tensor<13x10xf32>
  // d = a @ transpose(bt), bt = the first 10 rows of a: both inputs read
  // across their rows.
  %bt = tensor.extract_slice %a[0, 0] [10, 7] [1, 1] : tensor<13x7xf32> to tensor<10x7xf32>
  %d = linalg.generic {indexing_maps = [#mA, #mBt, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : tensor<13x7xf32>, tensor<10x7xf32>) outs(%zc : tensor<13x10xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x10xf32>
  // The same on bf16 inputs.
  %bt16 = tensor.extract_slice %a16[0, 0] [10, 7] [1, 1] : tensor<13x7xbf16> to tensor<10x7xbf16>
  %d16 = linalg.generic {indexing_maps = [#mA, #mBt, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a16, %bt16 : tensor<13x7xbf16>, tensor<10x7xbf16>) outs(%zc : tensor<13x10xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x10xf32>
  // y3 = conv(x[..., :9], w3): 2x42x7x7, blocks along the filters.
  %x9 = tensor.extract_slice %x[0, 0, 0, 0] [2, 3, 9, 9] [1, 1, 1, 1] : tensor<2x3x9x11xf32> to tensor<2x3x9x9xf32>
  %ey3 = tensor.empty() : tensor<2x42x7x7xf32>
  %zy3 = linalg.fill ins(%zero : f32) outs(%ey3 : tensor<2x42x7x7xf32>) -> tensor<2x42x7x7xf32>
  %y3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x9, %w3 : tensor<2x3x9x9xf32>, tensor<42x3x3x3xf32>)
      outs(%zy3 : tensor<2x42x7x7xf32>) -> tensor<2x42x7x7xf32>
  // The same on bf16 inputs, summed in f32.
  %ex16 = tensor.empty() : tensor<2x3x9x9xbf16>
  %x16 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x9 : tensor<2x3x9x9xf32>) outs(%ex16 : tensor<2x3x9x9xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x3x9x9xbf16>
  %ew16 = tensor.empty() : tensor<42x3x3x3xbf16>
  %w16 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w3 : tensor<42x3x3x3xf32>) outs(%ew16 : tensor<42x3x3x3xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<42x3x3x3xbf16>
  %y16 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x16, %w16 : tensor<2x3x9x9xbf16>, tensor<42x3x3x3xbf16>)
      outs(%zy3 : tensor<2x42x7x7xf32>) -> tensor<2x42x7x7xf32>
  // z = conv(y3, transpose(w3)): 2x3x5x5.
  %ewt = tensor.empty() : tensor<3x42x3x3xf32>
  %wt = linalg.transpose ins(%w3 : tensor<42x3x3x3xf32>) outs(%ewt : tensor<3x42x3x3xf32>) permutation = [1, 0, 2, 3]
  %ez = tensor.empty() : tensor<2x3x5x5xf32>
  %zz = linalg.fill ins(%zero : f32) outs(%ez : tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
  %z = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y3, %wt : tensor<2x42x7x7xf32>, tensor<3x42x3x3xf32>)
      outs(%zz : tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
  // The loss: the sum of y, y16, z, c, c16, d and d16.
  %ly0 = linalg.generic {indexing_maps = [#id4, #all4], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%y : tensor<2x5x7x9xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %ly16 = linalg.generic {indexing_maps = [#id4, #all4], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%y16 : tensor<2x42x7x7xf32>) outs(%ly0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %ly = linalg.generic {indexing_maps = [#id4, #all4], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%z : tensor<2x3x5x5xf32>) outs(%ly16 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %lc = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%c, %c16, %d, %d16 : tensor<13x10xf32>, tensor<13x10xf32>, tensor<13x10xf32>, tensor<13x10xf32>) outs(%ly : tensor<f32>) {
  ^bb0(%u: f32, %v: f32, %t: f32, %t16: f32, %acc: f32):
    %s1 = arith.addf %acc, %u : f32
    %s2 = arith.addf %s1, %v : f32
    %s3 = arith.addf %s2, %t : f32
    %s4 = arith.addf %s3, %t16 : f32
    linalg.yield %s4 : f32
  } -> tensor<f32>
  // Each parameter p becomes p - lr * 1e-3 * loss * p.
  %lrv = tensor.extract %lr[] : tensor<f32>
  %lv = tensor.extract %lc[] : tensor<f32>
  %milli = arith.constant 1.0e-3 : f32
  %k1 = arith.mulf %lrv, %lv : f32
  %k = arith.mulf %k1, %milli : f32
  %ew = tensor.empty() : tensor<5x3x3x3xf32>
  %w2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<5x3x3x3xf32>) outs(%ew : tensor<5x3x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %k, %v : f32
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<5x3x3x3xf32>
  %ea = tensor.empty() : tensor<13x7xf32>
  %a2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<13x7xf32>) outs(%ea : tensor<13x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %k, %v : f32
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x7xf32>
  %eb = tensor.empty() : tensor<7x10xf32>
  %b2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<7x10xf32>) outs(%eb : tensor<7x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %k, %v : f32
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<7x10xf32>
  %ew3 = tensor.empty() : tensor<42x3x3x3xf32>
  %w32 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w3 : tensor<42x3x3x3xf32>) outs(%ew3 : tensor<42x3x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %k, %v : f32
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<42x3x3x3xf32>
  return %lc, %w2, %a2, %b2, %w32 : tensor<f32>, tensor<5x3x3x3xf32>, tensor<13x7xf32>, tensor<7x10xf32>, tensor<42x3x3x3xf32>
}
