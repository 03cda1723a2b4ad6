// Probe 5: which errors are sticky, and which call reports an asynchronous fault.
// One case per process (a sticky error spoils the context):
//   nvcc -arch=sm_90 -O2 -o p5_sticky p5_sticky.cu && ./p5_sticky CASE
// CASE: {illegal, trap, assert, misaligned}-{sync, query, sleep}, config9, value1, notready.
#include "common.h"
#include <assert.h>
#include <string>
#include <unistd.h>

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}
__global__ void k_illegal(int* p) { if (threadIdx.x == 0) *(volatile int*)(p + (1ull << 38)) = 1; }
__global__ void k_trap(int* p) { if (threadIdx.x == 0) __trap(); p[threadIdx.x] = 1; }
__global__ void k_assert(int* p) { int v = p[0]; assert(v == 12345); p[1] = v; }
__global__ void k_misaligned(int* p) { if (threadIdx.x == 0) *(volatile int*)((char*)p + 1) = 1; }
__global__ void k_good(int* p) { p[threadIdx.x] = 7; }
__global__ void k_wait(unsigned long long ns) { unsigned long long t0 = gtimer(); while (gtimer() - t0 < ns) { } }
extern __shared__ int dyn[];
__global__ void k_dyn(int* p) { dyn[threadIdx.x] = 1; __syncthreads(); p[threadIdx.x] = dyn[0]; }

