//===- CudaRuntimeShim.cpp - the mgpu* ABI on the CUDA driver API ---------===//
//
// MLIR's GPU host lowering (gpu-to-llvm + gpu.binary embedding) emits calls
// to a small C ABI (mgpuModuleLoad, mgpuLaunchKernel, ...) that upstream
// ships as libmlir_cuda_runtime.so; Debian's MLIR packages do not ship it.
// This library implements the part of that ABI that mpt's kernels use, on
// the CUDA driver API, so that code from `mpt-gpu-codegen` runs:
//   modules, functions and launches (dynamic shared memory above 48 KiB is
//   opted into per function), streams, events, device memory, and the TMA
//   descriptor constructor used by sm_90a kernels.
// Every call uses the device's primary context, which the CUDA runtime (and
// so cuBLAS) shares. Errors are printed with the failing call and abort:
// a kernel that silently did not run must never look like a result.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#define MPT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "?";
  const char *text = "?";
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "mpt_cuda_runtime: %s failed: %s (%s)\n", call, name,
               text);
  std::abort();
}
#define CHECK(call) check((call), #call)

int defaultDevice = 0;

/// Prints a warning for a failed call; returns whether it succeeded.
bool warnIfFailed(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = "?";
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "mpt_cuda_runtime: warning: %s failed: %s\n", call,
               name);
  return false;
}

/// Makes the primary context of the default device current on this thread;
/// false (with a warning) when there is no usable device.
bool tryEnsureContext() {
  static CUresult initResult = cuInit(0);
  if (!warnIfFailed(initResult, "cuInit"))
    return false;
  CUcontext current = nullptr;
  if (!warnIfFailed(cuCtxGetCurrent(&current), "cuCtxGetCurrent"))
    return false;
  if (current)
    return true;
  CUdevice device;
  CUcontext primary;
  return warnIfFailed(cuDeviceGet(&device, defaultDevice), "cuDeviceGet") &&
         warnIfFailed(cuDevicePrimaryCtxRetain(&primary, device),
                      "cuDevicePrimaryCtxRetain") &&
         warnIfFailed(cuCtxSetCurrent(primary), "cuCtxSetCurrent");
}

void ensureContext() {
  if (!tryEnsureContext()) {
    std::fprintf(stderr, "mpt_cuda_runtime: no usable CUDA device\n");
    std::abort();
  }
}

} // namespace

MPT_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

// Modules are loaded by global constructors of the host code, before main
// and for every kernel of the program, including kernels for another chip
// (an sm_90a cubin on an sm_80 GPU). A module that does not load on this
// device is reported and left null: launching one of its kernels aborts in
// mgpuModuleGetFunction.
MPT_EXPORT void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  if (!tryEnsureContext())
    return nullptr;
  CUmodule module = nullptr;
  if (!warnIfFailed(cuModuleLoadData(&module, data),
                    "cuModuleLoadData (its kernels cannot run here)"))
    return nullptr;
  return module;
}

/// PTX (format=isa, null-terminated) is JIT-compiled by the driver.
MPT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!tryEnsureContext())
    return nullptr;
  CUmodule module = nullptr;
  char log[8192];
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (!warnIfFailed(result, "cuModuleLoadDataEx (PTX JIT; its kernels "
                            "cannot run here)")) {
    std::fprintf(stderr, "mpt_cuda_runtime: PTX JIT log:\n%s\n", log);
    return nullptr;
  }
  return module;
}

MPT_EXPORT void mgpuModuleUnload(void *module) {
  if (module)
    CHECK(cuModuleUnload(static_cast<CUmodule>(module)));
}

MPT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module) {
    std::fprintf(stderr,
                 "mpt_cuda_runtime: kernel %s: its module did not load on "
                 "this device (see the warning at start-up)\n",
                 name);
    std::abort();
  }
  CUfunction function = nullptr;
  CHECK(cuModuleGetFunction(&function, static_cast<CUmodule>(module), name));
  return function;
}

MPT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, void *stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  ensureContext();
  auto fn = static_cast<CUfunction>(function);
  // Above 48 KiB, dynamic shared memory must be opted into per function.
  if (smem > 48 * 1024)
    CHECK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             smem));
  CHECK(cuLaunchKernel(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, smem,
                       static_cast<CUstream>(stream), params, extra));
}

MPT_EXPORT void *mgpuStreamCreate() {
  ensureContext();
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

MPT_EXPORT void mgpuStreamDestroy(void *stream) {
  CHECK(cuStreamDestroy(static_cast<CUstream>(stream)));
}

MPT_EXPORT void mgpuStreamSynchronize(void *stream) {
  CHECK(cuStreamSynchronize(static_cast<CUstream>(stream)));
}

MPT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  CHECK(cuStreamWaitEvent(static_cast<CUstream>(stream),
                          static_cast<CUevent>(event), 0));
}

