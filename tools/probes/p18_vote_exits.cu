// Probe 18: __syncthreads_count / _and / _or after some threads of the block exited (issue 26,
// voting barriers in the region form). Two blocks of 64 threads; threads t >= live return
// first; the others write evens * 100 + all_small * 10 + any_big, as the Rust kernel
// `votes_after_exits` (tests/it/fission/fission.rs) does. Prints "live block t value" for
// every thread that wrote, and the loop of `until_nothing_changes` (passes per block).
#include <cstdio>
#include <cstdint>

__global__ void votes_after_exits(uint32_t *out, uint32_t live) {
    uint32_t t = threadIdx.x;
    if (t >= live) return;
    uint32_t evens = __syncthreads_count(t % 2 == 0);
    bool all_small = __syncthreads_and(t < 40);
    __syncthreads_or(t == 3);
    bool any_big = __syncthreads_or(t > 50);
    uint32_t i = blockIdx.x * blockDim.x + t;
    out[i] = evens * 100 + (all_small ? 10 : 0) + (any_big ? 1 : 0);
}

__global__ void until_nothing_changes(uint32_t *v, uint32_t *passes) {
    __shared__ uint32_t s[128];
    uint32_t t = threadIdx.x, b = blockIdx.x;
    s[t] = v[b * 128 + t];
    __syncthreads();
    bool changed = true;
    uint32_t n = 0;
    while (changed) {
        uint32_t left = t > 0 ? s[t - 1] : 0;
        __syncthreads();
        bool c = left > s[t];
        if (c) s[t] = left;
        changed = __syncthreads_or(c);
        n++;
    }
    v[b * 128 + t] = s[t];
    if (t == 0) passes[b] = n;
}

int main() {
    uint32_t *d, h[128];
    cudaMalloc(&d, sizeof h);
    const uint32_t lives[] = {64, 45, 30};
    for (uint32_t live : lives) {
        cudaMemset(d, 0, sizeof h);
        votes_after_exits<<<2, 64>>>(d, live);
        cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) { printf("error %d\n", e); return 1; }
        uint32_t first = h[0], same = 1;
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t t = 0; t < live; t++) same &= h[b * 64 + t] == first;
        printf("votes live %u: value %u, same in every live thread of both blocks: %u\n", live, first, same);
    }
    uint32_t x[256], *dv, *dp, p[2];
    for (uint32_t i = 0; i < 256; i++) x[i] = (i * 7919) % 1000;
    cudaMalloc(&dv, sizeof x);
    cudaMalloc(&dp, sizeof p);
    cudaMemcpy(dv, x, sizeof x, cudaMemcpyHostToDevice);
    until_nothing_changes<<<2, 128>>>(dv, dp);
    cudaMemcpy(x, dv, sizeof x, cudaMemcpyDeviceToHost);
    cudaMemcpy(p, dp, sizeof p, cudaMemcpyDeviceToHost);
    printf("until_nothing_changes: passes %u %u, last elements %u %u\n", p[0], p[1], x[127], x[255]);
    return 0;
}
