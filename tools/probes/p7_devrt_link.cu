#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define C(x) do { CUresult r = (x); if (r) { const char* s; cuGetErrorName(r, &s); printf("%s = %d %s line %d\n", #x, r, s, __LINE__); printf("log: %s\nerr: %s\n", info, elog); return 1; } } while (0)
static char info[1 << 16], elog[1 << 16];
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
  char* ptx = (char*)malloc(n + 1); fread(ptx, 1, n, f); ptx[n] = 0; fclose(f);
  C(cuInit(0)); CUdevice d; C(cuDeviceGet(&d, 0)); CUcontext ctx; C(cuDevicePrimaryCtxRetain(&ctx, d)); C(cuCtxSetCurrent(ctx));
  CUjit_option o[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* v[4] = {info, (void*)(size_t)sizeof info, elog, (void*)(size_t)sizeof elog};
  CUlinkState ls; C(cuLinkCreate(4, o, v, &ls));
  C(cuLinkAddData(ls, CU_JIT_INPUT_PTX, ptx, n + 1, "tiny.ptx", 0, 0, 0));
  C(cuLinkAddFile(ls, CU_JIT_INPUT_LIBRARY, argv[2], 0, 0, 0));
  void* cubin; size_t sz; C(cuLinkComplete(ls, &cubin, &sz));
  printf("linked cubin %zu bytes\n", sz);
  CUmodule m; C(cuModuleLoadData(&m, cubin)); C(cuLinkDestroy(ls));
  CUfunction fn; C(cuModuleGetFunction(&fn, m, "_Z6parentPiyf"));
  CUdeviceptr dp; C(cuMemAlloc(&dp, 4096)); C(cuMemsetD8(dp, 0, 4096));
  unsigned long long nn = 5; float x = 2.0f; void* args[3] = {&dp, &nn, &x};
  C(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args, 0)); C(cuCtxSynchronize());
  int h[128]; C(cuMemcpyDtoH(h, dp, 512));
  printf("d[0]=%d (5 launches of +7 touch d[0], racy) d[1]=%d (2 launches touch d[1]) d[100]=%d (err)\n", h[0], h[1], h[100]);
  return 0;
}
