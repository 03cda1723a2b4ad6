// Probe 6: stream baselines for issue 11 item 5, CUDA runtime API.
//   nvcc -arch=sm_90 -O2 -o p6_streams p6_streams.cu && ./p6_streams
// (a) 10^4 launches of an empty kernel <<<1,32>>> on one stream, then one sync; 5 runs, median.
//     Also with a cudaStreamSynchronize after every launch (what the gpu target does today).
// (b) 8 chunks of 16 MiB: H2D copy, saxpy-like kernel, D2H copy, over pinned buffers; chunks
//     alternate between two streams, against the same work serial (synchronous, one stream).
#include "common.h"
#include <algorithm>
#include <chrono>
#include <vector>

__global__ void empty_kernel() {}
__global__ void saxpy_like(const float* x, float* y, int n, float a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + 1.0f;
}
static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main() {
  cudaStream_t s0, s1; CK(cudaStreamCreate(&s0)); CK(cudaStreamCreate(&s1));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int L = 10000;
  for (int i = 0; i < 1000; i++) empty_kernel<<<1, 32, 0, s0>>>();
  CK(cudaStreamSynchronize(s0));
  std::vector<double> ev, wall, enq;
  for (int r = 0; r < 5; r++) {
    double t0 = now_ms();
    CK(cudaEventRecord(e0, s0));
    for (int i = 0; i < L; i++) empty_kernel<<<1, 32, 0, s0>>>();
    CK(cudaEventRecord(e1, s0));
    double t1 = now_ms();
    CK(cudaStreamSynchronize(s0));
    double t2 = now_ms();
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    ev.push_back(ms); wall.push_back(t2 - t0); enq.push_back(t1 - t0);
    printf("p6a run %d: 1e4 empty launches: events %.3f ms, host wall to sync %.3f ms, enqueue only %.3f ms\n", r, ms, t2 - t0, t1 - t0);
  }
  printf("p6a median: events %.3f ms = %.0f launches/s; wall %.3f ms = %.0f launches/s; enqueue %.3f ms = %.2f us per launch call\n",
         median(ev), L / median(ev) * 1e3, median(wall), L / median(wall) * 1e3, median(enq), median(enq) * 1e3 / L);
  std::vector<double> ws;
  for (int r = 0; r < 3; r++) {
    double t0 = now_ms();
    for (int i = 0; i < L; i++) { empty_kernel<<<1, 32, 0, s0>>>(); cudaStreamSynchronize(s0); }
    ws.push_back(now_ms() - t0);
  }
  printf("p6a sync-after-each-launch median: %.3f ms = %.0f launches/s (%.2f us per launch+sync)\n", median(ws), L / median(ws) * 1e3, median(ws) * 1e3 / L);

  const int chunks = 8; const size_t cn = (16u << 20) / sizeof(float); const size_t N = cn * chunks;
  float *hx, *hy, *dx, *dy;
  CK(cudaMallocHost(&hx, N * 4)); CK(cudaMallocHost(&hy, N * 4));
  CK(cudaMalloc(&dx, N * 4)); CK(cudaMalloc(&dy, N * 4));
  for (size_t i = 0; i < N; i++) hx[i] = (float)(i % 1000);
  cudaStream_t ss[2] = {s0, s1};
  int grid = 132 * 8, block = 256;
  // single-op timings
  CK(cudaEventRecord(e0, s0)); CK(cudaMemcpyAsync(dx, hx, cn * 4, cudaMemcpyHostToDevice, s0)); CK(cudaEventRecord(e1, s0));
  CK(cudaStreamSynchronize(s0));
  float h2d, ker, d2h;
  for (int r = 0; r < 2; r++) {
    CK(cudaEventRecord(e0, s0)); CK(cudaMemcpyAsync(dx, hx, cn * 4, cudaMemcpyHostToDevice, s0)); CK(cudaEventRecord(e1, s0));
    CK(cudaStreamSynchronize(s0)); CK(cudaEventElapsedTime(&h2d, e0, e1));
    CK(cudaEventRecord(e0, s0)); saxpy_like<<<grid, block, 0, s0>>>(dx, dy, (int)cn, 2.0f); CK(cudaEventRecord(e1, s0));
    CK(cudaStreamSynchronize(s0)); CK(cudaEventElapsedTime(&ker, e0, e1));
    CK(cudaEventRecord(e0, s0)); CK(cudaMemcpyAsync(hy, dy, cn * 4, cudaMemcpyDeviceToHost, s0)); CK(cudaEventRecord(e1, s0));
    CK(cudaStreamSynchronize(s0)); CK(cudaEventElapsedTime(&d2h, e0, e1));
  }
  printf("p6b one 16 MiB chunk: H2D %.3f ms (%.1f GB/s), kernel %.3f ms, D2H %.3f ms (%.1f GB/s)\n",
         h2d, 16.777216 / h2d, ker, d2h, 16.777216 / d2h);
  std::vector<double> pipe, serial, serial_wall, pipe_wall;
  for (int r = 0; r < 5; r++) {
    CK(cudaMemset(dy, 0, N * 4)); memset(hy, 0, N * 4); CK(cudaDeviceSynchronize());
    double t0 = now_ms();
    CK(cudaEventRecord(e0, 0));  // legacy stream: orders against both blocking streams
    for (int c = 0; c < chunks; c++) {
      cudaStream_t s = ss[c & 1]; size_t off = c * cn;
      CK(cudaMemcpyAsync(dx + off, hx + off, cn * 4, cudaMemcpyHostToDevice, s));
      saxpy_like<<<grid, block, 0, s>>>(dx + off, dy + off, (int)cn, 2.0f);
      CK(cudaMemcpyAsync(hy + off, dy + off, cn * 4, cudaMemcpyDeviceToHost, s));
    }
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    double t1 = now_ms();
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); pipe.push_back(ms); pipe_wall.push_back(t1 - t0);
    size_t bad = 0; for (size_t i = 0; i < N; i++) if (hy[i] != 2.0f * (float)(i % 1000) + 1.0f) bad++;
    CK(cudaMemset(dy, 0, N * 4)); memset(hy, 0, N * 4); CK(cudaDeviceSynchronize());
    t0 = now_ms();
    CK(cudaEventRecord(e0, 0));
    for (int c = 0; c < chunks; c++) {
      size_t off = c * cn;
      CK(cudaMemcpy(dx + off, hx + off, cn * 4, cudaMemcpyHostToDevice));
      saxpy_like<<<grid, block>>>(dx + off, dy + off, (int)cn, 2.0f);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hy + off, dy + off, cn * 4, cudaMemcpyDeviceToHost));
    }
    CK(cudaEventRecord(e1, 0)); CK(cudaEventSynchronize(e1));
    t1 = now_ms();
    CK(cudaEventElapsedTime(&ms, e0, e1)); serial.push_back(ms); serial_wall.push_back(t1 - t0);
    size_t bad2 = 0; for (size_t i = 0; i < N; i++) if (hy[i] != 2.0f * (float)(i % 1000) + 1.0f) bad2++;
    printf("p6b run %d: two-stream pipeline %.3f ms (wall %.3f), serial %.3f ms (wall %.3f), wrong values %zu / %zu\n",
           r, pipe.back(), pipe_wall.back(), serial.back(), serial_wall.back(), bad, bad2);
  }
  printf("p6b median: 8 x 16 MiB two-stream pipeline %.3f ms, serial one-stream synchronous %.3f ms, overlap factor serial/pipeline = %.3f\n",
         median(pipe), median(serial), median(serial) / median(pipe));
  return 0;
}
