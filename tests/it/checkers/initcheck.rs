//! initcheck: reads of device memory that nothing wrote, in global memory (`DeviceBuffer::
//! uninit`) and in a block's shared memory, reported in compute-sanitizer's words; and no
//! report for kernels that write before they read, whatever the schedule.

use crate::common::{assert_has, marked_line, model};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Checks, Config, Error};

/// The line of this file that ends with `marker`.
fn line_of(marker: &str) -> usize {
    marked_line(include_str!("initcheck.rs"), marker)
}

/// `config` with initcheck on.
fn checked(config: Config) -> Config {
    config.checks(Checks { initcheck: true, ..Checks::default() })
}

/// `out[i] = x[i] + 1`.
#[kernel]
fn add_one(x: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = x[i] + 1.0; // ADD ONE
    }
}

/// Writes the even elements of `x` only.
#[kernel]
fn write_even(x: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() && i % 2 == 0 {
        x[i] = i as f32;
    }
}

fn run_add_one(config: Config, x: &DeviceBuffer<f32>) -> Result<Vec<f32>, Error> {
    let mut out = DeviceBuffer::<f32>::uninit(x.len())?;
    with_config(config, || launch!(add_one<<<(x.len() as u32).div_ceil(64), 64>>>(x, &mut out)))?;
    out.to_vec()
}

#[test]
fn reading_an_uninit_buffer_is_reported() {
    let x = DeviceBuffer::<f32>::uninit(100).unwrap();
    let err = run_add_one(checked(Config::default().blocks(BlockOrder::Serial)), &x).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Uninitialized __global__ memory read of size 4 bytes");
    assert_has(&text, &format!("at add_one in tests/it/checkers/initcheck.rs:{}:", line_of("// ADD ONE")));
    assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
    assert_has(
        &text,
        "element 0 of `x` (100 elements): it comes from DeviceBuffer::uninit and no kernel or copy has written it",
    );
    assert_has(&text, "64 such accesses by this block at this line");
    // One report per block and line: blocks 0 and 1.
    assert_has(&text, "ERROR SUMMARY: 2 errors");
}

#[test]
fn without_initcheck_nothing_is_reported_and_nothing_costs() {
    let x = DeviceBuffer::<f32>::uninit(100).unwrap();
    assert_eq!(run_add_one(Config::default(), &x).unwrap(), vec![1.0; 100]);
}

#[test]
fn written_buffers_are_not_reported() {
    model().check_with(|config| {
        let config = checked(config.clone());
        // Created from data, zeroed, or copied into after `uninit`.
        let from = DeviceBuffer::from_slice(&[2.0f32; 100]).unwrap();
        assert_eq!(run_add_one(config.clone(), &from).unwrap(), vec![3.0; 100], "{config:?}");
        let zero = DeviceBuffer::<f32>::zeroed(100).unwrap();
        assert_eq!(run_add_one(config.clone(), &zero).unwrap(), vec![1.0; 100], "{config:?}");
        let mut copied = DeviceBuffer::<f32>::uninit(100).unwrap();
        copied.copy_from_slice(&[5.0; 100]).unwrap();
        assert_eq!(run_add_one(config.clone(), &copied).unwrap(), vec![6.0; 100], "{config:?}");
        // Written by a checked kernel, element by element (no read: no report).
        let mut x = DeviceBuffer::<f32>::uninit(100).unwrap();
        with_config(config.clone(), || launch!(write_even<<<2, 64>>>(&mut x))).unwrap();
        let evens: Vec<f32> = x.to_vec().unwrap().into_iter().step_by(2).collect();
        assert_eq!(evens, (0..50).map(|k| (2 * k) as f32).collect::<Vec<_>>());
    });
}

