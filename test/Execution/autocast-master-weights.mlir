// master-weights=true (Apex O2): the step reads f16 working copies passed
// in as arguments instead of casting the f32 master weights, and returns the
// next working copies. One step from working copies equal to the truncated
// masters must give exactly what plain autocast gives (the same f16 values
// reach the same ops), and each returned working copy must be its updated
// master truncated to f16. Both are checked bit for bit.
//
// The driver below prints the
// loss and the old/new parameters like autocast-mlp.mlir's driver, then, per
// parameter, the new working copy and the new master truncated to f16.
// DEFINE: %{lower} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_dir/../../libmlir_runner_utils.so,%mlir_dir/../../libmlir_c_runner_utils.so
// RUN: cat %mpt_src/examples/mlp/mlp_step.mlir %S/autocast-mlp.mlir > %t.plain.mlir
// loss-region=0 on both sides: every parameter, the output bias too, is then
// read in f16 and has a working copy (by default the output bias add is in
// the loss region, f32, and b2 has none: master-weights.mlir).
// RUN: mpt-opt %t.plain.mlir --mpt-autocast="loss-region=0 policy-level=conservative" --mpt-strip-training-markers %{lower} | %{run} > %t.plain
// The driver calls the step with its new signature, so it joins the step
// after autocast (the module braces of mpt-opt's output dropped).
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="master-weights=true loss-region=0 policy-level=conservative" --mlir-print-local-scope | sed '1d;$d' > %t.step.mlir
// RUN: cat %t.step.mlir %s > %t.mw.mlir
// RUN: mpt-opt %t.mw.mlir --mpt-strip-training-markers %{lower} | %{run} > %t.mw
// RUN: %python %S/Inputs/compare_runs.py %t.plain %t.mw --identical --working-copies | FileCheck %s
// The comparison can fail: the f32 step differs.
// RUN: mpt-opt %t.plain.mlir --mpt-strip-training-markers %{lower} | %{run} > %t.f32
// RUN: not %python %S/Inputs/compare_runs.py %t.f32 %t.mw --identical --working-copies

// CHECK: loss: identical
// CHECK: w1: identical
// CHECK: b2: identical
// CHECK: working copy of w1: equal to the truncated master (512 values)
// CHECK: working copy of b1: equal to the truncated master (32 values)
// CHECK: working copy of w2: equal to the truncated master (128 values)
// CHECK: working copy of b2: equal to the truncated master (4 values)

func.func private @printMemrefF32(memref<*xf32>)

