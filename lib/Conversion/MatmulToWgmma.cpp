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
// FP8 (f8E4M3FN / f8E5M2 in any pairing) takes a kernel of its own: wgmma
// reads 8-bit operands only K-major (it transposes 16-bit ones only), so A
// is read as [m][k] and B as [n][k] (linalg.matmul with B transposed; an
// operand stored the other way is copied K-major by a transpose kernel
// into a device buffer first); the k-tile is
// 128 deep (128-byte rows for the 128-byte swizzle), TMA moves the tiles as
// ui8 (upstream's descriptor creation has no FP8 data type), and each k-tile
// runs 2 m64 halves x 4 k32 steps of wgmma.mma_async m64n128k32, each step
// one nvgpu.warpgroup.mma on descriptors of shared-memory views at the
// step's byte offset (upstream's descriptor iteration assumes 16-bit
// layouts), with one wait for all eight at the end of the k-tile.
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
/// FP8: 128 one-byte elements fill a 128-byte swizzled row.
constexpr int64_t kTileKFp8 = 128;
} // namespace

static std::string ptxType(Type t) {
  return isa<Float8E4M3FNType>(t) ? "e4m3" : "e5m2";
}

std::string mpt::tensorcore::wgmmaConfigDescription(const MatmulShape &s) {
  if (s.isFp8()) {
    // wgmma reads FP8 operands only K-major: the others get a K-major copy.
    StringRef copies = s.layout == Layout::NN   ? ", B copied K-major first"
                       : s.layout == Layout::TN ? ", A and B copied K-major "
                                                  "first"
                                                : "";
    return llvm::formatv("TMA + wgmma.mma_async m64n128k32 {0} x {1}, block "
                         "tile {2}x{3}x{4}, {5} mbarrier stages, 128 "
                         "threads{6}",
                         ptxType(s.elementType), ptxType(s.elementTypeB),
                         kTileM, kTileN, kTileKFp8, kStages, copies);
  }
  return llvm::formatv("TMA + wgmma.mma_async m64n128k16, block tile "
                       "{0}x{1}x{2}, {3} mbarrier stages, 128 threads",
                       kTileM, kTileN, kTileK, kStages);
}

