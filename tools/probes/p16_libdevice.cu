// Probe p16: deviceemu::math against CUDA's libdevice, on the device (issue 30, item 1).
//
// The same inputs go through two kernels: one of this file, calling CUDA's math functions
// (nvcc links libdevice; default flags: no fast math, -prec-div=true, -prec-sqrt=true,
// -ftz=false), and deviceemu's Rust implementation compiled to PTX (examples/math_gpu.rs's
// kernels ld_f32_1, ld_f32_2, ld_f64_1, ld_f64_2, loaded with the driver API from the PTX file
// named on the command line). A third kernel compares the results bit for bit and counts: all
// differences, those where both are NaN (payloads only), and the largest distance in ulps
// among numbers. One-argument f32 functions: every one of the 2^32 inputs. The rest: 2^26
// inputs each (a third random bit patterns, the rest uniform in [-100, 100), and a few
// hundred special values).
//
//   nvcc -O3 -arch=sm_90 -o p16_libdevice p16_libdevice.cu -lcuda
//   ./p16_libdevice examples_math_gpu_rs.ptx
#include "common.h"
#include <cuda.h>
#include <stdint.h>

#define DK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_; cuGetErrorName(r_, &s_); \
  printf("FATAL %s (%d: %s) at %s:%d\n", #x, (int)r_, s_, __FILE__, __LINE__); exit(1); } } while (0)

static const char* F32_1[] = {"sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf", "expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf", "sqrtf", "rsqrtf", "cbrtf", "erff", "erfcf", "lgammaf", "tgammaf", "fabsf", "floorf", "ceilf", "roundf", "truncf"};
static const char* F32_2[] = {"atan2f", "powf", "hypotf", "fminf", "fmaxf", "fmodf", "remainderf", "copysignf"};
static const char* F64_1[] = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "erf", "erfc", "lgamma", "tgamma", "fabs", "floor", "ceil", "round", "trunc"};
static const char* F64_2[] = {"atan2", "pow", "hypot", "fmin", "fmax", "fmod", "remainder", "copysign"};

__device__ float c_f32_1(int op, float x) {
  switch (op) {
    case 0: return sinf(x);
    case 1: return cosf(x);
    case 2: return tanf(x);
    case 3: return asinf(x);
    case 4: return acosf(x);
    case 5: return atanf(x);
    case 6: return sinhf(x);
    case 7: return coshf(x);
    case 8: return tanhf(x);
    case 9: return asinhf(x);
    case 10: return acoshf(x);
    case 11: return atanhf(x);
    case 12: return expf(x);
    case 13: return exp2f(x);
    case 14: return exp10f(x);
    case 15: return expm1f(x);
    case 16: return logf(x);
    case 17: return log2f(x);
    case 18: return log10f(x);
    case 19: return log1pf(x);
    case 20: return sqrtf(x);
    case 21: return rsqrtf(x);
    case 22: return cbrtf(x);
    case 23: return erff(x);
    case 24: return erfcf(x);
    case 25: return lgammaf(x);
    case 26: return tgammaf(x);
    case 27: return fabsf(x);
    case 28: return floorf(x);
    case 29: return ceilf(x);
    case 30: return roundf(x);
    case 31: return truncf(x);
    case 32: return logf(x);
    case 33: return log2f(x);
    case 34: return log10f(x);
    case 35: return log1pf(x);
    case 36: return atanf(x);
    case 37: return atanhf(x);
    case 38: return lgammaf(x);
    case 39: return sinf(x);
    case 40: return cosf(x);
    case 41: return tanf(x);
  }
  return 0;
}
__device__ float c_f32_2(int op, float x, float y) {
  switch (op) {
    case 0: return atan2f(x, y);
    case 1: return powf(x, y);
    case 2: return hypotf(x, y);
    case 3: return fminf(x, y);
    case 4: return fmaxf(x, y);
    case 5: return fmodf(x, y);
    case 6: return remainderf(x, y);
    case 7: return copysignf(x, y);
    case 8: return atan2f(x, y);
    case 9: return powf(x, y);
  }
  return 0;
}
__device__ double c_f64_1(int op, double x) {
  switch (op) {
    case 0: return sin(x);
    case 1: return cos(x);
    case 2: return tan(x);
    case 3: return asin(x);
    case 4: return acos(x);
    case 5: return atan(x);
    case 6: return sinh(x);
    case 7: return cosh(x);
    case 8: return tanh(x);
    case 9: return asinh(x);
    case 10: return acosh(x);
    case 11: return atanh(x);
    case 12: return exp(x);
    case 13: return exp2(x);
    case 14: return exp10(x);
    case 15: return expm1(x);
    case 16: return log(x);
    case 17: return log2(x);
    case 18: return log10(x);
    case 19: return log1p(x);
    case 20: return sqrt(x);
    case 21: return rsqrt(x);
    case 22: return cbrt(x);
    case 23: return erf(x);
    case 24: return erfc(x);
    case 25: return lgamma(x);
    case 26: return tgamma(x);
    case 27: return fabs(x);
    case 28: return floor(x);
    case 29: return ceil(x);
    case 30: return round(x);
    case 31: return trunc(x);
    case 32: return exp(x);
    case 33: return exp2(x);
    case 34: return exp10(x);
    case 35: return expm1(x);
    case 36: return sinh(x);
  }
  return 0;
}
__device__ double c_f64_2(int op, double x, double y) {
  switch (op) {
    case 0: return atan2(x, y);
    case 1: return pow(x, y);
    case 2: return hypot(x, y);
    case 3: return fmin(x, y);
    case 4: return fmax(x, y);
    case 5: return fmod(x, y);
    case 6: return remainder(x, y);
    case 7: return copysign(x, y);
    case 8: return atan2(x, y);
  }
  return 0;
}