#[test]
fn elements_a_kernel_did_not_write_are_reported_and_the_others_are_not() {
    let mut x = DeviceBuffer::<f32>::uninit(100).unwrap();
    let config = checked(Config::default());
    with_config(config.clone(), || launch!(write_even<<<2, 64>>>(&mut x))).unwrap();
    let err = run_add_one(config, &x).unwrap_err();
    let text = err.to_string();
    // Odd elements only: the first is 1, and each block of 64 threads has 32 of them (the
    // second block 18: elements 65..99).
    assert_has(&text, "by thread (1,0,0) in block (0,0,0)");
    assert_has(&text, "element 1 of `x`");
    assert_has(&text, "32 such accesses by this block");
    assert_has(&text, "element 65 of `x`");
    assert_has(&text, "18 such accesses by this block");
}

#[test]
fn a_launch_without_initcheck_counts_as_having_written_its_buffers() {
    // Its writes are not tracked, so nothing it could have written is reported later.
    let mut x = DeviceBuffer::<f32>::uninit(100).unwrap();
    with_config(Config::default(), || launch!(write_even<<<2, 64>>>(&mut x))).unwrap();
    run_add_one(checked(Config::default()), &x).unwrap();
}

/// Reads `tile[tid + 64]` of a 128-element tile that only `tile[tid]` (64 threads) wrote.
#[kernel]
fn shared_upper_half(out: &mut [u32], fill: bool) {
    let tile = shared_array![u32; 128];
    let tid = thread_idx().x as usize;
    tile[tid] = tid as u32;
    if fill {
        tile[tid + 64] = 0;
    }
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = tile[tid] + tile[tid + 64];
}

#[test]
fn unwritten_shared_memory_is_reported_in_every_block() {
    for config in [Config::default().blocks(BlockOrder::Serial), Config::default()] {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let err = with_config(checked(config.clone()), || launch!(shared_upper_half<<<2, 64>>>(&mut out, false)))
            .unwrap_err();
        let text = err.to_string();
        assert_has(&text, "Uninitialized __shared__ memory read of size 4 bytes");
        assert_has(&text, "at shared_upper_half in tests/it/checkers/initcheck.rs:");
        assert_has(&text, "element 64 of __shared__ array declared at tests/it/checkers/initcheck.rs:");
        assert_has(&text, "no thread of this block has written it");
        // Block 1 runs on a worker whose arena block 0 filled (serially): still reported.
        assert_has(&text, "in block (1,0,0)");
        assert_has(&text, "ERROR SUMMARY: 2 errors");
        // Filled first: no report.
        with_config(checked(config), || launch!(shared_upper_half<<<2, 64>>>(&mut out, true))).unwrap();
    }
}

/// Each thread fills its slot of dynamic shared memory, then reads its neighbour's.
#[kernel]
fn dynamic_neighbours(out: &mut [u32], skip_last: bool) {
    let tile = dynamic_shared::<u32>();
    let tid = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if !(skip_last && tid == n - 1) {
        tile[tid] = tid as u32 * 3;
    }
    sync_threads();
    out[tid] = tile[(tid + 1) % n];
}

#[test]
fn dynamic_shared_memory_is_checked_too() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        with_config(checked(config.clone()), || launch!(dynamic_neighbours<<<1, 32, 128>>>(&mut out, false))).unwrap();
        let err = with_config(checked(config.clone()), || launch!(dynamic_neighbours<<<1, 32, 128>>>(&mut out, true)))
            .unwrap_err();
        let text = err.to_string();
        assert_has(&text, "Uninitialized __shared__ memory read");
        // Thread 30 reads slot 31, which thread 31 skipped.
        assert_has(&text, "by thread (30,0,0) in block (0,0,0)");
        assert_has(&text, "element 31 of `dynamic shared memory`");
    });
}

/// A helper that reads through a view: checked when the launch checks.
#[device]
fn first_of(v: Global<f32>) -> f32 {
    v[0] // HELPER READ
}

#[kernel]
fn via_helper(x: &[f32], out: &mut [f32]) {
    out[0] = first_of(x);
}

