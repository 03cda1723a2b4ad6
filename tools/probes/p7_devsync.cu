// Probe 7b: device-side cudaDeviceSynchronize() for sm_90 (CDP2). Expected to fail to compile.
//   nvcc -arch=sm_90 -O2 -rdc=true -o p7_devsync p7_devsync.cu -lcudadevrt
#include <cuda_runtime.h>
__global__ void child(int* p) { p[0] = 1; }
__global__ void parent(int* p) {
  child<<<1, 1>>>(p);
  cudaDeviceSynchronize();
  p[1] = p[0];
}
int main() { return 0; }
