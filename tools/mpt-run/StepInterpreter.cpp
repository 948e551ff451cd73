//===- StepInterpreter.cpp - the first steps without compiling ------------===//
//
// See StepInterpreter.h. Values are scalars (a union of double and int64)
// or tensors: strided views of reference-counted byte buffers holding the
// elements in their own type. A linalg op runs as a loop nest over its
// iteration space in the op's loop order (adjacent loops along which every
// operand moves contiguously merged), except that one parallel loop, chosen
// by a small cost model, becomes the innermost and runs as columns of up to
// kColumn elements: each body instruction then loops over a column, so
// decoding costs once per column. A multiply-add runs as one loop over the
// column, in tiles of kTile outputs each summed over all its reduction
// loops, or best in blocks of kWideTile or kTile x kMaxBlockV outputs along
// two parallel loops (a convolution's pixels and filters: a matrix
// multiply's micro-kernel, in AVX-512 or AVX2 registers where the host has
// them), the input strided along the blocks' rows packed first. An op that
// only copies its input (a transpose, a broadcast, a flip) or converts it
// between f32 and bf16 does so along a strided view. The sums of a
// reduction keep their order: only parallel loops move.
//
//===----------------------------------------------------------------------===//
#include "StepInterpreter.h"
#include "Options.h"
#include "RunError.h"

#include "mpt/Pipelines/LowerToCPU.h"
#include "mpt/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace mlir;
using namespace mpt;

namespace {

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

enum class Kind : uint8_t { F32, F64, BF16, F16, I1, I8, I16, I32, I64 };

std::optional<Kind> getKind(Type type) {
  if (type.isF32())
    return Kind::F32;
  if (type.isF64())
    return Kind::F64;
  if (type.isBF16())
    return Kind::BF16;
  if (type.isF16())
    return Kind::F16;
  if (type.isIndex())
    return Kind::I64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return Kind::I1;
    case 8:
      return Kind::I8;
    case 16:
      return Kind::I16;
    case 32:
      return Kind::I32;
    case 64:
      return Kind::I64;
    }
  }
  return std::nullopt;
}

bool isFloat(Kind kind) { return kind <= Kind::F16; }

unsigned getSize(Kind kind) {
  switch (kind) {
  case Kind::F64:
  case Kind::I64:
    return 8;
  case Kind::F32:
  case Kind::I32:
    return 4;
  case Kind::BF16:
  case Kind::F16:
  case Kind::I16:
    return 2;
  default:
    return 1;
  }
}

unsigned getBits(Kind kind) { return kind == Kind::I1 ? 1 : getSize(kind) * 8; }

union Val {
  double f;
  int64_t i;
};

float bf16ToFloat(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &word, 4);
  return f;
}

// Round to nearest even, as LLVM's fptrunc to bf16 does.
uint16_t floatToBF16(float f) {
  uint32_t word;
  std::memcpy(&word, &f, 4);
  if (std::isnan(f))
    return uint16_t((word >> 16) | 0x40);
  word += 0x7fff + ((word >> 16) & 1);
  return uint16_t(word >> 16);
}

/// `x` rounded to `kind` as the compiled code rounds an op's result: f32
/// exactly (double holds every f32 sum, product and quotient exactly enough
/// to round once), bf16 and f16 through f32 (LLVM computes them in f32).
inline double roundTo(Kind kind, double x) {
  switch (kind) {
  case Kind::F32:
    return double(float(x));
  case Kind::BF16:
    return double(bf16ToFloat(floatToBF16(float(x))));
  case Kind::F16:
    return double(_Float16(float(x)));
  default:
    return x;
  }
}

/// An integer of `kind` held sign-extended in 64 bits (i1: 0 or 1).
inline int64_t wrapTo(Kind kind, int64_t x) {
  switch (kind) {
  case Kind::I1:
    return x & 1;
  case Kind::I8:
    return int8_t(x);
  case Kind::I16:
    return int16_t(x);
  case Kind::I32:
    return int32_t(x);
  default:
    return x;
  }
}

/// The value of `x` as an unsigned integer of `kind`.
inline uint64_t asUnsigned(Kind kind, int64_t x) {
  unsigned bits = getBits(kind);
  return bits == 64 ? uint64_t(x) : uint64_t(x) & ((uint64_t(1) << bits) - 1);
}

inline Val load(Kind kind, const uint8_t *p) {
  Val v{};
  switch (kind) {
  case Kind::F32: {
    float f;
    std::memcpy(&f, p, 4);
    v.f = f;
    break;
  }
  case Kind::F64:
    std::memcpy(&v.f, p, 8);
    break;
  case Kind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    v.f = bf16ToFloat(bits);
    break;
  }
  case Kind::F16: {
    _Float16 h;
    std::memcpy(&h, p, 2);
    v.f = double(h);
    break;
  }
  case Kind::I1:
    v.i = *p & 1;
    break;
  case Kind::I8:
    v.i = int8_t(*p);
    break;
  case Kind::I16: {
    int16_t x;
    std::memcpy(&x, p, 2);
    v.i = x;
    break;
  }
  case Kind::I32: {
    int32_t x;
    std::memcpy(&x, p, 4);
    v.i = x;
    break;
  }
  case Kind::I64:
    std::memcpy(&v.i, p, 8);
    break;
  }
  return v;
}

inline void store(Kind kind, uint8_t *p, Val v) {
  switch (kind) {
  case Kind::F32: {
    float f = float(v.f);
    std::memcpy(p, &f, 4);
    break;
  }
  case Kind::F64:
    std::memcpy(p, &v.f, 8);
    break;
  case Kind::BF16: {
    uint16_t bits = floatToBF16(float(v.f));
    std::memcpy(p, &bits, 2);
    break;
  }
  case Kind::F16: {
    _Float16 h = _Float16(float(v.f));
    std::memcpy(p, &h, 2);
    break;
  }
  case Kind::I1:
    *p = uint8_t(v.i & 1);
    break;
  case Kind::I8:
    *p = uint8_t(v.i);
    break;
  case Kind::I16: {
    int16_t x = int16_t(v.i);
    std::memcpy(p, &x, 2);
    break;
  }
  case Kind::I32: {
    int32_t x = int32_t(v.i);
    std::memcpy(p, &x, 4);
    break;
  }
  case Kind::I64:
    std::memcpy(p, &v.i, 8);
    break;
  }
}

/// `n` elements from `p` at `stride` elements into `out`.
void gather(Kind kind, const uint8_t *p, int64_t stride, int64_t n, Val *out) {
  switch (kind) {
  case Kind::F32: {
    const float *q = reinterpret_cast<const float *>(p);
    for (int64_t j = 0; j < n; ++j)
      out[j].f = q[j * stride];
    return;
  }
  case Kind::F64: {
    const double *q = reinterpret_cast<const double *>(p);
    for (int64_t j = 0; j < n; ++j)
      out[j].f = q[j * stride];
    return;
  }
  case Kind::BF16: {
    const uint16_t *q = reinterpret_cast<const uint16_t *>(p);
    for (int64_t j = 0; j < n; ++j)
      out[j].f = bf16ToFloat(q[j * stride]);
    return;
  }
  default: {
    size_t step = size_t(stride) * getSize(kind);
    for (int64_t j = 0; j < n; ++j)
      out[j] = load(kind, p + j * step);
  }
  }
}

void scatter(Kind kind, uint8_t *p, int64_t stride, int64_t n, const Val *in) {
  switch (kind) {
  case Kind::F32: {
    float *q = reinterpret_cast<float *>(p);
    for (int64_t j = 0; j < n; ++j)
      q[j * stride] = float(in[j].f);
    return;
  }
  case Kind::F64: {
    double *q = reinterpret_cast<double *>(p);
    for (int64_t j = 0; j < n; ++j)
      q[j * stride] = in[j].f;
    return;
  }
  case Kind::BF16: {
    uint16_t *q = reinterpret_cast<uint16_t *>(p);
    for (int64_t j = 0; j < n; ++j)
      q[j * stride] = floatToBF16(float(in[j].f));
    return;
  }
  default: {
    size_t step = size_t(stride) * getSize(kind);
    for (int64_t j = 0; j < n; ++j)
      store(kind, p + j * step, in[j]);
  }
  }
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

using Storage = std::vector<uint8_t>;

struct Tensor {
  std::shared_ptr<Storage> storage;
  Kind kind = Kind::F32;
  int64_t offset = 0; // elements
  SmallVector<int64_t, 4> shape, strides;

  int64_t getNumElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  uint8_t *at(int64_t elements) const {
    return storage->data() + elements * getSize(kind);
  }
  bool isContiguous() const {
    int64_t expected = 1;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expected)
        return false;
      expected *= shape[d];
    }
    return true;
  }
};

SmallVector<int64_t, 4> getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// A new zero-filled contiguous tensor.
Tensor makeTensor(Kind kind, ArrayRef<int64_t> shape) {
  Tensor t;
  t.kind = kind;
  t.shape.assign(shape.begin(), shape.end());
  t.strides = getRowMajorStrides(shape);
  t.storage = std::make_shared<Storage>(
      size_t(std::max<int64_t>(t.getNumElements(), 1)) * getSize(kind));
  return t;
}

/// Two views of one shape, walked together: size-1 dimensions dropped and
/// adjacent ones merged where both views step across them evenly, so that
/// rows are as long as the layouts allow (a transpose of 3x3 filters: rows
/// of 9, not of 3).
struct ViewPair {
  SmallVector<int64_t, 4> shape, dstStrides, srcStrides;

  ViewPair(ArrayRef<int64_t> fullShape, ArrayRef<int64_t> dst,
           ArrayRef<int64_t> src) {
    for (size_t d = 0; d < fullShape.size(); ++d) {
      if (fullShape[d] == 1)
        continue;
      if (!shape.empty() && dstStrides.back() == dst[d] * fullShape[d] &&
          srcStrides.back() == src[d] * fullShape[d]) {
        shape.back() *= fullShape[d];
        dstStrides.back() = dst[d];
        srcStrides.back() = src[d];
        continue;
      }
      shape.push_back(fullShape[d]);
      dstStrides.push_back(dst[d]);
      srcStrides.push_back(src[d]);
    }
    if (shape.empty()) {
      shape.push_back(1);
      dstStrides.push_back(1);
      srcStrides.push_back(1);
    }
  }

  bool isEmpty() const { return llvm::is_contained(shape, 0); }

  /// Calls `row(dst, src, n, dstStride, srcStride)` for each innermost
  /// row, the pointers (to T) moved along the outer dimensions.
  template <typename T, typename S, typename Row>
  void forEachRow(T *dst, S *src, Row row) const {
    size_t rank = shape.size();
    int64_t n = shape[rank - 1], ds = dstStrides[rank - 1],
            ss = srcStrides[rank - 1];
    SmallVector<int64_t, 4> index(rank, 0);
    while (true) {
      row(dst, src, n, ds, ss);
      int64_t d = int64_t(rank) - 2;
      for (; d >= 0; --d) {
        if (++index[d] < shape[d]) {
          dst += dstStrides[d];
          src += srcStrides[d];
          break;
        }
        dst -= (shape[d] - 1) * dstStrides[d];
        src -= (shape[d] - 1) * srcStrides[d];
        index[d] = 0;
      }
      if (d < 0)
        return;
    }
  }
};

/// `f(T())` with T the unsigned integer of an element's size: copies and
/// fills move bits, whatever the kind.
template <typename F> auto withElementBits(Kind kind, F f) {
  switch (getSize(kind)) {
  case 1:
    return f(uint8_t());
  case 2:
    return f(uint16_t());
  case 4:
    return f(uint32_t());
  default:
    return f(uint64_t());
  }
}

/// Copies the elements of kind `kind` of a view of `shape` at `src` to one
/// at `dst` (strides in elements; the two do not overlap).
void copyStrided(Kind kind, uint8_t *dst, ArrayRef<int64_t> dstStrides,
                 const uint8_t *src, ArrayRef<int64_t> srcStrides,
                 ArrayRef<int64_t> shape) {
  ViewPair views(shape, dstStrides, srcStrides);
  if (views.isEmpty())
    return;
  withElementBits(kind, [&](auto bits) {
    using T = decltype(bits);
    views.forEachRow(
        reinterpret_cast<T *>(dst), reinterpret_cast<const T *>(src),
        [](T *d, const T *s, int64_t n, int64_t ds, int64_t ss) {
          if (ds == 1 && ss == 1) {
            std::memcpy(d, s, n * sizeof(T));
            return;
          }
          for (int64_t j = 0; j < n; ++j)
            d[j * ds] = s[j * ss];
        });
  });
}

/// Converts the f32 elements of a view of `shape` at `src` to bf16 at `dst`
/// or the bf16 ones to f32 (`srcKind`), as the column loop's truncf (round
/// to nearest even, NaNs quiet) and extf do.
void convertStrided(Kind srcKind, uint8_t *dst, ArrayRef<int64_t> dstStrides,
                    const uint8_t *src, ArrayRef<int64_t> srcStrides,
                    ArrayRef<int64_t> shape) {
  ViewPair views(shape, dstStrides, srcStrides);
  if (views.isEmpty())
    return;
  auto convert = [&](auto *d, const auto *s, auto element) {
    views.forEachRow(d, s,
                     [&](auto *dr, const auto *sr, int64_t n, int64_t ds,
                         int64_t ss) {
                       for (int64_t j = 0; j < n; ++j)
                         dr[j * ds] = element(sr[j * ss]);
                     });
  };
  if (srcKind == Kind::F32)
    convert(reinterpret_cast<uint16_t *>(dst),
            reinterpret_cast<const float *>(src),
            [](float f) { return floatToBF16(f); });
  else
    convert(reinterpret_cast<float *>(dst),
            reinterpret_cast<const uint16_t *>(src),
            [](uint16_t bits) { return bf16ToFloat(bits); });
}

Tensor copyToNew(const Tensor &src);

/// Copies `src` into the view `dst` (same shape and kind).
void copyInto(const Tensor &dst, const Tensor &src) {
  // Views of one buffer may overlap: through a copy of the source.
  if (dst.storage == src.storage) {
    copyInto(dst, copyToNew(src));
    return;
  }
  copyStrided(src.kind, dst.at(dst.offset), dst.strides, src.at(src.offset),
              src.strides, src.shape);
}

