//===- StepChecks.cpp - a failed check in the compiled step ---------------===//
#include "StepChecks.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace mpt;

static std::atomic<unsigned> runningStep{0};
static std::function<void()> beforeExit;

void mpt::setRunningStep(unsigned step) { runningStep = step; }

void mpt::setBeforeFailedCheckExit(std::function<void()> flush) {
  beforeExit = std::move(flush);
}

/// Reports the failed check `text` (its NUL-terminated message and
/// location) and ends the process. Possibly called from several of the
/// step's threads at once: the first reports, the others wait for the exit.
[[noreturn]] static void reportFailedCheck(const char *text) {
  static std::mutex once;
  once.lock(); // never unlocked: the process ends here
  llvm::outs().flush();
  if (beforeExit)
    beforeExit();
  llvm::errs() << "mpt-run: error: step " << runningStep.load()
               << ": check failed in the compiled step: " << text << "\n";
  llvm::errs().flush();
  std::fflush(nullptr);
  // Not exit(): static destructors would run under the step's other threads.
  std::_Exit(1);
}

/// The handler as the step calls it: the message's memref<?xi8> descriptor
/// unpacked (allocated, aligned, offset, size, stride).
static void failedCheck(int8_t *, int8_t *aligned, int64_t offset, int64_t,
                        int64_t) {
  reportFailedCheck(reinterpret_cast<const char *>(aligned + offset));
}

/// Its C interface (a pointer to the descriptor), should the declaration
/// carry llvm.emit_c_interface.
static void failedCheckInterface(StridedMemRefType<int8_t, 1> *message) {
  reportFailedCheck(
      reinterpret_cast<const char *>(message->data + message->offset));
}

void mpt::addFailedCheckSymbols(llvm::orc::SymbolMap &symbols,
                                llvm::orc::MangleAndInterner &interner) {
  symbols[interner(kFailedCheckHandler)] = {
      llvm::orc::ExecutorAddr::fromPtr(&failedCheck),
      llvm::JITSymbolFlags::Exported};
  symbols[interner((llvm::Twine("_mlir_ciface_") + kFailedCheckHandler)
                       .str())] = {
      llvm::orc::ExecutorAddr::fromPtr(&failedCheckInterface),
      llvm::JITSymbolFlags::Exported};
}