__global__ void k_f32_1(int op, uint32_t base, uint32_t* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float_as_uint(c_f32_1(op, __uint_as_float(base + (uint32_t)i)));
}
__global__ void k_f32_2(int op, const uint32_t* a, const uint32_t* b, uint32_t* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float_as_uint(c_f32_2(op, __uint_as_float(a[i]), __uint_as_float(b[i])));
}
__global__ void k_f64_1(int op, const uint64_t* a, uint64_t* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __double_as_longlong(c_f64_1(op, __longlong_as_double(a[i])));
}
__global__ void k_f64_2(int op, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __double_as_longlong(c_f64_2(op, __longlong_as_double(a[i]), __longlong_as_double(b[i])));
}

struct Stats {
  unsigned long long diff, nan_payload, max_ulp;
  unsigned long long ex_in[4], ex_c[4], ex_r[4];
};

template <typename U>
__device__ unsigned long long ulps(U a, U b, int bits) {
  // Distance on the ordered integer line of the format (sign-magnitude to two's complement).
  long long sa = (a >> (bits - 1)) ? -(long long)(a & ~((U)1 << (bits - 1))) : (long long)a;
  long long sb = (b >> (bits - 1)) ? -(long long)(b & ~((U)1 << (bits - 1))) : (long long)b;
  long long d = sa - sb;
  return d < 0 ? -d : d;
}

