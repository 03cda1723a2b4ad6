//! The contract example (README, "The kernel API"): saxpy, then a block reduction, checked on the CPU.
use deviceemu::prelude::*;

#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[kernel]
pub fn block_sum(input: &[f32], partial: &mut [f32]) {
    let mut tile = shared_array![f32; 256];
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

fn main() -> Result<(), deviceemu::Error> {
    let n = 1 << 20;
    let x = DeviceBuffer::from_slice(&vec![1.0f32; n])?;
    let mut y = DeviceBuffer::from_slice(&vec![2.0f32; n])?;
    launch!(saxpy<<<(n as u32).div_ceil(256), 256>>>(2.0, &x, &mut y))?;
    assert!(y.to_vec()?.iter().all(|&v| v == 4.0));
    let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
    launch!(block_sum<<<(n / 256) as u32, 256>>>(&y, &mut partial))?;
    let total: f32 = partial.to_vec()?.iter().sum();
    assert_eq!(total, 4.0 * n as f32);
    println!("saxpy: {n} elements OK; block_sum: {} partial sums, total {total} OK", n / 256);
    Ok(())
}
