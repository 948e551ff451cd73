// REQUIRES: ptxas
// An FP8 training step end to end on sm_90a: FP8 autocast (hybrid, delayed
// scaling) -> mpt-gpu-codegen. Both GEMMs become FP8 wgmma kernels: the
// forward y = x W^T (a torch-style linear: both operands K-major) directly
// (e4m3 x e4m3); the weight gradient dW = dY^T x reads dY as [k][m] and x
// as [k][n], which FP8 wgmma cannot read, so both are first copied K-major
// by transpose kernels (e5m2 x e4m3). The FP8 casts, amaxes and the scale
// update run on the host as integer arithmetic (mpt-expand-fp8-casts).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-autocast="dtype=fp8" --mpt-strip-training-markers --mpt-strip-contract-attributes --mpt-gpu-codegen="chip=sm_90a dump-dir=%t" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t/linear_tensorcore_kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=DW < %t/linear_tensorcore_0_kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=XPOSE < %t/linear_tensorcore_0_transpose_a_kernel.sm_90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/linear_tensorcore_kernel.sm_90a.ptx -o %t/k.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/linear_tensorcore_0_kernel.sm_90a.ptx -o %t/k0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/linear_tensorcore_0_transpose_a_kernel.sm_90a.ptx -o %t/ta.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/linear_tensorcore_0_transpose_b_kernel.sm_90a.ptx -o %t/tb.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// sm_80 has no FP8 Tensor Cores: an error at the forward matmul.
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8" --mpt-strip-training-markers --mpt-strip-contract-attributes --mpt-gpu-codegen="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// REMARK: remark: matmul 128x128x256 f8E4M3FN (B transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e4m3 x e4m3, block tile 128x128x128, 3 mbarrier stages, 128 threads) in @linear_tensorcore
// REMARK: remark: matmul 128x256x128 f8E5M2 x f8E4M3FN (A transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e5m2 x e4m3, block tile 128x128x128, 3 mbarrier stages, 128 threads, A and B copied K-major first) in @linear_tensorcore_0
// CHECK: .entry linear_tensorcore_kernel
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// DW: .entry linear_tensorcore_0_kernel
// DW-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// XPOSE: .entry linear_tensorcore_0_transpose_a_kernel
// XPOSE: ld.global.b8
// XPOSE: st.global.b8
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SM80: error: FP8 matmul (f8E4M3FN x f8E4M3FN) cannot use sm_80 Tensor Cores

#id = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>
func.func @linear(%w: tensor<128x256xf32> {mpt.role = "param"},
                  %x: tensor<128x256xf32> {mpt.role = "data"},
                  %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<128x256xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<128x256xf32>, tensor<128x256xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<128x128xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<128x128xf32>
  %ew = tensor.empty() : tensor<128x256xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<128x256xf32>) -> tensor<128x256xf32>
  // dW[o][i] = sum_b dY[b][o] x[b][i]
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %x : tensor<128x128xf32>, tensor<128x256xf32>) outs(%zw : tensor<128x256xf32>) -> tensor<128x256xf32>
  %g = mpt.gradient %dw : tensor<128x256xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<128x256xf32>, tensor<128x256xf32>, tensor<f32>) outs(%ew : tensor<128x256xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %m = arith.mulf %b, %l : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<128x256xf32>
  return %loss, %nw : tensor<f32>, tensor<128x256xf32>
}
