//! The bug checkers, and the narrow view of the running block they are given.
//!
//! | module      | finds |
//! |-------------|-------|
//! | `memcheck`  | accesses out of bounds (always on: memory safety rests on it) |
//! | `initcheck` | reads of memory nothing wrote (shadow bits) |
//! | `racecheck` | races in shared and global memory (happens-before: barriers, atomics, fences) |
//! | `synccheck` | divergent and skipped barriers |
//!
//! A checker never sees the scheduler's internals: it is handed the running block as a
//! [`Site`] (implemented by `sched::block::BlockRun`), and synccheck the barrier's waiting
//! and exited threads as a `synccheck::Barrier`. The hooks that find the running block and
//! call the checkers for each access are the scheduler's (`sched/hooks.rs`).

use std::panic::Location;

use crate::device::{Dim3, View, ViewKind};
use crate::host::config::Checks;
use crate::host::report::Finding;

pub(crate) mod memcheck;
pub(crate) mod view_meta;

pub(crate) mod initcheck;
pub(crate) mod racecheck;
pub(crate) mod synccheck;

/// Whether `config` asks for a checker that watches each access.
pub(crate) fn any(checks: Checks) -> bool {
    checks.initcheck || checks.racecheck
}

/// The shadows of the running block's shared memory (`mem::shared_mem::SharedArena`).
#[derive(Clone, Copy)]
pub(crate) struct SharedShadows<'a> {
    /// Address of the arena's first byte.
    pub(crate) base: usize,
    /// The arena's size in bytes.
    pub(crate) size: usize,
    /// initcheck's bits.
    pub(crate) init: &'a initcheck::SharedInitBits,
    /// racecheck's records.
    pub(crate) race: &'a racecheck::SharedRaceShadow,
}

/// What becomes of a faulting access's report ([`Site::fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The thread's first fault, among the lowest of the launch: build and store the report.
    Report,
    /// The thread's first fault, past what the launch stores: counted only.
    Count,
    /// The thread faulted before: not counted again (compute-sanitizer stops a faulting
    /// thread at its first fault).
    Repeat,
}

/// What a checker may know about the running GPU thread and its block, and how it reports.
pub(crate) trait Site {
    /// The running thread's linear index in its block.
    fn current(&self) -> u32;
    /// `threadIdx` of thread `t` of the block.
    fn thread_index(&self, t: u32) -> Dim3;
    /// `threadIdx` of the running thread.
    fn thread(&self) -> Dim3 {
        self.thread_index(self.current())
    }
    /// `blockIdx` of the running block.
    fn block_idx(&self) -> Dim3;
    /// The running block's linear index in the grid.
    fn linear_index(&self) -> u64;
    /// `blockIdx` of the block with linear index `linear`.
    fn block_of(&self, linear: u64) -> Dim3;
    /// A number telling apart the blocks run by one worker (racecheck's records).
    fn serial(&self) -> u64;
    /// A number telling apart the launches of the process.
    fn launch_serial(&self) -> u64;
    /// How many barriers the block has completed.
    fn generation(&self) -> u32;
    /// How many `sync_warp`s the warp of thread `t` completed in this block.
    fn warp_epoch(&self, t: u32) -> u32;
    /// How many `sync_warp`s the block's warps completed in all (it changes whenever a
    /// [`warp_epoch`](Self::warp_epoch) does).
    fn warp_syncs(&self) -> u32;
    /// Lanes per warp (at least 1).
    fn warp_size(&self) -> u32;
    /// The checkers the launch runs.
    fn checks(&self) -> Checks;
    /// The shadows of the block's shared memory.
    fn shared(&self) -> SharedShadows<'_>;
    /// The shadows of the shared memory of another block of the running block's cluster that
    /// holds `address` (distributed shared memory), with that block's serial (see
    /// [`serial`](Self::serial)); `None` when no block of the cluster does.
    fn shared_at(&self, address: usize) -> Option<(SharedShadows<'_>, u64)> {
        let _ = address;
        None
    }
    /// Records a finding that does not stop the block, once per kind and site.
    fn note(&self, f: Finding);
    /// Records `f` for the running thread, fails the block and unwinds the thread.
    fn fail(&self, f: Finding) -> !;
    /// The running thread made a faulting access (an index out of bounds): counts it, marks
    /// the thread as faulted (it stops at its next barrier, warp collective or progress point,
    /// and its later faults and findings are dropped), and says whether to report it.
    fn fault(&self) -> Fault;
    /// Stores the report of a fault [`fault`](Self::fault) said to report.
    fn keep_fault(&self, f: Finding);
    /// After a fault: stops the faulting thread at once (unwinding it), as long as the launch
    /// has had few faults; past that it runs on to its next wait, which costs nothing.
    fn after_fault(&self);
    /// Fails the launch with the host failure `e` (memory a checker could not allocate) and
    /// unwinds the thread; the launch returns `e`.
    fn host_failure(&self, e: crate::host::report::error::Error) -> !;
}

/// A checked load (`write` false) or store of element `i` of `view` (in bounds) by the running
/// thread of `site`: hands it to the checkers the launch runs.
#[inline(always)]
pub(crate) fn on_access<S: Site, T, K: ViewKind>(
    site: &S,
    view: &View<T, K>,
    i: usize,
    write: bool,
    at: &'static Location<'static>,
) {
    let checks = site.checks();
    if checks.initcheck {
        if write {
            initcheck::on_store(site, view, i, at);
        } else {
            initcheck::on_load(site, view, i, at);
        }
    }
    if checks.racecheck {
        racecheck::on_plain(site, view, i, write, at);
    }
}

/// The running block of `site` ends: racecheck reports its warp-synchronous hazards that no
/// retry cleared.
#[inline(always)]
pub(crate) fn on_block_end<S: Site>(site: &S) {
    if site.checks().racecheck {
        racecheck::on_block_end(site);
    }
}

/// The checks of one access site of a chunk of a vectorised lane loop: lane `k < m`, thread
/// `c0 + k` of the running block of `site`, reads (`write` false) or writes element `start + k`
/// of `view` (in bounds) at `at`. Each checker decides its common case for the chunk at once;
/// a lane it does not decide goes through [`on_access`]'s checks with `set_current(c0 + k)`
/// called first (so that the lane is the running thread its findings name).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn on_lanes<S: Site, T, K: ViewKind>(
    site: &S,
    view: &View<T, K>,
    start: usize,
    c0: u32,
    m: usize,
    write: bool,
    at: &'static Location<'static>,
    set_current: &dyn Fn(u32),
) {
    let checks = site.checks();
    if checks.initcheck {
        initcheck::on_lanes(site, view, start, m, write, &mut |k| {
            set_current(c0 + k as u32);
            if write {
                initcheck::on_store(site, view, start + k, at);
            } else {
                initcheck::on_load(site, view, start + k, at);
            }
        });
    }
    if checks.racecheck {
        racecheck::on_lanes(site, view, start, c0, m, write, at, &mut |k| {
            set_current(c0 + k as u32);
            racecheck::on_plain(site, view, start + k, write, at);
        });
    }
}
