//===- TrainingGraph.cpp - what is forward, backward, update --------------===//
//
// The classification works on a value-level dependence graph of the step.
// Ops with regions are either "transparent" (scf.for / scf.if / scf.while /
// scf.execute_region, any op whose RegionBranchOpInterface says where every
// value comes from: values flow through their iter_args, yields and results
// (RegionFlow.h), so the ops nested in them are classified one by one) or
// "opaque" (linalg.generic, scf.forall and the like: each result depends on
// every operand and on every value the body uses from above; the body shares
// its op's region).
//
// With S = values depending on the seed, G = values reaching an
// mpt.gradient, D = values depending on an mpt.gradient result, L = values
// reaching the loss:
//   forward  = L
//   backward = (S and G), plus values outside L and D that only serve those
//   update   = D, plus values outside L and backward that reach an
//              `mpt.updates` result
//   unused   = everything else.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Analysis/RegionFlow.h"
#include "mpt/IR/MPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mpt;

StringRef mpt::stringifyTrainingRegion(TrainingRegion region) {
  switch (region) {
  case TrainingRegion::Forward:
    return "forward";
  case TrainingRegion::Backward:
    return "backward";
  case TrainingRegion::Update:
    return "update";
  case TrainingRegion::Unused:
    return "unused";
  }
  llvm_unreachable("unknown region");
}

void ByteCounts::add(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  Type elementType = shaped ? shaped.getElementType() : type;
  if (shaped && !shaped.hasStaticShape()) {
    ++numDynamic;
    return;
  }
  if (!elementType.isIntOrFloat())
    return;
  // Saturating: a shape whose size does not fit reads as kTooLarge rather
  // than wrapping to a small number (ShapedType::getNumElements wraps).
  uint64_t count = 1;
  if (shaped)
    for (int64_t dim : shaped.getShape())
      count = llvm::SaturatingMultiply(count, static_cast<uint64_t>(dim));
  uint64_t bits = elementType.getIntOrFloatBitWidth();
  std::string name;
  llvm::raw_string_ostream os(name);
  elementType.print(os);
  // i1 flags and the like are stored as whole bytes; FP4 (MXFP4
  // elements) is packed two to a byte, as MX data is.
  uint64_t &bytes = bytesByType[name];
  if (isa<Float4E2M1FNType>(elementType)) {
    bytes = llvm::SaturatingAdd(bytes, count / 2 + count % 2);
    return;
  }
  bytes = llvm::SaturatingAdd(
      bytes, llvm::SaturatingMultiply(count, (bits + 7) / 8));
}

/// Whether `op` is a linalg.generic whose body holds an `OpT` (the MX
/// quantization, arith.scaling_truncf, or read, arith.scaling_extf, of
/// MX autocast, docs/MX.md).
template <typename OpT>
static linalg::GenericOp getMxGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic->getNumResults() != 1)
    return {};
  bool found = false;
  generic.getBody()->walk([&](OpT) { found = true; });
  return found ? generic : linalg::GenericOp();
}

/// An MX read (arith.scaling_extf of elements and scales, reshaped back,
/// maybe sliced and transposed): counted as its elements and scales, what
/// an MX implementation keeps, not as the bf16 copy the CPU reads.
static bool addMxRead(Value v, ByteCounts &counts) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return false;
  if (auto transpose = v.getDefiningOp<linalg::TransposeOp>())
    v = transpose.getInput();
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
    v = slice.getSource();
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return false;
  linalg::GenericOp read =
      getMxGeneric<arith::ScalingExtFOp>(collapse.getSrc().getDefiningOp());
  if (!read)
    return false;
  // The elements of `v` (not of the zeros a short block was padded with).
  counts.add(type.clone(getElementTypeOrSelf(read.getDpsInputs()[0])));
  counts.add(read.getDpsInputs()[1].getType());
  return true;
}

/// The MX quantization (elements, scales) that reads `v` through its
/// blocking (tensor.insert_slice into a zero fill when padded, then
/// tensor.expand_shape), if `user` is its first op.
static linalg::GenericOp getMxQuantization(Value v, Operation *user) {
  Value blocked;
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(user)) {
    if (insert.getSource() != v || !insert->hasOneUse())
      return {};
    user = *insert->user_begin();
    v = insert.getResult();
  }
  auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
  if (!expand || expand.getSrc() != v)
    return {};
  for (Operation *reader : expand->getUsers())
    if (auto quantize = getMxGeneric<arith::ScalingTruncFOp>(reader))
      return quantize;
  return {};
}

