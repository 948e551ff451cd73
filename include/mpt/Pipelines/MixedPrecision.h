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

struct MixedPrecisionOptions
    : public mlir::PassPipelineOptions<MixedPrecisionOptions> {
  // Autocast (--mpt-autocast).
  Option<std::string> dtype{*this, "dtype",
                            llvm::cl::desc("Low-precision type: f16, bf16, "
                                           "fp8 (docs/FP8.md), mxfp8 or "
                                           "mxfp4 (docs/MX.md)"),
                            llvm::cl::init("f16")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("JSON policy file (lists and overrides, docs/Autocast.md)"),
      llvm::cl::init("")};
  ListOption<std::string> allow{
      *this, "allow", llvm::cl::desc("Op names added to the allow list")};
  ListOption<std::string> deny{
      *this, "deny", llvm::cl::desc("Op names added to the deny list")};
  ListOption<std::string> infer{
      *this, "infer", llvm::cl::desc("Op names added to the infer list")};
  ListOption<std::string> clear{
      *this, "clear", llvm::cl::desc("Op names added to the clear list")};
  Option<PolicyLevel> policyLevel{
      *this, "policy-level",
      llvm::cl::desc("How infer/clear ops get their precision: conservative "
                     "or promote (docs/Autocast.md)"),
      llvm::cl::init(PolicyLevel::Promote),
      llvm::cl::values(
          clEnumValN(PolicyLevel::Conservative, "conservative",
                     "low only between allow ops (grappler)"),
          clEnumValN(PolicyLevel::Promote, "promote",
                     "follow the inputs' precision (PyTorch promotion)"))};
  Option<bool> masterWeights{
      *this, "master-weights",
      llvm::cl::desc("Keep FP32 master weights as optimizer state and "
                     "low-precision working copies (Apex O2)"),
      llvm::cl::init(false)};
  Option<bool> lossRegion{
      *this, "loss-region",
      llvm::cl::desc("Keep the loss region (after the last forward "
                     "contraction, from the seed to the first backward "
                     "contraction) in f32"),
      llvm::cl::init(true)};
  // FP8 (dtype=fp8, docs/FP8.md).
  Option<std::string> fp8Format{
      *this, "fp8-format",
      llvm::cl::desc("dtype=fp8: hybrid (E4M3 forward, E5M2 gradients) or "
                     "e4m3"),
      llvm::cl::init("hybrid")};
  Option<int64_t> amaxHistoryLen{
      *this, "amax-history-len",
      llvm::cl::desc("dtype=fp8: steps of amax history per FP8 tensor"),
      llvm::cl::init(1024)};
  Option<int64_t> margin{
      *this, "margin",
      llvm::cl::desc("dtype=fp8: scale = (fp8_max / amax) / 2^margin"),
      llvm::cl::init(0)};
  Option<std::string> amaxCompute{
      *this, "amax-compute",
      llvm::cl::desc("dtype=fp8: max (of the history) or most_recent"),
      llvm::cl::init("max")};
  Option<std::string> fp8Scaling{
      *this, "fp8-scaling",
      llvm::cl::desc("dtype=fp8: delayed (amax history) or current (this "
                     "step's amax)"),
      llvm::cl::init("delayed")};
  // MX (dtype=mxfp8 / mxfp4, docs/MX.md).
  Option<std::string> mxBackward{
      *this, "mx-backward",
      llvm::cl::desc("dtype=mxfp8/mxfp4: the backward contractions' "
                     "operands: mxfp8 or bf16 (mxfp4 is an error)"),
      llvm::cl::init("mxfp8")};
  Option<bool> mxPad{
      *this, "mx-pad",
      llvm::cl::desc("dtype=mxfp8/mxfp4: a reduction dimension that is not "
                     "a multiple of 32 ends in a shorter block (true) or is "
                     "an error (false)"),
      llvm::cl::init(true)};
  Option<std::string> mxScale{
      *this, "mx-scale",
      llvm::cl::desc("dtype=mxfp8/mxfp4: the shared exponent: floor (OCP "
                     "MX) or ceil (no saturation)"),
      llvm::cl::init("floor")};
  // Memory (--mpt-recompute-in-backward).
  Option<bool> recompute{
      *this, "recompute",
      llvm::cl::desc("Recompute cheap elementwise forward values in the "
                     "backward instead of keeping them (exact: the same ops "
                     "on the same inputs)"),
      llvm::cl::init(true)};
  // Loss scaling (--mpt-insert-loss-scaling).
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("none, static or dynamic; default: dynamic for f16, "
                     "none for bf16, fp8 and mx (bf16's range needs no "
                     "scaling; FP8 tensors and MX blocks have their own "
                     "scales)"),
      llvm::cl::init("")};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial (or static) loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{
      *this, "growth-factor",
      llvm::cl::desc("Scale multiplier after growth-interval clean steps"),
      llvm::cl::init(2.0)};
  Option<double> backoffFactor{
      *this, "backoff-factor",
      llvm::cl::desc("Scale multiplier on overflow"), llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps before the scale grows"),
      llvm::cl::init(2000)};
  Option<double> minScale{
      *this, "min-scale",
      llvm::cl::desc("Floor of the scale on backoff (0: none; Keras uses 1)"),
      llvm::cl::init(0.0)};
  // Data parallelism (--mpt-data-parallel).
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("All-reduce gradients, loss and found-inf across MPI "
                     "ranks (after loss scaling, before its lowering)"),
      llvm::cl::init(false)};
  Option<ReduceDtype> reduceDtype{
      *this, "reduce-dtype",
      llvm::cl::desc("Data parallelism: type the gradient buckets travel "
                     "in"),
      llvm::cl::init(ReduceDtype::F32),
      llvm::cl::values(clEnumValN(ReduceDtype::F32, "f32", "full precision"),
                       clEnumValN(ReduceDtype::BF16, "bf16", "2-byte bf16 wire"),
                       clEnumValN(ReduceDtype::F16, "f16", "2-byte f16 wire"))};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("Data parallelism: largest gradient bucket, in bytes"),
      llvm::cl::init(26214400)};
};

/// The loss-scaling mode the pipeline uses: the `loss-scale` option, or the
/// default for the dtype.
std::string getLossScaleMode(const MixedPrecisionOptions &options);

/// Adds the passes of --mpt-mixed-precision to `pm`, a module pass manager.
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 const MixedPrecisionOptions &options);

/// Registers --mpt-mixed-precision with the global pass registry.
void registerMixedPrecisionPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_MIXEDPRECISION_H
