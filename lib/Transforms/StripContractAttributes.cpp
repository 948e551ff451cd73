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
    // All at once: setting one argument's attributes rebuilds the list of
    // all of them, which per argument is quadratic in the arguments.
    auto strip = [&](unsigned count, auto getDict) {
      SmallVector<DictionaryAttr> dicts;
      for (unsigned i = 0; i < count; ++i) {
        DictionaryAttr dict = withoutContract(getDict(i));
        dicts.push_back(dict ? dict : DictionaryAttr::get(&getContext()));
      }
      return dicts;
    };
    func.setAllArgAttrs(strip(func.getNumArguments(), [&](unsigned i) {
      return func.getArgAttrDict(i);
    }));
    func.setAllResultAttrs(strip(func.getNumResults(), [&](unsigned i) {
      return func.getResultAttrDict(i);
    }));
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
