// Probe 13 (issue 15): CUDA C's own cooperative groups on multi-warp tiles
// (cg::experimental::tiled_partition<64..1024>): cg::reduce and the scans, printed as "cgbig"
// lines that `gpu_vs_emu cgbig` prints the same way for the emulator, to compare bit for bit.
// The float inputs come from the host (no contraction of the kernel's own arithmetic).
//   nvcc -arch=sm_90 -O2 -o p13 p13_cg_big.cu && ./p13

#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %d (%s) at %s:%d\n", (int)e, cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

const unsigned T = 1024, K = 7;

template <unsigned N>
__device__ void row(const cg::thread_block& b, unsigned v, float f, unsigned* out, unsigned t) {
  auto tile = cg::tiled_partition<N>(b);
  out[0 * T + t] = __float_as_uint(cg::reduce(tile, f, cg::plus<float>()));
  out[1 * T + t] = __float_as_uint(cg::inclusive_scan(tile, f, cg::plus<float>()));
  out[2 * T + t] = __float_as_uint(cg::exclusive_scan(tile, f, cg::plus<float>()));
  out[3 * T + t] = cg::inclusive_scan(tile, v, cg::plus<unsigned>());
  out[4 * T + t] = cg::exclusive_scan(tile, v, cg::plus<unsigned>());
  out[5 * T + t] = cg::exclusive_scan(tile, v, cg::greater<unsigned>());
  out[6 * T + t] = cg::reduce(tile, v, cg::greater<unsigned>());
}

__global__ void big(unsigned n, const unsigned* x, const float* fx, unsigned* out) {

  cg::thread_block b = cg::this_thread_block();
  unsigned t = threadIdx.x;
  unsigned v = x[t];
  float f = fx[t];
  switch (n) {
    case 64: row<64>(b, v, f, out, t); break;
    case 128: row<128>(b, v, f, out, t); break;
    case 256: row<256>(b, v, f, out, t); break;
    case 512: row<512>(b, v, f, out, t); break;
    default: row<1024>(b, v, f, out, t); break;
  }
}

int main() {
  unsigned hx[T];
  float hf[T];
  for (unsigned i = 0; i < T; i++) {
    hx[i] = (i * 7919 + 13) % 1009;
    hf[i] = (float)((i * 7919 + 13) % 1013) * 0.37f - 3.0f;  // two roundings (no FMA on the host)
  }
  unsigned *dx, *dout;
  float* df;
  CK(cudaMalloc(&dx, sizeof hx));
  CK(cudaMalloc(&df, sizeof hf));
  CK(cudaMalloc(&dout, K * T * 4));
  CK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
  static unsigned out[K * T];
  for (unsigned n = 64; n <= 1024; n *= 2) {
    CK(cudaMemset(dout, 0, K * T * 4));
    big<<<1, T>>>(n, dx, df, dout);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (unsigned k = 0; k < K; k++) {
      printf("cgbig %u %u", n, k);
      for (unsigned t = 0; t < T; t++) printf(" %08x", out[k * T + t]);
      printf("\n");
    }
  }
  return 0;
}
