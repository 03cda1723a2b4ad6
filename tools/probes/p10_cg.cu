// Probe 10 (issue 15): CUDA C's own cooperative groups on the input gpu_vs_emu's cg_cuda_ref
// uses, printed in the same "cgref" lines, so the two can be compared bit for bit: cg::reduce
// on tiles of 32 and 8, inclusive_scan on tiles of 32, exclusive_scan on tiles of 16, and
// reduce / inclusive_scan on the coalesced group of lanes lane % 3 == 0 (11 lanes).
// Also: tile.ballot / match_any shifts, and a tile of 16 in which rank 5 skips a shfl_down.
//   nvcc -arch=sm_90 -O2 -o p10_cg p10_cg.cu && ./p10_cg
#include <cstdio>
#include <cstring>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %d (%s) at %s:%d\n", (int)e, cudaGetErrorString(e), __FILE__, __LINE__); } } while (0)

__global__ void cg_ref(const float* x, unsigned* out) {
  unsigned t = threadIdx.x;
  float v = x[t];
  cg::thread_block b = cg::this_thread_block();
  auto t32 = cg::tiled_partition<32>(b);
  auto t8 = cg::tiled_partition<8>(b);
  auto t16 = cg::tiled_partition<16>(b);
  float r;
  r = cg::reduce(t32, v, cg::plus<float>()); out[t] = __float_as_uint(r);
  r = cg::reduce(t8, v, cg::plus<float>()); out[64 + t] = __float_as_uint(r);
  r = cg::inclusive_scan(t32, v, cg::plus<float>()); out[128 + t] = __float_as_uint(r);
  r = cg::exclusive_scan(t16, v, cg::plus<float>()); out[192 + t] = __float_as_uint(r);
  if ((t % 32) % 3 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    r = cg::reduce(g, v, cg::plus<float>()); out[256 + t] = __float_as_uint(r);
    r = cg::inclusive_scan(g, v, cg::plus<float>()); out[320 + t] = __float_as_uint(r);
  }
}

__global__ void tile_facts(unsigned* out) {
  unsigned t = threadIdx.x;
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  out[t] = tile.ballot(t % 3 == 0);
  out[64 + t] = tile.match_any(t % 4);
  out[128 + t] = tile.meta_group_rank() | tile.meta_group_size() << 8 | tile.thread_rank() << 16;
}

__global__ void tile_lane_missing(unsigned* out) {
  unsigned t = threadIdx.x;
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  unsigned v = t;
  if (tile.thread_rank() != 5) v = tile.shfl_down(v, 1);
  out[t] = v;
}

int main() {
  float hx[64];
  for (int i = 0; i < 64; i++) hx[i] = (float)((i * 7919) % 1013) * 0.01f - 5.0f;
  float* dx; unsigned* dout; unsigned h[6 * 64];
  CK(cudaMalloc(&dx, sizeof hx)); CK(cudaMalloc(&dout, sizeof h));
  CK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0, sizeof h));
  cg_ref<<<1, 64>>>(dx, dout);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 6; k++) {
    printf("cgref CUDA %d", k);
    for (int i = 0; i < 64; i++) printf(" %08x", h[k * 64 + i]);
    printf("\n");
  }
  CK(cudaMemset(dout, 0, sizeof h));
  tile_facts<<<1, 64>>>(dout);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
  const char* names[3] = {"ballot(t%3==0)", "match_any(t%4)", "meta|size<<8|rank<<16"};
  for (int k = 0; k < 3; k++) {
    printf("p10 tile<8> %s:", names[k]);
    for (int i = 0; i < 64; i++) printf(" %x", h[k * 64 + i]);
    printf("\n");
  }
  CK(cudaMemset(dout, 0, sizeof h));
  tile_lane_missing<<<1, 32>>>(dout);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
  printf("p10 tile<16> rank 5 skips shfl_down(v,1):");
  for (int i = 0; i < 32; i++) printf(" %u", h[i]);
  printf("\n");
  return 0;
}