Tensor copyToNew(const Tensor &src) {
  Tensor t = makeTensor(src.kind, src.shape);
  copyInto(t, src);
  return t;
}

void fillWith(const Tensor &dst, Val value) {
  ViewPair views(dst.shape, dst.strides, dst.strides);
  if (views.isEmpty())
    return;
  withElementBits(dst.kind, [&](auto bits) {
    using T = decltype(bits);
    T element;
    uint8_t bytes[8];
    store(dst.kind, bytes, value);
    std::memcpy(&element, bytes, sizeof(T));
    T *base = reinterpret_cast<T *>(dst.at(dst.offset));
    views.forEachRow(base, base,
                     [&](T *d, T *, int64_t n, int64_t ds, int64_t) {
                       for (int64_t j = 0; j < n; ++j)
                         d[j * ds] = element;
                     });
  });
}

//===----------------------------------------------------------------------===//
// Body instructions
//===----------------------------------------------------------------------===//

enum class Opcode : uint8_t {
  // Float, result rounded to the kind.
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  PowF,
  CopySign,
  NegF,
  AbsF,
  Exp,
  Exp2,
  Log,
  Log2,
  Log1p,
  Expm1,
  Sqrt,
  Rsqrt,
  Tanh,
  Erf,
  Floor,
  Ceil,
  Round,
  RoundEven,
  Trunc,
  Sin,
  Cos,
  CmpF,
  CmpI,
  Select,
  // Conversions.
  ExtF,
  TruncF,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  ExtSI,
  ExtUI,
  TruncI,
  // Integer, wrapped to the kind.
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  FloorDivSI,
  CeilDivSI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRSI,
  ShRUI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  // linalg.index and tensor.extract.
  Index,
  Extract,
  // cf.assert: no result.
  Assert,
};

struct Instr {
  Opcode opcode;
  Kind kind;    // the result's
  Kind srcKind; // the operands' (comparisons, conversions)
  uint8_t predicate = 0;
  int32_t dst = -1, a = -1, b = -1, c = -1;
  unsigned dim = 0;                // Index: the loop; Extract: its tensor
  SmallVector<int32_t, 4> indices; // Extract: the index registers
};

/// A block decoded into instructions over registers. Registers 0..N-1 are
/// the block's arguments; constants and values from outside the block are
/// registers filled before the first column.
struct Program {
  unsigned numRegisters = 0;
  SmallVector<Instr> instrs;
  SmallVector<std::pair<int32_t, Val>> constants;
  SmallVector<std::pair<int32_t, Value>> outerScalars;
  SmallVector<Value> extractTensors;
  SmallVector<int32_t> yields;
  /// The messages of the body's checks (cf.assert).
  SmallVector<std::string> messages;
  SmallVector<Kind> registerKinds;
};

bool evalCmpF(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

bool evalCmpI(arith::CmpIPredicate p, Kind kind, int64_t a, int64_t b) {
  using P = arith::CmpIPredicate;
  uint64_t ua = asUnsigned(kind, a), ub = asUnsigned(kind, b);
  switch (p) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return ua < ub;
  case P::ule:
    return ua <= ub;
  case P::ugt:
    return ua > ub;
  case P::uge:
    return ua >= ub;
  }
  return false;
}

double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// The tensors a body's tensor.extract reads, and the loop position.
struct ColumnContext {
  ArrayRef<const Tensor *> extractTensors;
  ArrayRef<int64_t> loopIndex; // outer loops' indices
  int batchDim = -1;
  int64_t batchStart = 0;
  const char *error = nullptr;
};

template <typename F>
void unaryF(const Instr &in, Val *r, int64_t B, int64_t n, F f) {
  Val *d = r + in.dst * B;
  const Val *a = r + in.a * B;
  for (int64_t j = 0; j < n; ++j)
    d[j].f = roundTo(in.kind, f(a[j].f));
}

/// A libm function as the compiled code calls it: f64 in double, f32 (and
/// bf16 and f16, which LLVM computes in f32) in float.
template <typename F64, typename F32>
void mathF(const Instr &in, Val *r, int64_t B, int64_t n, F64 f64, F32 f32) {
  Val *d = r + in.dst * B;
  const Val *a = r + in.a * B;
  if (in.kind == Kind::F64) {
    for (int64_t j = 0; j < n; ++j)
      d[j].f = f64(a[j].f);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    d[j].f = roundTo(in.kind, double(f32(float(a[j].f))));
}

template <typename F>
void binaryF(const Instr &in, Val *r, int64_t B, int64_t n, F f) {
  Val *d = r + in.dst * B;
  const Val *a = r + in.a * B, *b = r + in.b * B;
  switch (in.kind) {
  case Kind::F32:
    for (int64_t j = 0; j < n; ++j)
      d[j].f = double(float(f(a[j].f, b[j].f)));
    return;
  case Kind::F64:
    for (int64_t j = 0; j < n; ++j)
      d[j].f = f(a[j].f, b[j].f);
    return;
  default:
    for (int64_t j = 0; j < n; ++j)
      d[j].f = roundTo(in.kind, f(a[j].f, b[j].f));
  }
}

template <typename F>
void binaryI(const Instr &in, Val *r, int64_t B, int64_t n, F f) {
  Val *d = r + in.dst * B;
  const Val *a = r + in.a * B, *b = r + in.b * B;
  for (int64_t j = 0; j < n; ++j)
    d[j].i = wrapTo(in.kind, f(a[j].i, b[j].i));
}

void runInstrs(const Program &program, Val *r, int64_t B, int64_t n,
               ColumnContext &ctx) {
  for (const Instr &in : program.instrs) {
    Val *d = in.dst >= 0 ? r + in.dst * B : nullptr;
    const Val *a = in.a >= 0 ? r + in.a * B : nullptr;
    const Val *b = in.b >= 0 ? r + in.b * B : nullptr;
    switch (in.opcode) {
    case Opcode::AddF:
      binaryF(in, r, B, n, [](double x, double y) { return x + y; });
      break;
    case Opcode::SubF:
      binaryF(in, r, B, n, [](double x, double y) { return x - y; });
      break;
    case Opcode::MulF:
      binaryF(in, r, B, n, [](double x, double y) { return x * y; });
      break;
    case Opcode::DivF:
      binaryF(in, r, B, n, [](double x, double y) { return x / y; });
      break;
    case Opcode::RemF:
      binaryF(in, r, B, n, [](double x, double y) { return std::fmod(x, y); });
      break;
    case Opcode::MaximumF:
      binaryF(in, r, B, n, maximumF);
      break;
    case Opcode::MinimumF:
      binaryF(in, r, B, n, minimumF);
      break;
    case Opcode::MaxNumF:
      binaryF(in, r, B, n, [](double x, double y) { return std::fmax(x, y); });
      break;
    case Opcode::MinNumF:
      binaryF(in, r, B, n, [](double x, double y) { return std::fmin(x, y); });
      break;
    case Opcode::PowF:
      binaryF(in, r, B, n, [&](double x, double y) {
        return in.kind == Kind::F64 ? std::pow(x, y)
                                    : double(powf(float(x), float(y)));
      });
      break;
    case Opcode::CopySign:
      binaryF(in, r, B, n,
              [](double x, double y) { return std::copysign(x, y); });
      break;
    case Opcode::NegF:
      unaryF(in, r, B, n, [](double x) { return -x; });
      break;
    case Opcode::AbsF:
      unaryF(in, r, B, n, [](double x) { return std::fabs(x); });
      break;
    case Opcode::Exp:
      mathF(
          in, r, B, n, [](double x) { return std::exp(x); },
          [](float x) { return expf(x); });
      break;
    case Opcode::Exp2:
      mathF(
          in, r, B, n, [](double x) { return std::exp2(x); },
          [](float x) { return exp2f(x); });
      break;
    case Opcode::Log:
      mathF(
          in, r, B, n, [](double x) { return std::log(x); },
          [](float x) { return logf(x); });
      break;
    case Opcode::Log2:
      mathF(
          in, r, B, n, [](double x) { return std::log2(x); },
          [](float x) { return log2f(x); });
      break;
    case Opcode::Log1p:
      // MLIR's math-to-llvm lowers log1p and expm1 to log(1 + x) and
      // exp(x) - 1 in the operand's type: the compiled step's values.
      mathF(
          in, r, B, n, [](double x) { return std::log(1.0 + x); },
          [](float x) { return logf(1.0f + x); });
      break;
    case Opcode::Expm1:
      mathF(
          in, r, B, n, [](double x) { return std::exp(x) - 1.0; },
          [](float x) { return expf(x) - 1.0f; });
      break;
    case Opcode::Sqrt:
      mathF(
          in, r, B, n, [](double x) { return std::sqrt(x); },
          [](float x) { return sqrtf(x); });
      break;
    case Opcode::Rsqrt:
      mathF(
          in, r, B, n, [](double x) { return 1.0 / std::sqrt(x); },
          [](float x) { return 1.0f / sqrtf(x); });
      break;
    case Opcode::Tanh:
      mathF(
          in, r, B, n, [](double x) { return std::tanh(x); },
          [](float x) { return tanhf(x); });
      break;
    case Opcode::Erf:
      mathF(
          in, r, B, n, [](double x) { return std::erf(x); },
          [](float x) { return erff(x); });
      break;
    case Opcode::Floor:
      unaryF(in, r, B, n, [](double x) { return std::floor(x); });
      break;
    case Opcode::Ceil:
      unaryF(in, r, B, n, [](double x) { return std::ceil(x); });
      break;
    case Opcode::Round:
      unaryF(in, r, B, n, [](double x) { return std::round(x); });
      break;
    case Opcode::RoundEven:
      unaryF(in, r, B, n, [](double x) { return std::nearbyint(x); });
      break;
    case Opcode::Trunc:
      unaryF(in, r, B, n, [](double x) { return std::trunc(x); });
      break;
    case Opcode::Sin:
      mathF(
          in, r, B, n, [](double x) { return std::sin(x); },
          [](float x) { return sinf(x); });
      break;
    case Opcode::Cos:
      mathF(
          in, r, B, n, [](double x) { return std::cos(x); },
          [](float x) { return cosf(x); });
      break;
    case Opcode::CmpF: {
      auto p = arith::CmpFPredicate(in.predicate);
      for (int64_t j = 0; j < n; ++j)
        d[j].i = evalCmpF(p, a[j].f, b[j].f);
      break;
    }
    case Opcode::CmpI: {
      auto p = arith::CmpIPredicate(in.predicate);
      for (int64_t j = 0; j < n; ++j)
        d[j].i = evalCmpI(p, in.srcKind, a[j].i, b[j].i);
      break;
    }
    case Opcode::Select: {
      const Val *c = r + in.c * B;
      for (int64_t j = 0; j < n; ++j)
        d[j] = a[j].i ? b[j] : c[j];
      break;
    }
    case Opcode::ExtF:
      for (int64_t j = 0; j < n; ++j)
        d[j] = a[j];
      break;
    case Opcode::TruncF:
      unaryF(in, r, B, n, [](double x) { return x; });
      break;
    case Opcode::SIToFP:
      for (int64_t j = 0; j < n; ++j)
        d[j].f = roundTo(in.kind, double(a[j].i));
      break;
    case Opcode::UIToFP:
      for (int64_t j = 0; j < n; ++j)
        d[j].f = roundTo(in.kind, double(asUnsigned(in.srcKind, a[j].i)));
      break;
    case Opcode::FPToSI:
    case Opcode::FPToUI:
      for (int64_t j = 0; j < n; ++j)
        d[j].i = wrapTo(
            in.kind, std::isfinite(a[j].f) ? int64_t(std::trunc(a[j].f)) : 0);
      break;
    case Opcode::ExtSI:
    case Opcode::TruncI:
      for (int64_t j = 0; j < n; ++j)
        d[j].i = wrapTo(in.kind, a[j].i);
      break;
    case Opcode::ExtUI:
      for (int64_t j = 0; j < n; ++j)
        d[j].i = wrapTo(in.kind, int64_t(asUnsigned(in.srcKind, a[j].i)));
      break;
    case Opcode::AddI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) {
        return int64_t(uint64_t(x) + uint64_t(y));
      });
      break;
    case Opcode::SubI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) {
        return int64_t(uint64_t(x) - uint64_t(y));
      });
      break;
    case Opcode::MulI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) {
        return int64_t(uint64_t(x) * uint64_t(y));
      });
      break;
    case Opcode::DivSI:
    case Opcode::RemSI:
    case Opcode::FloorDivSI:
    case Opcode::CeilDivSI:
    case Opcode::DivUI:
    case Opcode::RemUI:
      for (int64_t j = 0; j < n; ++j) {
        int64_t x = a[j].i, y = b[j].i;
        if (y == 0) {
          ctx.error = "division by zero";
          d[j].i = 0;
          continue;
        }
        uint64_t ux = asUnsigned(in.kind, x), uy = asUnsigned(in.kind, y);
        int64_t q = y == -1 ? int64_t(0 - uint64_t(x)) : x / y;
        int64_t v = 0;
        switch (in.opcode) {
        case Opcode::DivSI:
          v = q;
          break;
        case Opcode::RemSI:
          v = y == -1 ? 0 : x % y;
          break;
        case Opcode::FloorDivSI:
          v = (y != -1 && x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
          break;
        case Opcode::CeilDivSI:
          v = (y != -1 && x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
          break;
        case Opcode::DivUI:
          v = int64_t(ux / uy);
          break;
        default:
          v = int64_t(ux % uy);
        }
        d[j].i = wrapTo(in.kind, v);
      }
      break;
    case Opcode::AndI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) { return x & y; });
      break;
    case Opcode::OrI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) { return x | y; });
      break;
    case Opcode::XOrI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) { return x ^ y; });
      break;
    case Opcode::ShLI:
    case Opcode::ShRSI:
    case Opcode::ShRUI: {
      unsigned bits = getBits(in.kind);
      for (int64_t j = 0; j < n; ++j) {
        uint64_t s = uint64_t(b[j].i);
        int64_t x = a[j].i, v = 0; // out-of-range shifts are poison: 0
        if (s < bits) {
          if (in.opcode == Opcode::ShLI)
            v = int64_t(uint64_t(x) << s);
          else if (in.opcode == Opcode::ShRSI)
            v = x >> s;
          else
            v = int64_t(asUnsigned(in.kind, x) >> s);
        }
        d[j].i = wrapTo(in.kind, v);
      }
      break;
    }
    case Opcode::MaxSI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) { return std::max(x, y); });
      break;
    case Opcode::MinSI:
      binaryI(in, r, B, n, [](int64_t x, int64_t y) { return std::min(x, y); });
      break;
    case Opcode::MaxUI:
    case Opcode::MinUI:
      for (int64_t j = 0; j < n; ++j) {
        uint64_t x = asUnsigned(in.kind, a[j].i),
                 y = asUnsigned(in.kind, b[j].i);
        d[j].i = wrapTo(in.kind,
                        int64_t(in.opcode == Opcode::MaxUI ? std::max(x, y)
                                                           : std::min(x, y)));
      }
      break;
    case Opcode::Index:
      if (int(in.dim) == ctx.batchDim) {
        for (int64_t j = 0; j < n; ++j)
          d[j].i = ctx.batchStart + j;
      } else {
        for (int64_t j = 0; j < n; ++j)
          d[j].i = ctx.loopIndex[in.dim];
      }
      break;
    case Opcode::Assert:
      for (int64_t j = 0; j < n; ++j)
        if (a[j].i == 0)
          ctx.error = program.messages[in.dim].c_str();
      break;
    case Opcode::Extract: {
      const Tensor &t = *ctx.extractTensors[in.dim];
      for (int64_t j = 0; j < n; ++j) {
        int64_t offset = t.offset;
        bool inBounds = true;
        for (auto [k, reg] : llvm::enumerate(in.indices)) {
          int64_t idx = r[reg * B + j].i;
          inBounds &= idx >= 0 && idx < t.shape[k];
          offset += idx * t.strides[k];
        }
        if (!inBounds) {
          ctx.error = "tensor.extract out of bounds";
          d[j].i = 0;
          continue;
        }
        d[j] = load(t.kind, t.at(offset));
      }
      break;
    }
    }
  }
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

