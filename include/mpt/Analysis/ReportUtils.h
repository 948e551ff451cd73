//===- ReportUtils.h - what reports print of the analyses ------*- C++ -*-===//
//
// The report pieces that need the analyses (the memory estimate, the
// functions a report lists). Opening, formats and locations are the report
// layer's, include/mpt/Support/Report.h (below Analysis), included here.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_REPORTUTILS_H
#define MPT_ANALYSIS_REPORTUTILS_H

#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Support/Report.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mpt {

/// The functions a report lists: the defined functions of `module` that are
/// training steps (mpt::isContractStep), or all of them when `allFunctions`
/// is set or the module holds no training step (plain code, e.g. autocast of
/// an inference function).
llvm::SmallVector<mlir::FunctionOpInterface>
getReportedFunctions(mlir::ModuleOp module, bool allFunctions);

/// The memory estimate as JSON: {"params": {"f32": n, ...}, ...}.
llvm::json::Object memoryEstimateToJson(const MemoryEstimate &estimate);
/// The memory estimate as indented text lines.
void printMemoryEstimate(const MemoryEstimate &estimate,
                         llvm::raw_ostream &os, llvm::StringRef indent);

} // namespace mpt

#endif // MPT_ANALYSIS_REPORTUTILS_H
