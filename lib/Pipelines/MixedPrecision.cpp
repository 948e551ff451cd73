//===- MixedPrecision.cpp - the --mpt-mixed-precision pipeline ------------===//
#include "mpt/Pipelines/MixedPrecision.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Pipelines/Registration.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

mpt::LossScaleMode mpt::getLossScaleMode(const MixedPrecisionOptions &options) {
  if (options.lossScale.hasValue())
    return options.lossScale;
  // bf16 has FP32's exponent range: gradients do not underflow. FP8
  // contractions have per-tensor scales and MX blocks their own; the rest
  // of such a step is bf16.
  return options.dtype == AutocastDtype::F16 ? LossScaleMode::Dynamic
                                             : LossScaleMode::None;
}

void mpt::buildMixedPrecisionPipeline(OpPassManager &pm,
                                      const MixedPrecisionOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createAutocast(options.getAutocastOptions()));

  InsertLossScalingOptions scaling = options.getInsertLossScalingOptions();
  scaling.mode = getLossScaleMode(options);
  // On the module: it checks the calls of the steps it re-signs.
  pm.addPass(createInsertLossScaling(scaling));

  OpPassManager &lowerPm = pm.nest<func::FuncOp>();
  // After loss scaling (its found-inf flag is all-reduced before the skip
  // decision), while the gradient markers are still there.
  if (options.dataParallel)
    lowerPm.addPass(createDataParallel(options.getDataParallelOptions()));
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
  registerModulePipeline<MixedPrecisionOptions>(
      "mpt-mixed-precision",
      "Autocast, loss scaling, cast cleanup and lowering of the mpt ops: an "
      "FP32 training step in, a mixed-precision step in upstream MLIR out",
      buildMixedPrecisionPipeline);
}
