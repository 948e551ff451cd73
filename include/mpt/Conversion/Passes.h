//===- Passes.h - mpt conversion passes -----------------------*- C++ -*-===//
#ifndef MPT_CONVERSION_PASSES_H
#define MPT_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/Support/Report.h"

namespace mpt {

/// --mpt-matmul-to-tensorcore's and --mpt-gpu-codegen's `chip`.
enum class TensorCoreChip {
  /// Ampere and later: mma.sync + cp.async.
  SM80,
  /// Hopper: wgmma + TMA.
  SM90a,
};
/// The option's spelling and the NVVM target chip: "sm_80", "sm_90a".
llvm::StringRef stringifyTensorCoreChip(TensorCoreChip chip);

/// `general`: what happens to the matmuls that cannot take Tensor Cores.
enum class GeneralMatmulPath {
  /// A SIMT GPU kernel, for statically shaped memref matmuls.
  Gpu,
  /// Left as they are (host loops).
  Host,
};

#define GEN_PASS_DECL
#include "mpt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Conversion/Passes.h.inc"

/// Adds the patterns of --mpt-lower-loss-scaling (one per loss-scaling op)
/// to `patterns`, for a compiler that lowers them in its own pass.
void populateLowerLossScalingPatterns(mlir::RewritePatternSet &patterns);

} // namespace mpt

#endif // MPT_CONVERSION_PASSES_H
