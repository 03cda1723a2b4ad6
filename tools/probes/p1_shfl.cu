// Probe 1: warp shuffles whose source lane does not take part, and the width argument.
//   nvcc -arch=sm_90 -O2 -o p1_shfl p1_shfl.cu && ./p1_shfl [a|all]
// Output lines: "p1<case> <variant>: lane values" with "." for lanes that wrote nothing.
#include "common.h"

// in[0] is 0 at run time, so that values are not compile-time constants.
// (a) the shuffle is called by lanes 0-7 only; mode 0: block of 8 threads (lanes 8-31 do not
// exist); mode 1: block of 32, lanes 8-31 return before; mode 2: block of 32, lanes 8-31 skip the
// call and go on (write -1 later); the value 1000+lane is computed by every lane before the branch.
__global__ void p1a(const int* in, int* out, int mode) {
  int lane = threadIdx.x & 31;
  int v = 1000 + lane + in[0];
  if (mode == 1 && lane >= 8) return;
  int r = -1;
  if (lane < 8) r = __shfl_down_sync(0xff, v, 16);
  out[lane] = r;
}

// (c) source lane outside the mask. op: 0 idx (src lane+16, mask 0xffff), 1 up (delta 16, mask
// 0xffff0000: lanes 16-31 read 0-15), 2 down (delta 16, mask 0xffff), 3 xor (16, mask 0xffff).
// other: 0 the other half skips and goes on, 1 the other half has returned, 2 the other half
// calls the same shuffle with the complementary mask and value 2000+lane.
template <typename T>
__device__ __forceinline__ T do_shfl(int op, unsigned mask, T v, int lane) {
  switch (op) {
    case 0: return __shfl_sync(mask, v, (lane + 16) & 31);
    case 1: return __shfl_up_sync(mask, v, 16);
    case 2: return __shfl_down_sync(mask, v, 16);
    default: return __shfl_xor_sync(mask, v, 16);
  }
}
template <typename T>
__global__ void p1c(const int* in, long long* out, int op, int other) {
  int lane = threadIdx.x & 31;
  unsigned mask = (op == 1) ? 0xffff0000u : 0x0000ffffu;
  bool mine = (mask >> lane) & 1;
  T v = (sizeof(T) == 8) ? (T)(((long long)(7000 + lane + in[0]) << 32) | (long long)(1000 + lane))
                         : (T)(1000 + lane + in[0]);
  if (other == 1 && !mine) return;
  long long r = -1;
  if (mine) {
    r = (long long)do_shfl<T>(op, mask, v, lane);
  } else if (other == 2) {
    T w = (sizeof(T) == 8) ? (T)(((long long)(9000 + lane + in[0]) << 32) | (long long)(2000 + lane))
                           : (T)(2000 + lane + in[0]);
    r = (long long)do_shfl<T>(op, ~mask, w, lane);
  }
  out[lane] = r;
}

// (d) width, all 32 lanes, full mask. which: 0 down(1,w) 1 down(4,w) 2 up(1,w) 3 idx(3,w)
// 4 idx(10,w) 5 xor(1,w) 6 xor(8,w) 7 xor(16,w) 8 idx(lane-1 mod 32 i.e. crossing, w)
__global__ void p1d(const int* in, int* out, int which, int w) {
  int lane = threadIdx.x & 31;
  int v = 1000 + lane + in[0];
  int r;
  switch (which) {
    case 0: r = __shfl_down_sync(0xffffffff, v, 1, w); break;
    case 1: r = __shfl_down_sync(0xffffffff, v, 4, w); break;
    case 2: r = __shfl_up_sync(0xffffffff, v, 1, w); break;
    case 3: r = __shfl_sync(0xffffffff, v, 3, w); break;
    case 4: r = __shfl_sync(0xffffffff, v, 10, w); break;
    case 5: r = __shfl_xor_sync(0xffffffff, v, 1, w); break;
    case 6: r = __shfl_xor_sync(0xffffffff, v, 8, w); break;
    case 7: r = __shfl_xor_sync(0xffffffff, v, 16, w); break;
    default: r = __shfl_sync(0xffffffff, v, (lane + 31) & 31, w); break;
  }
  out[lane] = r;
}

int main(int argc, char** argv) {
  bool only_a = argc > 1 && strcmp(argv[1], "a") == 0;
  int *in, *out; long long* out64;
  CK(cudaMalloc(&in, 4)); CK(cudaMemset(in, 0, 4));
  CK(cudaMalloc(&out, 32 * 4)); CK(cudaMalloc(&out64, 32 * 8));
  int h[32]; long long h64[32]; char name[128];
  const char* amodes[3] = {"block-of-8", "lanes8-31-returned", "lanes8-31-skip-and-continue"};
  for (int mode = 0; mode < 3; mode++) {
    CK(cudaMemset(out, 0xff, 32 * 4));
    p1a<<<1, mode == 0 ? 8 : 32>>>(in, out, mode);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, out, 32 * 4, cudaMemcpyDeviceToHost));
    snprintf(name, sizeof name, "p1a shfl_down_sync(0xff,1000+lane,16) %s", amodes[mode]);
    print_lanes(name, h, mode == 0 ? 8 : 32);
    if (only_a) break;
  }
  if (only_a) return 0;
  const char* ops[4] = {"idx(src=lane+16,mask=0xffff)", "up(16,mask=0xffff0000)", "down(16,mask=0xffff)", "xor(16,mask=0xffff)"};
  const char* others[3] = {"others-skip", "others-returned", "others-call-complement-mask"};
  for (int bits = 32; bits <= 64; bits += 32)
    for (int op = 0; op < 4; op++)
      for (int other = 0; other < 3; other++) {
        CK(cudaMemset(out64, 0xff, 32 * 8));
        if (bits == 32) p1c<int><<<1, 32>>>(in, out64, op, other);
        else p1c<long long><<<1, 32>>>(in, out64, op, other);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h64, out64, 32 * 8, cudaMemcpyDeviceToHost));
        printf("p1c %s %d-bit %s:", ops[op], bits, others[other]);
        for (int i = 0; i < 32; i++) {
          if (h64[i] == -1) printf(" .");
          else if (bits == 32) printf(" %d", (int)h64[i]);
          else printf(" %lld:%lld", (long long)(h64[i] >> 32), (long long)(unsigned)(h64[i] & 0xffffffff));
        }
        printf("\n");
      }
  const char* ws[9] = {"down(1)", "down(4)", "up(1)", "idx(3)", "idx(10)", "xor(1)", "xor(8)", "xor(16)", "idx(lane-1)"};
  int widths[3] = {8, 16, 32};
  for (int which = 0; which < 9; which++)
    for (int wi = 0; wi < 3; wi++) {
      p1d<<<1, 32>>>(in, out, which, widths[wi]);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h, out, 32 * 4, cudaMemcpyDeviceToHost));
      snprintf(name, sizeof name, "p1d %s width=%d (value 1000+lane)", ws[which], widths[wi]);
      print_lanes(name, h, 32);
    }
  return 0;
}
