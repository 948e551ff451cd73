//===- TensorCoreCommon.h - shared pieces of the Tensor Core lowering -----===//
#ifndef MPT_LIB_CONVERSION_TENSORCORECOMMON_H
#define MPT_LIB_CONVERSION_TENSORCORECOMMON_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>

namespace mpt::tensorcore {

struct KernelConfig; // TensorCoreConfig.h

/// Operand layouts: NN = A[m][k] B[k][n]; TN = A[k][m]; NT = B[n][k].
enum class Layout { NN, TN, NT };

struct MatmulShape {
  int64_t batch = 0; // 0: linalg.matmul; > 0: linalg.batch_matmul
  int64_t m = 0, n = 0, k = 0;
  mlir::Type elementType; // A's: f16, bf16, f8E4M3FN or f8E5M2
  mlir::Type elementTypeB; // B's: elementType, or the other FP8 format
  Layout layout = Layout::NN;
  /// FP8 inputs (f8E4M3FN / f8E5M2 in any pairing): sm_90a wgmma only.
  bool isFp8() const;
};

/// Whether `t` is an FP8 format wgmma takes (f8E4M3FN, f8E5M2).
bool isWgmmaFp8(mlir::Type t);

/// The shape of a matmul that Tensor Cores can compute, or nullopt with the
/// reason in `whyNot`. Tile divisibility is checked by the caller.
std::optional<MatmulShape> analyzeMatmul(mlir::linalg::LinalgOp op,
                                         std::string &whyNot);
std::string describe(const MatmulShape &shape);

/// Moves `op` into a new private function (named after `baseName`, made
/// unique) called in its place. With `retypeBF16AsF16`, the bf16 inputs are
/// cast to f16 memrefs of the same shape inside the new function.
mlir::func::FuncOp outlineMatmul(mlir::linalg::LinalgOp op,
                                 mlir::SymbolTable &symbols,
                                 llvm::StringRef baseName,
                                 bool retypeBF16AsF16);

/// Applies the transform sequence @`name` of `schedule` (a parsed
/// schedule file, TensorCoreSchedules.h) to `payload`.
mlir::LogicalResult applyNamedSequence(mlir::ModuleOp payload,
                                       mlir::ModuleOp schedule,
                                       llvm::StringRef name,
                                       mlir::Location loc);

/// Rewrites the nvgpu.mma.sync ops under `kernelRoot` (built on f16-typed
/// bf16 data) into nvvm.mma.sync bf16 with i32-packed operands.
mlir::LogicalResult lowerMmaSyncAsBF16(mlir::Operation *kernelRoot);

/// sm_90a: why `shape` cannot take the wgmma path ("" when it can).
std::string wgmmaUnsupportedReason(const MatmulShape &shape);
/// sm_90a: replaces the body of `entry` (A, B, C memrefs) by a TMA + wgmma
/// kernel launch (TensorCore/wgmma-16bit.mlir or wgmma-fp8.mlir) configured
/// with `config`.
mlir::LogicalResult lowerWithWgmma(mlir::ModuleOp module,
                                   mlir::func::FuncOp entry,
                                   const MatmulShape &shape,
                                   const KernelConfig &config);
std::string wgmmaConfigDescription(const MatmulShape &shape);

} // namespace mpt::tensorcore

#endif // MPT_LIB_CONVERSION_TENSORCORECOMMON_H
