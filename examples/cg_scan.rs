//! A block-wide inclusive scan with cooperative groups (`deviceemu::cg`): each tile of 32
//! threads scans with `cg::inclusive_scan`, its last thread publishes the tile's total, and
//! after `block.sync()` tile 0 turns the totals into offsets with `cg::exclusive_scan`. Also a
//! per-tile stream compaction with `tile.ballot` and a label count with `labeled_partition`.
//! Checked against a sequential CPU scan.
//!
//! `cargo run --release --example cg_scan` (warps of 32).
use deviceemu::cg;
use deviceemu::prelude::*;

/// Threads per block.
pub(crate) const BLOCK: usize = 256;

/// Inclusive prefix sums of each block's `BLOCK` elements of `input`.
#[kernel]
pub fn cg_block_scan(input: &[u32], output: &mut [u32]) {
    let totals = shared_array![u32; 32];
    let block = cg::this_thread_block();
    let tile = cg::tiled_partition::<32>(&block);
    let i = (block.group_index().x * block.size() + block.thread_rank()) as usize;
    let v = cg::inclusive_scan(&tile, if i < input.len() { input[i] } else { 0 }, cg::plus());
    if tile.thread_rank() == tile.size() - 1 {
        totals[tile.meta_group_rank() as usize] = v;
    }
    block.sync();
    if tile.meta_group_rank() == 0 {
        let r = tile.thread_rank();
        let t = if r < tile.meta_group_size() { totals[r as usize] } else { 0 };
        let before = cg::exclusive_scan(&tile, t, cg::plus());
        if r < tile.meta_group_size() {
            totals[r as usize] = before;
        }
    }
    block.sync();
    if i < output.len() {
        output[i] = v + totals[tile.meta_group_rank() as usize];
    }
}

/// Per tile of 32: keeps the elements above `threshold` in order (their position is the
/// number of kept lanes below, from the ballot) and counts, in `labels`, how many lanes of the
/// tile share each element's value modulo 4 (`labeled_partition`).
#[kernel]
pub fn cg_compact(threshold: u32, input: &[u32], kept: &mut [u32], labels: &mut [u32]) {
    let block = cg::this_thread_block();
    let tile = cg::tiled_partition::<32>(&block);
    let i = (block.group_index().x * block.size() + block.thread_rank()) as usize;
    let v = input[i];
    let keep = v > threshold;
    let ballot = tile.ballot(keep);
    let base = i - tile.thread_rank() as usize;
    if keep {
        kept[base + (ballot & ((1u32 << tile.thread_rank()) - 1)).count_ones() as usize] = v;
    }
    let same = cg::labeled_partition(&tile, v % 4);
    labels[i] = same.size();
}

#[allow(dead_code)]
fn main() -> Result<(), deviceemu::Error> {
    let n = 1usize << 20;
    let x: Vec<u32> = (0..n).map(|i| (i * 2_654_435_761usize % 1000) as u32).collect();
    let xb = DeviceBuffer::from_slice(&x)?;
    let mut out = DeviceBuffer::<u32>::zeroed(n)?;
    launch!(cg_block_scan<<<(n / BLOCK) as u32, BLOCK as u32>>>(&xb, &mut out))?;
    let got = out.to_vec()?;
    let scan_ok = x.chunks(BLOCK).zip(got.chunks(BLOCK)).all(|(src, g)| {
        let mut acc = 0u32;
        src.iter().zip(g).all(|(&v, &o)| {
            acc += v;
            acc == o
        })
    });
    let mut kept = DeviceBuffer::<u32>::zeroed(n)?;
    let mut labels = DeviceBuffer::<u32>::zeroed(n)?;
    launch!(cg_compact<<<(n / BLOCK) as u32, BLOCK as u32>>>(500, &xb, &mut kept, &mut labels))?;
    let (kept, labels) = (kept.to_vec()?, labels.to_vec()?);
    let compact_ok = x.chunks(32).zip(kept.chunks(32)).zip(labels.chunks(32)).all(|((src, k), l)| {
        let want: Vec<u32> = src.iter().copied().filter(|&v| v > 500).collect();
        let labels_ok = src.iter().zip(l).all(|(&v, &c)| c == src.iter().filter(|&&w| w % 4 == v % 4).count() as u32);
        k[..want.len()] == want[..] && labels_ok
    });
    println!(
        "cg_scan: {n} elements: block scans {}, compaction and label counts {}",
        if scan_ok { "match" } else { "DIFFER" },
        if compact_ok { "match" } else { "DIFFER" }
    );
    if scan_ok && compact_ok {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
