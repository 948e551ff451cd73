//===- CastCleanup.cpp - the --mpt-cast-cleanup pass ----------------------===//
//
// A linear walk rather than a greedy pattern rewrite: the greedy driver
// would also fold and erase unrelated ops, and this pass must touch only
// casts.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Autocast.h"
#include "mpt/Transforms/Passes.h"

namespace mpt {
#define GEN_PASS_DEF_CASTCLEANUP
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct CastCleanupPass
    : public mpt::impl::CastCleanupBase<CastCleanupPass> {
  void runOnOperation() override {
    // Unchanged IR keeps every analysis, and the pass manager then skips
    // the verifier run after the pass (a fifth of parse+print on a step).
    // A change erases and merges casts: the TrainingGraph's op and value
    // classifications would name erased ops and miss the merged casts, so
    // it is not kept (the next pass that reads it builds it again).
    if (!cleanupCasts(getOperation()))
      markAllAnalysesPreserved();
  }
};
} // namespace
