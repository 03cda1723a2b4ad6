//! Running one block: its threads on fibers, `sync_threads` as the scheduling point.
//!
//! The threads of a block run one at a time on the worker's host thread, so a block's shared
//! memory is never touched by two host threads at once, and the emulation is deterministic
//! for a given seed. Scheduling rounds:
//!
//! 1. **Start.** A *runner* fiber runs not-yet-started threads one after another as plain
//!    calls. When the running thread reaches a barrier the fiber suspends with it, and a new
//!    runner takes over the rest. After this round every thread has either exited or waits at
//!    a barrier.
//! 2. **Verdict.** `synccheck` decides whether the waiting threads may go on: all at the same
//!    barrier (exited threads count as arrived, as on hardware since Volta) or divergent.
//! 3. **Release.** Each waiting thread's fiber is resumed in turn (index order, or shuffled by
//!    the seed) and runs to its next barrier or its end. Then back to 2.
//!
//! A failure (out-of-bounds access, panic, stack overflow, deadlock) marks the block failed:
//! no new thread starts, and every suspended fiber is resumed with `Resume::Abort`, which
//! unwinds it. A block never returns while one of its fibers is alive.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, Location};

use corosensei::{CoroutineResult, Yielder};

use crate::device::backend::BarrierOp;
use crate::device::Dim3;
use crate::host::fiber::{self, Fiber, Resume, RunnerEnd, Suspend};
use crate::host::launch::LaunchShared;
use crate::host::panics::{self, KernelAbort};
use crate::host::report::Finding;
use crate::host::shared_mem::SharedArena;
use crate::host::{context, overflow, synccheck};

/// Where a GPU thread is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    NotStarted,
    Running,
    Waiting,
    Exited,
    Failed,
}

/// The scheduler's record of one GPU thread.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) state: Cell<State>,
    /// While waiting: the barrier's call site. After exiting: where it exited, if known.
    pub(crate) at: Cell<Option<&'static Location<'static>>>,
    /// The barrier generation in which the thread exited.
    pub(crate) exit_generation: Cell<u32>,
    pub(crate) op: Cell<BarrierOp>,
    pub(crate) predicate: Cell<bool>,
}

impl Slot {
    fn new() -> Self {
        Slot {
            state: Cell::new(State::NotStarted),
            at: Cell::new(None),
            exit_generation: Cell::new(0),
            op: Cell::new(BarrierOp::Sync),
            predicate: Cell::new(false),
        }
    }
}

/// The per-worker state that runs blocks, reset for each block.
pub(crate) struct BlockRun<'a> {
    launch: &'a LaunchShared,
    arena: SharedArena,
    block_idx: Cell<Dim3>,
    block_linear: Cell<u64>,
    pub(crate) slots: Box<[Slot]>,
    order: RefCell<Vec<u32>>,
    next: Cell<usize>,
    current: Cell<u32>,
    yielder: Cell<*const Yielder<Resume, Suspend>>,
    pub(crate) generation: Cell<u32>,
    failed: Cell<bool>,
    barrier_reported: Cell<bool>,
    barrier_result: Cell<u32>,
    suspended: RefCell<Vec<(u32, Fiber)>>,
    findings: RefCell<Vec<(u32, Finding)>>,
}

/// The function a runner fiber runs: start threads until none is left.
pub(crate) type RunnerFn<'f> = dyn Fn(&BlockRun<'_>, &Yielder<Resume, Suspend>) -> RunnerEnd + Sync + 'f;

impl<'a> BlockRun<'a> {
    pub(crate) fn new(launch: &'a LaunchShared) -> Self {
        let n = launch.block.count() as usize;
        BlockRun {
            launch,
            arena: SharedArena::new(launch.shared_bytes, launch.config.get_max_shared_bytes()),
            block_idx: Cell::new(Dim3::new(0, 0, 0)),
            block_linear: Cell::new(0),
            slots: (0..n).map(|_| Slot::new()).collect(),
            order: RefCell::new((0..n as u32).collect()),
            next: Cell::new(0),
            current: Cell::new(0),
            yielder: Cell::new(std::ptr::null()),
            generation: Cell::new(0),
            failed: Cell::new(false),
            barrier_reported: Cell::new(false),
            barrier_result: Cell::new(0),
            suspended: RefCell::new(Vec::new()),
            findings: RefCell::new(Vec::new()),
        }
    }

