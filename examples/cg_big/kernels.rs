//! The kernel of `tools/probes/p13_cg_big.cu`, in Rust: `cg::reduce` and the scans on
//! multi-warp tiles of 64 to 1024 threads, for one block of 1024. `gpu_vs_emu cgbig` runs it on
//! both targets; `tests/it/scheduler/cg_multi_warp.rs` checks the emulator against the H200's recorded
//! answers (`tests/data/p13_cg_big.bin`).
use deviceemu::prelude::*;
use deviceemu::{cg, Error};

/// Results per thread and tile size.
pub const OUT: usize = 7;
/// The tile sizes, in the order of the recorded answers.
pub const SIZES: [u32; 5] = [64, 128, 256, 512, 1024];

#[device]
fn row<const N: u32>(v: u32, f: f32, out: &mut [u32], t: usize) {
    let b = cg::this_thread_block();
    let tile = cg::tiled_partition::<N>(&b);
    let n = 1024;
    out[t] = cg::reduce(&tile, f, cg::plus()).to_bits();
    out[n + t] = cg::inclusive_scan(&tile, f, cg::plus()).to_bits();
    out[2 * n + t] = cg::exclusive_scan(&tile, f, cg::plus()).to_bits();
    out[3 * n + t] = cg::inclusive_scan(&tile, v, cg::plus());
    out[4 * n + t] = cg::exclusive_scan(&tile, v, cg::plus());
    out[5 * n + t] = cg::exclusive_scan(&tile, v, cg::greater());
    out[6 * n + t] = cg::reduce(&tile, v, cg::greater());
}

/// Tiles of `n` (64 to 1024) in one block of 1024. `launch_bounds(1024)` keeps ptxas within the
/// registers a block of 1024 may have.
#[kernel(launch_bounds(1024))]
pub fn cg_big(n: u32, x: &[u32], fx: &[f32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let (v, f) = (x[t], fx[t]);
    match n {
        64 => row::<64>(v, f, out, t),
        128 => row::<128>(v, f, out, t),
        256 => row::<256>(v, f, out, t),
        512 => row::<512>(v, f, out, t),
        _ => row::<1024>(v, f, out, t),
    }
}

/// `cg_big` for every tile size of [`SIZES`], on p13's inputs: `OUT` rows of 1024 per size.
pub fn run() -> Result<Vec<u32>, Error> {
    let x: Vec<u32> = (0..1024u32).map(|i| (i * 7919 + 13) % 1009).collect();
    let fx: Vec<f32> = (0..1024u32).map(|i| ((i * 7919 + 13) % 1013) as f32 * 0.37 - 3.0).collect();
    let xb = DeviceBuffer::from_slice(&x)?;
    let fb = DeviceBuffer::from_slice(&fx)?;
    let mut v = Vec::new();
    for n in SIZES {
        let mut ob = DeviceBuffer::<u32>::zeroed(OUT * 1024)?;
        launch!(cg_big<<<1, 1024>>>(n, &xb, &fb, &mut ob))?;
        v.extend(ob.to_vec()?);
    }
    Ok(v)
}
