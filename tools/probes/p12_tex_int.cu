// Probe 12: 8- and 16-bit integer textures, bit for bit. Texels of u8, i8, u16 and i16 with 1, 2
// and 4 channels, read as the element type (cudaReadModeElementType: the 32-bit integer the
// texture unit returns) or as normalised floats (cudaReadModeNormalizedFloat), point and linear
// filtering, every addressing mode, border colours, 1-D and 2-D arrays, pitched 2-D memory and
// tex1Dfetch on linear memory. Writes OUTDIR/tex_int_oracle.bin (replayed by
// tests/tex_int_oracle.rs through the emulator's sampler) and OUTDIR/tex_int_full16.bin (every
// u16 and i16 value converted, too big to commit; same format). Also prints the error codes of
// the combinations CUDA refuses.
//   nvcc -arch=sm_90 -O2 -o p12_tex_int p12_tex_int.cu && ./p12_tex_int OUTDIR
//
// File format (little-endian): "TEXI", u32 version (1), u32 record count; per record:
//   char name[32]; u32 kind (0 fetch on linear, 1 tex1D on a 1-D array, 2 tex2D on a 2-D array,
//   3 tex2D on pitched memory); u32 format (0 u8, 1 i8, 2 u16, 3 i16); u32 channels, width,
//   height, pitch (texels); u32 address_x, address_y (0 wrap 1 clamp 2 mirror 3 border),
//   filter (0 point 1 linear), normalized, read_mode (0 element type, 1 normalised float);
//   f32 border[4]; u32 n_texel_bytes; u8 texels[n] (channel-interleaved, rows of `pitch`),
//   zero-padded to a multiple of 4; u32 n_coords; coords (kind 0: i32 i; kind 1: f32 x;
//   kinds 2-3: f32 x, f32 y); results: n_coords * channels u32 (f32 bits for normalised reads,
//   the 32-bit integer for element-type reads; the first `channels` lanes of the v4).
#include "common.h"
#include <vector>
#include <string>
#include <math.h>

static unsigned long long rng_state = 0x5eed1234abcd9876ull;
static unsigned long long next_u64() {
  rng_state += 0x9E3779B97F4A7C15ull;
  unsigned long long z = rng_state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)((next_u64() >> 40) / 16777216.0); }
static float fbits(unsigned b) { float f; memcpy(&f, &b, 4); return f; }

template <class R> __global__ void k_fetch(cudaTextureObject_t t, const int* is, R* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<R>(t, is[i]);
}
template <class R> __global__ void k_1d(cudaTextureObject_t t, const float* xs, R* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<R>(t, xs[i]);
}
template <class R> __global__ void k_2d(cudaTextureObject_t t, const float* xs, const float* ys, R* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<R>(t, xs[i], ys[i]);
}

enum { U8 = 0, I8 = 1, U16 = 2, I16 = 3 };
static const char* FMT[4] = {"u8", "i8", "u16", "i16"};
static unsigned fbytes(unsigned f) { return f >= 2 ? 2 : 1; }
static bool fsigned(unsigned f) { return f == I8 || f == I16; }

struct Rec {
  std::string name; unsigned kind, format, channels, width, height, pitch, ax, ay, filter, norm, read; float border[4];
  std::vector<unsigned char> texels; std::vector<float> xs, ys; std::vector<int> is; std::vector<unsigned> out;
};
static std::vector<Rec> recs, full;
static int failures = 0;

static cudaChannelFormatDesc chan(unsigned f, unsigned c) {
  int b = 8 * fbytes(f);
  return cudaCreateChannelDesc(b, c >= 2 ? b : 0, c >= 4 ? b : 0, c >= 4 ? b : 0,
                               fsigned(f) ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned);
}