uint64_t ByteCounts::total() const {
  uint64_t sum = 0;
  for (const auto &entry : bytesByType)
    sum = llvm::SaturatingAdd(sum, entry.second);
  return sum;
}

uint64_t MemoryEstimate::total() const {
  uint64_t sum = 0;
  for (const ByteCounts *counts :
       {&params, &gradients, &optimizerState, &activations, &paramCopies,
        &scalingState})
    sum = llvm::SaturatingAdd(sum, counts->total());
  return sum;
}

namespace {
/// The value-level dependence graph of a function body. Values are numbered
/// as they are met and the edges kept in compressed adjacency lists, so that
/// the slices classify() takes are bit vectors and arrays, not hash sets.
struct DependenceGraph {
  /// Ops that are graph nodes: not nested in an opaque op, not terminators of
  /// transparent ops, in program order.
  SmallVector<Operation *> nodes;

  /// The values reachable from some roots (roots included).
  struct Slice {
    const DependenceGraph *graph = nullptr;
    llvm::BitVector bits;
    /// The members, in the order they were reached.
    SmallVector<unsigned> members;

    bool contains(Value v) const {
      if (!graph)
        return false; // no roots
      std::optional<unsigned> id = graph->lookup(v);
      return id && bits.test(*id);
    }
    /// contains() for the value numbered `id`.
    bool containsId(unsigned id) const { return graph && bits.test(id); }
    size_t size() const { return members.size(); }
    auto values() const {
      return llvm::map_range(members,
                             [this](unsigned id) { return graph->values[id]; });
    }
  };

  /// Builds the graph of `body` (the function body).
  void build(Region &body) {
    buildRegion(body);
    auto compress = [&](bool forward, SmallVector<unsigned> &begin,
                        SmallVector<unsigned> &list) {
      begin.assign(values.size() + 1, 0);
      for (auto [from, to] : edges)
        ++begin[(forward ? from : to) + 1];
      for (unsigned i = 0, e = values.size(); i < e; ++i)
        begin[i + 1] += begin[i];
      list.assign(edges.size(), 0);
      SmallVector<unsigned> fill(begin.begin(), begin.end() - 1);
      for (auto [from, to] : edges)
        list[fill[forward ? from : to]++] = forward ? to : from;
    };
    compress(/*forward=*/true, userBegin, userList);
    compress(/*forward=*/false, depBegin, depList);
    edges.clear();
    overflowFlags.resize(values.size());
    for (Value flag : overflowFlagValues)
      overflowFlags.set(*lookup(flag));
  }

  unsigned getNumValues() const { return values.size(); }

  std::optional<unsigned> lookup(Value v) const {
    auto it = ids.find(v);
    if (it == ids.end())
      return std::nullopt;
    return it->second;
  }

  Slice forwardSlice(ArrayRef<Value> roots) const {
    return reach(roots, /*forward=*/true);
  }
  Slice backwardSlice(ArrayRef<Value> roots) const {
    return reach(roots, /*forward=*/false);
  }
  /// The values a gradient's data flows into: its forward slice, less what
  /// only the overflow flag carries (the flag guards every update).
  Slice gradientFlow(Value gradient) const {
    return reach({gradient}, /*forward=*/true, &overflowFlags);
  }

private:
  unsigned getId(Value v) {
    auto [it, inserted] = ids.try_emplace(v, values.size());
    if (inserted)
      values.push_back(v);
    return it->second;
  }
  void addEdge(Value from, Value to) {
    edges.push_back({getId(from), getId(to)});
  }
  void addEdges(ValueRange from, Value to) {
    for (Value v : from)
      addEdge(v, to);
  }

  void buildRegion(Region &body) {
    for (Block &block : body) {
      // Every value a slice may start from has a number, edges or not.
      for (BlockArgument arg : block.getArguments())
        getId(arg);
      for (Operation &op : block)
        visit(&op);
    }
  }

