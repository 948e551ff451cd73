//===- MPTOps.h - mpt operations ------------------------------*- C++ -*-===//
#ifndef MPT_IR_MPTOPS_H
#define MPT_IR_MPTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mpt/IR/MPTDialect.h"

#include "mpt/IR/MPTEnums.h.inc"

#define GET_OP_CLASSES
#include "mpt/IR/MPTOps.h.inc"

#endif // MPT_IR_MPTOPS_H
