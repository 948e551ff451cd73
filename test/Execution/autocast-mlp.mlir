// Autocast changes the numbers of the canonical MLP step by low-precision
// rounding only: the step runs on the CPU in f32, after autocast to f16 and
// after autocast to bf16, and compare_runs.py checks the loss and the
// parameter updates (new - old) against the f32 run:
//   f16:  unit roundoff u = 2^-11. An update element goes through at most
//         three matmul stages (forward to the logits, back to w1); each
//         rounds its inputs once (2u relative to the sum of |products|,
//         accumulation is f32), and the activation stored between them in
//         f16 adds u: about 9u = 4.4e-3 of the update's scale. Allowed: 5e-3
//         of the largest update of each parameter (10u), and 1e-3 relative
//         on the loss (the loss is computed in f32 from f16-rounded logits:
//         a few u). Measured when written: 7.6e-4 and 1.4e-5.
//   bf16: u = 2^-8, eight times f16's: 4e-2 and 8e-3 (measured 7.5e-3 and
//         1.7e-4).
// It also checks that the low-precision runs differ from the f32 run at all
// (autocast did something), so the comparison can fail both ways.
//
// The driver below is appended to examples/mlp/mlp_step.mlir (neither file
// has a module op, so the two are one module). It has no allow op, so
// autocast leaves it in f32.
// DEFINE: %{lower} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// bf16 casts are expanded to integer code once the linalg bodies are loops.
// DEFINE: %{lower_bf16} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --convert-linalg-to-loops --arith-expand="include-bf16=true" --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_dir/../../libmlir_runner_utils.so,%mlir_dir/../../libmlir_c_runner_utils.so
// RUN: cat %mpt_src/examples/mlp/mlp_step.mlir %s > %t.mlir
// RUN: mpt-opt %t.mlir --mpt-strip-training-markers %{lower} | %{run} > %t.f32
// RUN: mpt-opt %t.mlir --mpt-autocast --mpt-strip-training-markers %{lower} | %{run} > %t.f16
// RUN: mpt-opt %t.mlir --mpt-autocast=dtype=bf16 --mpt-strip-training-markers %{lower_bf16} | %{run} > %t.bf16
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --update-tol 5e-3 --loss-tol 1e-3 | FileCheck %s
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.bf16 --update-tol 4e-2 --loss-tol 8e-3 | FileCheck %s
// Policy level promote (normalisations, activations and residual adds follow
// their low inputs, f32 statistics; the backward reads 16-bit copies): the
// same bounds hold.
// RUN: mpt-opt %t.mlir --mpt-autocast=policy-level=promote --mpt-strip-training-markers %{lower} | %{run} > %t.pf16
// RUN: mpt-opt %t.mlir --mpt-autocast="dtype=bf16 policy-level=promote" --mpt-strip-training-markers %{lower_bf16} | %{run} > %t.pbf16
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.pf16 --update-tol 5e-3 --loss-tol 1e-3 | FileCheck %s
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.pbf16 --update-tol 4e-2 --loss-tol 8e-3 | FileCheck %s
// Autocast really rounds: with zero tolerance the comparison fails.
// RUN: not %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --update-tol 0 --loss-tol 0

// CHECK: loss: f32 {{.*}}, low {{.*}}, relative difference {{.*}} <= {{.*}}
// CHECK: w1: {{.*}} <= {{.*}}
// CHECK: b1: {{.*}} <= {{.*}}
// CHECK: w2: {{.*}} <= {{.*}}
// CHECK: b2: {{.*}} <= {{.*}}
// CHECK: runs differ: yes

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

  %loss, %nw1, %nb1, %nw2, %nb2 = call @mlp_step(%w1, %b1, %w2, %b2, %x, %y, %lr)
      : (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<f32>)
      -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)

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
  return
}
