// A recurrent loop whose hidden state autocast carries in f16 (the scf.for
// iter_arg, init, yield and result change type together): run on the CPU
// in f32 and after autocast, the final state and the output agree within
// the rounding of f16.
//
// h_{t+1} = tanh(h_t W), 3 steps, then out = h_3 W, with W entries below
// 1/8 so that the rows of |W| sum to at most 1 and, with |tanh'| <= 1, the
// recurrence does not amplify earlier errors. Per step the matmul rounds its
// inputs (2u relative to the sum of |terms|, u = 2^-11) and the new state is
// stored in f16 (u): at most about 9u on h_3, and the output matmul adds
// 2u. Both are relative to sums of |terms|; outputs that partly cancel make
// the error relative to the largest output up to a few times larger.
// Allowed: 2e-2 (40u) of each output's largest magnitude. Measured when
// written: 4.1e-3 (h_3) and 7.0e-3 (out).
// DEFINE: %{lower} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_dir/../../libmlir_runner_utils.so,%mlir_dir/../../libmlir_c_runner_utils.so
// RUN: mpt-opt %s %{lower} | %{run} > %t.f32
// RUN: mpt-opt %s --mpt-autocast | FileCheck %s --check-prefix=IR
// RUN: mpt-opt %s --mpt-autocast %{lower} | %{run} > %t.f16
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --outputs --update-tol 2e-2 | FileCheck %s
// RUN: not %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --outputs --update-tol 0

// IR: scf.for {{.*}} -> (tensor<4x8xf16>)
// CHECK: output 0: max difference / max value {{.*}} <= 0.02
// CHECK: output 1: max difference / max value {{.*}} <= 0.02
// CHECK: runs differ: yes

#id = affine_map<(i, j) -> (i, j)>

func.func @recurrent(%h0: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%hi = %h0) -> (tensor<4x8xf32>) {
    %mm = linalg.matmul ins(%hi, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    } -> tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  }
  %out = linalg.matmul ins(%h, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %h, %out : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

// t[i, j] = scale * sin(0.37 * (i * 8 + j) + phase)
func.func @pattern(%rows: index, %phase: f32, %scale: f32) -> tensor<?x8xf32> {
  %e = tensor.empty(%rows) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %row = arith.muli %i, %c8 : index
    %k = arith.addi %row, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %a = arith.constant 0.37 : f32
    %x = arith.mulf %kf, %a : f32
    %y = arith.addf %x, %phase : f32
    %s = math.sin %y : f32
    %v = arith.mulf %s, %scale : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

func.func @print(%t: tensor<4x8xf32>) {
  %m = bufferization.to_buffer %t : tensor<4x8xf32> to memref<4x8xf32>
  %u = memref.cast %m : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %p0 = arith.constant 0.2 : f32
  %p1 = arith.constant 1.1 : f32
  %one = arith.constant 1.0 : f32
  %s = arith.constant 0.125 : f32
  %h0d = call @pattern(%c4, %p0, %one) : (index, f32, f32) -> tensor<?x8xf32>
  %wd = call @pattern(%c8, %p1, %s) : (index, f32, f32) -> tensor<?x8xf32>
  %h0 = tensor.cast %h0d : tensor<?x8xf32> to tensor<4x8xf32>
  %w = tensor.cast %wd : tensor<?x8xf32> to tensor<8x8xf32>
  %h, %out = call @recurrent(%h0, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  call @print(%h) : (tensor<4x8xf32>) -> ()
  call @print(%out) : (tensor<4x8xf32>) -> ()
  return
}
