//===- Options.h - mpt-run's option categories -----------------*- C++ -*-===//
//
// The categories --help shows (every other registered option is hidden);
// function-local statics, so that options in any file can name them while
// static objects are constructed.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_OPTIONS_H
#define MPT_TOOLS_MPT_RUN_OPTIONS_H

#include "llvm/Support/CommandLine.h"

namespace mpt {

inline llvm::cl::OptionCategory &getRunCategory() {
  static llvm::cl::OptionCategory category("mpt-run options");
  return category;
}
inline llvm::cl::OptionCategory &getCPUCategory() {
  static llvm::cl::OptionCategory category("mpt-run CPU options");
  return category;
}
inline llvm::cl::OptionCategory &getCacheCategory() {
  static llvm::cl::OptionCategory category("mpt-run cache options");
  return category;
}

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_OPTIONS_H
