// deviceemu floating-point oracle: evaluates CUDA's float intrinsics on the GPU over a fixed
// corpus and writes the result bits, compactly, for tests/fp_oracle.rs to compare against the
// emulator bit for bit.
//
//   nvcc -O3 -arch=sm_90 -o oracle oracle.cu
//   ./oracle OUTDIR                  # corpus + exhaustive sweeps -> OUTDIR/fp_oracle.bin
//   ./oracle OUTDIR --no-exhaustive  # corpus only (seconds)
//   ./oracle OUTDIR --full           # also OUTDIR/full/<op>.bin: every corpus result (diagnosis)
//   ./oracle --inputs-only           # no GPU: print each op's input count and hash
//
// The last form also builds without CUDA (g++ -x c++ -O2 -o oracle-host oracle.cu), to check
// that this generator and the Rust one (tests/fp_corpus/mod.rs) agree.
//
// Corpus of each op: a special-value section (every value, every pair of the 36 specials, or
// every triple of 12 of them; all 65536 patterns for one 16-bit operand; 32 integer specials),
// then N generated inputs from splitmix64 seeded with FNV-1a(op name), integer arithmetic
// only. Exhaustive sweeps: every 32-bit input of one-operand f32/integer ops, every pair of
// 16-bit operands of two-operand f16/bf16 ops.
//
// File format (little endian):
//   "FPORACL1", u32 meta_len, meta (text), u32 n_records, then per record:
//   u8 name_len, name, u8 sweep (0 corpus, 1 exhaustive), u8 input kind, u8 flags,
//   u64 count, u64 input_hash, u32 chunk_log2, u32 n_chunks, u64 chunk_hash[n_chunks],
//   u32 n_full, u32 result[n_full]
// Corpus chunk hash: wrapping sum over its entries of entry_hash(i, result) (mix64 based);
// exhaustive chunk hash: sum of fmix32(result + i * 0x9e3779b1) as u64.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>
#include <string>
#include <sys/stat.h>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif

// ---------------------------------------------------------------------------------------------
// Generator (mirror of tests/fp_corpus/mod.rs)

static const size_t N_GENERATED = 100000;
static const size_t N_GENERATED_FAST = 4096;

enum Kind { F1 = 1, F2 = 2, F3 = 3, I1 = 4, U1 = 5, H1 = 6, H2 = 7, H3 = 8, B1 = 9, B2 = 10, B3 = 11, R1 = 12 };

static int arity(int k) {
  switch (k) {
    case F2: case H2: case B2: return 2;
    case F3: case H3: case B3: return 3;
    default: return 1;
  }
}

struct Fmt { uint32_t man, exp; };
static const Fmt FMT_F32 = {23, 8};
static const Fmt FMT_F16 = {10, 5};
static const Fmt FMT_BF16 = {7, 8};

static uint32_t f_bias(Fmt f) { return (1u << (f.exp - 1)) - 1; }
static uint32_t f_emaxf(Fmt f) { return (1u << f.exp) - 1; }
static uint32_t f_sign(Fmt f) { return 1u << (f.man + f.exp); }
static uint32_t f_mmask(Fmt f) { return (1u << f.man) - 1; }
static uint32_t f_make(Fmt f, uint32_t s, uint32_t e, uint32_t m) {
  return (s ? f_sign(f) : 0u) | (e << f.man) | (m & f_mmask(f));
}

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint64_t entry_hash(uint64_t i, uint32_t v) { return mix64(((i << 32) | (uint64_t)v) ^ 0x9e3779b97f4a7c15ULL); }
static uint64_t input_hash(uint64_t i, uint32_t a, uint32_t b, uint32_t c) {
  return entry_hash(i, a) + entry_hash(i, b) * 3 + entry_hash(i, c) * 5;
}
static uint64_t fnv1a(const char* s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) { h ^= (uint8_t)*s; h *= 0x00000100000001b3ULL; }
  return h;
}

struct Gen {
  uint64_t s;
  uint64_t next() { s += 0x9e3779b97f4a7c15ULL; return mix64(s); }
};
static Gen gen_at(uint64_t seed, uint64_t j) { Gen g; g.s = seed ^ (j * 0xd1b54a32d192ed03ULL); return g; }

