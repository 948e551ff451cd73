// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-matmul-to-tensorcore | FileCheck %s
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-matmul-to-tensorcore="tile-m=64 tile-n=64 warp-m=32 warp-n=32 stages=2" | FileCheck %s --check-prefix=SMALL

// The matmul moves into its own function, called in its place, which
// launches 4x4 blocks of 128 threads; the shared tiles are 3-stage,
// 128-byte aligned shared-memory globals filled by cp.async; each warp's 64x64 tile is 32 mma.sync
// m16n8k16 per k16 step with the f32 accumulators carried by the K loop.
// CHECK-LABEL: func.func @f16
// CHECK: call @f16_tensorcore(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<512x512xf16>, memref<512x512xf16>, memref<512x512xf32>) -> ()
// CHECK-NOT: linalg.matmul
// CHECK: memref.global "private" @f16_tensorcore_smem_0 : memref<3x128x32xf16, 3> {alignment = 128 : i64}
// CHECK: memref.global "private" @f16_tensorcore_smem_1 : memref<3x32x128xf16, 3> {alignment = 128 : i64}
// CHECK-LABEL: func.func private @f16_tensorcore
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{.*}}, {{.*}} = %c4{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) {
// CHECK: memref.get_global @f16_tensorcore_smem_0 : memref<3x128x32xf16, 3>
// One cp.async group per k-tile (A and B), three in flight before the loop;
// each iteration waits for its own (2 groups may stay in flight).
// CHECK: nvgpu.device_async_copy {{.*}} {bypassL1}
// CHECK-COUNT-3: nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} iter_args(
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NOT: nvgpu.device_async_wait
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: linalg.matmul
// SMALL: memref.global "private" @f16_tensorcore_smem_0 : memref<2x64x32xf16, 3>
// SMALL: memref.global "private" @f16_tensorcore_smem_1 : memref<2x32x64xf16, 3>
// SMALL-LABEL: func.func private @f16_tensorcore
// SMALL: gpu.launch blocks({{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
func.func @f16(%A: memref<512x512xf16>, %B: memref<512x512xf16>, %C: memref<512x512xf32>) {
  // expected-remark @below {{matmul 512x512x512 f16 lowered to Tensor Cores (sm_80: mma.sync m16n8k16}}
  linalg.matmul ins(%A, %B : memref<512x512xf16>, memref<512x512xf16>) outs(%C : memref<512x512xf32>)
  return
}

// -----

// bf16: the data moves as 16-bit payloads (typed f16 for the upstream
// ldmatrix conversion, cast at the function entry) and the mma is an
// nvvm.mma.sync with bf16 multiplicands packed two per i32.
// CHECK-LABEL: func.func private @bf16_tensorcore
// CHECK-SAME: (%[[A:.*]]: memref<256x256xbf16>, %[[B:.*]]: memref<256x256xbf16>, %{{.*}}: memref<256x256xf32>)
// CHECK: builtin.unrealized_conversion_cast %[[A]] : memref<256x256xbf16> to memref<256x256xf16>
// CHECK: builtin.unrealized_conversion_cast %[[B]] : memref<256x256xbf16> to memref<256x256xf16>
// CHECK: nvgpu.ldmatrix
// CHECK: vector.bitcast {{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvgpu.mma.sync
func.func @bf16(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  // expected-remark @below {{matmul 256x256x256 bf16 lowered to Tensor Cores}}
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}

// -----

// Transposed B (B[n][k]): the B tile is 128x32 and ldmatrix needs no
// transpose for it.
// CHECK: memref.global "private" @f16_bt_tensorcore_smem_0 : memref<3x128x32xf16, 3>
// CHECK: memref.global "private" @f16_bt_tensorcore_smem_1 : memref<3x128x32xf16, 3>
// CHECK-LABEL: func.func private @f16_bt_tensorcore
// CHECK-NOT: transpose = true
// CHECK: nvgpu.mma.sync
func.func @f16_bt(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  // expected-remark @below {{matmul 256x256x256 f16 (B transposed) lowered to Tensor Cores}}
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%A, %B : memref<256x256xf16>, memref<256x256xf16>) outs(%C : memref<256x256xf32>)
  return
}

// -----

// batch_matmul: the batch is blockIdx.z; each block's 1 x 128 x 128 tile is
// a matmul on rank-reduced views of the batch.
// CHECK-LABEL: func.func private @batched_tensorcore
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c4{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK: gpu.block_id  z
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.mma.sync
// CHECK-NOT: linalg.batch_matmul
func.func @batched(%A: memref<4x256x512xf16>, %B: memref<4x512x256xf16>, %C: memref<4x256x256xf32>) {
  // expected-remark @below {{matmul 4 x 256x256x512 f16 lowered to Tensor Cores (sm_80}}
  linalg.batch_matmul ins(%A, %B : memref<4x256x512xf16>, memref<4x512x256xf16>) outs(%C : memref<4x256x256xf32>)
  return
}


// -----

// K is one k-tile: no K loop (nothing to pipeline); K is two k-tiles: the
// pipeline is two stages deep (no prefetch of k-tiles that do not exist).
// CHECK-LABEL: func.func private @k32_tensorcore
// CHECK-NOT: scf.for
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func private @k64_tensorcore
// CHECK: memref.get_global @k64_tensorcore_smem_0 : memref<2x128x32xf16, 3>
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
func.func @k32(%A: memref<128x32xf16>, %B: memref<32x128xf16>, %C: memref<128x128xf32>) {
  // expected-remark @below {{matmul 128x128x32 f16 lowered to Tensor Cores}}
  linalg.matmul ins(%A, %B : memref<128x32xf16>, memref<32x128xf16>) outs(%C : memref<128x128xf32>)
  return
}
func.func @k64(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xf32>) {
  // expected-remark @below {{matmul 128x128x64 f16 lowered to Tensor Cores}}
  linalg.matmul ins(%A, %B : memref<128x64xf16>, memref<64x128xf16>) outs(%C : memref<128x128xf32>)
  return
}
