//===- LowerAllReduce.cpp - --mpt-lower-all-reduce ------------------------===//
//
// mpt.all_reduce (tensors) -> mpi.allreduce (buffers), still at tensor level:
// the input is viewed as a buffer (bufferization.to_buffer), the result is
// written into a fresh buffer and viewed as a tensor again
// (bufferization.to_tensor restrict). One-shot bufferization folds the
// casts away; the upstream MPIToLLVM conversion (convert-to-llvm) turns the
// mpi ops into calls into the MPI library. docs/Distributed.md says why the
// all-reduce stays an mpt op on tensors until here.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/Passes.h"
#include "mpt/IR/MPTOps.h"

#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_LOWERALLREDUCE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

static void lowerAllReduce(AllReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  Type elementType = type.getElementType();
  int64_t size = type.getNumElements();
  Value input = op.getInput();
  if (std::optional<Type> wire = op.getWire()) {
    // The numerics of a compressed wire: each contribution rounded.
    auto narrow = arith::TruncFOp::create(b, loc, type.clone(*wire), input);
    input = arith::ExtFOp::create(b, loc, type, narrow.getResult());
  }
  // mean: one more element, 1 on every rank, sums to the number of ranks
  // (exactly) in the same all-reduce (MLIR 22 has no lowering of
  // mpi.comm_size to LLVM).
  bool mean = op.getKind() == ReduceKind::Mean;
  auto wireType = type;
  if (mean) {
    wireType = RankedTensorType::get({size + 1}, elementType);
    Value one = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({1}, elementType),
                               b.getFloatAttr(elementType, 1.0)));
    input = tensor::ConcatOp::create(b, loc, /*dim=*/int64_t(0),
                                     ValueRange{input, one});
  }
  auto bufferType = MemRefType::get(wireType.getShape(), elementType);
  auto send = bufferization::ToBufferOp::create(b, loc, bufferType, input,
                                                /*read_only=*/true);
  auto receive = memref::AllocOp::create(b, loc, bufferType);
  Value comm =
      mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  mpi::MPI_ReductionOpEnum mpiOp = op.getKind() == ReduceKind::Max
                                       ? mpi::MPI_ReductionOpEnum::MPI_MAX
                                       : mpi::MPI_ReductionOpEnum::MPI_SUM;
  mpi::AllReduceOp::create(b, loc, /*retval=*/Type(), send.getResult(),
                           receive.getResult(), mpiOp, comm);
  Value result = bufferization::ToTensorOp::create(
      b, loc, wireType, receive.getResult(), /*restrict=*/true,
      /*writable=*/true);
  if (mean) {
    // The sum divided by the number of ranks, in the element type: exact
    // for a power of two ranks, and the identity on one rank.
    Value last = arith::ConstantIndexOp::create(b, loc, size);
    Value ranks = tensor::ExtractOp::create(b, loc, result, ValueRange{last});
    Value sum = tensor::ExtractSliceOp::create(
        b, loc, type, result, ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    Value splat = tensor::SplatOp::create(b, loc, ranks, type);
    result = arith::DivFOp::create(b, loc, sum, splat);
  }
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

namespace {
/// mpi.allreduce declares no memory effects, and the ownership-based buffer
/// deallocation rejects an op with buffer operands and unknown effects. Its
/// effects are those of MPI_Allreduce: it reads the send buffer and writes
/// the receive buffer.
struct AllReduceMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceMemoryEffects,
                                                    mpi::AllReduceOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                      &effects) const {
    auto allReduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allReduce.getSendbufMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allReduce.getRecvbufMutable());
  }
};

struct LowerAllReducePass
    : public mpt::impl::LowerAllReduceBase<LowerAllReducePass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.addExtension(+[](MLIRContext *context, mpi::MPIDialect *) {
      mpi::AllReduceOp::attachInterface<AllReduceMemoryEffects>(*context);
    });
    // convert-to-llvm finds the mpi ops' lowering through this interface.
    mpi::registerConvertMPIToLLVMInterface(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AllReduceOp> ops;
    module.walk([&](AllReduceOp op) { ops.push_back(op); });
    if (ops.empty())
      return markAllAnalysesPreserved();
    for (AllReduceOp op : ops)
      lowerAllReduce(op);
    // MPIToLLVM asks the module's DLTI which MPI's ABI to call (and reports
    // an error when it is not said). MPICH, unless the module says
    // otherwise.
    if (!module->hasAttr(DLTIDialect::kMapAttrName)) {
      MLIRContext *context = &getContext();
      auto entry = DataLayoutEntryAttr::get(
          StringAttr::get(context, "MPI:Implementation"),
          StringAttr::get(context, "MPICH"));
      module->setAttr(DLTIDialect::kMapAttrName,
                      MapAttr::get(context, {entry}));
    }
  }
};
} // namespace
