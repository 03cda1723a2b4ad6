//! NVIDIA's cuda-samples (github.com/NVIDIA/cuda-samples, commit
//! c94ff366aed18c797b8a85dfaac7817b0228b420): the reduction variants, transpose, matrixMul,
//! convolutionSeparable, histogram256, sortingNetworks' bitonic sort and scan.
//!
//! The samples synchronise with cooperative groups (`cg::sync(cta)`), written `cta.sync()`
//! (deviceemu's `cg` has the method, not the free function).
use deviceemu::cg;
use deviceemu::prelude::*;

use super::vec::Uint4;
use super::{same, same_f32, Case, Entry, Rng, Size};

pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "samples_reduce0",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce0<float>",
            barriers: true,
            make: |s| Reduce::make(s, 0),
        },
        Entry {
            name: "samples_reduce1",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce1<float>",
            barriers: true,
            make: |s| Reduce::make(s, 1),
        },
        Entry {
            name: "samples_reduce2",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce2<float>",
            barriers: true,
            make: |s| Reduce::make(s, 2),
        },
        Entry {
            name: "samples_reduce3",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce3<float>",
            barriers: true,
            make: |s| Reduce::make(s, 3),
        },
        Entry {
            name: "samples_reduce4",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce4<float, 256>",
            barriers: true,
            make: |s| Reduce::make(s, 4),
        },
        Entry {
            name: "samples_reduce6",
            suite: "cuda-samples",
            original: "reduction/reduction_kernel.cu: reduce6<float, 256, true>",
            barriers: true,
            make: |s| Reduce::make(s, 6),
        },
        Entry {
            name: "samples_transpose_coalesced",
            suite: "cuda-samples",
            original: "transpose/transpose.cu: transposeCoalesced",
            barriers: true,
            make: |s| Transpose::make(s, false),
        },
        Entry {
            name: "samples_transpose_nbc",
            suite: "cuda-samples",
            original: "transpose/transpose.cu: transposeNoBankConflicts",
            barriers: true,
            make: |s| Transpose::make(s, true),
        },
        Entry {
            name: "samples_matrix_mul",
            suite: "cuda-samples",
            original: "matrixMul/matrixMul.cu: MatrixMulCUDA<32>",
            barriers: true,
            make: MatrixMul::make,
        },
        Entry {
            name: "samples_conv_rows",
            suite: "cuda-samples",
            original: "convolutionSeparable/convolutionSeparable.cu: convolutionRowsKernel",
            barriers: true,
            make: |s| Conv::make(s, true),
        },
        Entry {
            name: "samples_conv_cols",
            suite: "cuda-samples",
            original: "convolutionSeparable/convolutionSeparable.cu: convolutionColumnsKernel",
            barriers: true,
            make: |s| Conv::make(s, false),
        },
        Entry {
            name: "samples_histogram256",
            suite: "cuda-samples",
            original: "histogram/histogram256.cu: histogram256Kernel",
            barriers: true,
            make: Histogram256::make,
        },
        Entry {
            name: "samples_merge_histogram256",
            suite: "cuda-samples",
            original: "histogram/histogram256.cu: mergeHistogram256Kernel",
            barriers: true,
            make: MergeHistogram256::make,
        },
        Entry {
            name: "samples_bitonic_sort",
            suite: "cuda-samples",
            original: "sortingNetworks/bitonicSort.cu: bitonicSortShared",
            barriers: true,
            make: Bitonic::make,
        },
        Entry {
            name: "samples_scan_exclusive",
            suite: "cuda-samples",
            original: "scan/scan.cu: scanExclusiveShared",
            barriers: true,
            make: ScanExclusive::make,
        },
        Entry {
            name: "samples_uniform_update",
            suite: "cuda-samples",
            original: "scan/scan.cu: uniformUpdate",
            barriers: true,
            make: UniformUpdate::make,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu: reduce0 to reduce4 and
// reduce6 for T = float (reduction.cpp: 256 threads, 256 floats of dynamic shared memory;
// reduce6 with 64 blocks and nIsPow2).

/// `blockSize`, the template argument of reduce4 and reduce6.
const blockSize: u32 = 256;
/// `nIsPow2`, the template argument of reduce6.
const nIsPow2: bool = true;

#[kernel]
pub fn samples_reduce0(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // load shared mem
    let tid: u32 = thread_idx().x;
    let i: u32 = block_idx().x * block_dim().x + thread_idx().x;

    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };

    cta.sync();

    // do reduction in shared mem
    let mut s: u32 = 1;
    while s < block_dim().x {
        // modulo arithmetic is slow!
        if (tid % (2 * s)) == 0 {
            sdata[tid] += sdata[tid + s];
        }

        cta.sync();
        s *= 2;
    }

    // write result for this block to global mem
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

#[kernel]
pub fn samples_reduce1(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // load shared mem
    let tid: u32 = thread_idx().x;
    let i: u32 = block_idx().x * block_dim().x + thread_idx().x;

    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };

    cta.sync();

    // do reduction in shared mem
    let mut s: u32 = 1;
    while s < block_dim().x {
        let index: i32 = (2 * s * tid) as i32;

        if (index as u32) < block_dim().x {
            sdata[index] += sdata[index + s as i32];
        }

        cta.sync();
        s *= 2;
    }

    // write result for this block to global mem
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

#[kernel]
pub fn samples_reduce2(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // load shared mem
    let tid: u32 = thread_idx().x;
    let i: u32 = block_idx().x * block_dim().x + thread_idx().x;

    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };

    cta.sync();

    // do reduction in shared mem
    let mut s: u32 = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            sdata[tid] += sdata[tid + s];
        }

        cta.sync();
        s >>= 1;
    }

    // write result for this block to global mem
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

#[kernel]
pub fn samples_reduce3(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // perform first level of reduction,
    // reading from global memory, writing to shared memory
    let tid: u32 = thread_idx().x;
    let i: u32 = block_idx().x * (block_dim().x * 2) + thread_idx().x;

    let mut mySum: f32 = if i < n { g_idata[i] } else { 0.0 };

    if i + block_dim().x < n {
        mySum += g_idata[i + block_dim().x];
    }

    sdata[tid] = mySum;
    cta.sync();

    // do reduction in shared mem
    let mut s: u32 = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            mySum = mySum + sdata[tid + s];
            sdata[tid] = mySum;
        }

        cta.sync();
        s >>= 1;
    }

    // write result for this block to global mem
    if tid == 0 {
        g_odata[block_idx().x] = mySum;
    }
}

