// Probe 16 (issue 25): an open-ended `for` spin-wait, and what compute-sanitizer's racecheck
// and initcheck say about warp-synchronous code, same-value writes, volatile flags and cast
// (byte) accesses of a word. One case per process:
//   nvcc -arch=sm_90 -O2 -o p17 p17_hang_checkers.cu && timeout 20 ./p17 CASE
// and under `compute-sanitizer --tool racecheck|initcheck ./p17 CASE`.
// CASE:
//   for-spin-otherwarp / for-spin-samewarp: thread 0 spins in `for (i = 0;; ++i)` on an acquire
//     load of a global flag, thread 32 (or 5) sets it after 100 us; a 2 s guard on %globaltimer
//     ends the spin if it never sees the flag (it then prints GUARD).
//   warp-reduce / warp-reduce-syncwarp: the pre-Volta reduction's last warp, through volatile
//     shared memory, without / with __syncwarp() between the steps (block of 64).
//   same-value / diff-value: every thread of a block of 64 writes a shared flag (1, or its
//     index), no barrier between; then a barrier and thread 0 reads it.
//   flag-samewarp / flag-otherwarp: lane 0 writes data, __threadfence_block(), a volatile store
//     of a shared flag; lane 1 (or thread 32) spins on a volatile load of it, then reads data.
//     flag-samewarp-nofence: lane 0 stores the flag (volatile, no fence, no data); lane 1 spins.
//   shared-cast: thread 0 writes byte 1 of a __shared__ unsigned through a char pointer while
//     thread 1 reads the whole word (no barrier).
//   shared-partial / global-partial: only byte 0 of a word is written (char pointer), then the
//     word is read (initcheck's question).
#include "common.h"
#include <cuda/atomic>
#include <string>

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}

// out[0] = 1 if the spinner saw the flag, 2 if the guard ended it; out[1] = iterations.
__global__ void for_spin(int setter, int* flag, long long* out) {
  int t = threadIdx.x;
  if (t == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    unsigned long long t0 = gtimer();
    long long n = 0;
    for (unsigned long long i = 0;; ++i) {
      n = (long long)i;
      if (f.load(cuda::memory_order_acquire) == 1) { out[0] = 1; break; }
      if ((i & 1023) == 0 && gtimer() - t0 > 2000000000ull) { out[0] = 2; break; }
    }
    out[1] = n;
  } else if (t == setter) {
    unsigned long long t0 = gtimer();
    while (gtimer() - t0 < 100000ull) { }
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    f.store(1, cuda::memory_order_release);
  }
}

__global__ void warp_reduce(int sync, const int* in, int* out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 32) {
    volatile int* v = s;
    v[tid] = v[tid] + v[tid + 32]; if (sync) __syncwarp();
    v[tid] = v[tid] + v[tid + 16]; if (sync) __syncwarp();
    v[tid] = v[tid] + v[tid + 8];  if (sync) __syncwarp();
    v[tid] = v[tid] + v[tid + 4];  if (sync) __syncwarp();
    v[tid] = v[tid] + v[tid + 2];  if (sync) __syncwarp();
    v[tid] = v[tid] + v[tid + 1];
  }
  if (tid == 0) out[0] = s[0];
}

__global__ void same_value(int diff, int* out) {
  __shared__ int flag;
  int t = threadIdx.x;
  if (t == 0) flag = 0;
  __syncthreads();
  flag = diff ? t : 1;
  __syncthreads();
  if (t == 0) out[0] = flag;
}

__global__ void volatile_flag(int reader, int fence, int* out) {
  __shared__ int flag, data;
  int t = threadIdx.x;
  if (t == 0) { flag = 0; data = 0; }
  __syncthreads();
  if (t == 0) {
    if (fence) { data = 42; __threadfence_block(); }
    *(volatile int*)&flag = 1;
  } else if (t == reader) {
    while (*(volatile int*)&flag == 0) { }
    if (fence) { __threadfence_block(); out[0] = *(volatile int*)&data; } else { out[0] = 42; }
  }
}