// t[i, j] = 0.5 * sin(0.37 * (i * cols + j) + phase)
func.func @pattern(%e: tensor<?x?xf32>, %phase: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %cols = tensor.dim %e, %c1 : tensor<?x?xf32>
    %row = arith.muli %i, %cols : index
    %k = arith.addi %row, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %a = arith.constant 0.37 : f32
    %h = arith.constant 0.5 : f32
    %x = arith.mulf %kf, %a : f32
    %y = arith.addf %x, %phase : f32
    %s = math.sin %y : f32
    %v = arith.mulf %s, %h : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @print2d(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %e1 = tensor.empty(%c16, %c32) : tensor<?x?xf32>
  %p1 = arith.constant 0.1 : f32
  %w1d = call @pattern(%e1, %p1) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %e2 = tensor.empty(%c1, %c32) : tensor<?x?xf32>
  %p2 = arith.constant 0.7 : f32
  %b1d = call @pattern(%e2, %p2) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %e3 = tensor.empty(%c32, %c4) : tensor<?x?xf32>
  %p3 = arith.constant 1.3 : f32
  %w2d = call @pattern(%e3, %p3) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %e4 = tensor.empty(%c1, %c4) : tensor<?x?xf32>
  %p4 = arith.constant 2.9 : f32
  %b2d = call @pattern(%e4, %p4) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %e5 = tensor.empty(%c8, %c16) : tensor<?x?xf32>
  %p5 = arith.constant 0.4 : f32
  %xd = call @pattern(%e5, %p5) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<16x32xf32>
  %b1m = tensor.cast %b1d : tensor<?x?xf32> to tensor<1x32xf32>
  %b1 = tensor.collapse_shape %b1m [[0, 1]] : tensor<1x32xf32> into tensor<32xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<32x4xf32>
  %b2m = tensor.cast %b2d : tensor<?x?xf32> to tensor<1x4xf32>
  %b2 = tensor.collapse_shape %b2m [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x16xf32>
  // one-hot labels: class (row mod 4)
  %ey = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%ey : tensor<8x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %cls = arith.remui %i, %c4 : index
    %hit = arith.cmpi eq, %cls, %j : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %v = arith.select %hit, %one, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %lr = arith.constant dense<0.5> : tensor<f32>

  // The working copies start as the truncated master weights.
  %cw1 = arith.truncf %w1 : tensor<16x32xf32> to tensor<16x32xf16>
  %cb1 = arith.truncf %b1 : tensor<32xf32> to tensor<32xf16>
  %cw2 = arith.truncf %w2 : tensor<32x4xf32> to tensor<32x4xf16>
  %cb2 = arith.truncf %b2 : tensor<4xf32> to tensor<4xf16>
  %loss, %nw1, %nb1, %nw2, %nb2, %ncw1, %ncb1, %ncw2, %ncb2 = call @mlp_step(%w1, %b1, %w2, %b2, %x, %y, %lr, %cw1, %cb1, %cw2, %cb2)
      : (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<f32>,
         tensor<16x32xf16>, tensor<32xf16>, tensor<32x4xf16>, tensor<4xf16>)
      -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>,
          tensor<16x32xf16>, tensor<32xf16>, tensor<32x4xf16>, tensor<4xf16>)

  // old and new parameters, as 2-D tensors
  %lm = tensor.expand_shape %loss [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %lmd = tensor.cast %lm : tensor<1x1xf32> to tensor<?x?xf32>
  call @print2d(%lmd) : (tensor<?x?xf32>) -> ()
  call @print2d(%w1d) : (tensor<?x?xf32>) -> ()
  %nw1d = tensor.cast %nw1 : tensor<16x32xf32> to tensor<?x?xf32>
  call @print2d(%nw1d) : (tensor<?x?xf32>) -> ()
  call @print2d(%b1d) : (tensor<?x?xf32>) -> ()
  %nb1m = tensor.expand_shape %nb1 [[0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
  %nb1d = tensor.cast %nb1m : tensor<1x32xf32> to tensor<?x?xf32>
  call @print2d(%nb1d) : (tensor<?x?xf32>) -> ()
  call @print2d(%w2d) : (tensor<?x?xf32>) -> ()
  %nw2d = tensor.cast %nw2 : tensor<32x4xf32> to tensor<?x?xf32>
  call @print2d(%nw2d) : (tensor<?x?xf32>) -> ()
  call @print2d(%b2d) : (tensor<?x?xf32>) -> ()
  %nb2m = tensor.expand_shape %nb2 [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %nb2d = tensor.cast %nb2m : tensor<1x4xf32> to tensor<?x?xf32>
  call @print2d(%nb2d) : (tensor<?x?xf32>) -> ()

  // Each new working copy, then the new master weight rounded to f16: they
  // must be equal.
  %xw1 = arith.extf %ncw1 : tensor<16x32xf16> to tensor<16x32xf32>
  %xw1d = tensor.cast %xw1 : tensor<16x32xf32> to tensor<?x?xf32>
  call @print2d(%xw1d) : (tensor<?x?xf32>) -> ()
  %rw1 = arith.truncf %nw1 : tensor<16x32xf32> to tensor<16x32xf16>
  %rw1x = arith.extf %rw1 : tensor<16x32xf16> to tensor<16x32xf32>
  %rw1d = tensor.cast %rw1x : tensor<16x32xf32> to tensor<?x?xf32>
  call @print2d(%rw1d) : (tensor<?x?xf32>) -> ()
  %xb1 = arith.extf %ncb1 : tensor<32xf16> to tensor<32xf32>
  %xb1m = tensor.expand_shape %xb1 [[0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
  %xb1d = tensor.cast %xb1m : tensor<1x32xf32> to tensor<?x?xf32>
  call @print2d(%xb1d) : (tensor<?x?xf32>) -> ()
  %rb1 = arith.truncf %nb1 : tensor<32xf32> to tensor<32xf16>
  %rb1x = arith.extf %rb1 : tensor<32xf16> to tensor<32xf32>
  %rb1m = tensor.expand_shape %rb1x [[0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
  %rb1d = tensor.cast %rb1m : tensor<1x32xf32> to tensor<?x?xf32>
  call @print2d(%rb1d) : (tensor<?x?xf32>) -> ()
  %xw2 = arith.extf %ncw2 : tensor<32x4xf16> to tensor<32x4xf32>
  %xw2d = tensor.cast %xw2 : tensor<32x4xf32> to tensor<?x?xf32>
  call @print2d(%xw2d) : (tensor<?x?xf32>) -> ()
  %rw2 = arith.truncf %nw2 : tensor<32x4xf32> to tensor<32x4xf16>
  %rw2x = arith.extf %rw2 : tensor<32x4xf16> to tensor<32x4xf32>
  %rw2d = tensor.cast %rw2x : tensor<32x4xf32> to tensor<?x?xf32>
  call @print2d(%rw2d) : (tensor<?x?xf32>) -> ()
  %xb2 = arith.extf %ncb2 : tensor<4xf16> to tensor<4xf32>
  %xb2m = tensor.expand_shape %xb2 [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %xb2d = tensor.cast %xb2m : tensor<1x4xf32> to tensor<?x?xf32>
  call @print2d(%xb2d) : (tensor<?x?xf32>) -> ()
  %rb2 = arith.truncf %nb2 : tensor<4xf32> to tensor<4xf16>
  %rb2x = arith.extf %rb2 : tensor<4xf16> to tensor<4xf32>
  %rb2m = tensor.expand_shape %rb2x [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %rb2d = tensor.cast %rb2m : tensor<1x4xf32> to tensor<?x?xf32>
  call @print2d(%rb2d) : (tensor<?x?xf32>) -> ()
  return
}