  void visit(Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>())
      return;
    nodes.push_back(op);
    for (Value result : op->getResults())
      getId(result);
    // Control flow the interface describes (RegionFlow.h): values flow
    // from the forwarded operands into region arguments and results, and
    // from bounds and conditions into what they decide.
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op);
        branch && isFullyForwarding(branch)) {
      forEachForwarded(branch, [&](OpOperand &source, Value input) {
        addEdge(source.get(), input);
      });
      forEachControlDependence(branch, [&](Value control, Value decided) {
        addEdge(control, decided);
      });
      for (Region &region : op->getRegions())
        buildRegion(region);
      return;
    }
    if (auto unscale = dyn_cast<UnscaleAndCheckOp>(op)) {
      // Each unscaled gradient is its own gradient over the scale; the flag
      // reads them all. Opaque, every gradient would flow into every update
      // (through the flag and the guards), which hides which parameter a
      // gradient updates and makes matching them quadratic.
      for (auto [grad, unscaled] :
           llvm::zip_equal(unscale.getGradients(), unscale.getUnscaled())) {
        addEdge(grad, unscaled);
        addEdge(unscale.getScale(), unscaled);
      }
      addEdges(op->getOperands(), unscale.getFoundInf());
      overflowFlagValues.push_back(unscale.getFoundInf());
      return;
    }
    // Opaque: every result depends on every operand and on every value the
    // body reads from above.
    if (op->getNumRegions() == 0) {
      // (A repeated operand repeats an edge; slices do not mind.)
      for (Value result : op->getResults())
        addEdges(op->getOperands(), result);
      return;
    }
    llvm::SetVector<Value> inputs;
    inputs.insert(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), inputs);
    for (Value result : op->getResults())
      addEdges(inputs.getArrayRef(), result);
  }

  /// Values reachable from `roots` along users (`forward`) or dependences,
  /// not entering the values in `stop`.
  Slice reach(ArrayRef<Value> roots, bool forward,
              const llvm::BitVector *stop = nullptr) const {
    Slice slice;
    slice.graph = this;
    slice.bits.resize(values.size());
    auto enter = [&](unsigned id) {
      if (slice.bits.test(id))
        return false;
      slice.bits.set(id);
      slice.members.push_back(id);
      return true;
    };
    SmallVector<unsigned> worklist;
    for (Value root : roots)
      if (std::optional<unsigned> id = lookup(root); id && enter(*id))
        worklist.push_back(*id);
    ArrayRef<unsigned> begin = forward ? userBegin : depBegin;
    ArrayRef<unsigned> list = forward ? userList : depList;
    while (!worklist.empty()) {
      unsigned id = worklist.pop_back_val();
      for (unsigned next : list.slice(begin[id], begin[id + 1] - begin[id]))
        if ((!stop || !stop->test(next)) && enter(next))
          worklist.push_back(next);
    }
    return slice;
  }

  llvm::DenseMap<Value, unsigned> ids;
  /// The values by number.
  SmallVector<Value> values;
  /// (from, to) while building; then the adjacency lists: the users of
  /// value i are userList[userBegin[i] .. userBegin[i + 1]), its
  /// dependences likewise.
  SmallVector<std::pair<unsigned, unsigned>> edges;
  SmallVector<unsigned> userBegin, userList, depBegin, depList;
  /// The overflow flags of `mpt.unscale_and_check`: whether to skip the
  /// step, not gradient data.
  SmallVector<Value> overflowFlagValues;
  llvm::BitVector overflowFlags;
};

/// The function's return ops (ReturnLike terminators of its body).
SmallVector<Operation *> getReturns(FunctionOpInterface func) {
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() &&
        block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  return returns;
}
} // namespace

/// Whether `v` is a zero float tensor built from constants: a zero splat
/// constant or a linalg.fill of zero, possibly reshaped or cast (what a
/// parameter that does not reach the loss gets as its gradient).
static bool isZeroTensor(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (matchPattern(v, m_AnyZeroFloat()))
      return true;
    if (auto fill = dyn_cast<linalg::FillOp>(def))
      return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
    if (isa<tensor::CastOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
            arith::ExtFOp, arith::TruncFOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    return false;
  }
  return false;
}

