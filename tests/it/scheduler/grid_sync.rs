//! Grid groups: `this_grid().sync()` in kernels launched with `launch_cooperative!`
//! (`device/grid.rs`, `host/sched/launch.rs::run_cooperative`): one-launch grid reductions and
//! multi-phase kernels against CPU references under every schedule, CUDA's co-residency rule
//! (720, with the H200's blocks-per-SM figures), and the misuse reports.

use crate::common::{assert_has, marked_line, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, Finding, GridGroup, Schedule};

const SOURCE: &str = include_str!("grid_sync.rs");

fn configs() -> Vec<Config> {
    vec![
        Config::default(),
        Config::default().blocks(BlockOrder::Serial),
        Config::default().seed(5),
        Config::default().seed(6).warp_size(1),
        Config::default().schedule(Schedule::Threads),
    ]
}

/// [`configs`] in the emulator, also under `EMU_TARGET=gpu` (tests of the emulator's reports).
fn emulator_configs() -> Vec<Config> {
    configs().into_iter().map(|c| c.target(deviceemu::Target::Emulator)).collect()
}

/// A grid-stride sum in one launch: each thread sums a stride of `x` into `partial[rank]`,
/// the grid syncs, then thread 0 of the grid sums the partials into `out[0]`.
#[kernel]
fn grid_sum(x: &[u32], partial: &mut [u32], out: &mut [u32]) {
    let grid: GridGroup = this_grid();
    let rank = grid.thread_rank() as usize;
    let size = grid.size() as usize;
    let mut s = 0u32;
    let mut i = rank;
    while i < x.len() {
        s = s.wrapping_add(x[i]);
        i += size;
    }
    partial[rank] = s;
    grid.sync();
    if rank == 0 {
        let mut total = 0u32;
        for k in 0..size {
            total = total.wrapping_add(partial[k]);
        }
        out[0] = total;
    }
}