#[kernel]
pub fn samples_reduce4(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // perform first level of reduction,
    // reading from global memory, writing to shared memory
    let tid: u32 = thread_idx().x;
    let i: u32 = block_idx().x * (block_dim().x * 2) + thread_idx().x;

    let mut mySum: f32 = if i < n { g_idata[i] } else { 0.0 };

    if i + blockSize < n {
        mySum += g_idata[i + blockSize];
    }

    sdata[tid] = mySum;
    cta.sync();

    // do reduction in shared mem
    let mut s: u32 = block_dim().x / 2;
    while s > 32 {
        if tid < s {
            mySum = mySum + sdata[tid + s];
            sdata[tid] = mySum;
        }

        cta.sync();
        s >>= 1;
    }

    let tile32 = cg::tiled_partition::<32>(&cta);

    if cta.thread_rank() < 32 {
        // Fetch final intermediate sum from 2nd warp
        if blockSize >= 64 {
            mySum += sdata[tid + 32];
        }
        // Reduce final warp using shuffle
        let mut offset: i32 = tile32.size() as i32 / 2;
        while offset > 0 {
            mySum += tile32.shfl_down(mySum, offset as u32);
            offset /= 2;
        }
    }

    // write result for this block to global mem
    if cta.thread_rank() == 0 {
        g_odata[block_idx().x] = mySum;
    }
}

#[kernel]
pub fn samples_reduce6(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let sdata = dynamic_shared::<f32>();

    // perform first level of reduction,
    // reading from global memory, writing to shared memory
    let tid: u32 = thread_idx().x;
    let mut gridSize: u32 = blockSize * grid_dim().x;

    let mut mySum: f32 = 0.0;

    // we reduce multiple elements per thread.  The number is determined by the
    // number of active thread blocks (via gridDim).  More blocks will result
    // in a larger gridSize and therefore fewer elements per thread
    if nIsPow2 {
        let mut i: u32 = block_idx().x * blockSize * 2 + thread_idx().x;
        gridSize = gridSize << 1;

        while i < n {
            mySum += g_idata[i];
            // ensure we don't read out of bounds -- this is optimized away for
            // powerOf2 sized arrays
            if (i + blockSize) < n {
                mySum += g_idata[i + blockSize];
            }
            i += gridSize;
        }
    } else {
        let mut i: u32 = block_idx().x * blockSize + thread_idx().x;
        while i < n {
            mySum += g_idata[i];
            i += gridSize;
        }
    }

    // each thread puts its local sum into shared memory
    sdata[tid] = mySum;
    cta.sync();

    // do reduction in shared mem
    if (blockSize >= 512) && (tid < 256) {
        mySum = mySum + sdata[tid + 256];
        sdata[tid] = mySum;
    }

    cta.sync();

    if (blockSize >= 256) && (tid < 128) {
        mySum = mySum + sdata[tid + 128];
        sdata[tid] = mySum;
    }

    cta.sync();

    if (blockSize >= 128) && (tid < 64) {
        mySum = mySum + sdata[tid + 64];
        sdata[tid] = mySum;
    }

    cta.sync();

    let tile32 = cg::tiled_partition::<32>(&cta);

    if cta.thread_rank() < 32 {
        // Fetch final intermediate sum from 2nd warp
        if blockSize >= 64 {
            mySum += sdata[tid + 32];
        }
        // Reduce final warp using shuffle
        let mut offset: i32 = tile32.size() as i32 / 2;
        while offset > 0 {
            mySum += tile32.shfl_down(mySum, offset as u32);
            offset /= 2;
        }
    }

    // write result for this block to global mem
    if cta.thread_rank() == 0 {
        g_odata[block_idx().x] = mySum;
    }
}

/// A sequential-addressing tree over 256 values, down to `s > stop`; returns the values.
fn tree_down(v: &mut [f32; 256], stop: usize) {
    let mut s = 128;
    while s > stop {
        for t in 0..s {
            v[t] += v[t + s];
        }
        s /= 2;
    }
}

/// The tail of reduce4 and reduce6: lane `l < 32` adds `v[l + 32]`, then the `shfl_down`
/// tree (lane 0's value).
fn warp_tail(v: &mut [f32; 256]) -> f32 {
    let mut w = [0.0f32; 32];
    for l in 0..32 {
        w[l] = v[l] + v[l + 32];
    }
    let mut offset = 16;
    while offset > 0 {
        let before = w;
        for l in 0..32 {
            w[l] += if l + offset < 32 { before[l + offset] } else { before[l] };
        }
        offset /= 2;
    }
    w[0]
}

struct Reduce {
    which: u32,
    x: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    blocks: u32,
    want: Vec<f32>,
}

impl Reduce {
    fn make(size: Size, which: u32) -> Box<dyn Case> {
        let n: usize = match (size, which) {
            (Size::Test, _) => 16 * 1024,
            (Size::Bench, 0..=2) => 1 << 15,
            (Size::Bench, 3 | 4) => 1 << 16,
            (Size::Bench, _) => 1 << 20,
        };
        let blocks = match which {
            0..=2 => n / 256,
            3 | 4 => n / 512,
            _ => 64,
        } as u32;
        let x = Rng::new(30 + which as u64).f32s(n);
        Box::new(Reduce {
            which,
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(blocks as usize).unwrap(),
            x,
            blocks,
            want: vec![0.0; blocks as usize],
        })
    }
}

