// The sm_90a kernel for f16 / bf16 matmuls (A[M][K] x B[K][N] -> C f32):
// the body of the outlined entry function, which mpt-matmul-to-tensorcore
// (MatmulToWgmma.cpp) parses and moves into the entry (docs/TensorCore.md).
//   grid (N/128, M/128), one warpgroup (128 threads) per 128x128 C tile
//   host:   TMA descriptors for A (box 128x64) and B (box 64x64, two boxes per
//           64x128 B tile: swizzle_128b needs 128-byte rows)
//   kernel: ${STAGES} shared-memory stages of A 128x64 + B 64x128 (32 KiB,
//           1024-byte aligned in the dynamic shared memory), one mbarrier
//           each; thread 0 issues the TMA loads of the first stages, then
//           each K step waits on its stage's mbarrier, runs wgmma m64n128k16
//           over the stage, waits for it and refills the stage.
// The 128x128x64 tile is written into the structure below (box shapes,
// offsets); TensorCoreConfig.h names it. Parameters (`$` and a name in
// braces) are substituted by TensorCoreSchedules.cpp (an unknown or unused
// one is an error); test/Conversion/tensorcore-schedules.mlir parses every
// instantiation: T (element type), M, N, K, GRID_X = N/128, GRID_Y = M/128,
// STAGES, K_TILES = K/64, STAGE_BYTES, A_BYTES (A's part of a stage),
// SMEM_BYTES (the stages plus 2 KiB for the alignment).

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = ${STAGES}>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64x${T}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64x${T}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
#smem = #gpu.address_space<workgroup>
func.func @body(%A: memref<${M}x${K}x${T}>, %B: memref<${K}x${N}x${T}>, %C: memref<${M}x${N}xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %gridX = arith.constant ${GRID_X} : index
  %gridY = arith.constant ${GRID_Y} : index
  %smemBytes = arith.constant ${SMEM_BYTES} : i32
  %castA = memref.cast %A : memref<${M}x${K}x${T}> to memref<*x${T}>
  %castB = memref.cast %B : memref<${K}x${N}x${T}> to memref<*x${T}>
  %descA = nvgpu.tma.create.descriptor %castA box[%c128, %c64] : memref<*x${T}> -> !mapA
  %descB = nvgpu.tma.create.descriptor %castB box[%c64, %c64] : memref<*x${T}> -> !mapB
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %gridX, %gy = %gridY, %gz = %c1)
             threads(%tx, %ty, %tz) in (%ntx = %c128, %nty = %c1, %ntz = %c1)
             dynamic_shared_memory_size %smemBytes {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %kStages = arith.constant ${STAGES} : index
    %kTiles = arith.constant ${K_TILES} : index
    %kStageBytes = arith.constant ${STAGE_BYTES} : index
    %kABytes = arith.constant ${A_BYTES} : index
    %kHalfB = arith.constant 8192 : index
    %txBytes = arith.constant ${STAGE_BYTES} : index
    %ticks = arith.constant 10000000 : index
    %tid = gpu.thread_id x
    %bidx = gpu.block_id x
    %bidy = gpu.block_id y
    %row0 = arith.muli %bidy, %k128 : index
    %col0 = arith.muli %bidx, %k128 : index
    %col1 = arith.addi %col0, %k64 : index
    %isLeader = arith.cmpi eq, %tid, %k0 : index
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #smem>
    // 128-byte swizzled TMA tiles must start on a 1024-byte boundary, and
    // the kernel's static shared memory (the mbarriers) may sit next to the
    // dynamic region's symbol: the tiles start at alignUp(base + 64, 1024),
    // which is clear of both (the launch adds 2 KiB for this).
    %k1024 = arith.constant 1024 : index
    %dynBase = memref.extract_aligned_pointer_as_index %dyn : memref<?xi8, #smem> -> index
    %lo = arith.addi %dynBase, %k64 : index
    %loRem = arith.remui %lo, %k1024 : index
    %toNext = arith.subi %k1024, %loRem : index
    %toNextMod = arith.remui %toNext, %k1024 : index
    %aligned = arith.addi %lo, %toNextMod : index
    %pad = arith.subi %aligned, %dynBase : index
    %bar = nvgpu.mbarrier.create -> !barriers
    scf.if %isLeader {
      scf.for %s = %k0 to %kStages step %k1 {
        nvgpu.mbarrier.init %bar[%s], %k1 : !barriers
      }
    }
    nvgpu.tma.prefetch.descriptor %descA : !mapA
    nvgpu.tma.prefetch.descriptor %descB : !mapB
    gpu.barrier
    %prologue = arith.minsi %kStages, %kTiles : index
    scf.if %isLeader {
      scf.for %s = %k0 to %prologue step %k1 {
        %stageOff = arith.muli %s, %kStageBytes : index
        %base = arith.addi %pad, %stageOff : index
        %baseB0 = arith.addi %base, %kABytes : index
        %baseB1 = arith.addi %baseB0, %kHalfB : index
        %tileA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x${T}, #smem>
        %tileB0 = memref.view %dyn[%baseB0][] : memref<?xi8, #smem> to memref<64x64x${T}, #smem>
        %tileB1 = memref.view %dyn[%baseB1][] : memref<?xi8, #smem> to memref<64x64x${T}, #smem>
        %kOff = arith.muli %s, %k64 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%s], %txBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%s] to %tileA : !mapA, !barriers -> memref<128x64x${T}, #smem>
        nvgpu.tma.async.load %descB[%col0, %kOff], %bar[%s] to %tileB0 : !mapB, !barriers -> memref<64x64x${T}, #smem>
        nvgpu.tma.async.load %descB[%col1, %kOff], %bar[%s] to %tileB1 : !mapB, !barriers -> memref<64x64x${T}, #smem>
      }
    }
    %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = scf.for %kt = %k0 to %kTiles step %k1 iter_args(%accIn = %acc0) -> (!acc) {
      %stage = arith.remui %kt, %kStages : index
      %round = arith.divui %kt, %kStages : index
      %roundParity = arith.remui %round, %k2 : index
      %parity = arith.index_cast %roundParity : index to i1
      nvgpu.mbarrier.try_wait.parity %bar[%stage], %parity, %ticks : !barriers
      %stageOff = arith.muli %stage, %kStageBytes : index
      %base = arith.addi %pad, %stageOff : index
      %baseB = arith.addi %base, %kABytes : index
      %tileA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x${T}, #smem>
      %tileB = memref.view %dyn[%baseB][] : memref<?xi8, #smem> to memref<64x128x${T}, #smem>
      %dA = nvgpu.warpgroup.generate.descriptor %tileA, %descA : memref<128x64x${T}, #smem>, !mapA -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64x${T}, #smem>>
      %dB = nvgpu.warpgroup.generate.descriptor %tileB, %descB : memref<64x128x${T}, #smem>, !mapB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x128x${T}, #smem>>
      %accOut = nvgpu.warpgroup.mma %dA, %dB, %accIn {transposeB, waitGroup = 0 : i64} : <tensor = memref<128x64x${T}, #smem>>, <tensor = memref<64x128x${T}, #smem>>, !acc -> !acc
      // Every thread is done with this stage before it is refilled.
      gpu.barrier
      %next = arith.addi %kt, %kStages : index
      %hasNext = arith.cmpi slt, %next, %kTiles : index
      %refill = arith.andi %isLeader, %hasNext : i1
      scf.if %refill {
        %baseB0 = arith.addi %base, %kABytes : index
        %baseB1 = arith.addi %baseB0, %kHalfB : index
        %nextA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x${T}, #smem>
        %nextB0 = memref.view %dyn[%baseB0][] : memref<?xi8, #smem> to memref<64x64x${T}, #smem>
        %nextB1 = memref.view %dyn[%baseB1][] : memref<?xi8, #smem> to memref<64x64x${T}, #smem>
        %kOff = arith.muli %next, %k64 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%stage], %txBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%stage] to %nextA : !mapA, !barriers -> memref<128x64x${T}, #smem>
        nvgpu.tma.async.load %descB[%col0, %kOff], %bar[%stage] to %nextB0 : !mapB, !barriers -> memref<64x64x${T}, #smem>
        nvgpu.tma.async.load %descB[%col1, %kOff], %bar[%stage] to %nextB1 : !mapB, !barriers -> memref<64x64x${T}, #smem>
      }
      scf.yield %accOut : !acc
    }
    %tileC = memref.subview %C[%row0, %col0] [128, 128] [1, 1] : memref<${M}x${N}xf32> to memref<128x128xf32, strided<[${N}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %acc, %tileC : !acc to memref<128x128xf32, strided<[${N}, 1], offset: ?>>
    gpu.terminator
  }
  return
}
