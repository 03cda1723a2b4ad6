// Probe 9: sm_80 warp reductions with partial masks, and __match_any_sync / __match_all_sync.
//   nvcc -arch=sm_90 -O2 -o p9_redux p9_redux.cu && ./p9_redux
// The lanes in the mask call the intrinsic; the others skip it. "." marks lanes that did not call.
#include "common.h"

__device__ __forceinline__ int val(int lane, int pattern, const int* in) {
  switch (pattern) {
    case 0: return ((lane * 37 + 11) % 100) - 50 + in[0];  // mixed signs
    case 1: return 7 + in[0];                              // all equal
    case 2: return (lane / 5) % 3 + in[0];                 // runs of 5, values 0,1,2
    default: return (lane < 16 ? 3 : lane) + in[0];        // equal in lanes 0-15 only
  }
}
// op: 0 add(int) 1 min(int) 2 max(int) 3 min(unsigned) 4 max(unsigned) 5 and 6 or 7 xor 8 add(unsigned)
__global__ void redux(const int* in, int* out, unsigned mask, int op, int pattern) {
  int lane = threadIdx.x & 31;
  int v = val(lane, pattern, in);
  int r = -1;
  if ((mask >> lane) & 1) {
    switch (op) {
      case 0: r = __reduce_add_sync(mask, v); break;
      case 1: r = __reduce_min_sync(mask, v); break;
      case 2: r = __reduce_max_sync(mask, v); break;
      case 3: r = (int)__reduce_min_sync(mask, (unsigned)v); break;
      case 4: r = (int)__reduce_max_sync(mask, (unsigned)v); break;
      case 5: r = (int)__reduce_and_sync(mask, (unsigned)v); break;
      case 6: r = (int)__reduce_or_sync(mask, (unsigned)v); break;
      case 7: r = (int)__reduce_xor_sync(mask, (unsigned)v); break;
      default: r = (int)__reduce_add_sync(mask, (unsigned)v); break;
    }
  }
  out[lane] = r;
}
// out[lane] = match_any result; out[32+lane] = match_all result; out[64+lane] = its pred;
// wide: the value is 64-bit (v << 33 | 1).
__global__ void match(const int* in, int* out, unsigned mask, int pattern, int wide) {
  int lane = threadIdx.x & 31;
  int v = val(lane, pattern, in);
  out[lane] = -1; out[32 + lane] = -1; out[64 + lane] = -1;
  if ((mask >> lane) & 1) {
    int pred = -1; unsigned a, b;
    if (wide) {
      unsigned long long w = ((unsigned long long)(unsigned)v << 33) | 1ull;
      a = __match_any_sync(mask, w); b = __match_all_sync(mask, w, &pred);
    } else {
      a = __match_any_sync(mask, v); b = __match_all_sync(mask, v, &pred);
    }
    out[lane] = (int)a; out[32 + lane] = (int)b; out[64 + lane] = pred;
  }
}

static int hval(int lane, int pattern) {
  switch (pattern) {
    case 0: return ((lane * 37 + 11) % 100) - 50;
    case 1: return 7;
    case 2: return (lane / 5) % 3;
    default: return lane < 16 ? 3 : lane;
  }
}

int main() {
  int *in, *out; CK(cudaMalloc(&in, 4)); CK(cudaMemset(in, 0, 4)); CK(cudaMalloc(&out, 96 * 4));
  unsigned masks[5] = {0xffffffffu, 0x0000ffffu, 0x55555555u, 0x80000001u, 0x00000100u};
  const char* opn[9] = {"add(int)", "min(int)", "max(int)", "min(unsigned)", "max(unsigned)", "and", "or", "xor", "add(unsigned)"};
  int h[96];
  printf("p9 values pattern 0 (lane: value):"); for (int l = 0; l < 32; l++) printf(" %d:%d", l, hval(l, 0)); printf("\n");
  int total_bad = 0;
  for (int mi = 0; mi < 5; mi++)
    for (int op = 0; op < 9; op++) {
      unsigned m = masks[mi];
      CK(cudaMemset(out, 0xff, 96 * 4));
      redux<<<1, 32>>>(in, out, m, op, 0);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h, out, 128, cudaMemcpyDeviceToHost));
      long long acc = 0; unsigned uacc = 0; bool first = true; int imin = 0, imax = 0; unsigned umin = 0, umax = 0;
      for (int l = 0; l < 32; l++) if ((m >> l) & 1) {
        int v = hval(l, 0); unsigned u = (unsigned)v;
        acc += v;
        if (first) { imin = imax = v; umin = umax = u; uacc = (op == 5) ? u : (op == 6 || op == 7) ? u : 0; first = false; }
        else { imin = v < imin ? v : imin; imax = v > imax ? v : imax; umin = u < umin ? u : umin; umax = u > umax ? u : umax;
               if (op == 5) uacc &= u; else if (op == 6) uacc |= u; else if (op == 7) uacc ^= u; }
      }
      int expect = op == 0 || op == 8 ? (int)acc : op == 1 ? imin : op == 2 ? imax : op == 3 ? (int)umin : op == 4 ? (int)umax : (int)uacc;
      int bad = 0; for (int l = 0; l < 32; l++) if ((m >> l) & 1 && h[l] != expect) bad++;
      total_bad += bad;
      char name[96]; snprintf(name, sizeof name, "p9 __reduce_%s_sync mask 0x%08x expect %d (%s)", opn[op], m, expect, bad ? "MISMATCH" : "match");
      print_lanes(name, h, 32);
    }
  printf("p9 reductions: %d lanes differ from the CPU\n", total_bad);
  unsigned mm[3] = {0xffffffffu, 0x0000ffffu, 0xaaaaaaaau};
  for (int pattern = 1; pattern <= 3; pattern++)
    for (int mi = 0; mi < 3; mi++)
      for (int wide = 0; wide <= 1; wide++) {
        CK(cudaMemset(out, 0xff, 96 * 4));
        match<<<1, 32>>>(in, out, mm[mi], pattern, wide);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, out, 96 * 4, cudaMemcpyDeviceToHost));
        printf("p9 match pattern %d mask 0x%08x %s-bit: any:", pattern, mm[mi], wide ? "64" : "32");
        for (int l = 0; l < 32; l++) { if (!((mm[mi] >> l) & 1)) printf(" ."); else printf(" %08x", (unsigned)h[l]); }
        printf(" | all:");
        for (int l = 0; l < 32; l++) { if (!((mm[mi] >> l) & 1)) printf(" ."); else printf(" %08x/%d", (unsigned)h[32 + l], h[64 + l]); }
        // CPU reference
        int bad = 0;
        for (int l = 0; l < 32; l++) if ((mm[mi] >> l) & 1) {
          unsigned any = 0; bool alleq = true;
          for (int k = 0; k < 32; k++) if ((mm[mi] >> k) & 1) { if (hval(k, pattern) == hval(l, pattern)) any |= 1u << k; else alleq = false; }
          unsigned all = alleq ? mm[mi] : 0;
          if ((unsigned)h[l] != any || (unsigned)h[32 + l] != all || h[64 + l] != (alleq ? 1 : 0)) bad++;
        }
        printf(" | vs CPU (any = lanes in mask with equal value; all = mask and pred 1 if all equal, else 0 and 0): %d lanes differ\n", bad);
      }
  return 0;
}