/// Why the interpreter cannot run the step: the op and a reason.
struct Unsupported {
  Operation *op;
  std::string reason;
};

std::optional<Opcode> getOpcode(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Opcode>>(op)
      .Case([](arith::AddFOp) { return Opcode::AddF; })
      .Case([](arith::SubFOp) { return Opcode::SubF; })
      .Case([](arith::MulFOp) { return Opcode::MulF; })
      .Case([](arith::DivFOp) { return Opcode::DivF; })
      .Case([](arith::RemFOp) { return Opcode::RemF; })
      .Case([](arith::MaximumFOp) { return Opcode::MaximumF; })
      .Case([](arith::MinimumFOp) { return Opcode::MinimumF; })
      .Case([](arith::MaxNumFOp) { return Opcode::MaxNumF; })
      .Case([](arith::MinNumFOp) { return Opcode::MinNumF; })
      .Case([](math::PowFOp) { return Opcode::PowF; })
      .Case([](math::CopySignOp) { return Opcode::CopySign; })
      .Case([](arith::NegFOp) { return Opcode::NegF; })
      .Case([](math::AbsFOp) { return Opcode::AbsF; })
      .Case([](math::ExpOp) { return Opcode::Exp; })
      .Case([](math::Exp2Op) { return Opcode::Exp2; })
      .Case([](math::LogOp) { return Opcode::Log; })
      .Case([](math::Log2Op) { return Opcode::Log2; })
      .Case([](math::Log1pOp) { return Opcode::Log1p; })
      .Case([](math::ExpM1Op) { return Opcode::Expm1; })
      .Case([](math::SqrtOp) { return Opcode::Sqrt; })
      .Case([](math::RsqrtOp) { return Opcode::Rsqrt; })
      .Case([](math::TanhOp) { return Opcode::Tanh; })
      .Case([](math::ErfOp) { return Opcode::Erf; })
      .Case([](math::FloorOp) { return Opcode::Floor; })
      .Case([](math::CeilOp) { return Opcode::Ceil; })
      .Case([](math::RoundOp) { return Opcode::Round; })
      .Case([](math::RoundEvenOp) { return Opcode::RoundEven; })
      .Case([](math::TruncOp) { return Opcode::Trunc; })
      .Case([](math::SinOp) { return Opcode::Sin; })
      .Case([](math::CosOp) { return Opcode::Cos; })
      .Case([](arith::CmpFOp) { return Opcode::CmpF; })
      .Case([](arith::CmpIOp) { return Opcode::CmpI; })
      .Case([](arith::SelectOp) { return Opcode::Select; })
      .Case([](arith::ExtFOp) { return Opcode::ExtF; })
      .Case([](arith::TruncFOp) { return Opcode::TruncF; })
      .Case([](arith::SIToFPOp) { return Opcode::SIToFP; })
      .Case([](arith::UIToFPOp) { return Opcode::UIToFP; })
      .Case([](arith::FPToSIOp) { return Opcode::FPToSI; })
      .Case([](arith::FPToUIOp) { return Opcode::FPToUI; })
      .Case([](arith::ExtSIOp) { return Opcode::ExtSI; })
      .Case([](arith::ExtUIOp) { return Opcode::ExtUI; })
      .Case([](arith::TruncIOp) { return Opcode::TruncI; })
      .Case([](arith::IndexCastOp) { return Opcode::ExtSI; })
      .Case([](arith::IndexCastUIOp) { return Opcode::ExtUI; })
      .Case([](arith::AddIOp) { return Opcode::AddI; })
      .Case([](arith::SubIOp) { return Opcode::SubI; })
      .Case([](arith::MulIOp) { return Opcode::MulI; })
      .Case([](arith::DivSIOp) { return Opcode::DivSI; })
      .Case([](arith::DivUIOp) { return Opcode::DivUI; })
      .Case([](arith::RemSIOp) { return Opcode::RemSI; })
      .Case([](arith::RemUIOp) { return Opcode::RemUI; })
      .Case([](arith::FloorDivSIOp) { return Opcode::FloorDivSI; })
      .Case([](arith::CeilDivSIOp) { return Opcode::CeilDivSI; })
      .Case([](arith::AndIOp) { return Opcode::AndI; })
      .Case([](arith::OrIOp) { return Opcode::OrI; })
      .Case([](arith::XOrIOp) { return Opcode::XOrI; })
      .Case([](arith::ShLIOp) { return Opcode::ShLI; })
      .Case([](arith::ShRSIOp) { return Opcode::ShRSI; })
      .Case([](arith::ShRUIOp) { return Opcode::ShRUI; })
      .Case([](arith::MaxSIOp) { return Opcode::MaxSI; })
      .Case([](arith::MinSIOp) { return Opcode::MinSI; })
      .Case([](arith::MaxUIOp) { return Opcode::MaxUI; })
      .Case([](arith::MinUIOp) { return Opcode::MinUI; })
      .Case([](linalg::IndexOp) { return Opcode::Index; })
      .Case([](tensor::ExtractOp) { return Opcode::Extract; })
      .Default([](Operation *) { return std::nullopt; });
}

/// A scalar attribute's value (float, integer or index).
std::optional<Val> getScalarConstant(Attribute attr) {
  Val v{};
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    v.f = f.getValue().convertToDouble();
    return v;
  }
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    v.i = i.getType().isInteger(1) ? int64_t(i.getValue().getZExtValue() & 1)
                                   : i.getValue().getSExtValue();
    return v;
  }
  return std::nullopt;
}

/// The register program of `block`, whose arguments map to registers
/// 0..N-1; or, given `onlyOps`, of those ops of it alone, whose operands are
/// then all read from outside. Values from outside become outer scalars.
FailureOr<Program> decodeBlock(Block &block, std::optional<Unsupported> &why,
                               ArrayRef<Operation *> onlyOps = {}) {
  Program program;
  DenseMap<Value, int32_t> registers;
  auto addRegister = [&](Value v) -> FailureOr<int32_t> {
    std::optional<Kind> kind = getKind(v.getType());
    if (!kind)
      return failure();
    registers[v] = int32_t(program.numRegisters++);
    program.registerKinds.push_back(*kind);
    return registers[v];
  };
  for (BlockArgument arg : block.getArguments())
    if (onlyOps.empty() && failed(addRegister(arg))) {
      why = Unsupported{block.getParentOp(),
                        "a body argument of type " +
                            llvm::formatv("{0}", arg.getType()).str()};
      return failure();
    }
  auto use = [&](Value v, Operation *user) -> FailureOr<int32_t> {
    auto it = registers.find(v);
    if (it != registers.end())
      return it->second;
    // Defined outside: a constant or a scalar of the enclosing block.
    FailureOr<int32_t> reg = addRegister(v);
    if (failed(reg)) {
      why = Unsupported{user, "an operand of type " +
                                  llvm::formatv("{0}", v.getType()).str()};
      return failure();
    }
    program.outerScalars.push_back({*reg, v});
    return *reg;
  };
  SmallVector<Operation *> ops;
  if (onlyOps.empty())
    for (Operation &op : block)
      ops.push_back(&op);
  else
    ops.assign(onlyOps.begin(), onlyOps.end());
  for (Operation *op : ops) {
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op->getOperands()) {
        FailureOr<int32_t> reg = use(v, op);
        if (failed(reg))
          return failure();
        program.yields.push_back(*reg);
      }
      continue;
    }
    if (auto check = dyn_cast<cf::AssertOp>(op)) {
      FailureOr<int32_t> reg = use(check.getArg(), op);
      if (failed(reg))
        return failure();
      Instr in;
      in.opcode = Opcode::Assert;
      in.kind = in.srcKind = Kind::I1;
      in.a = *reg;
      in.dim = program.messages.size();
      program.messages.push_back(("check failed: " + check.getMsg()).str());
      program.instrs.push_back(std::move(in));
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      std::optional<Val> v = getScalarConstant(constant.getValue());
      FailureOr<int32_t> reg = addRegister(constant.getResult());
      if (!v || failed(reg)) {
        why = Unsupported{op, "a constant that is not a scalar"};
        return failure();
      }
      program.constants.push_back({*reg, *v});
      continue;
    }
    std::optional<Opcode> opcode = getOpcode(op);
    if (!opcode || op->getNumResults() != 1 || op->getNumRegions() != 0) {
      why = Unsupported{op, "an op the interpreter does not know"};
      return failure();
    }
    Instr in;
    in.opcode = *opcode;
    std::optional<Kind> kind = getKind(op->getResult(0).getType());
    if (!kind) {
      why = Unsupported{
          op, "a result of type " +
                  llvm::formatv("{0}", op->getResult(0).getType()).str()};
      return failure();
    }
    in.kind = *kind;
    in.srcKind = *kind;
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      in.dim = index.getDim();
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      if (registers.count(extract.getTensor()) ||
          !extract.getTensor().getParentBlock() ||
          extract.getTensor().getParentBlock() == &block) {
        why = Unsupported{op, "a tensor.extract of a tensor made in the body"};
        return failure();
      }
      in.dim = program.extractTensors.size();
      program.extractTensors.push_back(extract.getTensor());
      for (Value idx : extract.getIndices()) {
        FailureOr<int32_t> reg = use(idx, op);
        if (failed(reg))
          return failure();
        in.indices.push_back(*reg);
      }
    } else {
      SmallVector<int32_t, 3> operands;
      for (Value v : op->getOperands()) {
        FailureOr<int32_t> reg = use(v, op);
        if (failed(reg))
          return failure();
        operands.push_back(*reg);
      }
      if (operands.size() > 3) {
        why = Unsupported{op, "an op of more than three operands"};
        return failure();
      }
      if (!operands.empty())
        in.a = operands[0];
      if (operands.size() > 1)
        in.b = operands[1];
      if (operands.size() > 2)
        in.c = operands[2];
      if (!operands.empty())
        in.srcKind = program.registerKinds[operands[0]];
      if (auto cmp = dyn_cast<arith::CmpFOp>(op))
        in.predicate = uint8_t(cmp.getPredicate());
      if (auto cmp = dyn_cast<arith::CmpIOp>(op))
        in.predicate = uint8_t(cmp.getPredicate());
      switch (in.opcode) {
      case Opcode::CmpF:
      case Opcode::FPToSI:
      case Opcode::FPToUI:
        if (!isFloat(in.srcKind)) {
          why = Unsupported{op, "operands of a vector or unknown type"};
          return failure();
        }
        break;
      case Opcode::Select:
        if (in.a < 0 || in.b < 0 || in.c < 0) {
          why = Unsupported{op, "a select without three operands"};
          return failure();
        }
        break;
      default:
        break;
      }
    }
    in.dst = *addRegister(op->getResult(0));
    program.instrs.push_back(std::move(in));
  }
  return program;
}