static std::vector<uint32_t> specials(Fmt f) {
  uint32_t b = f_bias(f), man = f.man, ef = f_emaxf(f), mm = f_mmask(f);
#define CAP(e) ((e) >= ef ? ef - 1 : (e))
  std::vector<uint32_t> v = {
    f_make(f, 0, 0, 0), f_make(f, 1, 0, 0), f_make(f, 0, 0, 1), f_make(f, 1, 0, 1), f_make(f, 0, 0, mm),
    f_make(f, 0, 1, 0), f_make(f, 1, 1, 0), f_make(f, 0, b, 0), f_make(f, 1, b, 0), f_make(f, 0, b, 1),
    f_make(f, 0, b - 1, mm), f_make(f, 0, b, 1u << (man - 1)), f_make(f, 0, b + 1, 0), f_make(f, 0, b - 1, 0),
    f_make(f, 0, b + 1, 1u << (man - 1)), f_make(f, 1, b + 1, 1u << (man - 1)), f_make(f, 0, b - 2, mm / 3),
    f_make(f, 0, b - man - 1, 0), f_make(f, 0, b - man - 1, 1u << (man - 1)), f_make(f, 0, b - man, 0),
    f_make(f, 0, ef - 1, mm), f_make(f, 1, ef - 1, mm), f_make(f, 0, ef - 1, 0), f_make(f, 0, ef, 0),
    f_make(f, 1, ef, 0), f_make(f, 0, ef, 1u << (man - 1)),
    f_make(f, 0, ef, (1u << (man - 1)) | (0x1234u & (mm >> 1))), f_make(f, 0, ef, 1),
    f_make(f, 1, ef, 1u << (man - 1)), f_make(f, 0, CAP(b + man + 1), 0), f_make(f, 0, CAP(b + man), mm),
    f_make(f, 1, b + 1, 0x00490fdbu >> (23 - man)), f_make(f, 0, CAP(b + 30), mm), f_make(f, 0, CAP(b + 31), 0),
    f_make(f, 0, b - 2, mm), f_make(f, 0, b + 1, 1u << (man - 2)),
  };
#undef CAP
  return v;
}
static const int TRIPLE_SUBSET[12] = {0, 1, 2, 5, 7, 8, 9, 17, 20, 23, 25, 14};

static std::vector<uint32_t> int_specials() {
  return {0u, 1u, 0xffffffffu, 2u, 3u, 7u, 255u, 256u, 16777215u, 16777216u, 16777217u, 16777218u, 16777219u,
          33554431u, 33554433u, 33554435u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0x7fffff80u, 0x7fffffc0u,
          0x7fffffbfu, 0x7fffffc1u, 0xffffff80u, 0xff000001u, 0xfeffffffu, 0x01000001u, 0xfefffffdu,
          0xfffffffeu, 0x40000001u, 0x55555555u, 0xaaaaaaabu};
}

static uint32_t exp_of(Fmt f, uint32_t x) { return (x >> f.man) & f_emaxf(f); }
static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

static uint32_t trunc_product(Fmt f, uint32_t a, uint32_t b, uint32_t neg, uint32_t fallback) {
  uint32_t ea = exp_of(f, a), eb = exp_of(f, b);
  if (ea == 0 || eb == 0 || ea == f_emaxf(f) || eb == f_emaxf(f)) return fallback;
  uint64_t ma = (uint64_t)((a & f_mmask(f)) | (1u << f.man));
  uint64_t mb = (uint64_t)((b & f_mmask(f)) | (1u << f.man));
  uint64_t p = ma * mb;
  uint64_t pm; int64_t carry;
  if ((p >> (2 * f.man + 1)) != 0) { pm = p >> (f.man + 1); carry = 1; } else { pm = p >> f.man; carry = 0; }
  int64_t pe = (int64_t)ea + (int64_t)eb - (int64_t)f_bias(f) + carry;
  if (pe < 1 || pe >= (int64_t)f_emaxf(f)) return fallback;
  return f_make(f, neg, (uint32_t)pe, (uint32_t)pm);
}

