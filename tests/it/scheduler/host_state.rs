//! A launch leaves no state on the calling thread that slows the host code after it: no `ymm`
//! register's upper half in use. Copies of 128 bytes or more (the vectorised regions' lane
//! buffers, among others) move 32 bytes at a time with AVX; without a `vzeroupper` after them,
//! every SSE instruction the thread ran next paid for the dirty upper state, and the corpus's
//! serial matrix product, timed after a launch of cuda-samples' matrixMul on the same thread,
//! took 37 ms instead of 15 (BENCHMARKS.md, "The upper halves of the ymm registers").
#![cfg(all(target_arch = "x86_64", not(miri)))]

use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, ExecPath};

/// A tiled matrix product, C = A B for square matrices of side `n` (a multiple of 32), in
/// blocks of 32 x 32 threads, as cuda-samples' matrixMul: its regions run row by row, their
/// lane buffers of 32 floats copied with AVX moves where the CPU has AVX.
#[kernel]
fn tiled_product(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let row = block_idx().y * 32 + ty;
    let col = block_idx().x * 32 + tx;
    let mut sum = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let at = shared_array![[f32; 32]; 32];
        let bt = shared_array![[f32; 32]; 32];
        at[ty][tx] = a[row * n + k0 + tx];
        bt[ty][tx] = b[(k0 + ty) * n + col];
        sync_threads();
        for k in 0..32 {
            sum += at[ty][k] * bt[k][tx];
        }
        sync_threads();
        k0 += 32;
    }
    c[row * n + col] = sum;
}

#[test]
fn a_launch_leaves_the_upper_halves_of_the_ymm_registers_clean() {
    let in_use = || deviceemu::__private::ymm_upper_in_use().expect("the machines here have `xgetbv` with `ecx = 1`");
    assert!(std::arch::is_x86_feature_detected!("avx"), "the machines here have AVX");
    let n = 64u32;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 3) as f32 - 1.0).collect();
    let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
    let mut dc = DeviceBuffer::<f32>::zeroed((n * n) as usize).unwrap();
    // Every block on this thread, on the fast paths.
    with_config(Config::default().blocks(BlockOrder::Serial).path(ExecPath::Auto), || {
        deviceemu::__private::clear_ymm_upper();
        assert!(!in_use(), "clean before the launch");
        launch!(tiled_product<<<(n / 32, n / 32), (32, 32)>>>(&mut dc, &da, &db, n)).unwrap();
        assert!(!in_use(), "the launch left the upper halves of ymm registers in use");
    });
    assert_eq!(deviceemu::__private::last_path(), "regions");
    let n = n as usize;
    let want: Vec<f32> =
        (0..n * n).map(|i| (0..n).fold(0.0f32, |s, k| s + a[i / n * n + k] * b[k * n + i % n])).collect();
    assert_eq!(dc.to_vec().unwrap(), want);
}
