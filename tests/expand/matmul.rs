// A tiled matrix product: 2-D blocks, 2-D shared tiles, a uniform loop around two barriers.
use deviceemu::prelude::*;

#[kernel]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], inner: u32, cols: u32) {
    let ta = shared_array![[f32; 16]; 16];
    let tb = shared_array![[f32; 16]; 16];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * 16 + ty;
    let col = block_idx().x as usize * 16 + tx;
    let kk = inner as usize;
    let nn = cols as usize;
    let mut acc = 0.0f32;
    for t in 0..kk / 16 {
        ta[ty][tx] = a[row * kk + t * 16 + tx];
        tb[ty][tx] = b[(t * 16 + ty) * nn + col];
        sync_threads();
        for j in 0..16 {
            acc += ta[ty][j] * tb[j][tx];
        }
        sync_threads();
    }
    c[row * nn + col] = acc;
}