/// A map result as a sum of coefficients times loop indices plus a
/// constant; fails on mod, floordiv, symbols or products of loop indices.
LogicalResult decomposeLinear(AffineExpr expr, SmallVectorImpl<int64_t> &coeffs,
                              int64_t &constant, int64_t scale = 1) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    coeffs[dim.getPosition()] += scale;
    return success();
  }
  if (auto cst = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * cst.getValue();
    return success();
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return failure();
  if (bin.getKind() == AffineExprKind::Add)
    return success(
        succeeded(decomposeLinear(bin.getLHS(), coeffs, constant, scale)) &&
        succeeded(decomposeLinear(bin.getRHS(), coeffs, constant, scale)));
  if (bin.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return decomposeLinear(bin.getLHS(), coeffs, constant,
                             scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return decomposeLinear(bin.getRHS(), coeffs, constant,
                             scale * c.getValue());
  }
  return failure();
}

/// A linalg op decoded: its loops, how each operand's position moves with
/// them, and its body.
struct LinalgPlan {
  Program program;
  SmallVector<int64_t> ranges;
  SmallVector<bool> parallel;
  /// Per operand: per map result, the loop coefficients and the constant.
  SmallVector<SmallVector<SmallVector<int64_t>>> coeffs;
  SmallVector<SmallVector<int64_t>> constants;
  /// Per operand: its block argument's register, or -1.
  SmallVector<int32_t> argRegister;
  unsigned numInputs = 0;
  /// The body is out + in0 * in1 in f32 (a convolution, a matmul): one
  /// loop over the column, no registers.
  bool isMulAddF32 = false;
  /// The body reads loop indices (linalg.index): the loops stay as they are.
  bool readsIndices = false;
  /// The op's operands (inputs, then inits), whether the body reads each,
  /// and its results: read from the IR once, before any other thread runs
  /// (an op's accessors may create attributes in the shared context).
  SmallVector<Value> operands;
  SmallVector<bool> bodyReads;
  SmallVector<Value> results;
  /// The body yields its one input as it is, of the output's type (a
  /// transpose, a broadcast; a flip of weights once its tensor.extract is
  /// an input): the loops copy a strided view of the input.
  bool isCopy = false;
  /// The body yields its one input converted between f32 and bf16 (weights
  /// truncated for a bf16 convolution): the loops convert a strided view.
  bool isConversion = false;
};

/// A slice's offsets, sizes and strides, and the dimensions a
/// rank-reducing one drops (extract_slice, insert_slice).
struct SliceSpec {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  llvm::SmallBitVector dropped;
};

/// A pad's low padding and its value.
struct PadSpec {
  SmallVector<OpFoldResult> low;
  Value value;
};

bool isMulAddF32(const LinalgPlan &plan) {
  const Program &p = plan.program;
  // (Inputs 0 and 1 the body's arguments 0 and 1: not a promoted
  // tensor.extract, promoteLinearExtracts.)
  if (plan.numInputs != 2 || plan.argRegister.size() != 3 ||
      plan.argRegister[0] != 0 || plan.argRegister[1] != 1 ||
      !p.constants.empty() || !p.outerScalars.empty() || p.yields.size() != 1 ||
      p.instrs.size() < 2)
    return false;
  // Inputs 0 and 1, each maybe widened to f32 first (a bf16 convolution
  // into f32), multiplied, added to the output.
  SmallVector<int32_t, 2> widenedFrom = {-1, -1};
  auto source = [&](int32_t reg) -> int32_t {
    if (reg == 0 || reg == 1)
      return reg;
    for (const Instr &in : p.instrs)
      if (in.dst == reg && in.opcode == Opcode::ExtF && in.kind == Kind::F32 &&
          (in.a == 0 || in.a == 1))
        return in.a;
    return -1;
  };
  const Instr &mul = p.instrs[p.instrs.size() - 2];
  const Instr &add = p.instrs.back();
  for (size_t i = 0; i + 2 < p.instrs.size(); ++i)
    if (p.instrs[i].opcode != Opcode::ExtF)
      return false;
  int32_t out = plan.argRegister[2];
  int32_t a = mul.a >= 0 ? source(mul.a) : -1;
  int32_t b = mul.b >= 0 ? source(mul.b) : -1;
  bool mulOk = mul.opcode == Opcode::MulF && mul.kind == Kind::F32 &&
               ((a == 0 && b == 1) || (a == 1 && b == 0));
  bool addOk = add.opcode == Opcode::AddF && add.kind == Kind::F32 &&
               ((add.a == out && add.b == mul.dst) ||
                (add.b == out && add.a == mul.dst));
  return mulOk && addOk && out >= 0 && p.yields[0] == add.dst;
}

/// An f32 or bf16 element as a float.
template <typename T> inline float loadFloat(const T *p);
template <> inline float loadFloat<float>(const float *p) { return *p; }
template <> inline float loadFloat<uint16_t>(const uint16_t *p) {
  return bf16ToFloat(*p);
}

/// c += a * b along a column of `n`, each product and sum rounded to f32
/// as the IR's ops (this file is built without contraction into fused
/// multiply-adds). Along a reduction loop (`sc` 0) the sum stays in order.
template <typename A, typename B>
void mulAddColumn(const uint8_t *aBytes, int64_t sa, const uint8_t *bBytes,
                  int64_t sb, float *c, int64_t sc, int64_t n) {
  const A *a = reinterpret_cast<const A *>(aBytes);
  const B *b = reinterpret_cast<const B *>(bBytes);
  if (sc == 0) {
    float acc = *c;
    for (int64_t j = 0; j < n; ++j)
      acc = acc + loadFloat(a + j * sa) * loadFloat(b + j * sb);
    *c = acc;
  } else if (sc == 1 && sa == 1 && sb == 0) {
    float bv = loadFloat(b);
    for (int64_t j = 0; j < n; ++j)
      c[j] = c[j] + loadFloat(a + j) * bv;
  } else if (sc == 1 && sa == 0 && sb == 1) {
    float av = loadFloat(a);
    for (int64_t j = 0; j < n; ++j)
      c[j] = c[j] + av * loadFloat(b + j);
  } else if (sc == 1 && sa == 1 && sb == 1) {
    for (int64_t j = 0; j < n; ++j)
      c[j] = c[j] + loadFloat(a + j) * loadFloat(b + j);
  } else {
    for (int64_t j = 0; j < n; ++j)
      c[j * sc] = c[j * sc] + loadFloat(a + j * sa) * loadFloat(b + j * sb);
  }
}

using MulAddColumnFn = void (*)(const uint8_t *, int64_t, const uint8_t *,
                                int64_t, float *, int64_t, int64_t);

/// A multiply-add's reduction loops, in their order: their trip counts and
/// the steps of its two inputs along them.
constexpr int kMaxReductions = 8;
struct ReductionLoops {
  int count = 0;
  int64_t ranges[kMaxReductions], aSteps[kMaxReductions],
      bSteps[kMaxReductions];
};

/// Calls `inner(aOffset, bOffset)` at each step of all of `loops` but the
/// innermost, in their order: the inputs' offsets there.
template <typename Inner>
inline void forEachOuterReduction(const ReductionLoops &loops, Inner inner) {
  int64_t index[kMaxReductions] = {};
  int64_t aOffset = 0, bOffset = 0;
  while (true) {
    inner(aOffset, bOffset);
    int d = loops.count - 2;
    for (; d >= 0; --d) {
      if (++index[d] < loops.ranges[d]) {
        aOffset += loops.aSteps[d];
        bOffset += loops.bSteps[d];
        break;
      }
      aOffset -= (loops.ranges[d] - 1) * loops.aSteps[d];
      bOffset -= (loops.ranges[d] - 1) * loops.bSteps[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// The sums of `k` (at most kTile) outputs `scu` apart, whose inputs start
/// `sau` and `sbu` apart, over all of `loops`: k chains of sums kept in
/// registers, each in the loops' order, that the processor overlaps (one
/// chain alone waits on every add). Along the output's contiguous rows
/// with a weight that stays (a convolution's), the tile is a vector.
constexpr int64_t kTile = 8;
/// The blocks' other width, on AVX-512 hosts: one register (more products
/// for each step of the reduction loops).
constexpr int64_t kWideTile = 16;
/// A block's X is packed (runLinalg) when each of its elements is read for
/// at least this many outputs.
constexpr int64_t kPackMinReuse = 4;
template <typename A, typename B>
void mulAddTile(const uint8_t *aBytes, int64_t sau, const uint8_t *bBytes,
                int64_t sbu, float *c, int64_t scu, int64_t k,
                const ReductionLoops &loops) {
  const A *a = reinterpret_cast<const A *>(aBytes);
  const B *b = reinterpret_cast<const B *>(bBytes);
  float acc[kTile];
  for (int64_t t = 0; t < k; ++t)
    acc[t] = c[t * scu];
  int inner = loops.count - 1;
  int64_t n = loops.ranges[inner], sa = loops.aSteps[inner],
          sb = loops.bSteps[inner];
  forEachOuterReduction(loops, [&](int64_t aOffset, int64_t bOffset) {
    const A *ap = a + aOffset;
    const B *bp = b + bOffset;
    if (k == kTile && sau == 1 && sbu == 0) {
      for (int64_t j = 0; j < n; ++j) {
        float bv = loadFloat(bp + j * sb);
        for (int64_t t = 0; t < kTile; ++t)
          acc[t] = acc[t] + loadFloat(ap + t + j * sa) * bv;
      }
    } else if (k == kTile && sau == 0 && sbu == 1) {
      for (int64_t j = 0; j < n; ++j) {
        float av = loadFloat(ap + j * sa);
        for (int64_t t = 0; t < kTile; ++t)
          acc[t] = acc[t] + av * loadFloat(bp + t + j * sb);
      }
    } else if (k == kTile && sau == 0) {
      for (int64_t j = 0; j < n; ++j) {
        float av = loadFloat(ap + j * sa);
        for (int64_t t = 0; t < kTile; ++t)
          acc[t] = acc[t] + av * loadFloat(bp + t * sbu + j * sb);
      }
    } else if (k == kTile && sbu == 0) {
      for (int64_t j = 0; j < n; ++j) {
        float bv = loadFloat(bp + j * sb);
        for (int64_t t = 0; t < kTile; ++t)
          acc[t] = acc[t] + loadFloat(ap + t * sau + j * sa) * bv;
      }
    } else if (k == kTile) {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t t = 0; t < kTile; ++t)
          acc[t] = acc[t] + loadFloat(ap + t * sau + j * sa) *
                                loadFloat(bp + t * sbu + j * sb);
    } else {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t t = 0; t < k; ++t)
          acc[t] = acc[t] + loadFloat(ap + t * sau + j * sa) *
                                loadFloat(bp + t * sbu + j * sb);
    }
  });
  for (int64_t t = 0; t < k; ++t)
    c[t * scu] = acc[t];
}

/// W floats as one value of GCC's and Clang's vector extension (its
/// arithmetic is lane by lane, each lane rounded as a float's), W bf16
/// values' bits, and as many 32-bit words.
template <int W> struct Tile {
  typedef float Floats __attribute__((vector_size(W * sizeof(float))));
  typedef uint16_t BF16s __attribute__((vector_size(W * sizeof(uint16_t))));
  typedef uint32_t Words __attribute__((vector_size(W * sizeof(uint32_t))));
};

/// W values of X (f32 or bf16) `stride` apart, as floats.
template <int W, typename X>
inline void loadTile(typename Tile<W>::Floats &tile, const X *p,
                     int64_t stride) {
  if constexpr (std::is_same_v<X, uint16_t>) {
    // bf16: the values' bits widened and shifted together.
    typename Tile<W>::BF16s bits;
    if (stride == 1)
      std::memcpy(&bits, p, sizeof(bits));
    else
      for (int u = 0; u < W; ++u)
        bits[u] = p[u * stride];
    typename Tile<W>::Words words =
        __builtin_convertvector(bits, typename Tile<W>::Words) << 16;
    std::memcpy(&tile, &words, sizeof(tile));
    return;
  }
  if (std::is_same_v<X, float> && stride == 1) {
    std::memcpy(&tile, p, sizeof(tile));
    return;
  }
  for (int u = 0; u < W; ++u)
    tile[u] = loadFloat(p + u * stride);
}

/// The sums of a block of W x KV outputs over all of `loops`: along a
/// parallel loop u the outputs move by `scu` and input X by `sxu` while Y
/// stays, along another, v, the outputs move by `scv` and Y by `syv` while
/// X stays (a convolution's pixels and filters, a matrix multiply's rows
/// and columns). Each step of the reductions reads W values of X and KV of
/// Y for W * KV products, as a matrix multiply's micro-kernel does; each
/// sum keeps the loops' order. X and Y are the multiply's operands in
/// either order (`loops.aSteps` are X's): a product does not depend on it.
template <typename X, typename Y, int KV, int W>
inline __attribute__((always_inline)) void
mulAddBlock(const uint8_t *xBytes, int64_t sxu, const uint8_t *yBytes,
            int64_t syv, float *c, int64_t scu, int64_t scv,
            const ReductionLoops &loops) {
  using Floats = typename Tile<W>::Floats;
  const X *x = reinterpret_cast<const X *>(xBytes);
  const Y *y = reinterpret_cast<const Y *>(yBytes);
  Floats acc[KV];
  for (int v = 0; v < KV; ++v)
    loadTile<W>(acc[v], c + v * scv, scu);
  int inner = loops.count - 1;
  int64_t n = loops.ranges[inner], sx = loops.aSteps[inner],
          sy = loops.bSteps[inner];
  forEachOuterReduction(loops, [&](int64_t xOffset, int64_t yOffset) {
    const X *xp = x + xOffset;
    const Y *yp = y + yOffset;
    for (int64_t j = 0; j < n; ++j) {
      Floats xv;
      loadTile<W>(xv, xp + j * sx, sxu);
      for (int v = 0; v < KV; ++v)
        acc[v] = acc[v] + xv * loadFloat(yp + v * syv + j * sy);
    }
  });
  for (int v = 0; v < KV; ++v)
    for (int u = 0; u < W; ++u)
      c[v * scv + u * scu] = acc[v][u];
}

using MulAddTileFn = void (*)(const uint8_t *, int64_t, const uint8_t *,
                              int64_t, float *, int64_t, int64_t,
                              const ReductionLoops &);

/// The widest block a kernel sums at once along loop v.
constexpr int kMaxBlockV = 4;
using MulAddBlockFn = void (*)(const uint8_t *, int64_t, const uint8_t *,
                               int64_t, float *, int64_t, int64_t,
                               const ReductionLoops &);

/// mulAddBlock for AVX2 hosts (an 8-wide tile is one register) and for
/// AVX-512 hosts (a 16-wide one): the same lanes and roundings (no fused
/// multiply-adds: the file is compiled with -ffp-contract=off), so the same
/// sums.
template <typename X, typename Y, int KV, int W>
__attribute__((target("avx2"))) void
mulAddBlockAVX2(const uint8_t *x, int64_t sxu, const uint8_t *y, int64_t syv,
                float *c, int64_t scu, int64_t scv,
                const ReductionLoops &loops) {
  mulAddBlock<X, Y, KV, W>(x, sxu, y, syv, c, scu, scv, loops);
}
template <typename X, typename Y, int KV, int W>
__attribute__((target("avx512f"))) void
mulAddBlockAVX512(const uint8_t *x, int64_t sxu, const uint8_t *y,
                  int64_t syv, float *c, int64_t scu, int64_t scv,
                  const ReductionLoops &loops) {
  mulAddBlock<X, Y, KV, W>(x, sxu, y, syv, c, scu, scv, loops);
}
template <typename X, typename Y, int KV, int W>
void mulAddBlockBase(const uint8_t *x, int64_t sxu, const uint8_t *y,
                     int64_t syv, float *c, int64_t scu, int64_t scv,
                     const ReductionLoops &loops) {
  mulAddBlock<X, Y, KV, W>(x, sxu, y, syv, c, scu, scv, loops);
}

/// (Hidden, for tests) the widest kernel clones the interpreter may use,
/// so that a test can run each on a host that has them all.
enum class InterpreterKernels { Auto, AVX2, Base };
llvm::cl::opt<InterpreterKernels> interpreterKernels(
    "interpreter-kernels",
    llvm::cl::desc("The interpreter's block kernels (tests)"),
    llvm::cl::values(
        clEnumValN(InterpreterKernels::Auto, "auto", "the host's widest"),
        clEnumValN(InterpreterKernels::AVX2, "avx2", "at most AVX2's"),
        clEnumValN(InterpreterKernels::Base, "base",
                   "the binary's baseline")),
    llvm::cl::init(InterpreterKernels::Auto), llvm::cl::Hidden);

/// Whether this host runs AVX2 (the block kernels' clones).
bool hostHasAVX2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 && interpreterKernels != InterpreterKernels::Base;
}

/// Whether this host runs AVX-512 (the wide block kernels' clones).
bool hostHasAVX512() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && interpreterKernels == InterpreterKernels::Auto;
}

/// The kernel for blocks of W rows, or null: 16-row blocks only on AVX-512
/// hosts (elsewhere GCC splits a 16-float tile through memory: slower than
/// two 8-row blocks).
template <typename X, typename Y, int KV, int W>
MulAddBlockFn getMulAddBlockFor() {
  if constexpr (W == 16)
    return hostHasAVX512() ? mulAddBlockAVX512<X, Y, KV, W> : nullptr;
  else
    return hostHasAVX2() ? mulAddBlockAVX2<X, Y, KV, W>
                         : mulAddBlockBase<X, Y, KV, W>;
}

template <typename T> struct TypeTag { using type = T; };

/// `f(TypeTag<A>(), TypeTag<B>())` for the element types of a multiply-add's
/// inputs of kinds `a` and `b` (f32: float, bf16: uint16_t); null for other
/// kinds.
template <typename F> auto withInputTypes(Kind a, Kind b, F f) {
  using Result = decltype(f(TypeTag<float>(), TypeTag<float>()));
  auto withB = [&](auto aTag) -> Result {
    if (b == Kind::F32)
      return f(aTag, TypeTag<float>());
    if (b == Kind::BF16)
      return f(aTag, TypeTag<uint16_t>());
    return nullptr;
  };
  if (a == Kind::F32)
    return withB(TypeTag<float>());
  if (a == Kind::BF16)
    return withB(TypeTag<uint16_t>());
  return Result(nullptr);
}

MulAddColumnFn getMulAddColumn(Kind a, Kind b) {
  return withInputTypes(a, b, [](auto aTag, auto bTag) -> MulAddColumnFn {
    return mulAddColumn<typename decltype(aTag)::type,
                        typename decltype(bTag)::type>;
  });
}

MulAddTileFn getMulAddTile(Kind a, Kind b) {
  return withInputTypes(a, b, [](auto aTag, auto bTag) -> MulAddTileFn {
    return mulAddTile<typename decltype(aTag)::type,
                      typename decltype(bTag)::type>;
  });
}

/// The block kernel of `kv` (1 to kMaxBlockV) columns and W (kTile or
/// kWideTile) rows for inputs X and Y of these kinds.
template <int W> MulAddBlockFn getMulAddBlock(Kind x, Kind y, int kv) {
  return withInputTypes(x, y, [kv](auto xTag, auto yTag) -> MulAddBlockFn {
    using X = typename decltype(xTag)::type;
    using Y = typename decltype(yTag)::type;
    switch (kv) {
    case 1:
      return getMulAddBlockFor<X, Y, 1, W>();
    case 2:
      return getMulAddBlockFor<X, Y, 2, W>();
    case 3:
      return getMulAddBlockFor<X, Y, 3, W>();
    case 4:
      return getMulAddBlockFor<X, Y, 4, W>();
    }
    return nullptr;
  });
}

/// Adds `sign` times index `v` (a constant, a loop index, or sums and
/// differences of them) to `coeffs` (per loop) and `constant`.
bool addLinearIndex(Value v, int64_t sign, SmallVectorImpl<int64_t> &coeffs,
                    int64_t &constant, int depth = 0) {
  if (depth > 8)
    return false;
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    constant += sign * *c;
    return true;
  }
  if (auto index = v.getDefiningOp<linalg::IndexOp>()) {
    coeffs[index.getDim()] += sign;
    return true;
  }
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    return addLinearIndex(add.getLhs(), sign, coeffs, constant, depth + 1) &&
           addLinearIndex(add.getRhs(), sign, coeffs, constant, depth + 1);
  if (auto sub = v.getDefiningOp<arith::SubIOp>())
    return addLinearIndex(sub.getLhs(), sign, coeffs, constant, depth + 1) &&
           addLinearIndex(sub.getRhs(), -sign, coeffs, constant, depth + 1);
  return false;
}

