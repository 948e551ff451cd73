//===- LowerAllReduce.cpp - --mpt-lower-all-reduce ------------------------===//
//
// mpt.all_reduce (tensors) -> mpi.allreduce (buffers), still at tensor level:
// the input is viewed as a buffer (bufferization.to_buffer), the result is
// written into a fresh buffer and viewed as a tensor again
// (bufferization.to_tensor restrict). One-shot bufferization folds the
// casts away; the upstream MPIToLLVM conversion (convert-to-llvm) turns the
// mpi ops into calls into the MPI library. docs/Distributed.md says why the
// all-reduce stays an mpt op on tensors until here. With a wire type the
// all-reduce is a ring of 16-bit mpi.send / mpi.recv written out as loops on
// buffers between the same two casts (lowerRingAllReduce).
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_LOWERALLREDUCE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

/// One rank's part of a ring all-reduce whose messages carry `wire` (bf16 or
/// f16) values as i16 bits: a reduce-scatter, then an all-gather, each N-1
/// exchanges of one chunk (ceil(n/N) elements) with the neighbours, every
/// message 2 bytes an element. The sum is accumulated in f32 on arrival; what
/// a rank passes on is its partial sum rounded to the wire type. For mean
/// each contribution is divided by N first. The chunk's
/// last rank rounds the complete sum to the wire type and sends those bits
/// round the ring, so every rank ends with the same bits. MLIR 22 lowers
/// mpi.send / mpi.recv / mpi.comm_rank / mpi.allreduce to MPI calls, but not
/// mpi.comm_size, mpi.isend / irecv / wait: the exchanges are blocking, even
/// ranks send first and odd ranks receive first (no cycle of waiting sends
/// for any N >= 2), and the number of ranks comes from a 4-byte MPI_SUM of 1.
static Value lowerRingAllReduce(AllReduceOp op, Type wire) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t size = type.getNumElements();
  Type f32 = b.getF32Type(), i16 = b.getIntegerType(16), i32 = b.getI32Type();
  Type index = b.getIndexType();
  auto cIndex = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  auto cI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, i32, v);
  };
  // for iv in [lb, ub): body, built by `at` (the outer builder or a loop
  // body's).
  auto forEachAt = [&](OpBuilder &at, Location loc, Value lb, Value ub,
                       function_ref<void(OpBuilder &, Location, Value)> body) {
    scf::ForOp::create(at, loc, lb, ub, cIndex(1), ValueRange{},
                       [&](OpBuilder &nb, Location l, Value iv, ValueRange) {
                         body(nb, l, iv);
                         scf::YieldOp::create(nb, l);
                       });
  };
  auto forEach = [&](Value lb, Value ub,
                     function_ref<void(OpBuilder &, Location, Value)> body) {
    forEachAt(b, b.getLoc(), lb, ub, body);
  };
  auto toWire = [&](OpBuilder &nb, Location loc, Value x) -> Value {
    Value narrow = arith::TruncFOp::create(nb, loc, wire, x);
    return arith::BitcastOp::create(nb, loc, i16, narrow);
  };
  auto fromWire = [&](OpBuilder &nb, Location loc, Value bits) -> Value {
    Value narrow = arith::BitcastOp::create(nb, loc, wire, bits);
    return arith::ExtFOp::create(nb, loc, f32, narrow);
  };

  auto input = bufferization::ToBufferOp::create(
      b, MemRefType::get({size}, f32), op.getInput(), /*read_only=*/true);
  Value comm = mpi::CommWorldOp::create(b, mpi::CommType::get(b.getContext()));
  // The number of ranks: MPI_SUM of 1 (no lowering of mpi.comm_size).
  auto countType = MemRefType::get({1}, i32);
  Value oneBuffer = memref::AllocOp::create(b, countType);
  memref::StoreOp::create(b, cI32(1), oneBuffer, ValueRange{cIndex(0)});
  Value countBuffer = memref::AllocOp::create(b, countType);
  mpi::AllReduceOp::create(b, /*retval=*/Type(), oneBuffer, countBuffer,
                           mpi::MPI_ReductionOpEnum::MPI_SUM, comm);
  Value ranks32 =
      memref::LoadOp::create(b, countBuffer, ValueRange{cIndex(0)});
  Value rank32 =
      mpi::CommRankOp::create(b, /*retval=*/Type(), i32, comm).getRank();
  Value ranks = arith::IndexCastOp::create(b, index, ranks32);
  Value rank = arith::IndexCastOp::create(b, index, rank32);

  Value n = cIndex(size);
  Value zero = cIndex(0), one = cIndex(1);
  // chunk = ceil(n / N), padded = chunk * N.
  Value chunk = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, arith::AddIOp::create(b, n, ranks), one),
      ranks);
  Value padded = arith::MulIOp::create(b, chunk, ranks);
  auto dynamic = [&](Type element) {
    return MemRefType::get({ShapedType::kDynamic}, element);
  };
  Value acc = memref::AllocOp::create(b, dynamic(f32), ValueRange{padded});
  Value sendBits = memref::AllocOp::create(b, dynamic(i16), ValueRange{chunk});
  Value recvBits = memref::AllocOp::create(b, dynamic(i16), ValueRange{chunk});
  Value gathered =
      memref::AllocOp::create(b, dynamic(i16), ValueRange{padded});
  // mean: each contribution is divided by N before it travels (as PyTorch's
  // fp16_compress_hook does), so that the partial sums on the wire stay
  // within the range of the values, not N times it (f16: 65504).
  bool mean = op.getKind() == ReduceKind::Mean;
  Value ranksF = arith::SIToFPOp::create(b, f32, ranks32);
  forEach(zero, n, [&](OpBuilder &nb, Location loc, Value i) {
    Value x = memref::LoadOp::create(nb, loc, input, ValueRange{i});
    if (mean)
      x = arith::DivFOp::create(nb, loc, x, ranksF);
    memref::StoreOp::create(nb, loc, x, acc, ValueRange{i});
  });
  Value fzero = arith::ConstantOp::create(b, b.getFloatAttr(f32, 0.0));
  forEach(n, padded, [&](OpBuilder &nb, Location loc, Value i) {
    memref::StoreOp::create(nb, loc, fzero, acc, ValueRange{i});
  });

  // (rank + k) mod N for k >= 0, as index.
  auto ringIndex = [&](OpBuilder &nb, Location loc, Value k) -> Value {
    return arith::RemUIOp::create(nb, loc,
                                  arith::AddIOp::create(nb, loc, rank, k),
                                  ranks);
  };
  Value next32 = arith::IndexCastOp::create(b, i32, ringIndex(b, b.getLoc(), one));
  Value prev32 = arith::IndexCastOp::create(
      b, i32, ringIndex(b, b.getLoc(), arith::SubIOp::create(b, ranks, one)));
  Value even = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, rank, cIndex(2)), zero);
  Value tag = cI32(0x6d70); // "mp"
  auto exchange = [&](OpBuilder &nb, Location loc, Value send, Value receive) {
    auto sendOp = [&](OpBuilder &ib, Location l) {
      mpi::SendOp::create(ib, l, Type(), send, tag, next32, comm);
    };
    auto recvOp = [&](OpBuilder &ib, Location l) {
      mpi::RecvOp::create(ib, l, Type(), receive, tag, prev32, comm);
    };
    scf::IfOp::create(
        nb, loc, even,
        [&](OpBuilder &ib, Location l) {
          sendOp(ib, l);
          recvOp(ib, l);
          scf::YieldOp::create(ib, l);
        },
        [&](OpBuilder &ib, Location l) {
          recvOp(ib, l);
          sendOp(ib, l);
          scf::YieldOp::create(ib, l);
        });
  };
  auto chunkOf = [&](OpBuilder &nb, Location loc, Value buffer,
                     Value offset) -> Value {
    return memref::SubViewOp::create(nb, loc, buffer,
                                     ArrayRef<OpFoldResult>{offset},
                                     ArrayRef<OpFoldResult>{chunk},
                                     ArrayRef<OpFoldResult>{nb.getIndexAttr(1)});
  };
  Value steps = arith::SubIOp::create(b, ranks, one);
  // Reduce-scatter: at step t, send chunk (rank - t) (own values, then the
  // partial sum received at t - 1), receive chunk (rank - t - 1) and add.
  forEach(zero, steps, [&](OpBuilder &nb, Location loc, Value t) {
    Value sendChunk = ringIndex(nb, loc, arith::SubIOp::create(nb, loc, ranks, t));
    Value recvChunk = ringIndex(
        nb, loc,
        arith::SubIOp::create(
            nb, loc, arith::MulIOp::create(nb, loc, ranks, cIndex(2)),
            arith::AddIOp::create(nb, loc, t, one)));
    Value sendOffset = arith::MulIOp::create(nb, loc, sendChunk, chunk);
    Value recvOffset = arith::MulIOp::create(nb, loc, recvChunk, chunk);
    forEachAt(nb, loc, zero, chunk,
              [&](OpBuilder &ib, Location l, Value i) {
                Value x = memref::LoadOp::create(
                    ib, l, acc,
                    ValueRange{arith::AddIOp::create(ib, l, sendOffset, i)});
                memref::StoreOp::create(ib, l, toWire(ib, l, x), sendBits,
                                        ValueRange{i});
              });
    exchange(nb, loc, sendBits, recvBits);
    forEachAt(nb, loc, zero, chunk,
              [&](OpBuilder &ib, Location l, Value i) {
                Value at = arith::AddIOp::create(ib, l, recvOffset, i);
                Value mine =
                    memref::LoadOp::create(ib, l, acc, ValueRange{at});
                Value bits =
                    memref::LoadOp::create(ib, l, recvBits, ValueRange{i});
                Value sum =
                    arith::AddFOp::create(ib, l, fromWire(ib, l, bits), mine);
                memref::StoreOp::create(ib, l, sum, acc, ValueRange{at});
              });
  });
  // This rank now holds the complete sum of chunk (rank + 1): its wire bits
  // are the result every rank will see.
  Value ownOffset =
      arith::MulIOp::create(b, ringIndex(b, b.getLoc(), one), chunk);
  forEach(zero, chunk, [&](OpBuilder &nb, Location loc, Value i) {
    Value at = arith::AddIOp::create(nb, loc, ownOffset, i);
    Value x = memref::LoadOp::create(nb, loc, acc, ValueRange{at});
    memref::StoreOp::create(nb, loc, toWire(nb, loc, x), gathered,
                            ValueRange{at});
  });
  // All-gather: at step t, pass on chunk (rank + 1 - t), receive chunk
  // (rank - t) into its place.
  forEach(zero, steps, [&](OpBuilder &nb, Location loc, Value t) {
    Value sendChunk = ringIndex(
        nb, loc,
        arith::SubIOp::create(nb, loc, arith::AddIOp::create(nb, loc, ranks, one),
                              t));
    Value recvChunk =
        ringIndex(nb, loc, arith::SubIOp::create(nb, loc, ranks, t));
    exchange(nb, loc,
             chunkOf(nb, loc, gathered,
                     arith::MulIOp::create(nb, loc, sendChunk, chunk)),
             chunkOf(nb, loc, gathered,
                     arith::MulIOp::create(nb, loc, recvChunk, chunk)));
  });
  // The result, widened to f32.
  Value result = memref::AllocOp::create(b, MemRefType::get({size}, f32));
  forEach(zero, n, [&](OpBuilder &nb, Location loc, Value i) {
    Value bits = memref::LoadOp::create(nb, loc, gathered, ValueRange{i});
    memref::StoreOp::create(nb, loc, fromWire(nb, loc, bits), result,
                            ValueRange{i});
  });
  return bufferization::ToTensorOp::create(b, type, result, /*restrict=*/true,
                                           /*writable=*/true);
}

