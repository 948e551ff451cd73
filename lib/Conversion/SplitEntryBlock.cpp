//===- SplitEntryBlock.cpp - a function's body out of its entry block -----===//
#include "mpt/Conversion/CPUPasses.h"

namespace mpt {
#define GEN_PASS_DEF_SPLITENTRYBLOCK
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct SplitEntryBlockPass
    : mpt::impl::SplitEntryBlockBase<SplitEntryBlockPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.front();
    Block *body = entry.splitBlock(entry.begin());
    OpBuilder b = OpBuilder::atBlockEnd(&entry);
    cf::BranchOp::create(b, func.getLoc(), body);
  }
};
} // namespace