template <typename U, int BITS>
__global__ void k_cmp(const U* c, const U* r, const U* in, uint64_t in_base, size_t n, Stats* st) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || c[i] == r[i]) return;
  const U exp_mask = BITS == 32 ? (U)0x7f800000u : (U)0x7ff0000000000000ull;
  const U frac_mask = BITS == 32 ? (U)0x007fffffu : (U)0x000fffffffffffffull;
  bool cn = (c[i] & exp_mask) == exp_mask && (c[i] & frac_mask);
  bool rn = (r[i] & exp_mask) == exp_mask && (r[i] & frac_mask);
  if (cn && rn) { atomicAdd(&st->nan_payload, 1ull); return; }
  unsigned long long k = atomicAdd(&st->diff, 1ull);
  if (!cn && !rn) atomicMax(&st->max_ulp, ulps<U>(c[i], r[i], BITS));
  else atomicMax(&st->max_ulp, ~0ull);
  if (k < 4) { st->ex_in[k] = in ? (unsigned long long)in[i] : in_base + i; st->ex_c[k] = c[i]; st->ex_r[k] = r[i]; }
}

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double input(uint64_t seed, uint64_t k) {
  uint64_t r = mix(seed + k * 0x9e3779b97f4a7c15ull);
  if (k % 3 == 0) { double d; memcpy(&d, &r, 8); return d; }
  return (double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0;
}
static const double SPECIAL[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 1e-310, -1e-310, 1e-40, 1e300, -1e300,
  1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 3.141592653589793, 1.5707963267948966, 100.5, -2.5, 1e-8, 0.1, 10.0, 88.0, 710.0, -745.0};

static void report(const char* kind, const char* name, unsigned long long n, Stats* s, int bits) {
  printf("%s %-10s %12llu inputs %10llu differ %8llu NaN-payload-only max_ulp %s%llu", kind, name, n, s->diff, s->nan_payload,
         s->max_ulp == ~0ull ? "NaN/number " : "", s->max_ulp == ~0ull ? 0ull : s->max_ulp);
  for (int k = 0; k < 4 && k < (int)s->diff; k++)
    printf(bits == 32 ? " | in %#llx cuda %#llx ours %#llx" : " | in %#llx cuda %#llx ours %#llx", s->ex_in[k], s->ex_c[k], s->ex_r[k]);
  printf("\n");
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 2) { printf("usage: %s examples_math_gpu_rs.ptx [f32-chunks-log2]\n", argv[0]); return 2; }
  CK(cudaFree(0));
  CUmodule mod;
  DK(cuModuleLoad(&mod, argv[1]));
  CUfunction r_f32_1, r_f32_2, r_f64_1, r_f64_2;
  DK(cuModuleGetFunction(&r_f32_1, mod, "ld_f32_1"));
  DK(cuModuleGetFunction(&r_f32_2, mod, "ld_f32_2"));
  DK(cuModuleGetFunction(&r_f64_1, mod, "ld_f64_1"));
  DK(cuModuleGetFunction(&r_f64_2, mod, "ld_f64_2"));
  {
    double* d; CK(cudaMalloc(&d, 8)); double h[2] = {0.0, 0.0}; CK(cudaMemcpy(d, h, 8, cudaMemcpyHostToDevice));
    printf("(the device's f64 NaN from 0/0 is printed by the f64 specials below)\n");
    CK(cudaFree(d));
  }
  const size_t CH = (size_t)1 << 28;
  uint32_t *c32, *r32; uint64_t *c64, *r64, *a64, *b64; uint32_t *a32, *b32; Stats* st;
  CK(cudaMalloc(&c32, CH * 4)); CK(cudaMalloc(&r32, CH * 4));
  const size_t N = (size_t)1 << 26;
  CK(cudaMalloc(&c64, N * 8)); CK(cudaMalloc(&r64, N * 8)); CK(cudaMalloc(&a64, N * 8)); CK(cudaMalloc(&b64, N * 8));
  CK(cudaMalloc(&a32, N * 4)); CK(cudaMalloc(&b32, N * 4));
  CK(cudaMallocManaged(&st, sizeof(Stats)));
  int only = argc > 2 ? atoi(argv[2]) : -1;  // one f32 one-argument function only (debugging)

  // f32, one argument: all 2^32 inputs, in chunks of 2^28.
  // P16_SKIP_F32_1=1: only the two-argument and f64 sets (a quick rerun).
  bool skip1 = getenv("P16_SKIP_F32_1") != nullptr;
  for (int op = 0; op < (int)(sizeof(F32_1) / sizeof(*F32_1)); op++) {
    if ((only >= 0 && op != only) || skip1) continue;
    memset(st, 0, sizeof(Stats));
    for (uint64_t base = 0; base < (1ull << 32); base += CH) {
      uint32_t b = (uint32_t)base;
      k_f32_1<<<CH / 256, 256>>>(op, b, c32, CH);
      CK(cudaGetLastError());
      uint32_t uop = op; unsigned long long len = CH; void* p[] = {&uop, &b, &r32, &len};
      DK(cuLaunchKernel(r_f32_1, CH / 256, 1, 1, 256, 1, 1, 0, 0, p, 0));
      k_cmp<uint32_t, 32><<<CH / 256, 256>>>(c32, r32, nullptr, base, CH, st);
      CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    report("f32", F32_1[op], 1ull << 32, st, 32);
  }
  if (only >= 0) return 0;

  // Inputs for the rest: specials first, then the generated set.
  uint64_t* h64a = (uint64_t*)malloc(N * 8); uint64_t* h64b = (uint64_t*)malloc(N * 8);
  uint32_t* h32a = (uint32_t*)malloc(N * 4); uint32_t* h32b = (uint32_t*)malloc(N * 4);
  const size_t NS = sizeof(SPECIAL) / sizeof(*SPECIAL);
  for (size_t k = 0; k < N; k++) {
    double x, y;
    if (k < NS * NS) { x = SPECIAL[k / NS]; y = SPECIAL[k % NS]; }
    else { x = input(11, k); y = input(12, k); }
    memcpy(&h64a[k], &x, 8); memcpy(&h64b[k], &y, 8);
    float xf = (float)x, yf = (float)y;
    if (k >= NS * NS && k % 3 == 0) { h32a[k] = (uint32_t)mix(k * 7 + 1); h32b[k] = (uint32_t)mix(k * 7 + 2); }
    else { memcpy(&h32a[k], &xf, 4); memcpy(&h32b[k], &yf, 4); }
  }
  CK(cudaMemcpy(a64, h64a, N * 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b64, h64b, N * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(a32, h32a, N * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b32, h32b, N * 4, cudaMemcpyHostToDevice));
  unsigned long long len = N;
  for (int op = 0; op < (int)(sizeof(F32_2) / sizeof(*F32_2)); op++) {
    memset(st, 0, sizeof(Stats));
    k_f32_2<<<N / 256, 256>>>(op, a32, b32, c32, N);
    uint32_t uop = op; void* p[] = {&uop, &a32, &len, &b32, &len, &r32, &len};
    DK(cuLaunchKernel(r_f32_2, N / 256, 1, 1, 256, 1, 1, 0, 0, p, 0));
    k_cmp<uint32_t, 32><<<N / 256, 256>>>(c32, r32, a32, 0, N, st);
    CK(cudaDeviceSynchronize());
    report("f32", F32_2[op], N, st, 32);
  }
  for (int op = 0; op < (int)(sizeof(F64_1) / sizeof(*F64_1)); op++) {
    memset(st, 0, sizeof(Stats));
    k_f64_1<<<N / 256, 256>>>(op, a64, c64, N);
    uint32_t uop = op; void* p[] = {&uop, &a64, &len, &r64, &len};
    DK(cuLaunchKernel(r_f64_1, N / 256, 1, 1, 256, 1, 1, 0, 0, p, 0));
    k_cmp<uint64_t, 64><<<N / 256, 256>>>(c64, r64, a64, 0, N, st);
    CK(cudaDeviceSynchronize());
    report("f64", F64_1[op], N, st, 64);
    if (op == 16) {  // log: log(-1) is NaN; print the bits each side gives
      uint64_t hc[NS * NS], hr[NS * NS];
      CK(cudaMemcpy(hc, c64, sizeof hc, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hr, r64, sizeof hr, cudaMemcpyDeviceToHost));
      printf("    log(-1.0): cuda %#llx ours %#llx\n", (unsigned long long)hc[3 * NS], (unsigned long long)hr[3 * NS]);
    }
  }
  for (int op = 0; op < (int)(sizeof(F64_2) / sizeof(*F64_2)); op++) {
    memset(st, 0, sizeof(Stats));
    k_f64_2<<<N / 256, 256>>>(op, a64, b64, c64, N);
    uint32_t uop = op; void* p[] = {&uop, &a64, &len, &b64, &len, &r64, &len};
    DK(cuLaunchKernel(r_f64_2, N / 256, 1, 1, 256, 1, 1, 0, 0, p, 0));
    k_cmp<uint64_t, 64><<<N / 256, 256>>>(c64, r64, a64, 0, N, st);
    CK(cudaDeviceSynchronize());
    report("f64", F64_2[op], N, st, 64);
  }
  printf("p16 done\n");
  return 0;
}
