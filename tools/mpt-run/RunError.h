//===- RunError.h - the errors that end an mpt-run run ----------*- C++ -*-===//
//
// Every part of mpt-run returns its errors (llvm::Error / llvm::Expected);
// main alone turns them into an exit code (1) and prints them, once, in the
// form an MPI job needs (MpiRuntime.h). Two kinds:
//
// * RunError: a message main prints as "mpt-run: error: <message>". One every
//   rank of a job meets in the same way (bad batch shapes, no MPI library) is
//   printed by rank 0 only.
// * AlreadyReported: the problem has been reported already (an MLIR
//   diagnostic at its source location, the lockstep check, another rank's
//   setup failure that rank 0 printed); main prints nothing more.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_RUNERROR_H
#define MPT_TOOLS_MPT_RUN_RUNERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mpt {

class RunError : public llvm::ErrorInfo<RunError> {
public:
  static char ID;
  RunError(const llvm::Twine &message, bool onAllRanks)
      : message(message.str()), onAllRanks(onAllRanks) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  const std::string &getMessage() const { return message; }
  /// Every rank of a job meets it the same way: rank 0 alone reports it.
  bool isOnAllRanks() const { return onAllRanks; }

private:
  std::string message;
  bool onAllRanks;
};

class AlreadyReported : public llvm::ErrorInfo<AlreadyReported> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override { os << "already reported"; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
};

/// An error that ends the run with `message`.
inline llvm::Error runError(const llvm::Twine &message) {
  return llvm::make_error<RunError>(message, /*onAllRanks=*/false);
}
/// An error every rank of a job meets the same way.
inline llvm::Error runErrorOnAllRanks(const llvm::Twine &message) {
  return llvm::make_error<RunError>(message, /*onAllRanks=*/true);
}
/// An error already reported (a diagnostic was emitted).
inline llvm::Error alreadyReported() {
  return llvm::make_error<AlreadyReported>();
}

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_RUNERROR_H