impl Case for Reduce {
    fn launch(&mut self) {
        let n = self.x.len() as u32;
        let (g, x, out) = (self.blocks, &self.dx, &mut self.dout);
        match self.which {
            0 => launch!(samples_reduce0<<<g, 256, 1024>>>(x, out, n)),
            1 => launch!(samples_reduce1<<<g, 256, 1024>>>(x, out, n)),
            2 => launch!(samples_reduce2<<<g, 256, 1024>>>(x, out, n)),
            3 => launch!(samples_reduce3<<<g, 256, 1024>>>(x, out, n)),
            4 => launch!(samples_reduce4<<<g, 256, 1024>>>(x, out, n)),
            _ => launch!(samples_reduce6<<<g, 256, 1024>>>(x, out, n)),
        }
        .unwrap();
    }
    fn serial(&mut self) {
        let n = self.x.len();
        for b in 0..self.blocks as usize {
            let mut v = [0.0f32; 256];
            self.want[b] = match self.which {
                0 | 1 => {
                    // Interleaved pairs: s = 1, 2, 4, ...
                    v.copy_from_slice(&self.x[b * 256..b * 256 + 256]);
                    let mut s = 1;
                    while s < 256 {
                        let mut t = 0;
                        while t < 256 {
                            v[t] += v[t + s];
                            t += 2 * s;
                        }
                        s *= 2;
                    }
                    v[0]
                }
                2 => {
                    v.copy_from_slice(&self.x[b * 256..b * 256 + 256]);
                    tree_down(&mut v, 0);
                    v[0]
                }
                3 | 4 => {
                    for t in 0..256 {
                        let i = b * 512 + t;
                        v[t] = self.x[i];
                        if i + 256 < n {
                            v[t] += self.x[i + 256];
                        }
                    }
                    if self.which == 3 {
                        tree_down(&mut v, 0);
                        v[0]
                    } else {
                        tree_down(&mut v, 32);
                        warp_tail(&mut v)
                    }
                }
                _ => {
                    let grid = 512 * self.blocks as usize;
                    for t in 0..256 {
                        let mut i = b * 512 + t;
                        let mut sum = 0.0f32;
                        while i < n {
                            sum += self.x[i];
                            if i + 256 < n {
                                sum += self.x[i + 256];
                            }
                            i += grid;
                        }
                        v[t] = sum;
                    }
                    tree_down(&mut v, 32);
                    warp_tail(&mut v)
                }
            };
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("block sums", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/6_Performance/transpose/transpose.cu: transposeCoalesced and transposeNoBankConflicts
// (blocks of TILE_DIM x BLOCK_ROWS threads, a grid of size_x / TILE_DIM x size_y / TILE_DIM).

const TILE_DIM: i32 = 32;
const BLOCK_ROWS: i32 = 16;

#[kernel]
pub fn samples_transpose_coalesced(odata: &mut [f32], idata: &[f32], width: i32, height: i32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let tile = shared_array![[f32; TILE_DIM as usize]; TILE_DIM as usize];

    let mut xIndex: i32 = block_idx().x as i32 * TILE_DIM + thread_idx().x as i32;
    let mut yIndex: i32 = block_idx().y as i32 * TILE_DIM + thread_idx().y as i32;
    let index_in: i32 = xIndex + (yIndex) * width;

    xIndex = block_idx().y as i32 * TILE_DIM + thread_idx().x as i32;
    yIndex = block_idx().x as i32 * TILE_DIM + thread_idx().y as i32;
    let index_out: i32 = xIndex + (yIndex) * height;

    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        tile[thread_idx().y as i32 + i][thread_idx().x] = idata[index_in + i * width];
    }

    cta.sync();

    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        odata[index_out + i * height] = tile[thread_idx().x][thread_idx().y as i32 + i];
    }
}

#[kernel]
pub fn samples_transpose_nbc(odata: &mut [f32], idata: &[f32], width: i32, height: i32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let tile = shared_array![[f32; TILE_DIM as usize + 1]; TILE_DIM as usize];

    let mut xIndex: i32 = block_idx().x as i32 * TILE_DIM + thread_idx().x as i32;
    let mut yIndex: i32 = block_idx().y as i32 * TILE_DIM + thread_idx().y as i32;
    let index_in: i32 = xIndex + (yIndex) * width;

    xIndex = block_idx().y as i32 * TILE_DIM + thread_idx().x as i32;
    yIndex = block_idx().x as i32 * TILE_DIM + thread_idx().y as i32;
    let index_out: i32 = xIndex + (yIndex) * height;

    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        tile[thread_idx().y as i32 + i][thread_idx().x] = idata[index_in + i * width];
    }

    cta.sync();

    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        odata[index_out + i * height] = tile[thread_idx().x][thread_idx().y as i32 + i];
    }
}

struct Transpose {
    nbc: bool,
    x: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    w: usize,
    h: usize,
    want: Vec<f32>,
}

impl Transpose {
    fn make(size: Size, nbc: bool) -> Box<dyn Case> {
        let (w, h) = match size {
            Size::Test => (128, 64),
            Size::Bench => (256, 256),
        };
        let x = Rng::new(40).f32s(w * h);
        Box::new(Transpose {
            nbc,
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(w * h).unwrap(),
            x,
            w,
            h,
            want: vec![0.0; w * h],
        })
    }
}