/// A tensor.extract's indices as linear maps of the loops.
struct LinearGather {
  /// Per source dimension, the loop coefficients and the constant of its
  /// index.
  SmallVector<SmallVector<int64_t>> coeffs;
  SmallVector<int64_t> constants;
};
/// `extract`'s indices as linear maps of the loops, when each index is one
/// (addLinearIndex) and stays within the source's bounds over all the
/// loops' `ranges`.
std::optional<LinearGather> getLinearGather(tensor::ExtractOp extract,
                                            ArrayRef<int64_t> ranges) {
  auto sourceType = cast<RankedTensorType>(extract.getTensor().getType());
  LinearGather view;
  for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
    SmallVector<int64_t> c(ranges.size(), 0);
    int64_t constant = 0;
    if (!addLinearIndex(index, 1, c, constant))
      return std::nullopt;
    int64_t low = constant, high = constant;
    for (auto [ci, range] : llvm::zip(c, ranges))
      (ci < 0 ? low : high) += ci * (range - 1);
    if (low < 0 || high >= sourceType.getDimSize(dim))
      return std::nullopt;
    view.coeffs.push_back(std::move(c));
    view.constants.push_back(constant);
  }
  return view;
}

/// Drops the instructions whose results nothing reads (checks and
/// tensor.extract stay: they can fail).
void removeDeadInstrs(Program &program) {
  SmallVector<bool> live(program.numRegisters, false);
  for (int32_t reg : program.yields)
    live[reg] = true;
  SmallVector<bool> keep(program.instrs.size(), false);
  for (size_t i = program.instrs.size(); i-- > 0;) {
    const Instr &in = program.instrs[i];
    keep[i] = in.opcode == Opcode::Assert || in.opcode == Opcode::Extract ||
              (in.dst >= 0 && live[in.dst]);
    if (!keep[i])
      continue;
    for (int32_t reg : {in.a, in.b, in.c})
      if (reg >= 0)
        live[reg] = true;
    for (int32_t reg : in.indices)
      live[reg] = true;
  }
  SmallVector<Instr> kept;
  for (auto [i, in] : llvm::enumerate(program.instrs))
    if (keep[i])
      kept.push_back(std::move(in));
  program.instrs = std::move(kept);
}

/// Each tensor.extract in `op`'s body of a tensor from outside at indices
/// linear in the loops and within bounds over all of them (a flip of
/// weights fused with their conversion to bf16) becomes one more input of
/// the plan, whose map the indices are: read a column at a time as any
/// input is, not element by element through the indices' instructions
/// (dropped when nothing else reads them).
void promoteLinearExtracts(linalg::LinalgOp op, LinalgPlan &plan) {
  SmallVector<tensor::ExtractOp> extracts;
  for (Operation &bodyOp : *op.getBlock())
    if (auto extract = dyn_cast<tensor::ExtractOp>(bodyOp))
      extracts.push_back(extract);
  bool promoted = false;
  for (auto [k, extract] : llvm::enumerate(extracts)) {
    auto gather = getLinearGather(extract, plan.ranges);
    if (!gather)
      continue;
    // The k-th tensor.extract is the Extract instruction of tensor k.
    auto in = llvm::find_if(plan.program.instrs, [&](const Instr &in) {
      return in.opcode == Opcode::Extract && in.dim == k;
    });
    if (in == plan.program.instrs.end())
      continue;
    unsigned at = plan.numInputs++;
    plan.coeffs.insert(plan.coeffs.begin() + at, std::move(gather->coeffs));
    plan.constants.insert(plan.constants.begin() + at,
                          std::move(gather->constants));
    plan.argRegister.insert(plan.argRegister.begin() + at, in->dst);
    plan.operands.insert(plan.operands.begin() + at, extract.getTensor());
    plan.bodyReads.insert(plan.bodyReads.begin() + at, true);
    plan.program.instrs.erase(in);
    promoted = true;
  }
  if (promoted)
    removeDeadInstrs(plan.program);
}

FailureOr<LinalgPlan> decodeLinalg(linalg::LinalgOp op,
                                   std::optional<Unsupported> &why) {
  LinalgPlan plan;
  plan.ranges = op.getStaticLoopRanges();
  for (int64_t r : plan.ranges)
    if (ShapedType::isDynamic(r)) {
      why = Unsupported{op, "a loop of dynamic size"};
      return failure();
    }
  for (utils::IteratorType t : op.getIteratorTypesArray())
    plan.parallel.push_back(t == utils::IteratorType::parallel);
  plan.numInputs = op.getNumDpsInputs();
  Block *body = op.getBlock();
  FailureOr<Program> program = decodeBlock(*body, why);
  if (failed(program))
    return failure();
  plan.program = std::move(*program);
  unsigned numLoops = plan.ranges.size();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<SmallVector<int64_t>> operandCoeffs;
    SmallVector<int64_t> operandConstants;
    for (AffineExpr expr : map.getResults()) {
      SmallVector<int64_t> c(numLoops, 0);
      int64_t constant = 0;
      if (failed(decomposeLinear(expr, c, constant))) {
        why = Unsupported{op, "an indexing map that is not linear"};
        return failure();
      }
      operandCoeffs.push_back(std::move(c));
      operandConstants.push_back(constant);
    }
    plan.coeffs.push_back(std::move(operandCoeffs));
    plan.constants.push_back(std::move(operandConstants));
    unsigned number = operand.getOperandNumber();
    plan.argRegister.push_back(
        number < body->getNumArguments() ? int32_t(number) : -1);
  }
  if (int64_t(plan.program.yields.size()) != op.getNumDpsInits()) {
    why = Unsupported{op, "a body that does not yield every output"};
    return failure();
  }
  for (OpOperand &operand : op->getOpOperands()) {
    plan.operands.push_back(operand.get());
    int32_t reg = plan.argRegister[operand.getOperandNumber()];
    plan.bodyReads.push_back(reg >= 0 && !body->getArgument(reg).use_empty());
  }
  promoteLinearExtracts(op, plan);
  plan.isMulAddF32 = isMulAddF32(plan);
  // One input to one output over parallel loops: a copy or a conversion
  // when the body is nothing else.
  if (plan.numInputs == 1 && op.getNumDpsInits() == 1 &&
      llvm::all_of(plan.parallel, [](bool p) { return p; })) {
    const Program &p = plan.program;
    Type from = getElementTypeOrSelf(plan.operands[0].getType());
    Type to = getElementTypeOrSelf(plan.operands[1].getType());
    plan.isCopy = p.instrs.empty() && p.yields[0] == plan.argRegister[0] &&
                  from == to;
    if (p.instrs.size() == 1) {
      const Instr &in = p.instrs[0];
      plan.isConversion =
          in.a == plan.argRegister[0] && in.dst == p.yields[0] &&
          ((in.opcode == Opcode::TruncF && from.isF32() && to.isBF16()) ||
           (in.opcode == Opcode::ExtF && from.isBF16() && to.isF32()));
    }
  }
  plan.readsIndices = llvm::any_of(plan.program.instrs, [](const Instr &in) {
    return in.opcode == Opcode::Index;
  });
  plan.results.assign(op->result_begin(), op->result_end());
  return plan;
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

struct Slot {
  bool isTensor = false;
  Tensor tensor;
  Val scalar{};
};

constexpr int64_t kColumn = 256;

} // namespace

class mpt::StepInterpreter::Impl {
public:
  explicit Impl(func::FuncOp func) : func(func) {}

  LogicalResult prepare(std::optional<Unsupported> &why);
  llvm::Error runStep(ArrayRef<Tensor> args, SmallVectorImpl<Slot> &results);
  double iterations = 0, multiplyAddIterations = 0;

private:
  LogicalResult prepareBlock(Block &block, std::optional<Unsupported> &why);
  llvm::Error runBlock(Block &block, SmallVectorImpl<Slot> &terminatorValues);
  llvm::Error runOp(Operation *op);
  llvm::Error runLinalg(Operation *op, const LinalgPlan &plan);
  llvm::Error fail(Operation *op, const llvm::Twine &message);

  /// A value's slot, set by the op that defines it, which ran before (the
  /// IR is in dominance order). A reference into `env`: adding another
  /// value's slot may move it.
  Slot &get(Value v) {
    auto it = env.find(v);
    if (it != env.end())
      return it->second;
    assert(false && "a value read before its op ran");
    return env[v];
  }
  int64_t getIndex(OpFoldResult ofr) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      return cast<IntegerAttr>(attr).getInt();
    return env[cast<Value>(ofr)].scalar.i;
  }
  /// The buffer op's result `init` becomes: `init`'s own when this is its
  /// last use and nothing else holds it, else a copy (if `keepValues`) or a
  /// new zero tensor.
  Tensor takeDestination(Operation *op, Value init, bool keepValues);
  /// The part of `t` that slice op `op` (extract_slice, insert_slice)
  /// names, or nothing when it is out of bounds.
  std::optional<Tensor> getSliceView(Operation *op, const Tensor &t) {
    const SliceSpec &spec = slices.find(op)->second;
    Tensor view = t;
    view.shape.clear();
    view.strides.clear();
    for (auto [d, ofs, size, stride] :
         llvm::enumerate(spec.offsets, spec.sizes, spec.strides)) {
      int64_t o = getIndex(ofs), s = getIndex(size), st = getIndex(stride);
      if (o < 0 || s < 0 || (s > 0 && o + (s - 1) * st >= t.shape[d]))
        return std::nullopt;
      view.offset += o * t.strides[d];
      if (spec.dropped.test(d))
        continue;
      view.shape.push_back(s);
      view.strides.push_back(t.strides[d] * st);
    }
    return view;
  }
  Tensor materialize(const Tensor &t) {
    return t.isContiguous() ? t : copyToNew(t);
  }

  func::FuncOp func;
  DenseMap<Operation *, LinalgPlan> linalgPlans;
  DenseMap<Operation *, SliceSpec> slices;
  DenseMap<Operation *, PadSpec> pads;
  DenseMap<Operation *, Program> scalarPrograms;
  DenseMap<Operation *, Tensor> constants;
  /// Values whose last use is the op (in the op's block).
  DenseMap<Operation *, SmallVector<Value, 2>> lastUses;
  DenseMap<Value, Slot> env;
  std::vector<Val> registers;
};

