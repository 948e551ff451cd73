//===- MixedPrecision.cpp - the --mpt-mixed-precision pipeline ------------===//
#include "mpt/Pipelines/MixedPrecision.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

std::string mpt::getLossScaleMode(const MixedPrecisionOptions &options) {
  if (!options.lossScale.empty())
    return options.lossScale;
  // bf16 has FP32's exponent range: gradients do not underflow.
  // FP8 contractions have per-tensor scales; the rest of an FP8 step is
  // bf16.
  // MX blocks have their own scales too.
  return options.dtype == "bf16" || options.dtype == "fp8" ||
                 options.dtype == "mxfp8" || options.dtype == "mxfp4"
             ? "none"
             : "dynamic";
}

void mpt::buildMixedPrecisionPipeline(OpPassManager &pm,
                                      const MixedPrecisionOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();

  AutocastOptions autocast;
  autocast.dtype = options.dtype;
  autocast.policy = options.policy;
  autocast.allow.assign(options.allow.begin(), options.allow.end());
  autocast.deny.assign(options.deny.begin(), options.deny.end());
  autocast.infer.assign(options.infer.begin(), options.infer.end());
  autocast.clear.assign(options.clear.begin(), options.clear.end());
  autocast.masterWeights = options.masterWeights;
  autocast.policyLevel = options.policyLevel;
  autocast.lossRegion = options.lossRegion;
  autocast.fp8Format = options.fp8Format;
  autocast.amaxHistoryLen = options.amaxHistoryLen;
  autocast.margin = options.margin;
  autocast.amaxCompute = options.amaxCompute;
  autocast.fp8Scaling = options.fp8Scaling;
  autocast.mxBackward = options.mxBackward;
  autocast.mxPad = options.mxPad;
  autocast.mxScale = options.mxScale;
  funcPm.addPass(createAutocast(autocast));

  InsertLossScalingOptions scaling;
  scaling.mode = getLossScaleMode(options);
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.minScale = options.minScale;
  // On the module: it checks the calls of the steps it re-signs.
  pm.addPass(createInsertLossScaling(scaling));

  OpPassManager &lowerPm = pm.nest<func::FuncOp>();
  // After loss scaling (its found-inf flag is all-reduced before the skip
  // decision), while the gradient markers are still there.
  if (options.dataParallel) {
    DataParallelOptions dataParallel;
    dataParallel.reduceDtype = options.reduceDtype;
    dataParallel.bucketBytes = options.bucketBytes;
    lowerPm.addPass(createDataParallel(dataParallel));
  }
  lowerPm.addPass(createCastCleanup());
  // Needs the training markers (which values the backward reads); its
  // copies are marked so that the CSE below keeps them.
  if (options.recompute)
    lowerPm.addPass(createRecomputeInBackward());
  // Upstream MLIR only from here on.
  lowerPm.addPass(createLowerLossScaling());
  lowerPm.addPass(createStripTrainingMarkers());
  lowerPm.addPass(createCSEPass());
  if (options.dataParallel)
    pm.addPass(createLowerAllReduce());
}

void mpt::registerMixedPrecisionPipeline() {
  PassPipelineRegistration<MixedPrecisionOptions>(
      "mpt-mixed-precision",
      "Autocast, loss scaling, cast cleanup and lowering of the mpt ops: an "
      "FP32 training step in, a mixed-precision step in upstream MLIR out",
      buildMixedPrecisionPipeline);
}
