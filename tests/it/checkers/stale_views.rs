//! A view of shared memory cannot outlive its block: kept in a `thread_local!` (or a leaked
//! box) past the block that made it, its next access is a stale access (error 700, reported
//! like compute-sanitizer's invalid address, with the kernel, thread, block and line), never a
//! read or write of another block's shared memory or of a freed arena. Views of global memory
//! carry the launch's lifetime and cannot be kept at all (`tests/ui/kernel_global_view_escapes.rs`).

use crate::common;

use std::cell::Cell;

use deviceemu::prelude::*;
use deviceemu::{quietly, with_config, BlockOrder, Config, ExecPath};

thread_local! {
    static STASH: Cell<Option<Shared<'static, u32>>> = const { Cell::new(None) };
    static DYN: Cell<Option<Shared<'static, u32>>> = const { Cell::new(None) };
}

/// Thread 0 of block 0 keeps its block's shared array.
#[kernel]
pub fn keep(out: &mut [u32]) {
    let tile = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    tile[t] = t as u32 + 1;
    sync_threads();
    if t == 0 && block_idx().x == 0 {
        STASH.with(|s| s.set(Some(tile)));
    }
    out[block_idx().x as usize * 64 + t] = tile[63 - t];
}

/// Reads and writes through the kept view.
#[kernel]
pub fn use_kept(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if let Some(v) = STASH.with(|s| s.get()) {
        out[t] = v.load(t);
        v.store(t, 7);
    }
}

/// Block 0 keeps its array; block 1, run after it on the same worker, reads it.
#[kernel]
pub fn keep_then_read(out: &mut [u32]) {
    let tile = shared_array![u32; 32];
    let t = thread_idx().x as usize;
    tile[t] = 5;
    if block_idx().x == 0 && t == 0 {
        STASH.with(|s| s.set(Some(tile)));
    }
    sync_threads();
    if block_idx().x == 1 {
        if let Some(v) = STASH.with(|s| s.get()) {
            out[t] = v.load(t); // STALE READ
        }
    }
}

/// Keeps a view of the launch's dynamic shared memory.
#[kernel]
pub fn keep_dynamic(out: &mut [u32]) {
    let d = dynamic_shared::<u32>();
    let t = thread_idx().x as usize;
    d[t] = 1;
    if t == 0 {
        DYN.with(|s| s.set(Some(d)));
    }
    out[t] = d[t];
}

/// Indexes the kept dynamic view far out of its bounds (it aborted the process once: the
/// report read the freed view's description).
#[kernel]
pub fn far_out_of_dynamic(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if let Some(v) = DYN.with(|s| s.get()) {
        v.store(t + 1_000_000, 9); // STALE WRITE
        out[t] = 1;
    }
}

/// Puts the kept view in place of its own shared array, then reads and writes it in barrier
/// regions (`tile[t]`, `t < 64`): whatever form the regions take, the access is reported. (A
/// proved region's guard refuses any view but the running block's own: `shared_mem.rs`'s
/// unit tests.)
#[kernel]
pub fn swap_in_kept(out: &mut [u32]) {
    let mut tile = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    if let Some(v) = STASH.with(|s| s.get()) {
        tile = v;
    }
    sync_threads();
    tile[t] = t as u32; // STALE SWAPPED WRITE
    sync_threads();
    out[t] = tile[63 - t];
}

fn paths() -> [Config; 2] {
    let base = Config::from_env().unwrap();
    [base.clone().path(ExecPath::Auto), base.path(ExecPath::General)]
}

