//===- InlineAllocaScopes.cpp - alloca-free alloca_scopes into their parent ===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mpt {
#define GEN_PASS_DEF_INLINEALLOCASCOPES
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct InlineAllocaScopesPass
    : mpt::impl::InlineAllocaScopesBase<InlineAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation().walk([&](memref::AllocaScopeOp scope) {
      // A scope that returns values, or holds allocas it must free at
      // its end, stays.
      if (scope.getNumResults() == 0 &&
          !scope.walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
               .wasInterrupted())
        scopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp scope : scopes) {
      Block &body = scope.getBodyRegion().front();
      rewriter.eraseOp(body.getTerminator());
      rewriter.inlineBlockBefore(&body, scope);
      rewriter.eraseOp(scope);
    }
  }
};
} // namespace
