// Probe 10: the texture unit, bit for bit. Samples textures in every addressing mode, filter
// and coordinate normalisation, on 1-D and 2-D CUDA arrays, pitched 2-D memory and linear
// memory (tex1Dfetch), and writes every input and result to OUTDIR/tex_oracle.bin, which
// tests/tex_oracle.rs replays through the emulator's sampler (emu-runtime's
// device/texture/sampler.rs) and compares bit for bit.
//   nvcc -arch=sm_90 -O2 -o p10_textures p10_textures.cu && ./p10_textures OUTDIR
//
// File format (little-endian): "TEXO", u32 version (1), u32 record count; per record:
//   char name[32]; u32 kind (0 fetch on linear, 1 tex1D on a 1-D array, 2 tex2D on a 2-D array,
//   3 tex2D on pitched memory); u32 channels, width, height, pitch (texels); u32 address_x,
//   address_y (0 wrap 1 clamp 2 mirror 3 border), filter (0 point 1 linear), normalized;
//   f32 border[4]; u32 n_texel_floats; f32 texels[n] (channel-interleaved, rows of `pitch`);
//   u32 n_coords; coords (kind 0: i32 i; kind 1: f32 x; kinds 2-3: f32 x, f32 y);
//   results: n_coords * channels f32 (the first `channels` lanes of the v4 the texture unit returns).
#include "common.h"
#include <vector>
#include <string>
#include <math.h>

static unsigned long long rng_state = 0x1234567887654321ull;
static unsigned long long next_u64() {
  rng_state += 0x9E3779B97F4A7C15ull;
  unsigned long long z = rng_state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)((next_u64() >> 40) / 16777216.0); }
// A random float with full precision: random significand, exponent in [e_lo, e_hi], random sign.
static float wide(int e_lo, int e_hi) {
  unsigned long long r = next_u64();
  int e = e_lo + (int)(r % (unsigned)(e_hi - e_lo + 1));
  unsigned m = (unsigned)(r >> 20) & 0x7fffff;
  unsigned s = (unsigned)(r >> 63);
  unsigned b = (s << 31) | ((unsigned)(e + 127) << 23) | m;
  float f; memcpy(&f, &b, 4); return f;
}
static float fbits(unsigned b) { float f; memcpy(&f, &b, 4); return f; }

template <class T> __global__ void k_fetch(cudaTextureObject_t t, const int* is, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<T>(t, is[i]);
}
template <class T> __global__ void k_1d(cudaTextureObject_t t, const float* xs, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<T>(t, xs[i]);
}
template <class T> __global__ void k_2d(cudaTextureObject_t t, const float* xs, const float* ys, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<T>(t, xs[i], ys[i]);
}

struct Rec {
  std::string name; unsigned kind, channels, width, height, pitch, ax, ay, filter, norm; float border[4];
  std::vector<float> texels; std::vector<float> xs, ys; std::vector<int> is; std::vector<float> out;
};
static std::vector<Rec> recs;
static int failures = 0;

static cudaChannelFormatDesc chan(unsigned c) {
  return cudaCreateChannelDesc(32, c >= 2 ? 32 : 0, c >= 4 ? 32 : 0, c >= 4 ? 32 : 0, cudaChannelFormatKindFloat);
}

