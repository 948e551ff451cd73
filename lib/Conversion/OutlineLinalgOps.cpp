//===- OutlineLinalgOps.cpp - one private function per distinct linalg op -===//
//
// Each linalg op on buffers becomes a call of a private function holding
// it; identical ops share the function. Identity is the printed function
// (under one placeholder name), so the cost is one print per op: linear in
// the step.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"

namespace mpt {
#define GEN_PASS_DEF_OUTLINELINALGOPS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// `type` with a dynamic offset (strides and shape kept: LLVM sees constant
/// trip counts and strides), or `type` itself when it has no strided form.
Type withDynamicOffset(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!memref || failed(memref.getStridesAndOffset(strides, offset)))
    return type;
  return MemRefType::get(
      memref.getShape(), memref.getElementType(),
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides),
      memref.getMemorySpace());
}

/// "__mpt_linalg_conv_2d_nchw_fchw_3" for the fourth distinct convolution.
std::string functionName(Operation *op, unsigned index) {
  std::string name = "__mpt_" + op->getName().getStringRef().str();
  llvm::replace(name, '.', '_');
  return name + "_" + std::to_string(index);
}

struct OutlineLinalgOpsPass
    : mpt::impl::OutlineLinalgOpsBase<OutlineLinalgOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op->getNumResults() == 0)
        ops.push_back(op);
    });
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> byText;
    llvm::StringMap<unsigned> countByOp;
    for (linalg::LinalgOp op : ops) {
      // The values the function takes: operands, then values its regions
      // use from above; constants are cloned into it instead.
      llvm::SetVector<Value> used(op->getOperands().begin(),
                                  op->getOperands().end());
      getUsedValuesDefinedAbove(op->getRegions(), used);
      SmallVector<Value> arguments;
      SmallVector<Operation *> constants;
      for (Value v : used) {
        Operation *def = v.getDefiningOp();
        if (def && def->getNumResults() == 1 && matchPattern(v, m_Constant()))
          constants.push_back(def);
        else
          arguments.push_back(v);
      }
      SmallVector<Type> argTypes;
      for (Value v : arguments)
        argTypes.push_back(withDynamicOffset(v.getType()));

      OpBuilder b(&getContext());
      auto fn = func::FuncOp::create(
          op.getLoc(), "__mpt_outlined",
          b.getFunctionType(argTypes, /*results=*/{}));
      Block *entry = fn.addEntryBlock();
      b.setInsertionPointToStart(entry);
      IRMapping mapping;
      for (auto [v, arg] : llvm::zip_equal(arguments, entry->getArguments()))
        mapping.map(v, arg);
      for (Operation *constant : constants)
        b.clone(*constant, mapping);
      b.clone(*op, mapping);
      func::ReturnOp::create(b, op.getLoc());

      std::string text;
      llvm::raw_string_ostream os(text);
      fn->print(os, OpPrintingFlags().printGenericOpForm());
      auto [it, inserted] = byText.try_emplace(text, fn);
      if (inserted) {
        unsigned &count = countByOp[op->getName().getStringRef()];
        fn.setSymName(functionName(op, count++));
        fn.setPrivate();
        // Called once, LLVM would inline it back into the step. (The
        // LLVM dialect's `no_inline` does not survive func-to-llvm in
        // MLIR 22; `passthrough` does.)
        fn->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
        symbols.insert(fn);
      } else {
        fn.erase();
        fn = it->second;
      }

      b.setInsertionPoint(op);
      SmallVector<Value> callArgs;
      for (auto [v, type] : llvm::zip_equal(arguments, argTypes))
        callArgs.push_back(v.getType() == type
                               ? v
                               : memref::CastOp::create(b, op.getLoc(), type, v)
                                     .getResult());
      func::CallOp::create(b, op.getLoc(), fn, callArgs);
      op->erase();
    }
  }
};

} // namespace
