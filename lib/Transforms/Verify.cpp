//===- Verify.cpp - --mpt-verify ------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"

namespace mpt {
#define GEN_PASS_DEF_VERIFY
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct VerifyPass : public mpt::impl::VerifyBase<VerifyPass> {
  void runOnOperation() override {
    if (failed(verify(getOperation())))
      return signalPassFailure();
    // Nothing changed: the pass manager needs no verification after it.
    markAllAnalysesPreserved();
  }
};
} // namespace
