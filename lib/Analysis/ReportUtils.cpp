//===- ReportUtils.cpp - what reports print of the analyses ---------------===//
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace mpt {

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
