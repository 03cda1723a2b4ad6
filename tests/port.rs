//! Kernels shaped like CUDA code being ported (issue 30): each compiles, runs on both host
//! paths (CI runs this file again with `EMU_PATH=general`) and, with the `gpu` feature, is
//! compiled to PTX and checked by ptxas (`tests/ptx.rs`).

use deviceemu::prelude::*;

/// CUDA's `scale<<<g, b>>>(d_data, n)` called once per time step.
#[kernel]
fn scale_step(data: &mut [f32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        data[i] = data[i] * 2.0 + 1.0;
    }
}

/// A port's unused parameters keep their CUDA names with a leading underscore. (Until the
/// launcher names its buffer descriptions without a double underscore, `__emu_meta__x`, the
/// buffer parameters here draw a `non_snake_case` warning; issue 30, item 9.)
#[kernel]
fn unused_params(_x: &[f32], _flags: u32, out: &mut [f32], _scratch: &mut [f32]) {
    let i = thread_idx().x;
    out[i] = i as f32;
}

/// Runs `steps` time steps on a buffer the caller lends: `d_data` is a `&mut DeviceBuffer`
/// passed by name to each launch, as CUDA passes the pointer.
fn run_steps(d_data: &mut DeviceBuffer<f32>, n: u32, steps: u32) {
    for _ in 0..steps {
        launch!(scale_step<<<(n + 63) / 64, 64>>>(d_data, n)).unwrap();
    }
}

#[test]
fn a_mut_buffer_variable_is_passed_by_name_in_a_loop() {
    let mut buf = DeviceBuffer::from_slice(&[0.0f32; 100]).unwrap();
    run_steps(&mut buf, 100, 3);
    // 0 -> 1 -> 3 -> 7
    assert!(buf.to_vec().unwrap().iter().all(|&v| v == 7.0));
    // A mutable binding, and a slice, in a loop too.
    let mut d_data = &mut buf;
    for _ in 0..2 {
        launch!(scale_step<<<2, 64>>>(d_data, 100)).unwrap();
    }
    d_data = &mut buf;
    launch!(scale_step<<<2, 64>>>(d_data, 100)).unwrap();
    assert!(buf.to_vec().unwrap().iter().all(|&v| v == 63.0));
    let part = buf.slice_mut(0..10);
    launch!(scale_step<<<1, 64>>>(part, 10)).unwrap();
    assert_eq!(buf.to_vec().unwrap()[9..11], [127.0, 63.0]);
}

#[test]
fn parameters_with_a_leading_underscore() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(4).unwrap();
    let mut scratch = DeviceBuffer::<f32>::zeroed(1).unwrap();
    launch!(unused_params<<<1, 4>>>(&x, 0, &mut out, &mut scratch)).unwrap();
    assert_eq!(out.to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0]);
}
