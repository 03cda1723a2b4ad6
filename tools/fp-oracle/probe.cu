// deviceemu floating-point probe: targeted experiments on the GPU behind the models in FP.md
// that the oracle's corpus alone does not pin down.
//
//   nvcc -O3 -arch=sm_90 -o probe probe.cu && ./probe OUTDIR
//
// 1. FTZ tininess. mul/fma/div .ftz in the four rounding modes on 2^16 inputs each whose exact
//    result lies within a few ulps of +-2^-126, where "flush if the exact result is below
//    2^-126", "flush if the IEEE-rounded result is subnormal" and "flush if the result rounded
//    to 24 bits with an unbounded exponent is below 2^-126" disagree. Writes OUTDIR/ftz.bin:
//    records of u32 op, a, b, c, result (little endian); op = 4 * {mul, fma, div} + {rn, rz, rp,
//    rm}. FP.md says how they compare with the emulator's rule.
// 2. MUFU.RCP (rcp.approx.ftz.f32). Its value on all 2^23 significands in [1, 2); that the
//    result at any exponent is the [1, 2) one rescaled (flushed below 2^-126), over all 2^32
//    inputs; and the SASS-level models of rcp.approx.f32 (input scaled by 2^24 below 2^-126
//    and by 1/4 above 2^126) and div.approx.f32 / div.approx.ftz.f32 (operands scaled by 2^24
//    for a subnormal divisor, then MUFU.RCP(b) * a), over all 2^32 inputs / 2^32 hashed pairs.
//    Prints the counts; writes OUTDIR/rcp_delta.bin: int8 (MUFU.RCP - correctly rounded) in
//    ulps for each significand.

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

// ---------------------------------------------------------------------------------------------
// 1. FTZ

