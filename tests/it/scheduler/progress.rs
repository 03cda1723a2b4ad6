//! Independent thread scheduling and the watchdog (`host/progress.rs`): legal spin-waits
//! finish under every seed, block order and schedule; real hangs end in a 702 report naming
//! where every live thread is, in bounded time; the next launch works.

use std::time::{Duration, Instant};

use crate::common::{assert_has, marked_line, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, ExecPath, Schedule};

const SOURCE: &str = include_str!("progress.rs");

/// Every setting a legal spin-wait must finish under: both block orders, seeds, and both
/// schedules (threads with `threads_ok`, whose launches must stay small).
fn spin_configs(threads_ok: bool) -> Vec<Config> {
    let mut v = vec![Config::default(), Config::default().blocks(BlockOrder::Serial)];
    v.extend([1u64, 7, 0xDEAD_BEEF].map(|s| Config::default().seed(s)));
    v.push(Config::default().seed(3).blocks(BlockOrder::Serial).warp_size(1));
    if threads_ok {
        v.push(Config::default().schedule(Schedule::Threads));
        v.push(Config::default().schedule(Schedule::Threads).seed(5));
    }
    v
}

/// Thread 0 spins on a shared flag that thread `setter` sets with `atomic_exch`, reading it
/// with `atomic_or(0, 0)` (a barrier in the body: a state-machine kernel).
#[kernel]
fn spin_shared(setter: u32, out: &mut [u32]) {
    let mut flag = shared_array![u32; 1];
    let t = thread_idx().x;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if t == 0 {
        while flag.atomic_or(0, 0) == 0 {}
        out[0] = flag.atomic_or(0, 0);
    } else if t == setter {
        flag.atomic_exch(0, 100 + t);
    }
}

/// The same on a global flag, in a kernel without barriers (plain calls on fibers).
#[kernel]
fn spin_global(setter: u32, flag: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        loop {
            let v = flag.atomic_or(0, 0);
            if v != 0 {
                out[0] = v;
                break;
            }
        }
    } else if t == setter {
        flag.atomic_exch(0, 100 + t);
    }
}

/// A spin inside a `#[device]` helper.
#[device]
fn wait_for(flag: GlobalMut<u32>) -> u32 {
    let mut v = 0;
    while v == 0 {
        v = flag.atomic_or(0, 0);
    }
    v
}

#[kernel]
fn spin_in_helper(setter: u32, flag: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        out[0] = wait_for(flag);
    } else if t == setter {
        flag.atomic_exch(0, 100 + t);
    }
}

#[test]
fn a_flag_set_by_another_thread_of_the_warp_or_block_is_seen() {
    for setter in [5u32, 40] {
        for config in spin_configs(true) {
            let label = format!("{config:?}, setter {setter}");
            let got = on_new_thread(60, move || {
                with_config(config, || {
                    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
                    launch!(spin_shared<<<2, 64>>>(setter, &mut out)).unwrap();
                    let a = out.to_vec().unwrap()[0];
                    let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
                    launch!(spin_global<<<1, 64>>>(setter, &mut flag, &mut out)).unwrap();
                    let b = out.to_vec().unwrap()[0];
                    let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
                    launch!(spin_in_helper<<<1, 64>>>(setter, &mut flag, &mut out)).unwrap();
                    (a, b, out.to_vec().unwrap()[0])
                })
            });
            assert_eq!(got, (100 + setter, 100 + setter, 100 + setter), "{label}");
        }
    }
}

/// Decoupled look-back: block `b`'s thread 0 waits until block `b - 1` has published its
/// prefix, then publishes its own (`flags[b] = prefix + 1`, never 0).
#[kernel]
fn chain(flags: &mut [u32], out: &mut [u32]) {
    let b = block_idx().x as usize;
    if thread_idx().x == 0 {
        let prefix = if b == 0 {
            0
        } else {
            let mut v = flags.atomic_or(b - 1, 0);
            while v == 0 {
                v = flags.atomic_or(b - 1, 0);
            }
            v
        };
        out[b] = prefix;
        flags.atomic_exch(b, prefix + 1);
    }
}

