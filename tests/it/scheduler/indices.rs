//! Indices of device memory may be any primitive integer, as CUDA code writes them: `u32`,
//! `i32`, `i64`, `u8`, ... read and write the elements they name, in flat views, in shared
//! arrays and in `t[r][c]`; a negative index is an out-of-bounds access (error 700), reported
//! with its negative value.

use deviceemu::prelude::*;
use deviceemu::Finding;

/// Copies `x` into `y` (reversed, to use a computed index) with `u32`, `i32` and `i64`
/// indices, and through a shared tile indexed by `u8` rows and `i16` columns.
#[kernel]
fn typed_indices(x: &[f32], y: &mut [f32], z: &mut [f32], w: &mut [f32]) {
    let t = shared_array![[f32; 4]; 2];
    let i: u32 = thread_idx().x;
    let n = x.len() as u32;
    y[n - 1 - i] = x[i]; // u32 index and u32 arithmetic
    let j = i as i32;
    z[j] = x[j] * 2.0; // i32 index
    z[j] += 1.0; // compound assignment with an i32 index
    let k = i as i64;
    let r = (i / 4) as u8;
    let c = (i % 4) as i16;
    t[r][c] = x[k];
    sync_threads();
    w[k] = t[r][c] + 10.0;
}

/// Thread 0 reads `x[base - 1]`: with `base = 0`, index -1.
#[kernel]
fn negative_index(x: &[f32], y: &mut [f32], base: i32) {
    if thread_idx().x == 0 {
        y[0] = x[base - 1]; // @NEG
    }
}

#[test]
fn typed_indices_read_and_write_their_elements() {
    let src: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let x = DeviceBuffer::from_slice(&src).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(8).unwrap();
    let mut z = DeviceBuffer::<f32>::zeroed(8).unwrap();
    let mut w = DeviceBuffer::<f32>::zeroed(8).unwrap();
    launch!(typed_indices<<<1, 8>>>(&x, &mut y, &mut z, &mut w)).unwrap();
    let rev: Vec<f32> = src.iter().rev().copied().collect();
    assert_eq!(y.to_vec().unwrap(), rev);
    assert_eq!(z.to_vec().unwrap(), src.iter().map(|v| v * 2.0 + 1.0).collect::<Vec<_>>());
    assert_eq!(w.to_vec().unwrap(), src.iter().map(|v| v + 10.0).collect::<Vec<_>>());
}

#[test]
fn a_negative_index_is_out_of_bounds_with_its_value() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 16]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = launch!(negative_index<<<1, 32>>>(&x, &mut y, 0)).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert!(text.contains("========= Invalid __global__ read of size 4 bytes"), "{text}");
    assert!(text.contains("index -1 is before the start of `x`, which has 16 elements (64 bytes at 0x"), "{text}");
    let line = include_str!("indices.rs").lines().position(|l| l.contains("// @NEG")).unwrap() + 1;
    assert!(text.contains(&format!("tests/it/scheduler/indices.rs:{line}:")), "{text}");
    let f = &err.report().unwrap().findings()[0];
    assert!(matches!(f, Finding::OutOfBounds { index, len: 16, .. } if *index as isize == -1), "{f:?}");
    // The same kernel with an index in bounds runs clean.
    launch!(negative_index<<<1, 32>>>(&x, &mut y, 3)).unwrap();
    assert_eq!(y.to_vec().unwrap(), [1.0]);
}

/// Views passed to a `#[device]` helper, to a closure whose parameter type is inferred, and
/// to a generic function with its type written out: `#[kernel]`'s `pass` leaves them views.
#[device]
fn first(x: &[f32]) -> f32 {
    x[0u32]
}

fn generic<V: Copy>(v: V) -> V {
    v
}

#[kernel]
fn passes_views(x: &[f32], y: &mut [f32]) {
    let read = |v, i: i32| -> f32 {
        let v: Global<f32> = v;
        v[i]
    };
    if thread_idx().x == 0 {
        let g: Global<f32> = generic::<Global<f32>>(x);
        y[0] = first(x) + read(x, 1) + g[2];
    }
}

#[test]
fn views_reach_helpers_closures_and_generic_functions() {
    let x = DeviceBuffer::from_slice(&[1.0f32, 10.0, 100.0]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(1).unwrap();
    launch!(passes_views<<<1, 1>>>(&x, &mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), [111.0]);
}
