//===- MergeAccumulatedMatmuls.cpp - --mpt-merge-accumulated-matmuls ------===//
//
// A weight that a step uses many times (an RNN's recurrent weight at every
// time step, a tied embedding, a layer applied twice) gets its gradient as
// a sum of products, one per use: sum_i A_i B_i, each a matmul of small K
// (an LSTM's batch) into a fresh M x N result that an add then reads. As
// one matmul of the operands concatenated along K, [A_1 .. A_n] [B_1; ..;
// B_n], the kernel keeps the sums in registers over the whole K instead of
// writing, reading and adding n weight-sized partial products.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

namespace mpt {
#define GEN_PASS_DEF_MERGEACCUMULATEDMATMULS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// `value` with at most one arith.extf (of `op`'s body) looked through.
static Value skipExtF(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return value;
}

/// Whether `op` is elementwise on tensors with `numInputs` inputs and one
/// output, all read and written at the loop indices.
static bool isIdentityElementwise(linalg::GenericOp op, unsigned numInputs) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == numInputs &&
         op.getNumDpsInits() == 1 && op.getNumReductionLoops() == 0 &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// Whether `op` adds its two inputs elementwise: identity maps, parallel
/// loops, inputs and output of one type, a body that yields in0 + in1,
/// computed in a wider type and rounded back where the type is narrower
/// (autocast's bf16 adds), and does not read its init.
static bool isElementwiseAdd(linalg::GenericOp op) {
  if (!isIdentityElementwise(op, /*numInputs=*/2))
    return false;
  Type type = op.getResult(0).getType();
  if (op.getInputs()[0].getType() != type ||
      op.getInputs()[1].getType() != type ||
      op.getInputs()[0] == op.getInputs()[1])
    return false;
  Block &body = op.getRegion().front();
  if (!body.getArgument(2).use_empty())
    return false;
  Value yielded = body.getTerminator()->getOperand(0);
  if (auto trunc = yielded.getDefiningOp<arith::TruncFOp>())
    yielded = trunc.getIn();
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value lhs = skipExtF(add.getLhs()), rhs = skipExtF(add.getRhs());
  Value in0 = body.getArgument(0), in1 = body.getArgument(1);
  return (lhs == in0 && rhs == in1) || (lhs == in1 && rhs == in0);
}

/// Whether `op` only rounds its one input to its output's element type.
static bool isElementwiseTrunc(linalg::GenericOp op) {
  if (!isIdentityElementwise(op, /*numInputs=*/1))
    return false;
  Block &body = op.getRegion().front();
  auto trunc =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::TruncFOp>();
  return trunc && trunc.getIn() == body.getArgument(0);
}

/// A term of a sum that can be merged: `matmul` (default maps, into a zero
/// fill, f32), read by the sum only, through `trunc` where the sum is in a
/// narrower type.
struct MatmulTerm {
  linalg::MatmulOp matmul;
  linalg::GenericOp trunc; // null when the sum is in f32
  int64_t k;
};

/// `value` as a mergeable term of a sum in `block`, if it is one.
static std::optional<MatmulTerm> getMatmulTerm(Value value, Block *block) {
  if (!value.hasOneUse())
    return std::nullopt;
  MatmulTerm term{nullptr, nullptr, 0};
  if (auto trunc = value.getDefiningOp<linalg::GenericOp>()) {
    if (!isElementwiseTrunc(trunc) || trunc->getBlock() != block)
      return std::nullopt;
    term.trunc = trunc;
    value = trunc.getInputs()[0];
    if (!value.hasOneUse())
      return std::nullopt;
  }
  auto matmul = value.getDefiningOp<linalg::MatmulOp>();
  if (!matmul || matmul->getBlock() != block || matmul.hasUserDefinedMaps() ||
      !matmul.hasPureTensorSemantics())
    return std::nullopt;
  auto fill = matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return std::nullopt;
  auto a = dyn_cast<RankedTensorType>(matmul.getInputs()[0].getType());
  auto c = dyn_cast<RankedTensorType>(matmul.getResult(0).getType());
  if (!a || !c || !a.hasStaticShape() || !c.hasStaticShape() ||
      !c.getElementType().isF32())
    return std::nullopt;
  term.matmul = matmul;
  term.k = a.getDimSize(1);
  return term;
}

struct MergeAccumulatedMatmulsPass
    : mpt::impl::MergeAccumulatedMatmulsBase<MergeAccumulatedMatmulsPass> {
  void runOnOperation() override;
};

} // namespace