/// The name a location carries: its first NameLoc's (pre-order: the
/// outermost, as mpt-run's NameLoc around an argument's parsed location), or
/// "".
static std::string getLocName(Location loc) {
  std::string name;
  loc->walk([&](Location nested) {
    if (auto named = dyn_cast<NameLoc>(nested)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

std::string TrainingGraph::describeGradient(GradientOp grad) const {
  // The marker's name (mpt-import-torch --debug-info: "NAME.grad"), else
  // the name a driver gave the parameter argument (mpt-run: its SSA name).
  std::string name = getLocName(grad.getLoc());
  std::optional<unsigned> param = getParamOfGradient(grad);
  if (name.empty() && param) {
    std::string argName = getLocName(func.getArgument(*param).getLoc());
    if (!argName.empty() && argName != "arg" + std::to_string(*param))
      name = argName + ".grad";
  }
  std::string text = "the gradient";
  if (!name.empty())
    text += " '" + name + "'";
  if (param)
    text += " of parameter argument #" + std::to_string(*param);
  return text;
}

namespace {
/// Records one finding: streams its message (and notes) the way an
/// InFlightDiagnostic would, and converts to failure() so that a check can
/// `return recordError(op) << ...;`.
class FindingBuilder {
public:
  FindingBuilder(SmallVectorImpl<TrainingGraph::Finding> &findings,
                 DiagnosticSeverity severity, Location loc, Operation *op,
                 const Twine &message = {})
      : findings(findings), index(findings.size()) {
    findings.push_back({severity, loc, op, message.str(), {}});
  }
  template <typename T> FindingBuilder &operator<<(T &&value) {
    llvm::raw_string_ostream os(findings[index].message);
    os << std::forward<T>(value);
    return *this;
  }
  /// A note of this finding; stream its text into the result.
  class Note {
  public:
    explicit Note(std::string &text) : text(text) {}
    template <typename T> Note &operator<<(T &&value) {
      llvm::raw_string_ostream os(text);
      os << std::forward<T>(value);
      return *this;
    }

  private:
    std::string &text;
  };
  Note attachNote(Location loc) {
    findings[index].notes.push_back({loc, ""});
    return Note(findings[index].notes.back().second);
  }
  operator LogicalResult() const { return failure(); }

private:
  SmallVectorImpl<TrainingGraph::Finding> &findings;
  size_t index;
};

/// A contract error about `op`, emitted on it.
FindingBuilder recordError(SmallVectorImpl<TrainingGraph::Finding> &findings,
                           Operation *op, const Twine &message = {}) {
  return FindingBuilder(findings, DiagnosticSeverity::Error, op->getLoc(), op,
                        message);
}
} // namespace

TrainingGraph::TrainingGraph(Operation *op)
    : func(dyn_cast<FunctionOpInterface>(op)) {
  if (!func || func.isExternal())
    return;
  valid = succeeded(collectMarkers()) && succeeded(classify()) &&
          succeeded(lint());
}

static llvm::cl::opt<bool> contractStrict(
    "mpt-contract-strict",
    llvm::cl::desc("Make the training-graph contract lint's warnings errors"),
    llvm::cl::init(false));

/// Whether the warning (`loc`, `message`) has not been given yet in this
/// context (MPTDialect::isFirstWarning); every time when the mpt dialect is
/// not loaded, which then has no state to keep.
static bool isFirstWarning(Location loc, StringRef message) {
  auto *dialect = loc.getContext()->getLoadedDialect<MPTDialect>();
  return !dialect || dialect->isFirstWarning(loc, message);
}

LogicalResult TrainingGraph::emitFindings(bool warnings) const {
  if (findingsEmitted)
    return success(valid);
  findingsEmitted = true;
  for (const Finding &finding : findings) {
    bool error = finding.severity == DiagnosticSeverity::Error;
    if (!error && (!warnings || !isFirstWarning(finding.loc, finding.message)))
      continue;
    InFlightDiagnostic diag =
        finding.op ? (error ? finding.op->emitError(finding.message)
                            : finding.op->emitWarning(finding.message))
                   : (error ? emitError(finding.loc, finding.message)
                            : emitWarning(finding.loc, finding.message));
    for (const auto &[loc, text] : finding.notes)
      diag.attachNote(loc) << text;
  }
  return success(valid);
}

LogicalResult TrainingGraph::lint() {
  bool strict = contractStrict;
  auto report = [&](Location loc, const Twine &text) {
    FindingBuilder(findings,
                   strict ? DiagnosticSeverity::Error
                          : DiagnosticSeverity::Warning,
                   loc, /*op=*/nullptr, text);
  };
  bool found = false;
  auto check = [&](bool mistake, Location loc, const Twine &text) {
    if (!mistake)
      return;
    found = true;
    report(loc, text);
  };

  if (trainingStep) {
    llvm::DenseSet<unsigned> withGradient, updated;
    for (GradientOp grad : gradients)
      if (std::optional<unsigned> param = getParamOfGradient(grad))
        withGradient.insert(*param);
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      if (std::optional<unsigned> arg = getUpdatedArg(func, i))
        updated.insert(*arg);
    for (unsigned param : params) {
      Location loc = func.getArgument(param).getLoc();
      // A parameter nothing updates has one problem, reported below.
      check(!withGradient.contains(param) && updated.contains(param), loc,
            "parameter argument #" + Twine(param) +
                " has no mpt.gradient marker: loss scaling will not unscale "
                "its gradient");
      check(!updated.contains(param), loc,
            "parameter argument #" + Twine(param) +
                " is updated by no result (no mpt.updates = " + Twine(param) +
                "): it stays frozen");
    }
    for (GradientOp grad : zeroGradients)
      check(true, grad.getLoc(),
            describeGradient(grad) +
                " is zero: it does not depend on the backward seed (the "
                "parameter does not reach the loss; PyTorch leaves its .grad "
                "None); its update reads a zero gradient");
    check(seed && !lossResult, seedOp ? seedOp.getLoc() : func.getLoc(),
          "the step has a backward seed but no result marked mpt.role = "
          "\"loss\": no op counts as forward");
  }
  for (auto [op, name] : unknownMptAttributes)
    check(true, op->getLoc(),
          "attribute '" + name.strref() + "' is read by no mpt rule");
  return success(!(strict && found));
}

LogicalResult TrainingGraph::collectMarkers() {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (getArgRole(func, i) == ArgRole::Param)
      params.push_back(i);

  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    if (!isLossResult(func, i))
      continue;
    if (lossResult)
      return recordError(findings, func) << "results #" << *lossResult << " and #" << i
                              << " are both marked mpt.role = \"loss\"; a "
                                 "training step has one loss";
    lossResult = i;
  }

  std::optional<unsigned> lossGradArg;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (getArgRole(func, i) != ArgRole::LossGrad)
      continue;
    if (lossGradArg)
      return recordError(findings, func) << "arguments #" << *lossGradArg << " and #" << i
                              << " are both marked mpt.role = \"loss_grad\"; a "
                                 "training step has one backward seed";
    lossGradArg = i;
  }

  // One walk of the step for the markers and for the lint's attribute
  // check (the walk enters every linalg body).
  LogicalResult status = success();
  func.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().strref().starts_with("mpt.") &&
          !isKnownMptAttribute(attr.getName().strref()))
        unknownMptAttributes.push_back({op, attr.getName()});
    if (auto seedCandidate = dyn_cast<GradSeedOp>(op)) {
      if (seedOp) {
        FindingBuilder diag =
            recordError(findings, seedCandidate,
                        "a second 'mpt.grad_seed'; a training step "
                        "has exactly one backward seed");
        diag.attachNote(seedOp.getLoc()) << "the first one is here";
        status = failure();
        return WalkResult::interrupt();
      }
      seedOp = seedCandidate;
    } else if (auto grad = dyn_cast<GradientOp>(op)) {
      gradients.push_back(grad);
    }
    return WalkResult::advance();
  });
  if (failed(status))
    return failure();

  if (seedOp && lossGradArg)
    return recordError(findings, seedOp)
           << "the step has both an 'mpt.grad_seed' and a \"loss_grad\" "
              "argument (#"
           << *lossGradArg << "); a training step has one backward seed";
  if (seedOp)
    seed = seedOp.getSeed();
  else if (lossGradArg)
    seed = func.getArgument(*lossGradArg);

  trainingStep = seed || !gradients.empty();
  if (!gradients.empty() && !seed)
    return recordError(findings, gradients.front())
           << "'mpt.gradient' in a step without a backward seed (an "
              "'mpt.grad_seed' or a \"loss_grad\" argument)";
  return success();
}