#[test]
fn a_view_kept_in_a_thread_local_is_stale_in_the_next_launch() {
    for config in paths() {
        with_config(config.clone().blocks(BlockOrder::Serial), || {
            let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
            launch!(keep<<<2, 64>>>(&mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap()[0], 64);
            assert!(STASH.with(|s| s.get()).is_some(), "the kernel kept a view");
            // A live `Vec` where the arena was, which a stale write must not reach.
            let canary = vec![0xC0FFEEu32; 1 << 14];
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            let err = quietly(|| launch!(use_kept<<<1, 64>>>(&mut out))).unwrap_err();
            assert_eq!(err.code(), 700, "{config:?}");
            let text = err.to_string();
            assert!(text.contains("Invalid __shared__ read of size 4 bytes"), "{text}");
            assert!(text.contains("made by a block that has ended"), "{text}");
            assert!(text.contains("stale_views.rs"), "{text}");
            assert!(text.contains("by thread (0,0,0) in block (0,0,0)"), "{text}");
            assert!(canary.iter().all(|&w| w == 0xC0FFEE));
            // Nothing was read: the faulting loads gave zero.
            assert_eq!(out.to_vec().unwrap(), vec![0; 64]);
            // The next launch works.
            STASH.with(|s| s.set(None));
            let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
            launch!(keep<<<2, 64>>>(&mut out)).unwrap();
            STASH.with(|s| s.set(None));
        });
    }
}

#[test]
fn a_view_of_an_earlier_block_is_stale_in_the_next_block() {
    let line = common::marked_line(include_str!("stale_views.rs"), "// STALE READ");
    for config in paths() {
        with_config(config.blocks(BlockOrder::Serial), || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            let err = quietly(|| launch!(keep_then_read<<<2, 32>>>(&mut out))).unwrap_err();
            STASH.with(|s| s.set(None));
            assert_eq!(err.code(), 700);
            let text = err.to_string();
            assert!(text.contains(&format!("stale_views.rs:{line}")), "{text}");
            assert!(text.contains("in block (1,0,0)"), "{text}");
            assert!(text.contains("ERROR SUMMARY: 32 errors"), "{text}");
        });
    }
}

#[test]
fn a_stale_dynamic_view_far_out_of_bounds_is_reported_not_an_abort() {
    for config in paths() {
        with_config(config, || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(keep_dynamic<<<1, 32, 32 * 4>>>(&mut out)).unwrap();
            let err = quietly(|| launch!(far_out_of_dynamic<<<1, 32, 16>>>(&mut out))).unwrap_err();
            DYN.with(|s| s.set(None));
            assert_eq!(err.code(), 700);
            let text = err.to_string();
            assert!(text.contains("Invalid __shared__ write of size 4 bytes"), "{text}");
            assert!(text.contains("made by a block that has ended"), "{text}");
        });
    }
}

#[test]
fn a_stale_view_used_on_the_host_panics_instead_of_reading_freed_memory() {
    let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
    // Serial blocks run on this thread, whose `thread_local!` the kernel writes.
    with_config(Config::from_env().unwrap().blocks(BlockOrder::Serial), || launch!(keep<<<2, 64>>>(&mut out))).unwrap();
    let v = STASH.with(|s| s.take()).expect("kept");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.load(3)));
    let msg = r.expect_err("a stale read on the host panics");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("after the block that made it ended"), "{msg}");
}

#[test]
fn a_stale_view_in_place_of_a_shared_array_is_reported_on_both_paths() {
    let line = common::marked_line(include_str!("stale_views.rs"), "// STALE SWAPPED WRITE");
    for config in paths() {
        with_config(config.clone().blocks(BlockOrder::Serial), || {
            let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
            launch!(keep<<<2, 64>>>(&mut out)).unwrap();
            // Without a kept view the kernel is right on both paths.
            let kept = STASH.with(|s| s.take()).expect("kept");
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(swap_in_kept<<<1, 64>>>(&mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap(), (0..64).rev().collect::<Vec<u32>>());
            STASH.with(|s| s.set(Some(kept)));
            let err = quietly(|| launch!(swap_in_kept<<<1, 64>>>(&mut out))).unwrap_err();
            STASH.with(|s| s.set(None));
            assert_eq!(err.code(), 700, "{config:?}");
            let text = err.to_string();
            assert!(text.contains("made by a block that has ended"), "{text}");
            assert!(text.contains(&format!("stale_views.rs:{line}")), "{config:?}: {text}");
        });
    }
}
