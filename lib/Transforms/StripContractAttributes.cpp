//===- StripContractAttributes.cpp - --mpt-strip-contract-attributes ------===//
#include "mpt/IR/MPTDialect.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_STRIPCONTRACTATTRIBUTES
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
/// Drops the attributes in the mpt namespace from `attrs`.
static DictionaryAttr withoutContract(DictionaryAttr attrs) {
  if (!attrs)
    return attrs;
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute attr : attrs)
    if (!attr.getName().strref().starts_with("mpt."))
      kept.push_back(attr);
  return DictionaryAttr::get(attrs.getContext(), kept);
}

struct StripContractAttributesPass
    : public mpt::impl::StripContractAttributesBase<
          StripContractAttributesPass> {
  void runOnOperation() override {
    auto func = cast<FunctionOpInterface>(getOperation().getOperation());
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.setArgAttrs(i, withoutContract(func.getArgAttrDict(i)));
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      func.setResultAttrs(i, withoutContract(func.getResultAttrDict(i)));
    // Function-level marks (mpt.loss_scaling), and op marks
    // (mpt.recomputed).
    func->walk([](Operation *op) {
      for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
        if (attr.getName().strref().starts_with("mpt."))
          op->removeDiscardableAttr(attr.getName());
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
