//===- PrecisionPolicy.cpp - which ops may run in low precision -----------===//
//
// The default lists follow the anchors (PyTorch autocast's CUDA lists,
// TensorFlow grappler's auto_mixed_precision lists, TVM ToMixedPrecision),
// expressed on MLIR ops; docs/Autocast.md explains each choice.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/PrecisionPolicy.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include <cfloat>

using namespace mlir;
using namespace mpt;

StringRef mpt::stringifyOpList(OpList list) {
  switch (list) {
  case OpList::Allow:
    return "allow";
  case OpList::Deny:
    return "deny";
  case OpList::Infer:
    return "infer";
  case OpList::Clear:
    return "clear";
  }
  llvm_unreachable("unknown list");
}

StringRef mpt::stringifyPolicyLevel(PolicyLevel level) {
  switch (level) {
  case PolicyLevel::Conservative:
    return "conservative";
  case PolicyLevel::Promote:
    return "promote";
  }
  llvm_unreachable("unknown policy level");
}

StringRef mpt::stringifyAutocastDtype(AutocastDtype dtype) {
  switch (dtype) {
  case AutocastDtype::F16:
    return "f16";
  case AutocastDtype::BF16:
    return "bf16";
  case AutocastDtype::FP8:
    return "fp8";
  case AutocastDtype::MXFP8:
    return "mxfp8";
  case AutocastDtype::MXFP4:
    return "mxfp4";
  }
  llvm_unreachable("unknown autocast dtype");
}

FloatType mpt::getPaintType(AutocastDtype dtype, MLIRContext *context) {
  if (dtype == AutocastDtype::F16)
    return Float16Type::get(context);
  // bf16 has FP32's exponent range; FP8 and MX rewrite the contractions of
  // the bf16 painting.
  return BFloat16Type::get(context);
}

namespace {
// linalg.generic, linalg.map and linalg.reduce are not listed: they are
// classified by their structure and body (PrecisionPlan.cpp). Named linalg
// contractions and convolutions are also recognised structurally; listing
// them keeps the report's reason precise.
const char *const kDefaultAllow[] = {
    "linalg.matmul", "linalg.batch_matmul", "linalg.batch_reduce_matmul",
    "linalg.contract", "linalg.matvec", "linalg.vecmat", "linalg.batch_matvec",
    "linalg.batch_vecmat", "linalg.dot", "linalg.mmt4d", "linalg.batch_mmt4d",
    "linalg.conv_*", "linalg.depthwise_conv_*",
    "tosa.matmul", "tosa.conv2d", "tosa.conv3d", "tosa.depthwise_conv2d",
    "tosa.transpose_conv2d"};

const char *const kDefaultDeny[] = {
    // Large |f(x)| or poor relative accuracy in low precision (PyTorch's
    // fp32 list, TVM's never list).
    "math.exp", "math.exp2", "math.expm1", "math.log", "math.log10",
    "math.log1p", "math.log2", "math.powf", "math.fpowi", "math.ipowi",
    "math.rsqrt", "math.tan", "math.acos", "math.asin", "math.acosh",
    "math.asinh", "math.atanh", "math.sinh", "math.cosh", "math.erf",
    "math.erfc",
    "linalg.softmax", "linalg.exp", "linalg.log", "linalg.powf",
    "linalg.rsqrt", "linalg.erf", "linalg.reciprocal",
    "tosa.exp", "tosa.log", "tosa.pow", "tosa.reciprocal", "tosa.rsqrt",
    "tosa.erf",
    // Reductions accumulate in FP32 (grappler: Sum, Mean; TVM: sum, mean).
    "linalg.reduce", "tosa.reduce_sum", "tosa.reduce_prod"};

const char *const kDefaultInfer[] = {
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf",
    "arith.sitofp", "arith.uitofp",
    "math.tanh", "math.sqrt", "math.fma", "math.sin", "math.cos",
    "math.atan", "math.atan2",
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.tanh",
    "linalg.sqrt", "linalg.square", "linalg.elementwise",
    "tosa.add", "tosa.sub", "tosa.mul", "tosa.tanh", "tosa.sigmoid",
    "tosa.clamp"};

const char *const kDefaultClear[] = {
    // Exact in any floating-point type.
    "arith.negf", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
    "arith.minnumf", "arith.select", "arith.cmpf", "math.absf", "math.copysign",
    "math.floor", "math.ceil", "math.round", "math.roundeven", "math.trunc",
    "linalg.transpose", "linalg.broadcast", "linalg.fill", "linalg.copy",
    "linalg.abs", "linalg.negf", "linalg.max", "linalg.min", "linalg.floor",
    "linalg.ceil", "linalg.round", "linalg.select", "linalg.pooling_*_max",
    "linalg.pooling_*_min",
    "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice",
    "tensor.insert_slice", "tensor.concat", "tensor.pad", "tensor.reshape",
    "tensor.cast", "tensor.extract",
    "tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.concat",
    "tosa.tile", "tosa.identity", "tosa.maximum", "tosa.minimum",
    "tosa.negate", "tosa.abs", "tosa.reduce_max", "tosa.reduce_min"};

/// Line and column (1-based) of byte `offset` in `text`.
std::pair<unsigned, unsigned> lineAndColumn(StringRef text, size_t offset) {
  offset = std::min(offset, text.size());
  StringRef before = text.take_front(offset);
  unsigned line = before.count('\n') + 1;
  size_t lastNewline = before.rfind('\n');
  unsigned column =
      lastNewline == StringRef::npos ? offset + 1 : offset - lastNewline;
  return {line, column};
}

/// Emits errors located in the policy file.
struct PolicyFileDiagnostics {
  MLIRContext *context;
  std::string path;
  StringRef text;