static void lowerAllReduce(AllReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  Type elementType = type.getElementType();
  int64_t size = type.getNumElements();
  Value input = op.getInput();
  if (std::optional<Type> wire = op.getWire()) {
    op.getResult().replaceAllUsesWith(lowerRingAllReduce(op, *wire));
    op.erase();
    return;
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

/// The point-to-point ops of the 16-bit ring, likewise: mpi.send reads its
/// buffer, mpi.recv writes it, and both also write an unnamed resource
/// (the other rank): a send whose only effect were the read would be
/// trivially dead, and the canonicalizer would erase it.
struct SendMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<SendMemoryEffects,
                                                    mpi::SendOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                      &effects) const {
    effects.emplace_back(MemoryEffects::Read::get(),
                         &cast<mpi::SendOp>(op).getRefMutable());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};
struct RecvMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<RecvMemoryEffects,
                                                    mpi::RecvOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                      &effects) const {
    effects.emplace_back(MemoryEffects::Write::get(),
                         &cast<mpi::RecvOp>(op).getRefMutable());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

struct LowerAllReducePass
    : public mpt::impl::LowerAllReduceBase<LowerAllReducePass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The 16-bit ring's loops.
    registry.insert<scf::SCFDialect>();
    registry.addExtension(+[](MLIRContext *context, mpi::MPIDialect *) {
      mpi::AllReduceOp::attachInterface<AllReduceMemoryEffects>(*context);
      mpi::SendOp::attachInterface<SendMemoryEffects>(*context);
      mpi::RecvOp::attachInterface<RecvMemoryEffects>(*context);
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
