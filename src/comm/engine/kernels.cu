// CUDA kernels of the correctness checks: pattern fill, poison, and on-device mismatch counting.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "comm/engine/kernels_cuda.h"

namespace dd::comm {

namespace {

template <typename T>
__device__ inline T from_int(int v);
template <>
__device__ inline float from_int<float>(int v) {
  return float(v);
}
template <>
__device__ inline int from_int<int>(int v) {
  return v;
}
template <>
__device__ inline __half from_int<__half>(int v) {
  return __int2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_int<__nv_bfloat16>(int v) {
  return __int2bfloat16_rn(v);
}

template <typename T>
__device__ inline bool equals(T a, int v);
template <>
__device__ inline bool equals<float>(float a, int v) {
  return a == float(v);
}
template <>
__device__ inline bool equals<int>(int a, int v) {
  return a == v;
}
template <>
__device__ inline bool equals<__half>(__half a, int v) {
  return __half2float(a) == float(v);
}
template <>
__device__ inline bool equals<__nv_bfloat16>(__nv_bfloat16 a, int v) {
  return __bfloat162float(a) == float(v);
}

template <typename T>
__global__ void fill_input_kernel(T* p, uint64_t n, Coll coll, int rank) {
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < n;
       j += uint64_t(gridDim.x) * blockDim.x)
    p[j] = from_int<T>(input_value(coll, rank, j));
}

template <typename T>
__global__ void fill_const_kernel(T* p, uint64_t n, int v) {
  T x = from_int<T>(v);
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < n;
       j += uint64_t(gridDim.x) * blockDim.x)
    p[j] = x;
}

template <typename T>
__global__ void check_kernel(const T* p, uint64_t n, ExpectCtx x, unsigned long long* wrong) {
  unsigned long long bad = 0, first = ~0ull;
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < n;
       j += uint64_t(gridDim.x) * blockDim.x) {
    bool checked;
    int e = expected_value(x, j, &checked);
    if (checked && !equals<T>(p[j], e)) {
      ++bad;
      if (j < first) first = j;
    }
  }
  if (bad) atomicMin(&wrong[1], first);  // one atomic per thread that saw a wrong element
  for (int off = 16; off > 0; off /= 2) bad += __shfl_down_sync(0xffffffffu, bad, off);
  if ((threadIdx.x & 31) == 0 && bad) atomicAdd(&wrong[0], bad);
}

constexpr int kThreads = 512;

unsigned blocks_for(uint64_t n) {
  uint64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

}  // namespace

#define DD_DISPATCH(t, KERNEL, ...)                                                                \
  switch (t) {                                                                                     \
    case Dtype::f32:                                                                               \
      KERNEL<float><<<blocks_for(count), kThreads, 0, s>>>(static_cast<float*>(p), __VA_ARGS__);   \
      break;                                                                                       \
    case Dtype::i32:                                                                               \
      KERNEL<int><<<blocks_for(count), kThreads, 0, s>>>(static_cast<int*>(p), __VA_ARGS__);       \
      break;                                                                                       \
    case Dtype::f16:                                                                               \
      KERNEL<__half><<<blocks_for(count), kThreads, 0, s>>>(static_cast<__half*>(p), __VA_ARGS__); \
      break;                                                                                       \
    case Dtype::bf16:                                                                              \
      KERNEL<__nv_bfloat16>                                                                        \
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(p), __VA_ARGS__);    \
      break;                                                                                       \
  }

cudaError_t launch_fill_input(Dtype t, void* p, uint64_t count, Coll coll, int rank, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  DD_DISPATCH(t, fill_input_kernel, count, coll, rank)
  return cudaGetLastError();
}

cudaError_t launch_fill_const(Dtype t, void* p, uint64_t count, int value, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  DD_DISPATCH(t, fill_const_kernel, count, value)
  return cudaGetLastError();
}

cudaError_t launch_check(Dtype t, const void* cp, uint64_t count, const ExpectCtx& x,
                         unsigned long long* d_wrong, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  void* p = const_cast<void*>(cp);
  switch (t) {
    case Dtype::f32:
      check_kernel<float>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<const float*>(p), count, x, d_wrong);
      break;
    case Dtype::i32:
      check_kernel<int><<<blocks_for(count), kThreads, 0, s>>>(static_cast<const int*>(p), count, x, d_wrong);
      break;
    case Dtype::f16:
      check_kernel<__half>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<const __half*>(p), count, x, d_wrong);
      break;
    case Dtype::bf16:
      check_kernel<__nv_bfloat16>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(p), count, x, d_wrong);
      break;
  }
  return cudaGetLastError();
}

}  // namespace dd::comm