LogicalResult
mpt::StepInterpreter::Impl::prepareBlock(Block &block,
                                         std::optional<Unsupported> &why) {
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : block) {
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Block *owner = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()
                                             : v.getDefiningOp()->getBlock();
        if (owner == &block)
          lastUser[v] = &op;
      }
    });
  }
  for (auto [v, user] : lastUser)
    lastUses[user].push_back(v);

  auto checkType = [&](Operation *op, Type type) -> bool {
    if (auto shaped = dyn_cast<RankedTensorType>(type)) {
      if (!shaped.hasStaticShape() || !getKind(shaped.getElementType())) {
        why = Unsupported{op, "a tensor of type " +
                                  llvm::formatv("{0}", type).str()};
        return false;
      }
      return true;
    }
    if (!getKind(type)) {
      why = Unsupported{op,
                        "a value of type " + llvm::formatv("{0}", type).str()};
      return false;
    }
    return true;
  };
  for (Operation &opRef : block) {
    Operation *op = &opRef;
    for (Type t : op->getResultTypes())
      if (!checkType(op, t))
        return failure();
    for (Type t : op->getOperandTypes())
      if (!checkType(op, t))
        return failure();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureTensorSemantics()) {
        why = Unsupported{op, "a linalg op on buffers"};
        return failure();
      }
      FailureOr<LinalgPlan> plan = decodeLinalg(linalgOp, why);
      if (failed(plan))
        return failure();
      double n = 1;
      for (int64_t r : plan->ranges)
        n *= double(r);
      iterations += n;
      if (plan->isMulAddF32)
        multiplyAddIterations += n;
      linalgPlans[op] = std::move(*plan);
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto type = dyn_cast<RankedTensorType>(constant.getType());
      if (!type) {
        if (!getScalarConstant(constant.getValue())) {
          why = Unsupported{op, "a constant of this kind"};
          return failure();
        }
        continue;
      }
      Kind kind = *getKind(type.getElementType());
      Tensor t = makeTensor(kind, type.getShape());
      int64_t n = t.getNumElements();
      if (auto resource =
              dyn_cast<DenseResourceElementsAttr>(constant.getValue())) {
        AsmResourceBlob *blob = resource.getRawHandle().getBlob();
        if (!blob || int64_t(blob->getData().size()) != n * getSize(kind)) {
          why = Unsupported{op, "a resource constant without its data"};
          return failure();
        }
        std::memcpy(t.storage->data(), blob->getData().data(),
                    blob->getData().size());
      } else if (auto dense =
                     dyn_cast<DenseElementsAttr>(constant.getValue())) {
        int64_t i = 0;
        if (isFloat(kind)) {
          for (APFloat x : dense.getValues<APFloat>()) {
            bool lost;
            x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                      &lost);
            store(kind, t.at(i++), Val{x.convertToDouble()});
            if (dense.isSplat())
              break;
          }
        } else {
          for (APInt x : dense.getValues<APInt>()) {
            Val v{};
            v.i = kind == Kind::I1 ? int64_t(x.getZExtValue() & 1)
                                   : x.getSExtValue();
            store(kind, t.at(i++), v);
            if (dense.isSplat())
              break;
          }
        }
        if (dense.isSplat())
          fillWith(t, load(kind, t.at(0)));
      } else {
        why = Unsupported{op, "a constant of this kind"};
        return failure();
      }
      constants[op] = std::move(t);
      continue;
    }
    bool known =
        isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
            tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ConcatOp,
            tensor::ExtractOp, tensor::FromElementsOp, tensor::SplatOp,
            tensor::CastOp, tensor::DimOp, tensor::InsertOp, func::ReturnOp,
            scf::YieldOp, cf::AssertOp>(op);
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      Value value = pad.getConstantPaddingValue();
      if (!value) {
        why = Unsupported{op, "a pad whose value is not a constant"};
        return failure();
      }
      pads[op] = PadSpec{pad.getMixedLowPad(), value};
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      slices[op] = SliceSpec{slice.getMixedOffsets(), slice.getMixedSizes(),
                             slice.getMixedStrides(), slice.getDroppedDims()};
      continue;
    }
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      slices[op] = SliceSpec{insert.getMixedOffsets(), insert.getMixedSizes(),
                             insert.getMixedStrides(), insert.getDroppedDims()};
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (failed(prepareBlock(ifOp.getThenRegion().front(), why)))
        return failure();
      if (!ifOp.getElseRegion().empty() &&
          failed(prepareBlock(ifOp.getElseRegion().front(), why)))
        return failure();
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (failed(prepareBlock(*forOp.getBody(), why)))
        return failure();
      continue;
    }
    if (known)
      continue;
    // A scalar op of the step itself: a one-op program.
    if (getOpcode(op) && !isa<linalg::IndexOp>(op)) {
      FailureOr<Program> program = decodeBlock(block, why, {op});
      if (failed(program))
        return failure();
      scalarPrograms[op] = std::move(*program);
      continue;
    }
    why = Unsupported{op, "an op the interpreter does not know"};
    return failure();
  }
  return success();
}

LogicalResult
mpt::StepInterpreter::Impl::prepare(std::optional<Unsupported> &why) {
  if (func.getBody().getBlocks().size() != 1) {
    why = Unsupported{func, "a function of more than one block"};
    return failure();
  }
  return prepareBlock(func.getBody().front(), why);
}

llvm::Error mpt::StepInterpreter::Impl::fail(Operation *op,
                                             const llvm::Twine &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      formatLocation(op->getLoc()) + ": interpreting " +
          op->getName().getStringRef() + ": " + message);
}

Tensor mpt::StepInterpreter::Impl::takeDestination(Operation *op, Value init,
                                                   bool keepValues) {
  Slot &slot = env[init];
  bool lastUse = false;
  auto it = lastUses.find(op);
  if (it != lastUses.end())
    lastUse = llvm::is_contained(it->second, init);
  unsigned uses = llvm::count(op->getOperands(), init);
  if (lastUse && uses == 1 && slot.tensor.storage.use_count() == 1) {
    // Nothing else refers to the buffer: no other operand of this op
    // either (the count would be higher).
    return std::move(slot.tensor);
  }
  if (keepValues)
    return copyToNew(slot.tensor);
  return makeTensor(slot.tensor.kind, slot.tensor.shape);
}

