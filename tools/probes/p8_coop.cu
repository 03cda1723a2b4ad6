// Probe 8: cooperative launch limits and clusters (issue 15).
//   nvcc -arch=sm_90 -O2 -o p8_coop p8_coop.cu && ./p8_coop
#include "common.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern __shared__ int dyn[];
__global__ void simple(int* p) {
  dyn[threadIdx.x % 8] = threadIdx.x;
  p[blockIdx.x * blockDim.x + threadIdx.x] = dyn[0];
}
// Each block adds 1 to count; after grid.sync() every block checks count == gridDim.x.
__global__ void gsync(int* count, int* bad) {
  cg::grid_group g = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(count, 1);
  g.sync();
  if (threadIdx.x == 0 && atomicAdd(count, 0) != (int)gridDim.x) atomicAdd(bad, 1);
  g.sync();
  if (threadIdx.x == 0) atomicAdd(count, 1);
}
__global__ void clustered(int* p) {
  cg::cluster_group c = cg::this_cluster();
  p[blockIdx.x] = (int)c.block_rank();
}

int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  int sms, coop, maxsm, maxblk; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  CK(cudaDeviceGetAttribute(&maxsm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  CK(cudaDeviceGetAttribute(&maxblk, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  int regs; CK(cudaDeviceGetAttribute(&regs, cudaDevAttrMaxRegistersPerMultiprocessor, 0));
  int thr; CK(cudaDeviceGetAttribute(&thr, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  int bps; CK(cudaDeviceGetAttribute(&bps, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
  int ccl; cudaError_t ce = cudaDeviceGetAttribute(&ccl, cudaDevAttrClusterLaunch, 0);
  printf("p8 cudaDevAttrMultiProcessorCount = %d, CooperativeLaunch = %d, MaxSharedMemoryPerMultiprocessor = %d, MaxSharedMemoryPerBlockOptin = %d, MaxRegistersPerMultiprocessor = %d, MaxThreadsPerMultiProcessor = %d, MaxBlocksPerMultiprocessor = %d, ClusterLaunch = %d (%s)\n",
         sms, coop, maxsm, maxblk, regs, thr, bps, ccl, en(ce));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, gsync));
  printf("p8 gsync kernel: numRegs %d, sharedSizeBytes %zu, maxThreadsPerBlock %d\n", fa.numRegs, fa.sharedSizeBytes, fa.maxThreadsPerBlock);
  int* buf; CK(cudaMalloc(&buf, 64 << 20));
  int *count, *bad; CK(cudaMalloc(&count, 4)); CK(cudaMalloc(&bad, 4));
  int sizes[4] = {128, 256, 512, 1024};
  size_t shm[2] = {0, 48 * 1024};
  for (int si = 0; si < 4; si++)
    for (int hi = 0; hi < 2; hi++) {
      int bs = sizes[si]; size_t sh = shm[hi];
      int nsimple, ng;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nsimple, simple, bs, sh));
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ng, gsync, bs, sh));
      printf("p8 occupancy block %d dyn-shared %zu: simple %d/SM x %d = %d; gsync %d/SM x %d = %d\n",
             bs, sh, nsimple, sms, nsimple * sms, ng, sms, ng * sms);
      for (int extra = 0; extra <= 1; extra++) {
        int grid = ng * sms + extra;
        CK(cudaMemset(count, 0, 4)); CK(cudaMemset(bad, 0, 4));
        void* args[2] = {&count, &bad};
        cudaError_t l = cudaLaunchCooperativeKernel((void*)gsync, dim3(grid), dim3(bs), args, sh, 0);
        cudaError_t g = cudaGetLastError();
        cudaError_t s = cudaDeviceSynchronize();
        int hc = -1, hb = -1; cudaMemcpy(&hc, count, 4, cudaMemcpyDeviceToHost); cudaMemcpy(&hb, bad, 4, cudaMemcpyDeviceToHost);
        printf("p8 cooperative gsync grid %d (max%s) block %d dyn-shared %zu: launch=%s getLastError=%s sync=%s count=%d (expect %d if it ran) blocks that saw a wrong count=%d\n",
               grid, extra ? "+1" : "", bs, sh, en(l), en(g), en(s), hc, 2 * grid, hb);
      }
    }
  // Clusters.
  for (int allow = 0; allow <= 1; allow++) {
    if (allow) CK(cudaFuncSetAttribute(clustered, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int bs = 128; bs <= 1024; bs *= 8) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(132 * 16); cfg.blockDim = dim3(bs); cfg.dynamicSmemBytes = 0;
      int cs = -1; cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&cs, (void*)clustered, &cfg);
      printf("p8 cudaOccupancyMaxPotentialClusterSize block %d nonportable-allowed=%d: %d (%s)\n", bs, allow, cs, en(e));
      for (int c = 2; c <= 16; c *= 2) {
        cudaLaunchAttribute at; at.id = cudaLaunchAttributeClusterDimension; at.val.clusterDim.x = c; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
        cfg.attrs = &at; cfg.numAttrs = 1;
        int nc = -1; e = cudaOccupancyMaxActiveClusters(&nc, (void*)clustered, &cfg);
        cudaError_t le = cudaLaunchKernelEx(&cfg, clustered, buf);
        cudaError_t se = cudaDeviceSynchronize();
        printf("p8 cluster %d block %d nonportable-allowed=%d: cudaOccupancyMaxActiveClusters = %d (%s); launch %s, sync %s\n",
               c, bs, allow, nc, en(e), en(le), en(se));
        cudaGetLastError();
        cfg.attrs = nullptr; cfg.numAttrs = 0;
      }
    }
  }
  return 0;
}