  Location at(size_t offset) {
    auto [line, column] = lineAndColumn(text, offset);
    return FileLineColLoc::get(context, path, line, column);
  }
  /// The offset of `"needle"` at or after `from` (0 when not found).
  size_t find(StringRef needle, size_t from = 0) {
    size_t pos = text.find(("\"" + needle + "\"").str(), from);
    return pos == StringRef::npos ? 0 : pos;
  }
};
} // namespace

static std::optional<OpList> parseListName(StringRef name) {
  if (name == "allow")
    return OpList::Allow;
  if (name == "deny")
    return OpList::Deny;
  if (name == "infer")
    return OpList::Infer;
  if (name == "clear")
    return OpList::Clear;
  return std::nullopt;
}

/// Whether a registered dialect defines `opName` (loading the dialect from
/// the registry if needed). Fills `why` when it does not.
static bool isKnownOpName(MLIRContext *context, StringRef opName,
                          std::string &why) {
  auto [dialectName, rest] = opName.split('.');
  if (rest.empty()) {
    why = "'" + opName.str() + "' is not an op name (expected dialect.op)";
    return false;
  }
  if (!context->getOrLoadDialect(dialectName)) {
    why = "unknown op '" + opName.str() + "': no registered dialect '" +
          dialectName.str() + "'";
    return false;
  }
  if (!RegisteredOperationName::lookup(opName, context)) {
    why = "unknown op '" + opName.str() + "': dialect '" + dialectName.str() +
          "' defines no such op";
    return false;
  }
  return true;
}

namespace {
/// One user entry, with where it came from for diagnostics.
struct UserEntry {
  std::string name;
  OpList list;
  std::string source;
  Location loc;
  /// From a command-line option: overrides the policy file.
  bool fromOption = false;
};
} // namespace

std::shared_ptr<const PrecisionPolicy>
PrecisionPolicy::buildShared(MLIRContext *context,
                             const PolicyOptions &options) {
  FailureOr<PrecisionPolicy> built = build(context, options);
  if (failed(built))
    return nullptr;
  return std::make_shared<const PrecisionPolicy>(std::move(*built));
}

