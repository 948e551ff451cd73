//===- MatmulToWgmma.cpp - matmuls to TMA + wgmma kernels (sm_90a) --------===//
//
// Upstream MLIR has the Hopper building blocks (nvgpu TMA, mbarrier and
// warpgroup ops) but no linalg -> wgmma lowering, so the kernel is emitted
// here from its structure:
//
//   grid (N/128, M/128), one warpgroup (128 threads) per 128x128 C tile
//   host:   one TMA descriptor for A (box 128x64) and one for B (box 64x64,
//           two boxes per 64x128 B tile: swizzle_128b needs 128-byte rows)
//   kernel: `stages` shared-memory stages of A 128x64 + B 64x128 (32 KiB,
//           1024-byte aligned inside the dynamic shared memory)
//           with one mbarrier each; thread 0 issues the TMA loads of the
//           first `stages` K tiles, then every K step waits on its stage's
//           mbarrier, runs wgmma.mma_async m64n128k16 over the stage (two
//           m64 halves x four k16 steps), waits for it, and refills the
//           stage with the K tile `stages` ahead.
//   epilogue: the f32 accumulator fragments are stored straight to C.
//
//===----------------------------------------------------------------------===//
#include "TensorCoreCommon.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mpt::tensorcore;

namespace {
constexpr int64_t kTileM = 128, kTileN = 128, kTileK = 64, kStages = 3;
} // namespace

std::string mpt::tensorcore::wgmmaConfigDescription() {
  return llvm::formatv("TMA + wgmma.mma_async m64n128k16, block tile "
                       "{0}x{1}x{2}, {3} mbarrier stages, 128 threads",
                       kTileM, kTileN, kTileK, kStages);
}

std::string mpt::tensorcore::wgmmaUnsupportedReason(const MatmulShape &s) {
  if (s.batch)
    return "batch_matmul is not lowered to wgmma yet (sm_80 lowers it)";
  if (s.layout != Layout::NN)
    return "transposed operands are not lowered to wgmma yet (sm_90a "
           "handles A[m][k] x B[k][n])";
  if (s.m % kTileM || s.n % kTileN || s.k % kTileK)
    return llvm::formatv("{0}x{1}x{2} is not a multiple of the {3}x{4}x{5} "
                         "wgmma tile",
                         s.m, s.n, s.k, kTileM, kTileN, kTileK);
  return "";
}

