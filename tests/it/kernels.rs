//! The kernels that several test modules launch, each defined once. A test that needs a
//! variant (a marker comment for a report's line, another shape) keeps its own.

#![allow(dead_code)] // `tests/racecheck_memory.rs` includes this file too, and uses a subset

use deviceemu::prelude::*;

/// The guide's block reduction (docs/guide/kernels.md): a shared tile, statement-level
/// barriers and a uniform `while` tree; each block writes its sum to `partial`.
#[kernel]
pub(crate) fn block_sum(input: &[f32], partial: &mut [f32]) {
    let tile = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * block_dim().x as usize + tid;
    tile[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}

/// `y = a * x + y`, one GPU thread per element; barrier-free (a lane loop).
#[kernel]
pub(crate) fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}
