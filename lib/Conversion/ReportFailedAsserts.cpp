//===- ReportFailedAsserts.cpp - cf.assert to a host call on failure ------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

namespace mpt {
#define GEN_PASS_DEF_REPORTFAILEDASSERTS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct ReportFailedAssertsPass
    : mpt::impl::ReportFailedAssertsBase<ReportFailedAssertsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    if (handler.empty()) {
      asserts.front().emitError(
          "mpt-report-failed-asserts needs handler=NAME (the host function "
          "that reports a failed cf.assert)");
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    SymbolTable symbols(module);
    auto messageType = MemRefType::get({ShapedType::kDynamic},
                                       IntegerType::get(context, 8));
    auto handlerType = FunctionType::get(context, {messageType}, {});
    if (Operation *existing = symbols.lookup(handler)) {
      auto func = dyn_cast<func::FuncOp>(existing);
      if (!func || func.getFunctionType() != handlerType) {
        existing->emitError() << "'" << handler
                              << "' is the failed-assert handler's name; it "
                                 "must be a function of type "
                              << handlerType;
        return signalPassFailure();
      }
    } else {
      OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
      auto decl = func::FuncOp::create(builder, module.getLoc(), handler,
                                       handlerType);
      decl.setPrivate();
      symbols.insert(decl);
    }

    OpBuilder builder(context);
    for (cf::AssertOp op : asserts) {
      // The message with its location, NUL-terminated for the host.
      std::string text = (op.getMsg() + " (" +
                          mpt::formatLocation(op.getLoc()) + ")")
                             .str();
      SmallVector<int8_t> bytes(text.begin(), text.end());
      bytes.push_back(0);
      auto globalType =
          MemRefType::get({static_cast<int64_t>(bytes.size())},
                          builder.getI8Type());
      builder.setInsertionPointToEnd(module.getBody());
      auto global = memref::GlobalOp::create(
          builder, op.getLoc(), "__mpt_assert_message",
          builder.getStringAttr("private"), globalType,
          DenseElementsAttr::get(RankedTensorType::get(globalType.getShape(),
                                                       builder.getI8Type()),
                                 ArrayRef<int8_t>(bytes)),
          /*constant=*/true, /*alignment=*/nullptr);
      symbols.insert(global); // renamed __mpt_assert_message_N if taken

      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value isTrue = arith::ConstantOp::create(builder, loc,
                                               builder.getBoolAttr(true));
      Value failed = arith::XOrIOp::create(builder, loc, op.getArg(), isTrue);
      auto ifOp = scf::IfOp::create(builder, loc, failed,
                                    /*withElseRegion=*/false);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      Value message = memref::GetGlobalOp::create(builder, loc, globalType,
                                                  global.getSymName());
      Value dynamic = memref::CastOp::create(builder, loc, messageType,
                                             message);
      func::CallOp::create(builder, loc, handler, TypeRange(),
                           ValueRange{dynamic});
      op.erase();
    }
  }
};
} // namespace