#[test]
fn a_block_waiting_on_an_earlier_block_finishes() {
    for config in spin_configs(false) {
        let label = format!("{config:?}");
        let out = on_new_thread(60, move || {
            with_config(config, || {
                let blocks = 500;
                let mut flags = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
                launch!(chain<<<blocks as u32, 64>>>(&mut flags, &mut out)).unwrap();
                out.to_vec().unwrap()
            })
        });
        assert!(out.iter().enumerate().all(|(b, &v)| v == b as u32), "{label}: {out:?}");
    }
    // Under the thread schedule, with a small grid.
    let out = on_new_thread(60, || {
        with_config(Config::default().schedule(Schedule::Threads), || {
            let mut flags = DeviceBuffer::<u32>::zeroed(6).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(6).unwrap();
            launch!(chain<<<6, 8>>>(&mut flags, &mut out)).unwrap();
            out.to_vec().unwrap()
        })
    });
    assert_eq!(out, vec![0, 1, 2, 3, 4, 5]);
}

/// `loop {}` in one thread of one block.
#[kernel]
fn forever(out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 3 && block_idx().x == 1 {
        loop {} // forever-loop
    }
    out[(block_idx().x * block_dim().x + t) as usize] = 1;
}

/// Thread 0 spins on a flag nothing sets while the others wait at the barrier after it.
#[kernel]
fn unreleased(flag: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        while flag.atomic_or(0, 0) == 0 {} // unreleased-spin
    }
    sync_threads(); // unreleased-barrier
    out[t] = 1;
}

/// Block 0 waits on a flag that block 1 sets: with blocks in order, nothing sets it.
#[kernel]
fn waits_for_later(flags: &mut [u32]) {
    if thread_idx().x == 0 {
        if block_idx().x == 0 {
            while flags.atomic_or(0, 0) == 0 {} // later-spin
        } else {
            flags.atomic_exch(0, 1);
        }
    }
}

fn watchdog(config: Config) -> Config {
    config.timeout(Duration::from_millis(500))
}

#[track_caller]
fn assert_timeout(e: &deviceemu::Error, started: Instant) {
    assert_eq!(e.code(), 702, "{e}");
    assert!(started.elapsed() < Duration::from_secs(20), "the watchdog took {:?}", started.elapsed());
    assert_has(&e.to_string(), "Launch timeout: no progress for 0.5 s");
}

#[test]
fn the_watchdog_stops_a_loop_forever_and_the_next_launch_works() {
    let line = marked_line(SOURCE, "// forever-loop");
    for schedule in [Schedule::Fibers, Schedule::Threads] {
        let report = on_new_thread(60, move || {
            with_config(watchdog(Config::default().schedule(schedule)), || {
                let mut out = DeviceBuffer::<u32>::zeroed(4 * 32).unwrap();
                let started = Instant::now();
                let e = launch!(forever<<<4, 32>>>(&mut out)).unwrap_err();
                assert_timeout(&e, started);
                // The other blocks ran to completion; the next launch works.
                let v = out.to_vec().unwrap();
                assert!(v[..32].iter().chain(&v[64..]).all(|&x| x == 1), "{v:?}");
                let mut flags = DeviceBuffer::<u32>::zeroed(3).unwrap();
                let mut o = DeviceBuffer::<u32>::zeroed(3).unwrap();
                launch!(chain<<<3, 32>>>(&mut flags, &mut o)).unwrap();
                assert_eq!(o.to_vec().unwrap(), vec![0, 1, 2]);
                e.to_string()
            })
        });
        assert_has(&report, "by thread (3,0,0) in block (1,0,0)");
        assert_has(&report, &format!("thread (3,0,0) spinning at tests/it/scheduler/progress.rs:{line}"));
    }
}

/// A `for` over a range each thread computes, in region code (before a barrier) and in a
/// helper, that runs for hours: a region progress point at its head lets the watchdog stop it.
#[kernel]
fn long_per_thread_for(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let mut s = 0u64;
    // The loop's line is the one after the marker.
    // region-for
    for j in tid as u64..u64::MAX / 2 {
        s = s.wrapping_mul(31).wrapping_add(j);
    }
    t[tid] = s as u32;
    sync_threads();
    out[tid] = t[31 - tid];
}

/// (A range from a parameter counts as bounded in a helper, as a uniform one does in a
/// kernel: no progress point. This one starts at the thread's index.)
#[device]
fn long_sum() -> u64 {
    let mut s = 0u64;
    // helper-for
    for j in thread_idx().x as u64..u64::MAX / 2 {
        s = s.wrapping_mul(31).wrapping_add(j);
    }
    s
}

#[kernel]
fn long_helper_for(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    t[tid] = long_sum() as u32;
    sync_threads();
    out[tid] = t[31 - tid];
}

