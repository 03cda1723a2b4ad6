// Probe 4: spin-waits (issue 10). One case per process, so that a hang shows as a timeout:
//   nvcc -arch=sm_90 -O2 -o p4_spin p4_spin.cu && timeout 20 ./p4_spin CASE
// CASE: block-<read>-<shape> with read in {atomic, volatile, acqref} and shape in
//   {samewarp: lane 0 spins, lane 31 sets; samewarp-rev: lane 31 spins, lane 0 sets;
//    many: lanes 1-31 spin, lane 0 sets; otherwarp: thread 0 spins, thread 32 sets (block of 64)}
// or lb-<kind>-<blocks>-<threads> with kind in {volatile, acquire, ticket, reverse}: block b waits
//   for the flag of block b-1 (reverse: of block b+1; ticket: b is a ticket from atomicAdd).
#include "common.h"
#include <cuda/atomic>
#include <string>

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}

enum Read { ATOMIC = 0, VOLATILE = 1, ACQREF = 2 };

__device__ __forceinline__ int spin_read(int* flag, int read) {
  if (read == ATOMIC) return atomicOr(flag, 0);
  if (read == VOLATILE) return *(volatile int*)flag;
  cuda::atomic_ref<int, cuda::thread_scope_block> r(*flag);
  return r.load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void spin_set(int* flag, int read) {
  if (read == ACQREF) { cuda::atomic_ref<int, cuda::thread_scope_block> r(*flag); r.store(1, cuda::memory_order_release); }
  else { __threadfence_block(); atomicExch(flag, 1); }
}

// out[t] = the data the spinner read after the flag (42), or -1 for non-spinners; out[64] = spins
// of the first spinner (how many reads it made before it saw the flag).
__global__ void block_spin(int read, int spinner_lo, int spinner_hi, int setter, int* out) {
  __shared__ int flag, data;
  int t = threadIdx.x;
  if (t == 0) { flag = 0; data = 0; }
  __syncthreads();
  if (t == setter) {
    unsigned long long t0 = gtimer();
    while (gtimer() - t0 < 100000ull) { }  // 100 us, so that the spinners are spinning first
    data = 42;
    spin_set(&flag, read);
    out[t] = -1;
  } else if (t >= spinner_lo && t <= spinner_hi) {
    long long spins = 0;
    while (spin_read(&flag, read) == 0) spins++;
    if (read != ACQREF) __threadfence_block();
    out[t] = *(volatile int*)&data;
    if (t == spinner_lo) out[64] = (int)(spins > 0x7fffffff ? 0x7fffffff : spins);
  } else {
    out[t] = -1;
  }
}

// Decoupled look-back, simplified: each block's aggregate is (b % 7) + 1; block b publishes the
// inclusive prefix prefix[b] and then flag[b] = 1, after reading prefix[b-1] once flag[b-1] is set.
// order[b] = the dispatch ticket thread 0 of block b drew when it started.
__global__ void lookback(int kind, int* flag, long long* prefix, int* order, int* ticket) {
  int n = gridDim.x;
  if (threadIdx.x == 0) {
    int tk = atomicAdd(ticket, 1);
    int b = (kind == 2) ? tk : (int)blockIdx.x;
    order[blockIdx.x] = tk;
    long long agg = (b % 7) + 1;
    long long prev = 0;
    int wait_for = (kind == 3) ? b + 1 : b - 1;   // reverse: the next block
    if (wait_for >= 0 && wait_for < n) {
      if (kind == 1) {
        cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[wait_for]);
        while (f.load(cuda::memory_order_acquire) == 0) { }
        prev = prefix[wait_for];
      } else {
        while (((volatile int*)flag)[wait_for] == 0) { }
        __threadfence();
        prev = ((volatile long long*)prefix)[wait_for];
      }
    }
    if (kind == 1) {
      prefix[b] = prev + agg;
      cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[b]);
      f.store(1, cuda::memory_order_release);
    } else {
      ((volatile long long*)prefix)[b] = prev + agg;
      __threadfence();
      ((volatile int*)flag)[b] = 1;
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 2) { printf("usage: p4_spin CASE\n"); return 2; }
  std::string c = argv[1];
  setvbuf(stdout, NULL, _IONBF, 0);
  if (c.rfind("block-", 0) == 0) {
    int read = c.find("-atomic-") != std::string::npos ? ATOMIC : c.find("-volatile-") != std::string::npos ? VOLATILE : ACQREF;
    int lo, hi, setter, threads = 32;
    if (c.size() >= 12 && c.compare(c.size() - 12, 12, "samewarp-rev") == 0) { lo = 31; hi = 31; setter = 0; }
    else if (c.size() >= 8 && c.compare(c.size() - 8, 8, "samewarp") == 0) { lo = 0; hi = 0; setter = 31; }
    else if (c.size() >= 4 && c.compare(c.size() - 4, 4, "many") == 0) { lo = 1; hi = 31; setter = 0; }
    else { lo = 0; hi = 0; setter = 32; threads = 64; }
    int* out; CK(cudaMalloc(&out, 65 * 4)); CK(cudaMemset(out, 0xff, 65 * 4));
    printf("p4 %s: started (spinners %d-%d, setter %d, %d threads)\n", c.c_str(), lo, hi, setter, threads);
    block_spin<<<1, threads>>>(read, lo, hi, setter, out);
    CK(cudaGetLastError());
    cudaError_t s = cudaDeviceSynchronize();
    int h[65]; CK(cudaMemcpy(h, out, 65 * 4, cudaMemcpyDeviceToHost));
    int ok = 1; for (int t = lo; t <= hi; t++) ok &= h[t] == 42;
    printf("p4 %s: FINISHED sync=%s spinners read data=%d (all 42: %s), first spinner spun %d reads\n",
           c.c_str(), en(s), h[lo], ok ? "yes" : "NO", h[64]);
    return 0;
  }
  // lb-<kind>-<blocks>-<threads>
  char kindname[32]; int blocks = 0, threads = 0;
  if (sscanf(c.c_str(), "lb-%31[a-z]-%d-%d", kindname, &blocks, &threads) != 3) { printf("bad case\n"); return 2; }
  std::string k = kindname;
  int kind = k == "volatile" ? 0 : k == "acquire" ? 1 : k == "ticket" ? 2 : 3;
  int *flag, *order, *ticket; long long* prefix;
  CK(cudaMalloc(&flag, blocks * 4)); CK(cudaMalloc(&order, blocks * 4)); CK(cudaMalloc(&ticket, 4));
  CK(cudaMalloc(&prefix, blocks * 8));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int per_sm; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lookback, threads, 0));
  for (int rep = 0; rep < 2; rep++) {
    CK(cudaMemset(flag, 0, blocks * 4)); CK(cudaMemset(ticket, 0, 4)); CK(cudaMemset(prefix, 0, blocks * 8));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    printf("p4 %s rep %d: started (resident at most %d blocks = %d/SM x %d SMs)\n", c.c_str(), rep, per_sm * sms, per_sm, sms);
    CK(cudaEventRecord(e0));
    lookback<<<blocks, threads>>>(kind, flag, prefix, order, ticket);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    cudaError_t s = cudaDeviceSynchronize();
    float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
    long long* hp = (long long*)malloc(blocks * 8); int* ho = (int*)malloc(blocks * 4);
    CK(cudaMemcpy(hp, prefix, blocks * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ho, order, blocks * 4, cudaMemcpyDeviceToHost));
    long long expect = 0; int bad = 0;
    if (kind == 3) {  // reverse: prefix[b] = sum over b..n-1
      for (int b = blocks - 1; b >= 0; b--) { expect += (b % 7) + 1; if (hp[b] != expect) bad++; }
    } else {
      for (int b = 0; b < blocks; b++) { expect += (b % 7) + 1; if (hp[b] != expect) bad++; }
    }
    int maxdev = 0, out_of_order = 0;
    for (int b = 0; b < blocks; b++) { int d = abs(ho[b] - b); if (d > maxdev) maxdev = d; if (ho[b] != b) out_of_order++; }
    printf("p4 %s rep %d: FINISHED sync=%s %.3f ms, %d wrong prefixes, dispatch tickets: %d blocks off their index, max |ticket-blockIdx| = %d\n",
           c.c_str(), rep, en(s), ms, bad, out_of_order, maxdev);
    free(hp); free(ho);
  }
  return 0;
}
