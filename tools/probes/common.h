// Shared helpers for the deviceemu behaviour probes (tools/probes). CUDA C++, nvcc -arch=sm_90.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf("FATAL %s (%d: %s) at %s:%d\n", #x, (int)e_, cudaGetErrorName(e_), __FILE__, __LINE__); \
  fflush(stdout); exit(1); } } while (0)

static inline const char* en(cudaError_t e) { return cudaGetErrorName(e); }

// Prints "name: v0 v1 ... " for n ints, with "." for the value -1 (lane did not write).
static inline void print_lanes(const char* name, const int* v, int n) {
  printf("%s:", name);
  for (int i = 0; i < n; i++) { if (v[i] == -1) printf(" ."); else printf(" %d", v[i]); }
  printf("\n");
}