#[test]
fn the_watchdog_stops_a_per_thread_for_in_region_code() {
    for (marker, helper) in [("// region-for", false), ("// helper-for", true)] {
        let line = marked_line(SOURCE, marker) + 1;
        let (report, path) = on_new_thread(60, move || {
            // The default path, whatever EMU_PATH says (the verify stage's would run both).
            with_config(watchdog(Config::default().path(ExecPath::Auto)), || {
                let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
                let started = Instant::now();
                let e = if helper {
                    launch!(long_helper_for<<<1, 32>>>(&mut out)).unwrap_err()
                } else {
                    launch!(long_per_thread_for<<<1, 32>>>(&mut out)).unwrap_err()
                };
                assert_timeout(&e, started);
                (e.to_string(), deviceemu::__private::last_path())
            })
        });
        assert_eq!(path, "regions", "{marker}");
        assert_has(&report, &format!("tests/it/scheduler/progress.rs:{line}"));
    }
}

#[test]
fn the_watchdog_names_every_live_thread() {
    let spin = marked_line(SOURCE, "// unreleased-spin");
    let barrier = marked_line(SOURCE, "// unreleased-barrier");
    for schedule in [Schedule::Fibers, Schedule::Threads] {
        let report = on_new_thread(60, move || {
            with_config(watchdog(Config::default().schedule(schedule).blocks(BlockOrder::Serial)), || {
                let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let started = Instant::now();
                let e = launch!(unreleased<<<1, 64>>>(&mut flag, &mut out)).unwrap_err();
                assert_timeout(&e, started);
                e.to_string()
            })
        });
        assert_has(&report, &format!("thread (0,0,0) spinning at tests/it/scheduler/progress.rs:{spin}"));
        assert_has(
            &report,
            &format!("threads (1,0,0) to (63,0,0) waiting at the barrier at tests/it/scheduler/progress.rs:{barrier}"),
        );
    }
}

#[test]
fn a_block_waiting_on_a_later_block_in_order_is_stopped() {
    let line = marked_line(SOURCE, "// later-spin");
    let report = on_new_thread(60, move || {
        with_config(watchdog(Config::default().blocks(BlockOrder::Serial)), || {
            let mut flags = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let started = Instant::now();
            let e = launch!(waits_for_later<<<2, 32>>>(&mut flags)).unwrap_err();
            assert_timeout(&e, started);
            e.to_string()
        })
    });
    assert_has(&report, &format!("thread (0,0,0) spinning at tests/it/scheduler/progress.rs:{line}"));
    // In parallel, the later block runs beside it and sets the flag.
    on_new_thread(60, || {
        with_config(watchdog(Config::default()), || {
            let mut flags = DeviceBuffer::<u32>::zeroed(1).unwrap();
            // With one worker only the watchdog could end it; the pool has at least two here
            // unless the machine has one core.
            if rayon::current_num_threads() > 1 {
                launch!(waits_for_later<<<2, 32>>>(&mut flags)).unwrap();
            }
        })
    });
}

#[test]
fn with_the_watchdog_off_spins_still_yield() {
    with_config(Config::default().timeout(Duration::ZERO), || {
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        launch!(spin_shared<<<1, 64>>>(40, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap()[0], 140);
    });
}

// ---------------------------------------------------------------------------------------------
// Hangs that used to look like progress (issue 25): each ends in 702 with a report that names
// the threads and lines, and the next launch works.
// ---------------------------------------------------------------------------------------------

/// Every thread passes a barrier forever, waiting for a flag nothing sets.
#[kernel]
fn barrier_spin(f: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    while f.volatile_load(0) == 0 {
        sync_threads(); // barrier-spin
    }
    out[t] = 1;
}

/// The same with `sync_warp`.
#[kernel]
fn warp_spin(f: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    while f.volatile_load(0) == 0 {
        sync_warp(FULL_MASK); // warp-spin
    }
    out[t] = 1;
}

/// The same with the barrier in a `#[device]` helper (a blocking barrier on a fiber).
#[device]
fn sync_in_helper() {
    sync_threads();
}

#[kernel]
fn helper_barrier_spin(f: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    while f.volatile_load(0) == 0 {
        sync_in_helper(); // helper-sync (helpers report their caller's line)
    }
    out[t] = 1;
}

/// Block 1 spins on a flag nothing sets while block 0 waits at the grid sync.
#[kernel]
fn grid_spin(f: &[u32], out: &mut [u32]) {
    let b = block_idx().x;
    if b == 1 {
        while f.volatile_load(0) == 0 {} // grid-spin
    }
    this_grid().sync(); // grid-sync
    out[(b * block_dim().x + thread_idx().x) as usize] = 1;
}

/// A spin-wait written as an open-ended `for`: thread 0 spins, thread 32 (another warp) sets
/// the flag. Legal, and it finishes on a GPU (tools/probes/RESULTS.md, probe 16).
#[kernel]
fn for_spin(f: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        let mut n = 0u64;
        for _ in 0u64.. {
            n += 1;
            if f.atomic_load(0, core::sync::atomic::Ordering::Acquire) == 1 {
                break;
            }
        }
        out[0] = (n > 0) as u32;
    } else if t == 32 {
        f.atomic_store(0, 1, core::sync::atomic::Ordering::Release);
    }
}

