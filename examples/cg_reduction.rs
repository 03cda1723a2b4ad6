//! The block reduction with cooperative groups (`deviceemu::cg`), as CUDA programmers write it
//! today: each tile of 32 threads reduces with `cg::reduce(&tile, v, cg::plus())`, tile 0 of the
//! block reduces the tiles' sums after `block.sync()`. Checked bit for bit against a CPU
//! reference that adds in the order of CUDA's `cg::reduce` (a `shfl_xor` butterfly).
//!
//! `cargo run --release --example cg_reduction` (warps of 32: tiles of 32 need them).
use deviceemu::cg;
use deviceemu::prelude::*;

/// Threads per block (at most 32 tiles, so tile 0 can reduce their sums).
pub(crate) const BLOCK: usize = 256;

/// Each block writes the sum of its `BLOCK` elements of `input` to `partial`.
#[kernel]
pub fn cg_block_sum(input: &[f32], partial: &mut [f32]) {
    let sums = shared_array![f32; 32];
    let block = cg::this_thread_block();
    let tile = cg::tiled_partition::<32>(&block);
    let i = (block.group_index().x * block.size() + block.thread_rank()) as usize;
    let v = cg::reduce(&tile, if i < input.len() { input[i] } else { 0.0 }, cg::plus());
    if tile.thread_rank() == 0 {
        sums[tile.meta_group_rank() as usize] = v;
    }
    block.sync();
    if tile.meta_group_rank() == 0 {
        let r = tile.thread_rank();
        let s = cg::reduce(&tile, if r < tile.meta_group_size() { sums[r as usize] } else { 0.0 }, cg::plus());
        if r == 0 {
            partial[block.group_index().x as usize] = s;
        }
    }
}

/// The CPU's `cg::reduce` of 32 values: at each offset 16, 8, 4, 2, 1 every lane adds lane
/// `lane ^ offset`'s value (all lanes end with the same bits; lane 0's are returned).
pub(crate) fn butterfly(mut v: Vec<f32>) -> f32 {
    for m in [16, 8, 4, 2, 1] {
        let before = v.clone();
        for (k, y) in v.iter_mut().enumerate() {
            *y += before[k ^ m];
        }
    }
    v[0]
}

/// The CPU's `cg_block_sum`, in the same order.
pub(crate) fn cg_block_sums_reference(x: &[f32], blocks: usize) -> Vec<f32> {
    (0..blocks)
        .map(|b| {
            let sums: Vec<f32> = (0..BLOCK / 32)
                .map(|w| butterfly((0..32).map(|l| x.get(b * BLOCK + w * 32 + l).copied().unwrap_or(0.0)).collect()))
                .collect();
            butterfly((0..32).map(|l| sums.get(l).copied().unwrap_or(0.0)).collect())
        })
        .collect()
}

#[allow(dead_code)]
fn main() -> Result<(), deviceemu::Error> {
    let n = (1usize << 20) + 1000;
    let blocks = n.div_ceil(BLOCK);
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919 % 1013) as f32) * 0.01 - 5.0).collect();
    let xb = DeviceBuffer::from_slice(&x)?;
    let mut partial = DeviceBuffer::<f32>::zeroed(blocks)?;
    launch!(cg_block_sum<<<blocks as u32, BLOCK as u32>>>(&xb, &mut partial))?;
    let got = partial.to_vec()?;
    let ok = got.iter().zip(cg_block_sums_reference(&x, blocks)).all(|(a, b)| a.to_bits() == b.to_bits());
    let total: f64 = got.iter().map(|&v| v as f64).sum();
    println!(
        "cg_reduction: {n} elements in {blocks} blocks: block sums {} (total {total:.3})",
        if ok { "match" } else { "DIFFER" }
    );
    if ok {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