LogicalResult TrainingGraph::classify() {
  DependenceGraph graph;
  graph.build(func.getFunctionBody());
  SmallVector<Operation *> returns = getReturns(func);

  auto collectReturned = [&](llvm::function_ref<bool(unsigned)> pick) {
    SmallVector<Value> values;
    for (Operation *ret : returns)
      for (auto [i, v] : llvm::enumerate(ret->getOperands()))
        if (pick(i))
          values.push_back(v);
    return values;
  };

  SmallVector<Value> gradInputs, gradResults;
  for (GradientOp grad : gradients) {
    gradInputs.push_back(grad.getInput());
    gradResults.push_back(grad.getGradient());
  }

  DependenceGraph::Slice seedDep, reachesGrad, gradDep;
  if (seed)
    seedDep = graph.forwardSlice({seed});
  reachesGrad = graph.backwardSlice(gradInputs);
  gradDep = graph.forwardSlice(gradResults);
  DependenceGraph::Slice reachesLoss = graph.backwardSlice(collectReturned(
      [&](unsigned i) { return lossResult && i == *lossResult; }));

  // The seed is taken of the loss, or of a part of it (a micro-batch's loss
  // inside a gradient-accumulation loop).
  if (seedOp && lossResult && !reachesLoss.contains(seedOp.getLoss()))
    return recordError(findings, seedOp)
           << "the seed's operand does not contribute to the loss (result #"
           << *lossResult << ")";
  // Which parameter each gradient updates: the one parameter among those
  // updated by a returned value the gradient's data flows into. The returned
  // values are indexed once; each gradient then visits the smaller of its
  // flow and the returned values (a step has a gradient and an update per
  // parameter: visiting every result per gradient would be quadratic).
  llvm::DenseMap<Value, SmallVector<unsigned, 1>> updatedParamsOf;
  SmallVector<std::pair<Value, unsigned>> updates;
  for (Operation *ret : returns)
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      std::optional<unsigned> arg = getUpdatedArg(func, i);
      if (!arg || getArgRole(func, *arg) != ArgRole::Param)
        continue;
      updatedParamsOf[v].push_back(*arg);
      updates.push_back({v, *arg});
    }
  for (GradientOp grad : gradients) {
    DependenceGraph::Slice flow = graph.gradientFlow(grad.getGradient());
    llvm::SmallSetVector<unsigned, 2> matches;
    auto consider = [&](unsigned arg) {
      if (func.getArgument(arg).getType() == grad.getType())
        matches.insert(arg);
    };
    if (flow.size() < updates.size()) {
      for (Value v : flow.values())
        for (unsigned arg : updatedParamsOf.lookup(v))
          consider(arg);
    } else {
      for (auto [v, arg] : updates)
        if (flow.contains(v))
          consider(arg);
    }
    // Several candidates: every gradient flows into every update through a
    // scalar when the step clips by the global norm. The gradient's own
    // update is the one its value reaches through ops of its own type
    // (the optimizer's elementwise arithmetic), not through the norm.
    if (matches.size() > 1) {
      llvm::SmallSetVector<unsigned, 2> direct;
      SmallVector<Value> worklist{grad.getGradient()};
      llvm::SmallPtrSet<Value, 16> seen;
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        for (unsigned arg : updatedParamsOf.lookup(v))
          if (matches.contains(arg))
            direct.insert(arg);
        for (Operation *user : v.getUsers())
          for (Value r : user->getResults())
            if (r.getType() == grad.getType())
              worklist.push_back(r);
      }
      if (direct.size() == 1)
        matches = direct;
    }
    if (matches.size() == 1)
      gradientParam[grad] = matches.front();
  }

  // A gradient independent of the seed is a constant of the step. A zero one
  // is a parameter that does not reach the loss (PyTorch leaves its .grad
  // None; the importer's vjp gives zeros): the lint warns. Any other is a
  // contract error, named by its parameter, with a note where its operand
  // comes from.
  for (GradientOp grad : gradients) {
    if (!seedDep.contains(grad.getInput())) {
      if (isZeroTensor(grad.getInput())) {
        zeroGradients.push_back(grad);
        continue;
      }
      FindingBuilder diag =
          recordError(findings, grad,
                      describeGradient(grad) +
                          " does not depend on the backward seed");
      Value input = grad.getInput();
      if (Operation *def = input.getDefiningOp())
        diag.attachNote(def->getLoc())
            << "its operand comes from this '" << def->getName()
            << "', which the backward seed does not reach";
      else if (auto arg = dyn_cast<BlockArgument>(input))
        diag.attachNote(arg.getLoc())
            << "its operand is block argument #" << arg.getArgNumber();
      return failure();
    }
    if (gradDep.contains(grad.getInput()))
      return recordError(findings, grad,
                         describeGradient(grad) +
                             " depends on an 'mpt.gradient' (another, or "
                             "its own carried by a loop: mark a gradient "
                             "accumulated in a loop after the loop); "
                             "gradients feed only the optimizer update");
  }

  // Value-level regions for the core sets, by value number (every result
  // of a node has one, looked up once here).
  SmallVector<unsigned> resultIds;
  for (Operation *op : graph.nodes)
    for (Value v : op->getResults())
      resultIds.push_back(*graph.lookup(v));
  constexpr uint8_t kNoRegion = 0xff;
  SmallVector<uint8_t> valueRegion(graph.getNumValues(), kNoRegion);
  auto setRegion = [&](unsigned id, TrainingRegion region) {
    valueRegion[id] = static_cast<uint8_t>(region);
  };
  SmallVector<Value> backwardCore;
  unsigned nextResult = 0;
  for (Operation *op : graph.nodes) {
    for (Value v : op->getResults()) {
      unsigned id = resultIds[nextResult++];
      if (reachesLoss.containsId(id)) {
        // Reported at the first op that feeds the seed into the loss.
        if (seedDep.containsId(id) && op != seedOp.getOperation())
          return recordError(findings, op,
                             "the loss depends on the backward seed");
        setRegion(id, TrainingRegion::Forward);
      } else if (isa<GradientOp>(op) ||
                 (seedDep.containsId(id) && reachesGrad.containsId(id))) {
        setRegion(id, TrainingRegion::Backward);
        backwardCore.push_back(v);
      } else if (gradDep.containsId(id)) {
        setRegion(id, TrainingRegion::Update);
      }
    }
  }
  // Values outside the cores that only serve the backward pass (a transposed
  // weight, the zeros a gradient accumulator starts from), then those that
  // only serve the update (weight decay, momentum decay).
  DependenceGraph::Slice servesBackward = graph.backwardSlice(backwardCore);
  DependenceGraph::Slice servesUpdate =
      graph.backwardSlice(collectReturned([&](unsigned i) {
        return getUpdatedArg(func, i).has_value();
      }));
  for (unsigned id : resultIds) {
    if (valueRegion[id] != kNoRegion)
      continue;
    if (servesBackward.containsId(id))
      setRegion(id, TrainingRegion::Backward);
    else if (servesUpdate.containsId(id))
      setRegion(id, TrainingRegion::Update);
  }

  // An op takes the most telling region among its results: a loop that
  // carries both the loss and accumulated gradients is backward.
  auto rank = [](TrainingRegion r) {
    switch (r) {
    case TrainingRegion::Backward:
      return 3;
    case TrainingRegion::Update:
      return 2;
    case TrainingRegion::Forward:
      return 1;
    case TrainingRegion::Unused:
      return 0;
    }
    return 0;
  };
  regions.reserve(graph.nodes.size());
  nextResult = 0;
  for (Operation *op : graph.nodes) {
    TrainingRegion region = TrainingRegion::Unused;
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      uint8_t value = valueRegion[resultIds[nextResult++]];
      if (value != kNoRegion &&
          rank(static_cast<TrainingRegion>(value)) > rank(region))
        region = static_cast<TrainingRegion>(value);
    }
    regions[op] = region;
  }

  return success();
}

