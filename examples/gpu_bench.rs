//! Times the example kernels on the GPU with CUDA events (10 warm-ups, median of 50), in the
//! format of `benches/cuda/bench.cu`, for BENCHMARKS.md.
//!
//! `cargo run --release --example gpu_bench --features gpu` (needs an NVIDIA GPU).

#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul_example;
#[path = "reduction.rs"]
#[allow(dead_code)]
mod reduction_example;
#[path = "saxpy.rs"]
#[allow(dead_code)]
mod saxpy_example;

use deviceemu::prelude::*;
use deviceemu::Error;

fn median_ms(mut launch: impl FnMut() -> Result<(), Error>) -> Result<f32, Error> {
    for _ in 0..10 {
        launch()?;
    }
    let mut t = Vec::with_capacity(50);
    for _ in 0..50 {
        launch()?;
        t.push(deviceemu::gpu::last_kernel_ms());
    }
    t.sort_by(f32::total_cmp);
    Ok(t[t.len() / 2])
}

fn main() -> Result<(), Error> {
    if !deviceemu::gpu::available() {
        println!("SKIPPED: no CUDA device or driver here; gpu_bench needs an NVIDIA GPU");
        return Ok(());
    }
    let n = 1usize << 26;
    let x = DeviceBuffer::<f32>::zeroed(n)?;
    let mut y = DeviceBuffer::<f32>::zeroed(n)?;
    let ms = median_ms(|| launch!(saxpy_example::saxpy<<<(n / 256) as u32, 256>>>(2.0, &x, &mut y)))?;
    println!("rust saxpy n={n} ms={ms:.4} GB/s={:.1}", 12.0 * n as f64 / ms as f64 / 1e6);
    let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
    let ms = median_ms(|| launch!(reduction_example::block_sum<<<(n / 256) as u32, 256>>>(&x, &mut partial)))?;
    println!("rust reduction n={n} ms={ms:.4} GB/s={:.1}", 4.0 * n as f64 / ms as f64 / 1e6);
    let dim = 4096usize;
    let a = DeviceBuffer::<f32>::zeroed(dim * dim)?;
    let b = DeviceBuffer::<f32>::zeroed(dim * dim)?;
    let mut c = DeviceBuffer::<f32>::zeroed(dim * dim)?;
    let d = dim as u32;
    let ms = median_ms(|| launch!(matmul_example::matmul<<<(d / 16, d / 16), (16, 16)>>>(d, d, d, &a, &b, &mut c)))?;
    println!("rust matmul n={dim} ms={ms:.4} GFLOP/s={:.1}", 2.0 * (dim as f64).powi(3) / ms as f64 / 1e6);
    Ok(())
}
