//! The crate's kernels: several per file, a plain helper, a `#[device]` helper, `half` and
//! `libm`, `use super::*` for the prelude, and one kernel that only makes sense on the host.
use super::*;
use half::f16;

const RADIUS: i64 = 1;

/// A plain helper (no `#[device]`): clamps a signed index into `0..n`.
fn clamp_index(i: i64, n: usize) -> usize {
    i.clamp(0, n as i64 - 1) as usize
}

/// A `#[device]` helper that reads a view.
#[device]
fn tap(x: Global<f32>, i: i64) -> f32 {
    x[clamp_index(i, x.len())]
}

/// 1-D box filter of radius 1 with clamped edges.
#[kernel]
pub fn box3(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i64;
    if (i as usize) < y.len() {
        let mut s = 0.0;
        let mut k = -RADIUS;
        while k <= RADIUS {
            s += tap(x, i + k);
            k += 1;
        }
        y[i as usize] = s / 3.0;
    }
}

/// Rounds through `half::f16` (storage precision) and back.
#[kernel]
pub fn to_half_and_back(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = f16::from_f32(x[i]).to_f32();
    }
}

/// `y = a * x + y` with one rounding (`libm::fmaf`).
#[kernel]
pub fn fma_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = libm::fmaf(a, x[i], y[i]);
    }
}

/// A tiled copy through shared memory, with the parent's `TILE`.
#[kernel]
pub fn tiled_copy(x: &[f32], y: &mut [f32]) {
    let mut tile = shared_array![f32; TILE];
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * TILE + t;
    tile[t] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    if i < y.len() {
        y[i] = tile[TILE - 1 - t];
    }
}

/// Host-only on purpose: it asks the OS which host thread runs each GPU thread, which has
/// no meaning (and no `std`) on a GPU.
#[kernel]
pub fn host_thread_ids(out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let name = std::thread::current().name().map(str::len).unwrap_or(0);
    if i < out.len() {
        out[i] = name as u32;
    }
}
