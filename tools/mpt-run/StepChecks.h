//===- StepChecks.h - a failed check in the compiled step -------*- C++ -*-===//
//
// Frontends guard gathers with `cf.assert` (torch-mlir: "index must be
// smaller than dim size" before an embedding lookup). mpt-run lowers each
// to a call of its own handler when the check fails
// (--mpt-report-failed-asserts), which prints one error line with the
// check's message, its location and the step, flushes what was logged, and
// ends the run with exit code 1: the step cannot go on, the op the check
// guarded would read out of bounds. (Upstream's lowering aborts, which
// LLVM's signal handlers turn into a crash report.)
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_STEPCHECKS_H
#define MPT_TOOLS_MPT_RUN_STEPCHECKS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <functional>

namespace mpt {

/// The name of the handler (--mpt-lower-to-cpu's assert-handler).
constexpr const char *kFailedCheckHandler = "mpt_run_assert_failed";

/// Adds the handler's symbols (the function and its C interface wrapper's
/// name) to `symbols`.
void addFailedCheckSymbols(llvm::orc::SymbolMap &symbols,
                           llvm::orc::MangleAndInterner &interner);

/// The step now running (said in the error).
void setRunningStep(unsigned step);
/// Called before the process ends on a failed check (flushes the log).
void setBeforeFailedCheckExit(std::function<void()> flush);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_STEPCHECKS_H