Operation *TrainingGraph::getTopLevelOp(Operation *op) const {
  // The nearest ancestor that is a graph node; ops in an opaque body share
  // their op's region.
  for (Operation *cur = op; cur && cur != func.getOperation();
       cur = cur->getParentOp())
    if (regions.count(cur))
      return cur;
  return nullptr;
}

TrainingRegion TrainingGraph::getRegion(Operation *op) const {
  if (!trainingStep)
    return TrainingRegion::Forward;
  Operation *node = getTopLevelOp(op);
  if (!node) {
    // Terminators: a yield shares its parent's region; the function's
    // return belongs to no region.
    Operation *parent = op->getParentOp();
    if (parent && parent != func.getOperation())
      return getRegion(parent);
    return TrainingRegion::Unused;
  }
  return regions.lookup(node);
}

void TrainingGraph::addOp(Operation *op, TrainingRegion region) {
  assert(op->getParentOp() == func.getOperation() &&
         !op->hasTrait<OpTrait::IsTerminator>() &&
         "only ops at the top level of the body are graph nodes");
  regions[op] = region;
}

std::optional<unsigned>
TrainingGraph::getParamOfGradient(GradientOp grad) const {
  auto it = gradientParam.find(grad.getOperation());
  if (it == gradientParam.end())
    return std::nullopt;
  return it->second;
}

