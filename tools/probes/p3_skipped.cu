// Probe 3: a skipped collective. __shfl_down_sync(0xffffffff, v, 1) called by lanes 0-15 only,
// while lanes 16-31 (named in the mask) do something else and exit.
//   nvcc -arch=sm_90 -O2 -o p3_skipped p3_skipped.cu && ./p3_skipped
// mode 0: lanes 16-31 return at once; 1: they write their output and exit; 2: they spin ~1 ms
// (globaltimer) and exit; 3: they call a different shuffle (__shfl_xor_sync full mask) and exit;
// 4 (legal control): they spin ~1 ms and then call the same __shfl_down_sync(0xffffffff, v, 1).
// ./p3_skipped MODE runs one mode (a hang is then one timeout); no argument runs all in turn.
#include "common.h"

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}

__global__ void skipped(const int* in, int* out, int mode, unsigned long long* ns) {
  int lane = threadIdx.x & 31;
  int v = 1000 + lane + in[0];
  unsigned long long t0 = gtimer();
  if (lane < 16) {
    int r = __shfl_down_sync(0xffffffff, v, 1);
    out[lane] = r;
    ns[lane] = gtimer() - t0;
  } else {
    if (mode == 0) return;
    if (mode == 2) { while (gtimer() - t0 < 1000000ull) { } }
    if (mode == 3) { out[lane] = __shfl_xor_sync(0xffffffff, v + 1000, 1); return; }
    if (mode == 4) { out[lane] = __shfl_down_sync(0xffffffff, v, 1); return; }
    out[lane] = -2;
  }
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int only = argc > 1 ? atoi(argv[1]) : -1;
  int *in, *out; unsigned long long* ns;
  CK(cudaMalloc(&in, 4)); CK(cudaMemset(in, 0, 4));
  CK(cudaMalloc(&out, 128)); CK(cudaMalloc(&ns, 32 * 8));
  const char* modes[5] = {"16-31 return at once", "16-31 write -2 and exit", "16-31 spin 1 ms then exit",
                          "16-31 call shfl_xor_sync(full,v+1000,1) and exit",
                          "control: 16-31 spin 1 ms then call the same shfl_down_sync(full,v,1)"};
  for (int mode = 0; mode < 5; mode++) {
    if (only >= 0 && mode != only) continue;
    printf("p3 mode %d (%s): started\n", mode, modes[mode]);
    CK(cudaMemset(out, 0xff, 128)); CK(cudaMemset(ns, 0, 256));
    skipped<<<1, 32>>>(in, out, mode, ns);
    cudaError_t l = cudaGetLastError(); cudaError_t s = cudaDeviceSynchronize();
    int h[32]; unsigned long long hn[32];
    cudaMemcpy(h, out, 128, cudaMemcpyDeviceToHost); cudaMemcpy(hn, ns, 256, cudaMemcpyDeviceToHost);
    char name[160]; snprintf(name, sizeof name, "p3 mode %d (%s): launch=%s sync=%s values", mode, modes[mode], en(l), en(s));
    print_lanes(name, h, 32);
    printf("p3 mode %d: lane 0 waited %llu ns in the shuffle\n", mode, hn[0]);
    if (s != cudaSuccess) return 1;
  }
  return 0;
}
