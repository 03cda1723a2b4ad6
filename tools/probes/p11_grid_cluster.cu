// What an H200 does with grid syncs outside cooperative launches, and with cluster shapes
// that do not tile the grid.
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void grid_sync_kernel(int *out) {
    cg::grid_group g = cg::this_grid();
    out[blockIdx.x] = g.is_valid();
    g.sync();
    out[gridDim.x + blockIdx.x] = 1;
}

__global__ void __cluster_dims__(2, 1, 1) clustered(int *out) {
    cg::cluster_group c = cg::this_cluster();
    c.sync();
    out[blockIdx.x] = c.block_rank() + 10 * c.num_blocks();
}

__global__ void dsmem_ring(int *out) {
    cg::cluster_group c = cg::this_cluster();
    __shared__ int mine;
    if (threadIdx.x == 0) mine = 1000 + blockIdx.x;
    c.sync();
    int *theirs = c.map_shared_rank(&mine, (c.block_rank() + 1) % c.num_blocks());
    if (threadIdx.x == 0) out[blockIdx.x] = *theirs;
    c.sync();
}

int main(int argc, char **argv) {
    int which = argc > 1 ? atoi(argv[1]) : 0;
    int *d; cudaMalloc(&d, 1024 * sizeof(int)); cudaMemset(d, 0, 1024 * sizeof(int));
    int h[64];
    cudaError_t l, e;
    // 1. grid.sync() in an ordinary launch of 4 blocks (all resident).
    if (which == 1) {
    grid_sync_kernel<<<4, 32>>>(d);
    l = cudaGetLastError();
    e = cudaDeviceSynchronize();
    printf("1 grid.sync in a plain launch: launch %d (%s), sync %d (%s)\n", l, cudaGetErrorString(l), e, cudaGetErrorString(e));
    if (e == cudaSuccess) { cudaMemcpy(h, d, 8 * sizeof(int), cudaMemcpyDeviceToHost);
        printf("  is_valid %d %d %d %d, after %d %d %d %d\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]); }
    }
    // 2. The same kernel, cooperative.
    if (which == 2) {
    void *args[] = {&d};
    cudaMemset(d, 0, 1024 * sizeof(int));
    l = cudaLaunchCooperativeKernel((void *)grid_sync_kernel, 4, 32, args, 0, 0);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 8 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("2 cooperative: launch %d, sync %d, is_valid %d, after %d %d %d %d\n", l, e, h[0], h[4], h[5], h[6], h[7]);
    }
    // 3. __cluster_dims__(2) with a grid of 3 blocks, and of 4.
    if (which == 3) {
    clustered<<<3, 32>>>(d);
    l = cudaGetLastError(); e = cudaDeviceSynchronize();
    printf("3 cluster 2, grid 3: launch %d (%s), sync %d\n", l, cudaGetErrorString(l), e);
    }
    if (which == 4) {
    clustered<<<4, 32>>>(d);
    l = cudaGetLastError(); e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("3b cluster 2, grid 4: launch %d, sync %d, rank+10n: %d %d %d %d\n", l, e, h[0], h[1], h[2], h[3]);
    }
    // 4. DSMEM ring with cudaLaunchKernelEx, clusters of 4.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8); cfg.blockDim = dim3(32);
    cudaLaunchAttribute attr[1]; attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr; cfg.numAttrs = 1;
    if (which == 5) {
    l = cudaLaunchKernelEx(&cfg, dsmem_ring, d);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 8 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("4 dsmem ring, clusters of 4: launch %d, sync %d:", l, e);
    for (int i = 0; i < 8; i++) printf(" %d", h[i]);
    printf("\n");
    }
    // 5. clusters of 4 on a grid of 6 via cudaLaunchKernelEx.
    if (which == 6) {
    cfg.gridDim = dim3(6);
    l = cudaLaunchKernelEx(&cfg, dsmem_ring, d);
    e = cudaDeviceSynchronize();
    printf("5 clusters of 4, grid 6: launch %d (%s), sync %d\n", l, cudaGetErrorString(l), e);
    }
    return 0;
}
