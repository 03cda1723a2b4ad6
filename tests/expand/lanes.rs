// Lane loops (barrier-free kernels) and their vectorised form.
use deviceemu::prelude::*;

/// Write-only output: vectorised; `y` is staged in a lane buffer that is stored, never loaded.
#[kernel]
pub fn scale(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i];
    }
}

/// A store under a condition: hoisted checks, but not vectorised (a chunk would write back
/// elements its lanes never wrote).
#[kernel]
pub fn clamp_some(x: &[u32], y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        if x[i] > 100 {
            y[i] = 100;
        }
    }
}
