//! How a launch on a fast path spreads its blocks over the workers (`launch.rs`, `Spread`): a
//! short launch runs on the calling thread (waking the pool's workers would cost it more than
//! its blocks), a long one on every worker (from its first block when the kernel's last launch
//! was long), and a checked one on every worker whatever its length.

use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config, ExecPath};

/// A barrier kernel on the regions path whose blocks do almost nothing.
#[kernel]
fn light(out: &mut [u32]) {
    let mut t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    t[tid] = tid as u32;
    sync_threads();
    if tid == 0 {
        out[block_idx().x as usize] = t[31];
    }
}

/// The same shape with about 4000 steps of arithmetic per thread before the barrier.
#[kernel]
fn heavy(out: &mut [u32], steps: u32) {
    let mut t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let mut v = tid as u32;
    for k in 0..steps {
        v = v.wrapping_mul(2654435761).wrapping_add(k);
    }
    t[tid] = v;
    sync_threads();
    if tid == 0 {
        out[block_idx().x as usize] = t[31];
    }
}

/// `f` on a pool of two workers (whatever the machine's), as a launch from one of them, on the
/// fast paths (`EMU_PATH=verify` would run each launch a second time on the general path).
fn on_two_workers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| with_config(Config::default().path(ExecPath::Auto), f))
}

#[test]
fn a_short_launch_stays_on_the_calling_thread_and_a_long_one_spreads() {
    on_two_workers(|| {
        // Three blocks of one thread: the first, timed, and two more, far under the cost of
        // waking a worker. A preemption during the timed block can still make one launch look
        // long, so one launch of five that stays on this thread is the claim.
        let mut out = DeviceBuffer::<u32>::zeroed(3).unwrap();
        let mut runners = Vec::new();
        for _ in 0..5 {
            launch!(light<<<3, 1>>>(&mut out)).unwrap();
            assert_eq!(deviceemu::__private::last_path(), "regions");
            runners.push(deviceemu::__private::last_runners());
        }
        assert!(runners.contains(&1), "every short launch used more than one runner: {runners:?}");
        assert_eq!(out.to_vec().unwrap(), vec![0; 3]);

        // 64 blocks of 32 threads that each take at least a few microseconds: never short.
        // The first launch times its first blocks on the calling thread, then runs the rest
        // on the calling thread and a helper (`team.rs`): the timed runner and one per worker.
        // The launches after it know from the first that they are long, and go to both from
        // their first block: one runner per worker.
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let mut runners = Vec::new();
        for _ in 0..3 {
            launch!(heavy<<<64, 32>>>(&mut out, 4000)).unwrap();
            assert_eq!(deviceemu::__private::last_path(), "regions");
            runners.push(deviceemu::__private::last_runners());
        }
        assert_eq!(runners, [3, 2, 2]);
        let want = (0..4000u32).fold(31u32, |v, k| v.wrapping_mul(2654435761).wrapping_add(k));
        assert_eq!(out.to_vec().unwrap(), vec![want; 64]);
    });
}

#[test]
fn a_checked_launch_spreads_however_short() {
    on_two_workers(|| {
        let config = Config::default().path(ExecPath::Auto).checks(Checks { racecheck: true, ..Checks::default() });
        let mut out = DeviceBuffer::<u32>::zeroed(3).unwrap();
        for _ in 0..3 {
            with_config(config.clone(), || launch!(light<<<3, 1>>>(&mut out))).unwrap();
            // Two runners, the calling thread's and a helper's, however short the launch.
            assert_eq!(deviceemu::__private::last_runners(), 2);
        }
    });
}
