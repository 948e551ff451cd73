//===- CPUPasses.h - mpt passes of the CPU backend ------------*- C++ -*-===//
#ifndef MPT_CONVERSION_CPUPASSES_H
#define MPT_CONVERSION_CPUPASSES_H

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mpt/Support/Report.h"

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Conversion/CPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Conversion/CPUPasses.h.inc"

} // namespace mpt

#endif // MPT_CONVERSION_CPUPASSES_H
