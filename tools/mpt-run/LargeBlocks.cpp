//===- LargeBlocks.cpp - mpt-run --fast-codegen-block ---------------------===//
#include "LargeBlocks.h"
#include "Options.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<unsigned> fastCodegenBlock(
    "fast-codegen-block",
    cl::desc("Generate the code of a function with a basic block of more "
             "than this many LLVM instructions as at -O0 (the step and its "
             "C wrapper on a large model; 0: none). Changes compile time "
             "only, not results"),
    cl::init(2048), cl::cat(mpt::getRunCategory()));

unsigned mpt::getFastCodegenBlockLimit() { return fastCodegenBlock; }

unsigned mpt::markLargeBlockFunctions(Module &module, unsigned limit) {
  if (limit == 0)
    return 0;
  unsigned marked = 0;
  for (Function &function : module) {
    if (function.isDeclaration() || function.hasOptNone())
      continue;
    for (BasicBlock &block : function) {
      if (block.size() <= limit)
        continue;
      function.removeFnAttr(Attribute::AlwaysInline);
      function.addFnAttr(Attribute::NoInline);
      function.addFnAttr(Attribute::OptimizeNone);
      ++marked;
      break;
    }
  }
  return marked;
}
