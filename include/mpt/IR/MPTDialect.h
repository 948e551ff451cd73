//===- MPTDialect.h - the mpt dialect -------------------------*- C++ -*-===//
#ifndef MPT_IR_MPTDIALECT_H
#define MPT_IR_MPTDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include <memory>
#include <optional>
#include <mutex>

#include "mpt/IR/MPTOpsDialect.h.inc"

#endif // MPT_IR_MPTDIALECT_H