llvm::Error mpt::StepInterpreter::Impl::runLinalg(Operation *op,
                                                  const LinalgPlan &plan) {
  const Program &program = plan.program;
  unsigned numOperands = plan.operands.size();
  unsigned numLoops = plan.ranges.size();
  // Operands: inputs as they are; outputs as their destinations.
  SmallVector<Tensor> tensors(numOperands);
  SmallVector<bool> isScalar(numOperands, false);
  SmallVector<Val> scalars(numOperands);
  for (unsigned i = 0; i < plan.numInputs; ++i) {
    Slot &slot = get(plan.operands[i]);
    if (slot.isTensor)
      tensors[i] = slot.tensor;
    else {
      isScalar[i] = true;
      scalars[i] = slot.scalar;
    }
  }
  for (unsigned i = plan.numInputs; i < numOperands; ++i)
    tensors[i] = takeDestination(op, plan.operands[i], plan.bodyReads[i]);
  auto setResults = [&] {
    for (auto [k, result] : llvm::enumerate(plan.results)) {
      Slot &slot = env[result];
      slot.isTensor = true;
      slot.tensor = std::move(tensors[plan.numInputs + k]);
    }
  };
  // Each operand's base and its step per loop, in elements.
  SmallVector<int64_t> base(numOperands, 0);
  SmallVector<SmallVector<int64_t>> steps(numOperands,
                                          SmallVector<int64_t>(numLoops, 0));
  for (unsigned o = 0; o < numOperands; ++o) {
    if (isScalar[o])
      continue;
    const Tensor &t = tensors[o];
    base[o] = t.offset;
    for (auto [r, c] : llvm::enumerate(plan.coeffs[o])) {
      base[o] += t.strides[r] * plan.constants[o][r];
      for (unsigned d = 0; d < numLoops; ++d)
        steps[o][d] += t.strides[r] * c[d];
    }
  }
  // A copy or a conversion: the output's view from the input's, when it
  // writes each element once and the two do not share a buffer.
  if ((plan.isCopy || plan.isConversion) && !isScalar[0] &&
      tensors[0].storage != tensors[1].storage &&
      llvm::none_of(steps[1], [](int64_t step) { return step == 0; })) {
    if (plan.isCopy)
      copyStrided(tensors[0].kind, tensors[1].at(base[1]), steps[1],
                  tensors[0].at(base[0]), steps[0], plan.ranges);
    else
      convertStrided(tensors[0].kind, tensors[1].at(base[1]), steps[1],
                     tensors[0].at(base[0]), steps[0], plan.ranges);
    setResults();
    return llvm::Error::success();
  }
  // Adjacent loops of one kind along which every operand moves as along one
  // loop (contiguous dimensions: an elementwise op's, a 1x1 convolution's
  // rows and columns) become one, in the same order: longer columns.
  SmallVector<int64_t> ranges(plan.ranges.begin(), plan.ranges.end());
  SmallVector<bool> parallel(plan.parallel.begin(), plan.parallel.end());
  if (!plan.readsIndices) {
    for (int d = int(numLoops) - 2; d >= 0; --d) {
      bool mergeable = parallel[d] == parallel[d + 1];
      for (unsigned o = 0; o < numOperands && mergeable; ++o)
        mergeable = steps[o][d] == ranges[d + 1] * steps[o][d + 1];
      if (!mergeable)
        continue;
      ranges[d] *= ranges[d + 1];
      ranges.erase(ranges.begin() + d + 1);
      parallel.erase(parallel.begin() + d + 1);
      for (unsigned o = 0; o < numOperands; ++o) {
        steps[o][d] = steps[o][d + 1];
        steps[o].erase(steps[o].begin() + d + 1);
      }
    }
    numLoops = ranges.size();
  }
  // The column loop, by a cost model (nanoseconds; this host): a column
  // costs a loop step and a dispatch per instruction, each element a read
  // or write per operand, cheap where the operand stays (0) or is
  // contiguous (1): a parallel loop along which every output moves.
  MulAddColumnFn mulAdd =
      plan.isMulAddF32 && !isScalar[0] && !isScalar[1] &&
              tensors[2].kind == Kind::F32
          ? getMulAddColumn(tensors[0].kind, tensors[1].kind)
          : nullptr;
  int batch = -1;
  unsigned firstInit = plan.numInputs;
  double iterations = 1;
  for (int64_t r : ranges)
    iterations *= double(r);
  double columnCost =
      mulAdd ? 4 : 10 + 3 * double(program.instrs.size() + numOperands);
  double bestCost = 0;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (!parallel[d])
      continue;
    bool movesAll = true;
    for (unsigned o = firstInit; o < numOperands; ++o)
      movesAll &= steps[o][d] != 0;
    if (!movesAll)
      continue;
    double elementCost = 0;
    for (unsigned o = 0; o < numOperands; ++o) {
      int64_t step = std::abs(steps[o][d]);
      elementCost += step == 0 ? 0.05 : step == 1 ? 0.25 : 1.0;
    }
    double cost =
        iterations / double(ranges[d]) * columnCost + iterations * elementCost;
    if (batch < 0 || cost < bestCost) {
      batch = int(d);
      bestCost = cost;
    }
  }
  // Or, for a multiply-add, tiles of kTile outputs along a parallel loop
  // (`tile`; or single outputs) each summed over all reduction loops, in
  // their order: the sums stay in registers.
  ReductionLoops reductions;
  int tile = -1;
  bool tiled = false;
  int blockU = -1, blockV = -1;
  unsigned blockX = 0;
  if (mulAdd) {
    double total = 1;
    bool summable = true;
    for (unsigned d = 0; d < numLoops; ++d) {
      if (parallel[d])
        continue;
      summable &= steps[2][d] == 0 && reductions.count < kMaxReductions;
      if (!summable)
        break;
      reductions.ranges[reductions.count] = ranges[d];
      reductions.aSteps[reductions.count] = steps[0][d];
      reductions.bSteps[reductions.count] = steps[1][d];
      ++reductions.count;
      total *= double(ranges[d]);
    }
    // Best, blocks of outputs along two parallel loops: one along which
    // only input A moves, one along which only B does (mulAddBlock; the
    // kTile-wide side u preferably contiguous, else the longer).
    if (summable && reductions.count > 0) {
      int along[2] = {-1, -1};
      auto blockKey = [&](unsigned d, unsigned o) {
        int64_t step = std::abs(steps[o][d]);
        return std::make_tuple(step == 1 && ranges[d] >= kTile, ranges[d],
                               -step);
      };
      for (unsigned d = 0; d < numLoops; ++d) {
        if (!parallel[d] || steps[2][d] == 0 || ranges[d] < 2)
          continue;
        for (unsigned o = 0; o < 2; ++o)
          if (steps[o][d] != 0 && steps[1 - o][d] == 0 &&
              (along[o] < 0 || blockKey(d, o) > blockKey(along[o], o)))
            along[o] = int(d);
      }
      if (along[0] >= 0 && along[1] >= 0) {
        unsigned x = blockKey(along[1], 1) > blockKey(along[0], 0) ? 1 : 0;
        if (ranges[along[x]] >= kTile) {
          blockX = x;
          blockU = along[x];
          blockV = along[1 - x];
        }
      }
    }
    if (blockU >= 0) {
      tiled = true;
      batch = -1;
    } else if (summable && reductions.count > 0) {
      // A vector tile first (one input contiguous, the other staying),
      // else the longest.
      auto vectorTile = [&](unsigned u) {
        return (std::abs(steps[0][u]) == 1 && steps[1][u] == 0) ||
               (steps[0][u] == 0 && std::abs(steps[1][u]) == 1);
      };
      for (unsigned u = 0; u < numLoops; ++u) {
        if (!parallel[u] || steps[2][u] == 0 || ranges[u] < 2)
          continue;
        auto key = [&](unsigned e) {
          return std::make_pair(vectorTile(e) && ranges[e] >= kTile, ranges[e]);
        };
        if (tile < 0 || key(u) > key(unsigned(tile)))
          tile = int(u);
      }
      double k = tile >= 0 ? double(std::min(kTile, ranges[tile])) : 1;
      double innerRange = double(reductions.ranges[reductions.count - 1]);
      double elementCost = tile >= 0 && vectorTile(tile) ? 0.08
                           : tile >= 0                   ? 0.3
                                                         : 1.0;
      double cost = iterations / (total * k) * columnCost +
                    iterations / (innerRange * k) * 2 +
                    iterations * elementCost;
      if (batch < 0 || cost < bestCost) {
        tiled = true;
        batch = -1;
      }
    }
  }
  for (int64_t r : ranges)
    if (r == 0)
      goto done;
  {
    int64_t batchRange = batch >= 0 ? ranges[batch] : 1;
    int64_t B = std::min(batchRange, kColumn);
    size_t needed = size_t(program.numRegisters) * B;
    if (registers.size() < needed)
      registers.resize(needed);
    Val *r = registers.data();
    for (auto [reg, v] : program.constants)
      std::fill(r + reg * B, r + reg * B + B, v);
    for (auto [reg, value] : program.outerScalars)
      std::fill(r + reg * B, r + reg * B + B, get(value).scalar);
    for (unsigned o = 0; o < numOperands; ++o)
      if (isScalar[o] && plan.argRegister[o] >= 0)
        std::fill(r + plan.argRegister[o] * B, r + plan.argRegister[o] * B + B,
                  scalars[o]);
    SmallVector<const Tensor *> extractTensors;
    for (Value t : program.extractTensors)
      extractTensors.push_back(&get(t).tensor);
    // Operands the body reads, outputs it writes.
    SmallVector<unsigned> readOperands;
    for (unsigned o = 0; o < numOperands; ++o)
      if (!isScalar[o] && plan.bodyReads[o])
        readOperands.push_back(o);
    SmallVector<int64_t> index(numLoops, 0);
    ColumnContext ctx{extractTensors, index, batch, 0, nullptr};
    // Each operand's position at `index`, kept as the loops step.
    SmallVector<int64_t, 8> offset(base.begin(), base.end());
    MulAddTileFn mulAddTile =
        tiled ? getMulAddTile(tensors[0].kind, tensors[1].kind) : nullptr;
    // A block's X (the input that moves along u) and Y, its loops with
    // their steps in that order.
    unsigned blockY = 1 - blockX;
    ReductionLoops blockLoops = reductions;
    if (blockX == 1)
      std::swap(blockLoops.aSteps, blockLoops.bSteps);
    MulAddBlockFn blockFns[kMaxBlockV + 1] = {},
                  wideBlockFns[kMaxBlockV + 1] = {};
    MulAddTileFn blockEdge = nullptr;
    if (blockU >= 0) {
      for (int kv = 1; kv <= kMaxBlockV; ++kv) {
        blockFns[kv] = getMulAddBlock<kTile>(tensors[blockX].kind,
                                             tensors[blockY].kind, kv);
        wideBlockFns[kv] = getMulAddBlock<kWideTile>(tensors[blockX].kind,
                                                     tensors[blockY].kind, kv);
      }
      blockEdge = getMulAddTile(tensors[blockX].kind, tensors[blockY].kind);
    }
    // X strided along u (a convolution's weights along its filters, a
    // weight gradient's input along its channels) and the same for every
    // other output (X moves along no other parallel loop) that it is read
    // for often: copied once, kWideTile rows of u at a time, into panels
    // where the rows are the innermost dimension after the reduction loops,
    // so that a wide block's rows are one vector load, not a lane-by-lane
    // gather (the other blocks read X as it is).
    std::optional<Tensor> packedX;
    ReductionLoops packedLoops;
    int64_t panelSize = 0;
    if (blockU >= 0 && wideBlockFns[1] && steps[blockX][blockU] != 1 &&
        ranges[blockU] >= kWideTile) {
      int64_t reuse = 1;
      bool stays = true;
      for (unsigned d = 0; d < numLoops; ++d) {
        if (!parallel[d] || int(d) == blockU)
          continue;
        stays &= steps[blockX][d] == 0;
        reuse *= ranges[d];
      }
      if (stays && reuse >= kPackMinReuse) {
        // A panel: kWideTile rows (innermost) by the reductions' ranges.
        SmallVector<int64_t, 8> shape = {kWideTile}, srcSteps, dstSteps;
        srcSteps.push_back(steps[blockX][blockU]);
        packedLoops = blockLoops;
        panelSize = kWideTile;
        for (int r = blockLoops.count - 1; r >= 0; --r) {
          packedLoops.aSteps[r] = panelSize;
          panelSize *= blockLoops.ranges[r];
        }
        dstSteps.push_back(1);
        for (int r = 0; r < blockLoops.count; ++r) {
          shape.push_back(blockLoops.ranges[r]);
          srcSteps.push_back(blockLoops.aSteps[r]);
          dstSteps.push_back(packedLoops.aSteps[r]);
        }
        int64_t numPanels = ranges[blockU] / kWideTile;
        packedX = makeTensor(tensors[blockX].kind, {numPanels * panelSize});
        for (int64_t p = 0; p < numPanels; ++p)
          copyStrided(packedX->kind, packedX->at(p * panelSize), dstSteps,
                      tensors[blockX].at(offset[blockX] +
                                         p * kWideTile * srcSteps[0]),
                      srcSteps, shape);
      }
    }
    while (true) {
      if (blockU >= 0) {
        int64_t rangeU = ranges[blockU], rangeV = ranges[blockV];
        int64_t sxu = steps[blockX][blockU], syv = steps[blockY][blockV];
        int64_t scu = steps[2][blockU], scv = steps[2][blockV];
        const Tensor &tx = tensors[blockX], &ty = tensors[blockY];
        // Wide blocks, then one narrow one, then single columns; along v
        // inside (a block's rows of X, a packed panel, stay in cache).
        auto runBlocks = [&](int64_t u0, const MulAddBlockFn *fns,
                             const uint8_t *x, int64_t sxu,
                             const ReductionLoops &loops) {
          for (int64_t v0 = 0; v0 < rangeV; v0 += kMaxBlockV)
            fns[std::min<int64_t>(kMaxBlockV, rangeV - v0)](
                x, sxu, ty.at(offset[blockY] + v0 * syv), syv,
                reinterpret_cast<float *>(
                    tensors[2].at(offset[2] + u0 * scu + v0 * scv)),
                scu, scv, loops);
        };
        int64_t u0 = 0;
        for (; wideBlockFns[1] && u0 + kWideTile <= rangeU; u0 += kWideTile)
          if (packedX)
            runBlocks(u0, wideBlockFns,
                      packedX->at(u0 / kWideTile * panelSize), 1,
                      packedLoops);
          else
            runBlocks(u0, wideBlockFns, tx.at(offset[blockX] + u0 * sxu),
                      sxu, blockLoops);
        for (; u0 + kTile <= rangeU; u0 += kTile)
          runBlocks(u0, blockFns, tx.at(offset[blockX] + u0 * sxu), sxu,
                    blockLoops);
        // The last outputs along u, a column of v at a time.
        for (int64_t v = 0; u0 < rangeU && v < rangeV; ++v)
          blockEdge(tx.at(offset[blockX] + u0 * sxu), sxu,
                    ty.at(offset[blockY] + v * syv), 0,
                    reinterpret_cast<float *>(
                        tensors[2].at(offset[2] + u0 * scu + v * scv)),
                    scu, rangeU - u0, blockLoops);
      } else if (mulAddTile) {
        int64_t tileRange = tile >= 0 ? ranges[tile] : 1;
        int64_t sau = tile >= 0 ? steps[0][tile] : 0;
        int64_t sbu = tile >= 0 ? steps[1][tile] : 0;
        int64_t scu = tile >= 0 ? steps[2][tile] : 0;
        for (int64_t t = 0; t < tileRange; t += kTile)
          mulAddTile(
              tensors[0].at(offset[0] + t * sau), sau,
              tensors[1].at(offset[1] + t * sbu), sbu,
              reinterpret_cast<float *>(tensors[2].at(offset[2] + t * scu)),
              scu, std::min(kTile, tileRange - t), reductions);
      } else if (mulAdd) {
        int64_t sa = batch >= 0 ? steps[0][batch] : 0;
        int64_t sb = batch >= 0 ? steps[1][batch] : 0;
        int64_t sc = batch >= 0 ? steps[2][batch] : 0;
        mulAdd(tensors[0].at(offset[0]), sa, tensors[1].at(offset[1]), sb,
               reinterpret_cast<float *>(tensors[2].at(offset[2])), sc,
               batchRange);
      }
      for (int64_t start = 0; !mulAdd && start < batchRange; start += B) {
        int64_t n = std::min(B, batchRange - start);
        int64_t bstep = 0;
        for (unsigned o : readOperands) {
          bstep = batch >= 0 ? steps[o][batch] : 0;
          const Tensor &t = tensors[o];
          gather(t.kind, t.at(offset[o] + start * bstep), bstep, n,
                 r + plan.argRegister[o] * B);
        }
        ctx.batchStart = start;
        runInstrs(program, r, B, n, ctx);
        for (unsigned k = 0; k < numOperands - firstInit; ++k) {
          unsigned o = firstInit + k;
          bstep = batch >= 0 ? steps[o][batch] : 0;
          const Tensor &t = tensors[o];
          scatter(t.kind, t.at(offset[o] + start * bstep), bstep, n,
                  r + program.yields[k] * B);
        }
      }
      if (ctx.error)
        return fail(op, ctx.error);
      int d = int(numLoops) - 1;
      for (; d >= 0; --d) {
        if (d == batch || d == blockU || d == blockV ||
            (tiled && (d == tile || !parallel[d])))
          continue;
        if (++index[d] < ranges[d]) {
          for (unsigned o = 0; o < numOperands; ++o)
            offset[o] += steps[o][d];
          break;
        }
        for (unsigned o = 0; o < numOperands; ++o)
          offset[o] -= (ranges[d] - 1) * steps[o][d];
        index[d] = 0;
      }
      if (d < 0)
        break;
    }
  }
done:
  setResults();
  return llvm::Error::success();
}

