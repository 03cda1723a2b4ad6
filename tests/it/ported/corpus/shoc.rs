//! SHOC (github.com/vetter/shoc, commit 0aea03beba2f09fcb5935cc11737372fe4de9ec0), level 1:
//! reduction, scan, stencil2d, sort, and triad for contrast.
use deviceemu::prelude::*;

use super::vec::{Float4, Uint2, Uint4};
use super::{same, same_f32, Case, Entry, Rng, Size};

pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "shoc_reduce",
            suite: "SHOC",
            original: "reduction/reduction_kernel.h: reduce<float, 256>",
            barriers: true,
            make: Reduce::make,
        },
        Entry {
            name: "shoc_scan_reduce",
            suite: "SHOC",
            original: "scan/scan_kernel.h: reduce<float, 256>",
            barriers: true,
            make: ScanReduce::make,
        },
        Entry {
            name: "shoc_scan_bottom",
            suite: "SHOC",
            original: "scan/scan_kernel.h: bottom_scan<float, float4, 256>",
            barriers: true,
            make: BottomScan::make,
        },
        Entry {
            name: "shoc_stencil2d",
            suite: "SHOC",
            original: "stencil2d/CUDAStencilKernel.cu: StencilKernel<float>",
            barriers: true,
            make: Stencil2d::make,
        },
        Entry {
            name: "shoc_sort_blocks",
            suite: "SHOC",
            original: "sort/sort_kernel.cu: radixSortBlocks",
            barriers: true,
            make: SortBlocks::make,
        },
        Entry {
            name: "shoc_sort_offsets",
            suite: "SHOC",
            original: "sort/sort_kernel.cu: findRadixOffsets",
            barriers: true,
            make: SortOffsets::make,
        },
        Entry {
            name: "shoc_sort_reorder",
            suite: "SHOC",
            original: "sort/sort_kernel.cu: reorderData",
            barriers: true,
            make: SortReorder::make,
        },
        Entry {
            name: "shoc_sort_scan",
            suite: "SHOC",
            original: "sort/sort_kernel.cu: scan",
            barriers: true,
            make: SortScan::make,
        },
        Entry {
            name: "shoc_sort_add_uniform",
            suite: "SHOC",
            original: "sort/sort_kernel.cu: vectorAddUniform4",
            barriers: true,
            make: AddUniform::make,
        },
        Entry {
            name: "shoc_triad",
            suite: "SHOC",
            original: "triad/Triad.cu: triad",
            barriers: false,
            make: Triad::make,
        },
    ]
}