/// The same spin as a `for` over an iterator that never ends, with nothing setting the flag.
#[kernel]
fn for_forever(f: &[u32], out: &mut [u32]) {
    if thread_idx().x == 0 {
        for i in (0u32..).step_by(1) {
            if f.atomic_load(0, core::sync::atomic::Ordering::Acquire) == 1 {
                out[0] = i;
                break;
            }
        } // for-forever
    }
}

fn watchdog_2(config: Config) -> Config {
    config.timeout(Duration::from_millis(300))
}

#[track_caller]
fn assert_stopped(e: &deviceemu::Error, started: Instant) {
    assert_eq!(e.code(), 702, "{e}");
    assert!(started.elapsed() < Duration::from_secs(20), "the watchdog took {:?}", started.elapsed());
    assert_has(&e.to_string(), "Launch timeout");
}

/// A launch that must work after a stopped one.
#[track_caller]
fn next_launch_works() {
    let mut flags = DeviceBuffer::<u32>::zeroed(3).unwrap();
    let mut o = DeviceBuffer::<u32>::zeroed(3).unwrap();
    launch!(chain<<<3, 32>>>(&mut flags, &mut o)).unwrap();
    assert_eq!(o.to_vec().unwrap(), vec![0, 1, 2]);
}

#[test]
fn a_loop_that_only_passes_barriers_is_stopped() {
    let line = marked_line(SOURCE, "// barrier-spin");
    let warp = marked_line(SOURCE, "// warp-spin");
    let helper = marked_line(SOURCE, "// helper-sync (helpers report their caller's line)");
    for config in [
        Config::default(),
        Config::default().seed(3).blocks(BlockOrder::Serial),
        Config::default().schedule(Schedule::Threads),
    ] {
        let (a, b, c) = on_new_thread(60, move || {
            with_config(watchdog_2(config), || {
                let f = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let started = Instant::now();
                let a = launch!(barrier_spin<<<2, 64>>>(&f, &mut out)).unwrap_err();
                assert_stopped(&a, started);
                next_launch_works();
                let started = Instant::now();
                let b = launch!(warp_spin<<<2, 64>>>(&f, &mut out)).unwrap_err();
                assert_stopped(&b, started);
                next_launch_works();
                let started = Instant::now();
                let c = launch!(helper_barrier_spin<<<2, 64>>>(&f, &mut out)).unwrap_err();
                assert_stopped(&c, started);
                next_launch_works();
                (a.to_string(), b.to_string(), c.to_string())
            })
        });
        assert_has(&a, &format!("waiting at the barrier at tests/it/scheduler/progress.rs:{line}"));
        assert_has(&b, &format!("tests/it/scheduler/progress.rs:{warp}"));
        assert_has(&c, &format!("waiting at the barrier at tests/it/scheduler/progress.rs:{helper}"));
    }
}

#[test]
fn a_grid_sync_that_a_spinning_block_never_reaches_is_stopped() {
    let spin = marked_line(SOURCE, "// grid-spin");
    let sync = marked_line(SOURCE, "// grid-sync");
    let report = on_new_thread(60, move || {
        with_config(watchdog_2(Config::default()), || {
            let f = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
            let started = Instant::now();
            let e = launch_cooperative!(grid_spin<<<2, 64>>>(&f, &mut out)).unwrap_err();
            assert_stopped(&e, started);
            next_launch_works();
            e.to_string()
        })
    });
    assert_has(&report, &format!("spinning at tests/it/scheduler/progress.rs:{spin}"));
    assert_has(
        &report,
        &format!("threads (0,0,0) to (63,0,0) waiting at the grid sync at tests/it/scheduler/progress.rs:{sync}"),
    );
    assert_has(&report, "the grid sync can never complete");
}