template <class T> static void run(Rec& r) {
  cudaResourceDesc rd; memset(&rd, 0, sizeof rd);
  cudaArray_t arr = nullptr; float* dmem = nullptr;
  size_t bytes = r.texels.size() * 4;
  if (r.kind == 0 || r.kind == 3) {
    CK(cudaMalloc(&dmem, bytes));
    CK(cudaMemcpy(dmem, r.texels.data(), bytes, cudaMemcpyHostToDevice));
  }
  if (r.kind == 0) {
    rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = dmem; rd.res.linear.desc = chan(r.channels);
    rd.res.linear.sizeInBytes = bytes;
  } else if (r.kind == 3) {
    rd.resType = cudaResourceTypePitch2D; rd.res.pitch2D.devPtr = dmem; rd.res.pitch2D.desc = chan(r.channels);
    rd.res.pitch2D.width = r.width; rd.res.pitch2D.height = r.height; rd.res.pitch2D.pitchInBytes = r.pitch * r.channels * 4;
  } else {
    cudaChannelFormatDesc cd = chan(r.channels);
    CK(cudaMallocArray(&arr, &cd, r.width, r.kind == 1 ? 0 : r.height));
    CK(cudaMemcpy2DToArray(arr, 0, 0, r.texels.data(), r.width * r.channels * 4, r.width * r.channels * 4,
                           r.kind == 1 ? 1 : r.height, cudaMemcpyHostToDevice));
    rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  }
  cudaTextureDesc td; memset(&td, 0, sizeof td);
  td.addressMode[0] = (cudaTextureAddressMode)r.ax; td.addressMode[1] = (cudaTextureAddressMode)r.ay;
  td.addressMode[2] = (cudaTextureAddressMode)r.ay;
  td.filterMode = (cudaTextureFilterMode)r.filter; td.readMode = cudaReadModeElementType;
  td.normalizedCoords = r.norm; for (int k = 0; k < 4; k++) td.borderColor[k] = r.border[k];
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
  if (e != cudaSuccess) {
    printf("record %s: cudaCreateTextureObject failed: %s\n", r.name.c_str(), en(e)); failures++;
    r.out.assign(0, 0); r.xs.clear(); r.ys.clear(); r.is.clear();
    if (arr) cudaFreeArray(arr); if (dmem) cudaFree(dmem); return;
  }
  int n = (int)(r.kind == 0 ? r.is.size() : r.xs.size());
  T* dout; CK(cudaMalloc(&dout, n * sizeof(T)));
  int *dis = nullptr; float *dxs = nullptr, *dys = nullptr;
  int blocks = (n + 255) / 256;
  if (r.kind == 0) {
    CK(cudaMalloc(&dis, n * 4)); CK(cudaMemcpy(dis, r.is.data(), n * 4, cudaMemcpyHostToDevice));
    k_fetch<T><<<blocks, 256>>>(t, dis, dout, n);
  } else {
    CK(cudaMalloc(&dxs, n * 4)); CK(cudaMemcpy(dxs, r.xs.data(), n * 4, cudaMemcpyHostToDevice));
    if (r.kind == 1) k_1d<T><<<blocks, 256>>>(t, dxs, dout, n);
    else {
      CK(cudaMalloc(&dys, n * 4)); CK(cudaMemcpy(dys, r.ys.data(), n * 4, cudaMemcpyHostToDevice));
      k_2d<T><<<blocks, 256>>>(t, dxs, dys, dout, n);
    }
  }
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  r.out.resize((size_t)n * r.channels);
  CK(cudaMemcpy(r.out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
  cudaDestroyTextureObject(t); cudaFree(dout); if (dis) cudaFree(dis); if (dxs) cudaFree(dxs); if (dys) cudaFree(dys);
  if (arr) cudaFreeArray(arr); if (dmem) cudaFree(dmem);
}

static void add(Rec r) {
  if (r.channels == 1) run<float>(r); else if (r.channels == 2) run<float2>(r); else run<float4>(r);
  recs.push_back(r);
}

static const char* MODE[4] = {"wrap", "clamp", "mirror", "border"};

static Rec base(const char* name, unsigned kind, unsigned ch, unsigned w, unsigned h, unsigned pitch,
                unsigned ax, unsigned ay, unsigned filter, unsigned norm) {
  Rec r; char buf[64];
  snprintf(buf, sizeof buf, "%s_%s%s_%s_%s", name, MODE[ax], ax == ay || kind <= 1 ? "" : MODE[ay],
           filter ? "lin" : "pt", norm ? "norm" : "unnorm");
  r.name = buf; r.kind = kind; r.channels = ch; r.width = w; r.height = h; r.pitch = pitch;
  r.ax = ax; r.ay = ay; r.filter = filter; r.norm = norm;
  float bc[4] = {7.25f, -3.5f, 0.125f, 1000.0f}; memcpy(r.border, bc, 16);
  return r;
}

static std::vector<float> specials(float n) {
  float s[] = {0.0f, -0.0f, fbits(0x7fc00000), fbits(0xffc00000), INFINITY, -INFINITY, 3.4e38f, -3.4e38f,
               1e10f, -1e10f, 1e-30f, -1e-30f, fbits(1), 0.5f, n, n - 0.5f, nextafterf(n, 0), nextafterf(n, 2 * n),
               nextafterf(0.5f, 0), nextafterf(0.5f, 1), 1.0f, nextafterf(1.0f, 0), -nextafterf(0.0f, 1),
               n + 0.5f, -0.5f, 65536.0f, 16777216.0f, -16777216.0f, 2147483648.0f, -2147483648.0f, 4294967296.0f};
  return std::vector<float>(s, s + sizeof s / sizeof s[0]);
}

// Coordinates along one axis of n texels: a grid every 1/16 texel over [-2n, 3n], random ones
// over the same range, and special values; divided by n when normalised.
static std::vector<float> axis_coords(unsigned n, bool norm, int randoms) {
  std::vector<float> v;
  for (int k = -32 * (int)n; k <= 48 * (int)n; k++) v.push_back(k / 16.0f);
  for (int k = 0; k < randoms; k++) v.push_back(uniform(-2.0f * n, 3.0f * n));
  if (norm) for (auto& x : v) x = x / (float)n;
  for (int k = 0; k < randoms / 4; k++) v.push_back(norm ? uniform(-2.0f, 3.0f) : uniform(-0.6f, 0.6f) + (float)(next_u64() % (5 * n)) - 2.0f * n);
  auto s = specials(norm ? 1.0f : (float)n);
  v.insert(v.end(), s.begin(), s.end());
  return v;
}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s sm_%d%d, textureAlignment %zu, texturePitchAlignment %zu\n", p.name, p.major, p.minor,
         p.textureAlignment, p.texturePitchAlignment);

  // A: 1-D arrays of 13 random texels, every mode x filter x normalisation.
  std::vector<float> t13; for (int i = 0; i < 13; i++) t13.push_back(uniform(-100, 100));
  for (unsigned norm = 0; norm < 2; norm++)
    for (unsigned f = 0; f < 2; f++)
      for (unsigned m = 0; m < 4; m++) {
        Rec r = base("a1d13", 1, 1, 13, 1, 13, m, m, f, norm); r.texels = t13; r.xs = axis_coords(13, norm, 1024); add(r);
      }
  // B: 2-D arrays 7 x 5, every mode x filter x normalisation, and two mixed-mode pairs.
  std::vector<float> t75; for (int i = 0; i < 35; i++) t75.push_back(uniform(-100, 100));
  auto coords2 = [&](Rec& r, int n) {
    for (int k = 0; k < n; k++) {
      float x = uniform(-7.0f, 14.0f), y = uniform(-5.0f, 10.0f);
      if (k % 4 == 0) { x = (float)((int)(next_u64() % 336) - 112) / 16.0f; y = (float)((int)(next_u64() % 240) - 80) / 16.0f; }
      if (r.norm) { x /= 7.0f; y /= 5.0f; }
      r.xs.push_back(x); r.ys.push_back(y);
    }
    auto s = specials(r.norm ? 1.0f : 7.0f);
    for (size_t k = 0; k < s.size(); k++) { r.xs.push_back(s[k]); r.ys.push_back(r.norm ? 0.3f : 2.2f); r.xs.push_back(r.norm ? 0.6f : 4.1f); r.ys.push_back(s[k]); }
  };
  for (unsigned norm = 0; norm < 2; norm++)
    for (unsigned f = 0; f < 2; f++) {
      for (unsigned m = 0; m < 4; m++) {
        Rec r = base("a2d75", 2, 1, 7, 5, 7, m, m, f, norm); r.texels = t75; coords2(r, 2048); add(r);
      }
      Rec r = base("a2d75", 2, 1, 7, 5, 7, norm ? 0 : 1, norm ? 2 : 3, f, norm); r.texels = t75; coords2(r, 2048); add(r);
    }
  // C: pitched 2-D memory, 7 x 5 texels, rows of 8 (32 bytes).
  std::vector<float> tp(8 * 5, 0.0f); for (int j = 0; j < 5; j++) for (int i = 0; i < 8; i++) tp[j * 8 + i] = i < 7 ? t75[j * 7 + i] : -999.0f;
  for (unsigned norm = 0; norm < 2; norm++)
    for (unsigned f = 0; f < 2; f++)
      for (unsigned m = 0; m < 4; m++) {
        if (!norm && (m == 0 || m == 2)) continue;
        Rec r = base("p2d75", 3, 1, 7, 5, 8, m, m, f, norm); r.texels = tp; coords2(r, 1024); add(r);
      }
  // D: tex1Dfetch on linear memory, 13 elements: indices in and out of range.
  for (unsigned v = 0; v < 2; v++) {
    Rec r = base("fetch13", 0, 1, 13, 1, 13, v ? 3 : 1, v ? 3 : 1, 0, v); r.texels = t13;
    for (int i = -40; i < 60; i++) r.is.push_back(i);
    int big[] = {-2147483647 - 1, 2147483647, 1 << 20, -(1 << 20), 1 << 30, 65536, 65535 + 13};
    for (int b : big) r.is.push_back(b);
    add(r);
  }
  // E: the blend. 256 random texels of wide range; x = i + 0.5 + k/256 for every weight k.
  std::vector<float> t256; for (int i = 0; i < 256; i++) t256.push_back(wide(-20, 20));
  {
    Rec r = base("blend1d", 1, 1, 256, 1, 256, 1, 1, 1, 0); r.texels = t256;
    for (int i = 0; i < 255; i++) for (int k = 0; k < 256; k++) r.xs.push_back(i + 0.5f + k / 256.0f);
    add(r);
  }
  std::vector<float> t16x16; for (int i = 0; i < 256; i++) t16x16.push_back(wide(-20, 20));
  {
    Rec r = base("blend2d", 2, 1, 16, 16, 16, 1, 1, 1, 0); r.texels = t16x16;
    for (int k = 0; k < 16384; k++) {
      unsigned long long b = next_u64();
      r.xs.push_back((float)(b % 15) + 0.5f + (float)((b >> 8) & 255) / 256.0f);
      r.ys.push_back((float)((b >> 16) % 15) + 0.5f + (float)((b >> 24) & 255) / 256.0f);
    }
    add(r);
  }
  // F: coordinate quantisation. Texel i holds i, so a linear sample is i + alpha exactly.
  std::vector<float> ramp16; for (int i = 0; i < 16; i++) ramp16.push_back((float)i);
  std::vector<float> ramp13; for (int i = 0; i < 13; i++) ramp13.push_back((float)i);
  {
    Rec r = base("quant_lin", 1, 1, 16, 1, 16, 1, 1, 1, 0); r.texels = ramp16;
    for (int j = 0; j < 8192; j++) r.xs.push_back(2.5f + j / 8192.0f);
    for (int j = 0; j < 4096; j++) r.xs.push_back(uniform(0.5f, 15.5f));
    add(r);
  }
  {
    Rec r = base("quant_lin", 1, 1, 13, 1, 13, 1, 1, 1, 1); r.texels = ramp13;
    for (int j = 0; j < 8192; j++) r.xs.push_back(uniform(0.0f, 1.0f));
    for (int j = 0; j < 13 * 64; j++) r.xs.push_back((j / 64.0f + 0.5f / 256.0f) / 13.0f);
    add(r);
  }
  {
    Rec r = base("quant_pt", 1, 1, 16, 1, 16, 1, 1, 0, 0); r.texels = ramp16;
    for (int j = 0; j < 16384; j++) r.xs.push_back(j / 1024.0f);
    for (int i = 1; i < 16; i++) { float x = (float)i; for (int k = 0; k < 24; k++) { x = nextafterf(x, 0); r.xs.push_back(x); } }
    add(r);
  }
  {
    Rec r = base("quant_pt", 1, 1, 13, 1, 13, 1, 1, 0, 1); r.texels = ramp13;
    for (int j = 0; j < 8192; j++) r.xs.push_back(uniform(0.0f, 1.0f));
    for (int i = 1; i < 13; i++) { float x = i / 13.0f; r.xs.push_back(x); for (int k = 0; k < 12; k++) { x = nextafterf(x, 0); r.xs.push_back(x); } }
    add(r);
  }
  // G: float4 2-D and float2 1-D arrays.
  std::vector<float> t54x4; for (int i = 0; i < 5 * 4 * 4; i++) t54x4.push_back(uniform(-100, 100));
  for (unsigned norm = 0; norm < 2; norm++)
    for (unsigned m = 1; m < 4; m += 2) {
      Rec r = base("a2d54x4", 2, 4, 5, 4, 5, m, m, 1, norm); r.texels = t54x4;
      for (int k = 0; k < 1024; k++) {
        float x = uniform(-2.0f, 7.0f), y = uniform(-2.0f, 6.0f);
        if (norm) { x /= 5.0f; y /= 4.0f; }
        r.xs.push_back(x); r.ys.push_back(y);
      }
      add(r);
    }
  std::vector<float> t9x2; for (int i = 0; i < 18; i++) t9x2.push_back(uniform(-100, 100));
  for (unsigned m = 0; m < 4; m++) {
    Rec r = base("a1d9x2", 1, 2, 9, 1, 9, m, m, 1, 1); r.texels = t9x2;
    for (int k = 0; k < 1024; k++) r.xs.push_back(uniform(-2.0f, 3.0f));
    add(r);
  }

  std::string path = std::string(outdir) + "/tex_oracle.bin";
  FILE* f = fopen(path.c_str(), "wb"); if (!f) { printf("FATAL cannot write %s\n", path.c_str()); return 1; }
  auto u32 = [&](unsigned v) { fwrite(&v, 4, 1, f); };
  fwrite("TEXO", 1, 4, f); u32(1); u32((unsigned)recs.size());
  size_t samples = 0;
  for (auto& r : recs) {
    char name[32]; memset(name, 0, 32); strncpy(name, r.name.c_str(), 31); fwrite(name, 1, 32, f);
    unsigned h[10] = {r.kind, r.channels, r.width, r.height, r.pitch, r.ax, r.ay, r.filter, r.norm, 0};
    fwrite(h, 4, 9, f); fwrite(r.border, 4, 4, f);
    u32((unsigned)r.texels.size()); fwrite(r.texels.data(), 4, r.texels.size(), f);
    unsigned n = (unsigned)(r.kind == 0 ? r.is.size() : r.xs.size());
    if (r.out.empty()) n = 0;
    u32(n);
    for (unsigned k = 0; k < n; k++) {
      if (r.kind == 0) fwrite(&r.is[k], 4, 1, f);
      else { fwrite(&r.xs[k], 4, 1, f); if (r.kind >= 2) fwrite(&r.ys[k], 4, 1, f); }
    }
    fwrite(r.out.data(), 4, (size_t)n * r.channels, f);
    samples += n;
    printf("record %-32s %6u samples\n", r.name.c_str(), n);
  }
  fclose(f);
  printf("wrote %zu records, %zu samples to %s; %d failures\n", recs.size(), samples, path.c_str(), failures);
  return failures ? 1 : 0;
}
