//===- StepSignature.cpp - what mpt-run needs to know of a step -----------===//
#include "StepSignature.h"
#include "RunError.h"

#include "mpt/Analysis/TrainingGraph.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace mlir;
using namespace mpt;

std::string ArgInfo::describe(unsigned index) const {
  std::string s = "argument '" + name + "' (#" + std::to_string(index);
  if (role)
    s += ", " + stringifyArgRole(*role).str();
  return s + ")";
}

std::string ArgInfo::typeString() const {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + getElementName(kind).str() + ">";
}

static std::optional<ElementKind> getElementKind(Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF64())
    return ElementKind::F64;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

/// The kind and shape of a step argument or result, or a diagnostic.
static FailureOr<std::pair<ElementKind, SmallVector<int64_t>>>
checkBoundaryType(func::FuncOp func, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ElementKind> kind;
  if (tensor && tensor.hasStaticShape())
    kind = getElementKind(tensor.getElementType());
  if (!kind) {
    func.emitError() << what << " has type " << type
                     << "; mpt-run needs ranked tensors with static shapes of "
                        "f32, f16, bf16, f64, i32, i64 or i1";
    return failure();
  }
  // Host buffers are allocated for every argument and result: a size that
  // does not fit, or exceeds the machine's memory, is refused here.
  std::optional<int64_t> bytes = getByteSize(*kind, tensor.getShape());
  static const int64_t physicalMemory =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (!bytes || (physicalMemory > 0 && *bytes > physicalMemory)) {
    func.emitError() << what << " has type " << type << ", "
                     << (bytes ? std::to_string(*bytes) + " bytes"
                               : std::string("more than 2^63 bytes"))
                     << ": more than this machine's memory";
    return failure();
  }
  return std::make_pair(*kind, SmallVector<int64_t>(tensor.getShape()));
}

std::string mpt::checkRepresentable(ElementKind kind, double value) {
  double lowest, highest;
  switch (kind) {
  case ElementKind::I32:
    lowest = -0x1p31, highest = 0x1p31 - 1;
    break;
  case ElementKind::I64:
    // The largest double below 2^63.
    lowest = -0x1p63, highest = 0x1.fffffffffffffp62;
    break;
  default:
    return "";
  }
  if (!std::isfinite(value) || value != std::trunc(value) || value < lowest ||
      value > highest) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", value);
    return std::string(text) + " is not an " + getElementName(kind).str() +
           " integer value";
  }
  return "";
}

std::string mpt::getArgName(BlockArgument arg, llvm::SourceMgr &sourceMgr) {
  std::string fallback = "arg" + std::to_string(arg.getArgNumber());
  // `%name: type loc("name")`, as a printer with name locations writes it.
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  auto loc = dyn_cast<FileLineColLoc>(arg.getLoc());
  if (!loc || sourceMgr.getNumBuffers() == 0)
    return fallback;
  llvm::SMLoc at = sourceMgr.FindLocForLineAndColumn(
      sourceMgr.getMainFileID(), loc.getLine(), loc.getColumn());
  if (!at.isValid())
    return fallback;
  StringRef text(
      at.getPointer(),
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferEnd() -
          at.getPointer());
  if (!text.consume_front("%"))
    return fallback;
  size_t n = 0;
  while (n < text.size() &&
         (llvm::isAlnum(text[n]) || StringRef("_$.-").contains(text[n])))
    ++n;
  return n ? text.substr(0, n).str() : fallback;
}

llvm::Expected<func::FuncOp> mpt::findStep(ModuleOp module, StringRef entryName,
                                           StringRef inputFilename) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!entryName.empty()) {
      if (func.getSymName() == entryName)
        return func;
      continue;
    }
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      if (isLossResult(func, i)) {
        candidates.push_back(func);
        break;
      }
  }
  if (!entryName.empty())
    return runError("no function named '" + entryName + "' in " +
                    inputFilename);
  if (candidates.empty())
    return runError(
        "no function in " + inputFilename +
        " has a result marked mpt.role = \"loss\"; mpt-run runs training "
        "steps written to the contract (docs/TrainingGraphContract.md)");
  if (candidates.size() > 1)
    return runError(
        "several functions have a loss result; choose one with --entry");
  return candidates.front();
}

