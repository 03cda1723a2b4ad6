//! Parboil (github.com/abduld/Parboil, commit a4c63da28f45699e9a274cbc49af3e067162aa2b), the
//! optimised `cuda` versions: sgemm, stencil, histo (prescan and main kernels), and mri-q for
//! contrast.
use deviceemu::math::{cosf, sinf, sqrtf};
use deviceemu::prelude::*;

use super::vec::Uchar4;
use super::{same, same_f32, Case, Entry, Rng, Size};

pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "parboil_sgemm",
            suite: "Parboil",
            original: "sgemm/src/cuda/sgemm_kernel.cu: mysgemmNT",
            barriers: true,
            make: Sgemm::make,
        },
        Entry {
            name: "parboil_stencil",
            suite: "Parboil",
            original: "stencil/src/cuda/kernels.cu: block2D_hybrid_coarsen_x",
            barriers: true,
            make: Stencil::make,
        },
        Entry {
            name: "parboil_histo_prescan",
            suite: "Parboil",
            original: "histo/src/cuda/histo_prescan.cu: histo_prescan_kernel",
            barriers: true,
            make: HistoPrescan::make,
        },
        Entry {
            name: "parboil_histo_main",
            suite: "Parboil",
            original: "histo/src/cuda/histo_main.cu: histo_main_kernel",
            barriers: true,
            make: HistoMain::make,
        },
        Entry {
            name: "parboil_mri_q",
            suite: "Parboil",
            original: "mri-q/src/cuda/computeQ.cu: ComputeQ_GPU",
            barriers: false,
            make: MriQ::make,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// benchmarks/sgemm/src/cuda/sgemm_kernel.cu: mysgemmNT (regtileSgemm launches a grid of
// (m / TILE_M, n / TILE_N) blocks of (TILE_N, TILE_TB_HEIGHT) threads; main.cu passes alpha 1
// and beta 0).

// Parameters of tile sizes
const TILE_N: i32 = 16;
const TILE_TB_HEIGHT: i32 = 8;
const TILE_M: i32 = TILE_N * TILE_TB_HEIGHT;

#[kernel]
pub fn parboil_sgemm(A: &[f32], lda: i32, B: &[f32], ldb: i32, C: &mut [f32], ldc: i32, k: i32, alpha: f32, beta: f32) {
    // Partial results
    let mut c = [0.0f32; TILE_N as usize];
    for i in 0..TILE_N {
        c[i as usize] = 0.0f32;
    }
    let mid: i32 = (thread_idx().y * block_dim().x + thread_idx().x) as i32; //flattened id
    let m: i32 = block_idx().x as i32 * TILE_M + mid;
    let n: i32 = block_idx().y as i32 * TILE_N + thread_idx().x as i32;
    let b_s = shared_array![[f32; TILE_N as usize]; TILE_TB_HEIGHT as usize];
    for i in (0..k).step_by(TILE_TB_HEIGHT as usize) {
        let mut a: f32;
        b_s[thread_idx().y][thread_idx().x] = B[n + (i + thread_idx().y as i32) * ldb];
        sync_threads();
        for j in 0..TILE_TB_HEIGHT {
            a = A[m + (i + j) * lda];
            for kk in 0..TILE_N {
                c[kk as usize] += a * b_s[j][kk];
            }
        }
        sync_threads();
    }
    let t: i32 = ldc * block_idx().y as i32 * TILE_N + m;
    for i in 0..TILE_N {
        C[t + i * ldc] = C[t + i * ldc] * beta + alpha * c[i as usize];
    }
}

struct Sgemm {
    a: Vec<f32>,
    b: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    dc: DeviceBuffer<f32>,
    m: usize,
    n: usize,
    k: usize,
    want: Vec<f32>,
}

impl Sgemm {
    fn make(size: Size) -> Box<dyn Case> {
        let (m, n, k) = match size {
            Size::Test => (256, 64, 64),
            Size::Bench => (256, 128, 128),
        };
        let mut r = Rng::new(20);
        // A is m x k column-major (lda = m); B is k x n stored transposed (ldb = n).
        let (a, b) = (r.f32s(m * k), r.f32s(k * n));
        Box::new(Sgemm {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::from_slice(&b).unwrap(),
            dc: DeviceBuffer::zeroed(m * n).unwrap(),
            want: vec![0.0; m * n],
            a,
            b,
            m,
            n,
            k,
        })
    }
}

impl Case for Sgemm {
    fn launch(&mut self) {
        let (m, n, k) = (self.m as i32, self.n as i32, self.k as i32);
        let grid = ((m / TILE_M) as u32, (n / TILE_N) as u32);
        launch!(parboil_sgemm<<<grid, (TILE_N as u32, TILE_TB_HEIGHT as u32)>>>(&self.da, m, &self.db, n, &mut self.dc, m, k, 1.0, 0.0)).unwrap();
    }
    fn serial(&mut self) {
        let (m, n, k) = (self.m, self.n, self.k);
        for col in 0..n {
            for row in 0..m {
                let mut c = 0.0f32;
                for i in 0..k {
                    c += self.a[row + i * m] * self.b[col + i * n];
                }
                let t = row + col * m;
                self.want[t] = 0.0 * 0.0 + 1.0 * c;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("C", &self.dc.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// benchmarks/stencil/src/cuda/kernels.cu: block2D_hybrid_coarsen_x, and the Index3D macro of
// common.h (main.cu: blocks of 32 x 4 threads, each thread two points along x, a grid of
// ((nx + 63) / 64, (ny + 3) / 4), 2 * 32 * 4 floats of dynamic shared memory; d_Anext starts as
// a copy of d_A0).

macro_rules! Index3D {
    ($nx:expr, $ny:expr, $i:expr, $j:expr, $k:expr) => {
        (($i) + $nx * (($j) + $ny * ($k)))
    };
}

#[kernel]
pub fn parboil_stencil(c0: f32, c1: f32, A0: &[f32], Anext: &mut [f32], nx: i32, ny: i32, nz: i32) {
    //thread coarsening along x direction
    let i: i32 = (block_idx().x * block_dim().x * 2 + thread_idx().x) as i32;
    let i2: i32 = (block_idx().x * block_dim().x * 2 + thread_idx().x + block_dim().x) as i32;
    let j: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    let sh_id: i32 = (thread_idx().x + thread_idx().y * block_dim().x * 2) as i32;
    let sh_id2: i32 = (thread_idx().x + block_dim().x + thread_idx().y * block_dim().x * 2) as i32;

    //shared memeory
    let sh_A0 = dynamic_shared::<f32>();
    sh_A0[sh_id] = 0.0f32;
    sh_A0[sh_id2] = 0.0f32;
    sync_threads();

    //get available region for load and store
    let w_region: bool = i > 0 && j > 0 && (i < (nx - 1)) && (j < (ny - 1));
    let w_region2: bool = j > 0 && (i2 < nx - 1) && (j < ny - 1);
    let x_l_bound: bool = thread_idx().x == 0;
    let x_h_bound: bool = (thread_idx().x + block_dim().x) == (block_dim().x * 2 - 1);
    let y_l_bound: bool = thread_idx().y == 0;
    let y_h_bound: bool = thread_idx().y == (block_dim().y - 1);

    //register for bottom and top planes
    //because of thread coarsening, we need to doulbe registers
    let (mut bottom, mut bottom2, mut top, mut top2): (f32, f32, f32, f32) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);

    //load data for bottom and current
    if (i < nx) && (j < ny) {
        bottom = A0[Index3D!(nx, ny, i, j, 0)];
        sh_A0[sh_id] = A0[Index3D!(nx, ny, i, j, 1)];
    }
    if (i2 < nx) && (j < ny) {
        bottom2 = A0[Index3D!(nx, ny, i2, j, 0)];
        sh_A0[sh_id2] = A0[Index3D!(nx, ny, i2, j, 1)];
    }

    sync_threads();

    for k in 1..nz - 1 {
        let mut a_left_right: f32;
        let mut a_up: f32;
        let mut a_down: f32;

        //load required data on xy planes
        //if it on shared memory, load from shared memory
        //if not, load from global memory
        if (i < nx) && (j < ny) {
            top = A0[Index3D!(nx, ny, i, j, k + 1)];
        }

        if w_region {
            a_up = if y_h_bound { A0[Index3D!(nx, ny, i, j + 1, k)] } else { sh_A0[sh_id + 2 * block_dim().x as i32] };
            a_down =
                if y_l_bound { A0[Index3D!(nx, ny, i, j - 1, k)] } else { sh_A0[sh_id - 2 * block_dim().x as i32] };
            a_left_right = if x_l_bound { A0[Index3D!(nx, ny, i - 1, j, k)] } else { sh_A0[sh_id - 1] };

            Anext[Index3D!(nx, ny, i, j, k)] =
                (top + bottom + a_up + a_down + sh_A0[sh_id + 1] + a_left_right) * c1 - sh_A0[sh_id] * c0;
        }

        //load another block
        if (i2 < nx) && (j < ny) {
            top2 = A0[Index3D!(nx, ny, i2, j, k + 1)];
        }

        if w_region2 {
            a_up =
                if y_h_bound { A0[Index3D!(nx, ny, i2, j + 1, k)] } else { sh_A0[sh_id2 + 2 * block_dim().x as i32] };
            a_down =
                if y_l_bound { A0[Index3D!(nx, ny, i2, j - 1, k)] } else { sh_A0[sh_id2 - 2 * block_dim().x as i32] };
            a_left_right = if x_h_bound { A0[Index3D!(nx, ny, i2 + 1, j, k)] } else { sh_A0[sh_id2 + 1] };

            Anext[Index3D!(nx, ny, i2, j, k)] =
                (top2 + bottom2 + a_up + a_down + a_left_right + sh_A0[sh_id2 - 1]) * c1 - sh_A0[sh_id2] * c0;
        }

        //swap data
        sync_threads();
        bottom = sh_A0[sh_id];
        sh_A0[sh_id] = top;
        bottom2 = sh_A0[sh_id2];
        sh_A0[sh_id2] = top2;
        sync_threads();
    }
}

struct Stencil {
    a0: Vec<f32>,
    da0: DeviceBuffer<f32>,
    dnext: DeviceBuffer<f32>,
    dims: (usize, usize, usize),
    want: Vec<f32>,
}

const STENCIL_C: (f32, f32) = (1.0 / 6.0, 1.0 / 6.0 / 6.0);

impl Stencil {
    fn make(size: Size) -> Box<dyn Case> {
        let dims = match size {
            Size::Test => (64, 16, 8),
            Size::Bench => (128, 128, 32),
        };
        let a0 = Rng::new(21).f32s(dims.0 * dims.1 * dims.2);
        Box::new(Stencil {
            da0: DeviceBuffer::from_slice(&a0).unwrap(),
            dnext: DeviceBuffer::from_slice(&a0).unwrap(),
            want: a0.clone(),
            a0,
            dims,
        })
    }
}

impl Case for Stencil {
    fn launch(&mut self) {
        let (nx, ny, nz) = (self.dims.0 as i32, self.dims.1 as i32, self.dims.2 as i32);
        let (tx, ty) = (32u32, 4u32);
        let grid = ((nx as u32).div_ceil(tx * 2), (ny as u32).div_ceil(ty));
        launch!(parboil_stencil<<<grid, (tx, ty, 1), (tx * 2 * ty) as usize * 4>>>(STENCIL_C.0, STENCIL_C.1, &self.da0, &mut self.dnext, nx, ny, nz)).unwrap();
    }
    fn serial(&mut self) {
        let (nx, ny, nz) = self.dims;
        let (c0, c1) = STENCIL_C;
        let a = &self.a0;
        let at = |i: usize, j: usize, k: usize| a[i + nx * (j + ny * k)];
        for k in 1..nz - 1 {
            for j in 1..ny - 1 {
                for i in 1..nx - 1 {
                    let sum = at(i, j, k + 1)
                        + at(i, j, k - 1)
                        + at(i, j + 1, k)
                        + at(i, j - 1, k)
                        + at(i + 1, j, k)
                        + at(i - 1, j, k);
                    self.want[i + nx * (j + ny * k)] = sum * c1 - at(i, j, k) * c0;
                }
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("Anext", &self.dnext.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// benchmarks/histo/src/cuda/histo_prescan.cu: histo_prescan_kernel, with util.h's constants
// (main.cu: PRESCAN_BLOCKS_X blocks of PRESCAN_THREADS threads; minmax starts as
// {UINT32_MAX, 0}).

const KB: u32 = 24;
const BINS_PER_BLOCK: u32 = KB * 1024;
const BLOCK_X: u32 = 14;
const PRESCAN_THREADS: u32 = 512;
const PRESCAN_BLOCKS_X: u32 = 64;
const THREADS: u32 = 768;

#[kernel]
pub fn parboil_histo_prescan(input: &[u32], size: i32, minmax: &mut [u32]) {
    let Avg = shared_array![f32; PRESCAN_THREADS as usize];
    let StdDev = shared_array![f32; PRESCAN_THREADS as usize];

    let stride: i32 = size / grid_dim().x as i32;
    let mut addr: i32 = block_idx().x as i32 * stride + thread_idx().x as i32;
    let end: i32 = block_idx().x as i32 * stride + stride / 8; // Only sample 1/8th of the input data

    // Compute the average per thread
    let mut avg: f32 = 0.0;
    let mut count: u32 = 0;
    while addr < end {
        avg += input[addr] as f32;
        count += 1;
        addr += block_dim().x as i32;
    }
    avg /= count as f32;
    Avg[thread_idx().x] = avg;

    // Compute the standard deviation per thread
    let mut addr2: i32 = block_idx().x as i32 * stride + thread_idx().x as i32;
    let mut stddev: f32 = 0.0;
    while addr2 < end {
        stddev += (input[addr2] as f32 - avg) * (input[addr2] as f32 - avg);
        addr2 += block_dim().x as i32;
    }
    stddev /= count as f32;
    StdDev[thread_idx().x] = sqrtf(stddev);

    macro_rules! SUM {
        ($stride__:expr) => {
            if thread_idx().x < $stride__ {
                Avg[thread_idx().x] += Avg[thread_idx().x + $stride__];
                StdDev[thread_idx().x] += StdDev[thread_idx().x + $stride__];
            }
        };
    }

    // Add all the averages and standard deviations from all the threads
    // and take their arithmetic average (as a simplified approximation of the
    // real average and standard deviation.
    // Volta: the original runs SUM(16), SUM(8), SUM(4), SUM(2) and reads Avg[1] with no
    // synchronisation after the loop (warp-synchronous): a __syncwarp() stands before each.
    if PRESCAN_THREADS >= 32 {
        let mut stride: u32 = PRESCAN_THREADS / 2;
        while stride >= 32 {
            sync_threads();
            SUM!(stride);
            stride = stride >> 1;
        }
    }
    if PRESCAN_THREADS >= 16 {
        sync_warp(FULL_MASK);
        SUM!(16);
    }
    if PRESCAN_THREADS >= 8 {
        sync_warp(FULL_MASK);
        SUM!(8);
    }
    if PRESCAN_THREADS >= 4 {
        sync_warp(FULL_MASK);
        SUM!(4);
    }
    if PRESCAN_THREADS >= 2 {
        sync_warp(FULL_MASK);
        SUM!(2);
    }
    sync_warp(FULL_MASK);

    if thread_idx().x == 0 {
        let mut avg: f32 = Avg[0] + Avg[1];
        avg /= PRESCAN_THREADS as f32;
        let mut stddev: f32 = StdDev[0] + StdDev[1];
        stddev /= PRESCAN_THREADS as f32;

        // Take the maximum and minimum range from all the blocks. This will
        // be the final answer. The standard deviation is taken out to 10 sigma
        // away from the average. The value 10 was obtained empirically.
        minmax.atomic_min(0, ((avg - 10.0 * stddev) as u32) / (KB * 1024));
        minmax.atomic_max(1, ((avg + 10.0 * stddev) as u32) / (KB * 1024));
    }
}

/// An image of `n` pixels whose values (the bins) cluster around the middle of 4 x 24K bins.
fn histo_image(n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| 49152 + r.below(2048) as u32 + r.below(2048) as u32 - 2048).collect()
}

struct HistoPrescan {
    img: Vec<u32>,
    dimg: DeviceBuffer<u32>,
    dminmax: DeviceBuffer<u32>,
    want: Vec<u32>,
}

impl HistoPrescan {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 64 * 8 * 512 * 2,
            Size::Bench => 996 * 1040 * 4,
        };
        let img = histo_image(n, 22);
        Box::new(HistoPrescan {
            dimg: DeviceBuffer::from_slice(&img).unwrap(),
            dminmax: DeviceBuffer::from_slice(&[u32::MAX, 0]).unwrap(),
            want: vec![0; 2],
            img,
        })
    }
}

impl Case for HistoPrescan {
    fn launch(&mut self) {
        self.dminmax.copy_from_slice(&[u32::MAX, 0]).unwrap();
        launch!(parboil_histo_prescan<<<PRESCAN_BLOCKS_X, PRESCAN_THREADS>>>(&self.dimg, self.img.len() as i32, &mut self.dminmax)).unwrap();
    }
    fn serial(&mut self) {
        const T: usize = PRESCAN_THREADS as usize;
        let size = self.img.len();
        let stride = size / PRESCAN_BLOCKS_X as usize;
        let mut minmax = [u32::MAX, 0];
        for b in 0..PRESCAN_BLOCKS_X as usize {
            let end = b * stride + stride / 8;
            let mut avgs = [0.0f32; T];
            let mut devs = [0.0f32; T];
            for t in 0..T {
                let (mut avg, mut count) = (0.0f32, 0u32);
                let mut addr = b * stride + t;
                while addr < end {
                    avg += self.img[addr] as f32;
                    count += 1;
                    addr += T;
                }
                avg /= count as f32;
                let mut dev = 0.0f32;
                let mut addr = b * stride + t;
                while addr < end {
                    dev += (self.img[addr] as f32 - avg) * (self.img[addr] as f32 - avg);
                    addr += T;
                }
                dev /= count as f32;
                avgs[t] = avg;
                devs[t] = dev.sqrt();
            }
            let mut s = T / 2;
            while s >= 2 {
                for t in 0..s {
                    avgs[t] += avgs[t + s];
                    devs[t] += devs[t + s];
                }
                s /= 2;
            }
            let avg = (avgs[0] + avgs[1]) / T as f32;
            let dev = (devs[0] + devs[1]) / T as f32;
            minmax[0] = minmax[0].min(((avg - 10.0 * dev) as u32) / (KB * 1024));
            minmax[1] = minmax[1].max(((avg + 10.0 * dev) as u32) / (KB * 1024));
        }
        self.want.copy_from_slice(&minmax);
    }
    fn check(&mut self) -> Result<(), String> {
        same("minmax", &self.dminmax.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// benchmarks/histo/src/cuda/histo_main.cu: histo_main_kernel with its helpers
// testIncrementGlobal, testIncrementLocal, clearMemory and copyMemory (main.cu: a grid of
// (BLOCK_X, ranges_h[1] - ranges_h[0] + 1) blocks of THREADS threads; the mappings come from
// histo_intermediates_kernel's calculateBin, computed here on the host).

#[device]
fn test_increment_global(global_histo: &mut [u32], sm_range_min: u32, sm_range_max: u32, sm: Uchar4) {
    let range: u32 = sm.x as u32;
    let indexhi: u32 = sm.y as u32;
    let indexlo: u32 = sm.z as u32;
    let offset: u32 = sm.w as u32;

    /* Scan for inputs that are outside the central region of histogram */
    if range < sm_range_min || range > sm_range_max {
        let bin: u32 = range * BINS_PER_BLOCK + offset / 8 + (indexlo << 2) + (indexhi << 10);
        let bin_div2: u32 = bin / 2;
        let bin_offset: u32 = if bin % 2 == 1 { 16 } else { 0 };

        let old_val: u32 = global_histo[bin_div2];
        let old_bin: u16 = ((old_val >> bin_offset) & 0xFFFF) as u16;

        if old_bin < 255 {
            global_histo.atomic_add(bin_div2 as usize, 1 << bin_offset);
        }
    }
}

#[device]
fn test_increment_local(global_overflow: &mut [u32], smem: Shared<[u32; 256]>, myRange: u32, sm: Uchar4) {
    let range: u32 = sm.x as u32;
    let indexhi: u32 = sm.y as u32;
    let indexlo: u32 = sm.z as u32;
    let offset: u32 = sm.w as u32;

    /* Scan for inputs that are inside the central region of histogram */
    if range == myRange {
        /* Atomically increment shared memory */
        let add: u32 = (1u32 << offset) as u32;
        let prev: u32 = smem[indexhi].atomic_add(indexlo as usize, add);

        /* Check if current bin overflowed */
        let prev_bin_val: u32 = (prev >> offset) & 0x000000FF;

        /* If there was an overflow, record it and record if it cascaded into other bins */
        if prev_bin_val == 0x000000FF {
            let bin: u32 = range * BINS_PER_BLOCK + offset / 8 + (indexlo << 2) + (indexhi << 10);

            let can_overflow_to_bin_plus_1: bool = if offset < 24 { true } else { false };
            let can_overflow_to_bin_plus_2: bool = if offset < 16 { true } else { false };
            let can_overflow_to_bin_plus_3: bool = if offset < 8 { true } else { false };

            let mut overflow_into_bin_plus_1: bool = false;
            let mut overflow_into_bin_plus_2: bool = false;
            let mut overflow_into_bin_plus_3: bool = false;

            // Rust: C's `prev >> (offset + 24)` for an offset of 8 or more shifts by 32 or more,
            // which PTX's shr clamps to 0 and Rust's `>>` rejects: checked_shr gives the 0.
            let prev_bin_plus_1_val: u32 = prev.checked_shr(offset + 8).unwrap_or(0) & 0x000000FF;
            let prev_bin_plus_2_val: u32 = prev.checked_shr(offset + 16).unwrap_or(0) & 0x000000FF;
            let prev_bin_plus_3_val: u32 = prev.checked_shr(offset + 24).unwrap_or(0) & 0x000000FF;

            if can_overflow_to_bin_plus_1 && prev_bin_val == 0x000000FF {
                overflow_into_bin_plus_1 = true;
            }
            if can_overflow_to_bin_plus_2 && prev_bin_plus_1_val == 0x000000FF {
                overflow_into_bin_plus_2 = true;
            }
            if can_overflow_to_bin_plus_3 && prev_bin_plus_2_val == 0x000000FF {
                overflow_into_bin_plus_3 = true;
            }

            // Rust: the original leaves these uninitialised until the `if`s below assign them.
            let mut bin_plus_1_add: u32 = 0;
            let mut bin_plus_2_add: u32 = 0;
            let mut bin_plus_3_add: u32 = 0;

            if overflow_into_bin_plus_1 {
                bin_plus_1_add = if prev_bin_plus_1_val < 0x000000FF { 0xFFFFFFFF } else { 0x000000FF };
            }
            if overflow_into_bin_plus_2 {
                bin_plus_2_add = if prev_bin_plus_2_val < 0x000000FF { 0xFFFFFFFF } else { 0x000000FF };
            }
            if overflow_into_bin_plus_3 {
                bin_plus_3_add = if prev_bin_plus_3_val < 0x000000FF { 0xFFFFFFFF } else { 0x000000FF };
            }

            global_overflow.atomic_add(bin as usize, 256);
            if overflow_into_bin_plus_1 {
                global_overflow.atomic_add((bin + 1) as usize, bin_plus_1_add);
            }
            if overflow_into_bin_plus_2 {
                global_overflow.atomic_add((bin + 2) as usize, bin_plus_2_add);
            }
            if overflow_into_bin_plus_3 {
                global_overflow.atomic_add((bin + 3) as usize, bin_plus_3_add);
            }
        }
    }
}

// deviceemu: `((unsigned int*)smem)[i] = 0` as `smem.cast::<u32>()[i] = 0` is "cannot index
// into a value of type `View<'_, u32, SharedMem>`" (E0608: only a named view is indexed), so
// the cast view is named first, here and in copy_memory.
#[device]
fn clear_memory(smem: Shared<[u32; 256]>) {
    let smem_u32 = smem.cast::<u32>();
    for i in (thread_idx().x as i32..(BINS_PER_BLOCK / 4) as i32).step_by(block_dim().x as usize) {
        smem_u32[i] = 0;
    }
}

// deviceemu: the original takes `unsigned int *dst`, called with `&(global_subhisto[store_index])`;
// a view cannot be offset, so the helper takes the view and the offset.
#[device]
fn copy_memory(dst: &mut [u32], dst_offset: u32, src: Shared<[u32; 256]>) {
    let src_u32 = src.cast::<u32>();
    for i in (thread_idx().x as i32..(BINS_PER_BLOCK / 4) as i32).step_by(block_dim().x as usize) {
        dst[dst_offset as i32 + i] = src_u32[i];
    }
}

#[kernel]
pub fn parboil_histo_main(
    sm_mappings: &[Uchar4],
    num_elements: u32,
    sm_range_min: u32,
    sm_range_max: u32,
    histo_height: u32,
    histo_width: u32,
    global_subhisto: &mut [u32],
    global_histo: &mut [u32],
    global_overflow: &mut [u32],
) {
    /* Most optimal solution uses 24 * 1024 bins per threadblock */
    let sub_histo = shared_array![[u32; 256]; KB as usize];

    /* Each threadblock contributes to a specific 24KB range of histogram,
     * and also scans every N-th line for interesting data.  N = gridDim.x
     */
    let local_scan_range: u32 = sm_range_min + block_idx().y;
    let mut local_scan_load: u32 = block_idx().x * block_dim().x + thread_idx().x;

    clear_memory(sub_histo);
    sync_threads();

    if block_idx().y == 0 {
        /* Loop through and scan the input */
        while local_scan_load < num_elements {
            /* Read buffer */
            let sm: Uchar4 = sm_mappings[local_scan_load];
            local_scan_load += block_dim().x * grid_dim().x;

            /* Check input */
            test_increment_local(global_overflow, sub_histo, local_scan_range, sm);
            test_increment_global(global_histo, sm_range_min, sm_range_max, sm);
        }
    } else {
        /* Loop through and scan the input */
        while local_scan_load < num_elements {
            /* Read buffer */
            let sm: Uchar4 = sm_mappings[local_scan_load];
            local_scan_load += block_dim().x * grid_dim().x;

            /* Check input */
            test_increment_local(global_overflow, sub_histo, local_scan_range, sm);
        }
    }

    /* Store sub histogram to global memory */
    let store_index: u32 = block_idx().x * (histo_height * histo_width / 4) + (local_scan_range * BINS_PER_BLOCK / 4);

    sync_threads();
    copy_memory(global_subhisto, store_index, sub_histo);
}

/// histo_intermediates_kernel's calculateBin.
fn calculate_bin(bin: u32) -> Uchar4 {
    let offset = (bin % 4) as u8;
    let indexlo = ((bin >> 2) % 256) as u8;
    let indexhi = ((bin >> 10) % KB) as u8;
    let block = (bin / BINS_PER_BLOCK) as u8;
    Uchar4 { x: block, y: indexhi, z: indexlo, w: offset * 8 }
}

/// Four ranges of 24K bins; the central two (1 and 2) are the shared-memory ranges.
const HISTO_BINS: u32 = 4 * BINS_PER_BLOCK;
const HISTO_WIDTH: u32 = 1024;
const HISTO_HEIGHT: u32 = HISTO_BINS / HISTO_WIDTH;
const HISTO_RANGE: (u32, u32) = (1, 2);

struct HistoMain {
    maps: Vec<Uchar4>,
    dmaps: DeviceBuffer<Uchar4>,
    dsub: DeviceBuffer<u32>,
    dhisto: DeviceBuffer<u32>,
    doverflow: DeviceBuffer<u32>,
    want_sub: Vec<u32>,
    want_histo: Vec<u32>,
    want_overflow: Vec<u32>,
}

impl HistoMain {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 14 * 768 * 4,
            Size::Bench => 14 * 768 * 32,
        };
        let mut r = Rng::new(23);
        // 40% of the pixels on four hot bins of one word (their 8-bit counters overflow and
        // carry), 5% spread over the outer ranges (the global histogram, at most a few each),
        // the rest spread over the central ranges.
        let maps = (0..n)
            .map(|_| {
                let p = r.below(100);
                let bin = if p < 40 {
                    30000 + r.below(4) as u32
                } else if p < 45 {
                    let b = r.below(2 * BINS_PER_BLOCK as u64) as u32;
                    if b < BINS_PER_BLOCK {
                        b
                    } else {
                        b + 2 * BINS_PER_BLOCK
                    }
                } else {
                    BINS_PER_BLOCK + r.below(2 * BINS_PER_BLOCK as u64) as u32
                };
                calculate_bin(bin)
            })
            .collect::<Vec<_>>();
        let sub_len = (BLOCK_X * HISTO_BINS / 4) as usize;
        Box::new(HistoMain {
            dmaps: DeviceBuffer::from_slice(&maps).unwrap(),
            dsub: DeviceBuffer::zeroed(sub_len).unwrap(),
            dhisto: DeviceBuffer::zeroed(HISTO_BINS as usize / 2).unwrap(),
            doverflow: DeviceBuffer::zeroed(HISTO_BINS as usize).unwrap(),
            want_sub: vec![0; sub_len],
            want_histo: vec![0; HISTO_BINS as usize / 2],
            want_overflow: vec![0; HISTO_BINS as usize],
            maps,
        })
    }
}

impl Case for HistoMain {
    fn launch(&mut self) {
        // The kernel accumulates into the global histogram and the overflow buffer: start
        // from zero each time, as main.cu's memsets and histo_final_kernel do.
        let zero = vec![0u32; self.doverflow.len()];
        self.dsub.copy_from_slice(&vec![0u32; self.dsub.len()]).unwrap();
        self.dhisto.copy_from_slice(&zero[..self.dhisto.len()]).unwrap();
        self.doverflow.copy_from_slice(&zero).unwrap();
        let (lo, hi) = HISTO_RANGE;
        launch!(parboil_histo_main<<<(BLOCK_X, hi - lo + 1), THREADS>>>(
            &self.dmaps,
            self.maps.len() as u32,
            lo,
            hi,
            HISTO_HEIGHT,
            HISTO_WIDTH,
            &mut self.dsub,
            &mut self.dhisto,
            &mut self.doverflow
        ))
        .unwrap();
    }
    fn serial(&mut self) {
        self.want_sub.iter_mut().for_each(|v| *v = 0);
        self.want_histo.iter_mut().for_each(|v| *v = 0);
        self.want_overflow.iter_mut().for_each(|v| *v = 0);
        let (lo, hi) = HISTO_RANGE;
        let n = self.maps.len();
        let stride = (THREADS * BLOCK_X) as usize;
        for by in 0..=(hi - lo) {
            let my_range = lo + by;
            for bx in 0..BLOCK_X as usize {
                let mut smem = [0u32; (KB * 256) as usize];
                for t in 0..THREADS as usize {
                    let mut e = bx * THREADS as usize + t;
                    while e < n {
                        let sm = self.maps[e];
                        e += stride;
                        let (range, indexhi, indexlo, offset) = (sm.x as u32, sm.y as u32, sm.z as u32, sm.w as u32);
                        let bin = range * BINS_PER_BLOCK + offset / 8 + (indexlo << 2) + (indexhi << 10);
                        if range == my_range {
                            let word = &mut smem[(indexhi * 256 + indexlo) as usize];
                            let prev = *word;
                            *word = prev.wrapping_add(1 << offset);
                            let byte = |k: u32| prev.checked_shr(offset + 8 * k).unwrap_or(0) & 0xFF;
                            if byte(0) == 0xFF {
                                let ov = &mut self.want_overflow;
                                ov[bin as usize] = ov[bin as usize].wrapping_add(256);
                                for k in 1..4u32 {
                                    if offset < 32 - 8 * k && byte(k - 1) == 0xFF {
                                        let add = if byte(k) < 0xFF { 0xFFFF_FFFF } else { 0xFF };
                                        let o = &mut ov[(bin + k) as usize];
                                        *o = o.wrapping_add(add);
                                    }
                                }
                            }
                        }
                        if by == 0 && (range < lo || range > hi) {
                            let (half, shift) = ((bin / 2) as usize, if bin % 2 == 1 { 16 } else { 0 });
                            if (self.want_histo[half] >> shift) & 0xFFFF < 255 {
                                self.want_histo[half] = self.want_histo[half].wrapping_add(1 << shift);
                            }
                        }
                    }
                }
                let store = bx * (HISTO_BINS / 4) as usize + (my_range * BINS_PER_BLOCK / 4) as usize;
                self.want_sub[store..store + smem.len()].copy_from_slice(&smem);
            }
        }
        assert!(self.want_overflow.iter().any(|&v| v != 0), "the inputs must overflow some 8-bit counters");
    }
    fn check(&mut self) -> Result<(), String> {
        same("sub-histograms", &self.dsub.to_vec().unwrap(), &self.want_sub)?;
        same("global histogram", &self.dhisto.to_vec().unwrap(), &self.want_histo)?;
        same("overflow", &self.doverflow.to_vec().unwrap(), &self.want_overflow)
    }
}

// ---------------------------------------------------------------------------------------------
// benchmarks/mri-q/src/cuda/computeQ.cu: ComputeQ_GPU (no barrier; computeQ_GPU launches blocks of
// KERNEL_Q_THREADS_PER_BLOCK threads once per tile of KERNEL_Q_K_ELEMS_PER_GRID k-space values
// copied into the constant array ck). The reference calls the same `cosf`/`sinf`
// (deviceemu::math, the functions the kernel calls), so that it agrees bit for bit.

const PIx2: f32 = 6.2831853071795864769252867665590058f32;
const KERNEL_Q_THREADS_PER_BLOCK: i32 = 256;
const KERNEL_Q_K_ELEMS_PER_GRID: i32 = 1024;

#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
pub struct kValues {
    pub Kx: f32,
    pub Ky: f32,
    pub Kz: f32,
    pub PhiMag: f32,
}
// SAFETY: four `f32`s: no padding, and all-zero is a valid value.
unsafe impl DeviceCopy for kValues {}

/* Values in the k-space coordinate system are stored in constant memory
 * on the GPU */
#[constant]
static ck: [kValues; KERNEL_Q_K_ELEMS_PER_GRID as usize] =
    [kValues { Kx: 0.0, Ky: 0.0, Kz: 0.0, PhiMag: 0.0 }; KERNEL_Q_K_ELEMS_PER_GRID as usize];

#[kernel]
pub fn parboil_mri_q(numK: i32, kGlobalIndex: i32, x: &[f32], y: &[f32], z: &[f32], Qr: &mut [f32], Qi: &mut [f32]) {
    let mut kGlobalIndex = kGlobalIndex;
    let sX: f32;
    let sY: f32;
    let sZ: f32;
    let mut sQr: f32;
    let mut sQi: f32;

    // Determine the element of the X arrays computed by this thread
    let xIndex: i32 = block_idx().x as i32 * KERNEL_Q_THREADS_PER_BLOCK + thread_idx().x as i32;

    // Read block's X values from global mem to shared mem
    sX = x[xIndex];
    sY = y[xIndex];
    sZ = z[xIndex];
    sQr = Qr[xIndex];
    sQi = Qi[xIndex];

    // Loop over all elements of K in constant mem to compute a partial value
    // for X.
    let mut kIndex: i32 = 0;
    if numK % 2 != 0 {
        let expArg: f32 = PIx2 * (ck[0].Kx * sX + ck[0].Ky * sY + ck[0].Kz * sZ);
        sQr += ck[0].PhiMag * cosf(expArg);
        sQi += ck[0].PhiMag * sinf(expArg);
        kIndex += 1;
        kGlobalIndex += 1;
    }

    while (kIndex < KERNEL_Q_K_ELEMS_PER_GRID) && (kGlobalIndex < numK) {
        let expArg: f32 =
            PIx2 * (ck[kIndex as usize].Kx * sX + ck[kIndex as usize].Ky * sY + ck[kIndex as usize].Kz * sZ);
        sQr += ck[kIndex as usize].PhiMag * cosf(expArg);
        sQi += ck[kIndex as usize].PhiMag * sinf(expArg);

        let kIndex1: i32 = kIndex + 1;
        let expArg1: f32 =
            PIx2 * (ck[kIndex1 as usize].Kx * sX + ck[kIndex1 as usize].Ky * sY + ck[kIndex1 as usize].Kz * sZ);
        sQr += ck[kIndex1 as usize].PhiMag * cosf(expArg1);
        sQi += ck[kIndex1 as usize].PhiMag * sinf(expArg1);
        kIndex += 2;
        kGlobalIndex += 2;
    }

    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}

struct MriQ {
    k: Vec<kValues>,
    xyz: [Vec<f32>; 3],
    q0: Vec<f32>,
    dxyz: [DeviceBuffer<f32>; 3],
    dqr: DeviceBuffer<f32>,
    dqi: DeviceBuffer<f32>,
    want_qr: Vec<f32>,
    want_qi: Vec<f32>,
}

impl MriQ {
    fn make(size: Size) -> Box<dyn Case> {
        let (num_k, num_x) = match size {
            Size::Test => (64, 256),
            Size::Bench => (256, 2048),
        };
        let mut r = Rng::new(24);
        let k: Vec<kValues> =
            (0..num_k).map(|_| kValues { Kx: r.f32(), Ky: r.f32(), Kz: r.f32(), PhiMag: r.f32() }).collect();
        let xyz = [r.f32s(num_x), r.f32s(num_x), r.f32s(num_x)];
        let q0 = r.f32s(num_x);
        Box::new(MriQ {
            dxyz: [0, 1, 2].map(|i| DeviceBuffer::from_slice(&xyz[i]).unwrap()),
            dqr: DeviceBuffer::from_slice(&q0).unwrap(),
            dqi: DeviceBuffer::from_slice(&q0).unwrap(),
            want_qr: q0.clone(),
            want_qi: q0.clone(),
            k,
            xyz,
            q0,
        })
    }
}

impl Case for MriQ {
    fn launch(&mut self) {
        // Qr and Qi accumulate: start from the same values each time.
        self.dqr.copy_from_slice(&self.q0).unwrap();
        self.dqi.copy_from_slice(&self.q0).unwrap();
        let mut tile = [kValues::default(); KERNEL_Q_K_ELEMS_PER_GRID as usize];
        tile[..self.k.len()].copy_from_slice(&self.k);
        copy_to_symbol(&ck, &tile).unwrap();
        let blocks = (self.q0.len() as i32 / KERNEL_Q_THREADS_PER_BLOCK) as u32;
        let [x, y, z] = &self.dxyz;
        launch!(parboil_mri_q<<<blocks, KERNEL_Q_THREADS_PER_BLOCK as u32>>>(self.k.len() as i32, 0, x, y, z, &mut self.dqr, &mut self.dqi)).unwrap();
    }
    fn serial(&mut self) {
        let [x, y, z] = &self.xyz;
        for i in 0..self.q0.len() {
            let (mut qr, mut qi) = (self.q0[i], self.q0[i]);
            for k in &self.k {
                let arg = PIx2 * (k.Kx * x[i] + k.Ky * y[i] + k.Kz * z[i]);
                qr += k.PhiMag * cosf(arg);
                qi += k.PhiMag * sinf(arg);
            }
            self.want_qr[i] = qr;
            self.want_qi[i] = qi;
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("Qr", &self.dqr.to_vec().unwrap(), &self.want_qr)?;
        same_f32("Qi", &self.dqi.to_vec().unwrap(), &self.want_qi)
    }
}
