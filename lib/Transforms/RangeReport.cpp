//===- RangeReport.cpp - the --mpt-range-report pass ----------------------===//
#include "mpt/Analysis/FloatRange.h"
#include "mpt/Support/Report.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_RANGEREPORT
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// A float value of a function with its range, in program order.
struct Entry {
  Value value;
  const FloatRange *range;
};

/// JSON has no infinities: bounds are numbers or the strings "+inf"/"-inf".
llvm::json::Value boundToJson(double value) {
  if (std::isinf(value))
    return formatBound(value);
  return value;
}

llvm::json::Array intervalToJson(const Interval &interval) {
  if (interval.isEmpty())
    return llvm::json::Array();
  return llvm::json::Array{boundToJson(interval.lo), boundToJson(interval.hi)};
}

struct RangeReportPass : public mpt::impl::RangeReportBase<RangeReportPass> {
  using Base::Base;
  std::shared_ptr<ReportOutput> report;

  LogicalResult initialize(MLIRContext *context) override {
    FailureOr<std::shared_ptr<ReportOutput>> opened =
        openReport(UnknownLoc::get(context), getArgument(), output);
    if (failed(opened))
      return failure();
    report = *opened;
    return success();
  }

  void runOnOperation() override {
    bool json = format == ReportFormat::Json;
    llvm::json::Array functions;
    llvm::raw_ostream &os = report->os();
    for (auto func : getOperation().getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      std::unique_ptr<FloatRanges> solved;
      if (solver)
        solved = std::make_unique<FloatRanges>(func, /*alwaysSolve=*/true);
      const FloatRanges &ranges =
          solved ? *solved : getChildAnalysis<FloatRanges>(func);
      SmallVector<Entry> entries;
      for (BlockArgument arg : func.getArguments())
        if (const FloatRange *range = ranges.lookup(arg))
          entries.push_back({arg, range});
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op == func.getOperation())
          return WalkResult::advance();
        for (Value result : op->getResults())
          if (const FloatRange *range = ranges.lookup(result))
            entries.push_back({result, range});
        // A linalg body belongs to its op.
        if (isa<linalg::LinalgOp>(op))
          return WalkResult::skip();
        return WalkResult::advance();
      });
      if (json)
        functions.push_back(toJson(func, entries));
      else
        printText(func, entries, os);
    }
    if (json)
      writeJson(os, llvm::json::Object{{"functions", std::move(functions)}});
    if (failed(commitReport(*report, getOperation().getLoc(), getArgument())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  static void printText(FunctionOpInterface func, ArrayRef<Entry> entries,
                        llvm::raw_ostream &os) {
    os << "mpt range report: @" << func.getName() << " ("
       << formatLocation(func.getLoc()) << ")\n";
    for (const Entry &entry : entries) {
      os << "  " << FloatRanges::describeValue(entry.value) << ": ";
      entry.range->print(os);
      std::string source = FloatRanges::describeSource(*entry.range);
      if (!source.empty() && entry.range->source != entry.value)
        os << " from " << source;
      os << "\n";
    }
  }

  static llvm::json::Object toJson(FunctionOpInterface func,
                                   ArrayRef<Entry> entries) {
    llvm::json::Array values;
    for (const Entry &entry : entries) {
      const FloatRange &range = *entry.range;
      llvm::json::Object object{
          {"value", FloatRanges::describeValue(entry.value)},
          {"bounds", intervalToJson(range.bounds)},
          {"reach", intervalToJson(range.reach)},
          {"may_be_inf", range.mayBeInf},
          {"may_be_nan", range.mayBeNaN}};
      std::string source = FloatRanges::describeSource(range);
      if (!source.empty())
        object["source"] = source;
      values.push_back(std::move(object));
    }
    return llvm::json::Object{{"function", func.getName()},
                              {"loc", formatLocation(func.getLoc())},
                              {"values", std::move(values)}};
  }
};
} // namespace