// Creates the texture object of `r` (and its memory); returns the error.
static cudaError_t create(const Rec& r, cudaTextureObject_t* t, cudaArray_t* arr, void** dmem) {
  cudaResourceDesc rd; memset(&rd, 0, sizeof rd);
  *arr = nullptr; *dmem = nullptr;
  size_t bytes = r.texels.size();
  size_t texel = fbytes(r.format) * r.channels;
  if (r.kind == 0 || r.kind == 3) {
    CK(cudaMalloc(dmem, bytes));
    CK(cudaMemcpy(*dmem, r.texels.data(), bytes, cudaMemcpyHostToDevice));
  }
  if (r.kind == 0) {
    rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = *dmem; rd.res.linear.desc = chan(r.format, r.channels);
    rd.res.linear.sizeInBytes = bytes;
  } else if (r.kind == 3) {
    rd.resType = cudaResourceTypePitch2D; rd.res.pitch2D.devPtr = *dmem; rd.res.pitch2D.desc = chan(r.format, r.channels);
    rd.res.pitch2D.width = r.width; rd.res.pitch2D.height = r.height; rd.res.pitch2D.pitchInBytes = r.pitch * texel;
  } else {
    cudaChannelFormatDesc cd = chan(r.format, r.channels);
    CK(cudaMallocArray(arr, &cd, r.width, r.kind == 1 ? 0 : r.height));
    CK(cudaMemcpy2DToArray(*arr, 0, 0, r.texels.data(), r.width * texel, r.width * texel,
                           r.kind == 1 ? 1 : r.height, cudaMemcpyHostToDevice));
    rd.resType = cudaResourceTypeArray; rd.res.array.array = *arr;
  }
  cudaTextureDesc td; memset(&td, 0, sizeof td);
  td.addressMode[0] = (cudaTextureAddressMode)r.ax; td.addressMode[1] = (cudaTextureAddressMode)r.ay;
  td.addressMode[2] = (cudaTextureAddressMode)r.ay;
  td.filterMode = (cudaTextureFilterMode)r.filter;
  td.readMode = r.read ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  td.normalizedCoords = r.norm; for (int k = 0; k < 4; k++) td.borderColor[k] = r.border[k];
  return cudaCreateTextureObject(t, &rd, &td, nullptr);
}

template <class R> static void run(Rec& r) {
  cudaTextureObject_t t = 0; cudaArray_t arr; void* dmem;
  cudaError_t e = create(r, &t, &arr, &dmem);
  if (e != cudaSuccess) {
    printf("record %s: cudaCreateTextureObject failed: %s\n", r.name.c_str(), en(e)); failures++;
    cudaGetLastError();
    r.out.clear(); r.xs.clear(); r.ys.clear(); r.is.clear();
    if (arr) cudaFreeArray(arr); if (dmem) cudaFree(dmem); return;
  }
  int n = (int)(r.kind == 0 ? r.is.size() : r.xs.size());
  R* dout; CK(cudaMalloc(&dout, n * sizeof(R) + 4));
  int *dis = nullptr; float *dxs = nullptr, *dys = nullptr;
  int blocks = (n + 255) / 256;
  if (r.kind == 0) {
    CK(cudaMalloc(&dis, n * 4)); CK(cudaMemcpy(dis, r.is.data(), n * 4, cudaMemcpyHostToDevice));
    k_fetch<R><<<blocks, 256>>>(t, dis, dout, n);
  } else {
    CK(cudaMalloc(&dxs, n * 4)); CK(cudaMemcpy(dxs, r.xs.data(), n * 4, cudaMemcpyHostToDevice));
    if (r.kind == 1) k_1d<R><<<blocks, 256>>>(t, dxs, dout, n);
    else {
      CK(cudaMalloc(&dys, n * 4)); CK(cudaMemcpy(dys, r.ys.data(), n * 4, cudaMemcpyHostToDevice));
      k_2d<R><<<blocks, 256>>>(t, dxs, dys, dout, n);
    }
  }
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  r.out.resize((size_t)n * r.channels);
  CK(cudaMemcpy(r.out.data(), dout, n * sizeof(R), cudaMemcpyDeviceToHost));
  cudaDestroyTextureObject(t); cudaFree(dout); if (dis) cudaFree(dis); if (dxs) cudaFree(dxs); if (dys) cudaFree(dys);
  if (arr) cudaFreeArray(arr); if (dmem) cudaFree(dmem);
}

