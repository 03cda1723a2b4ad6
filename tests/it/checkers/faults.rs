//! What a faulting access does to its thread, its block and the launch's report (memcheck,
//! `host/check/memcheck.rs`): the thread stops (at the fault for a launch's first 256 faults;
//! past those the access does nothing and the thread stops at its next barrier, warp
//! collective or progress point), the block's other threads carry on,
//! and the report counts one error per faulting thread (compute-sanitizer's count: on an H200
//! with `--destroy-on-device-error kernel`, 10^6 threads with two faulting writes each count
//! 1,000,000 errors, `tools/probes/RESULTS.md`), storing only the lowest findings past the
//! print limit. The launches here fault more than 256 times, so both ways are exercised
//! (deterministically so with `EMU_BLOCKS=serial`, where the later blocks take the second).

use crate::common;

use crate::common::{assert_has, assert_lacks, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, Finding, Schedule};

/// Every setting the stop rules must hold under: both block orders, seeds, warp size 1, and
/// OS-thread fibers.
fn configs() -> Vec<Config> {
    vec![
        Config::default(),
        Config::default().blocks(BlockOrder::Serial),
        Config::default().seed(11),
        Config::default().seed(12).warp_size(1),
        Config::default().schedule(Schedule::Threads),
    ]
}

/// Threads `bad_from..` of each block read out of bounds, then pass a barrier; afterwards
/// every thread that is still running writes a marker.
#[kernel]
fn fault_then_barrier(x: &[u32], bad_from: u32, out: &mut [u32]) {
    let t = thread_idx().x;
    let i = (block_idx().x * block_dim().x + t) as usize;
    let off = if t >= bad_from { x.len() } else { 0 };
    let v = x[i % 8 + off]; // @fault-read
    sync_threads();
    out[i] = v + 1;
}

#[test]
fn a_faulting_thread_stops_at_its_next_barrier_and_the_others_carry_on() {
    let x = DeviceBuffer::from_slice(&[5u32; 8]).unwrap();
    for config in configs() {
        let mut out = DeviceBuffer::<u32>::zeroed(80 * 64).unwrap();
        let err =
            with_config(config.clone(), || launch!(fault_then_barrier<<<80, 64>>>(&x, 48, &mut out))).unwrap_err();
        assert_eq!(err.code(), 700, "{config:?}");
        let report = err.report().unwrap();
        assert_eq!(report.error_count(), 80 * 16, "16 faulting threads in each of 80 blocks ({config:?})");
        assert!(report.findings().iter().all(|f| matches!(f, Finding::OutOfBounds { .. })), "{report}");
        assert_eq!(report.findings()[0].thread(), Dim3::new(48, 0, 0), "{config:?}");
        // The faulting threads never got past the barrier; the others all did.
        let got = out.to_vec().unwrap();
        for (i, v) in got.iter().enumerate() {
            let want = if i % 64 >= 48 { 0 } else { 6 };
            assert_eq!(*v, want, "element {i} ({config:?})");
        }
        // No barrier report: a stopped thread counts as exited, not as one that skipped.
        assert_lacks(&report.to_string(), "Barrier error");
    }
}

/// The faulting load gives zero, and what the thread does with it is not the kernel's
/// behaviour: here a loop that never ends, which stops at its progress point (no timeout).
#[kernel]
fn fault_then_spin(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let step = x[t + 4]; // @fault-step
    let mut k = 0u32;
    while k < 100 {
        k += step;
    }
    out[t] = k;
}

/// A faulting thread's later panic (a division by the zero its load gave) is not reported.
#[kernel]
fn fault_then_divide(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let d = x[t + 4];
    out[t] = 1000 / d;
}

#[device]
fn wait_for_block() {
    sync_threads();
}

/// As `fault_then_barrier`, with the barrier in a helper (the thread's fiber parks there).
#[kernel]
fn fault_then_helper_barrier(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = x[t + if t % 2 == 1 { 8 } else { 0 }];
    wait_for_block();
    out[t] = v + 1;
}

#[test]
fn a_faulting_thread_stops_at_a_barrier_in_a_helper() {
    let x = DeviceBuffer::from_slice(&[5u32; 8]).unwrap();
    for config in configs() {
        let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
        let err =
            with_config(config.clone(), || launch!(fault_then_helper_barrier<<<300, 8>>>(&x, &mut out))).unwrap_err();
        assert_eq!(err.report().unwrap().error_count(), 1200, "{config:?}");
        assert_eq!(out.to_vec().unwrap(), [6, 0, 6, 0, 6, 0, 6, 0], "{config:?}");
    }
}

#[test]
fn what_a_faulting_thread_computes_after_its_fault_is_not_reported() {
    let x = DeviceBuffer::from_slice(&[10u32; 8]).unwrap();
    for config in configs() {
        let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
        let err = with_config(config.clone(), || launch!(fault_then_divide<<<300, 8>>>(&x, &mut out))).unwrap_err();
        let report = err.report().unwrap();
        assert_eq!(report.error_count(), 1200, "{config:?}: {report}");
        assert!(report.findings().iter().all(|f| matches!(f, Finding::OutOfBounds { .. })), "{report}");
        assert_eq!(out.to_vec().unwrap()[..4], [100; 4], "{config:?}");
    }
}