impl Case for Transpose {
    fn launch(&mut self) {
        let grid = ((self.w / 32) as u32, (self.h / 32) as u32);
        let (w, h) = (self.w as i32, self.h as i32);
        if self.nbc {
            launch!(samples_transpose_nbc<<<grid, (32, 16)>>>(&mut self.dout, &self.dx, w, h)).unwrap();
        } else {
            launch!(samples_transpose_coalesced<<<grid, (32, 16)>>>(&mut self.dout, &self.dx, w, h)).unwrap();
        }
    }
    fn serial(&mut self) {
        for y in 0..self.h {
            for x in 0..self.w {
                self.want[x * self.h + y] = self.x[y * self.w + x];
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("transpose", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/0_Introduction/matrixMul/matrixMul.cu: MatrixMulCUDA<32> (blocks of 32 x 32 threads,
// a grid of dimsB.x / 32 x dimsA.y / 32).

/// `BLOCK_SIZE`, the template argument.
const BLOCK_SIZE: i32 = 32;

#[kernel]
pub fn samples_matrix_mul(C: &mut [f32], A: &[f32], B: &[f32], wA: i32, wB: i32) {
    // Block index
    let bx: i32 = block_idx().x as i32;
    let by: i32 = block_idx().y as i32;

    // Thread index
    let tx: i32 = thread_idx().x as i32;
    let ty: i32 = thread_idx().y as i32;

    // Index of the first sub-matrix of A processed by the block
    let aBegin: i32 = wA * BLOCK_SIZE * by;

    // Index of the last sub-matrix of A processed by the block
    let aEnd: i32 = aBegin + wA - 1;

    // Step size used to iterate through the sub-matrices of A
    let aStep: i32 = BLOCK_SIZE;

    // Index of the first sub-matrix of B processed by the block
    let bBegin: i32 = BLOCK_SIZE * bx;

    // Step size used to iterate through the sub-matrices of B
    let bStep: i32 = BLOCK_SIZE * wB;

    // Csub is used to store the element of the block sub-matrix
    // that is computed by the thread
    let mut Csub: f32 = 0.0;

    // Loop over all the sub-matrices of A and B
    // required to compute the block sub-matrix
    let mut a: i32 = aBegin;
    let mut b: i32 = bBegin;
    while a <= aEnd {
        // Declaration of the shared memory array As used to
        // store the sub-matrix of A
        let As = shared_array![[f32; BLOCK_SIZE as usize]; BLOCK_SIZE as usize];

        // Declaration of the shared memory array Bs used to
        // store the sub-matrix of B
        let Bs = shared_array![[f32; BLOCK_SIZE as usize]; BLOCK_SIZE as usize];

        // Load the matrices from device memory
        // to shared memory; each thread loads
        // one element of each matrix
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];

        // Synchronize to make sure the matrices are loaded
        sync_threads();

        // Multiply the two matrices together;
        // each thread computes one element
        // of the block sub-matrix
        for k in 0..BLOCK_SIZE {
            Csub += As[ty][k] * Bs[k][tx];
        }

        // Synchronize to make sure that the preceding
        // computation is done before loading two new
        // sub-matrices of A and B in the next iteration
        sync_threads();
        a += aStep;
        b += bStep;
    }

    // Write the block sub-matrix to device memory;
    // each thread writes one element
    let c: i32 = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

struct MatrixMul {
    a: Vec<f32>,
    b: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    dc: DeviceBuffer<f32>,
    /// A is `ha x wa`, B is `wa x wb`.
    dims: (usize, usize, usize),
    want: Vec<f32>,
}

impl MatrixMul {
    fn make(size: Size) -> Box<dyn Case> {
        let dims = match size {
            Size::Test => (64, 64, 64),
            // The sample's dimsA is 320 x 320 (dimsB 640 x 320: half as wide here).
            Size::Bench => (320, 320, 320),
        };
        let (ha, wa, wb) = dims;
        let mut r = Rng::new(41);
        let (a, b) = (r.f32s(ha * wa), r.f32s(wa * wb));
        Box::new(MatrixMul {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::from_slice(&b).unwrap(),
            dc: DeviceBuffer::zeroed(ha * wb).unwrap(),
            want: vec![0.0; ha * wb],
            a,
            b,
            dims,
        })
    }
}

impl Case for MatrixMul {
    fn launch(&mut self) {
        let (ha, wa, wb) = self.dims;
        let grid = ((wb / 32) as u32, (ha / 32) as u32);
        launch!(samples_matrix_mul<<<grid, (32, 32)>>>(&mut self.dc, &self.da, &self.db, wa as i32, wb as i32))
            .unwrap();
    }
    fn serial(&mut self) {
        let (ha, wa, wb) = self.dims;
        for row in 0..ha {
            for col in 0..wb {
                let mut c = 0.0f32;
                for k in 0..wa {
                    c += self.a[row * wa + k] * self.b[k * wb + col];
                }
                self.want[row * wb + col] = c;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("C", &self.dc.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu:
// convolutionRowsKernel and convolutionColumnsKernel, the constant c_Kernel and the constants
// of convolutionSeparable_common.h (pitch = imageW).

const KERNEL_RADIUS: i32 = 8;
const KERNEL_LENGTH: i32 = 2 * KERNEL_RADIUS + 1;

#[constant]
static c_Kernel: [f32; KERNEL_LENGTH as usize] = [0.0; KERNEL_LENGTH as usize];

const ROWS_BLOCKDIM_X: i32 = 16;
const ROWS_BLOCKDIM_Y: i32 = 4;
const ROWS_RESULT_STEPS: i32 = 8;
const ROWS_HALO_STEPS: i32 = 1;

#[kernel]
pub fn samples_conv_rows(d_Dst: &mut [f32], d_Src: &[f32], imageW: i32, imageH: i32, pitch: i32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let s_Data = shared_array![[f32; ((ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X) as usize]; ROWS_BLOCKDIM_Y as usize];

    // Offset to the left halo edge
    let baseX: i32 =
        (block_idx().x as i32 * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + thread_idx().x as i32;
    let baseY: i32 = block_idx().y as i32 * ROWS_BLOCKDIM_Y + thread_idx().y as i32;

    // deviceemu: `d_Src += baseY * pitch + baseX; d_Dst += ...` (pointer arithmetic, baseX
    // negative in the first column of blocks) is an offset added to each index.
    let d_off: i32 = baseY * pitch + baseX;

    // Load main data
    for i in ROWS_HALO_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS {
        s_Data[thread_idx().y][thread_idx().x as i32 + i * ROWS_BLOCKDIM_X] = d_Src[d_off + i * ROWS_BLOCKDIM_X];
    }

    // Load left halo
    for i in 0..ROWS_HALO_STEPS {
        s_Data[thread_idx().y][thread_idx().x as i32 + i * ROWS_BLOCKDIM_X] =
            if baseX >= -i * ROWS_BLOCKDIM_X { d_Src[d_off + i * ROWS_BLOCKDIM_X] } else { 0.0 };
    }

    // Load right halo
    for i in ROWS_HALO_STEPS + ROWS_RESULT_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS {
        s_Data[thread_idx().y][thread_idx().x as i32 + i * ROWS_BLOCKDIM_X] =
            if imageW - baseX > i * ROWS_BLOCKDIM_X { d_Src[d_off + i * ROWS_BLOCKDIM_X] } else { 0.0 };
    }

    // Compute and store results
    cta.sync();

    for i in ROWS_HALO_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS {
        let mut sum: f32 = 0.0;

        for j in -KERNEL_RADIUS..=KERNEL_RADIUS {
            sum += c_Kernel[(KERNEL_RADIUS - j) as usize]
                * s_Data[thread_idx().y][thread_idx().x as i32 + i * ROWS_BLOCKDIM_X + j];
        }

        d_Dst[d_off + i * ROWS_BLOCKDIM_X] = sum;
    }
}

const COLUMNS_BLOCKDIM_X: i32 = 16;
const COLUMNS_BLOCKDIM_Y: i32 = 8;
const COLUMNS_RESULT_STEPS: i32 = 8;
const COLUMNS_HALO_STEPS: i32 = 1;

#[kernel]
pub fn samples_conv_cols(d_Dst: &mut [f32], d_Src: &[f32], imageW: i32, imageH: i32, pitch: i32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let s_Data = shared_array![[f32; ((COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + 1) as usize]; COLUMNS_BLOCKDIM_X as usize];

    // Offset to the upper halo edge
    let baseX: i32 = block_idx().x as i32 * COLUMNS_BLOCKDIM_X + thread_idx().x as i32;
    let baseY: i32 =
        (block_idx().y as i32 * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + thread_idx().y as i32;
    // deviceemu: `d_Src += baseY * pitch + baseX; d_Dst += ...` is an offset added to each index.
    let d_off: i32 = baseY * pitch + baseX;

    // Main data
    for i in COLUMNS_HALO_STEPS..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS {
        s_Data[thread_idx().x][thread_idx().y as i32 + i * COLUMNS_BLOCKDIM_Y] =
            d_Src[d_off + i * COLUMNS_BLOCKDIM_Y * pitch];
    }

    // Upper halo
    for i in 0..COLUMNS_HALO_STEPS {
        s_Data[thread_idx().x][thread_idx().y as i32 + i * COLUMNS_BLOCKDIM_Y] =
            if baseY >= -i * COLUMNS_BLOCKDIM_Y { d_Src[d_off + i * COLUMNS_BLOCKDIM_Y * pitch] } else { 0.0 };
    }

    // Lower halo
    for i in COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS + COLUMNS_HALO_STEPS {
        s_Data[thread_idx().x][thread_idx().y as i32 + i * COLUMNS_BLOCKDIM_Y] =
            if imageH - baseY > i * COLUMNS_BLOCKDIM_Y { d_Src[d_off + i * COLUMNS_BLOCKDIM_Y * pitch] } else { 0.0 };
    }

    // Compute and store results
    cta.sync();

    for i in COLUMNS_HALO_STEPS..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS {
        let mut sum: f32 = 0.0;
        for j in -KERNEL_RADIUS..=KERNEL_RADIUS {
            sum += c_Kernel[(KERNEL_RADIUS - j) as usize]
                * s_Data[thread_idx().x][thread_idx().y as i32 + i * COLUMNS_BLOCKDIM_Y + j];
        }

        d_Dst[d_off + i * COLUMNS_BLOCKDIM_Y * pitch] = sum;
    }
}

struct Conv {
    rows: bool,
    x: Vec<f32>,
    taps: [f32; KERNEL_LENGTH as usize],
    dx: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    w: usize,
    h: usize,
    want: Vec<f32>,
}

impl Conv {
    fn make(size: Size, rows: bool) -> Box<dyn Case> {
        let (w, h) = match size {
            Size::Test => (256, 128),
            Size::Bench => (512, 256),
        };
        let mut r = Rng::new(42);
        let x = r.f32s(w * h);
        let mut taps = [0.0f32; KERNEL_LENGTH as usize];
        taps.iter_mut().for_each(|t| *t = r.f32());
        Box::new(Conv {
            rows,
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(w * h).unwrap(),
            x,
            taps,
            w,
            h,
            want: vec![0.0; w * h],
        })
    }
}

impl Case for Conv {
    fn launch(&mut self) {
        copy_to_symbol(&c_Kernel, &self.taps).unwrap();
        let (w, h) = (self.w as i32, self.h as i32);
        if self.rows {
            let grid = ((w / (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X)) as u32, (h / ROWS_BLOCKDIM_Y) as u32);
            launch!(samples_conv_rows<<<grid, (ROWS_BLOCKDIM_X as u32, ROWS_BLOCKDIM_Y as u32)>>>(&mut self.dout, &self.dx, w, h, w)).unwrap();
        } else {
            let grid = ((w / COLUMNS_BLOCKDIM_X) as u32, (h / (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y)) as u32);
            launch!(samples_conv_cols<<<grid, (COLUMNS_BLOCKDIM_X as u32, COLUMNS_BLOCKDIM_Y as u32)>>>(&mut self.dout, &self.dx, w, h, w)).unwrap();
        }
    }
    fn serial(&mut self) {
        let (w, h) = (self.w as isize, self.h as isize);
        for y in 0..h {
            for x in 0..w {
                let mut sum = 0.0f32;
                for j in -(KERNEL_RADIUS as isize)..=KERNEL_RADIUS as isize {
                    let (sx, sy) = if self.rows { (x + j, y) } else { (x, y + j) };
                    let v = if sx >= 0 && sx < w && sy >= 0 && sy < h { self.x[(sy * w + sx) as usize] } else { 0.0 };
                    sum += self.taps[(KERNEL_RADIUS as isize - j) as usize] * v;
                }
                self.want[(y * w + x) as usize] = sum;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("convolution", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/2_Concepts_and_Techniques/histogram/histogram256.cu: histogram256Kernel with its
// helpers addByte and addWord, and mergeHistogram256Kernel, with histogram_common.h's constants
// and its UMUL/UMAD macros (PARTIAL_HISTOGRAM256_COUNT = 240 blocks of
// HISTOGRAM256_THREADBLOCK_SIZE threads; the merge runs 256 blocks of 256 threads).

const HISTOGRAM256_BIN_COUNT: u32 = 256;
const UINT_BITS: u32 = 32;
const LOG2_WARP_SIZE: u32 = 5;
const WARP_SIZE: u32 = 1 << LOG2_WARP_SIZE;
const WARP_COUNT: u32 = 6;
const HISTOGRAM256_THREADBLOCK_SIZE: u32 = WARP_COUNT * WARP_SIZE;
const HISTOGRAM256_THREADBLOCK_MEMORY: u32 = WARP_COUNT * HISTOGRAM256_BIN_COUNT;
const PARTIAL_HISTOGRAM256_COUNT: u32 = 240;
const MERGE_THREADBLOCK_SIZE: u32 = 256;
const TAG_MASK: u32 = 0xFFFFFFFF;

macro_rules! UMUL {
    ($a:expr, $b:expr) => {
        (($a) * ($b))
    };
}
macro_rules! UMAD {
    ($a:expr, $b:expr, $c:expr) => {
        (UMUL!(($a), ($b)) + ($c))
    };
}

#[device]
fn add_byte(s_WarpHist: Shared<u32>, data: u32, threadTag: u32) {
    s_WarpHist.atomic_add(data as usize, 1);
}

#[device]
fn add_word(s_WarpHist: Shared<u32>, data: u32, tag: u32) {
    add_byte(s_WarpHist, (data >> 0) & 0xFF, tag);
    add_byte(s_WarpHist, (data >> 8) & 0xFF, tag);
    add_byte(s_WarpHist, (data >> 16) & 0xFF, tag);
    add_byte(s_WarpHist, (data >> 24) & 0xFF, tag);
}

#[kernel]
pub fn samples_histogram256(d_PartialHistograms: &mut [u32], d_Data: &[u32], dataCount: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    // Per-warp subhistogram storage
    let s_Hist = shared_array![u32; HISTOGRAM256_THREADBLOCK_MEMORY as usize];
    // deviceemu: `s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT` (pointer
    // arithmetic) is row `warp` of the array seen as rows of HISTOGRAM256_BIN_COUNT.
    let s_WarpHist =
        s_Hist.cast::<[u32; HISTOGRAM256_BIN_COUNT as usize]>().row((thread_idx().x >> LOG2_WARP_SIZE) as usize);

    // Clear shared memory storage for current threadblock before processing
    for i in 0..(HISTOGRAM256_THREADBLOCK_MEMORY / HISTOGRAM256_THREADBLOCK_SIZE) {
        s_Hist[thread_idx().x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
    }

    // Cycle through the entire data set, update subhistograms for each warp
    let tag: u32 = thread_idx().x << (UINT_BITS - LOG2_WARP_SIZE);

    cta.sync();

    for pos in (UMAD!(block_idx().x, block_dim().x, thread_idx().x)..dataCount)
        .step_by(UMUL!(block_dim().x, grid_dim().x) as usize)
    {
        let data: u32 = d_Data[pos];
        add_word(s_WarpHist, data, tag);
    }

    // Merge per-warp histograms into per-block and write to global memory
    cta.sync();

    for bin in (thread_idx().x..HISTOGRAM256_BIN_COUNT).step_by(HISTOGRAM256_THREADBLOCK_SIZE as usize) {
        let mut sum: u32 = 0;

        for i in 0..WARP_COUNT {
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT] & TAG_MASK;
        }

        d_PartialHistograms[block_idx().x * HISTOGRAM256_BIN_COUNT + bin] = sum;
    }
}

struct Histogram256 {
    data: Vec<u32>,
    ddata: DeviceBuffer<u32>,
    dpartial: DeviceBuffer<u32>,
    want: Vec<u32>,
}

impl Histogram256 {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 240 * 192 * 2,
            Size::Bench => 1 << 19,
        };
        let data = Rng::new(43).u32s(n, u32::MAX);
        let len = (PARTIAL_HISTOGRAM256_COUNT * HISTOGRAM256_BIN_COUNT) as usize;
        Box::new(Histogram256 {
            ddata: DeviceBuffer::from_slice(&data).unwrap(),
            dpartial: DeviceBuffer::zeroed(len).unwrap(),
            want: vec![0; len],
            data,
        })
    }
}

impl Case for Histogram256 {
    fn launch(&mut self) {
        launch!(samples_histogram256<<<PARTIAL_HISTOGRAM256_COUNT, HISTOGRAM256_THREADBLOCK_SIZE>>>(&mut self.dpartial, &self.ddata, self.data.len() as u32)).unwrap();
    }
    fn serial(&mut self) {
        self.want.iter_mut().for_each(|v| *v = 0);
        let stride = (PARTIAL_HISTOGRAM256_COUNT * HISTOGRAM256_THREADBLOCK_SIZE) as usize;
        for (pos, &d) in self.data.iter().enumerate() {
            let block = (pos % stride) / HISTOGRAM256_THREADBLOCK_SIZE as usize;
            for shift in [0, 8, 16, 24] {
                self.want[block * 256 + ((d >> shift) & 0xFF) as usize] += 1;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("partial histograms", &self.dpartial.to_vec().unwrap(), &self.want)
    }
}

#[kernel]
pub fn samples_merge_histogram256(d_Histogram: &mut [u32], d_PartialHistograms: &[u32], histogramCount: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();

    let mut sum: u32 = 0;

    for i in (thread_idx().x..histogramCount).step_by(MERGE_THREADBLOCK_SIZE as usize) {
        sum += d_PartialHistograms[block_idx().x + i * HISTOGRAM256_BIN_COUNT];
    }

    let data = shared_array![u32; MERGE_THREADBLOCK_SIZE as usize];
    data[thread_idx().x] = sum;

    let mut stride: u32 = MERGE_THREADBLOCK_SIZE / 2;
    while stride > 0 {
        cta.sync();

        if thread_idx().x < stride {
            data[thread_idx().x] += data[thread_idx().x + stride];
        }
        stride >>= 1;
    }

    if thread_idx().x == 0 {
        d_Histogram[block_idx().x] = data[0];
    }
}

struct MergeHistogram256 {
    partial: Vec<u32>,
    count: u32,
    dpartial: DeviceBuffer<u32>,
    dhist: DeviceBuffer<u32>,
    want: Vec<u32>,
}

impl MergeHistogram256 {
    fn make(size: Size) -> Box<dyn Case> {
        let count = match size {
            Size::Test => 240,
            Size::Bench => 1024,
        };
        let partial = Rng::new(44).u32s(count as usize * 256, 1 << 16);
        Box::new(MergeHistogram256 {
            dpartial: DeviceBuffer::from_slice(&partial).unwrap(),
            dhist: DeviceBuffer::zeroed(256).unwrap(),
            want: vec![0; 256],
            partial,
            count,
        })
    }
}

impl Case for MergeHistogram256 {
    fn launch(&mut self) {
        launch!(samples_merge_histogram256<<<HISTOGRAM256_BIN_COUNT, MERGE_THREADBLOCK_SIZE>>>(&mut self.dhist, &self.dpartial, self.count)).unwrap();
    }
    fn serial(&mut self) {
        for bin in 0..256 {
            self.want[bin] = (0..self.count as usize).map(|i| self.partial[bin + i * 256]).sum();
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("histogram", &self.dhist.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu: bitonicSortShared, with
// sortingNetworks_common.cuh's Comparator and SHARED_SIZE_LIMIT (bitonicSort: arrays of
// arrayLength <= SHARED_SIZE_LIMIT, blocks of SHARED_SIZE_LIMIT / 2 threads).

const SHARED_SIZE_LIMIT: u32 = 1024;

#[device]
fn comparator(keyA: &mut u32, valA: &mut u32, keyB: &mut u32, valB: &mut u32, dir: u32) {
    let mut t: u32;

    if ((*keyA > *keyB) as u32) == dir {
        t = *keyA;
        *keyA = *keyB;
        *keyB = t;
        t = *valA;
        *valA = *valB;
        *valB = t;
    }
}

#[kernel]
pub fn samples_bitonic_sort(
    d_DstKey: &mut [u32],
    d_DstVal: &mut [u32],
    d_SrcKey: &[u32],
    d_SrcVal: &[u32],
    arrayLength: u32,
    dir: u32,
) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    // Shared memory storage for one or more short vectors
    let s_key = shared_array![u32; SHARED_SIZE_LIMIT as usize];
    let s_val = shared_array![u32; SHARED_SIZE_LIMIT as usize];

    // Offset to the beginning of subbatch and load data
    // deviceemu: `d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x` (and the same for
    // the other three pointers) is an offset added to each index.
    let off: u32 = block_idx().x * SHARED_SIZE_LIMIT + thread_idx().x;
    s_key[thread_idx().x + 0] = d_SrcKey[off + 0];
    s_val[thread_idx().x + 0] = d_SrcVal[off + 0];
    s_key[thread_idx().x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[off + (SHARED_SIZE_LIMIT / 2)];
    s_val[thread_idx().x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[off + (SHARED_SIZE_LIMIT / 2)];

    let mut size: u32 = 2;
    while size < arrayLength {
        // Bitonic merge
        let ddd: u32 = dir ^ (((thread_idx().x & (size / 2)) != 0) as u32);

        let mut stride: u32 = size / 2;
        while stride > 0 {
            cta.sync();
            let pos: u32 = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            comparator(
                &mut s_key[pos + 0],
                &mut s_val[pos + 0],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                ddd,
            );
            stride >>= 1;
        }
        size <<= 1;
    }

    // ddd == dir for the last bitonic merge step
    {
        let mut stride: u32 = arrayLength / 2;
        while stride > 0 {
            cta.sync();
            let pos: u32 = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            comparator(
                &mut s_key[pos + 0],
                &mut s_val[pos + 0],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                dir,
            );
            stride >>= 1;
        }
    }

    cta.sync();
    d_DstKey[off + 0] = s_key[thread_idx().x + 0];
    d_DstVal[off + 0] = s_val[thread_idx().x + 0];
    d_DstKey[off + (SHARED_SIZE_LIMIT / 2)] = s_key[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
    d_DstVal[off + (SHARED_SIZE_LIMIT / 2)] = s_val[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
}

struct Bitonic {
    keys: Vec<u32>,
    vals: Vec<u32>,
    dkeys: DeviceBuffer<u32>,
    dvals: DeviceBuffer<u32>,
    dout_keys: DeviceBuffer<u32>,
    dout_vals: DeviceBuffer<u32>,
    want_keys: Vec<u32>,
    want_vals: Vec<u32>,
}

impl Bitonic {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 1024,
            Size::Bench => 8 * 1024,
        };
        let mut r = Rng::new(45);
        // Few distinct keys, so that equal keys meet and the values show the network's order.
        let keys = r.u32s(n, 500);
        let vals: Vec<u32> = (0..n as u32).collect();
        Box::new(Bitonic {
            dkeys: DeviceBuffer::from_slice(&keys).unwrap(),
            dvals: DeviceBuffer::from_slice(&vals).unwrap(),
            dout_keys: DeviceBuffer::zeroed(n).unwrap(),
            dout_vals: DeviceBuffer::zeroed(n).unwrap(),
            want_keys: vec![0; n],
            want_vals: vec![0; n],
            keys,
            vals,
        })
    }
}

impl Case for Bitonic {
    fn launch(&mut self) {
        let blocks = (self.keys.len() as u32) / SHARED_SIZE_LIMIT;
        launch!(samples_bitonic_sort<<<blocks, SHARED_SIZE_LIMIT / 2>>>(&mut self.dout_keys, &mut self.dout_vals, &self.dkeys, &self.dvals, SHARED_SIZE_LIMIT, 1)).unwrap();
    }
    fn serial(&mut self) {
        let len = SHARED_SIZE_LIMIT as usize;
        let dir = 1u32;
        let step = |k: &mut [u32], v: &mut [u32], stride: usize, ddd: &dyn Fn(usize) -> u32| {
            for t in 0..len / 2 {
                let pos = 2 * t - (t & (stride - 1));
                if ((k[pos] > k[pos + stride]) as u32) == ddd(t) {
                    k.swap(pos, pos + stride);
                    v.swap(pos, pos + stride);
                }
            }
        };
        for b in 0..self.keys.len() / len {
            let k = &mut self.want_keys[b * len..(b + 1) * len];
            let v = &mut self.want_vals[b * len..(b + 1) * len];
            k.copy_from_slice(&self.keys[b * len..(b + 1) * len]);
            v.copy_from_slice(&self.vals[b * len..(b + 1) * len]);
            let mut size = 2;
            while size < len {
                let mut stride = size / 2;
                while stride > 0 {
                    step(k, v, stride, &|t| dir ^ ((t & (size / 2)) != 0) as u32);
                    stride >>= 1;
                }
                size <<= 1;
            }
            let mut stride = len / 2;
            while stride > 0 {
                step(k, v, stride, &|_| dir);
                stride >>= 1;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("keys", &self.dout_keys.to_vec().unwrap(), &self.want_keys)?;
        same("values", &self.dout_vals.to_vec().unwrap(), &self.want_vals)
    }
}

// ---------------------------------------------------------------------------------------------
// Samples/2_Concepts_and_Techniques/scan/scan.cu: scanExclusiveShared with its helpers
// scan1Inclusive, scan1Exclusive, scan4Inclusive and scan4Exclusive, and uniformUpdate
// (THREADBLOCK_SIZE 256; scanExclusiveShort: arrays of arrayLength <= 4 * THREADBLOCK_SIZE).

const THREADBLOCK_SIZE: u32 = 256;

#[device]
fn scan1_inclusive(idata: u32, s_Data: Shared<u32>, size: u32, cta: cg::ThreadBlock) -> u32 {
    let mut pos: u32 = 2 * thread_idx().x - (thread_idx().x & (size - 1));
    s_Data[pos] = 0;
    pos += size;
    s_Data[pos] = idata;

    let mut offset: u32 = 1;
    while offset < size {
        cta.sync();
        let t: u32 = s_Data[pos] + s_Data[pos - offset];
        cta.sync();
        s_Data[pos] = t;
        offset <<= 1;
    }

    s_Data[pos]
}

#[device]
fn scan1_exclusive(idata: u32, s_Data: Shared<u32>, size: u32, cta: cg::ThreadBlock) -> u32 {
    scan1_inclusive(idata, s_Data, size, cta) - idata
}

#[device]
fn scan4_inclusive(idata4: Uint4, s_Data: Shared<u32>, size: u32, cta: cg::ThreadBlock) -> Uint4 {
    let mut idata4 = idata4;
    // Level-0 inclusive scan
    idata4.y += idata4.x;
    idata4.z += idata4.y;
    idata4.w += idata4.z;

    // Level-1 exclusive scan
    let oval: u32 = scan1_exclusive(idata4.w, s_Data, size / 4, cta);

    idata4.x += oval;
    idata4.y += oval;
    idata4.z += oval;
    idata4.w += oval;

    idata4
}

// Exclusive vector scan: the array to be scanned is stored
// in local thread memory scope as uint4
#[device]
fn scan4_exclusive(idata4: Uint4, s_Data: Shared<u32>, size: u32, cta: cg::ThreadBlock) -> Uint4 {
    let mut odata4: Uint4 = scan4_inclusive(idata4, s_Data, size, cta);
    odata4.x -= idata4.x;
    odata4.y -= idata4.y;
    odata4.z -= idata4.z;
    odata4.w -= idata4.w;
    odata4
}

#[kernel]
pub fn samples_scan_exclusive(d_Dst: &mut [Uint4], d_Src: &[Uint4], size: u32) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let s_Data = shared_array![u32; 2 * THREADBLOCK_SIZE as usize];

    let pos: u32 = block_idx().x * block_dim().x + thread_idx().x;

    // Load data
    let idata4: Uint4 = d_Src[pos];

    // Calculate exclusive scan
    let odata4: Uint4 = scan4_exclusive(idata4, s_Data, size, cta);

    // Write back
    d_Dst[pos] = odata4;
}

fn to_u4(v: &[u32]) -> Vec<Uint4> {
    v.chunks(4).map(|c| Uint4 { x: c[0], y: c[1], z: c[2], w: c[3] }).collect()
}

struct ScanExclusive {
    x: Vec<u32>,
    dx: DeviceBuffer<Uint4>,
    dout: DeviceBuffer<Uint4>,
    want: Vec<u32>,
}

impl ScanExclusive {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 1024,
            Size::Bench => 64 * 1024,
        };
        let x = Rng::new(46).u32s(n, 1 << 20);
        Box::new(ScanExclusive {
            dx: DeviceBuffer::from_slice(&to_u4(&x)).unwrap(),
            dout: DeviceBuffer::zeroed(n / 4).unwrap(),
            want: vec![0; n],
            x,
        })
    }
}

impl Case for ScanExclusive {
    fn launch(&mut self) {
        let blocks = self.x.len() as u32 / (4 * THREADBLOCK_SIZE);
        launch!(samples_scan_exclusive<<<blocks, THREADBLOCK_SIZE>>>(&mut self.dout, &self.dx, 4 * THREADBLOCK_SIZE))
            .unwrap();
    }
    fn serial(&mut self) {
        for (b, x) in self.x.chunks(1024).enumerate() {
            let mut acc = 0u32;
            for (j, &v) in x.iter().enumerate() {
                self.want[b * 1024 + j] = acc;
                acc += v;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("scan", &self.dout.to_vec().unwrap(), &to_u4(&self.want))
    }
}

#[kernel]
pub fn samples_uniform_update(d_Data: &mut [Uint4], d_Buffer: &[u32]) {
    // Handle to thread block group
    let cta = cg::this_thread_block();
    let buf = shared_array![u32; 1];
    let pos: u32 = block_idx().x * block_dim().x + thread_idx().x;

    if thread_idx().x == 0 {
        buf[0] = d_Buffer[block_idx().x];
    }

    cta.sync();

    let mut data4: Uint4 = d_Data[pos];
    data4.x += buf[0];
    data4.y += buf[0];
    data4.z += buf[0];
    data4.w += buf[0];
    d_Data[pos] = data4;
}

struct UniformUpdate {
    x: Vec<u32>,
    x4: Vec<Uint4>,
    buffer: Vec<u32>,
    dx: DeviceBuffer<Uint4>,
    dbuf: DeviceBuffer<u32>,
    want: Vec<u32>,
}

impl UniformUpdate {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 1024,
            Size::Bench => 256 * 1024,
        };
        let mut r = Rng::new(47);
        let x = r.u32s(n, 1 << 20);
        let buffer = r.u32s(n / 1024, 1 << 20);
        Box::new(UniformUpdate {
            dx: DeviceBuffer::from_slice(&to_u4(&x)).unwrap(),
            dbuf: DeviceBuffer::from_slice(&buffer).unwrap(),
            want: x.clone(),
            x4: to_u4(&x),
            x,
            buffer,
        })
    }
}

impl Case for UniformUpdate {
    fn launch(&mut self) {
        // The kernel adds in place: start from the same data each time.
        self.dx.copy_from_slice(&self.x4).unwrap();
        launch!(samples_uniform_update<<<self.buffer.len() as u32, THREADBLOCK_SIZE>>>(&mut self.dx, &self.dbuf))
            .unwrap();
    }
    fn serial(&mut self) {
        self.want.copy_from_slice(&self.x);
        for (j, w) in self.want.iter_mut().enumerate() {
            *w += self.buffer[j / 1024];
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("data", &self.dx.to_vec().unwrap(), &to_u4(&self.want))
    }
}
