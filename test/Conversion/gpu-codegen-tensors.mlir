// Tensor-level input (what autocast produces: casts are elementwise arith on
// tensors): mpt-gpu-codegen makes them linalg and bufferizes first, then both
// matmuls reach Tensor Cores and become embedded kernels; the bf16 cast runs
// on the host as integer arithmetic.
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_80" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.mlir

// REMARK: :[[@LINE+16]]:8: remark: matmul 256x256x256 f16 lowered to Tensor Cores {{.*}} in @step_tensorcore
// REMARK: :[[@LINE+16]]:9: remark: matmul 256x256x256 bf16 lowered to Tensor Cores {{.*}} in @step_tensorcore_0

// CHECK-LABEL: llvm.func @step(
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.lshr
// CHECK: llvm.bitcast {{.*}} : i16 to bf16
// CHECK: llvm.call @step_tensorcore(
// CHECK: llvm.call @step_tensorcore_0(
// CHECK-DAG: gpu.binary @step_tensorcore_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx76">, properties = {{.*}}, assembly = "
// CHECK-DAG: gpu.binary @step_tensorcore_0_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx76">, properties = {{.*}}, assembly = "
func.func @step(%a: tensor<256x256xf16>, %b: tensor<256x256xbf16>, %w32: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %w = arith.truncf %w32 : tensor<256x256xf32> to tensor<256x256xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %a : tensor<256x256xf16>, tensor<256x256xf16>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r2 = linalg.matmul ins(%b, %w : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r, %r2 : tensor<256x256xf32>, tensor<256x256xf32>
}
