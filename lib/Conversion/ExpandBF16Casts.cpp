//===- ExpandBF16Casts.cpp - bf16 casts as integer ops, nothing else ------===//
//
// Upstream's --arith-expand (include-bf16) also rewrites maximumf/minimumf
// into a compare and a select, which ignores the sign of zero (max(-0, +0)
// gave -0), where arith-to-llvm would emit llvm.maximum/llvm.minimum with
// IEEE 754-2019 semantics. The generic path only needs the bf16 casts, which
// LLVM cannot lower on a CPU without AVX512-BF16.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_EXPANDBF16CASTS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct ExpandBF16CastsPass
    : mpt::impl::ExpandBF16CastsBase<ExpandBF16CastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
