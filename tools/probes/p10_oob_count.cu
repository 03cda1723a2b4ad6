// How many errors does compute-sanitizer count when every thread of a large grid faults,
// and do threads continue after their first faulting access?
#include <cstdio>
#include <cuda_runtime.h>
__global__ void one_fault(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + n] = i;            // every thread out of bounds once
}
__global__ void two_faults(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i + n] = i; out[i + 2 * n] = i; }   // twice, two lines
}
__global__ void empty_body(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}
int main(int argc, char **argv) {
    int n = argc > 2 ? atoi(argv[2]) : 1000000;
    int which = atoi(argv[1]);
    int *d; cudaMalloc(&d, n * sizeof(int));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    cudaEventRecord(a);
    int blocks = (n + 255) / 256;
    if (which == 0) empty_body<<<blocks, 256>>>(d, n);
    if (which == 1) one_fault<<<blocks, 256>>>(d, n);
    if (which == 2) two_faults<<<blocks, 256>>>(d, n);
    cudaEventRecord(b);
    cudaError_t e = cudaDeviceSynchronize();
    float ms = 0; cudaEventElapsedTime(&ms, a, b);
    printf("kernel %d n=%d: %s (%d), %.3f ms\n", which, n, cudaGetErrorString(e), (int)e, ms);
    return 0;
}
