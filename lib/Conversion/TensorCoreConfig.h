//===- TensorCoreConfig.h - Tensor Core kernel configurations -------------===//
//
// What a Tensor Core kernel is configured with (block tile, warp tile,
// pipeline stages, threads), apart from how it is lowered: the pass chooses
// one KernelConfig per matmul in one place (chooseKernelConfig) and the
// schedules and kernel templates of lib/Conversion/TensorCore/ take it as
// parameters (TensorCoreSchedules.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_LIB_CONVERSION_TENSORCORECONFIG_H
#define MPT_LIB_CONVERSION_TENSORCORECONFIG_H

#include "TensorCoreCommon.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/TensorCoreSchedules.h"

#include <array>
#include <optional>

namespace mpt::tensorcore {

struct KernelConfig {
  /// C tile of a thread block, and the K extent of one shared-memory stage.
  int64_t tileM, tileN, tileK;
  /// sm_80: the C tile of a warp (multiples of 16 and 8). sm_90a: 0, one
  /// warpgroup computes the block's tile (64 rows per wgmma).
  int64_t warpM, warpN;
  /// Shared-memory stages (cp.async pipeline depth / TMA mbarrier stages).
  int64_t stages;
  int64_t threads() const {
    return warpM ? (tileM / warpM) * (tileN / warpN) * 32 : 128;
  }
};

/// sm_90a: the tiles the kernel templates (wgmma-16bit.mlir, wgmma-fp8.mlir)
/// are written for. FP8's k-tile is 128 deep: 128 one-byte elements fill a
/// 128-byte swizzled row.
inline constexpr KernelConfig kWgmma16BitConfig = {128, 128, 64, 0, 0, 3};
inline constexpr KernelConfig kWgmmaFp8Config = {128, 128, 128, 0, 0, 3};

/// The configuration of a matmul of `shape` on `chip`: sm_80 takes the pass
/// options' (`sm80`, validated by the pass), sm_90a the fixed wgmma tile of
/// the element type.
inline KernelConfig chooseKernelConfig(TensorCoreChip chip,
                                       const MatmulShape &shape,
                                       const KernelConfig &sm80) {
  if (chip == TensorCoreChip::SM80)
    return sm80;
  return shape.isFp8() ? kWgmmaFp8Config : kWgmma16BitConfig;
}

/// sm_80: rows x columns (columns contiguous) of the shared tiles of A and B.
inline std::pair<std::array<int64_t, 2>, std::array<int64_t, 2>>
sharedTileShapes(const KernelConfig &c, Layout layout) {
  std::array<int64_t, 2> a = {c.tileM, c.tileK}, b = {c.tileK, c.tileN};
  if (layout == Layout::TN)
    a = {c.tileK, c.tileM};
  if (layout == Layout::NT)
    b = {c.tileN, c.tileK};
  return {a, b};
}

/// sm_80: threads along rows, threads along columns, and rows per thread
/// when each thread copies 16 bytes (8 elements) of each row it owns.
inline std::optional<std::array<int64_t, 3>>
copyDistribution(std::array<int64_t, 2> tile, int64_t threads) {
  int64_t tx = tile[1] / 8;
  if (tile[1] % 8 || tx == 0 || tx > threads || threads % tx)
    return std::nullopt;
  int64_t ty = threads / tx;
  if (tile[0] % ty)
    return std::nullopt;
  return std::array<int64_t, 3>{ty, tx, tile[0] / ty};
}

/// The parameters of the schedules and kernel templates
/// (TensorCoreSchedules.h), from the configuration.
/// sm80-mma-sync.mlir for a matmul in `layout` whose K loop is pipelined
/// `pipelineStages` deep (the configuration's stages, at most its k-tiles;
/// 1: not pipelined), with bf16 inputs or not.
ScheduleParams getMmaSyncParams(const KernelConfig &c, Layout layout,
                                int64_t pipelineStages, bool bf16);
/// wgmma-16bit.mlir or wgmma-fp8.mlir for `shape` (K-major operands for FP8).
ScheduleParams getWgmmaParams(const KernelConfig &c, const MatmulShape &shape);
/// fp8-transpose.mlir: a rows x cols copy of `elementType`.
ScheduleParams getFp8TransposeParams(int64_t rows, int64_t cols,
                                     mlir::Type elementType);

} // namespace mpt::tensorcore

#endif // MPT_LIB_CONVERSION_TENSORCORECONFIG_H
