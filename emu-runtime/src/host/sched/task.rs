//! GPU threads as state machines: kernels whose barriers are all in their own body.
//!
//! `#[kernel]` turns such a body into an `async` block in which each `sync_threads()` (and its
//! count/and/or forms) becomes `barrier_await(..).await`. A GPU thread is then a future: a
//! barrier is a `Poll::Pending` returned to the block's runner, not a fiber switch, which is
//! what makes barrier-heavy kernels cheap (planning measured ~1.2 ns per thread per barrier
//! for this shape against ~12 ns for a fiber per thread; ARCHITECTURE.md, "Measurements
//! behind the design").
//!
//! The futures still run on the block's runner fibers, so the rest of the machinery is
//! unchanged: a stack overflow is caught by the fiber's guard page, and a barrier the body
//! does not own (one inside a `#[device]` helper, a closure or a macro) is the blocking
//! `sync_threads`, which parks the runner fiber with its thread exactly as in fiber-only mode
//! (`block.rs`). Futures and fibers mix freely within one block.
//!
//! Each worker keeps one table of futures, one slot per thread of a block, reused across the
//! worker's blocks: starting a thread writes its future into its slot, and polling happens in
//! place.

use std::cell::UnsafeCell;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::device::backend::BarrierOp;
use crate::host::sched::block::{self, State};
use crate::host::sched::context;
use crate::host::sched::thread::{Exit, ThreadCtx};
use crate::host::sched::warp::{self, WarpOp};

/// The futures of one block's threads, type-erased for the scheduler.
pub(crate) trait TaskTable {
    /// Creates thread `t`'s future, running as `ctx`, in its (empty) slot and polls it once.
    fn start(&self, t: usize, ctx: ThreadCtx) -> Poll<Exit>;
    /// Polls thread `t`'s future again; a finished future is dropped.
    fn poll(&self, t: usize) -> Poll<Exit>;
    /// Drops thread `t`'s future without polling it (the block is aborting, or the thread
    /// panicked inside a poll and its future is poisoned).
    fn discard(&self, t: usize);
    /// Gives up thread `t`'s slot without running any destructor: its poll was cut short by
    /// a stack overflow, so the future's state is whatever the dead frame left.
    fn abandon(&self, t: usize);
}

/// A worker's future table for the future type `F`, made by `make`.
pub(crate) struct Tasks<'m, M, F> {
    make: &'m M,
    /// One slot per thread of a block.
    ///
    /// Invariants that make the `unsafe` below sound:
    /// * **Exclusive access.** The table lives in one worker's `BlockRun` and is only used on
    ///   that worker's host thread (`UnsafeCell` makes it `!Sync`). Slot `t` is only touched
    ///   by the scheduler on behalf of thread `t`, never re-entrantly: thread `t` cannot start,
    ///   poll or discard itself while its own poll runs. A poll suspended on a parked fiber
    ///   keeps its `&mut` to slot `t` alive while other slots are used, which is fine: they
    ///   are different cells, and slot `t` is touched again only through that fiber (resumed
    ///   or unwound) or through `abandon`, after the fiber's stack is dead.
    /// * **Pinning.** A future is never moved once in its slot: it is dropped in place
    ///   (`discard`, or the assignment after `Ready`) or, for `abandon`, overwritten without
    ///   being dropped when no frame that could observe it can ever run again.
    slots: Box<[UnsafeCell<Option<F>>]>,
}

impl<'m, M, F> Tasks<'m, M, F>
where
    M: Fn(ThreadCtx) -> F,
    F: Future<Output = Exit>,
{
    pub(crate) fn new(make: &'m M, threads: usize) -> Self {
        Tasks { make, slots: (0..threads).map(|_| UnsafeCell::new(None)).collect() }
    }
}

impl<'m, M, F> TaskTable for Tasks<'m, M, F>
where
    M: Fn(ThreadCtx) -> F,
    F: Future<Output = Exit>,
{
    #[inline]
    fn start(&self, t: usize, ctx: ThreadCtx) -> Poll<Exit> {
        let fut = (self.make)(ctx);
        // SAFETY: exclusive access to slot `t`; it is empty (its last future finished, was
        // discarded or abandoned), so nothing pinned is overwritten.
        unsafe { *self.slots[t].get() = Some(fut) };
        self.poll(t)
    }

    #[inline]
    fn poll(&self, t: usize) -> Poll<Exit> {
        // SAFETY: exclusive access to slot `t`, see `slots`.
        let slot = unsafe { &mut *self.slots[t].get() };
        let fut = slot.as_mut().expect("deviceemu: polled a thread that has no future");
        // SAFETY: the future stays in its slot until it is dropped in place (see `slots`).
        let fut = unsafe { Pin::new_unchecked(fut) };
        let r = fut.poll(&mut Context::from_waker(Waker::noop()));
        if r.is_ready() {
            *slot = None;
        }
        r
    }

    fn discard(&self, t: usize) {
        // SAFETY: exclusive access to slot `t`; dropping in place keeps the pin promise.
        unsafe { *self.slots[t].get() = None };
    }

    fn abandon(&self, t: usize) {
        // SAFETY: exclusive access to slot `t`. Its future's poll died with the fiber stack it
        // ran on (stack overflow), which is never resumed; writing `None` over it without
        // dropping it leaks whatever it owned rather than running destructors on a state the
        // dead frame may have half-updated.
        unsafe { std::ptr::write(self.slots[t].get(), None) };
    }
}