void MergeAccumulatedMatmulsPass::runOnOperation() {
  // Each add once (linear in the function): whether it is an elementwise
  // add, and whether it is inside a sum (its only reader is such an add).
  DenseMap<Operation *, bool> isAdd;
  auto cachedIsAdd = [&](Operation *op) {
    auto [it, inserted] = isAdd.try_emplace(op, false);
    if (inserted)
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        it->second = isElementwiseAdd(generic);
    return it->second;
  };
  auto isInner = [&](Operation *op) {
    if (!op->hasOneUse())
      return false;
    Operation *user = *op->getUsers().begin();
    return user->getBlock() == op->getBlock() && cachedIsAdd(user);
  };
  SmallVector<linalg::GenericOp> roots;
  getOperation().walk([&](linalg::GenericOp op) {
    if (cachedIsAdd(op) && !isInner(op))
      roots.push_back(op);
  });

  for (linalg::GenericOp root : roots) {
    // The sum's terms in order (depth first, left to right) and its adds.
    SmallVector<Value> terms;
    SmallVector<Operation *> adds;
    SmallVector<Value> stack = {root.getInputs()[1], root.getInputs()[0]};
    adds.push_back(root);
    while (!stack.empty()) {
      Value value = stack.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (def && def != root && def->getBlock() == root->getBlock() &&
          cachedIsAdd(def) && isInner(def)) {
        adds.push_back(def);
        auto add = cast<linalg::GenericOp>(def);
        stack.push_back(add.getInputs()[1]);
        stack.push_back(add.getInputs()[0]);
        continue;
      }
      terms.push_back(value);
    }
    auto resultType = cast<RankedTensorType>(root.getResult(0).getType());
    if (resultType.getRank() != 2 || !resultType.hasStaticShape())
      continue;
    int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
    // Groups of matmul terms with the same operand types. A term joins
    // only if its operands are smaller than its product (K (M + N) <= M N:
    // with a larger K the kernel already amortises C), and a group only
    // while its operands, which stay live until the merged matmul, total
    // at most two products.
    struct Group {
      SmallVector<MatmulTerm> terms;
      int64_t elements = 0;
    };
    SmallVector<Group> groups;
    // The group that terms of these operand types join (linear in the terms).
    DenseMap<std::pair<Type, Type>, size_t> openGroup;
    SmallVector<Value> others;
    for (Value value : terms) {
      std::optional<MatmulTerm> term = getMatmulTerm(value, root->getBlock());
      if (!term || term->k * (m + n) > m * n) {
        others.push_back(value);
        continue;
      }
      std::pair<Type, Type> types(
          getElementTypeOrSelf(term->matmul.getInputs()[0]),
          getElementTypeOrSelf(term->matmul.getInputs()[1]));
      int64_t elements = term->k * (m + n);
      auto [it, inserted] = openGroup.try_emplace(types, groups.size());
      if (inserted || groups[it->second].elements + elements > 2 * m * n) {
        it->second = groups.size();
        groups.emplace_back();
      }
      Group &group = groups[it->second];
      group.terms.push_back(*term);
      group.elements += elements;
    }
    if (llvm::none_of(groups,
                      [](const Group &g) { return g.terms.size() > 1; }))
      continue;

    OpBuilder builder(root);
    SmallVector<Value> summands;
    SmallVector<Operation *> merged;
    for (Group &group : groups) {
      MatmulTerm first = group.terms.front();
      if (group.terms.size() == 1) {
        summands.push_back(first.trunc ? first.trunc.getResult(0)
                                       : first.matmul.getResult(0));
        continue;
      }
      // The first product's location, which the kernel report names.
      Location loc = first.matmul.getLoc();
      SmallVector<Value> as, bs;
      for (MatmulTerm term : group.terms) {
        as.push_back(term.matmul.getInputs()[0]);
        bs.push_back(term.matmul.getInputs()[1]);
        if (term.trunc)
          merged.push_back(term.trunc);
        merged.push_back(term.matmul);
      }
      Value a = tensor::ConcatOp::create(builder, loc, /*dim=*/1, as);
      Value b = tensor::ConcatOp::create(builder, loc, /*dim=*/0, bs);
      Value product =
          linalg::MatmulOp::create(builder, loc, ValueRange{a, b},
                                   ValueRange{first.matmul.getOutputs()[0]})
              .getResult(0);
      if (first.trunc) {
        IRMapping mapping;
        mapping.map(first.trunc.getInputs()[0], product);
        product = builder.clone(*first.trunc, mapping)->getResult(0);
      }
      summands.push_back(product);
    }
    summands.append(others);
    // The rest of the sum with the root's add, left to right.
    Value sum = summands.front();
    for (Value summand : ArrayRef(summands).drop_front()) {
      IRMapping mapping;
      mapping.map(root.getInputs()[0], sum);
      mapping.map(root.getInputs()[1], summand);
      sum = builder.clone(*root, mapping)->getResult(0);
    }
    root.getResult(0).replaceAllUsesWith(sum);
    // Readers first: each add's only reader is an add erased before it.
    for (Operation *op : adds)
      op->erase();
    for (Operation *op : merged) {
      Value init = isa<linalg::MatmulOp>(op) ? op->getOperand(2) : Value();
      op->erase();
      if (auto fill = init ? init.getDefiningOp<linalg::FillOp>() : nullptr)
        if (fill->use_empty())
          fill->erase();
    }
  }
}
