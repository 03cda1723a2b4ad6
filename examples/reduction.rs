//! Sum reduction in two launches: block sums in shared memory, then one block reduces the
//! partial sums to a single number. Checked bit for bit against a CPU reference that adds in
//! the same order as the kernels.
use deviceemu::prelude::*;

/// Threads per block of both launches (the shared tile's size).
const BLOCK: usize = 256;

/// Each block sums its `BLOCK` elements with a shared-memory tree and writes one partial sum.
///
/// The tree's counters are `u32`, as in CUDA C's `unsigned` version (`benches/cuda/bench.cu`):
/// on the GPU 32-bit loop arithmetic is cheaper than 64-bit `usize`. `launch_bounds(256)`
/// (CUDA's `__launch_bounds__(256)`, as in the CUDA version) says a block has at most 256
/// threads, the tile's size, and launches of bigger blocks are refused: the GPU build then
/// knows `tid < 256` and, in the tree, `tid < s <= 128`, so `tile[tid]` and `tile[tid + s]`
/// compile without bounds checks (`tests/ptx.rs` checks that).
#[kernel(launch_bounds(256))]
pub fn block_sum(input: &[f32], partial: &mut [f32]) {
    let mut tile = shared_array![f32; 256];
    let tid = thread_idx().x;
    let i = block_idx().x as usize * block_dim().x as usize + tid as usize;
    tile[tid as usize] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            tile[tid as usize] += tile[(tid + s) as usize];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}

/// One block reduces all of `partial` into `total[0]`: each thread first adds a strided run of
/// partial sums, then the block combines the threads' sums with a shared-memory tree. At most
/// 256 threads per block, the tile's size, as for `block_sum`.
#[kernel(launch_bounds(256))]
pub fn final_sum(partial: &[f32], total: &mut [f32]) {
    let mut tile = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let stride = block_dim().x as usize;
    let mut acc = 0.0f32;
    let mut j = tid;
    while j < partial.len() {
        acc += partial[j];
        j += stride;
    }
    tile[tid] = acc;
    sync_threads();
    let mut s = stride / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        total[0] = tile[0];
    }
}

/// The tree a block of `tile.len()` threads computes, in the same order.
fn tree(tile: &mut [f32]) -> f32 {
    let mut s = tile.len() / 2;
    while s > 0 {
        for t in 0..s {
            tile[t] += tile[t + s];
        }
        s /= 2;
    }
    tile[0]
}

/// The CPU reference: the partial sums and the total, added in the kernels' order.
fn reference(input: &[f32]) -> (Vec<f32>, f32) {
    let partial: Vec<f32> = input
        .chunks(BLOCK)
        .map(|c| {
            let mut tile = [0.0f32; BLOCK];
            tile[..c.len()].copy_from_slice(c);
            tree(&mut tile)
        })
        .collect();
    let mut tile = [0.0f32; BLOCK];
    for (t, slot) in tile.iter_mut().enumerate() {
        *slot = partial.iter().skip(t).step_by(BLOCK).fold(0.0, |a, &p| a + p);
    }
    let total = tree(&mut tile);
    (partial, total)
}

fn main() -> Result<(), deviceemu::Error> {
    // Not a multiple of the block size, so the last block is partly empty.
    let n = (1usize << 20) + 12_345;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let input: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();

    let blocks = n.div_ceil(BLOCK);
    let x = DeviceBuffer::from_slice(&input)?;
    let mut partial = DeviceBuffer::<f32>::zeroed(blocks)?;
    let mut total = DeviceBuffer::<f32>::zeroed(1)?;
    launch!(block_sum<<<blocks as u32, BLOCK as u32>>>(&x, &mut partial))?;
    launch!(final_sum<<<1, BLOCK as u32>>>(&partial, &mut total))?;

    let (want_partial, want_total) = reference(&input);
    let got_partial = partial.to_vec()?;
    let got_total = total.to_vec()?[0];
    let bad = got_partial.iter().zip(&want_partial).filter(|(g, w)| g.to_bits() != w.to_bits()).count();
    let ok = bad == 0 && got_total.to_bits() == want_total.to_bits();
    println!(
        "reduction: {n} elements, {blocks} blocks of {BLOCK}: total {got_total} (CPU {want_total}), \
         {bad} partial-sum mismatches: {}",
        if ok { "OK (bit-exact)" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
