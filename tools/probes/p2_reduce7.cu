// Probe 2: reduce7 of NVIDIA's CUDA reduction sample (cuda-samples Samples/2_Concepts_and_Techniques/
// reduction/reduction_kernel.cu), whose second warp reduction passes ballot_result (lanes
// 0..warps-1) as the mask but shuffles down by 16, 8, 4, 2, 1 from lanes outside it.
//   nvcc -arch=sm_90 -O2 -o p2_reduce7 p2_reduce7.cu && ./p2_reduce7
#include "common.h"

template <class T>
__device__ __forceinline__ T warpReduceSumShfl(unsigned int mask, T mySum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(mask, mySum, offset);
  return mySum;
}
template <class T, bool kUseRedux>
__device__ __forceinline__ T warpReduceSum(unsigned int mask, T mySum) {
  if constexpr (kUseRedux) return (T)__reduce_add_sync(mask, (int)mySum);  // the sample's int path on sm_80+
  else return warpReduceSumShfl<T>(mask, mySum);
}

// As in the sample, with nIsPow2 = true.
template <class T, unsigned int blockSize, bool kUseRedux>
__global__ void reduce7(const T* __restrict__ g_idata, T* __restrict__ g_odata, unsigned int n) {
  extern __shared__ unsigned char smem_raw[];
  T* sdata = reinterpret_cast<T*>(smem_raw);
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  unsigned int maskLength = (blockSize & 31);
  maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
  const unsigned int mask = (0xffffffff) >> maskLength;
  T mySum = 0;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  gridSize = gridSize << 1;
  while (i < n) {
    mySum += g_idata[i];
    if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  mySum = warpReduceSum<T, kUseRedux>(mask, mySum);
  if ((tid % warpSize) == 0) sdata[tid / warpSize] = mySum;
  __syncthreads();
  const unsigned int shmem_extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
  const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);
  if (tid < shmem_extent) {
    mySum = sdata[tid];
    mySum = warpReduceSum<T, kUseRedux>(ballot_result, mySum);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// What each shuffle of the second reduction returns in a 2-warp block: lanes 0 and 1 hold 10 and
// 20 (plus in[0] = 0), mask 0b11; out[step*2 + lane] = the value returned at offset 16>>step.
__global__ void second_reduction_trace(const int* in, int* out) {
  unsigned tid = threadIdx.x;
  int v = (tid == 0 ? 10 : tid == 1 ? 20 : 5000 + (int)tid) + in[0];
  const unsigned ballot_result = __ballot_sync(0xffffffff, tid < 2);
  if (tid < 2) {
    int step = 0;
    for (int offset = 16; offset > 0; offset /= 2, step++) {
      int got = __shfl_down_sync(ballot_result, v, offset);
      out[step * 2 + tid] = got;
      v += got;
    }
    out[10 + tid] = v;
  }
}
template <class T, unsigned int blockSize, bool kUseRedux>
void run(const char* tname, const char* how, int n, int blocks) {
  T* h = (T*)malloc(n * sizeof(T));
  double cpu = 0;
  for (int i = 0; i < n; i++) { h[i] = (T)((i * 7 + 3) % 13); cpu += (double)h[i]; }
  T *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(T))); CK(cudaMalloc(&d_out, blocks * sizeof(T)));
  CK(cudaMemcpy(d_in, h, n * sizeof(T), cudaMemcpyHostToDevice));
  reduce7<T, blockSize, kUseRedux><<<blocks, blockSize, (blockSize / 32) * sizeof(T)>>>(d_in, d_out, n);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  T* part = (T*)malloc(blocks * sizeof(T));
  CK(cudaMemcpy(part, d_out, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  double gpu = 0; for (int b = 0; b < blocks; b++) gpu += (double)part[b];
  printf("p2 reduce7<%s, block %u (%u warps), %s> n=%d blocks=%d: gpu=%.0f cpu=%.0f %s (gpu/cpu=%.4f) block0=%.0f\n",
         tname, blockSize, blockSize / 32, how, n, blocks, gpu, cpu, gpu == cpu ? "MATCH" : "MISMATCH", gpu / cpu,
         (double)part[0]);
  free(h); free(part); cudaFree(d_in); cudaFree(d_out);
}

int main() {
  int n = 1 << 20, blocks = 64;
  {
    int *in, *out, h[12];
    CK(cudaMalloc(&in, 4)); CK(cudaMemset(in, 0, 4)); CK(cudaMalloc(&out, 48)); CK(cudaMemset(out, 0xff, 48));
    second_reduction_trace<<<1, 64>>>(in, out);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, out, 48, cudaMemcpyDeviceToHost));
    printf("p2 trace (lanes 0,1 hold 10,20; mask 0b11; other lanes hold 5000+lane): ");
    for (int s2 = 0; s2 < 5; s2++) printf("offset %d -> lane0 got %d lane1 got %d; ", 16 >> s2, h[s2 * 2], h[s2 * 2 + 1]);
    printf("final lane0=%d lane1=%d (right answer 30)\n", h[10], h[11]);
  }
  run<float, 64, false>("float", "shfl_down", n, blocks);
  run<float, 256, false>("float", "shfl_down", n, blocks);
  run<int, 64, false>("int", "shfl_down", n, blocks);
  run<int, 256, false>("int", "shfl_down", n, blocks);
  run<int, 64, true>("int", "__reduce_add_sync (the sample's sm_80+ int path)", n, blocks);
  run<int, 256, true>("int", "__reduce_add_sync (the sample's sm_80+ int path)", n, blocks);
  run<double, 64, false>("double", "shfl_down", n, blocks);
  run<double, 256, false>("double", "shfl_down", n, blocks);
  return 0;
}