    pub(crate) fn launch(&self) -> &LaunchShared {
        self.launch
    }
    pub(crate) fn arena(&self) -> &SharedArena {
        &self.arena
    }
    pub(crate) fn block_idx(&self) -> Dim3 {
        self.block_idx.get()
    }
    /// The index of the running GPU thread.
    pub(crate) fn thread(&self) -> Dim3 {
        self.launch.thread_index(self.current.get())
    }

    fn reset(&self, block_linear: u64) {
        self.block_linear.set(block_linear);
        self.block_idx.set(self.launch.grid.unlinear(block_linear));
        for s in self.slots.iter() {
            s.state.set(State::NotStarted);
            s.at.set(None);
            s.exit_generation.set(0);
        }
        if let Some(seed) = self.launch.config.get_seed() {
            let mut order = self.order.borrow_mut();
            order.iter_mut().enumerate().for_each(|(i, o)| *o = i as u32);
            shuffle(&mut order, seed, block_linear, u32::MAX);
        }
        self.next.set(0);
        self.generation.set(0);
        self.failed.set(false);
        self.barrier_reported.set(false);
    }

    /// Runs block `block_linear` to completion, recording its findings in the launch.
    pub(crate) fn run(&self, block_linear: u64, runner: &RunnerFn<'_>) {
        self.reset(block_linear);
        loop {
            while self.next.get() < self.slots.len() && !self.failed.get() {
                let stack = fiber::take_stack(self.launch.config.get_stack_size());
                // SAFETY: the fiber borrows `self` and `runner`. `run` does not return before
                // every fiber it creates has completed: each is resumed until it returns
                // (threads of a failed block are resumed with `Resume::Abort` and unwind).
                let f = unsafe { Fiber::with_stack_unchecked(stack, move |y, _| runner(self, y)) };
                self.drive(f, Resume::Continue, None);
            }
            let waiting = std::mem::take(&mut *self.suspended.borrow_mut());
            if waiting.is_empty() {
                break;
            }
            if self.failed.get() {
                for (t, f) in waiting {
                    self.drive(f, Resume::Abort, Some(t));
                }
                continue;
            }
            match synccheck::verdict(self) {
                synccheck::Verdict::Release => {}
                synccheck::Verdict::Skipped(finding) => {
                    if !self.barrier_reported.replace(true) {
                        self.record(finding);
                    }
                }
                synccheck::Verdict::Deadlock(finding) => {
                    self.record(finding);
                    self.failed.set(true);
                    *self.suspended.borrow_mut() = waiting;
                    continue;
                }
            }
            self.release(waiting);
        }
        let findings = std::mem::take(&mut *self.findings.borrow_mut());
        if !findings.is_empty() {
            self.launch.add_findings(block_linear, findings);
        }
    }

    fn release(&self, mut waiting: Vec<(u32, Fiber)>) {
        let op = self.slots[waiting[0].0 as usize].op.get();
        let count = waiting.iter().filter(|(t, _)| self.slots[*t as usize].predicate.get()).count() as u32;
        self.barrier_result.set(match op {
            BarrierOp::Sync => 0,
            BarrierOp::Count => count,
            BarrierOp::And => (count == waiting.len() as u32) as u32,
            BarrierOp::Or => (count > 0) as u32,
        });
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        match self.launch.config.get_seed() {
            None => waiting.sort_unstable_by_key(|(t, _)| *t),
            Some(seed) => shuffle(&mut waiting, seed, self.block_linear.get(), generation),
        }
        for (t, f) in waiting {
            self.drive(f, Resume::Continue, Some(t));
        }
    }

    /// Resumes `f` (which runs thread `thread`, or is a new runner when `None`) until it
    /// suspends or finishes.
    fn drive(&self, mut f: Fiber, input: Resume, thread: Option<u32>) {
        context::enter(self);
        if let Some(t) = thread {
            self.current.set(t);
            context::set_thread(self.launch.thread_index(t));
        }
        overflow::arm(&f);
        let r = f.resume(input);
        overflow::disarm();
        context::leave();
        match r {
            CoroutineResult::Yield(Suspend::Barrier) => {
                self.suspended.borrow_mut().push((self.current.get(), f));
            }
            CoroutineResult::Return(end) => {
                match end {
                    RunnerEnd::Done => {}
                    RunnerEnd::Aborted => self.failed.set(true),
                    RunnerEnd::StackOverflow => {
                        let t = self.current.get();
                        self.slots[t as usize].state.set(State::Failed);
                        self.record(Finding::StackOverflow {
                            thread: self.thread(),
                            block: self.block_idx(),
                            stack_size: self.launch.config.get_stack_size(),
                        });
                        self.failed.set(true);
                    }
                }
                fiber::give_back(f.into_stack());
            }
        }
    }

