//===- EstimateWork.cpp - each function's estimated work, for the JIT ----===//
//
// A static profile: ops times constant trip counts, functions times their
// callers' calls. mpt-run's quick code optimises the functions it ranks
// first (tools/mpt-run/CompileStep.cpp, docs/CompileTime.md).
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace mpt {
#define GEN_PASS_DEF_ESTIMATEWORK
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The iterations of `op` if it is a loop of constant bounds and step, else
/// 1 (unknown bounds counted as one iteration).
uint64_t constantTripCount(Operation *op) {
  auto tripCount = [](Value lower, Value upper, Value step) -> uint64_t {
    APInt lo, hi, st;
    if (!matchPattern(lower, m_ConstantInt(&lo)) ||
        !matchPattern(upper, m_ConstantInt(&hi)) ||
        !matchPattern(step, m_ConstantInt(&st)) || st.getSExtValue() <= 0 ||
        hi.getSExtValue() <= lo.getSExtValue())
      return 1;
    return uint64_t(
        llvm::divideCeil(hi.getSExtValue() - lo.getSExtValue(),
                         st.getSExtValue()));
  };
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return tripCount(loop.getLowerBound(), loop.getUpperBound(),
                     loop.getStep());
  if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
    uint64_t trips = 1;
    for (auto [lower, upper, step] :
         llvm::zip_equal(loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep()))
      trips = llvm::SaturatingMultiply(trips, tripCount(lower, upper, step));
    return trips;
  }
  return 1;
}

struct FunctionWork {
  uint64_t own = 0;       // ops executed per call, callees not included
  uint64_t calls = 0;     // calls per run of the entry functions
  bool callsKnown = false;
  // Callers: (caller, calls per run of the caller).
  SmallVector<std::pair<FunctionOpInterface, uint64_t>> callers;
};

struct EstimateWorkPass : mpt::impl::EstimateWorkBase<EstimateWorkPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<Operation *, FunctionWork> work;
    SymbolTable symbols(module);
    SmallVector<FunctionOpInterface> functions;
    for (auto function : module.getOps<FunctionOpInterface>())
      if (!function.isExternal()) {
        functions.push_back(function);
        work[function.getOperation()];
      }
    // Each function's own ops, and its call sites weighted by their loops.
    for (FunctionOpInterface function : functions) {
      uint64_t &own = work[function.getOperation()].own;
      // Multiplicities of the ops of each block, from the loops around it.
      llvm::DenseMap<Region *, uint64_t> regionTimes;
      function->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op == function.getOperation())
          return;
        uint64_t times = 1;
        if (Operation *parent = op->getParentOp();
            parent && parent != function.getOperation())
          times = regionTimes.lookup(op->getParentRegion());
        for (Region &region : op->getRegions())
          regionTimes[&region] =
              llvm::SaturatingMultiply(times, constantTripCount(op));
        if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumRegions())
          return;
        own = llvm::SaturatingAdd(own, times);
        auto call = dyn_cast<CallOpInterface>(op);
        auto callee = call ? dyn_cast_if_present<SymbolRefAttr>(
                                 call.getCallableForCallee())
                           : SymbolRefAttr();
        if (!callee)
          return;
        Operation *target = symbols.lookup(callee.getRootReference());
        auto found = work.find(target);
        if (found != work.end())
          found->second.callers.emplace_back(function, times);
      });
    }
    // Calls per run: the entry functions (no callers) run once; a callee
    // as often as its call sites run. Memoized; a cycle counts once.
    std::function<uint64_t(FunctionOpInterface)> callsOf =
        [&](FunctionOpInterface function) -> uint64_t {
      FunctionWork &entry = work[function.getOperation()];
      if (entry.callsKnown)
        return entry.calls;
      entry.callsKnown = true;
      // (No entries are added here: `entry` stays valid.)
      entry.calls = entry.callers.empty() ? 1 : 0;
      for (auto [caller, times] : entry.callers)
        entry.calls = llvm::SaturatingAdd(
            entry.calls, llvm::SaturatingMultiply(times, callsOf(caller)));
      return entry.calls;
    };
    Builder builder(&getContext());
    for (FunctionOpInterface function : functions) {
      uint64_t total =
          llvm::SaturatingMultiply(work[function.getOperation()].own, callsOf(function));
      SmallVector<Attribute> passthrough;
      if (auto existing =
              function->getAttrOfType<ArrayAttr>("passthrough"))
        for (Attribute attr : existing) {
          auto pair = dyn_cast<ArrayAttr>(attr);
          if (pair && pair.size() == 2 &&
              pair[0] == builder.getStringAttr("mpt-work"))
            continue;
          passthrough.push_back(attr);
        }
      passthrough.push_back(
          builder.getStrArrayAttr({"mpt-work", std::to_string(total)}));
      function->setAttr("passthrough", builder.getArrayAttr(passthrough));
    }
  }
};

} // namespace
