//===- MPTDialect.cpp - the mpt dialect -----------------------------------===//
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mpt;

#include "mpt/IR/MPTOpsDialect.cpp.inc"

void MPTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mpt/IR/MPTOps.cpp.inc"
      >();
}

// `mpt.range = [lo, hi]`: the user's bound on every element of a float
// argument (the range analysis never invents one), two finite numbers with
// lo <= hi.
static LogicalResult verifyRangeAttribute(Operation *op, unsigned argIndex,
                                          NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  auto bounds = dyn_cast<ArrayAttr>(attr.getValue());
  auto number = [](Attribute a) -> std::optional<double> {
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(a))
      return static_cast<double>(i.getInt());
    return std::nullopt;
  };
  std::optional<double> lo, hi;
  if (bounds && bounds.size() == 2) {
    lo = number(bounds[0]);
    hi = number(bounds[1]);
  }
  if (!lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi) || *lo > *hi)
    return op->emitError() << "argument #" << argIndex << ": '" << name
                           << "' must be [lo, hi] with finite numbers lo <= "
                              "hi, got "
                           << attr.getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (func && !isa<FloatType>(
                  getElementTypeOrSelf(func.getArgumentTypes()[argIndex])))
    return op->emitError() << "argument #" << argIndex << ": '" << name
                           << "' is only meaningful on a float argument, not "
                           << func.getArgumentTypes()[argIndex];
  return success();
}

// The contract's argument attributes: `mpt.role` (a known role),
// `mpt.initial_value` (a number a driver starts a state argument from) and
// `mpt.range` (a bound on a float argument's values).
LogicalResult MPTDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kRoleAttrName) {
    auto role = dyn_cast<StringAttr>(attr.getValue());
    if (!role || !parseArgRole(role.getValue()))
      return op->emitError() << "argument #" << argIndex << ": '" << name
                             << "' must be one of " << getArgRoleList()
                             << ", got " << attr.getValue();
    // The generator reads [seed, offset] as two 64-bit integers.
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (func && parseArgRole(role.getValue()) == ArgRole::RngState) {
      Type type = func.getArgumentTypes()[argIndex];
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getShape() != ArrayRef<int64_t>{2} ||
          !tensor.getElementType().isInteger(64))
        return op->emitError()
               << "argument #" << argIndex
               << ": an \"rng_state\" argument must be tensor<2xi64> "
                  "([seed, offset]), got "
               << type;
    }
    // FP8 scaling state: [history length x tensors] and [tensors], f32.
    std::optional<ArgRole> parsed = parseArgRole(role.getValue());
    if (func && (parsed == ArgRole::Fp8AmaxHistory ||
                 parsed == ArgRole::Fp8Scale)) {
      Type type = func.getArgumentTypes()[argIndex];
      auto tensor = dyn_cast<RankedTensorType>(type);
      int64_t rank = parsed == ArgRole::Fp8AmaxHistory ? 2 : 1;
      if (!tensor || tensor.getRank() != rank || !tensor.hasStaticShape() ||
          tensor.getNumElements() == 0 || !tensor.getElementType().isF32())
        return op->emitError()
               << "argument #" << argIndex << ": an \"" << role.getValue()
               << "\" argument must be a non-empty static tensor<"
               << (rank == 2 ? "LxNxf32" : "Nxf32") << ">, got " << type;
    }
    return success();
  }
  if (name == kInitialValueAttrName) {
    if (!isa<FloatAttr, IntegerAttr>(attr.getValue()))
      return op->emitError() << "argument #" << argIndex << ": '" << name
                             << "' must be a number, got " << attr.getValue();
    return success();
  }
  if (name == kRangeAttrName)
    return verifyRangeAttribute(op, argIndex, attr);
  if (name == kWorkingCopyOfAttrName) {
    // A master-weights working copy: optimizer state of the low type, the
    // shape of the f32 parameter it copies (the driver starts it as that
    // parameter's value rounded).
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    auto fail = [&](const Twine &why) {
      return op->emitError() << "argument #" << argIndex << ": '" << name
                             << "' " << why;
    };
    if (!func || !index)
      return fail("must be an integer argument index");
    int64_t master = index.getInt();
    if (master < 0 || master >= static_cast<int64_t>(func.getNumArguments()) ||
        master == argIndex)
      return fail("names no other argument of the function: " +
                  Twine(master));
    if (getArgRole(func, master) != ArgRole::Param)
      return fail("names argument #" + Twine(master) +
                  ", which is not a parameter");
    auto copyType = dyn_cast<ShapedType>(func.getArgumentTypes()[argIndex]);
    auto masterType = dyn_cast<ShapedType>(func.getArgumentTypes()[master]);
    if (!copyType || !masterType || !copyType.hasRank() ||
        !masterType.hasRank() || copyType.getShape() != masterType.getShape() ||
        !isa<FloatType>(copyType.getElementType()) ||
        !isa<FloatType>(masterType.getElementType()))
      return fail("needs a float tensor of the shape of its parameter #" +
                  Twine(master));
    return success();
  }
  return op->emitError() << "argument #" << argIndex
                         << ": unknown mpt argument attribute '" << name << "'";
}

