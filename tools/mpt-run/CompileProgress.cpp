//===- CompileProgress.cpp - what mpt-run is compiling, on a terminal -----===//
#include "CompileProgress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace std::chrono;

mpt::CompileProgress::CompileProgress(bool enabled)
    : enabled(enabled), start(steady_clock::now()), phaseStart(start) {
  if (!enabled)
    return;
  ticker = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, milliseconds(250), [this] { return done; }))
      printLine();
  });
}

void mpt::CompileProgress::printLine() {
  double seconds = duration<double>(steady_clock::now() - start).count();
  // Padded, so that a shorter phase overwrites a longer one.
  llvm::errs() << llvm::format("\rmpt-run: %-40s %6.1f s", phase.c_str(),
                               seconds);
  llvm::errs().flush();
}

void mpt::CompileProgress::setPhase(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(mutex);
  steady_clock::time_point now = steady_clock::now();
  if (!phase.empty())
    endedPhases.emplace_back(phase,
                             duration<double>(now - phaseStart).count());
  phaseStart = now;
  phase = name.str();
  if (enabled)
    printLine();
}

std::vector<std::pair<std::string, double>>
mpt::CompileProgress::getPhaseSeconds() {
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<std::pair<std::string, double>> phases = endedPhases;
  if (!phase.empty())
    phases.emplace_back(
        phase, duration<double>(steady_clock::now() - phaseStart).count());
  return phases;
}

mpt::CompileProgress::~CompileProgress() {
  if (!enabled)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    if (ready)
      phase = doneText;
  }
  wake.notify_all();
  ticker.join();
  printLine();
  llvm::errs() << "\n";
}
