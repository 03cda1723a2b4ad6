//! `EMU_SCHEDULE=threads`: every GPU thread on an OS thread of its own. Results, reports and
//! hang-freedom must be those of the fiber schedule; only what a debugger sees changes
//! (`tests/debugger.rs` checks `info threads`).

use crate::common::{assert_has, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::testing::Model;
use deviceemu::{with_config, Config, Schedule};

fn threads(config: Config) -> Config {
    config.schedule(Schedule::Threads)
}

/// A block reduction with barriers in the body (awaited on fibers, blocking here) and a warp
/// shuffle stage, plus a barrier in a helper.
#[kernel]
fn mixed(x: &[u32], out: &mut [u32]) {
    let tile = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = x[block_idx().x as usize * 64 + tid];
    sync_threads();
    let mut s = 32;
    while s >= 32 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        helper_barrier();
        s /= 2;
    }
    if tid < 32 {
        let mut v = tile[tid];
        let mut o = 16;
        while o > 0 {
            v += shfl_down_sync(FULL_MASK, v, o);
            o /= 2;
        }
        let lanes = ballot_sync(FULL_MASK, true).count_ones();
        if tid == 0 {
            out[block_idx().x as usize] = v + lanes - 32;
        }
    }
}

#[device]
fn helper_barrier() {
    sync_threads();
}

#[test]
fn results_match_the_fiber_schedule() {
    let x: Vec<u32> = (0..256).map(|i| i * 7 % 13).collect();
    let want: Vec<u32> = x.chunks(64).map(|c| c.iter().sum()).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    // Threads alone get the whole matrix: both block orders, index order and two seeds, every
    // checker; warps of 32 (the kernel's ballot counts 32 lanes).
    Model::new().schedules(&[Schedule::Threads]).warp_size_32_only().check_with(|config| {
        assert_eq!(config.get_schedule(), Schedule::Threads);
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        launch!(mixed<<<4, 64>>>(&xb, &mut out)).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{config:?}");
    });
}

/// Half the block skips a barrier the other half waits at, then a panic in another launch.
#[kernel]
fn divergent(out: &mut [u32]) {
    let tid = thread_idx().x;
    if tid < 16 {
        sync_threads();
    } else {
        sync_threads_count(true);
    }
    out[tid as usize] = tid;
}

#[kernel]
fn panics(out: &mut [u32]) {
    let t = thread_idx().x;
    sync_threads();
    if t == 9 {
        panic!("thread 9 on its own OS thread");
    }
    out[t as usize] = t;
}

#[test]
fn reports_are_the_same_and_nothing_hangs() {
    let (a, b) = on_new_thread(30, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        let a = with_config(threads(Config::default()), || launch!(divergent<<<2, 32>>>(&mut out))).unwrap_err();
        let b = with_config(threads(Config::default()), || launch!(panics<<<2, 32>>>(&mut out))).unwrap_err();
        // And the next launch works.
        with_config(threads(Config::default()), || launch!(divergent<<<1, 16>>>(&mut out))).unwrap();
        (a.to_string(), b.to_string())
    });
    assert_has(&a, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&a, "ERROR SUMMARY: 2 errors");
    assert_has(&b, "Kernel panic: thread 9 on its own OS thread");
    assert_has(&b, "by thread (9,0,0) in block (0,0,0)");
}

/// What each GPU thread saw of its OS thread: (block, thread, OS thread id, OS thread name).
static SEEN: std::sync::Mutex<Vec<(u32, u32, u64, String)>> = std::sync::Mutex::new(Vec::new());

/// Notes the calling OS thread's id and name for GPU thread `t` of block `b` (Linux).
fn note_os_thread(b: u32, t: u32) {
    let tid =
        std::fs::read_link("/proc/thread-self").ok().and_then(|p| p.file_name()?.to_str()?.parse().ok()).unwrap_or(0);
    let name = std::fs::read_to_string("/proc/thread-self/comm").unwrap_or_default().trim().to_owned();
    SEEN.lock().unwrap().push((b, t, tid, name));
}

#[kernel(host_only)]
fn names_with_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    let b = block_idx().x;
    note_os_thread(b, t);
    sync_threads();
    note_os_thread(b, t);
    out[(b * 64 + t) as usize] = t;
}

#[kernel(host_only)]
fn names_without_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    let b = block_idx().x;
    note_os_thread(b, t);
    out[(b * 64 + t) as usize] = t;
}

/// Every live GPU thread is on an OS thread of its own, named `b<block>t<thread>` while it
/// runs, and keeps it across a barrier; GPU threads that run to their end one after another
/// share one (a launch starts as many OS threads as GPU threads wait at once, not one per GPU
/// thread).
#[cfg(target_os = "linux")]
#[test]
fn gpu_threads_that_wait_have_os_threads_of_their_own_and_the_others_share() {
    let seen = on_new_thread(60, || {
        let mut out = DeviceBuffer::<u32>::zeroed(512).unwrap();
        let config = threads(Config::default()).blocks(deviceemu::BlockOrder::Serial);
        SEEN.lock().unwrap().clear();
        with_config(config.clone(), || launch!(names_with_barrier<<<2, 64>>>(&mut out))).unwrap();
        let with = std::mem::take(&mut *SEEN.lock().unwrap());
        with_config(config, || launch!(names_without_barrier<<<8, 64>>>(&mut out))).unwrap();
        let without = std::mem::take(&mut *SEEN.lock().unwrap());
        (with, without)
    });
    let (with, without) = seen;
    assert_eq!(with.len(), 2 * 2 * 64);
    for (b, t, _, name) in with.iter().chain(&without) {
        assert_eq!(name, &format!("b{b}t{t}"), "GPU thread {t} of block {b} ran on an OS thread named {name}");
    }
    for b in 0..2 {
        let tids =
            |k: usize| -> Vec<u64> { with.iter().filter(|s| s.0 == b).skip(k * 64).take(64).map(|s| s.2).collect() };
        let before = tids(0);
        let distinct: std::collections::BTreeSet<_> = before.iter().collect();
        assert_eq!(distinct.len(), 64, "the 64 waiting threads of block {b} shared OS threads");
        // After the barrier, each thread is on the OS thread it waited on.
        let mut after: Vec<(u32, u64)> = with.iter().filter(|s| s.0 == b).skip(64).map(|s| (s.1, s.2)).collect();
        after.sort();
        let mut first: Vec<(u32, u64)> = with.iter().filter(|s| s.0 == b).take(64).map(|s| (s.1, s.2)).collect();
        first.sort();
        assert_eq!(after, first, "a GPU thread of block {b} changed OS threads at the barrier");
    }
    let shared: std::collections::BTreeSet<_> = without.iter().map(|s| s.2).collect();
    assert!(shared.len() <= 2, "512 GPU threads without a barrier ran on {} OS threads", shared.len());
}
