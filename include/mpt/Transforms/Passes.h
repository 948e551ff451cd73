//===- Passes.h - mpt transformation passes -------------------*- C++ -*-===//
#ifndef MPT_TRANSFORMS_PASSES_H
#define MPT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mpt/Analysis/PrecisionPolicy.h"
#include "mpt/IR/MPTDialect.h"

namespace mpt {

/// The precision in which --mpt-data-parallel sends gradients.
enum class ReduceDtype { F32, BF16, F16 };

#define GEN_PASS_DECL
#include "mpt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Transforms/Passes.h.inc"

} // namespace mpt

#endif // MPT_TRANSFORMS_PASSES_H
