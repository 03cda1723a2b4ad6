# The device runtime on the H200 (issue 14): nvcc -rdc=true PTX of a tiny CDP kernel (tiny.cu below, written by
# this script), where libcudadevrt.a is, the special stream handles in the headers, ptxas with and without -c, and
# p7_devrt_link.cu: the driver JIT linker (cuLinkCreate/AddData/AddFile CU_JIT_INPUT_LIBRARY/Complete) loading it.
# Log: logs/p7_devrt_link.log, PTX: logs/p7_devrt_tiny.ptx. Ran from /work/main with the files in .gpucarry/devrtgpu.
set -x
D=.gpucarry/devrtgpu
exec > $OUT/a.log 2>&1
which nvcc ptxas; nvcc --version
CU=$(dirname $(dirname $(readlink -f $(which nvcc))))
echo CU=$CU; echo CUDA_PATH=$CUDA_PATH CUDA_HOME=$CUDA_HOME
ls -la /usr/local/ | head -30
find /usr /opt -name 'libcudadevrt*' 2>/dev/null | head
cd $D
nvcc -rdc=true -arch=sm_90 -ptx -O2 p7_cdp.cu -o $OUT/p7_cdp.ptx
cat > tiny.cu <<'X'
__global__ void child(int* d, unsigned long long n, float x) { d[threadIdx.x] += (int)x + (int)n; }
__global__ void parent(int* d, unsigned long long n, float x) {
  if (threadIdx.x == 0) {
    child<<<2, 32, 16>>>(d, n, x);
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEvent_t e; cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    child<<<1, 1, 0, s>>>(d, n, x);
    cudaEventRecord(e, s);
    cudaStreamWaitEvent(s, e, 0);
    cudaEventDestroy(e);
    cudaStreamDestroy(s);
    child<<<1, 1, 0, cudaStreamTailLaunch>>>(d, n, x);
    child<<<1, 1, 0, cudaStreamFireAndForget>>>(d, n, x);
    d[100] = cudaGetLastError();
  }
}
X
nvcc -rdc=true -arch=sm_90 -ptx -O2 tiny.cu -o $OUT/tiny.ptx
grep -rn 'cudaStreamTailLaunch\|cudaStreamFireAndForget\|cudaStreamPerThread\|cudaStreamLegacy' $CU/include/*.h $CU/targets/*/include/*.h 2>/dev/null | head -20
grep -n -B2 -A6 'cudaGetParameterBufferV2\|cudaLaunchDeviceV2' $CU/include/cuda_device_runtime_api.h $CU/targets/*/include/cuda_device_runtime_api.h 2>/dev/null | head -120
ptxas --version
cp $OUT/tiny.ptx x.ptx; ptxas -arch=sm_90 x.ptx -o /dev/null; echo ptxas-whole rc=$?
ptxas -arch=sm_90 -c x.ptx -o x.o; echo ptxas-c rc=$?
nvidia-smi --query-gpu=name,driver_version --format=csv
nvcc -o linkt link.cu -lcuda && ./linkt x.ptx $(find /usr /opt -name libcudadevrt.a 2>/dev/null | head -1)
