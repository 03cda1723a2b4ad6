// The CUDA C versions of deviceemu's example kernels (same algorithms), timed with CUDA
// events: 10 warm-up launches, then the median of 50.
//
//   nvcc -O3 -arch=sm_90 -o bench bench.cu && ./bench
//
// Prints one line per kernel: name, size, median milliseconds, and GB/s or GFLOP/s.
#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %d (%s) at %s:%d\n", (int)e, cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void saxpy(float a, const float* x, size_t xn, float* y, size_t yn) {
    size_t i = (size_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < yn) y[i] = a * x[i] + y[i];
}

__global__ void __launch_bounds__(256) block_sum(const float* input, size_t n, float* partial) {
    __shared__ float tile[256];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    tile[tid] = i < n ? input[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) tile[tid] += tile[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = tile[0];
}

__global__ void __launch_bounds__(256, 8) matmul(unsigned m, unsigned k, unsigned n, const float* a, const float* b, float* c) {
    __shared__ float ta[16][16];
    __shared__ float tb[16][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    unsigned tiles = (k + 15) / 16;
    for (unsigned t = 0; t < tiles; t++) {
        unsigned ka = t * 16 + tx, kb = t * 16 + ty;
        ta[ty][tx] = (row < m && ka < k) ? a[(size_t)row * k + ka] : 0.0f;
        tb[ty][tx] = (kb < k && col < n) ? b[(size_t)kb * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < 16; p++) acc += ta[ty][p] * tb[p][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}

template <typename F>
static float median_ms(F launch) {
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    for (int i = 0; i < 10; i++) launch();
    cudaDeviceSynchronize();
    std::vector<float> t;
    for (int i = 0; i < 50; i++) {
        cudaEventRecord(s);
        launch();
        cudaEventRecord(e);
        cudaEventSynchronize(e);
        float ms;
        cudaEventElapsedTime(&ms, s, e);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    const size_t n = (size_t)1 << 26;
    float *x, *y, *partial;
    CHECK(cudaMalloc(&x, n * 4));
    CHECK(cudaMalloc(&y, n * 4));
    CHECK(cudaMalloc(&partial, n / 256 * 4));
    CHECK(cudaMemset(x, 0, n * 4));
    CHECK(cudaMemset(y, 0, n * 4));
    float ms = median_ms([&] { saxpy<<<(unsigned)(n / 256), 256>>>(2.0f, x, n, y, n); });
    CHECK(cudaGetLastError());
    printf("cuda saxpy n=%zu ms=%.4f GB/s=%.1f\n", n, ms, 12.0 * n / ms / 1e6);
    ms = median_ms([&] { block_sum<<<(unsigned)(n / 256), 256>>>(x, n, partial); });
    CHECK(cudaGetLastError());
    printf("cuda reduction n=%zu ms=%.4f GB/s=%.1f\n", n, ms, 4.0 * n / ms / 1e6);
    const unsigned dim = 4096;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, (size_t)dim * dim * 4));
    CHECK(cudaMalloc(&b, (size_t)dim * dim * 4));
    CHECK(cudaMalloc(&c, (size_t)dim * dim * 4));
    CHECK(cudaMemset(a, 0, (size_t)dim * dim * 4));
    CHECK(cudaMemset(b, 0, (size_t)dim * dim * 4));
    ms = median_ms([&] { matmul<<<dim3(dim / 16, dim / 16), dim3(16, 16)>>>(dim, dim, dim, a, b, c); });
    CHECK(cudaGetLastError());
    printf("cuda matmul n=%u ms=%.4f GFLOP/s=%.1f\n", dim, ms, 2.0 * dim * dim * dim / ms / 1e6);
    return 0;
}