llvm::Error mpt::StepInterpreter::Impl::runOp(Operation *op) {
  if (auto it = linalgPlans.find(op); it != linalgPlans.end())
    return runLinalg(op, it->second);
  if (auto it = scalarPrograms.find(op); it != scalarPrograms.end()) {
    const Program &program = it->second;
    if (registers.size() < program.numRegisters)
      registers.resize(program.numRegisters);
    Val *r = registers.data();
    for (auto [reg, v] : program.constants)
      r[reg] = v;
    for (auto [reg, value] : program.outerScalars)
      r[reg] = get(value).scalar;
    SmallVector<const Tensor *> extractTensors;
    for (Value t : program.extractTensors)
      extractTensors.push_back(&get(t).tensor);
    ColumnContext ctx{extractTensors, {}, -1, 0, nullptr};
    runInstrs(program, r, 1, 1, ctx);
    if (ctx.error)
      return fail(op, ctx.error);
    Slot &slot = env[op->getResult(0)];
    slot.isTensor = false;
    slot.scalar = r[program.instrs.back().dst];
    return llvm::Error::success();
  }
  auto setTensor = [&](Value v, Tensor t) {
    Slot &slot = env[v];
    slot.isTensor = true;
    slot.tensor = std::move(t);
  };
  auto resultKind = [](Value v) {
    return *getKind(cast<RankedTensorType>(v.getType()).getElementType());
  };
  auto resultShape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto it = constants.find(op); it != constants.end()) {
      setTensor(constant.getResult(), it->second);
      return llvm::Error::success();
    }
    Slot &slot = env[constant.getResult()];
    slot.isTensor = false;
    slot.scalar = *getScalarConstant(constant.getValue());
    return llvm::Error::success();
  }
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    setTensor(empty.getResult(), makeTensor(resultKind(empty.getResult()),
                                            resultShape(empty.getResult())));
    return llvm::Error::success();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    std::optional<Tensor> view =
        getSliceView(op, get(slice.getSource()).tensor);
    if (!view)
      return fail(op, "slice out of bounds");
    setTensor(slice.getResult(), std::move(*view));
    return llvm::Error::success();
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    Tensor dest = takeDestination(op, insert.getDest(), /*keepValues=*/true);
    std::optional<Tensor> view = getSliceView(op, dest);
    if (!view)
      return fail(op, "slice out of bounds");
    copyInto(*view, get(insert.getSource()).tensor);
    setTensor(insert.getResult(), std::move(dest));
    return llvm::Error::success();
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(op)) {
    Tensor t = materialize(get(op->getOperand(0)).tensor);
    ArrayRef<int64_t> shape = resultShape(op->getResult(0));
    t.shape.assign(shape.begin(), shape.end());
    t.strides = getRowMajorStrides(shape);
    setTensor(op->getResult(0), std::move(t));
    return llvm::Error::success();
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    const PadSpec &spec = pads.find(op)->second;
    Value padValue = spec.value;
    Val value{};
    if (auto constant = padValue.getDefiningOp<arith::ConstantOp>())
      value = *getScalarConstant(constant.getValue());
    else
      value = get(padValue).scalar;
    Tensor result =
        makeTensor(resultKind(pad.getResult()), resultShape(pad.getResult()));
    fillWith(result, value);
    const Tensor &source = get(pad.getSource()).tensor;
    Tensor interior = result;
    interior.shape = source.shape;
    for (auto [d, low] : llvm::enumerate(spec.low)) {
      int64_t l = getIndex(low);
      if (l < 0)
        return fail(op, "negative padding");
      interior.offset += l * result.strides[d];
    }
    copyInto(interior, source);
    setTensor(pad.getResult(), std::move(result));
    return llvm::Error::success();
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    Tensor result = makeTensor(resultKind(concat.getResult()),
                               resultShape(concat.getResult()));
    int64_t dim = concat.getDim(), at = 0;
    for (Value input : concat.getInputs()) {
      const Tensor &t = get(input).tensor;
      Tensor view = result;
      view.shape = t.shape;
      view.offset += at * result.strides[dim];
      copyInto(view, t);
      at += t.shape[dim];
    }
    setTensor(concat.getResult(), std::move(result));
    return llvm::Error::success();
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    const Tensor &t = get(extract.getTensor()).tensor;
    int64_t offset = t.offset;
    for (auto [d, idx] : llvm::enumerate(extract.getIndices())) {
      int64_t i = get(idx).scalar.i;
      if (i < 0 || i >= t.shape[d])
        return fail(op, "index out of bounds");
      offset += i * t.strides[d];
    }
    // Read before the result's slot is made: that may move `t`.
    Val value = load(t.kind, t.at(offset));
    Slot &slot = env[extract.getResult()];
    slot.isTensor = false;
    slot.scalar = value;
    return llvm::Error::success();
  }
  if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
    Tensor dest = takeDestination(op, insert.getDest(), /*keepValues=*/true);
    int64_t offset = dest.offset;
    for (auto [d, idx] : llvm::enumerate(insert.getIndices())) {
      int64_t i = get(idx).scalar.i;
      if (i < 0 || i >= dest.shape[d])
        return fail(op, "index out of bounds");
      offset += i * dest.strides[d];
    }
    store(dest.kind, dest.at(offset), get(insert.getScalar()).scalar);
    setTensor(insert.getResult(), std::move(dest));
    return llvm::Error::success();
  }
  if (auto fromElements = dyn_cast<tensor::FromElementsOp>(op)) {
    Tensor t = makeTensor(resultKind(fromElements.getResult()),
                          resultShape(fromElements.getResult()));
    for (auto [i, element] : llvm::enumerate(fromElements.getElements()))
      store(t.kind, t.at(i), get(element).scalar);
    setTensor(fromElements.getResult(), std::move(t));
    return llvm::Error::success();
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    Tensor t = makeTensor(resultKind(splat.getResult()),
                          resultShape(splat.getResult()));
    fillWith(t, get(splat.getInput()).scalar);
    setTensor(splat.getResult(), std::move(t));
    return llvm::Error::success();
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    const Tensor &t = get(dim.getSource()).tensor;
    int64_t d = get(dim.getIndex()).scalar.i;
    if (d < 0 || d >= int64_t(t.shape.size()))
      return fail(op, "dimension out of range");
    int64_t size = t.shape[d];
    Slot &slot = env[dim.getResult()];
    slot.isTensor = false;
    slot.scalar.i = size;
    return llvm::Error::success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool cond = get(ifOp.getCondition()).scalar.i != 0;
    if (!cond && ifOp.getElseRegion().empty())
      return llvm::Error::success();
    Block &block =
        cond ? ifOp.getThenRegion().front() : ifOp.getElseRegion().front();
    SmallVector<Slot> yielded;
    if (llvm::Error err = runBlock(block, yielded))
      return err;
    for (auto [result, slot] : llvm::zip(ifOp.getResults(), yielded))
      env[result] = std::move(slot);
    return llvm::Error::success();
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = get(forOp.getLowerBound()).scalar.i;
    int64_t ub = get(forOp.getUpperBound()).scalar.i;
    int64_t step = get(forOp.getStep()).scalar.i;
    if (step <= 0)
      return fail(op, "a loop step that is not positive");
    SmallVector<Slot> carried;
    for (Value init : forOp.getInitArgs())
      carried.push_back(get(init));
    Block *body = forOp.getBody();
    for (int64_t iv = lb; iv < ub; iv += step) {
      env[body->getArgument(0)].scalar.i = iv;
      for (auto [arg, slot] : llvm::zip(forOp.getRegionIterArgs(), carried))
        env[arg] = std::move(slot);
      carried.clear();
      if (llvm::Error err = runBlock(*body, carried))
        return err;
    }
    for (auto [result, slot] : llvm::zip(forOp.getResults(), carried))
      env[result] = std::move(slot);
    return llvm::Error::success();
  }
  if (auto check = dyn_cast<cf::AssertOp>(op)) {
    // A failed check stops the interpreter: the compiled step then runs
    // the step and reports it as it does (StepChecks.h).
    if (get(check.getArg()).scalar.i == 0)
      return fail(op, "check failed: " + check.getMsg());
    return llvm::Error::success();
  }
  return fail(op, "not supported");
}

llvm::Error
mpt::StepInterpreter::Impl::runBlock(Block &block,
                                     SmallVectorImpl<Slot> &terminatorValues) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands())
        terminatorValues.push_back(get(v));
    } else if (llvm::Error err = runOp(&op)) {
      return err;
    }
    if (auto it = lastUses.find(&op); it != lastUses.end())
      for (Value v : it->second)
        env.erase(v);
  }
  return llvm::Error::success();
}

llvm::Error
mpt::StepInterpreter::Impl::runStep(ArrayRef<Tensor> args,
                                    SmallVectorImpl<Slot> &results) {
  env.clear();
  Block &body = func.getBody().front();
  for (auto [arg, t] : llvm::zip(body.getArguments(), args)) {
    Slot &slot = env[arg];
    slot.isTensor = true;
    slot.tensor = t;
  }
  llvm::Error err = runBlock(body, results);
  env.clear();
  return err;
}

//===----------------------------------------------------------------------===//
// The public side
//===----------------------------------------------------------------------===//

mpt::StepInterpreter::StepInterpreter(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
mpt::StepInterpreter::~StepInterpreter() = default;

llvm::Expected<std::unique_ptr<StepInterpreter>>
mpt::StepInterpreter::create(func::FuncOp func) {
  auto impl = std::make_unique<Impl>(func);
  std::optional<Unsupported> why;
  if (failed(impl->prepare(why))) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the interpreter cannot run " + why->op->getName().getStringRef() +
            " (" + formatLocation(why->op->getLoc()) + "): " + why->reason);
  }
  for (Type t : func.getArgumentTypes())
    if (!isa<RankedTensorType>(t))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the interpreter takes tensor arguments "
                                     "only");
  return std::unique_ptr<StepInterpreter>(new StepInterpreter(std::move(impl)));
}

double mpt::StepInterpreter::getIterations() const { return impl->iterations; }

double mpt::StepInterpreter::getMultiplyAddIterations() const {
  return impl->multiplyAddIterations;
}

static Kind toKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return Kind::F32;
  case ElementKind::F16:
    return Kind::F16;
  case ElementKind::BF16:
    return Kind::BF16;
  case ElementKind::F64:
    return Kind::F64;
  case ElementKind::I32:
    return Kind::I32;
  case ElementKind::I64:
    return Kind::I64;
  case ElementKind::I1:
    return Kind::I1;
  }
  return Kind::F32;
}

static llvm::cl::opt<int> failAtStep(
    "interpreted-steps-fail-at",
    llvm::cl::desc("Make the interpreter stop at its Nth step (from 0) with "
                   "an error, as on a value it cannot take (for tests)"),
    llvm::cl::init(-1), llvm::cl::Hidden);

llvm::Expected<StepOutputs>
mpt::StepInterpreter::run(const StepSignature &sig,
                          const SmallVector<HostArray> &args,
                          UpdatedArguments &updated) {
  if (numRuns++ == failAtStep)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "stopped as --interpreted-steps-fail-at "
                                   "asks");
  SmallVector<Tensor> inputs;
  for (auto [i, info, array] : llvm::enumerate(sig.args, args)) {
    Tensor t = makeTensor(toKind(info.kind), info.shape);
    const void *source = updated.getBuffer(i);
    if (!source)
      source = array.data.data();
    if (!array.data.empty())
      std::memcpy(t.storage->data(), source, array.data.size());
    inputs.push_back(std::move(t));
  }
  SmallVector<Slot> results;
  if (llvm::Error err = impl->runStep(inputs, results))
    return std::move(err);
  if (results.size() != sig.results.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the interpreted step returned " +
                                       llvm::Twine(results.size()) + " values");
  StepOutputs out;
  // Every result is read before any argument buffer is written: a result
  // may be an argument's old value.
  SmallVector<HostArray> values;
  for (auto [slot, info] : llvm::zip(results, sig.results)) {
    HostArray array = HostArray::zeros(info.kind, info.shape);
    Tensor dst = makeTensor(toKind(info.kind), info.shape);
    if (slot.isTensor)
      copyInto(dst, slot.tensor);
    else
      store(dst.kind, dst.at(0), slot.scalar);
    if (!array.data.empty())
      std::memcpy(array.data.data(), dst.storage->data(), array.data.size());
    values.push_back(std::move(array));
  }
  for (auto [info, array] : llvm::zip(sig.results, values)) {
    if (info.updates) {
      std::memcpy(updated.getBuffer(*info.updates), array.data.data(),
                  array.data.size());
      out.results.emplace_back();
    } else {
      out.results.push_back(std::move(array));
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// --interpreted-steps
//===----------------------------------------------------------------------===//

static llvm::cl::opt<std::string> interpretedStepsOption(
    "interpreted-steps",
    llvm::cl::desc(
        "Run this many first steps in mpt's interpreter, without compiling, "
        "while the step is compiled on another thread (auto: one step of a "
        "large step whose work is small next to compiling it; 0: none). "
        "Their results are the generic CPU path's bit for bit, the other "
        "paths' to within rounding (docs/Running.md)"),
    llvm::cl::value_desc("N|auto"), llvm::cl::init("auto"),
    llvm::cl::cat(getRunCategory()));

static llvm::cl::opt<unsigned> interpretMinOps(
    "interpreted-steps-min-ops",
    llvm::cl::desc("Under --interpreted-steps=auto, the fewest ops a step "
                   "must have to be a candidate (for tests)"),
    llvm::cl::init(kInterpretMinOps), llvm::cl::Hidden);

/// Seconds the interpreter takes per iteration of a multiply-add's loops and
/// of any other op's (measured on one Sapphire Rapids core: ResNet-18's
/// step, nearly all convolutions, 0.12 ns an iteration with the AVX2 block
/// kernels, about twice that with SSE2's, 0.08 with the AVX-512 ones and
/// packed weights, its whole step included; MobileNetV3-small's, mostly
/// elementwise ops, 2.3 ns), and seconds of compiling per op of the step
/// before lowering (the same steps, tiered to their first step: 0.36-0.47
/// ms).
constexpr double kSecondsPerMultiplyAddAVX512 = 0.08e-9;
constexpr double kSecondsPerMultiplyAddAVX2 = 0.15e-9;
constexpr double kSecondsPerMultiplyAdd = 0.3e-9;
constexpr double kSecondsPerIteration = 2.5e-9;
constexpr double kCompileSecondsPerOp = 4e-4;

llvm::Expected<InterpretedSteps>
mpt::prepareInterpretedSteps(ModuleOp module, StringRef funcName,
                             unsigned numSteps, bool excessPrecision,
                             bool allowed) {
  InterpretedSteps result;
  std::optional<unsigned> asked;
  if (interpretedStepsOption != "auto") {
    unsigned n;
    if (StringRef(interpretedStepsOption).getAsInteger(10, n))
      return runError("--interpreted-steps must be a number or auto, got '" +
                      interpretedStepsOption + "'");
    asked = n;
  }
  if (asked == 0u || numSteps == 0 || (!asked && !allowed))
    return result;
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  unsigned numOps = 0;
  func.walk([&](Operation *) { ++numOps; });
  if (!asked && numOps < interpretMinOps)
    return result;
  if (!allowed)
    return runError("--interpreted-steps: an MPI job and --memory run "
                    "compiled code from the first step");

  result.module = cast<ModuleOp>(module->clone());
  LowerToCPUOptions options;
  options.excessPrecision = excessPrecision;
  options.updateInPlace = false;
  PassManager pm(module->getContext());
  // The compile's passes verify the same IR.
  pm.enableVerifier(false);
  buildLowerToCPUTensorPipeline(pm, options);
  // The copy keeps the step alone: the interpreter reads no other function.
  auto step = result.module->lookupSymbol<func::FuncOp>(funcName);
  std::string why;
  bool failedPasses = failed(pm.run(*result.module));
  if (failedPasses) {
    why = "the tensor-level passes failed";
  } else {
    auto interpreter = StepInterpreter::create(step);
    if (interpreter)
      result.interpreter = std::move(*interpreter);
    else
      why = toString(interpreter.takeError());
  }
  if (!result.interpreter) {
    if (asked)
      llvm::errs() << "mpt-run: warning: --interpreted-steps: " << why
                   << "; every step runs compiled code\n";
    result.decision = why;
    result.module = nullptr;
    return result;
  }
  double iterations = result.interpreter->getIterations();
  double multiplyAdds = result.interpreter->getMultiplyAddIterations();
  double secondsPerMultiplyAdd = hostHasAVX512() ? kSecondsPerMultiplyAddAVX512
                                 : hostHasAVX2()  ? kSecondsPerMultiplyAddAVX2
                                                  : kSecondsPerMultiplyAdd;
  double interpretSeconds = multiplyAdds * secondsPerMultiplyAdd +
                            (iterations - multiplyAdds) * kSecondsPerIteration;
  double compileSeconds = numOps * kCompileSecondsPerOp;
  result.decision =
      llvm::formatv("{0} ops, {1:e2} loop iterations ({2:e2} of "
                    "multiply-adds): about {3:f2} s interpreted, {4:f1} s to "
                    "compile",
                    numOps, iterations, multiplyAdds, interpretSeconds,
                    compileSeconds)
          .str();
  if (asked) {
    result.steps = std::min(*asked, numSteps);
    return result;
  }
  // With a core to spare, the compile goes on beside the interpreted step,
  // and the second step starts when both are done: no later than without
  // the interpreter while the interpreted step is quicker than compiling
  // (0.8: the estimates are rough). On one core they take turns: only a
  // step much quicker than the compile.
  unsigned cores = llvm::hardware_concurrency().compute_thread_count();
  if (interpretSeconds < compileSeconds * (cores >= 2 ? 0.8 : 0.25)) {
    result.steps = 1;
  } else {
    result.interpreter.reset();
    result.module = nullptr;
  }
  return result;
}
