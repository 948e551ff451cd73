//===- LargeBlocks.h - mpt-run --fast-codegen-block -------------*- C++ -*-===//
//
// LLVM's code generation is superlinear in the size of a basic block: the
// post-RA list scheduler (on by the scheduling model of AMD Zen and other
// host CPUs) and SelectionDAG scheduling build dependence graphs over a
// whole block. On a large model the step's C wrapper (the step inlined into
// it) is such a block (EfficientNet-B0: 24000 instructions of descriptor
// loads, extracts and calls; before the inlining 14000 and 19000, 9 s of
// post-RA scheduling alone; docs/CompileTime.md). Its code runs once per
// step and does no arithmetic worth scheduling, so mpt-run generates it as
// at -O0 (fast instruction selection, no scheduling).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_LARGEBLOCKS_H
#define MPT_TOOLS_MPT_RUN_LARGEBLOCKS_H

namespace llvm {
class Module;
} // namespace llvm

namespace mpt {

/// The --fast-codegen-block limit (0: none).
unsigned getFastCodegenBlockLimit();

/// Marks `optnone` (and `noinline`, which optnone requires) every function
/// of `module` defined with a basic block of more than `limit` instructions,
/// so that the code generator selects it with FastISel and skips its
/// schedulers; run after the IR optimisation, so the function is still
/// optimised as IR. Does nothing for a `limit` of 0. Returns how many
/// functions it marked.
unsigned markLargeBlockFunctions(llvm::Module &module, unsigned limit);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_LARGEBLOCKS_H
