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
#define GEN_PASS_DEF_MPTCASTCLEANUP
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct MptCastCleanupPass
    : public mpt::impl::MptCastCleanupBase<MptCastCleanupPass> {
  void runOnOperation() override {
    // Unchanged IR keeps every analysis, and the pass manager then skips
    // the verifier run after the pass (a fifth of parse+print on a step).
    if (!cleanupCasts(getOperation()))
      return markAllAnalysesPreserved();
    markAnalysesPreserved<TrainingGraph>();
  }
};
} // namespace
