//! PolyBench/GPU's CUDA versions (github.com/sgrauerg/polybenchGpu, commit
//! 5584aaa7d0be810ff5eb0b61c49fb64ecc81ba4c), for contrast: none of its CUDA kernels has a
//! barrier (each is one thread per output element over global memory). gemm, 2DConvolution and
//! jacobi2D's first kernel, with blocks of DIM_THREAD_BLOCK_X x DIM_THREAD_BLOCK_Y = 32 x 8
//! threads. The array extents (NI, NJ, NK, N) are compile-time constants of the originals'
//! headers; these ports fix them to sizes the benchmark can time, and the test passes smaller
//! loop bounds (ni, nj, nk, n: `_PB_NI` and the others) over the same layout.
use deviceemu::prelude::*;

use super::{same_f32, Case, Entry, Rng, Size};

pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "polybench_gemm",
            suite: "PolyBench/GPU",
            original: "CUDA/GEMM/gemm.cu: gemm_kernel",
            barriers: false,
            make: Gemm::make,
        },
        Entry {
            name: "polybench_conv2d",
            suite: "PolyBench/GPU",
            original: "CUDA/2DCONV/2DConvolution.cu: convolution2D_kernel",
            barriers: false,
            make: Conv2d::make,
        },
        Entry {
            name: "polybench_jacobi2d",
            suite: "PolyBench/GPU",
            original: "CUDA/JACOBI2D/jacobi2D.cu: runJacobiCUDA_kernel1",
            barriers: false,
            make: Jacobi2d::make,
        },
    ]
}

const DIM_THREAD_BLOCK_X: u32 = 32;
const DIM_THREAD_BLOCK_Y: u32 = 8;

// ---------------------------------------------------------------------------------------------
// CUDA/GEMM/gemm.cu: gemm_kernel (ALPHA 32412, BETA 2123).

const NI: i32 = 128;
const NJ: i32 = 128;
const NK: i32 = 128;
const ALPHA: f32 = 32412.0f32;
const BETA: f32 = 2123.0f32;

#[kernel]
pub fn polybench_gemm(ni: i32, nj: i32, nk: i32, alpha: f32, beta: f32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;

    if (i < ni) && (j < nj) {
        c[i * NJ + j] *= beta;
        for k in 0..nk {
            c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ + j];
        }
    }
}

struct Gemm {
    a: Vec<f32>,
    b: Vec<f32>,
    c0: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    dc: DeviceBuffer<f32>,
    bounds: (i32, i32, i32),
    want: Vec<f32>,
}

impl Gemm {
    fn make(size: Size) -> Box<dyn Case> {
        let bounds = match size {
            Size::Test => (64, 64, 32),
            Size::Bench => (NI, NJ, NK),
        };
        let mut r = Rng::new(60);
        let (a, b, c0) = (r.f32s((NI * NK) as usize), r.f32s((NK * NJ) as usize), r.f32s((NI * NJ) as usize));
        Box::new(Gemm {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::from_slice(&b).unwrap(),
            dc: DeviceBuffer::from_slice(&c0).unwrap(),
            want: c0.clone(),
            a,
            b,
            c0,
            bounds,
        })
    }
}

