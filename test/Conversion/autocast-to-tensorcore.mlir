// The mission's chain: autocast paints the f32 matmul bf16 (f32 accumulator)
// and mpt-gpu-codegen turns it into a Tensor Core kernel; the f32 -> bf16
// casts of the inputs stay on the host.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-autocast="dtype=bf16" --mpt-gpu-codegen="chip=sm_80 dump-dir=%t" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t/layer_tensorcore_kernel.sm_80.ptx
// RUN: mpt-opt %s --mpt-autocast="dtype=f16" --mpt-gpu-codegen="chip=sm_90a dump-dir=%t" -o %t/out90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK90
// RUN: FileCheck %s --check-prefix=SM90 < %t/layer_tensorcore_kernel.sm_90a.ptx

// REMARK: remark: matmul 256x256x512 bf16 lowered to Tensor Cores (sm_80: {{.*}}) in @layer_tensorcore
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// REMARK90: remark: matmul 256x256x512 f16 lowered to Tensor Cores (sm_90a: {{.*}}) in @layer_tensorcore
// SM90: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
func.func @layer(%x: tensor<256x512xf32>, %w: tensor<512x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%x, %w : tensor<256x512xf32>, tensor<512x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
