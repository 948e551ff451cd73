// RUN: mpt-opt %s --mpt-lower-to-cpu | FileCheck %s --check-prefix=IR
// RUN: mpt-opt %s --mpt-lower-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-cpu="c-interface=false" | FileCheck %s --check-prefix=NOCIFACE
// RUN: mpt-opt %s --mpt-lower-to-cpu="use-generic-functions=true" | FileCheck %s --check-prefix=GENERIC
// RUN: mpt-opt %s --mpt-lower-to-cpu="use-generic-functions=true" | FileCheck %s --check-prefix=NOMALLOC

// --mpt-lower-to-cpu turns a training step (markers, f16 matmul with an FP32
// accumulator, bf16 casts) into LLVM dialect code that runs: the markers
// are gone, the contract attributes are dropped, every function gets a C
// interface wrapper, and the numbers are those of real f16/bf16 rounding.

// IR-LABEL: llvm.func @step(
// IR-NOT:   mpt.
// IR-LABEL: llvm.func @_mlir_ciface_step(
// IR-NOT:   mpt.
// NOCIFACE-NOT: _mlir_ciface_step

// use-generic-functions: the step allocates and frees through functions the
// host defines (mpt-run counts its heap bytes with them), never malloc/free;
// by default it calls malloc and free.
// NOMALLOC-NOT:    {{@malloc|@free}}
// GENERIC-DAG:     llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// GENERIC-DAG:     llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// GENERIC-LABEL:   llvm.func @step(
// GENERIC:         llvm.call @_mlir_memref_to_llvm_alloc(
// GENERIC:         llvm.call @_mlir_memref_to_llvm_free(

#x_ik  = affine_map<(i, k, j) -> (i, k)>
#s_ikj = affine_map<(i, k, j) -> ()>
#o_kj  = affine_map<(i, k, j) -> (k, j)>
#id    = affine_map<(i, j) -> (i, j)>
#sc    = affine_map<(i, j) -> ()>

// loss = sum(f16(x) @ f16(w)) accumulated in FP32; dL/dw[k, j] = sum_i x[i, k];
// w' = w - lr * dL/dw.
func.func @step(%w: tensor<2x2xf32> {mpt.role = "param"},
                %x: tensor<2x2xf32> {mpt.role = "data"},
                %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<2x2xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %x16 = arith.truncf %x : tensor<2x2xf32> to tensor<2x2xf16>
  %w16 = arith.truncf %w : tensor<2x2xf32> to tensor<2x2xf16>
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x16, %w16 : tensor<2x2xf16>, tensor<2x2xf16>)
                     outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<2x2xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#x_ik, #s_ikj, #o_kj],
                        iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x, %seed : tensor<2x2xf32>, tensor<f32>) outs(%z : tensor<2x2xf32>) {
  ^bb0(%xv: f32, %sv: f32, %acc: f32):
    %p = arith.mulf %xv, %sv : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %g = mpt.gradient %dw : tensor<2x2xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%p: f32, %gv: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gv : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  return %loss, %nw : tensor<f32>, tensor<2x2xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = arith.constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  // 1.0001 is 1 in f16 (its spacing at 1 is 2^-10): the forward pass sees 1.
  %x = arith.constant dense<[[1.0001, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %lr = arith.constant dense<0.5> : tensor<f32>
  %loss, %nw = func.call @step(%w, %x, %lr)
      : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2x2xf32>)
  // sum(x @ w) = 4 * 0.75 + 6 * 3 = 21 with x00 rounded to 1 (21.000075 in FP32).
  // CHECK: 21{{$}}
  %l = tensor.extract %loss[] : tensor<f32>
  vector.print %l : f32
  // The FP32 gradient path keeps 1.0001: w00' = 0.5 - 0.5 * 4.0001.
  // CHECK-NEXT: -1.50005
  // CHECK-NEXT: -1
  %n00 = tensor.extract %nw[%c0, %c0] : tensor<2x2xf32>
  vector.print %n00 : f32
  %n11 = tensor.extract %nw[%c1, %c1] : tensor<2x2xf32>
  vector.print %n11 : f32
  // bf16 keeps 8 significant bits: 1.01 rounds to 1 + 1/128.
  // CHECK-NEXT: 1.00781
  %b = arith.constant dense<1.01> : tensor<f32>
  %b16 = arith.truncf %b : tensor<f32> to tensor<bf16>
  %bf = arith.extf %b16 : tensor<bf16> to tensor<f32>
  %bv = tensor.extract %bf[] : tensor<f32>
  vector.print %bv : f32
  return
}
