//! `#[device]` helpers take `&[T]` and `&mut [T]` as kernels do: inside a kernel, its views
//! are passed to them, and their accesses are checked like the kernel's.

use deviceemu::prelude::*;

/// `y[i] += a * x[i]`, on slices as a kernel would write it.
#[device]
fn axpy_at(a: f32, x: &[f32], y: &mut [f32], i: usize) {
    y[i] += a * x[i];
}

/// A slice in a tuple, and a helper calling another.
#[device]
fn axpy_pair((x, y): (&[f32], &mut [f32]), i: usize) {
    axpy_at(2.0, x, y, i);
}

/// CUDA's `__noinline__`: the attribute is the user's, beside the one `#[device]` gives
/// helpers that do not wait (`inline(always)` in release builds).
#[device]
#[inline(never)]
fn axpy_apart(a: f32, x: &[f32], y: &mut [f32], i: usize) {
    y[i] += a * x[i];
}

#[kernel]
fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        axpy_at(a, x, y, i);
        axpy_pair((x, y), i);
        axpy_apart(-1.0, x, y, i);
    }
}

/// Reads one past the end of `x` in the helper.
#[kernel]
fn off_by_one(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    axpy_at(1.0, x, y, i + 1);
}

#[test]
fn helpers_take_slices() {
    let x = DeviceBuffer::from_slice(&(0..100).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let mut y = DeviceBuffer::from_slice(&[1.0f32; 100]).unwrap();
    launch!(axpy<<<4, 32>>>(3.0, &x, &mut y)).unwrap();
    let want: Vec<f32> = (0..100).map(|i| 1.0 + 3.0 * i as f32 + 2.0 * i as f32 - i as f32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
}

#[test]
fn a_helper_out_of_bounds_access_is_reported() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 32]).unwrap();
    let mut y = DeviceBuffer::from_slice(&[0.0f32; 33]).unwrap();
    let e = launch!(off_by_one<<<1, 32>>>(&x, &mut y)).unwrap_err();
    assert_eq!(e.code(), 700, "{e}");
    assert!(e.to_string().contains("device_helpers.rs"), "{e}");
}