FailureOr<PrecisionPolicy>
PrecisionPolicy::build(MLIRContext *context, const PolicyOptions &options) {
  PrecisionPolicy policy;
  policy.level = options.level;
  policy.lossRegionF32 = options.lossRegionF32;
  policy.dtype = options.dtype;
  policy.lowType = getPaintType(options.dtype, context);
  Location unknown = UnknownLoc::get(context);

  auto addDefaults = [&](ArrayRef<const char *> names, OpList list) {
    for (const char *name : names)
      policy.entries[name] = Entry{list, false, "default"};
  };
  addDefaults(kDefaultAllow, OpList::Allow);
  addDefaults(kDefaultDeny, OpList::Deny);
  addDefaults(kDefaultInfer, OpList::Infer);
  addDefaults(kDefaultClear, OpList::Clear);

  SmallVector<UserEntry> userEntries;
  SmallVector<std::string> removed;

  if (!options.policyFile.empty()) {
    // A policy is a small JSON file; a device or a huge file is a mistake
    // that must not be read until memory runs out.
    constexpr uint64_t kMaxPolicyBytes = 1 << 20;
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(options.policyFile, status) &&
        (status.type() != llvm::sys::fs::file_type::regular_file ||
         status.getSize() > kMaxPolicyBytes))
      return emitError(unknown)
                 << "autocast policy file '" << options.policyFile << "' "
                 << (status.type() != llvm::sys::fs::file_type::regular_file
                         ? "is not a regular file"
                         : "is larger than 1 MiB"),
             failure();
    auto buffer = llvm::MemoryBuffer::getFile(options.policyFile);
    if (!buffer)
      return emitError(unknown)
                 << "cannot read autocast policy file '" << options.policyFile
                 << "': " << buffer.getError().message(),
             failure();
    PolicyFileDiagnostics diags{context, options.policyFile,
                                (*buffer)->getBuffer()};
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse(diags.text);
    if (!parsed) {
      // The parser reports "[line:column, byte=offset]: message".
      std::string message = llvm::toString(parsed.takeError());
      unsigned line = 1, column = 1;
      llvm::SmallVector<StringRef> groups;
      if (llvm::Regex("^\\[([0-9]+):([0-9]+)").match(message, &groups)) {
        groups[1].getAsInteger(10, line);
        groups[2].getAsInteger(10, column);
      }
      StringRef detail = StringRef(message).split("]: ").second;
      return emitError(FileLineColLoc::get(context, options.policyFile, line,
                                           column))
                 << "malformed autocast policy JSON: " << detail,
             failure();
    }
    auto *root = parsed->getAsObject();
    if (!root)
      return emitError(diags.at(0))
                 << "autocast policy must be a JSON object with keys "
                    "\"allow\", \"deny\", \"infer\", \"clear\", \"remove\"",
             failure();
    // Keys in file order, so the first error is the first in the file.
    SmallVector<std::pair<size_t, StringRef>> keys;
    for (auto &kv : *root)
      keys.push_back({diags.find(kv.first), kv.first});
    llvm::sort(keys);
    for (auto [keyOffset, key] : keys) {
      std::optional<OpList> list = parseListName(key);
      if (!list && key != "remove")
        return emitError(diags.at(keyOffset))
                   << "unknown key \"" << key
                   << "\" in autocast policy; expected \"allow\", \"deny\", "
                      "\"infer\", \"clear\" or \"remove\"",
               failure();
      const llvm::json::Array *names = root->getArray(key);
      if (!names)
        return emitError(diags.at(keyOffset))
                   << "key \"" << key
                   << "\" of the autocast policy must be an array of op "
                      "names",
               failure();
      size_t searchFrom = keyOffset;
      for (const llvm::json::Value &value : *names) {
        std::optional<StringRef> name = value.getAsString();
        if (!name)
          return emitError(diags.at(keyOffset))
                     << "key \"" << key
                     << "\" of the autocast policy must hold strings (op "
                        "names)",
                 failure();
        size_t at = diags.find(*name, searchFrom);
        searchFrom = at ? at + 1 : searchFrom;
        std::string why;
        if (!isKnownOpName(context, *name, why))
          return emitError(diags.at(at ? at : keyOffset))
                     << why << " (key \"" << key << "\" of the autocast policy)",
                 failure();
        if (list)
          userEntries.push_back({name->str(), *list,
                                 "policy file " + options.policyFile,
                                 diags.at(at ? at : keyOffset)});
        else
          removed.push_back(name->str());
      }
    }
  }

  auto addOption = [&](const std::vector<std::string> &names, OpList list) {
    for (const std::string &name : names)
      userEntries.push_back({name, list,
                             ("option '" + stringifyOpList(list) + "'").str(),
                             unknown, /*fromOption=*/true});
  };
  addOption(options.allow, OpList::Allow);
  addOption(options.deny, OpList::Deny);
  addOption(options.infer, OpList::Infer);
  addOption(options.clear, OpList::Clear);

  llvm::StringMap<const UserEntry *> seen;
  for (const UserEntry &entry : userEntries) {
    std::string why;
    if (!isKnownOpName(context, entry.name, why))
      return emitError(entry.loc) << why << " (" << entry.source << ")",
             failure();
    auto [it, inserted] = seen.insert({entry.name, &entry});
    // The command line overrides the policy file (options come last, so
    // policy.entries below keeps the option's list); within the file or
    // within the options, two lists are an error.
    if (!inserted && entry.fromOption && !it->second->fromOption) {
      it->second = &entry;
      continue;
    }
    if (!inserted && it->second->list != entry.list)
      return emitError(entry.loc)
                 << "op '" << entry.name << "' is on two autocast lists: "
                 << stringifyOpList(it->second->list) << " ("
                 << it->second->source << ") and "
                 << stringifyOpList(entry.list) << " (" << entry.source << ")",
             failure();
  }
  for (const std::string &name : removed)
    policy.entries.erase(name);
  for (const UserEntry &entry : userEntries)
    policy.entries[entry.name] = Entry{entry.list, true, entry.source};
  for (const auto &entry : policy.entries) {
    auto [prefix, suffix] = entry.getKey().split('*');
    if (prefix.size() != entry.getKey().size())
      policy.patterns.push_back(
          {prefix.str(), suffix.str(), entry.getValue().list});
  }
  return policy;
}

