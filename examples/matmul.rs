//! Tiled matrix multiply `C = A * B` with 16x16 blocks and two shared tiles, for sizes that are
//! not multiples of 16. Checked bit for bit against a CPU loop that adds in the kernel's order.
use deviceemu::prelude::*;

/// The tile edge: blocks are `(TILE, TILE)` threads.
const TILE: usize = 16;

/// `c (m x n) = a (m x k) * b (k x n)`, row-major. Each thread computes one element of `c`,
/// loading one element of each tile per step; out-of-range tile elements are zero.
/// `launch_bounds(256, 8)` (CUDA's `__launch_bounds__`) lets the GPU build budget registers for
/// eight 256-thread blocks per multiprocessor.
#[kernel(launch_bounds(256, 8))]
pub fn matmul(m: u32, k: u32, n: u32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let mut ta = shared_array![[f32; 16]; 16];
    let mut tb = shared_array![[f32; 16]; 16];
    let (m, k, n) = (m as usize, k as usize, n as usize);
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * 16 + ty;
    let col = block_idx().x as usize * 16 + tx;
    let mut acc = 0.0f32;
    let tiles = k.div_ceil(16);
    for t in 0..tiles {
        let ka = t * 16 + tx;
        let kb = t * 16 + ty;
        ta[ty][tx] = if row < m && ka < k { a[row * k + ka] } else { 0.0 };
        tb[ty][tx] = if kb < k && col < n { b[kb * n + col] } else { 0.0 };
        sync_threads();
        for p in 0..16 {
            acc += ta[ty][p] * tb[p][tx];
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// The CPU reference, adding the same products (zeros included) in the same order.
fn reference(m: usize, k: usize, n: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let padded = k.div_ceil(TILE) * TILE;
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..padded {
                let (x, y) = if p < k { (a[i * k + p], b[p * n + j]) } else { (0.0, 0.0) };
                acc += x * y;
            }
            c[i * n + j] = acc;
        }
    }
    c
}

fn main() -> Result<(), deviceemu::Error> {
    let (m, k, n) = (203usize, 170usize, 189usize);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
    let b: Vec<f32> = (0..k * n).map(|_| next()).collect();

    let da = DeviceBuffer::from_slice(&a)?;
    let db = DeviceBuffer::from_slice(&b)?;
    let mut dc = DeviceBuffer::<f32>::zeroed(m * n)?;
    let grid = (n.div_ceil(TILE) as u32, m.div_ceil(TILE) as u32);
    launch!(matmul<<<grid, (16, 16)>>>(m as u32, k as u32, n as u32, &da, &db, &mut dc))?;

    let got = dc.to_vec()?;
    let want = reference(m, k, n, &a, &b);
    let bad = got.iter().zip(&want).filter(|(g, w)| g.to_bits() != w.to_bits()).count();
    println!(
        "matmul: ({m}x{k}) * ({k}x{n}) in {}x{} blocks of 16x16: {bad} of {} elements differ: {}",
        grid.0,
        grid.1,
        m * n,
        if bad == 0 { "OK (bit-exact)" } else { "MISMATCH" }
    );
    if bad != 0 {
        std::process::exit(1);
    }
    Ok(())
}
