// The one-layer transformer step of test/Transforms/Autocast/transformer-step.mlir
// (decomposed layer norms, -1e9 causal mask, softmax, tanh GELU,
// cross-entropy), with a driver, run on the CPU in f32 and after autocast to
// f16 and bf16. compare_runs.py checks the loss and the updates of the
// trained weights (W1, W2, Wout) against the f32 run.
//
// Tolerances, u the unit roundoff (f16 2^-11, bf16 2^-8): the longest chain
// of low-precision stages behind an update is nine matmuls (q/k/v, scores,
// context, projection, W1, W2, head forward; two more backward to dW1), each
// rounding its inputs once (about 2u relative to the sum of |products|, f32
// accumulation), plus the GELU and its gradient stored in low precision:
// about 20u. Allowed: 1e-2 (f16) and 8e-2 (bf16) of each weight's largest
// update, 1e-3 and 8e-3 relative on the loss (computed in f32). Measured when
// written: 2.3e-3 / 1.7e-2 and 7e-6 / 5e-5. The masked softmax stays f32
// (range rule), so no -inf - -inf = NaN can appear; compare_runs.py fails on
// a non-finite loss or update.
// RUN: %python %mpt_src/bench/autocast/gen_transformer.py --layers 1 --seq 4 --dim 8 --mlp 16 --vocab 4 --driver -o %t.mlir
// DEFINE: %{lower} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{lower_bf16} = --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --convert-linalg-to-loops --arith-expand="include-bf16=true" --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_dir/../../libmlir_runner_utils.so,%mlir_dir/../../libmlir_c_runner_utils.so
// RUN: mpt-opt %t.mlir --mpt-strip-training-markers %{lower} | %{run} > %t.f32
// RUN: mpt-opt %t.mlir --mpt-autocast --mpt-strip-training-markers %{lower} | %{run} > %t.f16
// RUN: mpt-opt %t.mlir --mpt-autocast=dtype=bf16 --mpt-strip-training-markers %{lower_bf16} | %{run} > %t.bf16
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --names W1,W2,Wout --update-tol 1e-2 --loss-tol 1e-3 | FileCheck %s
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.bf16 --names W1,W2,Wout --update-tol 8e-2 --loss-tol 8e-3 | FileCheck %s
// Policy level promote (normalisations, activations and residual adds follow
// their low inputs, f32 statistics; the backward reads 16-bit copies): the
// same bounds hold.
// RUN: mpt-opt %t.mlir --mpt-autocast=policy-level=promote --mpt-strip-training-markers %{lower} | %{run} > %t.pf16
// RUN: mpt-opt %t.mlir --mpt-autocast="dtype=bf16 policy-level=promote" --mpt-strip-training-markers %{lower_bf16} | %{run} > %t.pbf16
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.pf16 --names W1,W2,Wout --update-tol 1e-2 --loss-tol 1e-3 | FileCheck %s
// RUN: %python %S/Inputs/compare_runs.py %t.f32 %t.pbf16 --names W1,W2,Wout --update-tol 8e-2 --loss-tol 8e-3 | FileCheck %s
// RUN: not %python %S/Inputs/compare_runs.py %t.f32 %t.f16 --names W1,W2,Wout --update-tol 0 --loss-tol 0

// CHECK: loss: f32 {{.*}}, low {{.*}}, relative difference {{.*}} <= {{.*}}
// CHECK: W1: {{.*}} <= {{.*}}
// CHECK: W2: {{.*}} <= {{.*}}
// CHECK: Wout: {{.*}} <= {{.*}}
// CHECK: runs differ: yes
