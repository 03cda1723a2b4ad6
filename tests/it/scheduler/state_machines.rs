//! Kernels with barriers in their body run as state machines (`emu-runtime/src/host/task.rs`):
//! each GPU thread is a future, a barrier in the body is an `.await`. These tests cover what
//! that form must keep from the fiber form: barriers it cannot await (inside `#[device]`
//! helpers and closures) mixed with awaited ones, every seed, panics, stack overflows, aborted
//! blocks dropping what their threads held, and the barrier checks.

use crate::common::{assert_has, model, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::testing::Model;
use deviceemu::{with_config, BlockOrder, Checks, Config, Finding};

/// A barrier the kernel body cannot await: it is inside a helper.
#[device]
fn helper_sync() {
    sync_threads();
}

/// Rotates a 64-element tile three times, alternating awaited barriers, barriers in a helper
/// and a barrier in a closure, and counts with `sync_threads_count`.
#[kernel]
fn rotate_mixed(out: &mut [u32], counts: &mut [u32]) {
    let a = shared_array![u32; 64];
    let b = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let base = block_idx().x as usize * 64;
    a[tid] = (base + tid) as u32;
    sync_threads(); // awaited
    b[(tid + 1) % 64] = a[tid];
    helper_sync(); // blocking, in a helper
    a[(tid + 1) % 64] = b[tid];
    let sync = || sync_threads();
    sync(); // blocking, in a closure
    b[(tid + 1) % 64] = a[tid];
    // The predicate reads `a`, which the closure's barrier ordered (`b[tid]` here would race
    // with its writer on the line above: racecheck says so).
    let n = sync_threads_count(a[tid] % 2 == 0); // awaited
    out[base + tid] = b[tid];
    if tid == 0 {
        counts[block_idx().x as usize] = n;
    }
}

#[test]
fn awaited_and_blocking_barriers_mix_in_one_kernel() {
    let blocks = 5usize;
    let want: Vec<u32> = (0..blocks * 64).map(|i| ((i / 64) * 64 + (i % 64 + 64 - 3) % 64) as u32).collect();
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(blocks * 64).unwrap();
        let mut counts = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        with_config(config.clone(), || launch!(rotate_mixed<<<blocks as u32, 64>>>(&mut out, &mut counts)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{config:?}");
        assert_eq!(counts.to_vec().unwrap(), vec![32; blocks], "{config:?}");
    });
}

/// `sync_threads_and` and `sync_threads_or`, awaited, with their results used in the body.
#[kernel]
fn votes(cut: u32, out: &mut [u32]) {
    let tid = thread_idx().x;
    let all = sync_threads_and(tid < cut);
    let any = sync_threads_or(tid + 1 == cut);
    let count = sync_threads_count(tid < cut);
    if tid == 0 {
        out[0] = all as u32;
        out[1] = any as u32;
        out[2] = count;
    }
}

#[test]
fn awaited_barrier_votes_give_the_block_results() {
    for (cut, want) in [(64, [1, 1, 64]), (10, [0, 1, 10]), (0, [0, 0, 0]), (100, [1, 0, 64])] {
        let mut out = DeviceBuffer::<u32>::zeroed(3).unwrap();
        launch!(votes<<<1, 64>>>(cut, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "cut {cut}");
    }
}

/// Some threads wait at the body's barrier while others wait in the helper: a deadlock in
/// either form.
#[kernel]
fn body_vs_helper_barrier(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid < 16 {
        sync_threads();
    } else {
        helper_sync();
    }
    out[tid] = 1;
}

#[test]
fn awaited_and_blocking_barriers_at_different_sites_deadlock_is_reported() {
    let err = on_new_thread(60, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(body_vs_helper_barrier<<<2, 64>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, "body_vs_helper_barrier");
}

/// Thread 5 of block 1 panics, at point `at`, while threads 0 to 4 already wait at the next
/// barrier and threads 6 to 63 are still to be released from the last one. At point 0 the
/// waiting ones are parked in the helper and the unreleased ones are futures; at point 1 the
/// other way round.
#[kernel]
fn panic_between_barriers(at: u32, out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let t = shared_array![u32; 64];
    t[tid] = tid as u32;
    let victim = tid == 5 && block_idx().x == 1;
    sync_threads();
    let v: Option<u32> = if victim && at == 0 { None } else { Some(t[63 - tid]) };
    let v = v.unwrap();
    helper_sync();
    let w: Option<u32> = if victim && at == 1 { None } else { Some(v) };
    let w = w.unwrap();
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = w;
}

#[test]
fn panic_in_a_state_machine_kernel_is_reported_and_the_next_launch_works() {
    for at in [0, 1] {
        let (err, out) = on_new_thread(60, move || {
            let mut out = DeviceBuffer::<u32>::zeroed(3 * 64).unwrap();
            let err = with_config(Config::default(), || launch!(panic_between_barriers<<<3, 64>>>(at, &mut out)))
                .unwrap_err();
            (err, out.to_vec().unwrap())
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Kernel panic: called `Option::unwrap()` on a `None` value");
        assert_has(&text, "by thread (5,0,0) in block (1,0,0)");
        assert_has(&text, "ERROR SUMMARY: 1 error");
        // Blocks 0 and 2 completed; block 1 wrote nothing.
        let want: Vec<u32> = (0..64).map(|t| 63 - t).collect();
        assert_eq!(&out[..64], &want[..], "point {at}");
        assert_eq!(&out[128..], &want[..], "point {at}");
        assert_eq!(&out[64..128], &[0; 64][..], "point {at}");
    }
    let mut out = DeviceBuffer::<u32>::zeroed(5 * 64).unwrap();
    let mut counts = DeviceBuffer::<u32>::zeroed(5).unwrap();
    launch!(rotate_mixed<<<5, 64>>>(&mut out, &mut counts)).expect("a correct launch after a failed one works");
}

#[device]
fn recurse(n: u64) -> u64 {
    let a = [n; 64];
    if n == 0 {
        0
    } else {
        core::hint::black_box(a)[3] + recurse(n - 1)
    }
}

/// Overflows its stack after a barrier, inside a poll.
#[kernel]
fn overflow_after_barrier(depth: u64, out: &mut [u64]) {
    let tid = thread_idx().x as usize;
    sync_threads();
    out[tid] = if tid == 2 { recurse(depth) } else { 1 };
    sync_threads();
}

#[test]
fn stack_overflow_in_a_state_machine_kernel_is_reported_and_the_next_launch_works() {
    let err = on_new_thread(60, || {
        let mut out = DeviceBuffer::<u64>::zeroed(8).unwrap();
        with_config(Config::default(), || launch!(overflow_after_barrier<<<1, 8>>>(10_000_000, &mut out))).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Stack overflow in overflow_after_barrier");
    assert_has(&text, "by thread (2,0,0) in block (0,0,0)");
    assert!(matches!(err.report().unwrap().findings()[0], Finding::StackOverflow { .. }));
    let mut out = DeviceBuffer::<u64>::zeroed(8).unwrap();
    launch!(overflow_after_barrier<<<1, 8>>>(3, &mut out)).expect("a shallow recursion works afterwards");
    assert_eq!(out.to_vec().unwrap(), vec![1, 1, 6, 1, 1, 1, 1, 1]);
}

/// Host-only kernels (a `Drop` type and a host static): kept out of the PTX build, which only
/// takes top-level items.
mod host_only {
    use std::sync::atomic::{AtomicU32, Ordering};

    use deviceemu::prelude::*;

    pub(crate) static DROPS: AtomicU32 = AtomicU32::new(0);

    pub(crate) struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[device]
    fn helper_sync() {
        sync_threads();
    }

    /// Every thread holds a guard across barriers; thread 3 panics after the first, while
    /// threads 0 to 2 wait at the second (parked in a helper) and 4 to 31 are still to be
    /// released from the first (futures).
    #[kernel]
    pub(crate) fn guarded(fail: bool, out: &mut [u32]) {
        let tid = thread_idx().x as usize;
        let _g = Guard;
        sync_threads();
        if fail && tid == 3 {
            panic!("thread 3 gives up");
        }
        helper_sync();
        out[tid] = 1;
    }
}

#[test]
fn an_aborted_block_drops_what_its_threads_hold() {
    use std::sync::atomic::Ordering;
    // One test touches DROPS, so no other test races on it.
    let drops = || host_only::DROPS.load(Ordering::Relaxed);
    let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let before = drops();
    launch!(host_only::guarded<<<1, 32>>>(false, &mut out)).unwrap();
    assert_eq!(drops() - before, 32, "every thread's guard dropped at its end");
    let before = drops();
    let err = launch!(host_only::guarded<<<1, 32>>>(true, &mut out)).unwrap_err();
    assert_eq!(err.code(), 719);
    assert_has(&err.to_string(), "Kernel panic: thread 3 gives up");
    assert_eq!(drops() - before, 32, "the panicking thread unwound and the waiting ones were dropped");
}

/// No barrier in the body (the plain form): threads 0 to 13 exit first, at the end of the
/// body, before anyone waits; then 14 to 63 wait in the helper. The early exits leave their
/// slots untouched on the fast path, and the verdict must still see that they skipped the
/// barrier.
#[kernel]
fn skip_before_helper_barrier(cut: u32, out: &mut [u32]) {
    let tid = thread_idx().x;
    if tid >= cut {
        helper_sync();
    }
    out[tid as usize] = 1;
}

#[test]
fn exits_before_the_first_barrier_are_seen_by_the_verdict() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err =
        launch!(skip_before_helper_barrier<<<1, 64>>>(14, &mut out)).expect_err("the skipped barrier is reported");
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, "threads (0,0,0) to (13,0,0) skipped it");
    // No false alarm when every thread waits, and the next launch of the same worker is clean.
    launch!(skip_before_helper_barrier<<<1, 64>>>(0, &mut out)).unwrap_or_else(|e| panic!("false alarm:\n{e}"));
    assert_eq!(out.to_vec().unwrap(), vec![1; 64]);
}

/// Awaited barrier, barrier in a helper, then two awaited barriers, each followed by a
/// rotation that reads what other threads wrote before it: a thread let past a barrier early
/// reads a stale value.
#[kernel]
fn rotate_after_helper(out: &mut [u32]) {
    let a = shared_array![u32; 64];
    let b = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    a[tid] = tid as u32;
    sync_threads(); // awaited: every runner polls threads from this release's list
    b[(tid + 1) % 64] = a[tid];
    helper_sync(); // blocking: each runner parks inside its release loop
    a[(tid + 1) % 64] = b[tid];
    sync_threads(); // awaited, reached by runners resumed in a later release
    b[(tid + 1) % 64] = a[tid];
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = b[tid];
}

#[test]
fn runners_resumed_in_a_later_release_poll_that_release_s_threads() {
    let blocks = 4usize;
    let want: Vec<u32> = (0..blocks * 64).map(|i| ((i % 64 + 64 - 3) % 64) as u32).collect();
    // Forty thread orders (the bug this guards against needed a particular one), with the
    // default checkers and fibers (the state machines under test).
    let seeds: Vec<Option<u64>> = (0..40u64).map(Some).collect();
    let model = Model::new().seeds(&seeds).blocks(&[BlockOrder::Parallel]).warp_sizes(&[32]).fibers_only();
    model.checks(&[Checks::default()]).check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(blocks * 64).unwrap();
        launch!(rotate_after_helper<<<blocks as u32, 64>>>(&mut out)).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{config:?}");
    });
}