    fn record(&self, f: Finding) {
        let t = self.launch.block.linear(f.thread()) as u32;
        self.findings.borrow_mut().push((t, f));
    }

    /// Records `finding` for the running thread, fails the block and unwinds the thread.
    pub(crate) fn fail(&self, finding: Finding) -> ! {
        self.record(finding);
        self.failed.set(true);
        panic::resume_unwind(Box::new(KernelAbort))
    }

    #[inline(always)]
    fn claim_next(&self) -> Option<u32> {
        let i = self.next.get();
        if i >= self.slots.len() || self.failed.get() {
            return None;
        }
        self.next.set(i + 1);
        Some(if self.launch.config.get_seed().is_some() { self.order.borrow()[i] } else { i as u32 })
    }

    #[inline(always)]
    fn begin_thread(&self, t: u32, y: &Yielder<Resume, Suspend>) {
        self.current.set(t);
        self.yielder.set(y);
        let s = &self.slots[t as usize];
        s.state.set(State::Running);
        context::set_thread(self.launch.thread_index(t));
    }

    #[inline(always)]
    fn end_thread(&self, t: u32) {
        let s = &self.slots[t as usize];
        s.state.set(State::Exited);
        s.exit_generation.set(self.generation.get());
    }

    #[cold]
    fn thread_unwound(&self, payload: Box<dyn Any + Send>) {
        let t = self.current.get();
        self.slots[t as usize].state.set(State::Failed);
        self.failed.set(true);
        if payload.downcast_ref::<KernelAbort>().is_some() {
            return; // already recorded, or the block is being aborted
        }
        let (message, at) = panics::take().unwrap_or_else(|| ("panic".to_owned(), None));
        self.record(Finding::Panic { message, at, thread: self.thread(), block: self.block_idx() });
    }
}

/// The body of every runner fiber: start threads until none is left.
pub(crate) fn runner<F: Fn()>(block: &BlockRun<'_>, body: &F, y: &Yielder<Resume, Suspend>) -> RunnerEnd {
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        while let Some(t) = block.claim_next() {
            block.begin_thread(t, y);
            body();
            block.end_thread(t);
        }
    }));
    match r {
        Ok(()) => RunnerEnd::Done,
        Err(payload) => {
            block.thread_unwound(payload);
            RunnerEnd::Aborted
        }
    }
}

/// `sync_threads` and its count/and/or forms on the host: record where the thread waits and
/// suspend its fiber until the scheduler releases (or aborts) it.
pub(crate) fn barrier(op: BarrierOp, predicate: bool, at: &'static Location<'static>) -> u32 {
    let block = context::block_for("sync_threads");
    let t = block.current.get() as usize;
    let slot = &block.slots[t];
    slot.state.set(State::Waiting);
    slot.at.set(Some(at));
    slot.op.set(op);
    slot.predicate.set(predicate);
    let y = block.yielder.get();
    // SAFETY: `yielder` belongs to the fiber running this code: the runner sets it when it
    // starts a thread, and it is restored below each time this fiber is resumed. A running
    // fiber's yielder is alive.
    let resume = unsafe { &*y }.suspend(Suspend::Barrier);
    block.yielder.set(y);
    match resume {
        Resume::Continue => {
            slot.state.set(State::Running);
            slot.at.set(None);
            block.barrier_result.get()
        }
        Resume::Abort => panic::resume_unwind(Box::new(KernelAbort)),
    }
}

/// Records where the running thread exits (called by `#[kernel]` before each `return` and at
/// the end of the body).
#[inline(always)]
pub(crate) fn exit_here(at: &'static Location<'static>) {
    if let Some(block) = context::current() {
        block.slots[block.current.get() as usize].at.set(Some(at));
    }
}

/// Deterministic Fisher–Yates shuffle keyed by (seed, block, generation).
fn shuffle<T>(v: &mut [T], seed: u64, block: u64, generation: u32) {
    let mut state = seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((generation as u64) << 32);
    let mut next = || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..v.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}
