// The sm_90a kernel for FP8 matmuls (f8E4M3FN / f8E5M2 in any pairing):
// A[M][K] x B[N][K] (both K-major, the only layout wgmma reads 8-bit operands
// in) -> C f32. MatmulToWgmma.cpp parses it, moves it into the outlined entry
// and, for an operand stored MN-major, copies that operand K-major first
// (fp8-transpose.mlir). The structure is wgmma-16bit.mlir's, with 128-deep
// k-tiles (128 one-byte elements fill a 128-byte swizzled row, so A and B
// are one 128x128 TMA box each), the tiles moved as ui8 (upstream's TMA
// descriptor creation has no FP8 type), and each k-tile run as 2 m64 halves
// x 4 k32 steps, each one wgmma m64n128k32 on descriptors of shared-memory
// views at the step's byte offset (A's half at +8192 B, the k32 step at
// +32 B inside the swizzled rows, as CUTLASS advances K-major descriptors);
// the eight are committed one by one and waited for once (waitGroup 0 on
// the last).
// Parameters (substituted by TensorCoreSchedules.cpp): TA, TB (element
// types), M, N, K, GRID_X = N/128, GRID_Y = M/128, STAGES, K_TILES = K/128,
// STAGE_BYTES, A_BYTES (A's tile in a stage), SMEM_BYTES.

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = ${STAGES}>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x128xui8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<64x32x${TA}, #gpu.address_space<workgroup>>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<32x128x${TB}, #gpu.address_space<workgroup>>>
#smem = #gpu.address_space<workgroup>
func.func @body(%A: memref<${M}x${K}x${TA}>, %B: memref<${N}x${K}x${TB}>, %C: memref<${M}x${N}xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %gridX = arith.constant ${GRID_X} : index
  %gridY = arith.constant ${GRID_Y} : index
  %smemBytes = arith.constant ${SMEM_BYTES} : i32
  // TMA moves the FP8 bytes as ui8 (same memref descriptor).
  %A8 = builtin.unrealized_conversion_cast %A : memref<${M}x${K}x${TA}> to memref<${M}x${K}xui8>
  %B8 = builtin.unrealized_conversion_cast %B : memref<${N}x${K}x${TB}> to memref<${N}x${K}xui8>
  %castA = memref.cast %A8 : memref<${M}x${K}xui8> to memref<*xui8>
  %castB = memref.cast %B8 : memref<${N}x${K}xui8> to memref<*xui8>
  %descA = nvgpu.tma.create.descriptor %castA box[%c128, %c128] : memref<*xui8> -> !map
  %descB = nvgpu.tma.create.descriptor %castB box[%c128, %c128] : memref<*xui8> -> !map
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
    %ticks = arith.constant 10000000 : index
    %tid = gpu.thread_id x
    %bidx = gpu.block_id x
    %bidy = gpu.block_id y
    %row0 = arith.muli %bidy, %k128 : index
    %col0 = arith.muli %bidx, %k128 : index
    %isLeader = arith.cmpi eq, %tid, %k0 : index
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #smem>
    // The tiles start at alignUp(base + 64, 1024), as in the 16-bit kernel.
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
    nvgpu.tma.prefetch.descriptor %descA : !map
    nvgpu.tma.prefetch.descriptor %descB : !map
    gpu.barrier
    %prologue = arith.minsi %kStages, %kTiles : index
    scf.if %isLeader {
      scf.for %s = %k0 to %prologue step %k1 {
        %stageOff = arith.muli %s, %kStageBytes : index
        %base = arith.addi %pad, %stageOff : index
        %baseB = arith.addi %base, %kABytes : index
        %tileA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %tileB = memref.view %dyn[%baseB][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %kOff = arith.muli %s, %k128 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%s], %kStageBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%s] to %tileA : !map, !barriers -> memref<128x128xui8, #smem>
        nvgpu.tma.async.load %descB[%kOff, %col0], %bar[%s] to %tileB : !map, !barriers -> memref<128x128xui8, #smem>
      }
    }
    %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc1 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %accs:2 = scf.for %kt = %k0 to %kTiles step %k1 iter_args(%a0_0 = %acc0, %a1_0 = %acc1) -> (!acc, !acc) {
      %stage = arith.remui %kt, %kStages : index
      %round = arith.divui %kt, %kStages : index
      %roundParity = arith.remui %round, %k2 : index
      %parity = arith.index_cast %roundParity : index to i1
      nvgpu.mbarrier.try_wait.parity %bar[%stage], %parity, %ticks : !barriers
      %stageOff = arith.muli %stage, %kStageBytes : index
      %base = arith.addi %pad, %stageOff : index
      %baseB = arith.addi %base, %kABytes : index
      %offB0 = arith.constant 0 : index
      %pB0 = arith.addi %baseB, %offB0 : index
      %vB0 = memref.view %dyn[%pB0][] : memref<?xi8, #smem> to memref<32x128x${TB}, #smem>
      %dB0 = nvgpu.warpgroup.generate.descriptor %vB0, %descB : memref<32x128x${TB}, #smem>, !map -> !dB
      %offA0_0 = arith.constant 0 : index
      %pA0_0 = arith.addi %base, %offA0_0 : index
      %vA0_0 = memref.view %dyn[%pA0_0][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA0_0 = nvgpu.warpgroup.generate.descriptor %vA0_0, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a0_1 = nvgpu.warpgroup.mma %dA0_0, %dB0, %a0_0 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offA0_1 = arith.constant 8192 : index
      %pA0_1 = arith.addi %base, %offA0_1 : index
      %vA0_1 = memref.view %dyn[%pA0_1][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA0_1 = nvgpu.warpgroup.generate.descriptor %vA0_1, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a1_1 = nvgpu.warpgroup.mma %dA0_1, %dB0, %a1_0 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offB1 = arith.constant 32 : index
      %pB1 = arith.addi %baseB, %offB1 : index
      %vB1 = memref.view %dyn[%pB1][] : memref<?xi8, #smem> to memref<32x128x${TB}, #smem>
      %dB1 = nvgpu.warpgroup.generate.descriptor %vB1, %descB : memref<32x128x${TB}, #smem>, !map -> !dB
      %offA1_0 = arith.constant 32 : index
      %pA1_0 = arith.addi %base, %offA1_0 : index
      %vA1_0 = memref.view %dyn[%pA1_0][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA1_0 = nvgpu.warpgroup.generate.descriptor %vA1_0, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a0_2 = nvgpu.warpgroup.mma %dA1_0, %dB1, %a0_1 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offA1_1 = arith.constant 8224 : index
      %pA1_1 = arith.addi %base, %offA1_1 : index
      %vA1_1 = memref.view %dyn[%pA1_1][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA1_1 = nvgpu.warpgroup.generate.descriptor %vA1_1, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a1_2 = nvgpu.warpgroup.mma %dA1_1, %dB1, %a1_1 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offB2 = arith.constant 64 : index
      %pB2 = arith.addi %baseB, %offB2 : index
      %vB2 = memref.view %dyn[%pB2][] : memref<?xi8, #smem> to memref<32x128x${TB}, #smem>
      %dB2 = nvgpu.warpgroup.generate.descriptor %vB2, %descB : memref<32x128x${TB}, #smem>, !map -> !dB
      %offA2_0 = arith.constant 64 : index
      %pA2_0 = arith.addi %base, %offA2_0 : index
      %vA2_0 = memref.view %dyn[%pA2_0][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA2_0 = nvgpu.warpgroup.generate.descriptor %vA2_0, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a0_3 = nvgpu.warpgroup.mma %dA2_0, %dB2, %a0_2 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offA2_1 = arith.constant 8256 : index
      %pA2_1 = arith.addi %base, %offA2_1 : index
      %vA2_1 = memref.view %dyn[%pA2_1][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA2_1 = nvgpu.warpgroup.generate.descriptor %vA2_1, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a1_3 = nvgpu.warpgroup.mma %dA2_1, %dB2, %a1_2 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offB3 = arith.constant 96 : index
      %pB3 = arith.addi %baseB, %offB3 : index
      %vB3 = memref.view %dyn[%pB3][] : memref<?xi8, #smem> to memref<32x128x${TB}, #smem>
      %dB3 = nvgpu.warpgroup.generate.descriptor %vB3, %descB : memref<32x128x${TB}, #smem>, !map -> !dB
      %offA3_0 = arith.constant 96 : index
      %pA3_0 = arith.addi %base, %offA3_0 : index
      %vA3_0 = memref.view %dyn[%pA3_0][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA3_0 = nvgpu.warpgroup.generate.descriptor %vA3_0, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a0_4 = nvgpu.warpgroup.mma %dA3_0, %dB3, %a0_3 {waitGroup = 8 : i64} : !dA, !dB, !acc -> !acc
      %offA3_1 = arith.constant 8288 : index
      %pA3_1 = arith.addi %base, %offA3_1 : index
      %vA3_1 = memref.view %dyn[%pA3_1][] : memref<?xi8, #smem> to memref<64x32x${TA}, #smem>
      %dA3_1 = nvgpu.warpgroup.generate.descriptor %vA3_1, %descA : memref<64x32x${TA}, #smem>, !map -> !dA
      %a1_4 = nvgpu.warpgroup.mma %dA3_1, %dB3, %a1_3 {waitGroup = 0 : i64} : !dA, !dB, !acc -> !acc

      // Every thread is done with this stage before it is refilled.
      gpu.barrier
      %next = arith.addi %kt, %kStages : index
      %hasNext = arith.cmpi slt, %next, %kTiles : index
      %refill = arith.andi %isLeader, %hasNext : i1
      scf.if %refill {
        %nextA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %nextB = memref.view %dyn[%baseB][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %kOff = arith.muli %next, %k128 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%stage], %kStageBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%stage] to %nextA : !map, !barriers -> memref<128x128xui8, #smem>
        nvgpu.tma.async.load %descB[%kOff, %col0], %bar[%stage] to %nextB : !map, !barriers -> memref<128x128xui8, #smem>
      }
      scf.yield %a0_4, %a1_4 : !acc, !acc
    }
    %row1 = arith.addi %row0, %k64 : index
    %tileC0 = memref.subview %C[%row0, %col0] [64, 128] [1, 1] : memref<${M}x${N}xf32> to memref<64x128xf32, strided<[${N}, 1], offset: ?>>
    %tileC1 = memref.subview %C[%row1, %col0] [64, 128] [1, 1] : memref<${M}x${N}xf32> to memref<64x128xf32, strided<[${N}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %accs#0, %tileC0 : !acc to memref<64x128xf32, strided<[${N}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %accs#1, %tileC1 : !acc to memref<64x128xf32, strided<[${N}, 1], offset: ?>>
    gpu.terminator
  }
  return
}
