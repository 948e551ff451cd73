//===- TensorCoreTransformOps.h - mpt's transform ops -----------*- C++ -*-===//
//
// transform.mpt.* (TensorCoreTransformOps.td): the steps of the sm_80 Tensor
// Core schedule that upstream has no transform op for.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_CONVERSION_TENSORCORETRANSFORMOPS_H
#define MPT_CONVERSION_TENSORCORETRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "mpt/Conversion/TensorCoreTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {
/// Registers the transform.mpt.* ops (mpt::registerAllDialects does).
void registerTensorCoreTransformExtension(mlir::DialectRegistry &registry);
} // namespace mpt

#endif // MPT_CONVERSION_TENSORCORETRANSFORMOPS_H
