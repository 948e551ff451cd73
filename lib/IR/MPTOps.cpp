//===- MPTOps.cpp - mpt operations ----------------------------------------===//
#include "mpt/IR/MPTOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include <cmath>

using namespace mlir;
using namespace mpt;

#include "mpt/IR/MPTEnums.cpp.inc"

LogicalResult AllReduceOp::verify() {
  // MPI reduces contiguous 1-D buffers (mpi.allreduce takes the element
  // count from the first dimension).
  if (getInput().getType().getRank() != 1 ||
      !getInput().getType().hasStaticShape())
    return emitOpError("needs a 1-D tensor of static size");
  if (std::optional<Type> wire = getWire()) {
    if (!getInput().getType().getElementType().isF32())
      return emitOpError("a wire type needs an f32 input");
    if (!wire->isBF16() && !wire->isF16())
      return emitOpError("wire type must be bf16 or f16, got ") << *wire;
    if (getKind() == ReduceKind::Max)
      return emitOpError("a wire type needs 'sum' or 'mean'");
  }
  if (getKind() == ReduceKind::Mean &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("'mean' needs a floating-point tensor");
  return success();
}

LogicalResult UnscaleAndCheckOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr attributes,
    OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  // Operands are the gradients followed by the scale; results are the
  // unscaled gradients (same types) followed by the overflow flag.
  if (operands.empty())
    return failure();
  for (Value grad : operands.drop_back())
    inferredReturnTypes.push_back(grad.getType());
  inferredReturnTypes.push_back(
      RankedTensorType::get({}, IntegerType::get(context, 1)));
  return success();
}

LogicalResult UnscaleAndCheckOp::verify() {
  if (getGradients().empty())
    return emitOpError("needs at least one gradient");
  return success();
}

LogicalResult UpdateScaleOp::verify() {
  float growth = getGrowthFactor().convertToFloat();
  float backoff = getBackoffFactor().convertToFloat();
  float minScale = getMinScale().convertToFloat();
  if (!std::isfinite(growth) || growth <= 1.0f)
    return emitOpError("growth_factor must be finite and > 1, got ") << growth;
  if (!(backoff > 0.0f && backoff < 1.0f))
    return emitOpError("backoff_factor must be in (0, 1), got ") << backoff;
  if (getGrowthInterval() < 1)
    return emitOpError("growth_interval must be >= 1, got ")
           << getGrowthInterval();
  if (!std::isfinite(minScale) || minScale < 0.0f)
    return emitOpError("min_scale must be finite and >= 0, got ") << minScale;
  return success();
}

#define GET_OP_CLASSES
#include "mpt/IR/MPTOps.cpp.inc"
