//===- PartitionedCodegen.h - the step's code on threads --------*- C++ -*-===//
//
// LLVM generates the code of one module on one thread. After the IR is
// optimised (the whole module, as MLIR's ExecutionEngine would), mpt-run
// cuts the module into partitions of whole functions, balanced by their
// size, and generates each partition's object on a thread of its own
// (--compile-threads): the IR of each function is the one-module IR, and its
// code is generated alone in both cases, so the machine code of every
// function, and the step's results, are the same bit for bit.
//
// A partition is a copy of the module that defines its own functions and
// declares the others; internal functions and globals another partition
// refers to become hidden external symbols (as llvm::SplitModule does), and
// the loader links the objects together (LoadedObject in ObjectCache.h). Each
// partition but the first goes through bitcode into an LLVMContext of its
// own, since one context is not safe to use from two threads (what LLVM's
// LTO does).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_PARTITIONEDCODEGEN_H
#define MPT_TOOLS_MPT_RUN_PARTITIONEDCODEGEN_H

#include "ObjectCache.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace mpt {

/// How long generateObjectsInPartitions took (mpt-run --timing).
struct PartitionTiming {
  /// Wall seconds, copying the partitions included.
  double wallSeconds = 0;
  /// CPU seconds of each partition's thread (reading its bitcode and
  /// generating its code; the first: generating its code).
  llvm::SmallVector<double> cpuSeconds;
};

/// Generates the objects of `module` (optimised, with its target triple and
/// data layout set) in `partitions` partitions, each on a thread, with
/// target machines `machine` creates. `module` is consumed: its locals
/// become hidden globals (with several partitions) and it becomes the first
/// partition (the others' function bodies deleted). Partitions without a
/// function are left out, so fewer objects may come back.
llvm::Expected<ObjectList>
generateObjectsInPartitions(llvm::Module &module,
                            const llvm::orc::JITTargetMachineBuilder &machine,
                            unsigned partitions,
                            PartitionTiming *timing = nullptr);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_PARTITIONEDCODEGEN_H