static uint32_t gen_fp(Gen& g, Fmt f) {
  uint64_t r = g.next();
  uint64_t cls = r & 15;
  uint32_t s = (uint32_t)((r >> 4) & 1);
  uint32_t mraw = (uint32_t)(r >> 8) & f_mmask(f);
  uint32_t eraw = (uint32_t)(r >> 40) & f_emaxf(f);
  uint32_t sel = (uint32_t)(r >> 48);
  uint32_t b = f_bias(f), ef = f_emaxf(f);
  uint64_t width_mask = ((uint64_t)f_sign(f) << 1) - 1;
  switch (cls) {
    case 0: case 1: case 2: return (uint32_t)((r >> 16) & width_mask);
    case 3: case 4: return f_make(f, s, b - f.man - 1 + sel % (2 * f.man + 3), mraw);
    case 5: return f_make(f, s, 0, mraw >> (sel % f.man));
    case 6: return f_make(f, s, 1 + sel % 3, mraw);
    case 7: return f_make(f, s, ef - 1 - sel % 3, mraw);
    case 8: { std::vector<uint32_t> sp = specials(f); return sp[sel % sp.size()]; }
    case 9: {
      uint32_t e = eraw == ef ? ef - 1 : eraw;
      return f_make(f, s, e, mraw & ~((1u << (sel % (f.man + 1))) - 1));
    }
    case 10: {
      uint32_t m = (sel & 1) ? f_mmask(f) - (mraw & 7) : (mraw & 7);
      return f_make(f, s, b - (ef / 8) + (sel >> 1) % (ef / 4), m);
    }
    case 11: {
      uint32_t y = f_make(f, 0, b - (ef / 8) + sel % (ef / 4), mraw);
      uint32_t sq = trunc_product(f, y, y, 0, y);
      int64_t d = (int64_t)((r >> 24) % 5) - 2;
      return (uint32_t)clamp64((int64_t)sq + d, 1, (int64_t)f_make(f, 0, ef, 0) - 1);
    }
    default: {
      uint32_t span = ef / 2 + 1 < ef - b / 2 ? ef / 2 + 1 : ef - b / 2;
      return f_make(f, s, b / 2 + sel % span, mraw);
    }
  }
}

static uint32_t gen_second(Gen& g, Fmt f, uint32_t a) {
  uint64_t r = g.next();
  uint32_t sel = (uint32_t)(r >> 8);
  uint32_t s = (uint32_t)((r >> 4) & 1);
  uint32_t ef = f_emaxf(f);
  uint32_t ea = exp_of(f, a);
  uint32_t width_mask = (f_sign(f) << 1) - 1;  // wraps to 0xffffffff for f32
  switch (r & 7) {
    case 2: case 3:
      if (ea != ef) {
        uint32_t e = (uint32_t)clamp64((int64_t)ea + (int64_t)(sel % 61) - 30, 0, (int64_t)ef - 1);
        return f_make(f, s, e, (uint32_t)(r >> 32));
      }
      return gen_fp(g, f);
    case 4: {
      int64_t d = (int64_t)(sel & 15) - 8;
      uint32_t v = (uint32_t)clamp64((int64_t)(a & (f_sign(f) - 1)) + d, 0, (int64_t)(f_sign(f) - 1));
      return v | (s << (f.man + f.exp));
    }
    case 5: return ((a & ~0xfffu & width_mask) | (sel & 0xfffu & width_mask)) ^ (s << (f.man + f.exp));
    case 6: {
      uint32_t q = f_make(f, s, f_bias(f) - 4 + sel % 9, ((uint32_t)(r >> 32)) & ~((1u << (f.man - 3)) - 1));
      uint32_t p = trunc_product(f, a, q, s, a);
      int64_t d = (int64_t)((r >> 40) % 3) - 1;
      return (uint32_t)clamp64((int64_t)p + d, 0, (int64_t)width_mask);
    }
    default: return gen_fp(g, f);
  }
}

static uint32_t gen_third(Gen& g, Fmt f, uint32_t a, uint32_t b) {
  uint64_t r = g.next();
  uint32_t sel = (uint32_t)(r >> 8);
  switch (r & 3) {
    case 1: case 2: {
      uint32_t neg = (((a ^ b) >> (f.man + f.exp)) & 1) ^ (((r >> 2) & 1) == 0 ? 1u : 0u);
      uint32_t fallback = gen_fp(g, f);
      uint32_t p = trunc_product(f, a, b, neg, fallback);
      int64_t d = (int64_t)(sel % 7) - 3;
      int64_t lim = (int64_t)(((uint64_t)f_sign(f)) << 1) - 1;
      return (uint32_t)clamp64((int64_t)p + d, 0, lim);
    }
    case 3: {
      int64_t ea = (int64_t)exp_of(f, a) + (int64_t)exp_of(f, b) - (int64_t)f_bias(f);
      uint32_t e = (uint32_t)clamp64(ea + (int64_t)(sel % 51) - 25, 0, (int64_t)f_emaxf(f) - 1);
      return f_make(f, (uint32_t)((r >> 2) & 1), e, (uint32_t)(r >> 32));
    }
    default: return gen_fp(g, f);
  }
}

