//===- InitAll.h - register mpt's dialect and passes ----------*- C++ -*-===//
//
// The entry points an ML compiler calls to embed mpt:
//   mlir::DialectRegistry registry;
//   mpt::registerAllDialects(registry);   // the mpt dialect
//   mpt::registerAllPasses();             // passes and pipelines, for
//                                         // textual pipelines / mlir-opt
// Passes can also be created directly (mpt::createAutocast(...)).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_INITALL_H
#define MPT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {
/// Registers the mpt dialect.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers every mpt pass and pipeline with the global pass registry.
void registerAllPasses();
/// Prints mpt's pipelines and every registered pass with their options to
/// stdout (mpt-opt --mpt-help, where only mpt's passes are registered).
void printPipelinesAndPasses();
} // namespace mpt

#endif // MPT_INITALL_H
