//===- WidenFp8Operands.cpp - FP8 contraction operands to bf16 ------------===//
//
// The CPU has no FP8 arithmetic: a contraction's body would expand each
// FP8 element's extension to f32 (integer arithmetic, --mpt-expand-fp8-casts)
// once per multiply-add, M*N*K times. Every E4M3 and E5M2 value is a bf16
// value, so extending the operands to bf16 first, once per element, gives
// the same products and sums, and the contraction becomes a bf16 one that
// the CPU kernels (AMX) run.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_WIDENFP8OPERANDS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
bool isFp8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

struct WidenFp8OperandsPass
    : mpt::impl::WidenFp8OperandsBase<WidenFp8OperandsPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    Type bf16 = builder.getBF16Type();
    getOperation().walk([&](linalg::LinalgOp op) {
      // Contractions and convolutions: elementwise ops read each element
      // once anyway.
      if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0)
        return;
      for (OpOperand *input : op.getDpsInputOperands()) {
        auto type = dyn_cast<RankedTensorType>(input->get().getType());
        if (!type || !isFp8(type.getElementType()))
          continue;
        // The body must only extend the element (what FP8 autocast and
        // MLIR's named-op region builders produce).
        BlockArgument arg = op.getMatchingBlockArgument(input);
        if (!llvm::all_of(arg.getUsers(),
                          [](Operation *user) { return isa<arith::ExtFOp>(user); }))
          continue;
        builder.setInsertionPoint(op);
        Location loc = op.getLoc();
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(builder, loc, input->get());
        Value empty = tensor::EmptyOp::create(builder, loc, sizes, bf16);
        int64_t rank = type.getRank();
        AffineMap identity = builder.getMultiDimIdentityMap(rank);
        Value widened =
            linalg::GenericOp::create(
                builder, loc, TypeRange{empty.getType()},
                ValueRange{input->get()}, ValueRange{empty},
                ArrayRef<AffineMap>{identity, identity},
                SmallVector<utils::IteratorType>(
                    rank, utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange args) {
                  linalg::YieldOp::create(
                      b, l,
                      ValueRange{arith::ExtFOp::create(b, l, bf16, args[0])});
                })
                .getResult(0);
        input->set(widened);
        arg.setType(bf16);
      }
    });
  }
};
} // namespace
