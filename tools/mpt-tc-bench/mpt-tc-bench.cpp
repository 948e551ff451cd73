//===- mpt-tc-bench.cpp - run, check and time mpt's Tensor Core kernels ---===//
//
// The kernels are compiled at build time by `mpt-opt --mpt-gpu-codegen` from
// plain linalg.matmul functions (one per chip, element type and size) and
// linked in; each is called through its C interface with device buffers.
//
// For every kernel the device can run (sm_80 kernels, embedded as PTX, on
// compute capability >= 8.0; sm_90a cubins on 9.0 exactly):
//  * check: inputs are multiples of 1/8 in [-1, 1], exact in f16 and bf16;
//    every product is a multiple of 1/64 and every partial sum of K <= 8192
//    terms stays below 2^13 in magnitude, so it needs at most 19 significant
//    bits: f32 accumulation is exact in any order. The kernel's C must
//    therefore equal the CPU reference (double) exactly, tolerance 0, on
//    every entry (sizes <= 1024) or on 4096 sampled entries (larger sizes,
//    where the CPU reference would take minutes). cuBLAS is checked the same
//    way (its result is the second reference).
//    FP8 kernels (sm_90a: "e4m3 nt", B stored [n][k]; "e5m2 e4m3", B [k][n],
//    which the kernel copies K-major first) get the same inputs, exact in
//    E4M3 and E5M2 too, and the same exact check; cuBLAS (cublasGemmEx has
//    no FP8) is neither a reference nor timed for them.
//  * time: wall-clock time of back-to-back calls after warm-up, each call
//    synchronized (MLIR's host code launches on its own stream and waits);
//    cuBLAS (cublasGemmEx, f32 compute) is timed the same way.
// Prints TFLOP/s and the ratio to cuBLAS; exits non-zero if a check fails.
//
//===----------------------------------------------------------------------===//
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

template <typename T>
struct MemRef2D {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};
using EntryFn = void (*)(MemRef2D<uint16_t> *, MemRef2D<uint16_t> *,
                         MemRef2D<float> *);

} // namespace

#define MPT_TC_KERNEL(name, chip, type, m, n, k)                               \
  extern "C" void _mlir_ciface_##name(MemRef2D<uint16_t> *,                    \
                                      MemRef2D<uint16_t> *, MemRef2D<float> *);
#include "bench_kernels.inc"
#undef MPT_TC_KERNEL

namespace {

struct Kernel {
  const char *name, *chip, *type;
  int64_t m, n, k;
  EntryFn entry;
};

const Kernel kKernels[] = {
#define MPT_TC_KERNEL(name, chip, type, m, n, k)                               \
  {#name, chip, type, m, n, k, &_mlir_ciface_##name},
#include "bench_kernels.inc"
#undef MPT_TC_KERNEL
};

void checkCu(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *s = "?";
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "mpt-tc-bench: %s: %s\n", what, s);
    std::exit(2);
  }
}
void checkCublas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "mpt-tc-bench: %s: cuBLAS status %d\n", what,
                 static_cast<int>(s));
    std::exit(2);
  }
}

/// Exact encodings of multiples of 1/8 in [-1, 1] (normal numbers with at
/// most 4 significant bits).
uint16_t toF16(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  if ((x & 0x7fffffff) == 0)
    return sign;
  int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  return sign | static_cast<uint16_t>(exp << 10) |
         static_cast<uint16_t>((x >> 13) & 0x3ff);
}
uint16_t toBF16(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  return static_cast<uint16_t>(x >> 16);
}
/// The same values in FP8: E4M3FN (bias 7, 3 mantissa bits) and E5M2
/// (bias 15, 2 mantissa bits; k/8 needs at most 3 significant bits).
uint8_t toFp8(float v, bool e5m2) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  uint8_t sign = (x >> 24) & 0x80;
  if ((x & 0x7fffffff) == 0)
    return sign;
  int exp = static_cast<int>((x >> 23) & 0xff) - 127 + (e5m2 ? 15 : 7);
  int mantissaBits = e5m2 ? 2 : 3;
  return sign | static_cast<uint8_t>(exp << mantissaBits) |
         static_cast<uint8_t>((x >> (23 - mantissaBits)) &
                              ((1u << mantissaBits) - 1));
}