std::string mpt::tensorcore::wgmmaUnsupportedReason(const MatmulShape &s) {
  if (s.batch)
    return "batch_matmul is not lowered to wgmma yet (sm_80 lowers it)";
  if (s.isFp8()) {
    // Any layout: an operand that is not K-major is copied K-major first.
    if (s.m % kTileM || s.n % kTileN || s.k % kTileKFp8)
      return llvm::formatv("{0}x{1}x{2} is not a multiple of the "
                           "{3}x{4}x{5} FP8 wgmma tile",
                           s.m, s.n, s.k, kTileM, kTileN, kTileKFp8);
    return "";
  }
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

/// A private function copying `in` (rows x cols, one byte per element) to
/// `out` (cols x rows): 32x32 tiles per block of 32x8 threads, 4 elements a
/// thread, moved as ui8. Rows and cols are multiples of 128 here.
static std::string buildTransposeFunction(StringRef name, int64_t rows,
                                          int64_t cols, StringRef type) {
  return llvm::formatv(R"mlir(
func.func private @{0}(%in: memref<{1}x{2}x{3}>, %out: memref<{2}x{1}x{3}>) {{
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %gx = arith.constant {4} : index
  %gy = arith.constant {5} : index
  %in8 = builtin.unrealized_conversion_cast %in : memref<{1}x{2}x{3}> to memref<{1}x{2}xui8>
  %out8 = builtin.unrealized_conversion_cast %out : memref<{2}x{1}x{3}> to memref<{2}x{1}xui8>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %gx, %y = %gy, %z = %c1)
             threads(%tx, %ty, %tz) in (%ntx = %c32, %nty = %c8, %ntz = %c1) {{
    %q0 = arith.constant 0 : index
    %q1 = arith.constant 1 : index
    %q4 = arith.constant 4 : index
    %q8 = arith.constant 8 : index
    %q32 = arith.constant 32 : index
    %colBase = arith.muli %bx, %q32 : index
    %col = arith.addi %colBase, %tx : index
    %rowBase = arith.muli %by, %q32 : index
    %row0 = arith.addi %rowBase, %ty : index
    scf.for %i = %q0 to %q4 step %q1 {{
      %off = arith.muli %i, %q8 : index
      %row = arith.addi %row0, %off : index
      %v = memref.load %in8[%row, %col] : memref<{1}x{2}xui8>
      memref.store %v, %out8[%col, %row] : memref<{2}x{1}xui8>
    }
    gpu.terminator
  }
  return
}
)mlir",
                       name, rows, cols, type, cols / 32, rows / 32);
}

/// The FP8 kernel (A[M][K] x B[N][K], K-major both): the structure of the
/// 16-bit one, with 128x128x128 k-tiles of one byte per element.
static std::string buildWgmmaFp8Function(const MatmulShape &s) {
  std::string ta, tb;
  llvm::raw_string_ostream(ta) << s.elementType;
  llvm::raw_string_ostream(tb) << s.elementTypeB;
  constexpr int64_t tileBytes = kTileM * kTileKFp8; // A and B tiles alike
  constexpr int64_t stageBytes = 2 * tileBytes;
  constexpr int64_t halfBytes = 64 * kTileKFp8; // an m64 half of A
  // An operand stored MN-major (A[k][m], B[k][n]) is first copied K-major
  // into a device buffer by a transpose kernel (@xpose_a / @xpose_b, moved
  // next to the entry by lowerWithWgmma) and freed after the matmul, as
  // Transformer Engine keeps a transposed FP8 copy for the GEMMs that need
  // one.
  bool copyA = s.layout == Layout::TN;
  bool copyB = s.layout != Layout::NT;
  std::string aK = llvm::formatv("memref<{0}x{1}x{2}>", s.m, s.k, ta);
  std::string bK = llvm::formatv("memref<{0}x{1}x{2}>", s.n, s.k, tb);
  std::string aIn = copyA ? std::string(llvm::formatv("memref<{0}x{1}x{2}>",
                                                      s.k, s.m, ta))
                          : aK;
  std::string bIn = copyB ? std::string(llvm::formatv("memref<{0}x{1}x{2}>",
                                                      s.k, s.n, tb))
                          : bK;
  std::string args = llvm::formatv("{0}: {1}, {2}: {3}",
                                   copyA ? "%Ain" : "%A", aIn,
                                   copyB ? "%Bin" : "%B", bIn);
  // gpu-to-llvm converts gpu.alloc / gpu.dealloc only in their async
  // form: each gets a stream of its own and is waited for at once.
  std::string copies, frees;
  auto copy = [&](StringRef x, const std::string &in, const std::string &k) {
    copies += llvm::formatv(
        "  %{0}s0 = gpu.wait async\n"
        "  %{0}, %{0}s1 = gpu.alloc async [%{0}s0] () : {1}\n"
        "  gpu.wait [%{0}s1]\n"
        "  func.call @xpose_{2}(%{0}in, %{0}) : ({3}, {1}) -> ()\n",
        x, k, x.lower(), in);
    frees += llvm::formatv("  %{0}f0 = gpu.wait async\n"
                           "  %{0}f1 = gpu.dealloc async [%{0}f0] %{0} : {1}\n"
                           "  gpu.wait [%{0}f1]\n",
                           x, k);
  };
  if (copyA)
    copy("A", aIn, aK);
  if (copyB)
    copy("B", bIn, bK);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv(R"mlir(
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {0}>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x128xui8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<64x32x{1}, #gpu.address_space<workgroup>>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<32x128x{2}, #gpu.address_space<workgroup>>>
#smem = #gpu.address_space<workgroup>
func.func @body({12}, %C: memref<{3}x{4}xf32>) {{
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
{13}  %gridX = arith.constant {6} : index
  %gridY = arith.constant {7} : index
  %smemBytes = arith.constant {8} : i32
  // TMA moves the FP8 bytes as ui8 (same memref descriptor).
  %A8 = builtin.unrealized_conversion_cast %A : memref<{3}x{5}x{1}> to memref<{3}x{5}xui8>
  %B8 = builtin.unrealized_conversion_cast %B : memref<{4}x{5}x{2}> to memref<{4}x{5}xui8>
  %castA = memref.cast %A8 : memref<{3}x{5}xui8> to memref<*xui8>
  %castB = memref.cast %B8 : memref<{4}x{5}xui8> to memref<*xui8>
  %descA = nvgpu.tma.create.descriptor %castA box[%c128, %c128] : memref<*xui8> -> !map
  %descB = nvgpu.tma.create.descriptor %castB box[%c128, %c128] : memref<*xui8> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %gridX, %gy = %gridY, %gz = %c1)
             threads(%tx, %ty, %tz) in (%ntx = %c128, %nty = %c1, %ntz = %c1)
             dynamic_shared_memory_size %smemBytes {{
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %kStages = arith.constant {0} : index
    %kTiles = arith.constant {9} : index
    %kStageBytes = arith.constant {10} : index
    %kABytes = arith.constant {11} : index
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
    scf.if %isLeader {{
      scf.for %s = %k0 to %kStages step %k1 {{
        nvgpu.mbarrier.init %bar[%s], %k1 : !barriers
      }
    }
    nvgpu.tma.prefetch.descriptor %descA : !map
    nvgpu.tma.prefetch.descriptor %descB : !map
    gpu.barrier
    %prologue = arith.minsi %kStages, %kTiles : index
    scf.if %isLeader {{
      scf.for %s = %k0 to %prologue step %k1 {{
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
    %accs:2 = scf.for %kt = %k0 to %kTiles step %k1 iter_args(%a0_0 = %acc0, %a1_0 = %acc1) -> (!acc, !acc) {{
      %stage = arith.remui %kt, %kStages : index
      %round = arith.divui %kt, %kStages : index
      %roundParity = arith.remui %round, %k2 : index
      %parity = arith.index_cast %roundParity : index to i1
      nvgpu.mbarrier.try_wait.parity %bar[%stage], %parity, %ticks : !barriers
      %stageOff = arith.muli %stage, %kStageBytes : index
      %base = arith.addi %pad, %stageOff : index
      %baseB = arith.addi %base, %kABytes : index
)mlir",
                      kStages, ta, tb, s.m, s.n, s.k, s.n / kTileN,
                      s.m / kTileM, kStages * stageBytes + 2048,
                      s.k / kTileKFp8, stageBytes, tileBytes, args, copies);
  // Per k32 step: B's view at +32 bytes per step (inside the swizzled
  // 128-byte rows, as CUTLASS advances K-major descriptors), A's at the same
  // offset in each m64 half. The last wgmma of the k-tile waits for all.
  constexpr int64_t steps = kTileKFp8 / 32;
  for (int64_t kk = 0; kk < steps; ++kk) {
    os << llvm::formatv(
        "      %offB{0} = arith.constant {1} : index\n"
        "      %pB{0} = arith.addi %baseB, %offB{0} : index\n"
        "      %vB{0} = memref.view %dyn[%pB{0}][] : memref<?xi8, #smem> to "
        "memref<32x128x{2}, #smem>\n"
        "      %dB{0} = nvgpu.warpgroup.generate.descriptor %vB{0}, %descB : "
        "memref<32x128x{2}, #smem>, !map -> !dB\n",
        kk, kk * 32, tb);
    for (int64_t h = 0; h < 2; ++h) {
      bool last = kk == steps - 1 && h == 1;
      os << llvm::formatv(
          "      %offA{0}_{1} = arith.constant {2} : index\n"
          "      %pA{0}_{1} = arith.addi %base, %offA{0}_{1} : index\n"
          "      %vA{0}_{1} = memref.view %dyn[%pA{0}_{1}][] : memref<?xi8, "
          "#smem> to memref<64x32x{3}, #smem>\n"
          "      %dA{0}_{1} = nvgpu.warpgroup.generate.descriptor %vA{0}_{1}, "
          "%descA : memref<64x32x{3}, #smem>, !map -> !dA\n"
          "      %a{1}_{4} = nvgpu.warpgroup.mma %dA{0}_{1}, %dB{0}, %a{1}_{0} "
          "{{waitGroup = {5} : i64} : !dA, !dB, !acc -> !acc\n",
          kk, h, h * halfBytes + kk * 32, ta, kk + 1, last ? 0 : 2 * steps);
    }
  }
  os << llvm::formatv(R"mlir(
      // Every thread is done with this stage before it is refilled.
      gpu.barrier
      %next = arith.addi %kt, %kStages : index
      %hasNext = arith.cmpi slt, %next, %kTiles : index
      %refill = arith.andi %isLeader, %hasNext : i1
      scf.if %refill {{
        %nextA = memref.view %dyn[%base][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %nextB = memref.view %dyn[%baseB][] : memref<?xi8, #smem> to memref<128x128xui8, #smem>
        %kOff = arith.muli %next, %k128 : index
        nvgpu.mbarrier.arrive.expect_tx %bar[%stage], %kStageBytes : !barriers
        nvgpu.tma.async.load %descA[%kOff, %row0], %bar[%stage] to %nextA : !map, !barriers -> memref<128x128xui8, #smem>
        nvgpu.tma.async.load %descB[%kOff, %col0], %bar[%stage] to %nextB : !map, !barriers -> memref<128x128xui8, #smem>
      }
      scf.yield %a0_{0}, %a1_{0} : !acc, !acc
    }
    %row1 = arith.addi %row0, %k64 : index
    %tileC0 = memref.subview %C[%row0, %col0] [64, 128] [1, 1] : memref<{1}x{2}xf32> to memref<64x128xf32, strided<[{2}, 1], offset: ?>>
    %tileC1 = memref.subview %C[%row1, %col0] [64, 128] [1, 1] : memref<{1}x{2}xf32> to memref<64x128xf32, strided<[{2}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %accs#0, %tileC0 : !acc to memref<64x128xf32, strided<[{2}, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %accs#1, %tileC1 : !acc to memref<64x128xf32, strided<[{2}, 1], offset: ?>>
    gpu.terminator
  }
{3}  return
}
)mlir",
                      steps, s.m, s.n, frees);
  if (copyA)
    os << buildTransposeFunction("xpose_a", s.k, s.m, ta);
  if (copyB)
    os << buildTransposeFunction("xpose_b", s.k, s.n, tb);
  return text;
}

LogicalResult mpt::tensorcore::lowerWithWgmma(ModuleOp module,
                                              func::FuncOp entry,
                                              const MatmulShape &shape) {
  MLIRContext *ctx = module.getContext();
  std::string text = shape.isFp8() ? buildWgmmaFp8Function(shape)
                                   : buildWgmmaFunction(shape);
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
  // FP8: the transpose functions the body calls become private functions
  // named after the entry (`<entry>_transpose_a|b`, made unique).
  for (StringRef which : {"a", "b"}) {
    auto xpose = parsed->lookupSymbol<func::FuncOp>(("xpose_" + which).str());
    if (!xpose)
      continue;
    xpose.walk([&](Operation *op) { op->setLoc(loc); });
    std::string name = (entry.getSymName() + "_transpose_" + which).str();
    for (int i = 0; module.lookupSymbol(name); ++i)
      name = (entry.getSymName() + "_transpose_" + which + "_" +
              Twine(i)).str();
    xpose->remove();
    xpose.setSymName(name);
    OpBuilder(entry).insert(xpose);
    body.walk([&](func::CallOp call) {
      if (call.getCallee() == ("xpose_" + which).str())
        call.setCallee(name);
    });
  }
  entry.getBody().getBlocks().clear();
  entry.getBody().takeBody(body.getBody());
  return success();
}
