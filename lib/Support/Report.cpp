//===- Report.cpp - the one way mpt's passes write reports ----------------===//
#include "mpt/Support/Report.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::string mpt::formatLocation(Location loc) {
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

FailureOr<mpt::ReportFormat> mpt::parseReportFormat(StringRef format) {
  if (format == "text")
    return ReportFormat::Text;
  if (format == "json")
    return ReportFormat::Json;
  return failure();
}

/// The directory `path` is in ("." for a bare file name).
static StringRef getDirectory(StringRef path) {
  StringRef dir = llvm::sys::path::parent_path(path);
  return dir.empty() ? "." : dir;
}

llvm::Error mpt::ReportOutput::commit() {
  if (isStderr()) {
    llvm::errs().flush();
    return llvm::Error::success();
  }
  // A regular file (or a new one) in a writable directory: the whole text
  // so far to a temporary file renamed over it.
  llvm::sys::fs::file_status status;
  bool exists = !llvm::sys::fs::status(path, status) &&
                llvm::sys::fs::exists(status);
  if ((!exists || llvm::sys::fs::is_regular_file(status)) &&
      !llvm::sys::fs::access(getDirectory(path),
                             llvm::sys::fs::AccessMode::Write)) {
    committed = text.size();
    return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
      os << text;
      return llvm::Error::success();
    });
  }
  // /dev/null, a pipe, a file in a directory we cannot write to: written in
  // place, what is new since the last commit.
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec,
                          committed ? llvm::sys::fs::OF_Append
                                    : llvm::sys::fs::OF_None);
  if (ec)
    return llvm::errorCodeToError(ec);
  os << StringRef(text).drop_front(committed);
  committed = text.size();
  os.close();
  if (os.has_error())
    return llvm::errorCodeToError(os.error());
  return llvm::Error::success();
}

FailureOr<std::shared_ptr<mpt::ReportOutput>>
mpt::openReport(Location loc, StringRef passArgument, StringRef path) {
  auto report = std::shared_ptr<ReportOutput>(new ReportOutput(path));
  if (report->isStderr())
    return report;
  // Nothing is written before commit(): what can be checked now is that
  // the file can be written where it is named.
  std::error_code ec;
  if (path.empty() || llvm::sys::fs::is_directory(path))
    ec = std::make_error_code(std::errc::is_a_directory);
  else if (llvm::sys::fs::exists(path))
    ec = llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write);
  else
    ec = llvm::sys::fs::access(getDirectory(path),
                               llvm::sys::fs::AccessMode::Write);
  if (ec) {
    emitError(loc) << passArgument << ": cannot open report file '" << path
                   << "': " << ec.message();
    return failure();
  }
  return report;
}

LogicalResult mpt::commitReport(ReportOutput &report, Location loc,
                                StringRef passArgument) {
  if (llvm::Error error = report.commit()) {
    emitError(loc) << passArgument << ": cannot write the report: "
                   << llvm::toString(std::move(error));
    return failure();
  }
  return success();
}

void mpt::writeJson(llvm::raw_ostream &os, llvm::json::Value value) {
  os << llvm::formatv("{0:2}", value) << "\n";
}

FailureOr<std::shared_ptr<mpt::ReportOutput>>
mpt::openReportWithAliases(Location loc, StringRef passArgument,
                           StringRef output, ReportFormat &format,
                           StringRef report, StringRef reportFormat) {
  if (!reportFormat.empty()) {
    FailureOr<ReportFormat> parsed = parseReportFormat(reportFormat);
    if (failed(parsed)) {
      emitError(loc) << passArgument
                     << ": report-format must be text or json, got '"
                     << reportFormat << "'";
      return failure();
    }
    format = *parsed;
  }
  StringRef path = report.empty() ? output : report;
  if (path.empty())
    return std::shared_ptr<ReportOutput>();
  return openReport(loc, passArgument, path);
}
