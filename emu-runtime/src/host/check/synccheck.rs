//! synccheck: block barriers that not every running thread reaches.
//!
//! # Definitions
//!
//! CUDA requires every thread of a block that has not exited to reach the *same*
//! `__syncthreads()`. Since Volta, exited threads count as arrived: `if (tid >= n) return;`
//! before a barrier is legal, gives correct results on an H200, and compute-sanitizer's
//! synccheck is silent about it. Two shapes are bugs:
//!
//! * **Divergent barriers** (a deadlock): the threads that are still running wait at different
//!   `sync_threads` call sites.
//! * **Skipped barriers**: some threads wait at barrier *B* while others of the block never
//!   reach it and run on to exit *after* it, e.g. `if tid < 50 { sync_threads() }` followed by
//!   more code, or an early `break` out of a reduction loop that contains a barrier.
//!
//! # Algorithm
//!
//! The block scheduler calls [`verdict`] whenever no thread of the block can run: each has
//! exited or waits at a barrier. Barrier completions are numbered (*generations*); a thread
//! that exits records the generation it exited in and its exit position (`#[kernel]` records
//! the position of each `return` and of the end of the body).
//!
//! 1. If the waiting threads wait at more than one call site, the block deadlocks: report and
//!    stop it.
//! 2. Otherwise let *B* be the one site. A thread that exited during the current generation
//!    at a source position **after** *B* (same file, later line and column) skipped *B* while
//!    others waited there: report it once per block and let the block go on, as the hardware
//!    would. A thread whose exit lies **before** *B* exited early: not an error.
//!
//! The verdict depends only on where threads wait and exit, never on the order they ran in,
//! so it is the same for every `EMU_SEED`.
//!
//! The report says `Divergent thread(s) in warp` when threads of one warp disagree (what
//! compute-sanitizer says on an H200) and `in block` when only whole warps do (a case
//! compute-sanitizer misses).
//!
//! # Limits
//!
//! * Positions are compared only for barriers in the kernel's own body. A `#[device]` helper
//!   that calls `sync_threads` directly is `#[track_caller]`, so its barrier is seen at the
//!   helper's call site in the kernel; a barrier two helpers deep is not positioned, and
//!   threads exiting around it are treated as early exits (no report).
//! * A thread that leaves a loop containing a barrier through a `return` placed *after* the
//!   barrier in the loop body is reported, even when the hardware would tolerate it; put the
//!   `return` before the barrier, or make the exit uniform across the block.
//! * Warp-level collectives (`sync_warp`, votes, shuffles) are checked by `warp.rs`.

use std::panic::Location;

use crate::device::Dim3;
use crate::host::check::Site;
use crate::host::report::{thread_ranges, Finding, SourceLocation};

/// What synccheck sees of a block at a barrier: where each thread waits or exited
/// (implemented by `sched::block::BlockRun` over its thread slots).
pub(crate) trait Barrier: Site {
    /// Threads in the block.
    fn threads(&self) -> u32;
    /// `blockDim`.
    fn block_dim(&self) -> Dim3;
    /// The barrier thread `t` waits at, if it waits at one.
    fn waiting_at(&self, t: u32) -> Option<&'static Location<'static>>;
    /// If thread `t` exited: the barrier generation it exited in, and where, if known.
    fn exit_of(&self, t: u32) -> Option<(u32, Option<&'static Location<'static>>)>;
    /// The kernel's source file and the lines its body spans.
    fn kernel_span(&self) -> (&'static str, u32, u32);
}

/// What the scheduler should do with the waiting threads.
pub(crate) enum Verdict {
    /// All running threads wait at one barrier and nobody skipped it.
    Release,
    /// All wait at one barrier, but some threads skipped it: report, then release.
    Skipped(Finding),
    /// The waiting threads wait at different barriers: report and stop the block.
    Deadlock(Finding),
}

/// Whether `exit` lies after `barrier` in the kernel's source. Positions are only comparable
/// when the barrier call is in the kernel's own body (a barrier inside a `#[device]` helper
/// is seen at the helper's call site, because `#[device]` makes such helpers
/// `#[track_caller]`).
fn after(exit: &Location<'_>, barrier: &Location<'_>, (file, line, end_line): (&str, u32, u32)) -> bool {
    let in_kernel = barrier.file() == file && (line..=end_line).contains(&barrier.line());
    in_kernel && exit.file() == barrier.file() && (exit.line(), exit.column()) > (barrier.line(), barrier.column())
}

/// Decides whether the barrier the block's threads wait at may complete.
pub(crate) fn verdict<B: Barrier>(block: &B) -> Verdict {
    let warp = block.warp_size();
    let mut sites: Vec<(&'static Location<'static>, Vec<u32>)> = Vec::new();
    for i in 0..block.threads() {
        if let Some(at) = block.waiting_at(i) {
            match sites.iter_mut().find(|(l, _)| std::ptr::eq(*l, at) || **l == *at) {
                Some((_, v)) => v.push(i),
                None => sites.push((at, vec![i])),
            }
        }
    }
    let describe_wait = |at: &Location<'_>, ts: &[u32]| {
        format!("{} wait at the barrier at {}", thread_ranges(block.block_dim(), ts), SourceLocation::from(at))
    };
    if sites.len() > 1 {
        let mut warp_of = std::collections::HashMap::new();
        let mut in_warp = false;
        for (k, (_, ts)) in sites.iter().enumerate() {
            for &t in ts {
                if let Some(&other) = warp_of.get(&(t / warp)) {
                    in_warp |= other != k;
                } else {
                    warp_of.insert(t / warp, k);
                }
            }
        }
        let first_other = sites[1].1[0];
        return Verdict::Deadlock(Finding::BarrierDivergence {
            in_warp,
            at: SourceLocation::from(sites[1].0),
            thread: block.thread_index(first_other),
            block: block.block_idx(),
            groups: sites.iter().map(|(at, ts)| describe_wait(at, ts)).collect(),
            deadlock: true,
        });
    }
    let Some((barrier, waiters)) = sites.pop() else { return Verdict::Release };
    let generation = block.generation();
    let kernel = block.kernel_span();
    let mut skipped: Vec<(&'static Location<'static>, Vec<u32>)> = Vec::new();
    for i in 0..block.threads() {
        let Some((g, Some(exit))) = block.exit_of(i) else { continue };
        if g != generation {
            continue;
        }
        if after(exit, barrier, kernel) {
            match skipped.iter_mut().find(|(l, _)| **l == *exit) {
                Some((_, v)) => v.push(i),
                None => skipped.push((exit, vec![i])),
            }
        }
    }
    if skipped.is_empty() {
        return Verdict::Release;
    }
    let in_warp = skipped
        .iter()
        .flat_map(|(_, ts)| ts.iter())
        .any(|&t| waiters.binary_search_by(|w| (w / warp).cmp(&(t / warp))).is_ok());
    let first = skipped.iter().map(|(_, ts)| ts[0]).min().expect("non-empty");
    let mut groups = vec![describe_wait(barrier, &waiters)];
    groups.extend(skipped.iter().map(|(exit, ts)| {
        format!("{} skipped it and exited at {}", thread_ranges(block.block_dim(), ts), SourceLocation::from(*exit))
    }));
    Verdict::Skipped(Finding::BarrierDivergence {
        in_warp,
        at: SourceLocation::from(barrier),
        thread: block.thread_index(first),
        block: block.block_idx(),
        groups,
        deadlock: false,
    })
}
