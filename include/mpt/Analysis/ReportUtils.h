//===- ReportUtils.h - shared helpers of mpt's report passes --*- C++ -*-===//
#ifndef MPT_ANALYSIS_REPORTUTILS_H
#define MPT_ANALYSIS_REPORTUTILS_H

#include "mpt/Analysis/TrainingGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace mpt {

/// "file:line:col" of the first file location inside `loc` (through name,
/// call-site and fused locations), or "unknown".
std::string formatLocation(mlir::Location loc);

/// The format of a report pass's output.
enum class ReportFormat { Text, Json };
/// Parses the `format` option of a report pass.
mlir::FailureOr<ReportFormat> parseReportFormat(llvm::StringRef format);

/// Where a report goes: stderr for "-", else the named file.
class ReportStream {
public:
  /// Opens `path`; on failure returns null and sets `error`.
  static std::unique_ptr<ReportStream> open(llvm::StringRef path,
                                            std::string &error);
  llvm::raw_ostream &os() { return file ? *file : llvm::errs(); }

private:
  std::unique_ptr<llvm::raw_fd_ostream> file;
};

/// A pass's optional report: its format and, when a path was given, where it
/// goes.
struct PassReport {
  ReportFormat format = ReportFormat::Text;
  std::unique_ptr<ReportStream> stream;
};
/// Parses a pass's `report-format` option and opens its `report` path (no
/// stream when the path is empty); on failure one error at `loc` that names
/// `passArgument`.
mlir::FailureOr<PassReport> openPassReport(mlir::Location loc,
                                           llvm::StringRef passArgument,
                                           llvm::StringRef path,
                                           llvm::StringRef format);

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