#define FTZ2(op, m) \
  __device__ __forceinline__ float f_##op##_##m(float x, float y) { \
    float r; asm(#op "." #m ".ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
#define FTZ3(m) \
  __device__ __forceinline__ float f_fma_##m(float x, float y, float z) { \
    float r; asm("fma." #m ".ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); return r; }
FTZ2(mul, rn) FTZ2(mul, rz) FTZ2(mul, rp) FTZ2(mul, rm)
FTZ2(div, rn) FTZ2(div, rz) FTZ2(div, rp) FTZ2(div, rm)
FTZ3(rn) FTZ3(rz) FTZ3(rp) FTZ3(rm)

__global__ void ftz_kernel(const uint32_t* in, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t op = in[4 * i];
  float a = __uint_as_float(in[4 * i + 1]), b = __uint_as_float(in[4 * i + 2]), c = __uint_as_float(in[4 * i + 3]);
  float r;
  switch (op) {
    case 0: r = f_mul_rn(a, b); break;
    case 1: r = f_mul_rz(a, b); break;
    case 2: r = f_mul_rp(a, b); break;
    case 3: r = f_mul_rm(a, b); break;
    case 4: r = f_fma_rn(a, b, c); break;
    case 5: r = f_fma_rz(a, b, c); break;
    case 6: r = f_fma_rp(a, b, c); break;
    case 7: r = f_fma_rm(a, b, c); break;
    case 8: r = f_div_rn(a, b); break;
    case 9: r = f_div_rz(a, b); break;
    case 10: r = f_div_rp(a, b); break;
    default: r = f_div_rm(a, b); break;
  }
  out[i] = __float_as_uint(r);
}

static uint64_t sm_state = 0x243f6a8885a308d3ULL;
static uint64_t rnd() {
  uint64_t z = (sm_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static float fbits(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
static uint32_t bitsf(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
static float normal_with_exp(int e) {  // random significand, unbiased exponent e
  return fbits(((uint32_t)(e + 127) << 23) | ((uint32_t)rnd() & 0x7fffff));
}

static void ftz_inputs(uint32_t op, uint32_t* rec) {
  const double two_m126 = ldexp(1.0, -126);
  int k = (int)(rnd() % 7) - 3;
  uint32_t sign = (uint32_t)(rnd() & 1) << 31;
  float a, b, c = 0.0f;
  if (op < 4) {  // a * b near 2^-126
    a = normal_with_exp((int)(rnd() % 71) - 70);
    b = (float)(two_m126 / (double)a);
    b = fbits(bitsf(b) + k);
  } else if (op < 8) {  // a * b + c near +-2^-126, with a * b a few binades above
    a = normal_with_exp((int)(rnd() % 71) - 70);
    b = (float)(ldexp(1.0 + (double)(rnd() % 1024) / 1024, -125 + (int)(rnd() % 6)) / (double)a);
    double t = ((rnd() & 1) ? 1 : -1) * two_m126 * (1.0 + k * ldexp(1.0, -24));
    c = (float)(t - (double)a * (double)b);
  } else {  // a / b near 2^-126
    b = normal_with_exp((int)(rnd() % 100));
    a = (float)(two_m126 * (double)b);
    a = fbits(bitsf(a) + k);
  }
  rec[0] = op;
  rec[1] = bitsf(a) ^ sign;
  rec[2] = bitsf(b);
  rec[3] = bitsf(c) ^ sign;
}

// ---------------------------------------------------------------------------------------------
// 2. MUFU.RCP

__device__ __forceinline__ float rcp_approx_ftz(float x) { float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float rcp_approx(float x) { float r; asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float div_approx(float x, float y) { float r; asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
__device__ __forceinline__ float div_approx_ftz(float x, float y) { float r; asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
__device__ __forceinline__ float mul_rn_ftz(float x, float y) { float r; asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }

__global__ void table_kernel(uint32_t* T, int8_t* delta) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= (1u << 23)) return;
  float x = __uint_as_float(0x3f800000u | m);
  uint32_t r = __float_as_uint(rcp_approx_ftz(x));
  uint32_t cr = __float_as_uint(__frcp_rn(x));
  T[m] = r;
  delta[m] = (int8_t)((int32_t)r - (int32_t)cr);
}

// The model of MUFU.RCP from the [1, 2) table.
__device__ uint32_t mufu_model(uint32_t x, const uint32_t* T) {
  uint32_t s = x & 0x80000000u, mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return 0x7fffffffu;
  if (mag < 0x00800000u) return s | 0x7f800000u;
  if (mag == 0x7f800000u) return s;
  int e = (int)(mag >> 23) - 127;
  uint32_t r = T[mag & 0x7fffffu];
  int re = (int)(r >> 23) - e;
  if (re <= 0) return s;
  return s | ((uint32_t)re << 23) | (r & 0x7fffffu);
}
__device__ float rcp_model(float x, const uint32_t* T) {
  float a = fabsf(x);
  float s = a < 1.17549435e-38f ? 16777216.0f : 1.0f;
  if (a > 8.50705917e37f) s = 0.25f;
  return __fmul_rn(s, __uint_as_float(mufu_model(__float_as_uint(__fmul_rn(s, x)), T)));
}
__device__ float div_model(float a, float b, const uint32_t* T) {
  if (fabsf(b) < 1.17549435e-38f) { a = __fmul_rn(a, 16777216.0f); b = __fmul_rn(b, 16777216.0f); }
  return __fmul_rn(__uint_as_float(mufu_model(__float_as_uint(b), T)), a);
}
__device__ float div_ftz_model(float a, float b, const uint32_t* T) {
  return mul_rn_ftz(__uint_as_float(mufu_model(__float_as_uint(b), T)), a);
}
__device__ __forceinline__ uint32_t hash32(uint32_t h) {
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16; return h;
}
__device__ __forceinline__ bool same(uint32_t x, uint32_t y) {
  bool xn = (x & 0x7fffffffu) > 0x7f800000u, yn = (y & 0x7fffffffu) > 0x7f800000u;
  return x == y || (xn && yn);
}

// Counters: [0] mismatches, [1] NaN-bit differences, then up to 8 examples of (x, y, got, want).
__device__ void note(unsigned long long* cnt, uint32_t* ex, uint32_t x, uint32_t y, uint32_t got, uint32_t want) {
  if (got == want) return;
  if (same(got, want)) { atomicAdd(&cnt[1], 1ull); return; }
  unsigned long long k = atomicAdd(&cnt[0], 1ull);
  if (k < 8) { ex[4 * k] = x; ex[4 * k + 1] = y; ex[4 * k + 2] = got; ex[4 * k + 3] = want; }
}

// mode 0: rcp.approx.ftz over all x; 1: rcp.approx over all x; 2: div.approx over hashed pairs;
// 3: div.approx.ftz over hashed pairs. Each thread covers 256 consecutive indices.
__global__ void check_kernel(int mode, const uint32_t* T, unsigned long long* cnt, uint32_t* ex) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t k = 0; k < 256; k++) {
    uint32_t i = (uint32_t)(t * 256 + k);
    if (mode == 0) {
      note(cnt, ex, i, 0, __float_as_uint(rcp_approx_ftz(__uint_as_float(i))), mufu_model(i, T));
    } else if (mode == 1) {
      float x = __uint_as_float(i);
      note(cnt, ex, i, 0, __float_as_uint(rcp_approx(x)), __float_as_uint(rcp_model(x, T)));
    } else {
      uint32_t xa = hash32(i ^ 0x9e3779b9u), xb = hash32(i * 0x2545f491u + 1);
      if (i & 1) xb = (xb & 0x807fffffu) | ((xa & 0x7f800000u) ^ ((i >> 1) & 0x0f800000u));  // related exponents
      float a = __uint_as_float(xa), b = __uint_as_float(xb);
      uint32_t got = __float_as_uint(mode == 2 ? div_approx(a, b) : div_approx_ftz(a, b));
      uint32_t want = __float_as_uint(mode == 2 ? div_model(a, b, T) : div_ftz_model(a, b, T));
      note(cnt, ex, xa, xb, got, want);
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: probe OUTDIR\n"); return 2; }
  std::string out = argv[1];

  // 1. FTZ
  const int per_op = 1 << 16, n = 12 * per_op;
  std::vector<uint32_t> in(4 * (size_t)n), res(n);
  for (int i = 0; i < n; i++) ftz_inputs((uint32_t)(i / per_op), &in[4 * (size_t)i]);
  uint32_t *d_in, *d_out;
  CK(cudaMalloc(&d_in, in.size() * 4)); CK(cudaMalloc(&d_out, (size_t)n * 4));
  CK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  ftz_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(res.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
  {
    std::string p = out + "/ftz.bin";
    FILE* f = fopen(p.c_str(), "wb");
    if (!f) { perror(p.c_str()); return 1; }
    for (int i = 0; i < n; i++) { fwrite(&in[4 * (size_t)i], 4, 4, f); fwrite(&res[i], 4, 1, f); }
    fclose(f);
    printf("ftz: %d records in %s\n", n, p.c_str());
  }

  // 2. MUFU.RCP
  uint32_t* d_T; int8_t* d_delta; unsigned long long* d_cnt; uint32_t* d_ex;
  CK(cudaMalloc(&d_T, (1u << 23) * 4)); CK(cudaMalloc(&d_delta, 1u << 23));
  CK(cudaMalloc(&d_cnt, 16)); CK(cudaMalloc(&d_ex, 32 * 4));
  table_kernel<<<(1u << 23) / 256, 256>>>(d_T, d_delta);
  CK(cudaGetLastError());
  std::vector<int8_t> delta(1u << 23);
  CK(cudaMemcpy(delta.data(), d_delta, 1u << 23, cudaMemcpyDeviceToHost));
  long hist[5] = {0, 0, 0, 0, 0};
  long short_diff = 0;
  for (uint32_t m = 0; m < (1u << 23); m++) {
    int d = delta[m];
    hist[(d < -2 ? -2 : d > 2 ? 2 : d) + 2]++;
    if ((m & 0x1fff) == 0 && d != 0) short_diff++;
  }
  printf("rcp table: MUFU.RCP - correctly rounded over 2^23 significands: <=-2: %ld, -1: %ld, 0: %ld, +1: %ld, >=2: %ld; "
         "on the 1024 significands of 10 fraction bits: %ld differ\n", hist[0], hist[1], hist[2], hist[3], hist[4], short_diff);
  {
    std::string p = out + "/rcp_delta.bin";
    FILE* f = fopen(p.c_str(), "wb");
    if (f) { fwrite(delta.data(), 1, delta.size(), f); fclose(f); }
  }
  const char* names[4] = {"rcp.approx.ftz.f32 = rescaled table (all 2^32 inputs)",
                          "rcp.approx.f32 = SASS model (all 2^32 inputs)",
                          "div.approx.f32 = SASS model (2^32 hashed pairs)",
                          "div.approx.ftz.f32 = SASS model (2^32 hashed pairs)"};
  for (int mode = 0; mode < 4; mode++) {
    CK(cudaMemset(d_cnt, 0, 16)); CK(cudaMemset(d_ex, 0, 32 * 4));
    check_kernel<<<(1u << 24) / 256, 256>>>(mode, d_T, d_cnt, d_ex);
    CK(cudaGetLastError());
    unsigned long long cnt[2]; uint32_t ex[32];
    CK(cudaMemcpy(cnt, d_cnt, 16, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ex, d_ex, 32 * 4, cudaMemcpyDeviceToHost));
    printf("%s: %llu mismatches, %llu NaN-bit-only differences\n", names[mode], cnt[0], cnt[1]);
    for (unsigned k = 0; k < cnt[0] && k < 8; k++)
      printf("    x %08x y %08x: device %08x model %08x\n", ex[4 * k], ex[4 * k + 1], ex[4 * k + 2], ex[4 * k + 3]);
  }
  return 0;
}