static std::string buildWgmmaFunction(const MatmulShape &s) {
  std::string t;
  llvm::raw_string_ostream tos(t);
  tos << s.elementType;
  std::string T = t;
  int64_t kTiles = s.k / kTileK;
  int64_t stageBytes = (kTileM * kTileK + kTileK * kTileN) * 2;
  int64_t aBytes = kTileM * kTileK * 2;
  // Placeholders {X} are substituted below.
  std::string text = R"mlir(
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {S}>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64x{T}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64x{T}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
#smem = #gpu.address_space<workgroup>
func.func @body(%A: memref<{M}x{K}x{T}>, %B: memref<{K}x{N}x{T}>, %C: memref<{M}x{N}xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %gridX = arith.constant {GX} : index
  %gridY = arith.constant {GY} : index
  %smemBytes = arith.constant {SMEM} : i32
  %castA = memref.cast %A : memref<{M}x{K}x{T}> to memref<*x{T}>
  %castB = memref.cast %B : memref<{K}x{N}x{T}> to memref<*x{T}>
  %descA = nvgpu.tma.create.descriptor %castA box[%c128, %c64] : memref<*x{T}> -> !mapA
  %descB = nvgpu.tma.create.descriptor %castB box[%c64, %c64] : memref<*x{T}> -> !mapB
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %gridX, %gy = %gridY, %gz = %c1)
             threads(%tx, %ty, %tz) in (%ntx = %c128, %nty = %c1, %ntz = %c1)
             dynamic_shared_memory_size %smemBytes {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %kStages = arith.constant {S} : index
    %kTiles = arith.constant {KT} : index
    %kStageBytes = arith.constant {SB} : index
    %kABytes = arith.constant {AB} : index
    %kHalfB = arith.constant 8192 : index
    %txBytes = arith.constant {SB} : index
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
        %tileA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x{T}, #smem>
        %tileB0 = memref.view %dyn[%baseB0][] : memref<?xi8, #smem> to memref<64x64x{T}, #smem>
        %tileB1 = memref.view %dyn[%baseB1][] : memref<?xi8, #smem> to memref<64x64x{T}, #smem>
        %kOff = arith.muli %s, %k64 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%s], %txBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%s] to %tileA : !mapA, !barriers -> memref<128x64x{T}, #smem>
        nvgpu.tma.async.load %descB[%col0, %kOff], %bar[%s] to %tileB0 : !mapB, !barriers -> memref<64x64x{T}, #smem>
        nvgpu.tma.async.load %descB[%col1, %kOff], %bar[%s] to %tileB1 : !mapB, !barriers -> memref<64x64x{T}, #smem>
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
      %tileA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x{T}, #smem>
      %tileB = memref.view %dyn[%baseB][] : memref<?xi8, #smem> to memref<64x128x{T}, #smem>
      %dA = nvgpu.warpgroup.generate.descriptor %tileA, %descA : memref<128x64x{T}, #smem>, !mapA -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64x{T}, #smem>>
      %dB = nvgpu.warpgroup.generate.descriptor %tileB, %descB : memref<64x128x{T}, #smem>, !mapB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x128x{T}, #smem>>
      %accOut = nvgpu.warpgroup.mma %dA, %dB, %accIn {transposeB, waitGroup = 0 : i64} : <tensor = memref<128x64x{T}, #smem>>, <tensor = memref<64x128x{T}, #smem>>, !acc -> !acc
      // Every thread is done with this stage before it is refilled.
      gpu.barrier
      %next = arith.addi %kt, %kStages : index
      %hasNext = arith.cmpi slt, %next, %kTiles : index
      %refill = arith.andi %isLeader, %hasNext : i1
      scf.if %refill {
        %baseB0 = arith.addi %base, %kABytes : index
        %baseB1 = arith.addi %baseB0, %kHalfB : index
        %nextA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x64x{T}, #smem>
        %nextB0 = memref.view %dyn[%baseB0][] : memref<?xi8, #smem> to memref<64x64x{T}, #smem>
        %nextB1 = memref.view %dyn[%baseB1][] : memref<?xi8, #smem> to memref<64x64x{T}, #smem>
        %kOff = arith.muli %next, %k64 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%stage], %txBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%stage] to %nextA : !mapA, !barriers -> memref<128x64x{T}, #smem>
        nvgpu.tma.async.load %descB[%col0, %kOff], %bar[%stage] to %nextB0 : !mapB, !barriers -> memref<64x64x{T}, #smem>
        nvgpu.tma.async.load %descB[%col1, %kOff], %bar[%stage] to %nextB1 : !mapB, !barriers -> memref<64x64x{T}, #smem>
      }
      scf.yield %accOut : !acc
    }
    %tileC = memref.subview %C[%row0, %col0] [128, 128] [1, 1] : memref<{M}x{N}xf32> to memref<128x128xf32, strided<[{N}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %acc, %tileC : !acc to memref<128x128xf32, strided<[{N}, 1], offset: ?>>
    gpu.terminator
  }
  return
}
)mlir";
  auto replaceAll = [&](StringRef key, const std::string &value) {
    std::string k = ("{" + key + "}").str();
    size_t pos = 0;
    while ((pos = text.find(k, pos)) != std::string::npos) {
      text.replace(pos, k.size(), value);
      pos += value.size();
    }
  };
  replaceAll("S", std::to_string(kStages));
  replaceAll("T", T);
  replaceAll("M", std::to_string(s.m));
  replaceAll("N", std::to_string(s.n));
  replaceAll("K", std::to_string(s.k));
  replaceAll("GX", std::to_string(s.n / kTileN));
  replaceAll("GY", std::to_string(s.m / kTileM));
  replaceAll("SMEM", std::to_string(kStages * stageBytes + 2048));
  replaceAll("KT", std::to_string(kTiles));
  replaceAll("SB", std::to_string(stageBytes));
  replaceAll("AB", std::to_string(aBytes));
  return text;
}

LogicalResult mpt::tensorcore::lowerWithWgmma(ModuleOp module,
                                              func::FuncOp entry,
                                              const MatmulShape &shape) {
  MLIRContext *ctx = module.getContext();
  std::string text = buildWgmmaFunction(shape);
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(text, config, "mpt-wgmma-kernel");
  if (!parsed)
    return emitError(entry.getLoc(),
                     "internal error: the wgmma kernel does not parse");
  auto body = parsed->lookupSymbol<func::FuncOp>("body");
  if (!body || body.getFunctionType() != entry.getFunctionType())
    return emitError(entry.getLoc(),
                     "internal error: wgmma kernel signature mismatch");
  // Give every op the matmul's location so diagnostics and debug info point
  // at the source.
  Location loc = entry.getLoc();
  body.walk([&](Operation *op) { op->setLoc(loc); });
  entry.getBody().getBlocks().clear();
  entry.getBody().takeBody(body.getBody());
  return success();
}
