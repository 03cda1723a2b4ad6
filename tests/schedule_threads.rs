//! `EMU_SCHEDULE=threads`: every GPU thread on an OS thread of its own. Results, reports and
//! hang-freedom must be those of the fiber schedule; only what a debugger sees changes
//! (`tests/debugger.rs` checks `info threads`).

mod common;

use common::{assert_has, on_new_thread};
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