/// `sync_threads().await` in a state-machine kernel: arrives at the barrier on the first
/// poll and returns `Pending`, so the runner moves on to the next thread; the runner polls it
/// again only once the barrier has been released.
#[derive(Debug)]
#[must_use = "a barrier does nothing unless awaited"]
pub struct BarrierAwait {
    op: BarrierOp,
    predicate: bool,
    at: &'static Location<'static>,
    arrived: bool,
}

impl BarrierAwait {
    #[track_caller]
    #[inline(always)]
    pub(crate) fn new(op: BarrierOp, predicate: bool) -> Self {
        BarrierAwait { op, predicate, at: Location::caller(), arrived: false }
    }
}

impl Future for BarrierAwait {
    /// The barrier's result: the count for `sync_threads_count`, 0 or 1 for `_and`/`_or`.
    type Output = u32;

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        let block = context::block_for("sync_threads");
        if self.arrived {
            block.slots[block.current() as usize].state.set(State::Running);
            return Poll::Ready(block.barrier_result());
        }
        if block.blocking_waits() {
            // EMU_SCHEDULE=threads: the thread keeps its OS thread while it waits.
            return Poll::Ready(block::barrier(self.op, self.predicate, self.at));
        }
        self.arrived = true;
        block::arrive(block, self.op, self.predicate, self.at);
        Poll::Pending
    }
}

/// A warp collective awaited in a state-machine kernel: arrives on the first poll and, if the
/// collective is not complete, returns `Pending`, so the runner moves on; the scheduler polls it
/// again once the collective has completed (`State::Ready`), and it returns its result.
#[derive(Debug)]
pub(crate) struct WarpAwait {
    op: WarpOp,
    mask: u32,
    value: u64,
    arg: u32,
    at: &'static Location<'static>,
    arrived: bool,
}

impl WarpAwait {
    #[track_caller]
    #[inline(always)]
    pub(crate) fn new(op: WarpOp, mask: u32, value: u64, arg: u32) -> Self {
        WarpAwait { op, mask, value, arg, at: Location::caller(), arrived: false }
    }
}

impl Future for WarpAwait {
    /// The lane's result (a predicate as 0 or 1, a ballot, or a shuffled value's bits).
    type Output = u64;

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u64> {
        let block = context::block_for(self.op.name());
        if self.arrived {
            return Poll::Ready(warp::finish(block));
        }
        if block.blocking_waits() {
            return Poll::Ready(warp::collective(self.op, self.mask, self.value, self.arg, self.at));
        }
        self.arrived = true;
        match warp::arrive(block, self.op, self.mask, self.value, self.arg, self.at) {
            Some(result) => Poll::Ready(result),
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The future table alone, without a block: runs under miri
    //! (`cargo +nightly miri test -p emu-runtime --lib host::task`), which checks the pinning
    //! and aliasing of `Tasks`' unsafe code.
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::{TaskTable, Tasks};
    use crate::device::Dim3;
    use crate::host::sched::thread::{Exit, ThreadCtx};

    thread_local! {
        static DROPS: Cell<u32> = const { Cell::new(0) };
    }

    /// Pending `waits` times, then done; counts drops (in a thread-local, so that the
    /// abandoned one owns no heap memory miri would report as leaked), and checks it was not
    /// moved while pinned by remembering its address on the first poll.
    struct Waiter {
        waits: u32,
        at: Option<usize>,
        local: [u64; 4],
    }

    impl Future for Waiter {
        type Output = Exit;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Exit> {
            let here = &*self as *const Waiter as usize;
            assert_eq!(*self.at.get_or_insert(here), here, "a pinned future moved");
            self.local[0] += 1;
            if self.waits == 0 {
                return Poll::Ready(std::panic::Location::caller());
            }
            self.waits -= 1;
            Poll::Pending
        }
    }

    impl Drop for Waiter {
        fn drop(&mut self) {
            DROPS.with(|d| d.set(d.get() + 1));
        }
    }

    fn ctx(x: u32) -> ThreadCtx {
        let d = Dim3::new(x, 0, 0);
        ThreadCtx { thread_idx: d, block_idx: d, block_dim: d, grid_dim: d, warp_mask: 31 }
    }

    #[test]
    fn futures_are_polled_in_place_and_dropped_once() {
        let drops = || DROPS.with(Cell::get);
        let make = |c: ThreadCtx| Waiter { waits: c.thread_idx.x, at: None, local: [0; 4] };
        let tasks = Tasks::new(&make, 4);
        // Two "blocks" through the same table.
        for _ in 0..2 {
            let mut pending: Vec<usize> = (0..4).filter(|&t| tasks.start(t, ctx(t as u32)).is_pending()).collect();
            assert_eq!(pending, vec![1, 2, 3]);
            while !pending.is_empty() {
                pending.retain(|&t| tasks.poll(t).is_pending());
            }
        }
        assert_eq!(drops(), 8, "every finished future dropped exactly once");
        // Discarding a pending future drops it; abandoning one does not.
        assert!(tasks.start(2, ctx(2)).is_pending());
        tasks.discard(2);
        assert_eq!(drops(), 9);
        assert!(tasks.start(3, ctx(3)).is_pending());
        tasks.abandon(3);
        assert_eq!(drops(), 9, "an abandoned future is not dropped");
        assert!(tasks.start(3, ctx(0)).is_ready(), "its slot is reusable");
        assert_eq!(drops(), 10);
    }
}
