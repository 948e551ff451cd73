//===- ReportOptions.td - the options of every report pass -*- tablegen -*-===//
//
// Every pass that writes a report declares it with these two options, so
// that all reports are asked for the same way: `format=text|json` and
// `output=<file>` ('-' for stderr). include/mpt/Support/Report.h opens,
// writes and commits the output.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_SUPPORT_REPORTOPTIONS_TD
#define MPT_SUPPORT_REPORTOPTIONS_TD

include "mlir/Pass/PassBase.td"

// `format`: mpt::ReportFormat, parsed by the option itself.
def ReportFormatOption : Option<"format", "format", "::mpt::ReportFormat",
    /*default=*/"::mpt::ReportFormat::Text", "Report format: text or json",
    [{::llvm::cl::values(
      clEnumValN(::mpt::ReportFormat::Text, "text", "lines to read"),
      clEnumValN(::mpt::ReportFormat::Json, "json", "one JSON document"))}]>;

// `output`: where the report goes. Report passes write to stderr by default
// ("\"-\""); passes whose report is a by-product (the kernel reports) write
// none unless given a path ("\"\"").
class ReportOutputOption<string default,
    string desc = "File to write the report to ('-' for stderr)">
    : Option<"output", "output", "std::string", default, desc>;

#endif // MPT_SUPPORT_REPORTOPTIONS_TD