static void add(Rec r, bool to_full = false) {
  unsigned c = r.channels;
  if (r.read) { if (c == 1) run<float>(r); else if (c == 2) run<float2>(r); else run<float4>(r); }
  else if (fsigned(r.format)) { if (c == 1) run<int>(r); else if (c == 2) run<int2>(r); else run<int4>(r); }
  else { if (c == 1) run<unsigned>(r); else if (c == 2) run<uint2>(r); else run<uint4>(r); }
  (to_full ? full : recs).push_back(r);
}

static const char* MODE[4] = {"wrap", "clamp", "mirror", "border"};

static Rec base(const char* name, unsigned kind, unsigned fmt, unsigned ch, unsigned w, unsigned h, unsigned pitch,
                unsigned ax, unsigned ay, unsigned filter, unsigned norm, unsigned read) {
  Rec r; char buf[96];
  snprintf(buf, sizeof buf, "%s_%s%u_%s%s_%s%s%s", name, FMT[fmt], ch, MODE[ax], ax == ay || kind <= 1 ? "" : MODE[ay],
           filter ? "lin" : "pt", norm ? "_n" : "", read ? "_f" : "_e");
  r.name = buf; r.kind = kind; r.format = fmt; r.channels = ch; r.width = w; r.height = h; r.pitch = pitch;
  r.ax = ax; r.ay = ay; r.filter = filter; r.norm = norm; r.read = read;
  float bc[4] = {0.25f, -0.625f, 7.25f, 1000.0f}; memcpy(r.border, bc, 16);
  return r;
}

// `n` random texel values of format f (raw bytes, little-endian), the first ones the extremes.
static std::vector<unsigned char> random_texels(unsigned f, size_t n) {
  std::vector<unsigned char> v;
  unsigned ext16[] = {0, 0xffff, 0x8000, 0x7fff, 1, 0xfffe, 0x8001, 0x7ffe};
  unsigned ext8[] = {0, 0xff, 0x80, 0x7f, 1, 0xfe, 0x81, 0x7e};
  for (size_t k = 0; k < n; k++) {
    unsigned x = (unsigned)next_u64();
    if (k < 8) x = fbytes(f) == 2 ? ext16[k] : ext8[k];
    v.push_back((unsigned char)x);
    if (fbytes(f) == 2) v.push_back((unsigned char)(x >> 8));
  }
  return v;
}

static std::vector<float> specials(float n) {
  float s[] = {0.0f, -0.0f, fbits(0x7fc00000), INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 1e-30f, -1e-30f, fbits(1),
               0.5f, n, n - 0.5f, nextafterf(n, 0), nextafterf(0.5f, 0), nextafterf(0.5f, 1), 1.0f, -0.5f, n + 0.5f};
  return std::vector<float>(s, s + sizeof s / sizeof s[0]);
}

// Coordinates along one axis of n texels: a grid every 1/step texel over [-n, 2n], random ones,
// special values; divided by n when normalised.
static std::vector<float> axis_coords(unsigned n, bool norm, int step, int randoms) {
  std::vector<float> v;
  for (int k = -step * (int)n; k <= 2 * step * (int)n; k++) v.push_back(k / (float)step);
  for (int k = 0; k < randoms; k++) v.push_back(uniform(-1.0f * n, 2.0f * n));
  if (norm) for (auto& x : v) x = x / (float)n;
  auto s = specials(norm ? 1.0f : (float)n);
  v.insert(v.end(), s.begin(), s.end());
  return v;
}

static void coords2(Rec& r, int n) {
  float w = (float)r.width, h = (float)r.height;
  for (int k = 0; k < n; k++) {
    float x = uniform(-w, 2 * w), y = uniform(-h, 2 * h);
    if (k % 4 == 0) { x = (float)((int)(next_u64() % (48 * r.width)) - 16 * (int)r.width) / 16.0f; y = (float)((int)(next_u64() % (48 * r.height)) - 16 * (int)r.height) / 16.0f; }
    if (r.norm) { x /= w; y /= h; }
    r.xs.push_back(x); r.ys.push_back(y);
  }
}

