//! Stopping a GPU thread never aborts the process (issue 25, item 1): a faulting thread, a
//! panicking one and the waiting threads of a failed block are stopped by unwinding, and a
//! `Drop` that reaches a barrier, a warp collective, a grid or cluster sync, a progress point
//! or a device-side launch while its thread is being stopped gets an answer at once instead of
//! unwinding a second time (`host/sched/block.rs`, "Stopping a thread"). Each launch here
//! returns its error with its report, and the next launch works. The kernels with guards are
//! `host_only`: their guard types are host code.

use crate::common::{assert_has, marked_line, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, Schedule};

const SOURCE: &str = include_str!("stopping.rs");

/// Every schedule a stopping thread can be on: fibers with futures or blocking barriers,
/// seeded orders, serial blocks, one OS thread per GPU thread.
fn configs() -> Vec<Config> {
    vec![
        Config::default(),
        Config::default().blocks(BlockOrder::Serial).seed(7),
        Config::default().schedule(Schedule::Threads),
        Config::default().path(deviceemu::ExecPath::General),
    ]
}

/// Calls `sync_threads()` when dropped.
struct SyncOnDrop;
impl Drop for SyncOnDrop {
    fn drop(&mut self) {
        sync_threads();
    }
}

/// Calls every kind of wait when dropped: a barrier and its count form, a `sync_warp`, a vote,
/// a shuffle, a loop with a progress point.
struct EverythingOnDrop(u32);
impl Drop for EverythingOnDrop {
    fn drop(&mut self) {
        sync_threads();
        let n = sync_threads_count(true);
        sync_warp(FULL_MASK);
        let any = any_sync(FULL_MASK, self.0 == 3);
        let v = shfl_sync(FULL_MASK, self.0, 0);
        let mut spins = 0u32;
        while spins < 1000 {
            spins += 1;
        }
        core::hint::black_box((n, any, v, spins));
    }
}

/// The kernel: an ordinary out-of-bounds write by thread 5 while every thread holds a
/// guard that syncs when dropped.
#[kernel(host_only)]
fn guarded(y: &mut [u32]) {
    let t = thread_idx().x as usize;
    let _g = SyncOnDrop;
    if t == 5 {
        y[1000] = 1; // @guarded-oob
    }
    sync_threads();
    y[t] = 1;
}

/// The same with a kernel panic.
#[kernel(host_only)]
fn guarded_panic(y: &mut [u32]) {
    let t = thread_idx().x as usize;
    let _g = SyncOnDrop;
    if t == 5 {
        panic!("thread five gives up"); // @guarded-panic
    }
    sync_threads();
    y[t] = 1;
}

/// A fault and a barrier in a `#[device]` helper (a blocking barrier: the waiting threads are
/// parked on fibers), under a guard that calls every kind of wait.
#[device]
fn fault_then_sync(y: GlobalMut<u32>, t: u32) {
    if t == 40 {
        y.atomic_add(1000, 1);
    }
    sync_threads();
    y.atomic_add(t as usize, 1);
}

#[kernel(host_only)]
fn guarded_in_helper(y: &mut [u32]) {
    let t = thread_idx().x;
    let _g = EverythingOnDrop(t);
    fault_then_sync(y, t); // @helper-oob (helpers report their caller's line)
}

/// The failed block's waiting threads are unwound (fibers) or dropped (futures) while their
/// guards are alive: thread 0 faults after the others wait at the barrier.
#[kernel(host_only)]
fn late_fault(y: &mut [u32]) {
    let t = thread_idx().x as usize;
    let _g = EverythingOnDrop(t as u32);
    if t == 0 {
        let mut spins = 0u32;
        while spins < 10_000 {
            spins += 1;
        }
        core::hint::black_box(spins);
        let i = 1000 + t;
        let v = y[i]; // @late-oob
        core::hint::black_box(v);
    }
    sync_threads();
    y[t] = 1;
}

#[track_caller]
fn next_launch_works() {
    let mut z = DeviceBuffer::<u32>::zeroed(64).unwrap();
    launch!(plain<<<1, 64>>>(&mut z)).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![7; 64]);
}

#[kernel]
fn plain(y: &mut [u32]) {
    y[thread_idx().x as usize] = 7;
}

#[test]
fn a_fault_with_a_guard_that_syncs_is_error_700_not_an_abort() {
    let line = marked_line(SOURCE, "// @guarded-oob");
    for config in configs() {
        let label = format!("{config:?}");
        let report = on_new_thread(60, move || {
            with_config(config, || {
                let mut y = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let e = launch!(guarded<<<2, 64>>>(&mut y)).unwrap_err();
                assert_eq!(e.code(), 700, "{e}");
                next_launch_works();
                e.to_string()
            })
        });
        assert_has(&report, &format!("tests/it/scheduler/stopping.rs:{line}"));
        assert_has(&report, "thread (5,0,0)");
        let _ = label;
    }
}