/// Counts into `counts` with `atomic_add`.
#[kernel]
fn count(counts: &mut [u32]) {
    counts.atomic_add(thread_idx().x as usize % 4, 1u32);
}

#[test]
fn helpers_and_atomics_are_checked() {
    let x = DeviceBuffer::<f32>::uninit(4).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = with_config(checked(Config::default()), || launch!(via_helper<<<1, 1>>>(&x, &mut out))).unwrap_err();
    assert_has(&err.to_string(), "Uninitialized __global__ memory read of size 4 bytes");
    // Named by the kernel parameter the view came from, at the helper's line.
    assert_has(&err.to_string(), "element 0 of `x`");
    assert_has(
        &err.to_string(),
        &format!("at via_helper in tests/it/checkers/initcheck.rs:{}:", line_of("// HELPER READ")),
    );
    // An atomic on an element nothing wrote reads garbage on a GPU.
    let mut counts = DeviceBuffer::<u32>::uninit(4).unwrap();
    let err = with_config(checked(Config::default()), || launch!(count<<<1, 32>>>(&mut counts))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __global__ memory atomic of size 4 bytes");
    // Only the first atomic on each element: the atomic itself writes it.
    assert_has(&text, "4 such accesses by this block at this line");
    let mut zeroed = DeviceBuffer::<u32>::zeroed(4).unwrap();
    with_config(checked(Config::default()), || launch!(count<<<1, 32>>>(&mut zeroed))).unwrap();
    assert_eq!(zeroed.to_vec().unwrap(), vec![8; 4]);
}

#[test]
fn a_thread_that_writes_before_reading_is_not_reported() {
    let mut x = DeviceBuffer::<f32>::uninit(256).unwrap();
    model().check_with(|config| {
        with_config(checked(config.clone()), || launch!(write_then_read<<<4, 64>>>(&mut x)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
    });
}

/// Each thread writes its element, then doubles it (a read of what it wrote).
#[kernel]
fn write_then_read(x: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    x[i] = i as f32;
    x[i] += x[i];
}

/// Writes columns 0 and 1 of each row, then reads column `c`.
#[kernel]
fn half_rows(m: &mut [[f32; 4]], c: u32, out: &mut [f32]) {
    let r = thread_idx().x as usize;
    m[r][0] = 1.0;
    m[r][1] = 2.0;
    out[r] = m[r][c as usize]; // ROW READ
}

#[test]
fn unwritten_columns_of_array_elements_are_reported() {
    let config = checked(Config::default());
    let mut out = DeviceBuffer::<f32>::zeroed(8).unwrap();
    let mut m = DeviceBuffer::<[f32; 4]>::uninit(8).unwrap();
    with_config(config.clone(), || launch!(half_rows<<<1, 8>>>(&mut m, 1, &mut out))).unwrap();
    let mut m = DeviceBuffer::<[f32; 4]>::uninit(8).unwrap();
    let err = with_config(config, || launch!(half_rows<<<1, 8>>>(&mut m, 2, &mut out))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __global__ memory read of size 4 bytes");
    assert_has(&text, &format!("tests/it/checkers/initcheck.rs:{}", line_of("// ROW READ")));
    assert_has(&text, "8 such accesses by this block at this line");
}

/// A `#[device]` helper without views may be a `const fn` (the checkers add nothing to it).
#[device]
const fn twice(x: u32) -> u32 {
    2 * x
}

#[kernel]
fn uses_const_helper(out: &mut [u32]) {
    out[thread_idx().x as usize] = twice(thread_idx().x);
}

#[test]
fn const_fn_helpers_still_compile() {
    const FOUR: u32 = twice(2);
    let mut out = DeviceBuffer::<u32>::uninit(8).unwrap();
    with_config(checked(Config::default()), || launch!(uses_const_helper<<<1, 8>>>(&mut out))).unwrap();
    assert_eq!(out.to_vec().unwrap(), (0..8).map(|t| t * 2).collect::<Vec<u32>>());
    assert_eq!(FOUR, 4);
}
