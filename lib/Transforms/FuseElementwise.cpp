//===- FuseElementwise.cpp - --mpt-fuse-elementwise -----------------------===//
//
// Fewer and shorter-lived temporaries before bufferization: elementwise
// producers fused into their only reader, and one fill per reader. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
/// Whether `op` only starts a buffer: a tensor.empty or a tensor fill.
static bool startsBuffer(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  auto fill = dyn_cast<linalg::FillOp>(op);
  return fill && fill.hasPureTensorSemantics();
}

/// Places every op that only starts a buffer (`tensor.empty`, a tensor
/// `linalg.fill`) right before each op of its block that uses it: one clone
/// per user when there are several, the op itself moved when there is one.
/// Importers and CSE share one empty tensor or one fill of zeros among the
/// forward and backward ops of a shape, and bufferization allocates where
/// the op is: the buffer then lives from the first forward use to the last
/// backward one (and the other users get copies). A fill costs one pass
/// over memory; a buffer kept from the forward to the backward costs its
/// whole size for that time. Users in nested regions keep the shared op (a
/// clone there would allocate in every iteration). One sweep in reverse
/// program order (a fill is placed before the empty it writes is), each op
/// moved or cloned once: linear, and no rewrite undoes another.
static void placeBeforeUsers(Block &block, RewriterBase &rewriter) {
  SmallVector<Operation *> starters;
  for (Operation &op : block)
    if (startsBuffer(&op))
      starters.push_back(&op);
  for (Operation *op : llvm::reverse(starters)) {
    SmallVector<OpOperand *> local;
    bool nested = false;
    for (OpOperand &use : op->getResult(0).getUses()) {
      if (use.getOwner()->getBlock() == &block)
        local.push_back(&use);
      else
        nested = true;
    }
    if (local.empty())
      continue;
    if (local.size() == 1 && !nested) {
      rewriter.moveOpBefore(op, local.front()->getOwner());
      continue;
    }
    for (OpOperand *use : local) {
      rewriter.setInsertionPoint(use->getOwner());
      Operation *clone = rewriter.clone(*op);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(clone->getResult(0)); });
    }
    if (!nested)
      rewriter.eraseOp(op);
  }
}

/// Linalg's verifier skips zero-sized operand dimensions, so an op may read
/// a tensor<0xf32> and a tensor<8xf32> along one loop. Fusion may drop the
/// (unused) operand that gave the loop its size and leave an op that does
/// not verify; such an op is reported here, at it.
static LogicalResult verifyLoopSizesAgree(linalg::LinalgOp op) {
  // Per loop: the first static size seen and the operand it came from.
  SmallVector<std::optional<std::pair<int64_t, unsigned>>> sizes(
      op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    ArrayRef<int64_t> shape = op.getShape(&operand);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop || dim >= shape.size() || ShapedType::isDynamic(shape[dim]))
        continue;
      auto &seen = sizes[loop.getPosition()];
      if (!seen) {
        seen = {shape[dim], operand.getOperandNumber()};
        continue;
      }
      if (seen->first != shape[dim])
        return op->emitOpError()
               << "operand #" << operand.getOperandNumber() << " has size "
               << shape[dim] << " along loop " << loop.getPosition()
               << ", operand #" << seen->second << " has size "
               << seen->first;
    }
  }
  return success();
}

/// Fuses an elementwise producer into the one linalg op that reads it when
/// other ops (not linalg ones) read it too: an optimizer's new momentum,
/// which the step returns and the parameter update reads. The fused op
/// computes the producer's result once and yields it as a result of its
/// own, which the other readers then read, and the producer goes: one pass
/// over memory instead of two (SGD's momentum and parameter, AdamW's
/// moments and parameter). Upstream's pattern keeps the producer for its
/// other readers and computes its result again in the fused op. With a
/// second linalg reader, fusing into each would compute it twice, so that
/// case is left alone.
struct FuseIntoOnlyLinalgReader : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          !isOnlyLinalgReader(&operand) ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      // Every result that is read elsewhere must be one the fused op
      // yields, or the producer would stay.
      llvm::SmallDenseSet<int> preserved =
          linalg::getPreservedProducerResults(producer, consumer, &operand);
      if (!llvm::all_of(producer->getOpResults(), [&](OpResult result) {
            return preserved.contains(result.getResultNumber()) ||
                   llvm::all_of(result.getUsers(), [&](Operation *user) {
                     return user == consumer.getOperation();
                   });
          }))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != fused->fusedOp;
        });
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }

  /// Whether no linalg op but the owner of `fused` reads its producer, and
  /// the other readers come after that owner in its block (the fused op,
  /// which takes the owner's place, must dominate them).
  static bool isOnlyLinalgReader(OpOperand *fused) {
    Operation *consumer = fused->getOwner();
    for (OpOperand &use : fused->get().getDefiningOp()->getUses()) {
      if (&use == fused)
        continue;
      Operation *user = use.getOwner();
      if (isa<linalg::LinalgOp>(user) ||
          user->getBlock() != consumer->getBlock() ||
          !consumer->isBeforeInBlock(user))
        return false;
    }
    return true;
  }
};

