//===- Report.h - the one way mpt's passes write reports -------*- C++ -*-===//
//
// Every report (--mpt-training-graph-report, --mpt-precision-report,
// --mpt-loss-scaling-report, --mpt-range-report, the kernel reports of
// --mpt-matmul-to-tensorcore and --mpt-matmul-to-cpu-kernels) is declared
// with the options of include/mpt/Support/ReportOptions.td (`format`, an
// enum text|json, and `output`) and written through this header:
//
//   1. the pass opens its output with openReport(loc, passArgument, output)
//      (in initialize() when nothing but the options can be wrong);
//   2. it prints text lines or builds one llvm::json::Value into
//      report.os() (writeJson() prints it, indented by two);
//   3. it calls report.commit(), which writes a file atomically.
//
// `-` is stderr: reports are a side channel, stdout carries the IR. (mpt-run's
// `--log -` is stdout: the loss log is what mpt-run outputs.)
//
//===----------------------------------------------------------------------===//
#ifndef MPT_SUPPORT_REPORT_H
#define MPT_SUPPORT_REPORT_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace mpt {

/// "file:line:col" of the first file location inside `loc` (through name,
/// call-site and fused locations), or "unknown". Every report and mpt-run's
/// messages print locations this way.
std::string formatLocation(mlir::Location loc);

/// The format of a report: the `format` option of every report pass.
enum class ReportFormat { Text, Json };
/// "text" or "json"; failure for anything else. The `format` options parse
/// themselves (an enum option); this is for the deprecated string aliases
/// (`report-format`) and pipeline options.
mlir::FailureOr<ReportFormat> parseReportFormat(llvm::StringRef format);

/// Where a report goes: stderr for "-", else a file. A file is written by
/// commit(), atomically (a temporary file renamed over it) where it is a
/// regular file in a directory we may write to, in place otherwise
/// (/dev/null, a pipe); a pass that fails leaves no half-written report.
/// What a pass writes in several runs (--split-input-file) accumulates, as
/// if the file had stayed open.
class ReportOutput {
public:
  /// The stream to print the report to.
  llvm::raw_ostream &os() {
    if (isStderr())
      return llvm::errs();
    return buffer;
  }
  bool isStderr() const { return path == "-"; }
  /// Flushes stderr, or writes everything printed so far to the file.
  llvm::Error commit();

private:
  friend mlir::FailureOr<std::shared_ptr<ReportOutput>>
  openReport(mlir::Location, llvm::StringRef, llvm::StringRef);
  explicit ReportOutput(llvm::StringRef path) : path(path.str()) {}

  std::string path;
  std::string text;
  /// How much of `text` the file has (written in place, not renamed).
  size_t committed = 0;
  llvm::raw_string_ostream buffer{text};
};

/// Opens the output of report pass `passArgument`: "-" for stderr or a file
/// path whose directory must exist. On failure one error at `loc`
/// ("<pass>: cannot open report file '<path>': <why>"). A shared_ptr: pass
/// objects are copied when the pass manager clones them.
mlir::FailureOr<std::shared_ptr<ReportOutput>>
openReport(mlir::Location loc, llvm::StringRef passArgument,
           llvm::StringRef path);

/// Commits `report` (ReportOutput::commit); on failure one error at `loc`
/// that names `passArgument`.
mlir::LogicalResult commitReport(ReportOutput &report, mlir::Location loc,
                                 llvm::StringRef passArgument);

/// Prints `value` as the report's JSON document (indented by two, then a
/// newline): every JSON report has this shape.
void writeJson(llvm::raw_ostream &os, llvm::json::Value value);

/// Opens the report of a pass whose report is a by-product (none unless a
/// path is given) and that still accepts the deprecated `report=` /
/// `report-format=` aliases of `output=` / `format=` (the kernel reports of
/// the Conversion passes were declared with them): an alias that was given
/// (non-empty) is used, and `format` is updated. A bad `report-format` is
/// one error at `loc` with the message it always had. Null when no report is
/// asked for.
mlir::FailureOr<std::shared_ptr<ReportOutput>>
openReportWithAliases(mlir::Location loc, llvm::StringRef passArgument,
                      llvm::StringRef output, ReportFormat &format,
                      llvm::StringRef report, llvm::StringRef reportFormat);

} // namespace mpt

#endif // MPT_SUPPORT_REPORT_H
