// A barrier-free kernel: one plain host form, the PTX entry and the launcher.
use deviceemu::prelude::*;

/// `y = a * x + y`.
#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] += a * x[i];
    }
}