#[test]
fn an_open_ended_for_loop_spin_wait_finishes() {
    for config in spin_configs(true) {
        let label = format!("{config:?}");
        let got = on_new_thread(60, move || {
            with_config(watchdog_2(config), || {
                let mut f = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
                launch!(for_spin<<<1, 64>>>(&mut f, &mut out)).unwrap();
                out.to_vec().unwrap()[0]
            })
        });
        assert_eq!(got, 1, "{label}");
    }
    let line = marked_line(SOURCE, "// for-forever");
    let report = on_new_thread(60, move || {
        with_config(watchdog_2(Config::default()), || {
            let f = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let started = Instant::now();
            let e = launch!(for_forever<<<1, 32>>>(&f, &mut out)).unwrap_err();
            assert_stopped(&e, started);
            next_launch_works();
            e.to_string()
        })
    });
    assert_has(&report, &format!("spinning at tests/it/scheduler/progress.rs:{}", line - 5));
}

/// An iterative stencil of `steps` steps in shared memory: every step reads its neighbours,
/// passes a barrier, writes its cell, passes another. Nothing exits and no block ends until
/// the last step; the values change at every step (so does the shared memory), and the grid
/// is written to global memory only at the end.
#[kernel]
fn shared_stencil(steps: u32, out: &mut [u32]) {
    let mut cur = shared_array![u32; 1024];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    cur[t] = t as u32;
    sync_threads();
    for step in 0..steps {
        let left = cur[(t + n - 1) % n];
        let right = cur[(t + 1) % n];
        sync_threads();
        cur[t] = left.wrapping_add(right).wrapping_add(step);
        sync_threads();
    }
    out[t] = cur[t];
}

/// The same in global memory, ping-ponging between two buffers.
#[kernel]
fn global_stencil(steps: u32, a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    for step in 0..steps {
        if step % 2 == 0 {
            b[t] = a[(t + n - 1) % n].wrapping_add(a[(t + 1) % n]).wrapping_add(step);
        } else {
            a[t] = b[(t + n - 1) % n].wrapping_add(b[(t + 1) % n]).wrapping_add(step);
        }
        sync_threads();
    }
}

fn stencil_reference(n: usize, steps: u32, init: impl Fn(usize) -> u32) -> Vec<u32> {
    let mut cur: Vec<u32> = (0..n).map(init).collect();
    for step in 0..steps {
        cur = (0..n).map(|t| cur[(t + n - 1) % n].wrapping_add(cur[(t + 1) % n]).wrapping_add(step)).collect();
    }
    cur
}

#[test]
fn long_barrier_loops_that_write_are_not_stopped() {
    let n = 256usize;
    for (config, fast) in [(Config::default(), true), (Config::default().path(deviceemu::ExecPath::General), false)] {
        // Enough steps for both launches to run over 200 ms. Optimised builds run 10,000 steps
        // in about 16 ms on the fast path and 55 ms on the general path, so they take 40 and
        // 10 times more.
        let steps = match (cfg!(debug_assertions), fast) {
            (true, _) => 10_000u32,
            (false, true) => 400_000,
            (false, false) => 100_000,
        };
        let want = stencil_reference(n, steps, |t| t as u32);
        let label = format!("{config:?}");
        on_new_thread(300, move || {
            // A limit far below the launch's run time: each window sees writes.
            with_config(config.timeout(Duration::from_millis(40)), || {
                let started = Instant::now();
                let mut out = DeviceBuffer::<u32>::zeroed(n).unwrap();
                launch!(shared_stencil<<<1, n as u32>>>(steps, &mut out)).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(out.to_vec().unwrap(), want, "{label}");
                let mut a = DeviceBuffer::from_slice(&(0..n as u32).collect::<Vec<_>>()).unwrap();
                let mut b = DeviceBuffer::<u32>::zeroed(n).unwrap();
                launch!(global_stencil<<<1, n as u32>>>(steps, &mut a, &mut b))
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(a.to_vec().unwrap(), want, "{label}");
                // Both ran many times the limit: the watchdog looked, and let them be.
                assert!(started.elapsed() > Duration::from_millis(200), "{label}: {:?}", started.elapsed());
            })
        });
    }
}

/// Spins on a flag nothing sets while counting its attempts: it writes at every step, so only
/// the wall-clock bound stops it.
#[kernel]
fn busy_spin(f: &[u32], attempts: &mut [u32]) {
    while f.volatile_load(0) == 0 {
        if thread_idx().x == 0 {
            attempts.atomic_add(0, 1);
        }
        sync_threads(); // busy-spin
    }
}