static int* g_buf;
static void aftermath(const char* c) {
  cudaError_t e;
  e = cudaPeekAtLastError(); printf("p5 %s: then cudaPeekAtLastError = %s\n", c, en(e));
  e = cudaGetLastError(); printf("p5 %s: then cudaGetLastError = %s\n", c, en(e));
  e = cudaGetLastError(); printf("p5 %s: then cudaGetLastError again = %s\n", c, en(e));
  int* p2 = nullptr; e = cudaMalloc(&p2, 1024); printf("p5 %s: then cudaMalloc = %s\n", c, en(e));
  int h[4] = {0, 0, 0, 0}; e = cudaMemcpy(h, g_buf, 16, cudaMemcpyDeviceToHost); printf("p5 %s: then cudaMemcpy D2H = %s\n", c, en(e));
  k_good<<<1, 32>>>(g_buf); e = cudaGetLastError(); printf("p5 %s: then a good launch: cudaGetLastError = %s\n", c, en(e));
  e = cudaDeviceSynchronize(); printf("p5 %s: then cudaDeviceSynchronize = %s\n", c, en(e));
  cudaStream_t s; e = cudaStreamCreate(&s); printf("p5 %s: then cudaStreamCreate = %s\n", c, en(e));
  e = cudaGetLastError(); printf("p5 %s: then cudaGetLastError = %s\n", c, en(e));
  e = cudaDeviceReset(); printf("p5 %s: then cudaDeviceReset = %s\n", c, en(e));
  e = cudaMalloc(&p2, 1024); printf("p5 %s: after reset cudaMalloc = %s\n", c, en(e));
  k_good<<<1, 32>>>(p2); e = cudaGetLastError(); cudaError_t e2 = cudaDeviceSynchronize();
  printf("p5 %s: after reset a good launch = %s, sync = %s\n", c, en(e), en(e2));
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  setvbuf(stdout, NULL, _IONBF, 0);
  std::string c = argv[1];
  CK(cudaMalloc(&g_buf, 4096)); CK(cudaMemset(g_buf, 0, 4096)); CK(cudaDeviceSynchronize());
  if (c == "config9" || c == "value1") {
    cudaError_t l;
    if (c == "config9") {
      k_good<<<1, 2048>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch <<<1,2048>>>: cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<dim3(32, 32, 2), 1>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch grid (32,32,2) block 1: cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<1, dim3(32, 32, 2)>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch <<<1,(32,32,2)>>> (2048 threads): cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<1, dim3(1, 1, 128)>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch <<<1,(1,1,128)>>> (z > 64): cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<dim3(1, 65536), 32>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch grid (1,65536) (y > 65535): cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<dim3(0), 32>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch grid 0: cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<1, 0>>>(g_buf); l = cudaGetLastError(); printf("p5 %s: launch block 0: cudaGetLastError = %s\n", c.c_str(), en(l));
      k_good<<<1, 2048>>>(g_buf); l = cudaPeekAtLastError(); printf("p5 %s: launch <<<1,2048>>> again, cudaPeekAtLastError = %s (then the aftermath)\n", c.c_str(), en(l));
    }
    else {
      k_dyn<<<1, 32, 200 * 1024>>>(g_buf); l = cudaGetLastError();
      printf("p5 %s: launch with 200 KiB dynamic shared (no opt-in): cudaGetLastError = %s\n", c.c_str(), en(l));
      aftermath((c + "/dyn-shared").c_str());
      CK(cudaMalloc(&g_buf, 4096));
      cudaStream_t s; l = cudaStreamCreateWithFlags(&s, 0x100);
      printf("p5 %s: cudaStreamCreateWithFlags(flags 0x100) returns %s\n", c.c_str(), en(l));
      int* p = nullptr; l = cudaMemcpy(p, g_buf, 16, (cudaMemcpyKind)99);
      printf("p5 %s: cudaMemcpy(kind 99) returns %s\n", c.c_str(), en(l));
    }
    aftermath(c.c_str());
    return 0;
  }
  if (c == "notready") {
    cudaEvent_t ev; CK(cudaEventCreate(&ev));
    k_wait<<<1, 1>>>(300000000ull);  // 300 ms
    CK(cudaEventRecord(ev));
    cudaError_t q = cudaStreamQuery(0);
    printf("p5 notready: cudaStreamQuery during a 300 ms kernel = %s\n", en(q));
    cudaError_t p = cudaPeekAtLastError(), g = cudaGetLastError();
    printf("p5 notready: then cudaPeekAtLastError = %s, cudaGetLastError = %s\n", en(p), en(g));
    q = cudaEventQuery(ev);
    printf("p5 notready: cudaEventQuery during it = %s\n", en(q));
    p = cudaPeekAtLastError(); g = cudaGetLastError();
    printf("p5 notready: then cudaPeekAtLastError = %s, cudaGetLastError = %s\n", en(p), en(g));
    cudaError_t s = cudaDeviceSynchronize();
    printf("p5 notready: cudaDeviceSynchronize = %s, then cudaStreamQuery = %s, cudaEventQuery = %s\n", en(s), en(cudaStreamQuery(0)), en(cudaEventQuery(ev)));
    return 0;
  }
  // fault cases
  size_t dash = c.find('-');
  std::string kind = c.substr(0, dash), how = c.substr(dash + 1);
  if (kind == "illegal") k_illegal<<<1, 32>>>(g_buf);
  else if (kind == "trap") k_trap<<<1, 32>>>(g_buf);
  else if (kind == "assert") k_assert<<<1, 32>>>(g_buf);
  else k_misaligned<<<1, 32>>>(g_buf);
  cudaError_t l = cudaPeekAtLastError();
  printf("p5 %s: right after the launch: cudaPeekAtLastError = %s\n", c.c_str(), en(l));
  if (how == "sync") {
    cudaError_t s = cudaStreamSynchronize(0);
    printf("p5 %s: cudaStreamSynchronize = %s\n", c.c_str(), en(s));
    s = cudaStreamSynchronize(0);
    printf("p5 %s: cudaStreamSynchronize again = %s\n", c.c_str(), en(s));
  } else if (how == "sleep") {
    usleep(300000);  // the fault has happened by now, but nothing has synchronised
    cudaError_t e = cudaPeekAtLastError(); printf("p5 %s: after 300 ms host sleep, no sync: cudaPeekAtLastError = %s\n", c.c_str(), en(e));
    int* p2 = nullptr; e = cudaMalloc(&p2, 1024); printf("p5 %s: after the sleep: cudaMalloc = %s\n", c.c_str(), en(e));
    k_good<<<1, 32>>>(g_buf); e = cudaPeekAtLastError(); printf("p5 %s: after the sleep: a good launch: cudaPeekAtLastError = %s\n", c.c_str(), en(e));
  } else {
    cudaError_t q; int polls = 0;
    do { q = cudaStreamQuery(0); polls++; } while (q == cudaErrorNotReady && polls < 100000000);
    printf("p5 %s: cudaStreamQuery polled %d times, the first answer not cudaErrorNotReady = %s\n", c.c_str(), polls, en(q));
    cudaEvent_t ev; cudaError_t ee = cudaEventCreate(&ev);
    printf("p5 %s: then cudaEventCreate = %s\n", c.c_str(), en(ee));
    if (ee == cudaSuccess) printf("p5 %s: then cudaEventQuery = %s\n", c.c_str(), en(cudaEventQuery(ev)));
  }
  aftermath(c.c_str());
  return 0;
}
