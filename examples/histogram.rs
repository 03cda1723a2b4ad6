//! 256-bin byte histogram: each block counts into a private shared-memory histogram with
//! `atomic_add`, then merges it into the global one with `atomic_add`. Checked against a CPU
//! count.
use deviceemu::prelude::*;

/// Number of bins (one per byte value), also the threads per block.
const BINS: usize = 256;

/// Counts the bytes of `data` into `hist` (which must start at zero). Threads walk the input
/// with a grid-wide stride.
#[kernel]
pub fn histogram(data: &[u8], hist: &mut [u32]) {
    let mut local = shared_array![u32; 256];
    let tid = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let mut b = tid;
    while b < 256 {
        local[b] = 0;
        b += threads;
    }
    sync_threads();
    let stride = grid_dim().x as usize * threads;
    let mut i = block_idx().x as usize * threads + tid;
    while i < data.len() {
        local.atomic_add(data[i] as usize, 1u32);
        i += stride;
    }
    sync_threads();
    let mut b = tid;
    while b < 256 {
        let count = local[b];
        if count != 0 {
            hist.atomic_add(b, count);
        }
        b += threads;
    }
}

fn main() -> Result<(), deviceemu::Error> {
    let n = (3usize << 20) + 77;
    let mut state = 0xD1B5_4A32_D192_ED03u64;
    // Skewed bytes (a sum of two uniform bytes), so bins differ and collide.
    let data: Vec<u8> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (((state >> 56) + ((state >> 24) & 0xff)) / 2) as u8
        })
        .collect();

    let mut want = [0u32; BINS];
    for &d in &data {
        want[d as usize] += 1;
    }

    let blocks = 96u32;
    let input = DeviceBuffer::from_slice(&data)?;
    let mut hist = DeviceBuffer::<u32>::zeroed(BINS)?;
    launch!(histogram<<<blocks, BINS as u32>>>(&input, &mut hist))?;
    let got = hist.to_vec()?;

    let bad = got.iter().zip(&want).filter(|(g, w)| g != w).count();
    let total: u64 = got.iter().map(|&c| c as u64).sum();
    let ok = bad == 0 && total == n as u64;
    println!(
        "histogram: {n} bytes, {blocks} blocks of {BINS}: {total} counted, {bad} of {BINS} bins differ: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
