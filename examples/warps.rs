//! Warp-level programming: a block reduction that sums each warp with `shfl_down_sync`, a
//! block-wide inclusive scan built from `shfl_up_sync`, and a per-warp count of selected
//! elements with `ballot_sync`. Each is checked bit for bit against a CPU computation in the
//! same order.
//!
//! `cargo run --release --example warps`; with `EMU_WARP_SIZE=1` the kernels still agree with
//! the CPU reference for one-thread warps (they read `warp_size()`).
use deviceemu::prelude::*;

/// Threads per block of every launch here (at most 32 warps, so the warp sums fit one warp).
const BLOCK: usize = 256;

/// The sum of a warp's values, left in lane 0 (the others hold partial sums).
#[device]
pub(crate) fn warp_reduce(mut v: f32) -> f32 {
    let mut offset = warp_size() / 2;
    while offset > 0 {
        v += shfl_down_sync(FULL_MASK, v, offset);
        offset /= 2;
    }
    v
}

/// Each block sums its `BLOCK` elements: every warp reduces with shuffles, lane 0 writes the
/// warp's sum to shared memory, and the first warp reduces those.
#[kernel]
pub fn warp_block_sum(input: &[f32], partial: &mut [f32]) {
    let sums = shared_array![f32; 256];
    let tid = thread_idx().x;
    let i = (block_idx().x * block_dim().x + tid) as usize;
    let ws = warp_size();
    let v = warp_reduce(if i < input.len() { input[i] } else { 0.0 });
    if lane_id() == 0 {
        sums[(tid / ws) as usize] = v;
    }
    sync_threads();
    let warps = block_dim().x.div_ceil(ws);
    if tid < ws {
        // With one-thread warps the first "warp" is thread 0 alone: it adds the sums itself.
        let mut v = if tid < warps { sums[tid as usize] } else { 0.0 };
        if ws == 1 {
            let mut w = 1;
            while w < warps {
                v += sums[w as usize];
                w += 1;
            }
        }
        let v = warp_reduce(v);
        if tid == 0 {
            partial[block_idx().x as usize] = v;
        }
    }
}

/// Inclusive prefix sums of each block's `BLOCK` elements: a shuffle scan per warp, then each
/// thread adds the totals of the warps before its own.
#[kernel]
pub fn warp_block_scan(input: &[u32], output: &mut [u32]) {
    let totals = shared_array![u32; 256];
    let tid = thread_idx().x;
    let i = (block_idx().x * block_dim().x + tid) as usize;
    let (ws, lane) = (warp_size(), lane_id());
    let mut v = if i < input.len() { input[i] } else { 0 };
    let mut d = 1;
    while d < ws {
        let up = shfl_up_sync(FULL_MASK, v, d);
        if lane >= d {
            v += up;
        }
        d *= 2;
    }
    if lane == ws - 1 {
        totals[(tid / ws) as usize] = v;
    }
    sync_threads();
    let mut w = 0;
    while w < tid / ws {
        v += totals[w as usize];
        w += 1;
    }
    if i < output.len() {
        output[i] = v;
    }
}

/// How many elements of each warp's slice of `input` are above `threshold`: one ballot per
/// warp, counted by lane 0.
#[kernel]
pub fn count_above(threshold: f32, input: &[f32], counts: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let selected = ballot_sync(FULL_MASK, i < input.len() && input[i] > threshold);
    if lane_id() == 0 {
        counts[i / warp_size() as usize] = selected.count_ones();
    }
}

/// The CPU's `warp_reduce` over one warp's values (as many lanes as `vals` has): lane `l` adds
/// lane `l + offset`'s value, or its own when that lane is past the warp, as `shfl_down_sync`
/// gives it; returns lane 0's sum.
pub(crate) fn shfl_down_tree(mut vals: Vec<f32>) -> f32 {
    let ws = vals.len();
    let mut offset = ws / 2;
    while offset > 0 {
        let before = vals.clone();
        for l in 0..ws {
            vals[l] += if l + offset < ws { before[l + offset] } else { before[l] };
        }
        offset /= 2;
    }
    vals[0]
}

/// The CPU's `warp_block_sum`: the same shuffle tree in the same order.
pub(crate) fn block_sums_reference(x: &[f32], blocks: usize, ws: usize) -> Vec<f32> {
    (0..blocks)
        .map(|b| {
            let warps = BLOCK / ws;
            let sums: Vec<f32> = (0..warps)
                .map(|w| {
                    shfl_down_tree((0..ws).map(|l| x.get(b * BLOCK + w * ws + l).copied().unwrap_or(0.0)).collect())
                })
                .collect();
            let mut first: Vec<f32> = (0..ws).map(|l| if l < warps { sums[l] } else { 0.0 }).collect();
            if ws == 1 {
                first[0] = sums.iter().skip(1).fold(sums[0], |a, &s| a + s);
            }
            shfl_down_tree(first)
        })
        .collect()
}

fn main() -> Result<(), deviceemu::Error> {
    let n = (1usize << 20) + 1000;
    let blocks = n.div_ceil(BLOCK);
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let x: Vec<f32> = (0..n).map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5).collect();
    let k: Vec<u32> = (0..n).map(|_| (next() % 1000) as u32).collect();
    let ws = deviceemu::Config::from_env().map_or(32, |c| c.get_warp_size()) as usize;

    let xb = DeviceBuffer::from_slice(&x)?;
    let mut partial = DeviceBuffer::<f32>::zeroed(blocks)?;
    launch!(warp_block_sum<<<blocks as u32, BLOCK as u32>>>(&xb, &mut partial))?;
    let want = block_sums_reference(&x, blocks, ws);
    let sums_ok = partial.to_vec()?.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());

    let kb = DeviceBuffer::from_slice(&k)?;
    let mut scanned = DeviceBuffer::<u32>::zeroed(n)?;
    launch!(warp_block_scan<<<blocks as u32, BLOCK as u32>>>(&kb, &mut scanned))?;
    let scanned = scanned.to_vec()?;
    let scan_ok = k.chunks(BLOCK).zip(scanned.chunks(BLOCK)).all(|(src, got)| {
        let mut acc = 0u32;
        src.iter().zip(got).all(|(&v, &g)| {
            acc += v;
            acc == g
        })
    });

    let mut counts = DeviceBuffer::<u32>::zeroed(blocks * BLOCK / ws)?;
    launch!(count_above<<<blocks as u32, BLOCK as u32>>>(0.25, &xb, &mut counts))?;
    let counts = counts.to_vec()?;
    let want_counts: Vec<u32> = (0..blocks * BLOCK / ws)
        .map(|w| x.iter().skip(w * ws).take(ws).filter(|&&v| v > 0.25).count() as u32)
        .collect();
    let counts_ok = counts == want_counts;

    let total: f64 = partial.to_vec()?.iter().map(|&v| v as f64).sum();
    println!(
        "warps: {n} elements, warp size {ws}: block sums {} (total {total:.3}), scan {}, ballot counts {}",
        if sums_ok { "match" } else { "DIFFER" },
        if scan_ok { "matches" } else { "DIFFERS" },
        if counts_ok { "match" } else { "DIFFER" },
    );
    if sums_ok && scan_ok && counts_ok {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