/// The tree of `reduce`'s shared-memory steps on one block's 256 partial sums: for each
/// stride from 128 down to 1, `s[t] += s[t + stride]` for `t < stride` (the warp steps' other
/// lanes write elements that no later step reads for `s[0]`).
fn tree_256(s: &mut [f32; 256]) -> f32 {
    let mut stride = 128;
    while stride > 0 {
        for t in 0..stride {
            s[t] += s[t + stride];
        }
        stride /= 2;
    }
    s[0]
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/reduction/reduction_kernel.h: reduce<float, 256> (Reduction.cu launches 64
// blocks of 256 threads with 256 floats of dynamic shared memory).

/// `blockSize`, the template argument of `reduce<T, 256>`.
const REDUCE_BLOCK_SIZE: u32 = 256;

#[kernel]
pub fn shoc_reduce(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let tid: u32 = thread_idx().x;
    let mut i: u32 = (block_idx().x * (block_dim().x * 2)) + tid;
    let gridSize: u32 = block_dim().x * 2 * grid_dim().x;

    // Shared memory will be used for intrablock summation
    let sdata = dynamic_shared::<f32>();

    sdata[tid] = 0.0f32;

    // Reduce multiple elements per thread
    while i < n {
        sdata[tid] += g_idata[i] + g_idata[i + REDUCE_BLOCK_SIZE];
        i += gridSize;
    }
    sync_threads();

    // Reduce the contents of shared memory
    // NB: This is an unrolled loop, and assumes warp-syncrhonous
    // execution.
    if REDUCE_BLOCK_SIZE >= 512 {
        if tid < 256 {
            sdata[tid] += sdata[tid + 256];
        }
        sync_threads();
    }
    if REDUCE_BLOCK_SIZE >= 256 {
        if tid < 128 {
            sdata[tid] += sdata[tid + 128];
        }
        sync_threads();
    }
    if REDUCE_BLOCK_SIZE >= 128 {
        if tid < 64 {
            sdata[tid] += sdata[tid + 64];
        }
        sync_threads();
    }
    if tid < warp_size() {
        // Volta: the original's `sdata[tid] += sdata[tid + 32]; ... sdata[tid] += sdata[tid + 1];`
        // with no synchronisation ("NB2: This section would also need __sync calls if warp
        // synchronous execution were not assumed"), in the Programming Guide's corrected form.
        let mut v = sdata[tid];
        if REDUCE_BLOCK_SIZE >= 64 {
            v += sdata[tid + 32];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 32 {
            v += sdata[tid + 16];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 16 {
            v += sdata[tid + 8];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 8 {
            v += sdata[tid + 4];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 4 {
            v += sdata[tid + 2];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 2 {
            v += sdata[tid + 1];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
    }

    // Write result for this block to global memory
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

struct Reduce {
    x: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    blocks: u32,
    want: Vec<f32>,
}

impl Reduce {
    fn make(size: Size) -> Box<dyn Case> {
        let (blocks, n) = match size {
            Size::Test => (16, 16 * 512 * 4),
            Size::Bench => (64, 1 << 21),
        };
        let x = Rng::new(1).f32s(n);
        Box::new(Reduce {
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
        launch!(shoc_reduce<<<self.blocks, 256, 256 * 4>>>(&self.dx, &mut self.dout, n)).unwrap();
    }
    fn serial(&mut self) {
        let n = self.x.len();
        let grid_size = 512 * self.blocks as usize;
        for b in 0..self.blocks as usize {
            let mut s = [0.0f32; 256];
            for (tid, st) in s.iter_mut().enumerate() {
                let mut i = b * 512 + tid;
                while i < n {
                    *st += self.x[i] + self.x[i + 256];
                    i += grid_size;
                }
            }
            self.want[b] = tree_256(&mut s);
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("block sums", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/scan/scan_kernel.h: reduce<float, 256> (Scan.cu: 64 blocks of 256 threads,
// 256 floats of dynamic shared memory), each block summing a contiguous region.

#[kernel]
pub fn shoc_scan_reduce(g_idata: &[f32], g_odata: &mut [f32], n: i32) {
    // First, calculate the bounds of the region of the array
    // that this block will sum.  We need these regions to match
    // perfectly with those in the bottom-level scan, so we index
    // as if vector types of length 4 were in use.  This prevents
    // errors due to slightly misaligned regions.
    let region_size: i32 = ((n / 4) / grid_dim().x as i32) * 4;
    let block_start: i32 = block_idx().x as i32 * region_size;

    // Give the last block any extra elements
    let block_stop: i32 = if block_idx().x == grid_dim().x - 1 { n } else { block_start + region_size };

    // Calculate starting index for this thread
    let tid: i32 = thread_idx().x as i32;
    let mut i: i32 = block_start + tid;

    // Shared memory will be used for intrablock summation
    let sdata = dynamic_shared::<f32>();
    // This thread's sum
    let mut sum: f32 = 0.0f32;

    // Reduce multiple elements per thread
    while i < block_stop {
        sum += g_idata[i];
        i += REDUCE_BLOCK_SIZE as i32;
    }
    // Load this thread's sum into shared memory
    sdata[tid] = sum;
    sync_threads();

    // Reduce the contents of shared memory
    // NB: This is an unrolled loop, and assumes warp-syncrhonous
    // execution.
    if REDUCE_BLOCK_SIZE >= 512 {
        if tid < 256 {
            sdata[tid] += sdata[tid + 256];
        }
        sync_threads();
    }
    if REDUCE_BLOCK_SIZE >= 256 {
        if tid < 128 {
            sdata[tid] += sdata[tid + 128];
        }
        sync_threads();
    }
    if REDUCE_BLOCK_SIZE >= 128 {
        if tid < 64 {
            sdata[tid] += sdata[tid + 64];
        }
        sync_threads();
    }
    if tid < warp_size() as i32 {
        // Volta: see `shoc_reduce`.
        let mut v = sdata[tid];
        if REDUCE_BLOCK_SIZE >= 64 {
            v += sdata[tid + 32];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 32 {
            v += sdata[tid + 16];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 16 {
            v += sdata[tid + 8];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 8 {
            v += sdata[tid + 4];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 4 {
            v += sdata[tid + 2];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
        if REDUCE_BLOCK_SIZE >= 2 {
            v += sdata[tid + 1];
            sync_warp(FULL_MASK);
            sdata[tid] = v;
            sync_warp(FULL_MASK);
        }
    }

    // Write result for this block to global memory
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

/// The serial `scan_kernel.h` `reduce`: block `b`'s sum of its region, by the kernel's tree.
fn scan_reduce_serial(x: &[f32], blocks: usize, out: &mut [f32]) {
    let n = x.len();
    let region_size = ((n / 4) / blocks) * 4;
    for b in 0..blocks {
        let start = b * region_size;
        let stop = if b == blocks - 1 { n } else { start + region_size };
        let mut s = [0.0f32; 256];
        for (tid, st) in s.iter_mut().enumerate() {
            let mut sum = 0.0f32;
            let mut i = start + tid;
            while i < stop {
                sum += x[i];
                i += 256;
            }
            *st = sum;
        }
        out[b] = tree_256(&mut s);
    }
}

struct ScanReduce {
    x: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    blocks: u32,
    want: Vec<f32>,
}

impl ScanReduce {
    fn make(size: Size) -> Box<dyn Case> {
        let (blocks, n) = match size {
            Size::Test => (16, 16 * 1024 + 36),
            Size::Bench => (64, 1 << 21),
        };
        let x = Rng::new(2).f32s(n);
        Box::new(ScanReduce {
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(blocks as usize).unwrap(),
            x,
            blocks,
            want: vec![0.0; blocks as usize],
        })
    }
}

impl Case for ScanReduce {
    fn launch(&mut self) {
        let n = self.x.len() as i32;
        launch!(shoc_scan_reduce<<<self.blocks, 256, 256 * 4>>>(&self.dx, &mut self.dout, n)).unwrap();
    }
    fn serial(&mut self) {
        scan_reduce_serial(&self.x, self.blocks as usize, &mut self.want);
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("block sums", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/scan/scan_kernel.h: bottom_scan<float, float4, 256> and its helper
// scanLocalMem<float, 256> (Scan.cu: 64 blocks of 256 threads, 512 floats of dynamic shared
// memory; g_block_sums holds the exclusive scan of the blocks' sums).

/// `blockSize`, the template argument of `bottom_scan` and `scanLocalMem`.
const SCAN_BLOCK_SIZE: i32 = 256;

#[device]
fn scan_local_mem(val: f32, s_data: Shared<f32>) -> f32 {
    // Set first half of local memory to zero to make room for scanning
    let mut idx: i32 = thread_idx().x as i32;
    s_data[idx] = 0.0f32;

    // Set second half to block sums from global memory, but don't go out
    // of bounds
    idx += SCAN_BLOCK_SIZE;
    s_data[idx] = val;
    sync_threads();

    // Now, perform Kogge-Stone scan
    let mut t: f32;
    t = s_data[idx - 1];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    t = s_data[idx - 2];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    t = s_data[idx - 4];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    t = s_data[idx - 8];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    t = s_data[idx - 16];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    if SCAN_BLOCK_SIZE > 32 {
        t = s_data[idx - 32];
        sync_threads();
        s_data[idx] += t;
        sync_threads();
    }
    if SCAN_BLOCK_SIZE > 64 {
        t = s_data[idx - 64];
        sync_threads();
        s_data[idx] += t;
        sync_threads();
    }
    if SCAN_BLOCK_SIZE > 128 {
        t = s_data[idx - 128];
        sync_threads();
        s_data[idx] += t;
        sync_threads();
    }
    if SCAN_BLOCK_SIZE > 256 {
        t = s_data[idx - 256];
        sync_threads();
        s_data[idx] += t;
        sync_threads();
    }
    if SCAN_BLOCK_SIZE > 512 {
        t = s_data[idx - 512];
        sync_threads();
        s_data[idx] += t;
        sync_threads();
    }

    s_data[idx - 1] // exclusive
}

#[kernel]
pub fn shoc_scan_bottom(g_idata: &[f32], g_odata: &mut [f32], g_block_sums: &[f32], n: i32) {
    // Shared memory will be used for intrablock summation
    let sdata = dynamic_shared::<f32>();

    let s_seed = shared_array![f32; 1];

    // Prepare for reading 4-element vectors
    // Assume n is divisible by 4
    let g_idata4 = g_idata.cast::<Float4>();
    let g_odata4 = g_odata.cast::<Float4>();
    let mut n = n;
    n /= 4; //vecT is four wide

    // Calculate the bounds of the region of the array
    // that this block will scan
    let region_size: i32 = n / grid_dim().x as i32;
    let block_start: i32 = block_idx().x as i32 * region_size;
    let block_stop: i32 = if block_idx().x == grid_dim().x - 1 { n } else { block_start + region_size };

    // Calculate initial starting point for this thread
    let mut i: i32 = block_start + thread_idx().x as i32;
    let mut window: i32 = block_start;

    // Seed the bottom scan with the results from the top scan (i.e. load the per
    // block sums from the previous kernel)
    if thread_idx().x == 0 {
        s_seed[0] = g_block_sums[block_idx().x];
    }

    sync_threads();

    // Scan multiple elements per thread
    while window < block_stop {
        let mut val_4: Float4;
        if i < block_stop {
            // Make sure we don't read out of bounds
            val_4 = g_idata4[i];
        } else {
            val_4 = Float4 { x: 0.0f32, y: 0.0f32, z: 0.0f32, w: 0.0f32 };
        }

        // Serial scan in registers
        val_4.y += val_4.x;
        val_4.z += val_4.y;
        val_4.w += val_4.z;

        // ExScan sums in shared memory
        let res: f32 = scan_local_mem(val_4.w, sdata);

        // Update and write out to global memory
        val_4.x += res + s_seed[0];
        val_4.y += res + s_seed[0];
        val_4.z += res + s_seed[0];
        val_4.w += res + s_seed[0];

        // Make sure we don't write out of bounds
        if i < block_stop {
            g_odata4[i] = val_4;
        }

        sync_threads();
        // Next seed will be the last value
        if thread_idx().x as i32 == SCAN_BLOCK_SIZE - 1 {
            s_seed[0] = val_4.w;
        }

        // Advance window
        window += SCAN_BLOCK_SIZE;
        i += SCAN_BLOCK_SIZE;
    }
}

struct BottomScan {
    x: Vec<f32>,
    sums: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dsums: DeviceBuffer<f32>,
    dout: DeviceBuffer<f32>,
    blocks: u32,
    want: Vec<f32>,
}

impl BottomScan {
    fn make(size: Size) -> Box<dyn Case> {
        let (blocks, n) = match size {
            Size::Test => (8, 8 * 4096 + 1000),
            Size::Bench => (64, 1 << 17),
        };
        let x = Rng::new(3).f32s(n);
        // The block sums `reduce` and `scan_single_block` would give: an exclusive scan of
        // the blocks' sums.
        let mut block = vec![0.0f32; blocks as usize];
        scan_reduce_serial(&x, blocks as usize, &mut block);
        let mut sums = vec![0.0f32; blocks as usize];
        for b in 1..blocks as usize {
            sums[b] = sums[b - 1] + block[b - 1];
        }
        Box::new(BottomScan {
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dsums: DeviceBuffer::from_slice(&sums).unwrap(),
            dout: DeviceBuffer::zeroed(n).unwrap(),
            want: vec![0.0; n],
            x,
            sums,
            blocks,
        })
    }
}

impl Case for BottomScan {
    fn launch(&mut self) {
        let n = self.x.len() as i32;
        launch!(shoc_scan_bottom<<<self.blocks, 256, 512 * 4>>>(&self.dx, &mut self.dout, &self.dsums, n)).unwrap();
    }
    fn serial(&mut self) {
        const B: usize = SCAN_BLOCK_SIZE as usize;
        let n = self.x.len() / 4;
        let grid = self.blocks as usize;
        let region_size = n / grid;
        for b in 0..grid {
            let start = b * region_size;
            let stop = if b == grid - 1 { n } else { start + region_size };
            let mut seed = self.sums[b];
            let mut window = start;
            while window < stop {
                let mut vals = [[0.0f32; 4]; B];
                let mut s = [0.0f32; 2 * B];
                for tid in 0..B {
                    let i = window + tid;
                    let mut v = [0.0f32; 4];
                    if i < stop {
                        v.copy_from_slice(&self.x[4 * i..4 * i + 4]);
                    }
                    v[1] += v[0];
                    v[2] += v[1];
                    v[3] += v[2];
                    vals[tid] = v;
                    s[B + tid] = v[3];
                }
                // scanLocalMem's Kogge-Stone steps.
                let mut off = 1;
                while off < B {
                    let before = s;
                    for j in B..2 * B {
                        s[j] += before[j - off];
                    }
                    off *= 2;
                }
                for tid in 0..B {
                    let res = s[B + tid - 1];
                    let v = &mut vals[tid];
                    for e in v.iter_mut() {
                        *e += res + seed;
                    }
                    let i = window + tid;
                    if i < stop {
                        self.want[4 * i..4 * i + 4].copy_from_slice(v);
                    }
                }
                seed = vals[B - 1][3];
                window += B;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("scan", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/stencil2d/CUDAStencilKernel.cu: StencilKernel<float> with its helpers
// ToGlobalRow, ToGlobalCol and ToFlatIdx (CUDAStencil::operator(): blocks of 1 x lCols
// threads, each thread a strip of lRows items; the default lsize is 8,256; dynamic shared
// memory of (lRows + 2) * (lCols + 2) floats).

#[device]
fn to_global_row(gidRow: i32, lszRow: i32, lidRow: i32) -> i32 {
    gidRow * lszRow + lidRow
}

#[device]
fn to_global_col(gidCol: i32, lszCol: i32, lidCol: i32) -> i32 {
    gidCol * lszCol + lidCol
}

#[device]
fn to_flat_idx(row: i32, col: i32, rowWidth: i32) -> i32 {
    // assumes input coordinates and dimensions are logical (without halo)
    // and a halo width of 1
    (row + 1) * (rowWidth + 2) + (col + 1)
}

#[kernel]
pub fn shoc_stencil2d(
    data: &[f32],
    newData: &mut [f32],
    alignment: i32,
    nStripItems: i32,
    wCenter: f32,
    wCardinal: f32,
    wDiagonal: f32,
) {
    // determine our location in the coordinate system
    // see the comment in operator() at the definition of the dimGrid
    // and dimBlock dim3s to understand why .x == row and .y == column.
    let gidRow: i32 = block_idx().x as i32;
    let gidCol: i32 = block_idx().y as i32;
    // int gszRow = gridDim.x;
    let gszCol: i32 = grid_dim().y as i32;
    let lidRow: i32 = thread_idx().x as i32;
    let lidCol: i32 = thread_idx().y as i32;
    let lszRow: i32 = nStripItems;
    let lszCol: i32 = block_dim().y as i32;

    // determine our logical global data coordinates (without halo)
    let gRow: i32 = to_global_row(gidRow, lszRow, lidRow);
    let gCol: i32 = to_global_col(gidCol, lszCol, lidCol);

    // determine pitch of rows (without halo)
    let nCols: i32 = gszCol * lszCol + 2; // assume halo is there for computing padding
    let nPaddedCols: i32 = nCols + (if (nCols % alignment) == 0 { 0 } else { alignment - (nCols % alignment) });
    let gRowWidth: i32 = nPaddedCols - 2; // remove the halo

    // Copy my global data item to a shared local buffer.
    // That local buffer is passed to us.
    // We assume it is large enough to hold all the data computed by
    // our thread block, plus a halo of width 1.
    let sh = dynamic_shared::<f32>();
    let lRowWidth: i32 = lszCol;
    for i in 0..(lszRow + 2) {
        let lidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol, lRowWidth);
        let gidx: i32 = to_flat_idx(gRow - 1 + i, gCol, gRowWidth);
        sh[lidx] = data[gidx];
    }

    // Copy the "left" and "right" halo rows into our local memory buffer.
    // Only two threads are involved (first column and last column).
    if lidCol == 0 {
        for i in 0..(lszRow + 2) {
            let lidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol - 1, lRowWidth);
            let gidx: i32 = to_flat_idx(gRow - 1 + i, gCol - 1, gRowWidth);
            sh[lidx] = data[gidx];
        }
    } else if lidCol == (lszCol - 1) {
        for i in 0..(lszRow + 2) {
            let lidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol + 1, lRowWidth);
            let gidx: i32 = to_flat_idx(gRow - 1 + i, gCol + 1, gRowWidth);
            sh[lidx] = data[gidx];
        }
    }

    // let all those loads finish
    sync_threads();

    // do my part of the smoothing operation
    for i in 0..lszRow {
        let cidx: i32 = to_flat_idx(lidRow + i, lidCol, lRowWidth);
        let nidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol, lRowWidth);
        let sidx: i32 = to_flat_idx(lidRow + 1 + i, lidCol, lRowWidth);
        let eidx: i32 = to_flat_idx(lidRow + i, lidCol + 1, lRowWidth);
        let widx: i32 = to_flat_idx(lidRow + i, lidCol - 1, lRowWidth);
        let neidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol + 1, lRowWidth);
        let seidx: i32 = to_flat_idx(lidRow + 1 + i, lidCol + 1, lRowWidth);
        let nwidx: i32 = to_flat_idx(lidRow - 1 + i, lidCol - 1, lRowWidth);
        let swidx: i32 = to_flat_idx(lidRow + 1 + i, lidCol - 1, lRowWidth);

        let centerValue: f32 = sh[cidx];
        let cardinalValueSum: f32 = sh[nidx] + sh[sidx] + sh[eidx] + sh[widx];
        let diagonalValueSum: f32 = sh[neidx] + sh[seidx] + sh[nwidx] + sh[swidx];

        newData[to_flat_idx(gRow + i, gCol, gRowWidth)] =
            wCenter * centerValue + wCardinal * cardinalValueSum + wDiagonal * diagonalValueSum;
    }
}

struct Stencil2d {
    data: Vec<f32>,
    ddata: DeviceBuffer<f32>,
    dnew: DeviceBuffer<f32>,
    rows: usize,
    cols: usize,
    pitch: usize,
    want: Vec<f32>,
}

/// SHOC's matrix pad (`Matrix2D::GetPad`, the row alignment in elements).
const STENCIL_ALIGNMENT: usize = 16;
const STENCIL_L_ROWS: usize = 8;
const STENCIL_L_COLS: usize = 256;
const STENCIL_W: (f32, f32, f32) = (0.25, 0.15, 0.05);

impl Stencil2d {
    fn make(size: Size) -> Box<dyn Case> {
        // Logical rows and columns (without the halo).
        let (rows, cols): (usize, usize) = match size {
            Size::Test => (64, 512),
            Size::Bench => (512, 1024),
        };
        let n_cols = cols + 2;
        let pitch = n_cols.div_ceil(STENCIL_ALIGNMENT) * STENCIL_ALIGNMENT;
        let data = Rng::new(4).f32s((rows + 2) * pitch);
        Box::new(Stencil2d {
            ddata: DeviceBuffer::from_slice(&data).unwrap(),
            // The halo of the new matrix is the old one's, as the host copies it.
            dnew: DeviceBuffer::from_slice(&data).unwrap(),
            want: data.clone(),
            data,
            rows,
            cols,
            pitch,
        })
    }
}

impl Case for Stencil2d {
    fn launch(&mut self) {
        let grid = ((self.rows / STENCIL_L_ROWS) as u32, (self.cols / STENCIL_L_COLS) as u32);
        let shared = 4 * (STENCIL_L_ROWS + 2) * (STENCIL_L_COLS + 2);
        let (c, d, g) = STENCIL_W;
        launch!(shoc_stencil2d<<<grid, (1, STENCIL_L_COLS as u32), shared>>>(
            &self.ddata, &mut self.dnew, STENCIL_ALIGNMENT as i32, STENCIL_L_ROWS as i32, c, d, g
        ))
        .unwrap();
    }
    fn serial(&mut self) {
        let (wc, wn, wd) = STENCIL_W;
        let p = self.pitch;
        let a = &self.data;
        for r in 1..=self.rows {
            for c in 1..=self.cols {
                let at = |dr: isize, dc: isize| a[(r as isize + dr) as usize * p + (c as isize + dc) as usize];
                let center = at(0, 0);
                let cardinal = at(-1, 0) + at(1, 0) + at(0, 1) + at(0, -1);
                let diagonal = at(-1, 1) + at(1, 1) + at(-1, -1) + at(1, -1);
                self.want[r * p + c] = wc * center + wn * cardinal + wd * diagonal;
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("new matrix", &self.dnew.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/sort/sort_kernel.cu (from CUDPP; SORT_BLOCK_SIZE 128, SCAN_BLOCK_SIZE 256 in
// sort_kernel.h): radixSortBlocks with its helpers scanLSB and scan4, findRadixOffsets,
// reorderData, scan with its helper scanLocalMem, vectorAddUniform4. Sort.cu's first pass:
// nbits 4, startbit 0.

#[device]
fn scan_lsb(val: u32, s_data: Shared<u32>) -> u32 {
    // Shared mem is 256 uints long, set first half to 0's
    let mut idx: i32 = thread_idx().x as i32;
    s_data[idx] = 0;
    sync_threads();

    // Set 2nd half to thread local sum (sum of the 4 elems from global mem)
    idx += block_dim().x as i32; // += 128 in this case

    // Unrolled scan in local memory

    // Some of these __sync's are unnecessary due to warp synchronous
    // execution.  Right now these are left in to be consistent with
    // opencl version, since that has to execute on platforms where
    // thread groups are not synchronous (i.e. CPUs)
    let mut t: u32;
    s_data[idx] = val;
    sync_threads();
    t = s_data[idx - 1];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 2];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 4];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 8];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 16];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 32];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 64];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    s_data[idx] - val // convert inclusive -> exclusive
}

#[device]
fn scan4(idata: Uint4, ptr: Shared<u32>) -> Uint4 {
    let mut val4: Uint4 = idata;
    let mut sum: Uint4 = Uint4::default();

    // Scan the 4 elements in idata within this thread
    sum.x = val4.x;
    sum.y = val4.y + sum.x;
    sum.z = val4.z + sum.y;
    let mut val: u32 = val4.w + sum.z;

    // Now scan those sums across the local work group
    val = scan_lsb(val, ptr);

    val4.x = val;
    val4.y = val + sum.x;
    val4.z = val + sum.y;
    val4.w = val + sum.z;

    val4
}

#[kernel]
pub fn shoc_sort_blocks(
    nbits: u32,
    startbit: u32,
    keysOut: &mut [Uint4],
    valuesOut: &mut [Uint4],
    keysIn: &[Uint4],
    valuesIn: &[Uint4],
) {
    let sMem = shared_array![u32; 512];

    // Get Indexing information
    let i: u32 = thread_idx().x + (block_idx().x * block_dim().x);
    let tid: u32 = thread_idx().x;
    let localSize: u32 = block_dim().x;

    // Load keys and vals from global memory
    let mut key: Uint4;
    let mut value: Uint4;
    key = keysIn[i];
    value = valuesIn[i];

    // For each of the 4 bits
    for shift in startbit..(startbit + nbits) {
        // Check if the LSB is 0
        let mut lsb: Uint4 = Uint4::default();
        lsb.x = (((key.x >> shift) & 0x1) == 0) as u32;
        lsb.y = (((key.y >> shift) & 0x1) == 0) as u32;
        lsb.z = (((key.z >> shift) & 0x1) == 0) as u32;
        lsb.w = (((key.w >> shift) & 0x1) == 0) as u32;

        // Do an exclusive scan of how many elems have 0's in the LSB
        // When this is finished, address.n will contain the number of
        // elems with 0 in the LSB which precede elem n
        let address: Uint4 = scan4(lsb, sMem);

        let numtrue = shared_array![u32; 1];

        // Store the total number of elems with an LSB of 0
        // to shared mem
        if tid == localSize - 1 {
            numtrue[0] = address.w + lsb.w;
        }
        sync_threads();

        // Determine rank -- position in the block
        // If you are a 0 --> your position is the scan of 0's
        // If you are a 1 --> your position is calculated as below
        let mut rank: Uint4 = Uint4::default();
        let idx: i32 = (tid * 4) as i32;
        rank.x = if lsb.x != 0 { address.x } else { numtrue[0] + idx as u32 - address.x };
        rank.y = if lsb.y != 0 { address.y } else { numtrue[0] + idx as u32 + 1 - address.y };
        rank.z = if lsb.z != 0 { address.z } else { numtrue[0] + idx as u32 + 2 - address.z };
        rank.w = if lsb.w != 0 { address.w } else { numtrue[0] + idx as u32 + 3 - address.w };

        // Scatter keys into local mem
        sMem[(rank.x & 3) * localSize + (rank.x >> 2)] = key.x;
        sMem[(rank.y & 3) * localSize + (rank.y >> 2)] = key.y;
        sMem[(rank.z & 3) * localSize + (rank.z >> 2)] = key.z;
        sMem[(rank.w & 3) * localSize + (rank.w >> 2)] = key.w;
        sync_threads();

        // Read keys out of local mem into registers, in prep for
        // write out to global mem
        key.x = sMem[tid];
        key.y = sMem[tid + localSize];
        key.z = sMem[tid + 2 * localSize];
        key.w = sMem[tid + 3 * localSize];
        sync_threads();

        // Scatter values into local mem
        sMem[(rank.x & 3) * localSize + (rank.x >> 2)] = value.x;
        sMem[(rank.y & 3) * localSize + (rank.y >> 2)] = value.y;
        sMem[(rank.z & 3) * localSize + (rank.z >> 2)] = value.z;
        sMem[(rank.w & 3) * localSize + (rank.w >> 2)] = value.w;
        sync_threads();

        // Read keys out of local mem into registers, in prep for
        // write out to global mem
        value.x = sMem[tid];
        value.y = sMem[tid + localSize];
        value.z = sMem[tid + 2 * localSize];
        value.w = sMem[tid + 3 * localSize];
        sync_threads();
    }
    keysOut[i] = key;
    valuesOut[i] = value;
}

fn as_u4(v: &[u32]) -> Vec<Uint4> {
    v.chunks(4).map(|c| Uint4 { x: c[0], y: c[1], z: c[2], w: c[3] }).collect()
}

fn as_u2(v: &[u32]) -> Vec<Uint2> {
    v.chunks(2).map(|c| Uint2 { x: c[0], y: c[1] }).collect()
}

/// Sorts each block of `block` (key, value) pairs by bits `startbit..startbit + nbits` of the
/// key, one stable split per bit, as radixSortBlocks does.
fn sort_blocks_serial(keys: &mut [u32], values: &mut [u32], block: usize, startbit: u32, nbits: u32) {
    for (k, v) in keys.chunks_mut(block).zip(values.chunks_mut(block)) {
        for shift in startbit..startbit + nbits {
            let mut nk = Vec::with_capacity(block);
            let mut nv = Vec::with_capacity(block);
            for bit in [0, 1] {
                for j in 0..k.len() {
                    if (k[j] >> shift) & 1 == bit {
                        nk.push(k[j]);
                        nv.push(v[j]);
                    }
                }
            }
            k.copy_from_slice(&nk);
            v.copy_from_slice(&nv);
        }
    }
}

struct SortBlocks {
    keys: Vec<u32>,
    values: Vec<u32>,
    dkeys: DeviceBuffer<Uint4>,
    dvalues: DeviceBuffer<Uint4>,
    dkeys_out: DeviceBuffer<Uint4>,
    dvalues_out: DeviceBuffer<Uint4>,
    want_keys: Vec<u32>,
    want_values: Vec<u32>,
}

impl SortBlocks {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 512,
            Size::Bench => 32 * 512,
        };
        let mut r = Rng::new(5);
        let keys = r.u32s(n, u32::MAX);
        let values: Vec<u32> = (0..n as u32).collect();
        Box::new(SortBlocks {
            dkeys: DeviceBuffer::from_slice(&as_u4(&keys)).unwrap(),
            dvalues: DeviceBuffer::from_slice(&as_u4(&values)).unwrap(),
            dkeys_out: DeviceBuffer::zeroed(n / 4).unwrap(),
            dvalues_out: DeviceBuffer::zeroed(n / 4).unwrap(),
            want_keys: vec![0; n],
            want_values: vec![0; n],
            keys,
            values,
        })
    }
}

impl Case for SortBlocks {
    fn launch(&mut self) {
        let blocks = (self.keys.len() / 4 / 128) as u32;
        launch!(shoc_sort_blocks<<<blocks, 128, 4 * 4 * 128>>>(4, 0, &mut self.dkeys_out, &mut self.dvalues_out, &self.dkeys, &self.dvalues)).unwrap();
    }
    fn serial(&mut self) {
        self.want_keys.copy_from_slice(&self.keys);
        self.want_values.copy_from_slice(&self.values);
        sort_blocks_serial(&mut self.want_keys, &mut self.want_values, 512, 0, 4);
    }
    fn check(&mut self) -> Result<(), String> {
        same("keys", &self.dkeys_out.to_vec().unwrap(), &as_u4(&self.want_keys))?;
        same("values", &self.dvalues_out.to_vec().unwrap(), &as_u4(&self.want_values))
    }
}

#[kernel]
pub fn shoc_sort_offsets(
    keys: &[Uint2],
    counters: &mut [u32],
    blockOffsets: &mut [u32],
    startbit: u32,
    numElements: u32,
    totalBlocks: u32,
) {
    let sStartPointers = shared_array![u32; 16];
    let sRadix1 = dynamic_shared::<u32>();

    let groupId: u32 = block_idx().x;
    let localId: u32 = thread_idx().x;
    let groupSize: u32 = block_dim().x;

    let radix2: Uint2;
    radix2 = keys[thread_idx().x + (block_idx().x * block_dim().x)];

    sRadix1[2 * localId] = (radix2.x >> startbit) & 0xF;
    sRadix1[2 * localId + 1] = (radix2.y >> startbit) & 0xF;

    // Finds the position where the sRadix1 entries differ and stores start
    // index for each radix.
    if localId < 16 {
        sStartPointers[localId] = 0;
    }
    sync_threads();

    if (localId > 0) && (sRadix1[localId] != sRadix1[localId - 1]) {
        sStartPointers[sRadix1[localId]] = localId;
    }
    if sRadix1[localId + groupSize] != sRadix1[localId + groupSize - 1] {
        sStartPointers[sRadix1[localId + groupSize]] = localId + groupSize;
    }
    sync_threads();

    if localId < 16 {
        blockOffsets[groupId * 16 + localId] = sStartPointers[localId];
    }
    sync_threads();

    // Compute the sizes of each block.
    if (localId > 0) && (sRadix1[localId] != sRadix1[localId - 1]) {
        sStartPointers[sRadix1[localId - 1]] = localId - sStartPointers[sRadix1[localId - 1]];
    }
    if sRadix1[localId + groupSize] != sRadix1[localId + groupSize - 1] {
        sStartPointers[sRadix1[localId + groupSize - 1]] =
            localId + groupSize - sStartPointers[sRadix1[localId + groupSize - 1]];
    }

    if localId == groupSize - 1 {
        sStartPointers[sRadix1[2 * groupSize - 1]] = 2 * groupSize - sStartPointers[sRadix1[2 * groupSize - 1]];
    }
    sync_threads();

    if localId < 16 {
        counters[localId * totalBlocks + groupId] = sStartPointers[localId];
    }
}

/// Keys and values sorted by digit within each block of 512, as radixSortBlocks leaves them.
fn block_sorted(n: usize, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut keys = Rng::new(seed).u32s(n, u32::MAX);
    let mut values: Vec<u32> = (0..n as u32).collect();
    sort_blocks_serial(&mut keys, &mut values, 512, 0, 4);
    (keys, values)
}

/// findRadixOffsets, serially: each block's start of each digit (0 for a digit it does not
/// have) and its count of each digit (`counters[digit * blocks + block]`).
fn radix_offsets_serial(keys: &[u32], counters: &mut [u32], block_offsets: &mut [u32]) {
    let blocks = keys.len() / 512;
    for b in 0..blocks {
        let k = &keys[b * 512..(b + 1) * 512];
        let mut start = [0u32; 16];
        let mut count = [0u32; 16];
        for j in 0..512 {
            let d = (k[j] & 0xF) as usize;
            if j > 0 && d != (k[j - 1] & 0xF) as usize {
                start[d] = j as u32;
            }
            count[d] += 1;
        }
        for d in 0..16 {
            block_offsets[b * 16 + d] = start[d];
            counters[d * blocks + b] = count[d];
        }
    }
}

struct SortOffsets {
    keys: Vec<u32>,
    dkeys: DeviceBuffer<Uint2>,
    dcounters: DeviceBuffer<u32>,
    doffsets: DeviceBuffer<u32>,
    want_counters: Vec<u32>,
    want_offsets: Vec<u32>,
}

impl SortOffsets {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 512,
            Size::Bench => 512 * 512,
        };
        let (keys, _) = block_sorted(n, 6);
        let blocks = n / 512;
        Box::new(SortOffsets {
            dkeys: DeviceBuffer::from_slice(&as_u2(&keys)).unwrap(),
            dcounters: DeviceBuffer::zeroed(16 * blocks).unwrap(),
            doffsets: DeviceBuffer::zeroed(16 * blocks).unwrap(),
            want_counters: vec![0; 16 * blocks],
            want_offsets: vec![0; 16 * blocks],
            keys,
        })
    }
}

impl Case for SortOffsets {
    fn launch(&mut self) {
        let n = self.keys.len() as u32;
        let blocks = n / 2 / 256;
        launch!(shoc_sort_offsets<<<blocks, 256, 2 * 256 * 4>>>(&self.dkeys, &mut self.dcounters, &mut self.doffsets, 0, n, blocks)).unwrap();
    }
    fn serial(&mut self) {
        radix_offsets_serial(&self.keys, &mut self.want_counters, &mut self.want_offsets);
    }
    fn check(&mut self) -> Result<(), String> {
        same("counters", &self.dcounters.to_vec().unwrap(), &self.want_counters)?;
        same("block offsets", &self.doffsets.to_vec().unwrap(), &self.want_offsets)
    }
}

#[kernel]
pub fn shoc_sort_reorder(
    startbit: u32,
    outKeys: &mut [u32],
    outValues: &mut [u32],
    keys: &[Uint2],
    values: &[Uint2],
    blockOffsets: &[u32],
    offsets: &[u32],
    sizes: &[u32],
    totalBlocks: u32,
) {
    let GROUP_SIZE: u32 = block_dim().x;
    let sKeys2 = shared_array![Uint2; 256];
    let sValues2 = shared_array![Uint2; 256];
    let sOffsets = shared_array![u32; 16];
    let sBlockOffsets = shared_array![u32; 16];
    let sKeys1 = sKeys2.cast::<u32>();
    let sValues1 = sValues2.cast::<u32>();

    let blockId: u32 = block_idx().x;

    let i: u32 = blockId * block_dim().x + thread_idx().x;

    sKeys2[thread_idx().x] = keys[i];
    sValues2[thread_idx().x] = values[i];

    if thread_idx().x < 16 {
        sOffsets[thread_idx().x] = offsets[thread_idx().x * totalBlocks + blockId];
        sBlockOffsets[thread_idx().x] = blockOffsets[blockId * 16 + thread_idx().x];
    }
    sync_threads();

    let mut radix: u32 = (sKeys1[thread_idx().x] >> startbit) & 0xF;
    let mut globalOffset: u32 = sOffsets[radix] + thread_idx().x - sBlockOffsets[radix];

    outKeys[globalOffset] = sKeys1[thread_idx().x];
    outValues[globalOffset] = sValues1[thread_idx().x];

    radix = (sKeys1[thread_idx().x + GROUP_SIZE] >> startbit) & 0xF;
    globalOffset = sOffsets[radix] + thread_idx().x + GROUP_SIZE - sBlockOffsets[radix];

    outKeys[globalOffset] = sKeys1[thread_idx().x + GROUP_SIZE];
    outValues[globalOffset] = sValues1[thread_idx().x + GROUP_SIZE];
}

struct SortReorder {
    keys: Vec<u32>,
    values: Vec<u32>,
    counters: Vec<u32>,
    counters_sum: Vec<u32>,
    block_offsets: Vec<u32>,
    dkeys: DeviceBuffer<Uint2>,
    dvalues: DeviceBuffer<Uint2>,
    dblock_offsets: DeviceBuffer<u32>,
    dsum: DeviceBuffer<u32>,
    dcounters: DeviceBuffer<u32>,
    dout_keys: DeviceBuffer<u32>,
    dout_values: DeviceBuffer<u32>,
    want_keys: Vec<u32>,
    want_values: Vec<u32>,
}

impl SortReorder {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 8 * 512,
            Size::Bench => 512 * 512,
        };
        let (keys, values) = block_sorted(n, 7);
        let blocks = n / 512;
        let mut counters = vec![0; 16 * blocks];
        let mut block_offsets = vec![0; 16 * blocks];
        radix_offsets_serial(&keys, &mut counters, &mut block_offsets);
        // scanArrayRecursive: the exclusive scan of the counters.
        let mut counters_sum = vec![0u32; 16 * blocks];
        for j in 1..counters.len() {
            counters_sum[j] = counters_sum[j - 1] + counters[j - 1];
        }
        Box::new(SortReorder {
            dkeys: DeviceBuffer::from_slice(&as_u2(&keys)).unwrap(),
            dvalues: DeviceBuffer::from_slice(&as_u2(&values)).unwrap(),
            dblock_offsets: DeviceBuffer::from_slice(&block_offsets).unwrap(),
            dsum: DeviceBuffer::from_slice(&counters_sum).unwrap(),
            dcounters: DeviceBuffer::from_slice(&counters).unwrap(),
            dout_keys: DeviceBuffer::zeroed(n).unwrap(),
            dout_values: DeviceBuffer::zeroed(n).unwrap(),
            want_keys: vec![0; n],
            want_values: vec![0; n],
            keys,
            values,
            counters,
            counters_sum,
            block_offsets,
        })
    }
}

impl Case for SortReorder {
    fn launch(&mut self) {
        let blocks = (self.keys.len() / 512) as u32;
        launch!(shoc_sort_reorder<<<blocks, 256>>>(
            0,
            &mut self.dout_keys,
            &mut self.dout_values,
            &self.dkeys,
            &self.dvalues,
            &self.dblock_offsets,
            &self.dsum,
            &self.dcounters,
            blocks
        ))
        .unwrap();
    }
    fn serial(&mut self) {
        let blocks = self.keys.len() / 512;
        for b in 0..blocks {
            for j in 0..512 {
                let k = self.keys[b * 512 + j];
                let radix = (k & 0xF) as usize;
                let to =
                    (self.counters_sum[radix * blocks + b] + j as u32 - self.block_offsets[b * 16 + radix]) as usize;
                self.want_keys[to] = k;
                self.want_values[to] = self.values[b * 512 + j];
            }
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("keys", &self.dout_keys.to_vec().unwrap(), &self.want_keys)?;
        same("values", &self.dout_values.to_vec().unwrap(), &self.want_values)
    }
}

#[device]
fn scan_local_mem_u32(val: u32, s_data: Shared<u32>) -> u32 {
    // Shared mem is 512 uints long, set first half to 0
    let mut idx: i32 = thread_idx().x as i32;
    s_data[idx] = 0.0f32 as u32;
    sync_threads();

    // Set 2nd half to thread local sum (sum of the 4 elems from global mem)
    idx += block_dim().x as i32; // += 256

    // Some of these __sync's are unnecessary due to warp synchronous
    // execution.  Right now these are left in to be consistent with
    // opencl version, since that has to execute on platforms where
    // thread groups are not synchronous (i.e. CPUs)
    let mut t: u32;
    s_data[idx] = val;
    sync_threads();
    t = s_data[idx - 1];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 2];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 4];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 8];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 16];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 32];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 64];
    sync_threads();
    s_data[idx] += t;
    sync_threads();
    t = s_data[idx - 128];
    sync_threads();
    s_data[idx] += t;
    sync_threads();

    s_data[idx - 1]
}

#[kernel]
pub fn shoc_sort_scan(
    g_odata: &mut [u32],
    g_idata: &[u32],
    g_blockSums: &mut [u32],
    n: i32,
    fullBlock: bool,
    storeSum: bool,
) {
    let s_data = shared_array![u32; 512];

    // Load data into shared mem
    let mut tempData: Uint4 = Uint4::default();
    let mut threadScanT: Uint4 = Uint4::default();
    let mut res: u32;
    let inData = g_idata.cast::<Uint4>();

    let gid: i32 = (block_idx().x * block_dim().x) as i32 + thread_idx().x as i32;
    let tid: i32 = thread_idx().x as i32;
    let i: i32 = gid * 4;

    // If possible, read from global mem in a uint4 chunk
    if fullBlock || i + 3 < n {
        // scan the 4 elems read in from global
        tempData = inData[gid];
        threadScanT.x = tempData.x;
        threadScanT.y = tempData.y + threadScanT.x;
        threadScanT.z = tempData.z + threadScanT.y;
        threadScanT.w = tempData.w + threadScanT.z;
        res = threadScanT.w;
    } else {
        // if not, read individual uints, scan & store in lmem
        threadScanT.x = if i < n { g_idata[i] } else { 0.0f32 as u32 };
        threadScanT.y = (if i + 1 < n { g_idata[i + 1] } else { 0.0f32 as u32 }) + threadScanT.x;
        threadScanT.z = (if i + 2 < n { g_idata[i + 2] } else { 0.0f32 as u32 }) + threadScanT.y;
        threadScanT.w = (if i + 3 < n { g_idata[i + 3] } else { 0.0f32 as u32 }) + threadScanT.z;
        res = threadScanT.w;
    }

    res = scan_local_mem_u32(res, s_data);
    sync_threads();

    // If we have to store the sum for the block, have the last work item
    // in the block write it out
    if storeSum && tid as u32 == block_dim().x - 1 {
        g_blockSums[block_idx().x] = res + threadScanT.w;
    }

    // write results to global memory
    let outData = g_odata.cast::<Uint4>();

    tempData.x = res;
    tempData.y = res + threadScanT.x;
    tempData.z = res + threadScanT.y;
    tempData.w = res + threadScanT.z;

    if fullBlock || i + 3 < n {
        outData[gid] = tempData;
    } else {
        if i < n {
            g_odata[i] = tempData.x;
            if (i + 1) < n {
                g_odata[i + 1] = tempData.y;
                if (i + 2) < n {
                    g_odata[i + 2] = tempData.z;
                }
            }
        }
    }
}

struct SortScan {
    x: Vec<u32>,
    dx: DeviceBuffer<u32>,
    dout: DeviceBuffer<u32>,
    dsums: DeviceBuffer<u32>,
    want: Vec<u32>,
    want_sums: Vec<u32>,
}

impl SortScan {
    fn blocks(&self) -> usize {
        self.x.len().div_ceil(1024)
    }
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 5 * 1024 - 6,
            Size::Bench => 64 * 1024,
        };
        let x = Rng::new(8).u32s(n, 1000);
        let blocks = n.div_ceil(1024);
        Box::new(SortScan {
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            // Whole uint4s, as SHOC's buffers are.
            dout: DeviceBuffer::zeroed(n.div_ceil(4) * 4).unwrap(),
            dsums: DeviceBuffer::zeroed(blocks).unwrap(),
            want: vec![0; n.div_ceil(4) * 4],
            want_sums: vec![0; blocks],
            x,
        })
    }
}

impl Case for SortScan {
    fn launch(&mut self) {
        let n = self.x.len() as i32;
        let blocks = self.blocks() as u32;
        let full = n as u32 == blocks * 1024;
        launch!(shoc_sort_scan<<<blocks, 256, 512 * 4>>>(&mut self.dout, &self.dx, &mut self.dsums, n, full, true))
            .unwrap();
    }
    fn serial(&mut self) {
        for (b, x) in self.x.chunks(1024).enumerate() {
            let mut acc = 0u32;
            for (j, &v) in x.iter().enumerate() {
                self.want[b * 1024 + j] = acc;
                acc += v;
            }
            self.want_sums[b] = acc;
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("scan", &self.dout.to_vec().unwrap(), &self.want)?;
        same("block sums", &self.dsums.to_vec().unwrap(), &self.want_sums)
    }
}

#[kernel]
pub fn shoc_sort_add_uniform(d_vector: &mut [u32], d_uniforms: &[u32], n: i32) {
    let uni = shared_array![u32; 1];

    if thread_idx().x == 0 {
        uni[0] = d_uniforms[block_idx().x];
    }

    let mut address: u32 = thread_idx().x + (block_idx().x * block_dim().x * 4);

    sync_threads();

    // 4 elems per thread
    let mut i: i32 = 0;
    while i < 4 && address < n as u32 {
        d_vector[address] += uni[0];
        address += block_dim().x;
        i += 1;
    }
}

struct AddUniform {
    x: Vec<u32>,
    uniforms: Vec<u32>,
    dvec: DeviceBuffer<u32>,
    duni: DeviceBuffer<u32>,
    want: Vec<u32>,
}

impl AddUniform {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 9 * 1024 - 100,
            Size::Bench => 1024 * 1024,
        };
        let mut r = Rng::new(9);
        let x = r.u32s(n, 1 << 20);
        let uniforms = r.u32s(n.div_ceil(1024), 1 << 20);
        Box::new(AddUniform {
            dvec: DeviceBuffer::from_slice(&x).unwrap(),
            duni: DeviceBuffer::from_slice(&uniforms).unwrap(),
            want: x.clone(),
            x,
            uniforms,
        })
    }
}

impl Case for AddUniform {
    fn launch(&mut self) {
        // The kernel adds in place: start from the same vector each time.
        self.dvec.copy_from_slice(&self.x).unwrap();
        let blocks = self.uniforms.len() as u32;
        launch!(shoc_sort_add_uniform<<<blocks, 256>>>(&mut self.dvec, &self.duni, self.x.len() as i32)).unwrap();
    }
    fn serial(&mut self) {
        self.want.copy_from_slice(&self.x);
        for (j, w) in self.want.iter_mut().enumerate() {
            *w += self.uniforms[j / 1024];
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("vector", &self.dvec.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// src/cuda/level1/triad/Triad.cu: triad (no barrier; blocks of 128 threads).

#[kernel]
pub fn shoc_triad(A: &[f32], B: &[f32], C: &mut [f32], s: f32) {
    let gid: i32 = (thread_idx().x + (block_idx().x * block_dim().x)) as i32;
    C[gid] = A[gid] + s * B[gid];
}

struct Triad {
    a: Vec<f32>,
    b: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    dc: DeviceBuffer<f32>,
    want: Vec<f32>,
}

impl Triad {
    fn make(size: Size) -> Box<dyn Case> {
        let n = match size {
            Size::Test => 128 * 64,
            Size::Bench => 1 << 20,
        };
        let mut r = Rng::new(10);
        let (a, b) = (r.f32s(n), r.f32s(n));
        Box::new(Triad {
            da: DeviceBuffer::from_slice(&a).unwrap(),
            db: DeviceBuffer::from_slice(&b).unwrap(),
            dc: DeviceBuffer::zeroed(n).unwrap(),
            want: vec![0.0; n],
            a,
            b,
        })
    }
}

impl Case for Triad {
    fn launch(&mut self) {
        let blocks = (self.a.len() / 128) as u32;
        launch!(shoc_triad<<<blocks, 128>>>(&self.da, &self.db, &mut self.dc, 1.75)).unwrap();
    }
    fn serial(&mut self) {
        for i in 0..self.a.len() {
            self.want[i] = self.a[i] + 1.75 * self.b[i];
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same_f32("C", &self.dc.to_vec().unwrap(), &self.want)
    }
}
