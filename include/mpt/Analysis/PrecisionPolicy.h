//===- PrecisionPolicy.h - which ops may run in low precision --*- C++ -*-===//
//
// The allow / deny / infer / clear lists autocast paints with: mpt's default
// lists (docs/Autocast.md), a JSON policy file and the pass's list options.
// Built once per pass run; read-only afterwards, so pass instances running
// on several functions in parallel share it.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_PRECISIONPOLICY_H
#define MPT_ANALYSIS_PRECISIONPOLICY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace mpt {

/// The list an op name is on.
enum class OpList {
  /// Low-precision inputs, FP32 accumulator and output (matmul, conv).
  Allow,
  /// FP32; taints downstream infer/clear ops (exp, log, softmax, losses).
  Deny,
  /// Elementwise arithmetic: low precision when between allow ops.
  Infer,
  /// No numeric effect (data movement): follows its low-precision neighbours.
  Clear,
};
llvm::StringRef stringifyOpList(OpList list);

/// Autocast's `dtype` option: what the step is made low-precision in.
enum class AutocastDtype {
  F16,
  BF16,
  /// bf16 painting; the contractions then take FP8 operands (docs/FP8.md).
  FP8,
  /// bf16 painting; the contractions then take MX block-scaled operands
  /// with E4M3 (MXFP8) or, forward, E2M1 (MXFP4) elements (docs/MX.md).
  MXFP8,
  MXFP4,
};
/// The option's spelling ("f16", "bf16", "fp8", "mxfp8", "mxfp4").
llvm::StringRef stringifyAutocastDtype(AutocastDtype dtype);
/// The type autocast paints low ops in for `dtype`: f16 for f16, bf16 for
/// the others (FP8 and MX change only the contractions, after painting).
mlir::FloatType getPaintType(AutocastDtype dtype, mlir::MLIRContext *context);

/// How infer and clear ops get their precision (docs/Autocast.md).
enum class PolicyLevel {
  /// grappler's painting: an infer op is low only between allow ops and
  /// off every path from a deny op to an infer/deny op.
  Conservative,
  /// PyTorch's type promotion on top: an infer/clear op whose full-size
  /// inputs are all low (an allow op's result counts as low) is low; its
  /// broadcast operands (statistics, per-channel parameters) stay f32 and
  /// its body computes in f32. Elementwise bodies whose deny ops are
  /// bounded (erf) count as infer. The backward reads 16-bit copies of
  /// forward values where they exist (saveLowPrecisionCopies).
  Promote,
};
llvm::StringRef stringifyPolicyLevel(PolicyLevel level);

/// What the user asked for: the part of the pass options (mpt::AutocastOptions,
/// Passes.td) the policy reads, filled by AutocastConfig::initialize.
struct PolicyOptions {
  AutocastDtype dtype = AutocastDtype::F16;
  /// Path of a JSON policy file; empty for none.
  std::string policyFile;
  std::vector<std::string> allow, deny, infer, clear;
  PolicyLevel level = PolicyLevel::Promote;
  /// Keep the loss region in f32 (PrecisionPlan's loss-region rule).
  bool lossRegionF32 = true;
};

class PrecisionPolicy {
public:
  /// Builds the policy from the defaults, the policy file and the options.
  /// Emits one diagnostic and fails on: an unreadable or malformed policy
  /// file (at the file's line, naming the key), an op name that no
  /// registered dialect defines, an op the user put on two lists. May load registered dialects to check op names, so call it
  /// before multi-threaded execution (a pass's initialize()).
  static mlir::FailureOr<PrecisionPolicy> build(mlir::MLIRContext *context,
                                                const PolicyOptions &options);
  /// build() for a pass's initialize(): the policy the pass's copies share,
  /// or null after the diagnostic.
  static std::shared_ptr<const PrecisionPolicy>
  buildShared(mlir::MLIRContext *context, const PolicyOptions &options);

  /// The list `opName` is on, if any.
  std::optional<OpList> lookup(llvm::StringRef opName) const;
  /// Where the entry for `opName` comes from: "default", "policy file
  /// <path>" or "option '<list>'". Empty when the op is on no list.
  llvm::StringRef getSource(llvm::StringRef opName) const;
  /// Whether the user (file or options) listed `opName`: user entries take
  /// precedence over mpt's structural classification of linalg ops.
  bool isUserListed(llvm::StringRef opName) const;

  AutocastDtype getDtype() const { return dtype; }
  /// dtype=fp8: the painting is bf16's; the contractions it puts in bf16
  /// then take FP8 operands (applyFp8DelayedScaling).
  bool isFp8() const { return dtype == AutocastDtype::FP8; }
  /// dtype=mxfp8 / mxfp4: the painting is bf16's; the contractions it puts
  /// in bf16 then take MX block-scaled operands (applyMxScaling). Empty for
  /// other dtypes.
  llvm::StringRef getMx() const {
    return dtype == AutocastDtype::MXFP8 || dtype == AutocastDtype::MXFP4
               ? stringifyAutocastDtype(dtype)
               : "";
  }
  PolicyLevel getLevel() const { return level; }
  /// Whether the ops between the last forward contraction and the loss,
  /// and from the seed to the first backward contraction, stay f32.
  bool keepsLossRegionF32() const { return lossRegionF32; }
  /// The type low ops are painted in (getPaintType of the dtype).
  mlir::FloatType getLowType() const { return lowType; }
  llvm::StringRef getLowTypeName() const;
  /// Largest finite and smallest positive (subnormal) magnitude of the low
  /// type: values outside them overflow to inf or flush to zero.
  double getLowTypeMax() const;
  double getLowTypeMinSubnormal() const;

private:
  struct Entry {
    OpList list;
    bool user = false;
    std::string source;
  };
  llvm::StringMap<Entry> entries;
  /// The entries that name a family ("linalg.conv_*"), split at the '*'.
  struct Pattern {
    std::string prefix, suffix;
    OpList list;
  };
  std::vector<Pattern> patterns;
  AutocastDtype dtype = AutocastDtype::F16;
  mlir::FloatType lowType;
  PolicyLevel level = PolicyLevel::Promote;
  bool lossRegionF32 = true;
};

} // namespace mpt

#endif // MPT_ANALYSIS_PRECISIONPOLICY_H