// The contract's result attributes: `mpt.role = "loss"` and
// `mpt.updates = N`, where argument N exists, has the result's type and is
// updated by no other result; `mpt.role = "guard"` on a tensor<i1> with its
// `mpt.message` (a condition the driver checks after every step).
LogicalResult MPTDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (name == kRoleAttrName) {
    auto role = dyn_cast<StringAttr>(attr.getValue());
    if (role && role.getValue() == "guard") {
      auto type = func ? dyn_cast<RankedTensorType>(
                             func.getResultTypes()[resultIndex])
                       : RankedTensorType();
      if (!type || type.getRank() != 0 ||
          !type.getElementType().isInteger(1))
        return op->emitError()
               << "result #" << resultIndex
               << ": a guard (mpt.role = \"guard\") must be a tensor<i1>";
      if (!func.getResultAttrOfType<StringAttr>(resultIndex, "mpt.message"))
        return op->emitError() << "result #" << resultIndex
                               << ": a guard needs its 'mpt.message' string";
      return success();
    }
    if (!role || role.getValue() != "loss")
      return op->emitError() << "result #" << resultIndex << ": '" << name
                             << "' must be \"loss\" or \"guard\", got "
                             << attr.getValue();
    // A loss is differentiated: an integer one cannot be, and would otherwise
    // surface later as a seed "not contributing" to it.
    Type type = func ? func.getResultTypes()[resultIndex] : Type();
    auto shaped = dyn_cast_or_null<ShapedType>(type);
    if (type && !isa<FloatType>(shaped ? shaped.getElementType() : type))
      return op->emitError() << "result #" << resultIndex
                             << ": a loss (mpt.role = \"loss\") must be a "
                                "floating-point value, got "
                             << type;
    return success();
  }
  if (name == "mpt.message") {
    auto role = func ? func.getResultAttrOfType<StringAttr>(resultIndex,
                                                            kRoleAttrName)
                     : StringAttr();
    if (!isa<StringAttr>(attr.getValue()) || !role ||
        role.getValue() != "guard")
      return op->emitError()
             << "result #" << resultIndex
             << ": 'mpt.message' is a string on a guard result only";
    return success();
  }
  if (name != kUpdatesAttrName)
    return op->emitError() << "result #" << resultIndex
                           << ": unknown mpt result attribute '" << name << "'";

  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index)
    return op->emitError() << "result #" << resultIndex << ": '" << name
                           << "' must be an integer argument index, got "
                           << attr.getValue();
  if (!func)
    return op->emitError() << "'" << name
                           << "' is only meaningful on function results";
  int64_t argIndex = index.getInt();
  unsigned numArgs = func.getNumArguments();
  if (argIndex < 0 || argIndex >= static_cast<int64_t>(numArgs))
    return op->emitError() << "result #" << resultIndex << ": '" << name
                           << "' index " << argIndex
                           << " is out of range (the function has " << numArgs
                           << " arguments)";
  Type argType = func.getArgumentTypes()[argIndex];
  Type resultType = func.getResultTypes()[resultIndex];
  if (argType != resultType)
    return op->emitError() << "result #" << resultIndex << " (" << resultType
                           << ") updates argument #" << argIndex
                           << " of a different type (" << argType << ")";
  std::optional<unsigned> first = getFirstResultUpdating(func, argIndex);
  if (first && *first < resultIndex)
    return op->emitError() << "results #" << *first << " and #" << resultIndex
                           << " both update argument #" << argIndex;
  return success();
}

std::optional<unsigned>
MPTDialect::getFirstResultUpdating(FunctionOpInterface func,
                                   int64_t argIndex) {
  std::lock_guard<std::mutex> lock(firstResultUpdatingMutex);
  // A few lists are live at a time (one per function being verified); the
  // ones of earlier versions of the functions are dropped now and then.
  if (firstResultUpdating.size() > 64)
    firstResultUpdating.clear();
  auto &entry = firstResultUpdating[func.getResAttrsAttr()];
  if (!entry) {
    entry = std::make_unique<llvm::DenseMap<int64_t, unsigned>>();
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      if (std::optional<unsigned> arg = getUpdatedArg(func, i))
        entry->try_emplace(*arg, i);
  }
  auto it = entry->find(argIndex);
  if (it == entry->end())
    return std::nullopt;
  return it->second;
}

bool MPTDialect::isFirstWarning(Location loc, StringRef message) {
  std::lock_guard<std::mutex> lock(givenWarningsMutex);
  // The set keys on the text's one stored copy.
  StringRef text = givenWarningTexts.insert(message).first->getKey();
  return givenWarnings.insert({loc, text}).second;
}