MPT_EXPORT void *mgpuEventCreate() {
  ensureContext();
  CUevent event = nullptr;
  CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

MPT_EXPORT void mgpuEventDestroy(void *event) {
  CHECK(cuEventDestroy(static_cast<CUevent>(event)));
}

MPT_EXPORT void mgpuEventSynchronize(void *event) {
  CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
}

MPT_EXPORT void mgpuEventRecord(void *event, void *stream) {
  CHECK(cuEventRecord(static_cast<CUevent>(event),
                      static_cast<CUstream>(stream)));
}

MPT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                              bool isHostShared) {
  ensureContext();
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared)
    CHECK(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    CHECK(cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(ptr);
}

MPT_EXPORT void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (ptr)
    CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

MPT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                      static_cast<CUstream>(stream)));
}

MPT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         static_cast<CUstream>(stream)));
}

MPT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         static_cast<CUstream>(stream)));
}

/// A ranked memref descriptor: allocated and aligned pointers, offset, then
/// `rank` sizes and `rank` strides (in elements).
struct RankedDescriptorPrefix {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

/// nvgpu.tma.create.descriptor: encodes a tiled TMA descriptor for the
/// memref described by `rankedDescriptor` (row-major, innermost dimension
/// contiguous) with the box `boxDims` (outermost first), copies it to device
/// memory and returns that device pointer (the kernel parameter).
MPT_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *rankedDescriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  ensureContext();
  if (rank < 1 || rank > 5) {
    std::fprintf(stderr, "mpt_cuda_runtime: TMA rank %ld unsupported\n",
                 static_cast<long>(rank));
    std::abort();
  }
  size_t elementBytes;
  switch (dataType) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    elementBytes = 1;
    break;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    elementBytes = 2;
    break;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32:
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
    elementBytes = 4;
    break;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64:
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    elementBytes = 8;
    break;
  default:
    std::fprintf(stderr, "mpt_cuda_runtime: TMA data type %ld unsupported\n",
                 static_cast<long>(dataType));
    std::abort();
  }
  auto *desc = static_cast<RankedDescriptorPrefix *>(rankedDescriptor);
  const int64_t *sizes = desc->sizesAndStrides;
  const int64_t *strides = desc->sizesAndStrides + rank;
  char *base = desc->aligned + desc->offset * elementBytes;
  // cuTensorMapEncodeTiled lists dimensions innermost first; strides are in
  // bytes and omit the innermost (contiguous) dimension.
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  cuuint32_t boxDim[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<cuuint64_t>(sizes[rank - 1 - i]);
    boxDim[i] = static_cast<cuuint32_t>(boxDims[rank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] =
        static_cast<cuuint64_t>(strides[rank - 2 - i]) * elementBytes;
  // One descriptor per distinct request: the entry points build their
  // descriptors on every call, and a cuMemAlloc per call would synchronize
  // the device and distort timings.
  std::vector<int64_t> key = {reinterpret_cast<int64_t>(base), rank, dataType,
                              interleave, swizzle, l2Promotion, oobFill};
  for (int64_t i = 0; i < rank; ++i) {
    key.push_back(sizes[i]);
    key.push_back(strides[i]);
    key.push_back(boxDims[i]);
  }
  static std::mutex cacheMutex;
  static std::map<std::vector<int64_t>, CUdeviceptr> cache;
  std::lock_guard<std::mutex> lock(cacheMutex);
  if (auto it = cache.find(key); it != cache.end())
    return reinterpret_cast<void *>(it->second);

  CUtensorMap map;
  CHECK(cuTensorMapEncodeTiled(
      &map, static_cast<CUtensorMapDataType>(dataType),
      static_cast<cuuint32_t>(rank), base, globalDim, globalStrides, boxDim,
      elementStrides, static_cast<CUtensorMapInterleave>(interleave),
      static_cast<CUtensorMapSwizzle>(swizzle),
      static_cast<CUtensorMapL2promotion>(l2Promotion),
      static_cast<CUtensorMapFloatOOBfill>(oobFill)));
  CUdeviceptr deviceMap = 0;
  CHECK(cuMemAlloc(&deviceMap, sizeof(map)));
  CHECK(cuMemcpyHtoD(deviceMap, &map, sizeof(map)));
  cache[key] = deviceMap;
  return reinterpret_cast<void *>(deviceMap);
}
