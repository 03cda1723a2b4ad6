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

/// A 2-D stencil by `(i, j)` from the 2-D indices: no index is `base + tid` over the whole
/// block, so it runs row by row (`fission/rows.rs`) under its range proof.
#[kernel]
pub fn stencil_rows(w: i32, h: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
        b[i * w + j] = 0.5 * (a[(i - 1) * w + j] + a[i * w + (j + 1)]) - 0.25 * a[i * w + (j - 1)];
    }
}