#[test]
fn a_panic_with_a_guard_that_syncs_is_error_719_not_an_abort() {
    let line = marked_line(SOURCE, "// @guarded-panic");
    for config in configs() {
        let report = on_new_thread(60, move || {
            with_config(config, || {
                let mut y = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let e = launch!(guarded_panic<<<2, 64>>>(&mut y)).unwrap_err();
                assert_eq!(e.code(), 719, "{e}");
                next_launch_works();
                e.to_string()
            })
        });
        assert_has(&report, "thread five gives up");
        assert_has(&report, &format!("tests/it/scheduler/stopping.rs:{line}"));
    }
}

#[test]
fn every_wait_in_a_stopping_threads_drop_returns_at_once() {
    let helper = marked_line(SOURCE, "// @helper-oob (helpers report their caller's line)");
    let late = marked_line(SOURCE, "// @late-oob");
    for config in configs() {
        let (a, b) = on_new_thread(60, move || {
            with_config(config, || {
                let mut y = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let a = launch!(guarded_in_helper<<<2, 64>>>(&mut y)).unwrap_err();
                assert_eq!(a.code(), 700, "{a}");
                let b = launch!(late_fault<<<2, 64>>>(&mut y)).unwrap_err();
                assert_eq!(b.code(), 700, "{b}");
                next_launch_works();
                (a.to_string(), b.to_string())
            })
        });
        assert_has(&a, &format!("tests/it/scheduler/stopping.rs:{helper}"));
        assert_has(&b, &format!("tests/it/scheduler/stopping.rs:{late}"));
    }
}

/// A `#[device]` loop that never ends (it has a progress point).
#[device]
fn spin_forever() {
    let mut n = 0u64;
    loop {
        n = n.wrapping_add(1);
        core::hint::black_box(n);
    }
}

/// Fails again in thread 5 (which faults and is being stopped when this runs): a warp
/// collective whose mask leaves out the calling lane (answered at once), or a loop that never
/// ends (the watchdog abandons the thread).
struct FailOnDrop {
    t: usize,
    how: u32,
}
impl Drop for FailOnDrop {
    fn drop(&mut self) {
        if self.t != 5 {
            return;
        }
        if self.how == 0 {
            sync_warp(0);
        } else {
            spin_forever(); // @spin-on-drop
        }
    }
}

#[kernel(host_only)]
fn fails_while_stopping(how: u32, y: &mut [u32]) {
    let t = thread_idx().x as usize;
    let _g = FailOnDrop { t, how };
    if t == 5 {
        y[1000] = 1; // @fails-oob
    }
    sync_threads();
    y[t] = 1;
}

#[test]
fn a_thread_that_fails_again_while_it_is_stopped_is_abandoned() {
    let oob = marked_line(SOURCE, "// @fails-oob");
    for config in configs() {
        let label = format!("{config:?}");
        let (a, b, c) = on_new_thread(60, move || {
            with_config(config.timeout(std::time::Duration::from_millis(300)), || {
                let mut y = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let a = launch!(fails_while_stopping<<<1, 64>>>(0, &mut y)).unwrap_err();
                let b = launch!(fails_while_stopping<<<1, 64>>>(1, &mut y)).unwrap_err();
                next_launch_works();
                // Again, now that its worker abandoned a thread in the middle of an unwind:
                // the scheduler still waits at barriers.
                let c = launch!(fails_while_stopping<<<2, 64>>>(1, &mut y)).unwrap_err();
                next_launch_works();
                (a, b, c)
            })
        });
        for e in [&a, &b, &c] {
            // What the thread did after its fault is not reported: its fault is.
            assert_eq!(e.code(), 700, "{label}: {e}");
            assert_has(&e.to_string(), &format!("tests/it/scheduler/stopping.rs:{oob}"));
        }
    }
}

/// A guard that syncs the grid, in a cooperative launch whose thread 5 of block 1 faults.
struct GridSyncOnDrop;
impl Drop for GridSyncOnDrop {
    fn drop(&mut self) {
        this_grid().sync();
    }
}

#[kernel(host_only)]
fn grid_guarded(y: &mut [u32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let _g = GridSyncOnDrop;
    if t == 69 {
        y[1000] = 1; // @grid-oob
    }
    this_grid().sync();
    y[t] = 1;
}

#[test]
fn a_grid_sync_in_a_stopping_threads_drop_returns_at_once() {
    let line = marked_line(SOURCE, "// @grid-oob");
    for config in configs() {
        let report = on_new_thread(60, move || {
            with_config(config, || {
                let mut y = DeviceBuffer::<u32>::zeroed(128).unwrap();
                let e = launch_cooperative!(grid_guarded<<<2, 64>>>(&mut y)).unwrap_err();
                next_launch_works();
                e.to_string()
            })
        });
        assert_has(&report, &format!("tests/it/scheduler/stopping.rs:{line}"));
    }
}
