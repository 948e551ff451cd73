//===- StepTimer.cpp - mpt-run --timing -----------------------------------===//
#include "StepTimer.h"
#include "Options.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;

static cl::opt<bool> timing(
    "timing",
    cl::desc("Print compile time and the best and median step time (wall "
             "clock) on stderr"),
    cl::cat(mpt::getRunCategory()));

mpt::StepTimer::StepTimer() : start(Clock::now()) {}

void mpt::StepTimer::compileStarted() {
  beforeCompile = std::chrono::duration<double>(Clock::now() - start).count();
}

void mpt::StepTimer::stepStarted() {
  stepStart = Clock::now();
  if (firstStepStart == 0)
    firstStepStart = std::chrono::duration<double>(stepStart - start).count();
}

void mpt::StepTimer::stepFinished(bool interpreted) {
  Clock::time_point now = Clock::now();
  bool first = firstStepDone == 0;
  if (first)
    firstStepDone = std::chrono::duration<double>(now - start).count();
  if (interpreted) {
    interpretedSteps.push_back(
        std::chrono::duration<double>(now - stepStart).count());
    return;
  }
  if (compiledFirstStart == 0)
    compiledFirstStart =
        std::chrono::duration<double>(stepStart - start).count();
  // The first compiled step after interpreted ones counts like any other:
  // what made it wait was the compiler, before stepStarted.
  first &= interpretedSteps.empty();
  if (tiered && !optimized)
    quickSteps.push_back(
        std::chrono::duration<double>(now - stepStart).count());
  else if (!first || tiered)
    steps.push_back(std::chrono::duration<double>(now - stepStart).count());
}

void mpt::StepTimer::optimizedCodeReady() {
  optimized = true;
  optimizedReady =
      std::chrono::duration<double>(Clock::now() - start).count();
}

void mpt::StepTimer::report() const {
  if (!timing || firstStepDone == 0)
    return;
  std::vector<double> sorted = steps;
  std::sort(sorted.begin(), sorted.end());
  // mpt-run compiles the whole step before calling it: compile time (with
  // parsing and reading the inputs) is the time to the start of step 0.
  double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  double best = sorted.empty() ? 0 : sorted.front();
  // With interpreted first steps, compiling ends at the first compiled
  // step (0: the run had none).
  if (interpretedSteps.empty() || compiledFirstStart > 0)
    errs() << format("mpt-run: timing: compile %.3f s, step best %.3f ms, "
                     "median %.3f ms over %zu steps\n",
                     interpretedSteps.empty() ? firstStepStart
                                              : compiledFirstStart,
                     best * 1e3, median * 1e3, sorted.size());
  errs() << format("mpt-run: timing: first step done at %.3f s\n",
                   firstStepDone);
  if (!interpretedSteps.empty())
    errs() << format("mpt-run: timing: interpreted: %zu steps, the first "
                     "started at %.3f s and done at %.3f s\n",
                     interpretedSteps.size(), firstStepStart, firstStepDone);
  // Where the compile time went, in the phases the progress line names.
  if (!compilePhases.empty()) {
    errs() << format("mpt-run: timing: compile phases: passes, checks and "
                     "inputs %.3f s",
                     beforeCompile);
    for (const auto &[phase, seconds] : compilePhases)
      errs() << format("; %s %.3f s", phase.c_str(), seconds);
    errs() << "\n";
  }
  // Under --tiered-compile the best and median are the optimised steps'
  // (all of them: none waits for code generation); the quick ones are counted.
  double quickBest =
      quickSteps.empty()
          ? 0
          : *std::min_element(quickSteps.begin(), quickSteps.end());
  if (tiered && optimized)
    errs() << format("mpt-run: timing: tiered: %zu steps with quick code "
                     "(best %.3f ms), optimised code from %.3f s\n",
                     quickSteps.size(), quickBest * 1e3, optimizedReady);
  else if (tiered)
    errs() << format("mpt-run: timing: tiered: all %zu steps with quick code "
                     "(best %.3f ms; the optimised code was not ready)\n",
                     quickSteps.size(), quickBest * 1e3);
}

bool mpt::isTimingRequested() { return timing; }