#[test]
fn a_grid_synchronised_reduction_in_one_launch() {
    let x: Vec<u32> = (0..50_000u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
    let want = x.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    for config in configs() {
        let (blocks, threads) = (8u32, 64u32);
        let mut partial = DeviceBuffer::<u32>::zeroed((blocks * threads) as usize).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        with_config(config.clone(), || launch_cooperative!(grid_sum<<<blocks, threads>>>(&dx, &mut partial, &mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap()[0], want, "{config:?}");
    }
}

/// Three phases over a ring, each reading what other blocks wrote before the last grid sync,
/// with block barriers in the body too (a state-machine kernel).
#[kernel]
fn ring_phases(a: &mut [u32], b: &mut [u32]) {
    let grid = this_grid();
    let i = grid.thread_rank() as usize;
    let n = grid.size() as usize;
    a[i] = i as u32;
    sync_threads();
    grid.sync();
    b[i] = a[(i + 1) % n] * 2;
    grid.sync();
    a[i] = b[(i + n - 1) % n] + b[(i + 7) % n];
    sync_threads();
    grid.sync();
    b[i] = a[(i * 5) % n];
}

#[test]
fn grid_syncs_order_phases_across_blocks() {
    let n = 6 * 32;
    let a0: Vec<u32> = (0..n as u32).collect();
    let b1: Vec<u32> = (0..n).map(|i| a0[(i + 1) % n] * 2).collect();
    let a2: Vec<u32> = (0..n).map(|i| b1[(i + n - 1) % n] + b1[(i + 7) % n]).collect();
    let want: Vec<u32> = (0..n).map(|i| a2[(i * 5) % n]).collect();
    for config in configs() {
        let mut a = DeviceBuffer::<u32>::zeroed(n).unwrap();
        let mut b = DeviceBuffer::<u32>::zeroed(n).unwrap();
        with_config(config.clone(), || launch_cooperative!(ring_phases<<<6, 32>>>(&mut a, &mut b)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(b.to_vec().unwrap(), want, "{config:?}");
    }
}

/// Block 0 spins until the last block sets a flag: legal in a cooperative launch, whose blocks
/// are all resident.
#[kernel]
fn wait_for_last_block(flag: &mut [u32], out: &mut [u32]) {
    let last = grid_dim().x - 1;
    if thread_idx().x == 0 {
        if block_idx().x == 0 {
            while flag.atomic_load(0, core::sync::atomic::Ordering::Acquire) == 0 {}
            out[0] = flag.atomic_load(0, core::sync::atomic::Ordering::Acquire);
        } else if block_idx().x == last {
            flag.atomic_store(0, 42, core::sync::atomic::Ordering::Release);
        }
    }
}

#[test]
fn a_block_may_wait_for_a_later_block_of_a_cooperative_launch() {
    for config in configs() {
        let out = on_new_thread(60, move || {
            let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            with_config(config, || launch_cooperative!(wait_for_last_block<<<16, 32>>>(&mut flag, &mut out))).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(out, [42]);
    }
}

#[kernel]
fn just_sync(out: &mut [u32]) {
    this_grid().sync(); // @plain-launch-sync
    out[0] = 1;
}

#[test]
fn a_grid_sync_in_a_launch_that_is_not_cooperative_is_reported() {
    // On the H200 this kernel traps (probe p11), which would poison the test process's CUDA
    // context: the test checks the emulator's report, in the emulator.
    for config in emulator_configs() {
        with_config(config.clone(), || {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let err = with_config(config.clone(), || launch!(just_sync<<<2, 32>>>(&mut out))).unwrap_err();
            assert_eq!(err.code(), 719, "{config:?}");
            let text = err.to_string();
            assert_has(&text, "Grid sync error: this_grid().sync() in a launch that is not cooperative");
            assert_has(
                &text,
                &format!("tests/it/scheduler/grid_sync.rs:{}", marked_line(SOURCE, "// @plain-launch-sync")),
            );
            assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
            assert!(err.report().unwrap().findings().iter().all(|f| matches!(f, Finding::GridSync { .. })));
            assert_eq!(out.to_vec().unwrap(), [0], "nobody got past the sync");
            // The same launch, cooperative, works.
            with_config(config, || launch_cooperative!(just_sync<<<2, 32>>>(&mut out))).unwrap();
            assert_eq!(out.to_vec().unwrap(), [1]);
        });
    }
}

/// Blocks with an odd index return before the grid sync the others wait at.
#[kernel]
fn some_blocks_leave(out: &mut [u32]) {
    if block_idx().x % 2 == 1 {
        return;
    }
    this_grid().sync(); // @never-completes
    out[block_idx().x as usize] = 1;
}

#[test]
fn a_grid_sync_that_exited_blocks_never_reach_is_reported_not_a_hang() {
    // On a GPU this launch hangs for ever: the emulator's report, in the emulator.
    for config in emulator_configs() {
        let err = on_new_thread(60, move || {
            with_config(config, || {
                let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
                launch_cooperative!(some_blocks_leave<<<4, 32>>>(&mut out)).unwrap_err()
            })
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(
            &text,
            "the grid sync can never complete: 2 block(s) of the grid ended without reaching it (block (1,0,0), block (3,0,0))",
        );
        assert_has(&text, &format!("tests/it/scheduler/grid_sync.rs:{}", marked_line(SOURCE, "// @never-completes")));
        assert_has(&text, "in block (0,0,0)");
        assert_has(&text, "in block (2,0,0)");
    }
}

#[kernel]
fn empty(out: &mut [u32]) {
    if block_idx().x == 0 && thread_idx().x == 0 {
        out[0] = 0;
    }
}

#[test]
fn cooperative_grids_must_fit_the_device_as_on_an_h200() {
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    // The H200's co-residency figures (tools/probes/RESULTS.md, p8): 132 SMs with 16, 8, 4 and 2
    // blocks per SM at 128, 256, 512 and 1024 threads; 4, 4, 4 and 2 with 48 KiB of dynamic
    // shared memory.
    for (threads, per_sm, shared) in
        [(128u32, 16u32, 0usize), (256, 8, 0), (512, 4, 0), (1024, 2, 0), (128, 4, 48 * 1024), (1024, 2, 48 * 1024)]
    {
        let fits = 132 * per_sm;
        with_config(
            Config::default().max_shared_bytes(64 * 1024),
            || launch_cooperative!(empty<<<fits, threads, shared>>>(&mut out)),
        )
        .unwrap_or_else(|e| panic!("{fits} blocks of {threads} threads fit: {e}"));
        let err = with_config(
            Config::default().max_shared_bytes(64 * 1024),
            || launch_cooperative!(empty<<<fits + 1, threads, shared>>>(&mut out)),
        )
        .unwrap_err();
        assert_eq!(err.code(), 720, "{threads} threads");
        assert_eq!(err.name(), "cudaErrorCooperativeLaunchTooLarge");
        assert_has(&err.to_string(), &format!("at most {fits} blocks of {threads} threads"));
        // Not sticky, and an ordinary launch of the same grid is fine.
        launch!(empty<<<fits + 1, threads, shared>>>(&mut out)).unwrap();
    }
}
