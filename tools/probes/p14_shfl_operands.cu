// Probe 14: what __shfl_*_sync return for operands at and past the warp's edge (delta or
// lane 0..0xffffffff), one block of 64 threads, v = 7 * t + 1. Prints "op operand t value"
// for every thread: op 0 down, 1 up, 2 xor, 3 idx.
#include <cstdio>
#include <cstdint>

__global__ void probe(uint32_t op, uint32_t operand, uint32_t *out) {
    uint32_t t = threadIdx.x;
    uint32_t v = 7 * t + 1;
    uint32_t r;
    switch (op) {
        case 0: r = __shfl_down_sync(0xffffffffu, v, operand); break;
        case 1: r = __shfl_up_sync(0xffffffffu, v, operand); break;
        case 2: r = __shfl_xor_sync(0xffffffffu, v, operand); break;
        default: r = __shfl_sync(0xffffffffu, v, operand); break;
    }
    out[t] = r;
}

int main() {
    const uint32_t operands[] = {0, 1, 3, 8, 16, 17, 31, 32, 33, 37, 40, 63, 64, 100, 0x7fffffffu, 0xffffffffu};
    uint32_t *d, h[64];
    cudaMalloc(&d, sizeof h);
    for (uint32_t op = 0; op < 4; op++) {
        for (uint32_t operand : operands) {
            probe<<<1, 64>>>(op, operand, d);
            cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) { printf("error %d\n", e); return 1; }
            for (int t = 0; t < 64; t++) printf("%u %u %d %u\n", op, operand, t, h[t]);
        }
    }
    return 0;
}
