//! racecheck's memory: the shadow of global memory takes at most 16 bytes per 4-byte element
//! in the common case, nothing for pages a launch never touches, and a buffer whose shadow
//! does not fit the budget (`EMU_RACECHECK_SHADOW`) is error 2, never an abort.
//!
//! The figures come from racecheck's own accounting (`__private::race_shadow_bytes`: each
//! shadow, when its launch ends, adds the resident pages of its records, which `mincore`
//! reports, and its out-of-line entries), which is process-wide: the tests of this file run
//! one at a time.

use std::sync::Mutex;

#[path = "it/kernels.rs"]
mod kernels;
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};
use kernels::{block_sum, saxpy};

/// The accounting and `EMU_RACECHECK_SHADOW` are process-wide: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn racecheck() -> Config {
    Config::default().checks(Checks { racecheck: true, ..Checks::default() })
}

/// The bytes of global shadow that the launches `f` ran held at their end (racecheck's
/// accounting: the resident pages of the records, from `mincore`, and the out-of-line
/// entries).
fn peak_during<R>(f: impl FnOnce() -> R) -> (usize, R) {
    deviceemu::__private::reset_race_shadow_peak();
    let reserved = deviceemu::__private::race_shadow_bytes().1;
    let r = f();
    let (held, now) = deviceemu::__private::race_shadow_bytes();
    assert_eq!(now, reserved, "the launch's shadows are freed when it ends");
    (held, r)
}

/// Runs `f` with `EMU_RACECHECK_SHADOW` set to `budget`, then unsets it.
fn with_budget<R>(budget: &str, f: impl FnOnce() -> R) -> R {
    std::env::set_var("EMU_RACECHECK_SHADOW", budget);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::env::remove_var("EMU_RACECHECK_SHADOW");
    r.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Each thread reads its element and its neighbour's, with no barrier: every element is read
/// by two threads that are not ordered (read-shared, kept out of line), and nothing races.
#[kernel]
fn pairs(x: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = x[i] + x[i ^ 1];
    }
}

/// Writes element `i` of the first `touched` elements only.
#[kernel]
fn touch(y: &mut [f32], touched: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < touched {
        y[i as usize] = 1.0;
    }
}

const N: usize = 1 << 20;

#[test]
fn saxpy_and_the_block_reduction_take_at_most_16_bytes_of_shadow_per_element() {
    let _g = lock();
    let x = DeviceBuffer::from_slice(&vec![1.0f32; N]).unwrap();
    let mut y = DeviceBuffer::from_slice(&vec![2.0f32; N]).unwrap();
    let (bytes, r) =
        peak_during(|| with_config(racecheck(), || launch!(saxpy<<<(N / 256) as u32, 256>>>(2.0, &x, &mut y))));
    r.unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 4.0));
    let per = bytes as f64 / (2 * N) as f64;
    eprintln!("saxpy: {bytes} bytes of shadow for 2 x {N} elements: {per:.3} bytes per element");
    // Every element of both buffers is touched: at least the 16-byte records.
    assert!(bytes >= 16 * 2 * N, "{bytes}");
    assert!(per <= 16.0, "{per} bytes per element");

    let mut partial = DeviceBuffer::<f32>::zeroed(N / 256).unwrap();
    let (bytes, r) =
        peak_during(|| with_config(racecheck(), || launch!(block_sum<<<(N / 256) as u32, 256>>>(&y, &mut partial))));
    r.unwrap();
    assert!(partial.to_vec().unwrap().iter().all(|&v| v == 1024.0));
    let elements = N + N / 256;
    let per = bytes as f64 / elements as f64;
    eprintln!("block reduction: {bytes} bytes of shadow for {elements} elements: {per:.3} bytes per element");
    // The partial sums' shadow (16 KiB) is one allocation, counted in full.
    assert!(bytes >= 16 * elements && per <= 16.0, "{per} bytes per element");
}

#[test]
fn pages_a_launch_never_touches_cost_nothing() {
    let _g = lock();
    let big = 1usize << 24;
    let mut y = DeviceBuffer::<f32>::zeroed(big).unwrap();
    let touched = 4096u32;
    let (bytes, r) =
        peak_during(|| with_config(racecheck(), || launch!(touch<<<(big / 256) as u32, 256>>>(&mut y, touched))));
    r.unwrap();
    // The OS pages of the touched records (16 pages of 4 KiB), and nothing else; where the
    // OS backs the mapping with 2 MiB pages (transparent huge pages set to `always`), one of
    // those, against the 256 MiB that the records of the whole buffer take.
    eprintln!("{touched} of {big} elements touched: {bytes} bytes of shadow");
    assert!(bytes >= 16 * touched as usize, "{bytes}");
    assert!(bytes <= 2 << 20, "{bytes}");
}