#[test]
fn the_wall_clock_bound_stops_a_launch_that_looks_busy() {
    let line = marked_line(SOURCE, "// busy-spin");
    let report = on_new_thread(60, move || {
        with_config(
            Config::default().timeout(Duration::from_millis(200)).launch_timeout(Duration::from_secs(1)),
            || {
                let f = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut attempts = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let started = Instant::now();
                let e = launch!(busy_spin<<<2, 64>>>(&f, &mut attempts)).unwrap_err();
                assert_eq!(e.code(), 702, "{e}");
                assert!(
                    started.elapsed() >= Duration::from_secs(1) && started.elapsed() < Duration::from_secs(20),
                    "{:?}",
                    started.elapsed()
                );
                next_launch_works();
                e.to_string()
            },
        )
    });
    assert_has(&report, "Launch timeout: the launch ran for 1 s (EMU_LAUNCH_TIMEOUT)");
    assert_has(&report, &format!("waiting at the barrier at tests/it/scheduler/progress.rs:{line}"));
}

/// Thread 3 of block 1 sleeps for an hour; the others wait at the barrier after it (host code:
/// no PTX).
#[kernel(host_only)]
fn sleeper(out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 3 && block_idx().x == 1 {
        std::thread::sleep(Duration::from_secs(3600)); // sleeper
    }
    sync_threads(); // sleeper-barrier
    out[(block_idx().x * block_dim().x + t) as usize] = 1;
}

/// The same in a kernel without barriers.
#[kernel(host_only)]
fn plain_sleeper(out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 3 && block_idx().x == 1 {
        std::thread::sleep(Duration::from_secs(3600));
    }
    out[(block_idx().x * block_dim().x + t) as usize] = 1;
}

#[test]
fn a_thread_asleep_in_a_system_call_is_stopped() {
    let barrier = marked_line(SOURCE, "// sleeper-barrier");
    for config in [
        Config::default(),
        Config::default().blocks(BlockOrder::Serial).seed(9),
        Config::default().schedule(Schedule::Threads),
    ] {
        let seeded = config.get_seed().is_some();
        let (a, b) = on_new_thread(60, move || {
            with_config(config.timeout(Duration::from_millis(500)), || {
                let mut out = DeviceBuffer::<u32>::zeroed(4 * 32).unwrap();
                let started = Instant::now();
                let a = launch!(sleeper<<<4, 32>>>(&mut out)).unwrap_err();
                assert_stopped(&a, started);
                next_launch_works();
                let started = Instant::now();
                let b = launch!(plain_sleeper<<<4, 32>>>(&mut out)).unwrap_err();
                assert_stopped(&b, started);
                next_launch_works();
                (a.to_string(), b.to_string())
            })
        });
        assert_has(&a, "by thread (3,0,0) in block (1,0,0)");
        assert_has(&a, "thread (3,0,0) blocked in a system call");
        if !seeded {
            // In index order, threads 0 to 2 ran first and wait at the barrier.
            assert_has(
                &a,
                &format!(
                    "threads (0,0,0) to (2,0,0) waiting at the barrier at tests/it/scheduler/progress.rs:{barrier}"
                ),
            );
        }
        assert_has(&b, "by thread (3,0,0) in block (1,0,0)");
        // No barrier behind it: the report names the kernel.
        assert_has(&b, "thread (3,0,0) blocked in a system call since it started or was last resumed, at tests/it/scheduler/progress.rs:");
    }
}

/// A block-uniform loop of barriers that never ends: the region form runs it (no load in its
/// condition), and its barriers are where the watchdog looks.
#[kernel]
fn uniform_barrier_loop(n: u32, out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mut k = n;
    while k > 0 {
        sync_threads(); // uniform-loop
        k = k.max(1);
    }
    out[t] = 1;
}

#[test]
fn a_uniform_loop_of_barriers_is_stopped_on_every_path() {
    let line = marked_line(SOURCE, "// uniform-loop");
    for config in [Config::default(), Config::default().path(deviceemu::ExecPath::General)] {
        let report = on_new_thread(60, move || {
            with_config(watchdog_2(config), || {
                let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
                let started = Instant::now();
                let e = launch!(uniform_barrier_loop<<<2, 64>>>(1, &mut out)).unwrap_err();
                assert_stopped(&e, started);
                next_launch_works();
                e.to_string()
            })
        });
        assert_has(&report, &format!("tests/it/scheduler/progress.rs:{line}"));
    }
}