struct Options {
  std::string filter;
  bool quick = false;
};

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename Fn>
double timeCalls(Fn &&call, double flops) {
  for (int i = 0; i < 3; ++i)
    call();
  // About 0.3 s per measurement at 300 TFLOP/s, between 5 and 200 calls.
  int iters = static_cast<int>(std::clamp(9e13 / flops, 5.0, 200.0));
  double start = seconds();
  for (int i = 0; i < iters; ++i)
    call();
  return (seconds() - start) / iters;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      opt.quick = true;
    else if (a.rfind("--filter=", 0) == 0)
      opt.filter = a.substr(9);
    else {
      std::fprintf(stderr,
                   "usage: mpt-tc-bench [--quick] [--filter=SUBSTRING]\n"
                   "  --quick   only the 4096^3 kernels\n"
                   "  --filter  only kernels whose name contains SUBSTRING "
                   "(e.g. sm90a_bf16)\n");
      return 2;
    }
  }

  checkCu(cuInit(0), "cuInit");
  CUdevice dev;
  checkCu(cuDeviceGet(&dev, 0), "cuDeviceGet");
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                       dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                       dev);
  char devName[256] = {0};
  cuDeviceGetName(devName, sizeof(devName), dev);
  // The primary context, shared with the CUDA runtime (cuBLAS) and the
  // mgpu* runtime the kernels' host code calls.
  CUcontext ctx;
  checkCu(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  checkCu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  cublasHandle_t handle;
  checkCublas(cublasCreate(&handle), "cublasCreate");
  std::printf("device: %s (sm_%d%d)\n", devName, major, minor);
  std::printf("%-22s %6s %9s %18s %10s %10s %7s %s\n", "kernel", "chip",
              "type", "MxNxK", "TFLOP/s", "cuBLAS", "ratio", "check");

  int failures = 0, ran = 0;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> eighths(-8, 8);
  for (const Kernel &kn : kKernels) {
    std::string chip = kn.chip;
    bool runnable = chip == "sm_80" ? major >= 8 : (major == 9 && minor == 0);
    if (!runnable)
      continue;
    if (!opt.filter.empty() &&
        std::string(kn.name).find(opt.filter) == std::string::npos)
      continue;
    if (opt.quick && !(kn.m == 4096 && kn.n == 4096 && kn.k == 4096))
      continue;
    std::string type = kn.type;
    bool bf16 = type == "bf16";
    bool fp8 = type == "e4m3 nt" || type == "e5m2 e4m3";
    // B stored [n][k] ("e4m3 nt") instead of [k][n].
    bool bnk = type == "e4m3 nt";
    int64_t M = kn.m, N = kn.n, K = kn.k;
    int64_t bytes = fp8 ? 1 : 2;
    std::vector<float> a(M * K), b(K * N);
    std::vector<uint8_t> aBytes(M * K * bytes), bBytes(K * N * bytes);
    auto encode = [&](float v, bool isA, uint8_t *out) {
      if (fp8) {
        *out = toFp8(v, isA && type == "e5m2 e4m3");
        return;
      }
      uint16_t h = bf16 ? toBF16(v) : toF16(v);
      std::memcpy(out, &h, 2);
    };
    for (int64_t i = 0; i < M * K; ++i) {
      a[i] = eighths(rng) / 8.0f;
      encode(a[i], true, &aBytes[i * bytes]);
    }
    for (int64_t i = 0; i < K * N; ++i) {
      b[i] = eighths(rng) / 8.0f;
      encode(b[i], false, &bBytes[i * bytes]);
    }
    CUdeviceptr dA, dB, dC, dRef;
    checkCu(cuMemAlloc(&dA, M * K * bytes), "cuMemAlloc");
    checkCu(cuMemAlloc(&dB, K * N * bytes), "cuMemAlloc");
    checkCu(cuMemAlloc(&dC, M * N * 4), "cuMemAlloc");
    checkCu(cuMemAlloc(&dRef, M * N * 4), "cuMemAlloc");
    checkCu(cuMemcpyHtoD(dA, aBytes.data(), M * K * bytes), "copy A");
    checkCu(cuMemcpyHtoD(dB, bBytes.data(), K * N * bytes), "copy B");

    // The descriptors only carry pointers, sizes and strides: the same
    // struct serves 1- and 2-byte elements.
    auto *pa = reinterpret_cast<uint16_t *>(dA);
    auto *pb = reinterpret_cast<uint16_t *>(dB);
    auto *pc = reinterpret_cast<float *>(dC);
    MemRef2D<uint16_t> mA{pa, pa, 0, {M, K}, {K, 1}};
    MemRef2D<uint16_t> mB = bnk ? MemRef2D<uint16_t>{pb, pb, 0, {N, K}, {K, 1}}
                                : MemRef2D<uint16_t>{pb, pb, 0, {K, N}, {N, 1}};
    MemRef2D<float> mC{pc, pc, 0, {M, N}, {N, 1}};
    // The kernel accumulates into C (linalg.matmul semantics): the checked
    // run starts from 0; timed runs just keep accumulating (same work).
    auto runKernel = [&] { kn.entry(&mA, &mB, &mC); };
    float alpha = 1.0f, beta = 0.0f;
    cudaDataType inType = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    // Row-major C = A B is column-major C^T = B^T A^T.
    auto runCublas = [&] {
      checkCublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K,
                               &alpha, reinterpret_cast<void *>(dB), inType, N,
                               reinterpret_cast<void *>(dA), inType, K, &beta,
                               reinterpret_cast<void *>(dRef), CUDA_R_32F, N,
                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmEx");
      checkCu(cuCtxSynchronize(), "synchronize");
    };

    checkCu(cuMemsetD32(dC, 0, M * N), "zero C");
    runKernel();
    if (!fp8)
      runCublas();
    std::vector<float> c(M * N), ref(M * N);
    checkCu(cuMemcpyDtoH(c.data(), dC, M * N * 4), "copy C");
    checkCu(cuMemcpyDtoH(ref.data(), dRef, M * N * 4), "copy cuBLAS C");
    // Exact comparison (see the header for why exact is the right bound).
    int64_t samples = M * N <= 1024 * 1024 ? M * N : 4096;
    std::uniform_int_distribution<int64_t> pick(0, M * N - 1);
    int64_t bad = 0, badCublas = 0;
    for (int64_t s = 0; s < samples; ++s) {
      int64_t idx = samples == M * N ? s : pick(rng);
      int64_t i = idx / N, j = idx % N;
      double expect = 0;
      // b holds the values in the order they were stored: [n][k] for "nt".
      for (int64_t kk = 0; kk < K; ++kk)
        expect += static_cast<double>(a[i * K + kk]) *
                  (bnk ? b[j * K + kk] : b[kk * N + j]);
      if (static_cast<double>(c[idx]) != expect) {
        if (bad < 5)
          std::fprintf(stderr, "  %s C[%ld][%ld] = %.9g, expected %.9g\n",
                       kn.name, static_cast<long>(i), static_cast<long>(j),
                       c[idx], expect);
        ++bad;
      }
      if (!fp8 && static_cast<double>(ref[idx]) != expect)
        ++badCublas;
    }

    double flops = 2.0 * M * N * K;
    double tKernel = timeCalls(runKernel, flops);
    double tCublas = fp8 ? 0 : timeCalls(runCublas, flops);
    double tfKernel = flops / tKernel / 1e12;
    double tfCublas = fp8 ? 0 : flops / tCublas / 1e12;
    char shape[64];
    std::snprintf(shape, sizeof(shape), "%ldx%ldx%ld", static_cast<long>(M),
                  static_cast<long>(N), static_cast<long>(K));
    std::string status =
        bad ? "FAIL (" + std::to_string(bad) + "/" + std::to_string(samples) +
                  " wrong)"
            : "ok (" + std::to_string(samples) + " exact)";
    if (badCublas)
      status += " [cuBLAS differs on " + std::to_string(badCublas) + "]";
    if (fp8)
      std::printf("%-22s %6s %9s %18s %10.1f %10s %7s %s\n", kn.name,
                  kn.chip, kn.type, shape, tfKernel, "-", "-",
                  status.c_str());
    else
      std::printf("%-22s %6s %9s %18s %10.1f %10.1f %7.2f %s\n", kn.name,
                  kn.chip, kn.type, shape, tfKernel, tfCublas,
                  tfKernel / tfCublas, status.c_str());
    std::fflush(stdout);
    failures += bad != 0;
    ++ran;
    cuMemFree(dA);
    cuMemFree(dB);
    cuMemFree(dC);
    cuMemFree(dRef);
  }
  cublasDestroy(handle);
  if (ran == 0) {
    std::fprintf(stderr, "mpt-tc-bench: no kernel matches this device "
                         "(needs sm_80 or newer) and the filter\n");
    return 2;
  }
  std::printf("%d kernels, %d failed checks\n", ran, failures);
  return failures ? 1 : 0;
}