static uint32_t gen_int(Gen& g) {
  uint64_t r = g.next();
  uint32_t sel = (uint32_t)(r >> 32);
  switch (r & 7) {
    case 2: return (uint32_t)((int32_t)(sel % 2001) - 1000);
    case 3: return (1u << (sel % 32)) + (uint32_t)((r >> 8) & 15) - 8u;
    case 4: {
      uint32_t x = ((uint32_t)(r >> 16)) >> (sel % 9);
      static const uint32_t lows[5] = {0x80, 0x7f, 0x81, 0x40, 0xc0};
      return (x & ~0xffu) | lows[(r >> 8) % 5];
    }
    case 5: return 0u - ((1u << (sel % 32)) + (uint32_t)((r >> 8) & 15) - 8u);
    case 6: { std::vector<uint32_t> sp = int_specials(); return sp[sel % sp.size()]; }
    default: return (uint32_t)(r >> 16);
  }
}

static Fmt fmt_of(int k) {
  switch (k) {
    case H1: case H2: case H3: return FMT_F16;
    case B1: case B2: case B3: return FMT_BF16;
    default: return FMT_F32;
  }
}

struct In3 { uint32_t a, b, c; };

static std::vector<In3> make_inputs(const char* name, int kind, bool fast) {
  std::vector<In3> v;
  Fmt f = fmt_of(kind);
  size_t n_gen = fast ? N_GENERATED_FAST : N_GENERATED;
  if (kind == H1 || kind == B1) {
    for (uint32_t x = 0; x < 65536; x++) v.push_back({x, 0, 0});
    return v;
  }
  if (kind == R1) {
    const int ks[9] = {0, -20, -1, 1, 20, 100, -100, 126, -126};
    for (int t = 0; t < 9; t++)
      for (uint32_t i = 0; i < 1024; i++) v.push_back({((uint32_t)(127 + ks[t]) << 23) | (i << 13), 0, 0});
    return v;
  }
  if (kind == I1 || kind == U1) {
    for (uint32_t x : int_specials()) v.push_back({x, 0, 0});
  } else {
    std::vector<uint32_t> sp = specials(f);
    int ar = arity(kind);
    if (ar == 1) for (uint32_t a : sp) v.push_back({a, 0, 0});
    else if (ar == 2) { for (uint32_t a : sp) for (uint32_t b : sp) v.push_back({a, b, 0}); }
    else {
      for (int i : TRIPLE_SUBSET) for (int j : TRIPLE_SUBSET) for (int k : TRIPLE_SUBSET)
        v.push_back({sp[i], sp[j], sp[k]});
    }
  }
  uint64_t seed = fnv1a(name);
  for (size_t j = 0; j < n_gen; j++) {
    Gen g = gen_at(seed, (uint64_t)j);
    if (kind == I1 || kind == U1) { v.push_back({gen_int(g), 0, 0}); continue; }
    uint32_t a = gen_fp(g, f);
    int ar = arity(kind);
    if (ar == 1) v.push_back({a, 0, 0});
    else if (ar == 2) {
      uint32_t b = gen_second(g, f, a);
      if ((g.next() & 1) == 0) v.push_back({a, b, 0}); else v.push_back({b, a, 0});
    } else {
      uint32_t b = gen_second(g, f, a);
      uint32_t c = gen_third(g, f, a, b);
      v.push_back({a, b, c});
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The ops. X(name, input kind, flags, device expression over uint32_t a, b, c -> uint32_t)
// Flags: EXH also sweep every input; FAST not bit-exact: store every result; TABLE store all.

enum { NONE = 0, EXH = 1, FAST = 2, TABLE = 4 };

#define MODES4(X, base, kind, flags, fn) \
  X(base##_rn, kind, flags, fn(rn)) X(base##_rz, kind, flags, fn(rz)) \
  X(base##_ru, kind, flags, fn(ru)) X(base##_rd, kind, flags, fn(rd))
#define PTXMODES4(X, base, kind, flags, fn) \
  X(base##_rn_ftz, kind, flags, fn(rn)) X(base##_rz_ftz, kind, flags, fn(rz)) \
  X(base##_ru_ftz, kind, flags, fn(rp)) X(base##_rd_ftz, kind, flags, fn(rm))

#define E_FADD(m) RF(__fadd_##m(FA, FB))
#define E_FSUB(m) RF(__fsub_##m(FA, FB))
#define E_FMUL(m) RF(__fmul_##m(FA, FB))
#define E_FDIV(m) RF(__fdiv_##m(FA, FB))
#define E_FMA(m) RF(__fmaf_##m(FA, FB, FC))
#define E_RCP(m) RF(__frcp_##m(FA))
#define E_SQRT(m) RF(__fsqrt_##m(FA))
#define E_ADDZ(m) RF(ptx_add_##m##_ftz(FA, FB))
#define E_SUBZ(m) RF(ptx_sub_##m##_ftz(FA, FB))
#define E_MULZ(m) RF(ptx_mul_##m##_ftz(FA, FB))
#define E_DIVZ(m) RF(ptx_div_##m##_ftz(FA, FB))
#define E_FMAZ(m) RF(ptx_fma_##m##_ftz(FA, FB, FC))
#define E_RCPZ(m) RF(ptx_rcp_##m##_ftz(FA))
#define E_SQRTZ(m) RF(ptx_sqrt_##m##_ftz(FA))
#define E_F2I(m) ((uint32_t)__float2int_##m(FA))
#define E_F2U(m) ((uint32_t)__float2uint_##m(FA))
#define E_I2F(m) RF(__int2float_##m((int)a))
#define E_U2F(m) RF(__uint2float_##m(a))
#define E_F2H(m) RH(__float2half_##m(FA))
#define E_F2B(m) RB(__float2bfloat16_##m(FA))

#define HALF_OPS(X, sfx, K2, K3, A, B, C, R) \
  X(hadd##sfx, K2, EXH, R(__hadd(A, B))) X(hsub##sfx, K2, EXH, R(__hsub(A, B))) \
  X(hmul##sfx, K2, EXH, R(__hmul(A, B))) X(hdiv##sfx, K2, EXH, R(__hdiv(A, B))) \
  X(hfma##sfx, K3, NONE, R(__hfma(A, B, C))) \
  X(hmin##sfx, K2, EXH, R(__hmin(A, B))) X(hmax##sfx, K2, EXH, R(__hmax(A, B))) \
  X(hmin_nan##sfx, K2, EXH, R(__hmin_nan(A, B))) X(hmax_nan##sfx, K2, EXH, R(__hmax_nan(A, B))) \
  X(heq##sfx, K2, EXH, RBOOL(__heq(A, B))) X(hne##sfx, K2, EXH, RBOOL(__hne(A, B))) \
  X(hlt##sfx, K2, EXH, RBOOL(__hlt(A, B))) X(hle##sfx, K2, EXH, RBOOL(__hle(A, B))) \
  X(hgt##sfx, K2, EXH, RBOOL(__hgt(A, B))) X(hge##sfx, K2, EXH, RBOOL(__hge(A, B))) \
  X(hequ##sfx, K2, EXH, RBOOL(__hequ(A, B))) X(hneu##sfx, K2, EXH, RBOOL(__hneu(A, B))) \
  X(hltu##sfx, K2, EXH, RBOOL(__hltu(A, B))) X(hleu##sfx, K2, EXH, RBOOL(__hleu(A, B))) \
  X(hgtu##sfx, K2, EXH, RBOOL(__hgtu(A, B))) X(hgeu##sfx, K2, EXH, RBOOL(__hgeu(A, B)))

#define OPS(X) \
  MODES4(X, fadd, F2, NONE, E_FADD) MODES4(X, fsub, F2, NONE, E_FSUB) \
  MODES4(X, fmul, F2, NONE, E_FMUL) MODES4(X, fdiv, F2, NONE, E_FDIV) \
  MODES4(X, fmaf, F3, NONE, E_FMA) MODES4(X, frcp, F1, EXH, E_RCP) MODES4(X, fsqrt, F1, EXH, E_SQRT) \
  X(frsqrt_rn, F1, EXH, RF(__frsqrt_rn(FA))) \
  PTXMODES4(X, fadd, F2, NONE, E_ADDZ) PTXMODES4(X, fsub, F2, NONE, E_SUBZ) \
  PTXMODES4(X, fmul, F2, NONE, E_MULZ) PTXMODES4(X, fdiv, F2, NONE, E_DIVZ) \
  PTXMODES4(X, fmaf, F3, NONE, E_FMAZ) PTXMODES4(X, frcp, F1, EXH, E_RCPZ) \
  PTXMODES4(X, fsqrt, F1, EXH, E_SQRTZ) \
  MODES4(X, float2int, F1, EXH, E_F2I) MODES4(X, float2uint, F1, EXH, E_F2U) \
  MODES4(X, int2float, I1, EXH, E_I2F) MODES4(X, uint2float, U1, EXH, E_U2F) \
  MODES4(X, float2half, F1, EXH, E_F2H) MODES4(X, float2bfloat16, F1, EXH, E_F2B) \
  X(half2float, H1, NONE, RF(__half2float(HA))) X(bfloat162float, B1, NONE, RF(__bfloat162float(BA))) \
  X(saturatef, F1, EXH, RF(__saturatef(FA))) \
  X(hneg, H1, NONE, RH(__hneg(HA))) X(habs, H1, NONE, RH(__habs(HA))) X(hisnan, H1, NONE, RBOOL(__hisnan(HA))) \
  X(hneg_bf16, B1, NONE, RB(__hneg(BA))) X(habs_bf16, B1, NONE, RB(__habs(BA))) \
  X(hisnan_bf16, B1, NONE, RBOOL(__hisnan(BA))) \
  HALF_OPS(X, , H2, H3, HA, HB, HC, RH) HALF_OPS(X, _bf16, B2, B3, BA, BB, BC, RB) \
  X(expf_fast, F1, FAST, RF(__expf(FA))) X(exp10f_fast, F1, FAST, RF(__exp10f(FA))) \
  X(logf_fast, F1, FAST, RF(__logf(FA))) X(log2f_fast, F1, FAST, RF(__log2f(FA))) \
  X(log10f_fast, F1, FAST, RF(__log10f(FA))) X(sinf_fast, F1, FAST, RF(__sinf(FA))) \
  X(cosf_fast, F1, FAST, RF(__cosf(FA))) X(tanf_fast, F1, FAST, RF(__tanf(FA))) \
  X(powf_fast, F2, FAST, RF(__powf(FA, FB))) X(fdividef, F2, FAST, RF(__fdividef(FA, FB))) \
  X(plain_add, F2, NONE, RF(FA + FB)) X(plain_sub, F2, NONE, RF(FA - FB)) \
  X(plain_mul, F2, NONE, RF(FA * FB)) X(plain_div, F2, NONE, RF(FA / FB)) \
  X(plain_sqrt, F1, EXH, RF(sqrtf(FA))) X(plain_fma, F3, NONE, RF(fmaf(FA, FB, FC))) \
  X(rcp_approx_ftz, R1, TABLE, RF(ptx_rcp_approx_ftz(FA)))

#define X_ENUM(name, kind, flags, expr) OP_##name,
enum { OPS(X_ENUM) N_OPS };
struct OpInfo { const char* name; int kind; int flags; };
#define X_INFO(name, kind, flags, expr) {#name, kind, flags},
static const OpInfo OP_INFO[] = { OPS(X_INFO) };

// ---------------------------------------------------------------------------------------------
// Output

static void put8(std::vector<uint8_t>& o, uint8_t x) { o.push_back(x); }
static void put32(std::vector<uint8_t>& o, uint32_t x) { for (int i = 0; i < 4; i++) o.push_back((uint8_t)(x >> (8 * i))); }
static void put64(std::vector<uint8_t>& o, uint64_t x) { for (int i = 0; i < 8; i++) o.push_back((uint8_t)(x >> (8 * i))); }

static void put_record(std::vector<uint8_t>& o, const OpInfo& op, int sweep, uint64_t count, uint64_t ihash,
                       uint32_t chunk_log2, const std::vector<uint64_t>& chunks, const uint32_t* full, uint32_t n_full) {
  size_t len = strlen(op.name);
  put8(o, (uint8_t)len);
  o.insert(o.end(), op.name, op.name + len);
  put8(o, (uint8_t)sweep); put8(o, (uint8_t)op.kind); put8(o, (uint8_t)op.flags);
  put64(o, count); put64(o, ihash); put32(o, chunk_log2);
  put32(o, (uint32_t)chunks.size());
  for (uint64_t h : chunks) put64(o, h);
  put32(o, n_full);
  for (uint32_t i = 0; i < n_full; i++) put32(o, full[i]);
}

static const uint32_t CORPUS_CHUNK_LOG2 = 12;
static const uint32_t N_FULL = 2048;

static uint64_t inputs_hash(const std::vector<In3>& in) {
  uint64_t h = 0;
  for (size_t i = 0; i < in.size(); i++) h += input_hash(i, in[i].a, in[i].b, in[i].c);
  return h;
}

// ---------------------------------------------------------------------------------------------
// Device side

#ifdef __CUDACC__

#define FA __uint_as_float(a)
#define FB __uint_as_float(b)
#define FC __uint_as_float(c)
#define RF(x) __float_as_uint(x)
#define HA __ushort_as_half((unsigned short)a)
#define HB __ushort_as_half((unsigned short)b)
#define HC __ushort_as_half((unsigned short)c)
#define RH(x) ((uint32_t)__half_as_ushort(x))
#define BA __ushort_as_bfloat16((unsigned short)a)
#define BB __ushort_as_bfloat16((unsigned short)b)
#define BC __ushort_as_bfloat16((unsigned short)c)
#define RB(x) ((uint32_t)__bfloat16_as_ushort(x))
#define RBOOL(x) ((x) ? 1u : 0u)

#define PTX2(op, m) \
  __device__ __forceinline__ float ptx_##op##_##m##_ftz(float x, float y) { \
    float r; asm(#op "." #m ".ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
#define PTX1(op, m) \
  __device__ __forceinline__ float ptx_##op##_##m##_ftz(float x) { \
    float r; asm(#op "." #m ".ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
#define PTX3(op, m) \
  __device__ __forceinline__ float ptx_##op##_##m##_ftz(float x, float y, float z) { \
    float r; asm(#op "." #m ".ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); return r; }
#define PTX_ALL(P, op) P(op, rn) P(op, rz) P(op, rp) P(op, rm)
PTX_ALL(PTX2, add) PTX_ALL(PTX2, sub) PTX_ALL(PTX2, mul) PTX_ALL(PTX2, div)
PTX_ALL(PTX3, fma) PTX_ALL(PTX1, rcp) PTX_ALL(PTX1, sqrt)

__device__ __forceinline__ float ptx_rcp_approx_ftz(float x) {
  float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r;
}

#define X_CASE(name, kind, flags, expr) case OP_##name: return expr;
__device__ __forceinline__ uint32_t eval(int op, uint32_t a, uint32_t b, uint32_t c) {
  switch (op) { OPS(X_CASE) default: return 0xdeadbeefu; }
}

__global__ void corpus_kernel(int op, const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = eval(op, A[i], B[i], C[i]);
}

__device__ __forceinline__ uint32_t fmix32(uint32_t h) {
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16; return h;
}

// Each thread covers 256 consecutive indices (inside one 2^24 chunk).
__global__ void exhaustive_kernel(int op, int two16, unsigned long long* chunk_hashes) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t start = t * 256;
  unsigned long long sum = 0;
  for (uint32_t k = 0; k < 256; k++) {
    uint32_t i = (uint32_t)(start + k);
    uint32_t a = two16 ? (i >> 16) : i;
    uint32_t b = two16 ? (i & 0xffffu) : 0u;
    uint32_t r = eval(op, a, b, 0);
    sum += fmix32(r + i * 0x9e3779b1u);
  }
  atomicAdd(&chunk_hashes[start >> 24], sum);
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

#endif  // __CUDACC__

static double now_s() { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }

int main(int argc, char** argv) {
  const char* outdir = NULL;
  bool inputs_only = false, exhaustive = true, full = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--inputs-only")) inputs_only = true;
    else if (!strcmp(argv[i], "--no-exhaustive")) exhaustive = false;
    else if (!strcmp(argv[i], "--full")) full = true;
    else outdir = argv[i];
  }
  if (inputs_only) {
    for (int op = 0; op < N_OPS; op++) {
      const OpInfo& o = OP_INFO[op];
      std::vector<In3> in = make_inputs(o.name, o.kind, (o.flags & FAST) != 0);
      printf("%s %d %zu %016llx\n", o.name, o.kind, in.size(), (unsigned long long)inputs_hash(in));
    }
    return 0;
  }
  if (!outdir) {
    fprintf(stderr, "usage: oracle OUTDIR [--no-exhaustive] [--full] | oracle --inputs-only\n");
    return 2;
  }
#ifndef __CUDACC__
  fprintf(stderr, "this build has no CUDA: only --inputs-only works (build with nvcc)\n");
  return 2;
#else
  mkdir(outdir, 0755);
  std::string fulldir = std::string(outdir) + "/full";
  if (full) mkdir(fulldir.c_str(), 0755);

  int dev = 0, rt = 0, drv = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  char meta[1024];
  snprintf(meta, sizeof meta, "gpu=%s sm=%d%d cuda_runtime=%d cuda_driver=%d nvcc=%d.%d.%d flags=-O3 -arch=sm_90",
           prop.name, prop.major, prop.minor, rt, drv, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__);
  printf("%s\n", meta);

  std::vector<uint8_t> out;
  const char magic[8] = {'F', 'P', 'O', 'R', 'A', 'C', 'L', '1'};
  out.insert(out.end(), magic, magic + 8);
  put32(out, (uint32_t)strlen(meta));
  out.insert(out.end(), meta, meta + strlen(meta));
  size_t n_records_at = out.size();
  put32(out, 0);
  uint32_t n_records = 0;

  double t0 = now_s();
  uint32_t *dA, *dB, *dC, *dO;
  size_t cap = 65536 + 1296 + N_GENERATED + 16;
  CK(cudaMalloc(&dA, cap * 4)); CK(cudaMalloc(&dB, cap * 4)); CK(cudaMalloc(&dC, cap * 4)); CK(cudaMalloc(&dO, cap * 4));
  for (int op = 0; op < N_OPS; op++) {
    const OpInfo& o = OP_INFO[op];
    std::vector<In3> in = make_inputs(o.name, o.kind, (o.flags & FAST) != 0);
    size_t n = in.size();
    std::vector<uint32_t> A(n), B(n), C(n), R(n);
    for (size_t i = 0; i < n; i++) { A[i] = in[i].a; B[i] = in[i].b; C[i] = in[i].c; }
    CK(cudaMemcpy(dA, A.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), n * 4, cudaMemcpyHostToDevice));
    corpus_kernel<<<(unsigned)((n + 255) / 256), 256>>>(op, dA, dB, dC, dO, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(R.data(), dO, n * 4, cudaMemcpyDeviceToHost));
    std::vector<uint64_t> chunks((n + (1u << CORPUS_CHUNK_LOG2) - 1) >> CORPUS_CHUNK_LOG2, 0);
    for (size_t i = 0; i < n; i++) chunks[i >> CORPUS_CHUNK_LOG2] += entry_hash(i, R[i]);
    uint32_t n_full = (o.flags & (FAST | TABLE)) ? (uint32_t)n : (uint32_t)(n < N_FULL ? n : N_FULL);
    put_record(out, o, 0, n, inputs_hash(in), CORPUS_CHUNK_LOG2, chunks, R.data(), n_full);
    n_records++;
    if (full) {
      std::string p = fulldir + "/" + o.name + ".bin";
      FILE* f = fopen(p.c_str(), "wb");
      if (f) { fwrite(R.data(), 4, n, f); fclose(f); }
    }
  }
  printf("corpus: %d ops in %.1f s\n", N_OPS, now_s() - t0);

  if (exhaustive) {
    unsigned long long* dH;
    CK(cudaMalloc(&dH, 256 * sizeof(unsigned long long)));
    for (int op = 0; op < N_OPS; op++) {
      const OpInfo& o = OP_INFO[op];
      if (!(o.flags & EXH)) continue;
      double t1 = now_s();
      CK(cudaMemset(dH, 0, 256 * sizeof(unsigned long long)));
      int two16 = (o.kind == H2 || o.kind == B2);
      // 2^32 indices, 256 per thread: 2^24 threads.
      exhaustive_kernel<<<(1u << 24) / 256, 256>>>(op, two16, dH);
      CK(cudaGetLastError());
      std::vector<uint64_t> h(256);
      CK(cudaMemcpy(h.data(), dH, 256 * 8, cudaMemcpyDeviceToHost));
      put_record(out, o, 1, 1ull << 32, 0, 24, h, NULL, 0);
      n_records++;
      printf("exhaustive %-20s %.2f s\n", o.name, now_s() - t1);
      fflush(stdout);
    }
  }
  for (int i = 0; i < 4; i++) out[n_records_at + i] = (uint8_t)(n_records >> (8 * i));
  std::string path = std::string(outdir) + "/fp_oracle.bin";
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) { perror(path.c_str()); return 1; }
  fwrite(out.data(), 1, out.size(), f);
  fclose(f);
  printf("wrote %s: %u records, %zu bytes, %.1f s\n", path.c_str(), n_records, out.size(), now_s() - t0);
  return 0;
#endif
}
