//===- StepTimer.h - mpt-run --timing ---------------------------*- C++ -*-===//
//
// With --timing, mpt-run prints on stderr how long compiling took (passes,
// lowering and the JIT's code generation, which happens at the first call)
// and the best and median wall time of a step, for bench/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_STEPTIMER_H
#define MPT_TOOLS_MPT_RUN_STEPTIMER_H

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace mpt {

/// Whether --timing was given.
bool isTimingRequested();

class StepTimer {
public:
  /// Starts the compile clock (before the first pass runs).
  StepTimer();
  /// The step is handed to the compiler (what came before: --passes, the
  /// step's checks, reading its inputs).
  void compileStarted();
  /// The compiler's phases and their seconds, for the report.
  void setCompilePhases(std::vector<std::pair<std::string, double>> phases) {
    compilePhases = std::move(phases);
  }
  void stepStarted();
  /// `interpreted`: the step ran in the interpreter (StepInterpreter.h).
  void stepFinished(bool interpreted = false);
  /// --tiered-compile: the steps run quick code until optimizedCodeReady;
  /// only the steps after it count for the best and median.
  void setTiered() { tiered = true; }
  /// The optimised code runs from the next step on.
  void optimizedCodeReady();
  /// Prints the timing line when --timing is given.
  void report() const;

private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start, stepStart;
  double firstStepDone = 0; // seconds from start to the end of step 0
  double firstStepStart = 0; // seconds from start to the start of step 0
  double beforeCompile = 0;  // seconds from start to compileStarted
  std::vector<std::pair<std::string, double>> compilePhases;
  std::vector<double> steps; // seconds, steps after the first
  bool tiered = false;
  bool optimized = false;     // the optimised code runs (if tiered)
  double optimizedReady = 0;  // seconds from start
  std::vector<double> quickSteps; // seconds of the quick code's steps
  std::vector<double> interpretedSteps; // seconds of the interpreted steps
  double compiledFirstStart = 0; // seconds from start to the first compiled step
};

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_STEPTIMER_H
