//===- TrainingContract.cpp - roles of the training-graph contract --------===//
#include "mpt/IR/TrainingContract.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mpt {

std::optional<ArgRole> parseArgRole(StringRef role) {
  return llvm::StringSwitch<std::optional<ArgRole>>(role)
      .Case("param", ArgRole::Param)
      .Case("data", ArgRole::Data)
      .Case("optimizer_state", ArgRole::OptimizerState)
      .Case("hyperparameter", ArgRole::Hyperparameter)
      .Case("loss_grad", ArgRole::LossGrad)
      .Case("loss_scale", ArgRole::LossScale)
      .Case("loss_scale_growth_tracker", ArgRole::LossScaleGrowthTracker)
      .Case("buffer", ArgRole::Buffer)
      .Case("rng_state", ArgRole::RngState)
      .Case("fp8_amax_history", ArgRole::Fp8AmaxHistory)
      .Case("fp8_scale", ArgRole::Fp8Scale)
      .Default(std::nullopt);
}

StringRef stringifyArgRole(ArgRole role) {
  switch (role) {
  case ArgRole::Param:
    return "param";
  case ArgRole::Data:
    return "data";
  case ArgRole::OptimizerState:
    return "optimizer_state";
  case ArgRole::Hyperparameter:
    return "hyperparameter";
  case ArgRole::LossGrad:
    return "loss_grad";
  case ArgRole::LossScale:
    return "loss_scale";
  case ArgRole::LossScaleGrowthTracker:
    return "loss_scale_growth_tracker";
  case ArgRole::Buffer:
    return "buffer";
  case ArgRole::RngState:
    return "rng_state";
  case ArgRole::Fp8AmaxHistory:
    return "fp8_amax_history";
  case ArgRole::Fp8Scale:
    return "fp8_scale";
  }
  llvm_unreachable("unknown role");
}

StringRef getArgRoleList() {
  return "\"param\", \"data\", \"optimizer_state\", \"hyperparameter\", "
         "\"loss_grad\", \"loss_scale\", \"loss_scale_growth_tracker\", "
         "\"buffer\", \"rng_state\", \"fp8_amax_history\", \"fp8_scale\"";
}

std::optional<ArgRole> getArgRole(FunctionOpInterface func, unsigned index) {
  auto role = func.getArgAttrOfType<StringAttr>(index,
                                                MPTDialect::kRoleAttrName);
  if (!role)
    return std::nullopt;
  return parseArgRole(role.getValue());
}

bool isContractStep(FunctionOpInterface func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, MPTDialect::kRoleAttrName))
      return true;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, MPTDialect::kRoleAttrName) ||
        func.getResultAttr(i, MPTDialect::kUpdatesAttrName))
      return true;
  return func
      ->walk([](Operation *op) {
        return isa<GradSeedOp, GradientOp>(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
      })
      .wasInterrupted();
}

std::optional<unsigned> getUpdatedArg(FunctionOpInterface func,
                                      unsigned index) {
  auto updates = func.getResultAttrOfType<IntegerAttr>(
      index, MPTDialect::kUpdatesAttrName);
  if (!updates || updates.getInt() < 0)
    return std::nullopt;
  return static_cast<unsigned>(updates.getInt());
}

bool isLossResult(FunctionOpInterface func, unsigned index) {
  auto role = func.getResultAttrOfType<StringAttr>(index,
                                                   MPTDialect::kRoleAttrName);
  return role && role.getValue() == "loss";
}

bool isKnownMptAttribute(StringRef name) {
  return name == kLossScalingAttrName || name == kDataParallelAttrName ||
         name == kFp8AttrName || name == kFp8ScalingAttrName ||
         name == kMxAttrName ||
         name == kRecomputedAttrName ||
         name == "mpt.tensorcore_entry" ||
         name == "mpt.k_loop" || name.starts_with("mpt.unroll_");
}

} // namespace mpt