impl Case for Gemm {
    fn launch(&mut self) {
        // C is updated in place: start from the same C each time.
        self.dc.copy_from_slice(&self.c0).unwrap();
        let grid = ((NI as u32).div_ceil(DIM_THREAD_BLOCK_X), (NJ as u32).div_ceil(DIM_THREAD_BLOCK_Y));
        let (ni, nj, nk) = self.bounds;
        launch!(polybench_gemm<<<grid, (DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(ni, nj, nk, ALPHA, BETA, &self.da, &self.db, &mut self.dc)).unwrap();
    }
    fn serial(&mut self) {
        self.want.copy_from_slice(&self.c0);
        let (ni, nj, nk) = self.bounds;
        let (a, b, c) = (&self.a, &self.b, &mut self.want);
        for i in 0..ni {
            for j in 0..nj {
                c[(i * NJ + j) as usize] *= BETA;
                for k in 0..nk {
                    c[(i * NJ + j) as usize] += ALPHA * a[(i * NK + k) as usize] * b[(k * NJ + j) as usize];
                }
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("C", &self.dc.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// CUDA/2DCONV/2DConvolution.cu: convolution2D_kernel.

const CONV_NI: i32 = 512;
const CONV_NJ: i32 = 512;

#[kernel]
pub fn polybench_conv2d(ni: i32, nj: i32, A: &[f32], B: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;

    let (c11, c12, c13, c21, c22, c23, c31, c32, c33): (f32, f32, f32, f32, f32, f32, f32, f32, f32);

    c11 = 0.2;
    c21 = 0.5;
    c31 = -0.8;
    c12 = -0.3;
    c22 = 0.6;
    c32 = -0.9;
    c13 = 0.4;
    c23 = 0.7;
    c33 = 0.10;

    if (i < ni - 1) && (j < nj - 1) && (i > 0) && (j > 0) {
        B[i * CONV_NJ + j] = c11 * A[(i - 1) * CONV_NJ + (j - 1)]
            + c21 * A[(i - 1) * CONV_NJ + (j + 0)]
            + c31 * A[(i - 1) * CONV_NJ + (j + 1)]
            + c12 * A[(i + 0) * CONV_NJ + (j - 1)]
            + c22 * A[(i + 0) * CONV_NJ + (j + 0)]
            + c32 * A[(i + 0) * CONV_NJ + (j + 1)]
            + c13 * A[(i + 1) * CONV_NJ + (j - 1)]
            + c23 * A[(i + 1) * CONV_NJ + (j + 0)]
            + c33 * A[(i + 1) * CONV_NJ + (j + 1)];
    }
}

struct Conv2d {
    a: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    bounds: (i32, i32),
    want: Vec<f32>,
}

impl Conv2d {
    fn make(size: Size) -> Box<dyn Case> {
        let bounds = match size {
            Size::Test => (128, 256),
            Size::Bench => (CONV_NI, CONV_NJ),
        };
        let a = Rng::new(61).f32s((CONV_NI * CONV_NJ) as usize);
        Box::new(Conv2d {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::zeroed(a.len()).unwrap(),
            want: vec![0.0; a.len()],
            a,
            bounds,
        })
    }
}

impl Case for Conv2d {
    fn launch(&mut self) {
        let grid = ((CONV_NI as u32).div_ceil(DIM_THREAD_BLOCK_X), (CONV_NJ as u32).div_ceil(DIM_THREAD_BLOCK_Y));
        let (ni, nj) = self.bounds;
        launch!(polybench_conv2d<<<grid, (DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(ni, nj, &self.da, &mut self.db))
            .unwrap();
    }
    fn serial(&mut self) {
        let (ni, nj) = self.bounds;
        let (c11, c21, c31, c12, c22, c32, c13, c23, c33) =
            (0.2f32, 0.5f32, -0.8f32, -0.3f32, 0.6f32, -0.9f32, 0.4f32, 0.7f32, 0.10f32);
        let a = |i: i32, j: i32| self.a[(i * CONV_NJ + j) as usize];
        for i in 1..ni - 1 {
            for j in 1..nj - 1 {
                self.want[(i * CONV_NJ + j) as usize] = c11 * a(i - 1, j - 1)
                    + c21 * a(i - 1, j)
                    + c31 * a(i - 1, j + 1)
                    + c12 * a(i, j - 1)
                    + c22 * a(i, j)
                    + c32 * a(i, j + 1)
                    + c13 * a(i + 1, j - 1)
                    + c23 * a(i + 1, j)
                    + c33 * a(i + 1, j + 1);
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("B", &self.db.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// CUDA/JACOBI2D/jacobi2D.cu: runJacobiCUDA_kernel1 (N 1000, the original's standard dataset).

const N: i32 = 1000;

#[kernel]
pub fn polybench_jacobi2d(n: i32, A: &[f32], B: &mut [f32]) {
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;

    if (i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)) {
        B[i * N + j] =
            0.2f32 * (A[i * N + j] + A[i * N + (j - 1)] + A[i * N + (1 + j)] + A[(1 + i) * N + j] + A[(i - 1) * N + j]);
    }
}

struct Jacobi2d {
    a: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    n: i32,
    want: Vec<f32>,
}

impl Jacobi2d {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 100,
            Size::Bench => N,
        };
        let a = Rng::new(62).f32s((N * N) as usize);
        Box::new(Jacobi2d {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::zeroed(a.len()).unwrap(),
            want: vec![0.0; a.len()],
            a,
            n,
        })
    }
}

impl Case for Jacobi2d {
    fn launch(&mut self) {
        let grid = ((N as u32).div_ceil(DIM_THREAD_BLOCK_X), (N as u32).div_ceil(DIM_THREAD_BLOCK_Y));
        launch!(polybench_jacobi2d<<<grid, (DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y)>>>(self.n, &self.da, &mut self.db))
            .unwrap();
    }
    fn serial(&mut self) {
        let a = |i: i32, j: i32| self.a[(i * N + j) as usize];
        for i in 1..self.n - 1 {
            for j in 1..self.n - 1 {
                self.want[(i * N + j) as usize] =
                    0.2f32 * (a(i, j) + a(i, j - 1) + a(i, 1 + j) + a(1 + i, j) + a(i - 1, j));
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("B", &self.db.to_vec().unwrap(), &self.want)
    }
}
