//===- ReportUtils.cpp - shared helpers of mpt's report passes ------------===//
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace mpt {

std::string formatLocation(Location loc) {
  std::string text = "unknown";
  loc->walk([&](Location nested) {
    if (auto file = dyn_cast<FileLineColLoc>(nested)) {
      text = (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
              Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

FailureOr<ReportFormat> parseReportFormat(StringRef format) {
  if (format == "text")
    return ReportFormat::Text;
  if (format == "json")
    return ReportFormat::Json;
  return failure();
}

std::unique_ptr<ReportStream> ReportStream::open(StringRef path,
                                                 std::string &error) {
  auto stream = std::unique_ptr<ReportStream>(new ReportStream());
  if (path == "-")
    return stream;
  std::error_code ec;
  stream->file = std::make_unique<llvm::raw_fd_ostream>(
      path, ec, llvm::sys::fs::OF_TextWithCRLF);
  if (ec) {
    error = "cannot open report file '" + path.str() + "': " + ec.message();
    return nullptr;
  }
  return stream;
}

/// A byte count as JSON: a number, or "too large" when it does not fit.
static llvm::json::Value bytesToJson(uint64_t bytes) {
  if (isTooLarge(bytes))
    return "too large";
  return static_cast<int64_t>(bytes);
}

/// A byte count as text: the number, or "too large".
static std::string bytesToText(uint64_t bytes) {
  return isTooLarge(bytes) ? "too large" : std::to_string(bytes);
}

static llvm::json::Object byteCountsToJson(const ByteCounts &counts) {
  llvm::json::Object byType;
  for (const auto &[type, bytes] : counts.bytesByType)
    byType[type] = bytesToJson(bytes);
  llvm::json::Object object{{"bytes_by_type", std::move(byType)},
                            {"total_bytes", bytesToJson(counts.total())}};
  if (counts.numDynamic)
    object["dynamic_tensors"] = static_cast<int64_t>(counts.numDynamic);
  return object;
}

llvm::json::Object memoryEstimateToJson(const MemoryEstimate &estimate) {
  llvm::json::Object object{
      {"params", byteCountsToJson(estimate.params)},
      {"gradients", byteCountsToJson(estimate.gradients)},
      {"optimizer_state", byteCountsToJson(estimate.optimizerState)},
      {"activations", byteCountsToJson(estimate.activations)},
      {"param_copies", byteCountsToJson(estimate.paramCopies)},
      {"total_bytes", bytesToJson(estimate.total())}};
  // Only FP8 steps with delayed scaling have it.
  if (estimate.scalingState.total() || estimate.scalingState.numDynamic)
    object["scaling_state"] = byteCountsToJson(estimate.scalingState);
  return object;
}

static void printByteCounts(StringRef name, const ByteCounts &counts,
                            llvm::raw_ostream &os, StringRef indent) {
  os << indent;
  os.indent(0) << llvm::left_justify(name, 16) << llvm::right_justify(
      bytesToText(counts.total()), 12) << " B";
  if (!counts.bytesByType.empty()) {
    os << "  (";
    llvm::interleaveComma(counts.bytesByType, os, [&](const auto &entry) {
      os << entry.first << ": " << bytesToText(entry.second);
    });
    os << ")";
  }
  if (counts.numDynamic)
    os << "  + " << counts.numDynamic << " dynamic-shaped tensor(s)";
  os << "\n";
}

void printMemoryEstimate(const MemoryEstimate &estimate, llvm::raw_ostream &os,
                         StringRef indent) {
  printByteCounts("params", estimate.params, os, indent);
  printByteCounts("gradients", estimate.gradients, os, indent);
  printByteCounts("optimizer_state", estimate.optimizerState, os, indent);
  printByteCounts("activations", estimate.activations, os, indent);
  // Only steps with cast weights have them; FP32 reports stay as they were.
  if (estimate.paramCopies.total() || estimate.paramCopies.numDynamic)
    printByteCounts("param_copies", estimate.paramCopies, os, indent);
  if (estimate.scalingState.total() || estimate.scalingState.numDynamic)
    printByteCounts("scaling_state", estimate.scalingState, os, indent);
  os << indent << llvm::left_justify("total", 16)
     << llvm::right_justify(bytesToText(estimate.total()), 12) << " B\n";
}

SmallVector<FunctionOpInterface> getReportedFunctions(ModuleOp module,
                                                       bool allFunctions) {
  SmallVector<FunctionOpInterface> defined, steps;
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (func.isExternal())
      continue;
    defined.push_back(func);
    if (!allFunctions && isContractStep(func))
      steps.push_back(func);
  }
  return steps.empty() ? defined : steps;
}

} // namespace mpt

FailureOr<mpt::PassReport> mpt::openPassReport(Location loc,
                                               StringRef passArgument,
                                               StringRef path,
                                               StringRef format) {
  FailureOr<ReportFormat> parsed = parseReportFormat(format);
  if (failed(parsed)) {
    emitError(loc) << passArgument
                   << ": report-format must be text or json, got '" << format
                   << "'";
    return failure();
  }
  PassReport report;
  report.format = *parsed;
  if (!path.empty()) {
    std::string error;
    report.stream = ReportStream::open(path, error);
    if (!report.stream) {
      emitError(loc) << passArgument << ": cannot write the report: " << error;
      return failure();
    }
  }
  return report;
}
