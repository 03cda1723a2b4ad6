// Probe 7: the device runtime (CUDA dynamic parallelism, CDP2 on sm_90).
//   nvcc -arch=sm_90 -O2 -rdc=true -o p7_cdp p7_cdp.cu -lcudadevrt && ./p7_cdp
// p7_devsync.cu holds a device-side cudaDeviceSynchronize() that is expected not to compile.
#include "common.h"

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}

// res[slot*4 + 0] = data[0] as the child saw it (parent wrote 42 before the launch),
// res[slot*4 + 1] = data[1] (parent writes 77 right after the launch), res[slot*4+2] = 1 ran.
__global__ void child(int* data, int* res, int slot) {
  res[slot * 4 + 0] = *(volatile int*)&data[0];
  res[slot * 4 + 1] = *(volatile int*)&data[1];
  res[slot * 4 + 2] = 1;
}

// kind 0: null stream; 1: a cudaStreamNonBlocking stream; 2: cudaStreamTailLaunch;
// 3: cudaStreamFireAndForget. res[slot*4+3] = cudaGetLastError() after the launch.
__global__ void parent(int* data, int* res, int kind) {
  if (threadIdx.x != 0) return;
  data[0] = 42;
  cudaError_t e = cudaSuccess;
  if (kind == 0) { child<<<1, 1>>>(data, res, kind); e = cudaGetLastError(); }
  else if (kind == 1) {
    cudaStream_t s; cudaError_t ce = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    child<<<1, 1, 0, s>>>(data, res, kind); e = cudaGetLastError();
    if (ce != cudaSuccess) e = ce;
    cudaStreamDestroy(s);
  } else if (kind == 2) { child<<<1, 1, 0, cudaStreamTailLaunch>>>(data, res, kind); e = cudaGetLastError(); }
  else { child<<<1, 1, 0, cudaStreamFireAndForget>>>(data, res, kind); e = cudaGetLastError(); }
  // delay, so that a child that runs concurrently would read data[1] before this write
  unsigned long long t0 = gtimer();
  while (gtimer() - t0 < 200000ull) { }
  *(volatile int*)&data[1] = 77;
  res[kind * 4 + 3] = (int)e;
}

// Recursion: depth d launches depth d+1 until max; errs[d] = cudaGetLastError() after the launch
// made at depth d (or -1 when none was made); reached = the deepest depth that ran.
__global__ void rec(int depth, int max, int* errs, int* reached, int tail) {
  atomicMax(reached, depth);
  if (depth < max) {
    if (tail) rec<<<1, 1, 0, cudaStreamTailLaunch>>>(depth + 1, max, errs, reached, tail);
    else rec<<<1, 1>>>(depth + 1, max, errs, reached, tail);
    errs[depth] = (int)cudaGetLastError();
  }
}

__global__ void slow_child(int* ran) {
  unsigned long long t0 = gtimer();
  while (gtimer() - t0 < 20000ull) { }  // 20 us
  atomicAdd(ran, 1);
}
// One thread launches n children into one stream; first_err = the index of the first failing
// launch, err = its code, nfail = how many failed.
__global__ void many(int n, int* ran, int* out, int kind) {
  int first = -1, code = 0, nfail = 0;
  for (int i = 0; i < n; i++) {
    if (kind == 0) slow_child<<<1, 1>>>(ran);
    else if (kind == 1) slow_child<<<1, 1, 0, cudaStreamFireAndForget>>>(ran);
    else slow_child<<<1, 1, 0, cudaStreamTailLaunch>>>(ran);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { nfail++; if (first < 0) { first = i; code = (int)e; } }
  }
  out[0] = first; out[1] = code; out[2] = nfail;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int maxdepth = argc > 1 ? atoi(argv[1]) : 30, nextra = argc > 2 ? atoi(argv[2]) : 1000;
  int *data, *res; CK(cudaMalloc(&data, 64)); CK(cudaMalloc(&res, 64));
  const char* kinds[4] = {"null stream", "cudaStreamNonBlocking stream", "cudaStreamTailLaunch", "cudaStreamFireAndForget"};
  for (int k = 0; k < 4; k++) {
    CK(cudaMemset(data, 0, 64)); CK(cudaMemset(res, 0xff, 64));
    parent<<<1, 32>>>(data, res, k);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    int h[16]; CK(cudaMemcpy(h, res, 64, cudaMemcpyDeviceToHost));
    printf("p7 child into %s: host launch=%s sync=%s; device launch err=%s; child ran=%d, saw data[0]=%d (written before launch: 42), data[1]=%d (written 200 us after launch: 77)\n",
           kinds[k], en(l), en(s), h[k * 4 + 3] == -1 ? "?" : en((cudaError_t)h[k * 4 + 3]), h[k * 4 + 2], h[k * 4 + 0], h[k * 4 + 1]);
  }
  size_t pend = 0; CK(cudaDeviceGetLimit(&pend, cudaLimitDevRuntimePendingLaunchCount));
  printf("p7 cudaLimitDevRuntimePendingLaunchCount default = %zu\n", pend);
  size_t sd = 0; cudaError_t sde = cudaDeviceGetLimit(&sd, cudaLimitDevRuntimeSyncDepth);
  printf("p7 cudaLimitDevRuntimeSyncDepth: cudaDeviceGetLimit = %s, value %zu\n", en(sde), sd);
  cudaGetLastError();
  int *errs, *reached; CK(cudaMalloc(&errs, 1024 * 4)); CK(cudaMalloc(&reached, 4));
  for (int tail = 0; tail < 2; tail++) {
    CK(cudaMemset(errs, 0xff, 1024 * 4)); CK(cudaMemset(reached, 0, 4));
    rec<<<1, 1>>>(0, maxdepth, errs, reached, tail);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    static int he[1024]; int hr; CK(cudaMemcpy(he, errs, 4096, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&hr, reached, 4, cudaMemcpyDeviceToHost));
    printf("p7 recursion to depth %d (%s): host launch=%s sync=%s; deepest depth that ran = %d (host grid = depth 0)\n",
           maxdepth, tail ? "tail launch" : "null stream", en(l), en(s), hr);
    printf("p7 recursion (%s) per-depth launch errors:", tail ? "tail" : "null");
    for (int d = 0; d < maxdepth && d < 1024; d++)
      if (d < 30 || he[d] != he[d - 1]) printf(" %d:%s", d, he[d] == -1 ? "-" : en((cudaError_t)he[d]));
    printf("\n");
  }
  int *ran, *out; CK(cudaMalloc(&ran, 4)); CK(cudaMalloc(&out, 16));
  const char* mk[3] = {"null stream", "fire-and-forget", "tail launch"};
  for (int kind = 0; kind < 3; kind++) {
    int n = (int)pend + nextra;
    CK(cudaMemset(ran, 0, 4)); CK(cudaMemset(out, 0, 16));
    many<<<1, 1>>>(n, ran, out, kind);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    int ho[3], hran; cudaMemcpy(ho, out, 12, cudaMemcpyDeviceToHost); cudaMemcpy(&hran, ran, 4, cudaMemcpyDeviceToHost);
    printf("p7 %d launches (%s) from one thread, pending limit %zu: host launch=%s sync=%s; first failing launch index %d, error %s, failures %d, children ran %d\n",
           n, mk[kind], pend, en(l), en(s), ho[0], ho[0] < 0 ? "none" : en((cudaError_t)ho[1]), ho[2], hran);
    if (s != cudaSuccess) break;
  }
  return 0;
}