std::optional<OpList> PrecisionPolicy::lookup(StringRef opName) const {
  auto it = entries.find(opName);
  if (it != entries.end())
    return it->second.list;
  // Families given as "prefix*" or "prefix*suffix" (linalg.conv_*).
  for (const Pattern &pattern : patterns)
    if (opName.size() >= pattern.prefix.size() + pattern.suffix.size() &&
        opName.starts_with(pattern.prefix) && opName.ends_with(pattern.suffix))
      return pattern.list;
  return std::nullopt;
}

StringRef PrecisionPolicy::getSource(StringRef opName) const {
  auto it = entries.find(opName);
  if (it != entries.end())
    return it->second.source;
  return lookup(opName) ? StringRef("default") : StringRef();
}

bool PrecisionPolicy::isUserListed(StringRef opName) const {
  auto it = entries.find(opName);
  return it != entries.end() && it->second.user;
}

StringRef PrecisionPolicy::getLowTypeName() const {
  return lowType.isF16() ? "f16" : "bf16";
}

double PrecisionPolicy::getLowTypeMax() const {
  // f16: (2 - 2^-10) * 2^15; bf16: (2 - 2^-7) * 2^127.
  return lowType.isF16() ? 65504.0 : 3.3895313892515355e38;
}

double PrecisionPolicy::getLowTypeMinSubnormal() const {
  // f16: 2^-24; bf16: 2^-133.
  return lowType.isF16() ? 5.960464477539063e-08 : 9.183549615799121e-41;
}