#[test]
fn a_faulting_thread_that_loops_on_its_zero_stops_at_a_progress_point() {
    for config in configs() {
        let err = on_new_thread(60, {
            let config = config.clone();
            move || {
                let x = DeviceBuffer::from_slice(&[1u32; 8]).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
                with_config(config, || launch!(fault_then_spin<<<300, 8>>>(&x, &mut out)))
            }
        })
        .unwrap_err();
        let report = err.report().unwrap();
        assert_eq!(err.code(), 700, "{report}");
        assert_eq!(report.error_count(), 1200, "threads 4..8 of 300 blocks fault, once each ({config:?}): {report}");
        assert_lacks(&report.to_string(), "panic");
        assert_lacks(&report.to_string(), "timeout");
    }
}

/// Every thread makes two faulting writes, on two lines.
#[kernel]
fn two_faults(out: &mut [u32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        out[i + n] = i; // @first-fault
        out[i + 2 * n] = i; // @second-fault
    }
}

#[test]
fn a_thread_counts_one_error_at_its_first_fault() {
    let mut out = DeviceBuffer::<u32>::zeroed(1000).unwrap();
    let err = launch!(two_faults<<<4, 256>>>(&mut out, 1000)).unwrap_err();
    let report = err.report().unwrap();
    assert_eq!(report.error_count(), 1000);
    let text = report.to_string();
    assert_has(
        &text,
        &format!("tests/it/checkers/faults.rs:{}", common::marked_line(include_str!("faults.rs"), "// @first-fault")),
    );
    assert_lacks(
        &text,
        &format!("tests/it/checkers/faults.rs:{}", common::marked_line(include_str!("faults.rs"), "// @second-fault")),
    );
    assert!(text.trim_end().ends_with("ERROR SUMMARY: 1000 errors"), "{text}");
}

/// Lane 3 of each warp faults and then reaches a full-warp shuffle, where it stops: the other
/// lanes complete it, as they do on the GPU once a named lane has exited.
#[kernel]
fn fault_then_shuffle(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let off = if t % 32 == 3 { 100 } else { 0 };
    let v = x[t + off];
    let w = shfl_xor_sync(FULL_MASK, v, 16);
    out[t] = w;
}

#[test]
fn a_faulting_lane_stops_at_a_warp_collective() {
    for config in configs() {
        let err = on_new_thread(60, {
            let config = config.clone();
            move || {
                let x = DeviceBuffer::from_slice(&(0..64u32).collect::<Vec<_>>()).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
                with_config(config, || launch!(fault_then_shuffle<<<600, 64>>>(&x, &mut out)))
            }
        })
        .unwrap_err();
        let report = err.report().unwrap();
        assert_eq!(report.error_count(), 1200, "lanes 3 and 35 of 600 blocks fault ({config:?}): {report}");
        assert!(report.findings().iter().all(|f| matches!(f, Finding::OutOfBounds { .. })), "{report}");
    }
}

/// A launch in which every thread of many blocks faults: one error each, the report bounded
/// by the print limit, and the same findings stored whatever the block order and seed.
#[kernel]
fn all_fault(out: &mut [u32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    out[i + n] = i;
}

#[test]
fn every_thread_faulting_is_counted_and_the_lowest_are_stored() {
    let blocks = 1u32 << 12;
    let threads = 64;
    let n = blocks * threads;
    let mut out = DeviceBuffer::<u32>::zeroed(n as usize).unwrap();
    let mut first: Option<Vec<(Dim3, Dim3)>> = None;
    for config in [Config::default(), Config::default().blocks(BlockOrder::Serial), Config::default().seed(99)] {
        let err = with_config(config, || deviceemu::quietly(|| launch!(all_fault<<<blocks, threads>>>(&mut out, n))))
            .unwrap_err();
        let report = err.report().unwrap();
        assert_eq!(report.error_count(), u64::from(n));
        assert_eq!(report.findings().len(), 20, "stored up to the default print limit");
        let keys: Vec<(Dim3, Dim3)> = report.findings().iter().map(|f| (f.block(), f.thread())).collect();
        assert_eq!(keys[0], (Dim3::new(0, 0, 0), Dim3::new(0, 0, 0)));
        assert_eq!(keys[19], (Dim3::new(0, 0, 0), Dim3::new(19, 0, 0)));
        match &first {
            None => first = Some(keys),
            Some(k) => assert_eq!(*k, keys, "the same findings for every order and seed"),
        }
        assert!(report.to_string().contains(&format!("... {} more error(s) not shown", n - 20)));
    }
    assert_eq!(out.to_vec().unwrap(), vec![0; n as usize], "no faulting write happened");
}