FailureOr<StepSignature> mpt::analyseStep(func::FuncOp func,
                                          ArrayRef<std::string> argNames,
                                          bool lintWarnings) {
  TrainingGraph graph(func);
  if (failed(graph.emitFindings(lintWarnings)))
    return failure();
  StepSignature sig;
  sig.funcName = func.getSymName().str();
  std::optional<unsigned> loss = graph.getLossResultIndex();
  if (!loss) {
    func.emitError() << "the step has no result marked mpt.role = \"loss\"";
    return failure();
  }
  sig.lossResult = *loss;

  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    ArgInfo info;
    info.name = i < argNames.size() ? argNames[i] : "arg" + std::to_string(i);
    info.role = getArgRole(func, i);
    auto kindShape =
        checkBoundaryType(func, func.getArgument(i).getType(),
                          "argument #" + Twine(i) + " ('" + info.name + "')");
    if (failed(kindShape))
      return failure();
    std::tie(info.kind, info.shape) = *kindShape;
    if (auto attr = func.getArgAttr(i, "mpt.initial_value")) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        info.initialValue = f.getValueAsDouble();
      else
        info.initialValue =
            static_cast<double>(cast<IntegerAttr>(attr).getInt());
      if (std::string why = checkRepresentable(info.kind, *info.initialValue);
          !why.empty()) {
        func.emitError() << "argument #" << i << " ('" << info.name
                         << "'): mpt.initial_value " << why;
        return failure();
      }
    }
    // A working copy carries its parameter's location, so the source names
    // them alike: "<parameter>.working_copy" tells them apart in --inputs,
    // --save and messages.
    if (auto of = func.getArgAttrOfType<IntegerAttr>(
            i, MPTDialect::kWorkingCopyOfAttrName)) {
      info.workingCopyOf = static_cast<unsigned>(of.getInt());
      if (*info.workingCopyOf < argNames.size())
        info.name = argNames[*info.workingCopyOf] + ".working_copy";
    }
    if (info.role == ArgRole::LossScale)
      sig.lossScaleArg = i;
    if (info.role == ArgRole::LossScaleGrowthTracker)
      sig.trackerArg = i;
    sig.args.push_back(std::move(info));
  }
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    ResultInfo info;
    auto kindShape = checkBoundaryType(func, func.getResultTypes()[i],
                                       "result #" + Twine(i));
    if (failed(kindShape))
      return failure();
    std::tie(info.kind, info.shape) = *kindShape;
    info.updates = getUpdatedArg(func, i);
    if (auto role = func.getResultAttrOfType<StringAttr>(i, "mpt.role");
        role && role.getValue() == "guard")
      info.guard = func.getResultAttrOfType<StringAttr>(i, "mpt.message").str();
    if (info.updates)
      sig.args[*info.updates].updatedBy = i;
    sig.results.push_back(std::move(info));
  }
  const ResultInfo &lossInfo = sig.results[sig.lossResult];
  if (lossInfo.kind != ElementKind::F32 && lossInfo.kind != ElementKind::F16 &&
      lossInfo.kind != ElementKind::BF16 && lossInfo.kind != ElementKind::F64) {
    func.emitError() << "the loss (result #" << sig.lossResult
                     << ") must be a floating-point tensor";
    return failure();
  }
  if (llvm::any_of(lossInfo.shape, [](int64_t d) { return d != 1; })) {
    func.emitError() << "the loss (result #" << sig.lossResult
                     << ") must hold one element to be logged";
    return failure();
  }
  return sig;
}

std::optional<unsigned> mpt::lookupArg(const StepSignature &sig,
                                       StringRef key) {
  for (auto [i, arg] : llvm::enumerate(sig.args))
    if (arg.name == key)
      return i;
  unsigned index;
  StringRef digits = key;
  digits.consume_front("arg");
  if (!digits.getAsInteger(10, index) && index < sig.args.size())
    return index;
  return std::nullopt;
}
