//===- ChunkFrames.h - the quick code's chunk calls through memory -*- C++
//-*-===//
//
// --mpt-outline-chunks cuts a large step into functions ("chunks") that take
// the values they use as arguments (every field of every memref descriptor:
// hundreds of scalars) and return the values used later as one struct of
// descriptors. LLVM's fast instruction selector (FastISel, the quick code's
// -O0) handles neither such calls, nor such returns, nor the insertvalue
// chains that build them, nor the store of the step's result struct: it
// hands each to SelectionDAG, whose cost grows with the operands (on
// MobileNetV3-small the step's C wrapper and its 60 chunks were 1.45 s of
// the quick code's 1.9 s of code generation; docs/CompileTime.md).
//
// Here a chunk instead takes two pointers, to a frame of its arguments and
// one of its results, each a struct of scalars in the caller's stack: the
// caller stores the arguments and loads each result field where it is used,
// the chunk loads its arguments and stores its results. Loads and stores of
// scalars are what FastISel selects fastest. The values are the same, so
// are the results, bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_CHUNKFRAMES_H
#define MPT_TOOLS_MPT_RUN_CHUNKFRAMES_H

namespace llvm {
class Module;
} // namespace llvm

namespace mpt {

/// Rewrites every chunk of `module` (functions with the "mpt-chunk"
/// attribute, internal, called once) to pass its arguments and results
/// through frames, and every store of a struct value into stores of its
/// scalar fields. Run on the quick code after inlining (the chunks' caller
/// is then the step's C wrapper). Returns how many chunks it rewrote.
unsigned passChunkValuesThroughFrames(llvm::Module &module);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_CHUNKFRAMES_H