/// Marks the widenings that read an op's stored bf16 or f16 input: an
/// `arith.extf` to f32 of a block argument of a `linalg.generic` body.
/// Fusion clones body ops with their attributes, so after it a marked
/// widening whose operand is a rounding reads a fused producer's result
/// (excess precision may drop that pair); a round trip written inside one
/// op is never marked.
static constexpr llvm::StringLiteral kWidensInput = "mpt.widens_input";

static void markInputWidenings(func::FuncOp func) {
  func.walk([](linalg::GenericOp generic) {
    for (BlockArgument arg : generic.getRegion().getArguments()) {
      if (!isa<BFloat16Type, Float16Type>(arg.getType()))
        continue;
      for (Operation *user : arg.getUsers())
        if (auto widen = dyn_cast<arith::ExtFOp>(user);
            widen && widen.getType().isF32())
          widen->setAttr(kWidensInput, UnitAttr::get(widen.getContext()));
    }
  });
}

/// Excess precision: a marked widening of a rounding of a computed f32
/// value (in one body, i.e. fused) is replaced by that value; the rounding goes
/// when nothing else (a yield: a stored result) reads it. Every mark is
/// removed.
static void useUnroundedValues(func::FuncOp func) {
  SmallVector<arith::ExtFOp> marked;
  func.walk([&](arith::ExtFOp widen) {
    if (widen->hasAttr(kWidensInput))
      marked.push_back(widen);
  });
  for (arith::ExtFOp widen : marked) {
    widen->removeAttr(kWidensInput);
    auto round = widen.getIn().getDefiningOp<arith::TruncFOp>();
    // A rounding of an input or a constant as it is (a cast op: autocast's
    // cast of an f32 value for a low op, an explicit cast; fusion folds a
    // splat operand into the body as a constant) is what the reader was
    // meant to see; only a computed result's rounding goes.
    if (!round || isa<BlockArgument>(round.getIn()) ||
        matchPattern(round.getIn(), m_Constant()) ||
        round.getIn().getType() != widen.getType() ||
        round->getBlock() != widen->getBlock())
      continue;
    widen.getResult().replaceAllUsesWith(round.getIn());
    widen->erase();
    if (round->use_empty())
      round->erase();
  }
}

struct FuseElementwisePass
    : public mpt::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;
  void runOnOperation() override {
    if (getOperation()
            .walk([](linalg::LinalgOp op) {
              return failed(verifyLoopSizesAgree(op)) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
            })
            .wasInterrupted())
      return signalPassFailure();
    if (excessPrecision)
      markInputWidenings(getOperation());
    RewritePatternSet patterns(&getContext());
    // Fuse a producer into its single reader here; a producer that other
    // ops read too goes to FuseIntoOnlyLinalgReader.
    linalg::ControlFusionFn onlyReader = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyReader);
    patterns.add<FuseIntoOnlyLinalgReader>(&getContext());
    // No region simplification (see mpt-decompose-aggregate-ops): merged
    // blocks are what one-shot-bufferize mishandles.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation().emitError()
          << "elementwise fusion did not converge (a bug in mpt: please "
             "report it with this step)";
      return signalPassFailure();
    }
    if (excessPrecision)
      useUnroundedValues(getOperation());
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](Block *block) { placeBeforeUsers(*block, rewriter); });
  }
};
} // namespace