#[test]
fn read_shared_elements_go_out_of_line() {
    let _g = lock();
    let x = DeviceBuffer::from_slice(&vec![1.0f32; N]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(N).unwrap();
    let (bytes, r) =
        peak_during(|| with_config(racecheck(), || launch!(pairs<<<(N / 256) as u32, 256>>>(&x, &mut out))));
    r.unwrap();
    assert!(out.to_vec().unwrap().iter().all(|&v| v == 2.0));
    // `x`'s elements are each read by two unordered threads: 16 bytes in line and 36 out of
    // line (four cells and a free-list slot) each; `out`'s take 16.
    let per_x = (bytes - 16 * N) as f64 / N as f64;
    eprintln!("read-shared: {bytes} bytes of shadow; {per_x:.2} bytes per element of `x`");
    assert!(per_x > 16.0 && per_x <= 16.0 + 2.0 * 36.0 + 0.1, "{per_x}");
}

#[test]
fn a_small_buffer_too_large_for_its_shadow_is_error_2_before_the_launch_runs() {
    let _g = lock();
    // 4096 records of 16 bytes (64 KiB, a small shadow, reserved in full) in a budget of 16 KiB.
    let n = 4096;
    let x = DeviceBuffer::from_slice(&vec![1.0f32; n]).unwrap();
    let mut y = DeviceBuffer::from_slice(&vec![2.0f32; n]).unwrap();
    with_budget("16K", || {
        let err = with_config(racecheck(), || launch!(saxpy<<<(n / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        let text = err.to_string();
        assert!(text.contains("racecheck's shadow of buffer `x`"), "{text}");
        assert!(text.contains("EMU_RACECHECK_SHADOW"), "{text}");
        // The kernel did not run.
        assert!(y.to_vec().unwrap().iter().all(|&v| v == 2.0));
        // Without racecheck the budget does not matter.
        with_config(Config::default(), || launch!(saxpy<<<(n / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap();
        assert!(y.to_vec().unwrap().iter().all(|&v| v == 4.0));
    });
    // The next launch works with the default budget.
    with_config(racecheck(), || launch!(saxpy<<<(n / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap();
}

#[test]
fn a_launch_that_touches_more_shadow_than_the_budget_is_error_2() {
    let _g = lock();
    let x = DeviceBuffer::from_slice(&vec![1.0f32; N]).unwrap();
    let mut y = DeviceBuffer::from_slice(&vec![2.0f32; N]).unwrap();
    // Two large shadows of 16 MiB each, reserved page by page as the launch touches them.
    with_budget("1M", || {
        let err = with_config(racecheck(), || launch!(saxpy<<<(N / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        let text = err.to_string();
        assert!(text.contains("racecheck's shadow of buffer `"), "{text}");
        assert!(text.contains("EMU_RACECHECK_SHADOW"), "{text}");
    });
    // A budget that holds both shadows.
    with_budget("40M", || {
        with_config(racecheck(), || launch!(saxpy<<<(N / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap()
    });
    with_config(racecheck(), || launch!(saxpy<<<(N / 256) as u32, 256>>>(2.0, &x, &mut y))).unwrap();
}

#[test]
fn a_4_gib_buffer_under_racecheck_costs_what_it_touches_and_past_the_budget_is_error_2() {
    let _g = lock();
    // 4 GiB of f32, mapped lazily; its shadow (16 GiB of records, mapped lazily too) is
    // reserved only as the launch touches it.
    let mut y = DeviceBuffer::<f32>::zeroed(1 << 30).unwrap();
    let (bytes, r) = peak_during(|| with_config(racecheck(), || launch!(touch<<<1, 256>>>(&mut y, 256))));
    r.unwrap();
    assert!(bytes <= 2 << 20, "{bytes}");
    // 2^17 elements touched need 2 MiB of shadow, past a budget of 1 MiB.
    with_budget("1M", || {
        let err = with_config(racecheck(), || launch!(touch<<<512, 256>>>(&mut y, 1 << 17))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        assert!(err.to_string().contains("racecheck's shadow of buffer `y`"), "{err}");
    });
}

#[test]
fn out_of_line_records_past_the_budget_fail_the_launch_with_error_2() {
    let _g = lock();
    let n = 1usize << 16;
    let x = DeviceBuffer::from_slice(&vec![1.0f32; n]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(n).unwrap();
    // The records of both buffers (2 x 1 MiB, reserved as they are touched) fit, and the
    // out-of-line entries of `x` (36 bytes per element, the table doubling from 64 entries)
    // fit up to 32768 entries; the doubling to 65536, when about half the records are touched
    // (1 MiB + 2.25 MiB), does not.
    with_budget("2800K", || {
        let err = with_config(racecheck(), || launch!(pairs<<<(n / 256) as u32, 256>>>(&x, &mut out))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        assert!(err.to_string().contains("out-of-line records of buffer `x`"), "{err}");
    });
    with_config(racecheck(), || launch!(pairs<<<(n / 256) as u32, 256>>>(&x, &mut out))).unwrap();
}
