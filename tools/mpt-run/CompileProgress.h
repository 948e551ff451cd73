//===- CompileProgress.h - what mpt-run is compiling, on a terminal -*- C++ -*-===//
//
// While a step is lowered and compiled (seconds to minutes for a large
// model), a line on stderr names the phase and the time since compiling
// began, updated four times a second from a thread of its own; the
// compiler's calls block. Only on a terminal: scripts and tests see nothing.
// The phases' durations are kept either way, for --timing.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_COMPILEPROGRESS_H
#define MPT_TOOLS_MPT_RUN_COMPILEPROGRESS_H

#include "llvm/ADT/StringRef.h"

#include <utility>
#include <vector>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace mpt {

class CompileProgress {
public:
  /// Shows nothing unless `enabled`.
  explicit CompileProgress(bool enabled);
  /// Ends the line with the total time: "step ready" once markReady was
  /// called, else the phase that was running (an error follows).
  ~CompileProgress();
  /// The phase now running, e.g. "lowering (--mpt-lower-to-cpu)"; the one
  /// before it ends.
  void setPhase(llvm::StringRef phase);
  /// Each phase that has ended or is running, with its seconds so far.
  std::vector<std::pair<std::string, double>> getPhaseSeconds();
  /// The step is compiled or loaded: the line ends with `done`.
  void markReady(llvm::StringRef done = "step ready") {
    ready = true;
    doneText = done.str();
  }

private:
  void printLine(); // with `mutex` held
  bool enabled, done = false, ready = false;
  std::string phase, doneText;
  std::chrono::steady_clock::time_point start, phaseStart;
  std::vector<std::pair<std::string, double>> endedPhases;
  std::mutex mutex;
  std::condition_variable wake;
  std::thread ticker;
};

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_COMPILEPROGRESS_H