__global__ void shared_cast(int* out) {
  __shared__ unsigned w[4];
  int t = threadIdx.x;
  if (t == 0) { w[0] = 0; w[1] = 0; }
  __syncthreads();
  if (t == 0) ((volatile unsigned char*)w)[1] = 7;
  if (t == 1) out[0] = (int)w[0];
}

__global__ void shared_partial(int* out) {
  __shared__ unsigned w[4];
  if (threadIdx.x == 0) {
    ((volatile unsigned char*)w)[0] = 1;
    out[0] = (int)((volatile unsigned*)w)[0];
  }
}

__global__ void global_partial(unsigned* w, int* out) {
  if (threadIdx.x == 0) {
    ((volatile unsigned char*)w)[0] = 1;
    out[0] = (int)((volatile unsigned*)w)[0];
  }
}

int main(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  int* d; CK(cudaMalloc(&d, 4096)); CK(cudaMemset(d, 0, 4096));
  int h[64];
  if (c == "for-spin-otherwarp" || c == "for-spin-samewarp") {
    long long* o; CK(cudaMalloc(&o, 16)); CK(cudaMemset(o, 0, 16));
    for_spin<<<1, 64>>>(c == "for-spin-otherwarp" ? 32 : 5, d, o);
    cudaError_t e = cudaDeviceSynchronize();
    long long r[2]; CK(cudaMemcpy(r, o, 16, cudaMemcpyDeviceToHost));
    printf("p16 %s: %s sync=%s iterations=%lld\n", c.c_str(), r[0] == 1 ? "FINISHED" : r[0] == 2 ? "GUARD" : "?", en(e), r[1]);
  } else if (c == "warp-reduce" || c == "warp-reduce-syncwarp") {
    for (int i = 0; i < 64; i++) h[i] = i * 3 + 1;
    int want = 0; for (int i = 0; i < 64; i++) want += h[i];
    CK(cudaMemcpy(d, h, 256, cudaMemcpyHostToDevice));
    warp_reduce<<<1, 64>>>(c == "warp-reduce-syncwarp", d, d + 64);
    cudaError_t e = cudaDeviceSynchronize();
    int r; CK(cudaMemcpy(&r, d + 64, 4, cudaMemcpyDeviceToHost));
    printf("p16 %s: sync=%s sum=%d want=%d\n", c.c_str(), en(e), r, want);
  } else if (c == "same-value" || c == "diff-value") {
    same_value<<<1, 64>>>(c == "diff-value", d);
    cudaError_t e = cudaDeviceSynchronize();
    int r; CK(cudaMemcpy(&r, d, 4, cudaMemcpyDeviceToHost));
    printf("p16 %s: sync=%s flag=%d\n", c.c_str(), en(e), r);
  } else if (c == "flag-samewarp" || c == "flag-otherwarp" || c == "flag-samewarp-nofence") {
    volatile_flag<<<1, 64>>>(c == "flag-otherwarp" ? 32 : 1, c != "flag-samewarp-nofence", d);
    cudaError_t e = cudaDeviceSynchronize();
    int r; CK(cudaMemcpy(&r, d, 4, cudaMemcpyDeviceToHost));
    printf("p16 %s: sync=%s data=%d\n", c.c_str(), en(e), r);
  } else if (c == "shared-cast") {
    shared_cast<<<1, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("p16 %s: sync=%s\n", c.c_str(), en(e));
  } else if (c == "shared-partial") {
    shared_partial<<<1, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("p16 %s: sync=%s\n", c.c_str(), en(e));
  } else if (c == "global-partial") {
    unsigned* w; CK(cudaMalloc(&w, 16));
    global_partial<<<1, 32>>>(w, d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("p16 %s: sync=%s\n", c.c_str(), en(e));
  } else {
    printf("unknown case %s\n", c.c_str());
    return 2;
  }
  fflush(stdout);
  return 0;
}
