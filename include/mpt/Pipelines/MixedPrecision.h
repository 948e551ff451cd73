//===- MixedPrecision.h - the --mpt-mixed-precision pipeline ---*- C++ -*-===//
//
// The whole mixed-precision rewrite of a training step: autocast (precision
// painting and casts), loss scaling, cast cleanup, and the lowering of the
// mpt ops, so that the output is upstream MLIR only (it keeps the contract's
// argument/result attributes, which mpt-run reads).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_PIPELINES_MIXEDPRECISION_H
#define MPT_PIPELINES_MIXEDPRECISION_H

#include "mpt/Analysis/PrecisionPolicy.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

/// The options of --mpt-mixed-precision. Those of autocast, loss scaling and
/// data parallelism are the passes' own: generated from their records in
/// mpt/Transforms/Passes.td (cmake/mpt-pipeline-options.py), with the same
/// spelling, type, default and values, and handed to the passes by the
/// generated getAutocastOptions(), getInsertLossScalingOptions() and
/// getDataParallelOptions(). Only the pipeline's own options are declared
/// here.
struct MixedPrecisionOptions
    : public mlir::PassPipelineOptions<MixedPrecisionOptions> {
  // Autocast (--mpt-autocast): dtype, policy, allow, ..., mx-scale.
#define GEN_PIPELINE_OPTIONS_AUTOCAST
#include "mpt/Transforms/PipelineOptions.h.inc"

  // Memory (--mpt-recompute-in-backward).
  Option<bool> recompute{
      *this, "recompute",
      llvm::cl::desc("Recompute cheap elementwise forward values in the "
                     "backward instead of keeping them (exact: the same ops "
                     "on the same inputs)"),
      llvm::cl::init(true)};

  // Loss scaling (--mpt-insert-loss-scaling): its mode, spelled loss-scale,
  // defaults by dtype (getLossScaleMode); init-scale, ..., min-scale.
  Option<LossScaleMode> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("none, static or dynamic; default: dynamic for f16, "
                     "none for bf16, fp8 and mx (bf16's range needs no "
                     "scaling; FP8 tensors and MX blocks have their own "
                     "scales)"),
      llvm::cl::values(
          clEnumValN(LossScaleMode::None, "none", "no loss scaling"),
          clEnumValN(LossScaleMode::Static, "static", "the constant init-scale"),
          clEnumValN(LossScaleMode::Dynamic, "dynamic",
                     "GradScaler's growth and backoff"))};
#define GEN_PIPELINE_OPTIONS_INSERTLOSSSCALING
#include "mpt/Transforms/PipelineOptions.h.inc"

  // Data parallelism (--mpt-data-parallel): reduce-dtype, bucket-bytes.
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("All-reduce gradients, loss and found-inf across MPI "
                     "ranks (after loss scaling, before its lowering)"),
      llvm::cl::init(false)};
#define GEN_PIPELINE_OPTIONS_DATAPARALLEL
#include "mpt/Transforms/PipelineOptions.h.inc"
};

/// The loss-scaling mode the pipeline uses: the `loss-scale` option, or the
/// default for the dtype.
LossScaleMode getLossScaleMode(const MixedPrecisionOptions &options);

/// Adds the passes of --mpt-mixed-precision to `pm`, a module pass manager.
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 const MixedPrecisionOptions &options);

/// Registers --mpt-mixed-precision with the global pass registry.
void registerMixedPrecisionPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_MIXEDPRECISION_H