unsigned TrainingGraph::getNumOps(TrainingRegion region) const {
  unsigned count = 0;
  for (const auto &entry : regions)
    if ((trainingStep ? entry.second : TrainingRegion::Forward) == region)
      ++count;
  return count;
}

MemoryEstimate TrainingGraph::estimateMemory() const {
  MemoryEstimate estimate;
  if (!func || func.isExternal())
    return estimate;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    std::optional<ArgRole> role = getArgRole(func, i);
    if (role == ArgRole::Param)
      estimate.params.add(func.getArgument(i).getType());
    else if (role == ArgRole::OptimizerState)
      estimate.optimizerState.add(func.getArgument(i).getType());
    else if (role == ArgRole::Fp8AmaxHistory || role == ArgRole::Fp8Scale)
      estimate.scalingState.add(func.getArgument(i).getType());
  }
  for (GradientOp grad : gradients)
    estimate.gradients.add(grad.getType());
  if (!trainingStep)
    return estimate;

  // Activations: values of the forward pass (or data arguments) that a
  // backward op reads, each counted once.
  llvm::DenseSet<Value> kept;
  // A destination operand (`outs`) is storage the backward op writes, not
  // a value it reads; constants are not kept activations.
  auto readByBackward = [&](Value v) {
    if (Operation *def = v.getDefiningOp())
      if (def->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(def))
        return false;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      // The seed reads only the loss's shape.
      if (user->hasTrait<OpTrait::IsTerminator>() || isa<GradSeedOp>(user))
        continue;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
        if (dps.isDpsInit(&use))
          continue;
      if (getRegion(user) == TrainingRegion::Backward)
        return true;
    }
    return false;
  };
  // A value the backward reads only to quantize it to MX (the backward's
  // blocking of a forward value): the MX elements and scales are kept.
  auto addKept = [&](Value v, ByteCounts &counts) {
    if (addMxRead(v, counts))
      return;
    SmallVector<linalg::GenericOp> quantizations;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>() || isa<GradSeedOp>(user) ||
          getRegion(user) != TrainingRegion::Backward)
        continue;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
        if (dps.isDpsInit(&use))
          continue;
      linalg::GenericOp quantize = getMxQuantization(v, user);
      if (!quantize) {
        counts.add(v.getType());
        return;
      }
      quantizations.push_back(quantize);
    }
    for (linalg::GenericOp quantize : quantizations) {
      counts.add(cast<ShapedType>(v.getType())
                     .clone(getElementTypeOrSelf(quantize->getResult(0))));
      counts.add(quantize.getDpsInputs()[1].getType());
    }
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    Value arg = func.getArgument(i);
    if (getArgRole(func, i) == ArgRole::Data && readByBackward(arg) &&
        kept.insert(arg).second)
      addKept(arg, estimate.activations);
  }
  for (const auto &entry : regions) {
    if (entry.second != TrainingRegion::Forward)
      continue;
    // A cast of a parameter (autocast's low-precision weight) is a copy of
    // the weights, whatever the batch size: counted on its own.
    auto isParamCopy = [&](Operation *op) {
      if (!isa<arith::TruncFOp, arith::ExtFOp>(op))
        return false;
      auto arg = dyn_cast<BlockArgument>(op->getOperand(0));
      return arg && arg.getOwner()->getParentOp() == func.getOperation() &&
             getArgRole(func, arg.getArgNumber()) == ArgRole::Param;
    };
    for (Value v : entry.first->getResults())
      if (isa<ShapedType>(v.getType()) && readByBackward(v) &&
          kept.insert(v).second)
        addKept(v, isParamCopy(entry.first) ? estimate.paramCopies
                                            : estimate.activations);
  }
  return estimate;
}