// The error of creating `r`'s object (nothing sampled).
static void refused(const char* what, Rec r, bool is_float) {
  cudaTextureObject_t t = 0; cudaArray_t arr; void* dmem;
  cudaError_t e;
  if (is_float) {
    cudaResourceDesc rd; memset(&rd, 0, sizeof rd);
    float* d; CK(cudaMalloc(&d, 64 * 4));
    rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = d;
    rd.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat); rd.res.linear.sizeInBytes = 256;
    cudaTextureDesc td; memset(&td, 0, sizeof td);
    td.filterMode = (cudaTextureFilterMode)r.filter; td.readMode = cudaReadModeNormalizedFloat;
    e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
    if (e == cudaSuccess) cudaDestroyTextureObject(t);
    cudaFree(d);
  } else {
    e = create(r, &t, &arr, &dmem);
    if (e == cudaSuccess) cudaDestroyTextureObject(t);
    if (arr) cudaFreeArray(arr); if (dmem) cudaFree(dmem);
  }
  printf("refusal %-48s -> %d %s\n", what, (int)e, en(e));
  cudaGetLastError();
}

static void write_file(const std::vector<Rec>& rs, const std::string& path) {
  FILE* f = fopen(path.c_str(), "wb"); if (!f) { printf("FATAL cannot write %s\n", path.c_str()); exit(1); }
  auto u32 = [&](unsigned v) { fwrite(&v, 4, 1, f); };
  fwrite("TEXI", 1, 4, f); u32(1); u32((unsigned)rs.size());
  size_t samples = 0;
  for (auto& r : rs) {
    char name[32]; memset(name, 0, 32); strncpy(name, r.name.c_str(), 31); fwrite(name, 1, 32, f);
    unsigned h[11] = {r.kind, r.format, r.channels, r.width, r.height, r.pitch, r.ax, r.ay, r.filter, r.norm, r.read};
    fwrite(h, 4, 11, f); fwrite(r.border, 4, 4, f);
    u32((unsigned)r.texels.size()); fwrite(r.texels.data(), 1, r.texels.size(), f);
    unsigned zero = 0; fwrite(&zero, 1, (4 - r.texels.size() % 4) % 4, f);
    unsigned n = (unsigned)(r.kind == 0 ? r.is.size() : r.xs.size());
    if (r.out.empty()) n = 0;
    u32(n);
    for (unsigned k = 0; k < n; k++) {
      if (r.kind == 0) fwrite(&r.is[k], 4, 1, f);
      else { fwrite(&r.xs[k], 4, 1, f); if (r.kind >= 2) fwrite(&r.ys[k], 4, 1, f); }
    }
    fwrite(r.out.data(), 4, (size_t)n * r.channels, f);
    samples += n;
  }
  long size = ftell(f);
  fclose(f);
  printf("wrote %zu records, %zu samples, %ld bytes to %s\n", rs.size(), samples, size, path.c_str());
}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s sm_%d%d\n", p.name, p.major, p.minor);

  // Refusals: linear filtering with an element-type read of each format; a normalised read of
  // f32 texels (point and linear).
  for (unsigned f = 0; f < 4; f++) {
    Rec r = base("refuse", 1, f, 1, 4, 1, 4, 1, 1, 1, 0, 0); r.texels = random_texels(f, 4);
    char what[64]; snprintf(what, sizeof what, "%s tex1D array, linear filter, element-type read", FMT[f]);
    refused(what, r, false);
    Rec q = base("refuse", 0, f, 1, 4, 1, 4, 1, 1, 1, 0, 0); q.texels = random_texels(f, 4);
    snprintf(what, sizeof what, "%s linear memory, linear filter, element-type read", FMT[f]);
    refused(what, q, false);
  }
  { Rec r = base("refuse", 0, 0, 1, 4, 1, 4, 1, 1, 0, 0, 1); refused("f32 linear memory, point, normalised-float read", r, true); }
  { Rec r = base("refuse", 0, 0, 1, 4, 1, 4, 1, 1, 1, 0, 1); refused("f32 linear memory, linear, normalised-float read", r, true); }

  // A: conversions. tex1Dfetch of every 8-bit value, and of 16-bit values (all 65536 into the
  // full file; a subset into the oracle), read as floats and as integers.
  for (unsigned f = 0; f < 4; f++)
    for (unsigned read = 0; read < 2; read++) {
      unsigned n = fbytes(f) == 1 ? 256 : 65536;
      Rec r = base("conv", 0, f, 1, n, 1, n, 1, 1, 0, 0, read);
      for (unsigned v = 0; v < n; v++) { r.texels.push_back((unsigned char)v); if (n > 256) r.texels.push_back((unsigned char)(v >> 8)); }
      for (unsigned v = 0; v < n; v++) r.is.push_back((int)v);
      int oob[] = {-1, (int)n, -100000, 1 << 30};
      for (int b : oob) r.is.push_back(b);
      if (n == 256) { add(r); continue; }
      r.width = r.pitch = n; add(r, true);
      // The subset: the first and last 256 values, both sides of 0x8000, and every 61st.
      Rec s = r; s.name += "_sub"; s.texels.clear(); s.is.clear(); s.out.clear();
      std::vector<unsigned> vals;
      for (unsigned v = 0; v < 65536; v++)
        if (v < 256 || v >= 65536 - 256 || (v >= 0x8000 - 128 && v < 0x8000 + 128) || v % 61 == 0) vals.push_back(v);
      for (unsigned v : vals) { s.texels.push_back((unsigned char)v); s.texels.push_back((unsigned char)(v >> 8)); }
      s.width = s.pitch = (unsigned)vals.size();
      for (unsigned k = 0; k < vals.size(); k++) s.is.push_back((int)k);
      for (int b : oob) s.is.push_back(b == (int)n ? (int)vals.size() : b);
      add(s);
    }

  // B: every addressing mode, filter and normalisation on 1-D arrays of 13 texels; element-type
  // reads with point filtering only (wrap and mirror only with normalised coordinates).
  for (unsigned f = 0; f < 4; f++) {
    std::vector<unsigned char> t13 = random_texels(f, 13);
    for (unsigned norm = 0; norm < 2; norm++)
      for (unsigned read = 0; read < 2; read++)
        for (unsigned filt = 0; filt < 2; filt++) {
          if (!read && filt) continue;
          for (unsigned m = 0; m < 4; m++) {
            if (!norm && !filt && (m == 0 || m == 2)) continue;
            Rec r = base("a1d13", 1, f, 1, 13, 1, 13, m, m, filt, norm, read); r.texels = t13;
            r.xs = axis_coords(13, norm, filt ? 4 : 2, 16); add(r);
          }
        }
  }

  // C: the blend. 1-D arrays of 256 random texels, x = i + 0.5 + k/256: every weight k for the
  // first 3 pairs (the extremes), random (i, k) otherwise. 2-D arrays 16 x 16, random samples.
  for (unsigned f = 0; f < 4; f++) {
    Rec r = base("blend1d", 1, f, 1, 256, 1, 256, 1, 1, 1, 0, 1); r.texels = random_texels(f, 256);
    for (int i = 0; i < 3; i++) for (int k = 0; k < 256; k++) r.xs.push_back(i + 0.5f + k / 256.0f);
    for (int j = 0; j < 1536; j++) { unsigned long long b = next_u64(); r.xs.push_back((float)(b % 255) + 0.5f + (float)((b >> 8) & 255) / 256.0f); }
    add(r);
    Rec q = base("blend2d", 2, f, 1, 16, 16, 16, 1, 1, 1, 0, 1); q.texels = random_texels(f, 256);
    for (int k = 0; k < 1024; k++) {
      unsigned long long b = next_u64();
      q.xs.push_back((float)(b % 15) + 0.5f + (float)((b >> 8) & 255) / 256.0f);
      q.ys.push_back((float)((b >> 16) % 15) + 0.5f + (float)((b >> 24) & 255) / 256.0f);
    }
    add(q);
  }

  // D: channels. RGBA u8 2-D arrays 5 x 4 (clamp and border) and pitched memory (rows of 8
  // texels, 32 bytes; clamp), i16x2 2-D arrays, u16x4 2-D arrays.
  for (unsigned norm = 0; norm < 2; norm++)
    for (unsigned m = 1; m < 4; m += 2)
      for (unsigned read = 0; read < 2; read++)
        for (unsigned filt = 0; filt < 2; filt++) {
          if (!read && filt) continue;
          Rec r = base("a2d54", 2, U8, 4, 5, 4, 5, m, m, filt, norm, read); r.texels = random_texels(U8, 20 * 4);
          coords2(r, 128); add(r);
          if (m == 1) {
            Rec p2 = base("p2d54", 3, U8, 4, 5, 4, 8, m, m, filt, norm, read); p2.texels = random_texels(U8, 32 * 4);
            coords2(p2, 96); add(p2);
          }
          Rec s = base("a2d54", 2, I16, 2, 5, 4, 5, m, m, filt, norm, read); s.texels = random_texels(I16, 20 * 2);
          coords2(s, 96); add(s);
          if (norm == read) {
            Rec u = base("a2d54", 2, U16, 4, 5, 4, 5, m, m, filt, norm, read); u.texels = random_texels(U16, 20 * 4);
            coords2(u, 96); add(u);
          }
        }
  // E: border colours of other values (negative, above 1, huge, NaN, -0) in both read modes, 4
  // channels, 2-D arrays of 3 x 2.
  float borders[3][4] = {{-1.5f, 2.0f, 255.0f, 65535.0f}, {-128.0f, 0.999f, 1e9f, -3e9f}, {fbits(0x7fc00000), -0.0f, 0.5f, 128.0f}};
  for (unsigned f = 0; f < 4; f++)
    for (int b = 0; b < 3; b++)
      for (unsigned read = 0; read < 2; read++)
        for (unsigned filt = 0; filt < 2; filt++) {
          if (!read && filt) continue;
          Rec r = base("border", 2, f, 4, 3, 2, 3, 3, 3, filt, 0, read); r.texels = random_texels(f, 6 * 4);
          memcpy(r.border, borders[b], 16);
          char buf[16]; snprintf(buf, sizeof buf, "_b%d", b); r.name += buf;
          for (int k = -2; k <= 6; k++) for (int j = -2; j <= 4; j++) { r.xs.push_back(k / 2.0f); r.ys.push_back(j / 2.0f); }
          add(r);
        }

  std::string dir(outdir);
  write_file(recs, dir + "/tex_int_oracle.bin");
  write_file(full, dir + "/tex_int_full16.bin");
  // Summaries for RESULTS.md: the normalised conversions against candidate formulas.
  for (auto* set : {&recs, &full})
    for (auto& r : *set) {
      if (r.name.rfind("conv", 0) != 0 || !r.read || r.out.empty()) continue;
      unsigned n = r.width, bad_div = 0, bad_mul = 0, bad_clamp = 0;
      float maxv = fbytes(r.format) == 1 ? (fsigned(r.format) ? 127.0f : 255.0f) : (fsigned(r.format) ? 32767.0f : 65535.0f);
      for (unsigned k = 0; k < n; k++) {
        int v = fbytes(r.format) == 1 ? (fsigned(r.format) ? (int)(signed char)r.texels[k] : (int)r.texels[k])
                                      : (fsigned(r.format) ? (int)(short)(r.texels[2 * k] | r.texels[2 * k + 1] << 8)
                                                           : (int)(r.texels[2 * k] | r.texels[2 * k + 1] << 8));
        float got; memcpy(&got, &r.out[k], 4);
        float div = (float)((double)v / (double)maxv), mul = (float)v * (1.0f / maxv);
        float cl = div < -1.0f ? -1.0f : div;
        if (memcmp(&got, &div, 4)) bad_div++;
        if (memcmp(&got, &mul, 4)) bad_mul++;
        if (memcmp(&got, &cl, 4)) bad_clamp++;
      }
      printf("conv %-24s %6u values: vs v/max rounded %u misses, vs v*(1/max) %u, vs max(v/max, -1) %u\n",
             r.name.c_str(), n, bad_div, bad_mul, bad_clamp);
    }
  for (auto& r : recs) if (r.name.rfind("conv_i8", 0) == 0 || r.name.rfind("conv_u8", 0) == 0) {
    printf("%s:", r.name.c_str());
    for (unsigned k : {0u, 1u, 2u, 3u, 127u, 128u, 129u, 254u, 255u}) printf(" [%u]=%08x", k, r.out[k]);
    printf("\n");
  }
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
