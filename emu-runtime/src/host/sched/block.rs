//! Running one block: its threads on fibers, `sync_threads` as the scheduling point.
//!
//! The threads of a block run one at a time on the worker's host thread, so a block's shared
//! memory is never touched by two host threads at once, and the emulation is deterministic
//! for a given seed. Scheduling rounds:
//!
//! 1. **Start.** A *runner* fiber runs not-yet-started threads one after another: as plain
//!    calls of the kernel function, or, for a kernel with barriers in its body, by creating
//!    and polling the thread's future (`task.rs`). An awaited barrier returns `Pending` and
//!    the runner goes on; a blocking one (in a helper) suspends the fiber with its thread, and
//!    another runner takes over the rest. After this round every thread has either exited or
//!    waits at a barrier.
//! 2. **Verdict.** `synccheck` decides whether the waiting threads may go on: all at the same
//!    barrier (exited threads count as arrived, as on hardware since Volta) or divergent. The
//!    common case (one call site, nobody exited since the last barrier) is decided without a
//!    scan.
//! 3. **Release.** The waiting threads are resumed in arrival order (which is index order) or
//!    in the seed's order, each running to its next barrier or its end: a parked fiber is
//!    resumed, a run of futures is polled by a runner. Then back to 2.
//!
//! Warp collectives (`warp.rs`) are small barriers inside a warp. A lane that must wait in one
//! returns `Pending` or parks its fiber, as at a barrier, but is not on the barrier's list;
//! when the collective completes, its waiting lanes are queued as *ready* and resumed before
//! the next verdict (`resume_ready`). `active_mask()` calls are answered once nothing else can
//! run, and a collective still waiting then can never complete: a deadlock report.
//!
//! Threads that exit where the block's first exit did, before any barrier, leave their slot
//! untouched; the verdict fills those in (`materialize_exits`). A kernel without barriers thus
//! costs a loop over its threads and nothing per thread beyond the kernel's own work.
//!
//! A runner that finds no thread left to start parks itself as *idle*; the worker's next block
//! reuses it, so fibers are created once per worker and block size, not once per thread and
//! block. Idle runners are finished when the worker is dropped.
//!
//! A failure (out-of-bounds access, panic, stack overflow, deadlock) marks the block failed:
//! no new thread starts, and every suspended thread is resumed with `Resume::Abort`, which
//! unwinds it. A block never ends while one of its threads is suspended.
//!
//! # Stopping a thread without aborting the process
//!
//! A thread is *being stopped* while it unwinds (a fault, a panic, an abort of its failed
//! block: [`Stop::Unwinding`], confirmed by `std::thread::panicking()`) and while the
//! scheduler drops the future of a waiting thread of a failed block ([`Stop::Dropping`]). Its
//! `Drop` code still runs, and may reach the device API. Unwinding a second time out of a
//! `Drop` that runs during unwinding aborts the process, and suspending a fiber in the middle
//! of an unwind would hand its panic count to the next fiber, so while a thread is being
//! stopped:
//!
//! * barriers (`sync_threads` and its forms, grid and cluster syncs) return at once, with the
//!   value a block of that one thread would give; warp collectives return the calling lane's
//!   own result, as if the mask named only it; progress points never yield; device-side
//!   launches and `device_synchronize` return an error without running anything. Nothing is
//!   reported: the thread's stop is (its fault, panic or its block's failure).
//! * a further fault only counts (the access does nothing, a load gives zero), and the thread
//!   runs on to the end of its unwind.
//! * a failure that would unwind it (the watchdog, a misaligned access, a host failure) while
//!   it unwinds is recorded, and the thread is *abandoned*: its fiber is suspended for good
//!   and reset ([`Suspend::Abandoned`]), its stack reused, the rest of its `Drop` code never
//!   run (its future, if it has one, is forgotten, not dropped). A thread abandoned in the
//!   middle of an unwind leaves the host thread's panic count raised: later
//!   `std::thread::panicking()` calls on that worker say `true` (the scheduler's own checks
//!   use [`Stop`], not that count). While its future is only being dropped (not unwinding),
//!   such a failure unwinds out of the drop as usual: a `catch_unwind` waits there.
//!
//! What Rust itself aborts on remains: a `Drop` that panics while its thread unwinds.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, Location};

use corosensei::Coroutine;

use crate::device::backend::BarrierOp;
use crate::device::Dim3;
use crate::host::check::{synccheck, SharedShadows, Site};
use crate::host::config::Checks;
use crate::host::mem::shared_mem::SharedArena;
use crate::host::report::{Finding, Findings};
use crate::host::sched::barrier::BarrierState;
use crate::host::sched::fiber::{self, Fiber, Resume, Resumed, RunnerEnd, Suspend, Suspender};
use crate::host::sched::launch::LaunchShared;
use crate::host::sched::panics::{self, KernelAbort};
use crate::host::sched::progress::{self, BlockProgress};
use crate::host::sched::task::TaskTable;
use crate::host::sched::thread::{Exit, ThreadCtx};
use crate::host::sched::warp::{self, Arrival, Warps};
use crate::host::sched::{context, os_fiber, overflow, stuck};
use std::task::Poll;

/// Where a block stopped when [`BlockRun::drive`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Drive {
    /// Every thread has exited or failed.
    Done,
    /// Every running thread waits at a grid sync (the threads of a cooperative launch).
    GridWait,
    /// Only threads spinning at progress points can run: another block may have to run first.
    Spinning,
}

/// Where a GPU thread is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    NotStarted,
    Running,
    /// At a `sync_threads` (block barrier).
    Waiting,
    /// In a warp collective that has not completed (`warp.rs`).
    WarpWaiting,
    /// Its warp collective completed; the scheduler resumes it next.
    Ready,
    /// It yielded at a progress point (a loop that may spin, `progress.rs`); resumed once
    /// nothing else can run.
    Spinning,
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
    /// Whether a fiber is parked with this thread (it waits at a blocking barrier); a thread
    /// that waits at an awaited barrier (state-machine kernels, `task.rs`) has none.
    parked: Cell<bool>,
    /// Whether the thread made a faulting access (memcheck): it stops at its next barrier,
    /// warp collective or progress point, and its later faults and findings are dropped.
    faulted: Cell<bool>,
    /// Whether the thread is being stopped (see the module's doc).
    stop: Cell<Stop>,
}

/// How a thread is being stopped (the module's doc, "Stopping a thread").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It is not.
    No,
    /// It unwinds (the runtime stopped it, or it panicked): while `std::thread::panicking()`
    /// says so (a kernel that catches its own panic runs on normally).
    Unwinding,
    /// The scheduler drops its future (its block failed while it waited).
    Dropping,
}

impl Slot {
    fn new() -> Self {
        Slot {
            state: Cell::new(State::NotStarted),
            at: Cell::new(None),
            exit_generation: Cell::new(0),
            op: Cell::new(BarrierOp::Sync),
            predicate: Cell::new(false),
            parked: Cell::new(false),
            faulted: Cell::new(false),
            stop: Cell::new(Stop::No),
        }
    }
}

/// The function a runner fiber runs: start threads until none is left, then park.
pub(crate) type RunnerFn<'f> = dyn Fn(&BlockRun<'_>, &Suspender<'_>) -> RunnerEnd + Sync + 'f;

/// How a block's threads are represented.
pub(crate) enum Threads<'a> {
    /// Plain calls of the kernel body, on runner fibers (`runner`).
    Calls(&'a RunnerFn<'a>),
    /// Futures, one per thread, polled on runner fibers (`task_runner`).
    Tasks(Box<dyn TaskTable + 'a>),
}

/// Where the block is in starting its threads.
struct Starts {
    /// Whether a seed shuffles the start order.
    seeded: bool,
    /// Start order of the threads when a seed is set, and each thread's position in it.
    order: RefCell<Vec<u32>>,
    rank: Box<[Cell<u32>]>,
    /// How many threads have started (the next start position).
    next: Cell<usize>,
}

/// Which block a runner runs.
struct BlockId {
    /// `blockIdx`.
    idx: Cell<Dim3>,
    /// Its linear index in the grid.
    linear: Cell<u64>,
    /// How many blocks this runner has started (racecheck tells its records apart by it).
    serial: Cell<u64>,
    /// The end of the span of blocks being run ([`BlockRun::run_span`]): a block run as
    /// regions goes on to the next one below it inside its runner's call.
    span_end: Cell<u64>,
}

/// The fibers of a block runner.
struct Fibers {
    /// How the running fiber suspends (set by its runner, restored after each suspension).
    yielder: Cell<*const Suspender<'static>>,
    /// `EMU_SCHEDULE=threads`: every GPU thread runs on an OS thread of its own, and waits by
    /// blocking it (no awaited barriers).
    os_threads: bool,
    /// The fiber each waiting thread is parked on, indexed by thread. A fiber is taken out
    /// while it runs.
    parked: RefCell<Vec<Option<Fiber>>>,
    /// Runners with no thread to run, kept for the next block.
    idle: RefCell<Vec<Fiber>>,
    /// How many times a fiber parked (`park`): a runner that sees it change across a poll was
    /// parked in it (`poll_released`).
    parks: Cell<u64>,
}

/// A worker's block runner: reset for each block it runs. Keep it boxed: its fibers point to
/// it.
///
/// Its state is grouped by the module that owns it: the barrier's in `barrier::BarrierState`,
/// the warps' in `warp::Warps`, the findings in `report::Findings`. The groups are embedded,
/// not boxed: a field of a group costs what a field of `BlockRun` did.
pub(crate) struct BlockRun<'a> {
    launch: &'a LaunchShared,
    threads: Threads<'a>,
    arena: SharedArena,
    /// Which block runs: its index, linear index, and this runner's count of blocks.
    id: BlockId,
    pub(crate) slots: Box<[Slot]>,
    starts: Starts,
    current: Cell<u32>,
    failed: Cell<bool>,
    /// Whether any slot was written in this block (so the next block must reset them).
    dirty: Cell<bool>,
    fibers: Fibers,
    pub(crate) barrier: BarrierState,
    pub(crate) warps: Warps,
    findings: Findings,
    /// Spinning threads and the watchdog's view of this block (`progress.rs`).
    progress: BlockProgress,
    /// Faulting threads of this block, counted (not stored) in the launch's findings when the
    /// block ends.
    faults: Cell<u64>,
    /// The blocks a debugger watches (`DEVICEEMU_WATCH_BLOCKS`, `debugger.rs`), read when the
    /// runner is made: starting a block costs a load and a branch without them.
    watched: Option<&'static [[u32; 3]]>,
    /// Whether a thread of this block has been stopped ([`Stop`] other than `No` in a slot):
    /// until then, [`stopping`](Self::stopping) is one load.
    any_stop: Cell<bool>,
    /// Whether this block runs as barrier regions (`regions.rs`): all its threads on the
    /// runner's fiber, which a progress point must not park.
    in_regions: Cell<bool>,
    /// This runner's slot in the launch's count of ended blocks (`progress.rs`).
    done_slot: usize,
    /// Whether a lane loop's blocks may run in spans of several (`regions_span_room`).
    spans: bool,
    /// Storage for the per-thread slots of blocks run as regions, kept from block to block
    /// (`regions/slots.rs`).
    slot_pool: crate::host::sched::regions::SlotPool,
}

impl<'a> BlockRun<'a> {
    pub(crate) fn new(
        launch: &'a LaunchShared,
        threads: Threads<'a>,
    ) -> Result<Box<Self>, crate::host::report::error::Error> {
        let n = launch.block.count() as usize;
        Ok(Box::new(BlockRun {
            launch,
            threads,
            arena: SharedArena::new(launch.shared_bytes, launch.config.get_max_shared_bytes())?,
            id: BlockId {
                idx: Cell::new(Dim3::new(0, 0, 0)),
                linear: Cell::new(0),
                serial: Cell::new(0),
                span_end: Cell::new(0),
            },
            slots: (0..n).map(|_| Slot::new()).collect(),
            starts: Starts {
                seeded: launch.config.get_seed().is_some(),
                order: RefCell::new((0..n as u32).collect()),
                rank: (0..n as u32).map(Cell::new).collect(),
                next: Cell::new(0),
            },
            current: Cell::new(0),
            failed: Cell::new(false),
            dirty: Cell::new(false),
            fibers: Fibers {
                yielder: Cell::new(std::ptr::null()),
                os_threads: launch.config.get_schedule() == crate::host::config::Schedule::Threads,
                parked: RefCell::new((0..n).map(|_| None).collect()),
                idle: RefCell::new(Vec::new()),
                parks: Cell::new(0),
            },
            barrier: BarrierState::new(n),
            warps: Warps::new(n, launch.config.get_warp_size().max(1) as usize),
            findings: Findings::default(),
            progress: BlockProgress::default(),
            faults: Cell::new(0),
            watched: crate::host::sched::debugger::watched(),
            any_stop: Cell::new(false),
            in_regions: Cell::new(false),
            done_slot: launch.progress.runner_slot(),
            spans: spans_allowed(launch),
            slot_pool: Default::default(),
        }))
    }

    /// Storage for the per-thread slots of blocks run as regions (`regions/slots.rs`).
    pub(crate) fn slot_pool(&self) -> &crate::host::sched::regions::SlotPool {
        &self.slot_pool
    }

    pub(crate) fn launch(&self) -> &LaunchShared {
        self.launch
    }
    pub(crate) fn arena(&self) -> &SharedArena {
        &self.arena
    }
    pub(crate) fn block_idx(&self) -> Dim3 {
        self.id.idx.get()
    }
    /// The index of the running GPU thread.
    pub(crate) fn thread(&self) -> Dim3 {
        self.launch.thread_index(self.current.get())
    }
    /// The linear index in the block of the running GPU thread.
    #[inline(always)]
    pub(crate) fn current(&self) -> u32 {
        self.current.get()
    }
    /// What thread `t` is doing, for the debugger (the running thread excepted).
    pub(crate) fn state_of(&self, t: u32) -> State {
        match self.slots[t as usize].state.get() {
            State::NotStarted if self.started(t) => State::Exited,
            s => s,
        }
    }

    /// How many threads of this block have started.
    pub(crate) fn started_count(&self) -> usize {
        self.starts.next.get()
    }

    /// This block's spinning threads and watchdog state.
    pub(crate) fn progress(&self) -> &BlockProgress {
        &self.progress
    }

    /// Whether a thread other than the running one could run now: one not started yet, one
    /// still to be resumed in the running release, one whose collective completed, or one
    /// spinning at a progress point.
    pub(crate) fn others_can_run(&self) -> bool {
        self.starts.next.get() < self.slots.len()
            || self.barrier.release_pos.get() < self.barrier.release_len.get()
            || !self.warps.ready.borrow().is_empty()
            || self.progress.any_yielded()
    }

    /// Whether thread `t` of this block has started.
    fn started(&self, t: u32) -> bool {
        let rank = if self.starts.seeded { self.starts.rank[t as usize].get() } else { t };
        (rank as usize) < self.starts.next.get()
    }

    /// Whether thread `t` (not the running one) has exited or failed.
    pub(crate) fn has_exited(&self, t: u32) -> bool {
        matches!(self.state_of(t), State::Exited | State::Failed)
    }

    /// Thread `t`'s part in the warp collective it waits in (`warp.rs`).
    pub(crate) fn arrival(&self, t: u32) -> &Cell<Arrival> {
        &self.warps.warp_arrivals[t as usize]
    }

    /// How many `sync_warp`s the warp of thread `t` has completed in this block.
    pub(crate) fn warp_epoch(&self, t: u32) -> u32 {
        self.warps.warp_epochs[(t / self.launch.config.get_warp_size().max(1)) as usize].get()
    }

    /// A `sync_warp` of the warp of thread `t` completed.
    pub(crate) fn warp_synced(&self, t: u32) {
        let e = &self.warps.warp_epochs[(t / self.launch.config.get_warp_size().max(1)) as usize];
        e.set(e.get() + 1);
        self.warps.warp_syncs.set(self.warps.warp_syncs.get().wrapping_add(1));
    }

    /// Notes that a slot was written, so the next block resets them.
    pub(crate) fn mark_dirty(&self) {
        self.dirty.set(true);
    }
    /// What the last released barrier returns (`sync_threads_count` and friends).
    #[inline(always)]
    pub(crate) fn barrier_result(&self) -> u32 {
        self.barrier.barrier_result.get()
    }

    fn reset(&self, block_linear: u64) {
        self.in_regions.set(false);
        // Views of shared memory the block before made are stale from here on.
        self.arena.new_block();
        self.id.linear.set(block_linear);
        self.id.idx.set(self.launch.grid.unlinear(block_linear));
        if let Some(patterns) = self.watched {
            crate::host::sched::debugger::block_starts_watched(patterns, self.id.idx.get());
        }
        // Slots are only written when a thread waits, fails, or exits other than where the
        // block's first exit did before the first barrier; a block that wrote none (every
        // block of a barrier-free kernel) leaves nothing to reset.
        if self.dirty.replace(false) || self.failed.get() || self.faults.get() > 0 {
            for s in self.slots.iter() {
                s.state.set(State::NotStarted);
                s.faulted.set(false);
                s.stop.set(Stop::No);
            }
            self.any_stop.set(false);
            self.faults.set(0);
            self.warps.gathered.iter().for_each(|g| g.set(0));
        }
        self.barrier.exit0.set(None);
        if let Some(seed) = self.launch.config.get_seed() {
            let mut order = self.starts.order.borrow_mut();
            order.iter_mut().enumerate().for_each(|(i, o)| *o = i as u32);
            shuffle(&mut order, seed, block_linear, u32::MAX);
            order.iter().enumerate().for_each(|(i, &t)| self.starts.rank[t as usize].set(i as u32));
        }
        self.warps.warp_waiting.set(0);
        self.warps.mask_queries.set(0);
        self.warps.ready_rounds.set(0);
        self.warps.take_misuse();
        self.id.serial.set(self.id.serial.get() + 1);
        let checks = self.launch.config.get_checks();
        if checks.racecheck {
            self.warps.warp_epochs.iter().for_each(|e| e.set(0));
        }
        if checks.initcheck {
            if let Err(e) = self.arena.clear_init_bits() {
                self.launch.host_failure(e);
            }
        }
        self.warps.ready.borrow_mut().clear();
        self.progress.reset();
        self.starts.next.set(0);
        self.barrier.release_len.set(0);
        self.barrier.generation.set(0);
        self.failed.set(false);
        self.barrier.barrier_reported.set(false);
        self.new_generation();
    }

    fn new_generation(&self) {
        self.barrier.new_generation();
    }

    /// Whether the waiting threads might not all be at one barrier, or some thread exited
    /// since the last barrier: then the full synccheck verdict must run.
    fn needs_full_verdict(&self) -> bool {
        let exited_before_first_barrier = self.barrier.generation.get() == 0
            && self.starts.next.get() > self.barrier.arrival_count[self.barrier.parity.get()].get();
        self.barrier.mixed_sites.get() || self.barrier.exits_this_generation.get() > 0 || exited_before_first_barrier
    }

    /// Runs block `block_linear` to completion, recording its findings in the launch.
    pub(crate) fn run(&self, block_linear: u64) {
        self.reset(block_linear);
        let _ = self.drive();
        self.finish();
    }

    /// Runs blocks `first..end` in turn, recording each one's findings, until the launch
    /// stops (a host failure, the watchdog). A block run as barrier regions (`regions.rs`)
    /// goes on to the next block of the span inside its runner's call
    /// ([`regions_next_block`](Self::regions_next_block)): one fiber start, drive and switch
    /// per span instead of per block.
    pub(crate) fn run_span(&self, first: u64, end: u64) {
        self.id.span_end.set(end);
        let mut b = first;
        while b < end && !self.launch.failed_on_host() && !self.launch.progress.timed_out() {
            self.run(b);
            b = self.id.linear.get() + 1;
        }
        self.id.span_end.set(0);
    }

    /// Readies the runner for block `block_linear`, to be driven by [`drive`](Self::drive)
    /// (a cooperative launch's blocks, `launch.rs::run_cooperative`).
    pub(crate) fn begin(&self, block_linear: u64) {
        self.reset(block_linear);
    }

    /// Runs the block until it ends, or (in a cooperative launch) until every thread waits at
    /// a grid sync or only spinning threads are left, which return to the caller so that the
    /// other blocks can run.
    pub(crate) fn drive(&self) -> Drive {
        context::enter(self);
        // The monitor of blocked threads watches this host thread while it drives the block
        // (`stuck.rs`); an OS fiber's own thread is watched instead.
        if !self.fibers.os_threads {
            stuck::limit(self.launch.config.get_timeout());
            stuck::enter();
        }
        self.progress.new_turn();
        let d = self.drive_loop();
        stuck::leave();
        context::leave();
        overflow::disarm();
        d
    }

    /// Lets the threads waiting at a grid sync go on at the next [`drive`](Self::drive): every
    /// block of the launch has arrived.
    pub(crate) fn release_grid(&self) {
        self.barrier.grid_go.set(true);
    }

    /// Tells the block which blocks it is driven with (its cluster, or the grid of a
    /// cooperative launch), for distributed shared memory (`map_shared_rank`); `&[]` when the
    /// group's driver is done with them.
    pub(crate) fn set_group(&self, group: &[Box<BlockRun<'a>>]) {
        self.barrier.group.set((group.as_ptr().cast(), group.len()));
    }

    /// The block of rank `rank` in this block's group.
    fn peer(&self, rank: u32) -> Option<&BlockRun<'a>> {
        let (ptr, len) = self.barrier.group.get();
        if rank as usize >= len {
            return None;
        }
        // SAFETY: `set_group` stored a slice of the group driver's runners, which outlives every
        // `drive` of this block and is cleared (length 0) before the driver drops it; the
        // runners are only touched by the host thread that drives them, which runs this.
        Some(unsafe { &*ptr.cast::<Box<BlockRun<'a>>>().add(rank as usize) })
    }

    /// Fails the block with `finding` about its threads waiting at a grid sync that can never
    /// complete; the next [`drive`](Self::drive) unwinds them.
    pub(crate) fn fail_grid(&self, problem: String) {
        let at = self.waiting_now().first().and_then(|t| self.slots[t.get() as usize].at.get());
        let first = self.waiting_now().iter().map(Cell::get).min().unwrap_or(0);
        if let Some(at) = at {
            self.record(Finding::GridSync {
                at: crate::host::report::SourceLocation::from(at),
                thread: self.launch.thread_index(first),
                block: self.block_idx(),
                problem,
            });
        }
        self.failed.set(true);
    }

    /// Fails the block, whose threads wait at a grid or cluster sync that the watchdog found
    /// can never complete (`launch.rs::run_group`), with a timeout report saying `why`; the
    /// next [`drive`](Self::drive) unwinds them.
    pub(crate) fn fail_stuck_group(&self, why: String) {
        if let Some(first) = self.waiting_now().first() {
            let t = first.get();
            let at = self.slots[t as usize].at.get().unwrap_or(Location::caller());
            let mut f =
                progress::report(self, t, crate::host::report::SourceLocation::from(at), progress::Stuck::NoProgress);
            if let Finding::LaunchTimeout { groups, .. } = &mut f {
                if let Some(last) = groups.last_mut() {
                    *last = why;
                }
            }
            self.record(f);
        }
        self.failed.set(true);
    }

    /// Fails the block (a cooperative launch that stops early): the next
    /// [`drive`](Self::drive) unwinds its waiting threads.
    pub(crate) fn abort(&self) {
        self.failed.set(true);
    }

    /// Records the block's end in the launch: its findings and fault count.
    pub(crate) fn finish(&self) {
        warp::flush_misuse(self);
        crate::host::check::on_block_end(self);
        let block_linear = self.id.linear.get();
        self.launch.progress.block_done(self.done_slot);
        // The faults themselves (built reports are among the findings, counted there).
        self.launch.findings.count(self.faults.get(), false);
        let findings = self.findings.take();
        if !findings.is_empty() {
            self.launch.add_findings(block_linear, findings);
        }
    }

    fn drive_loop(&self) -> Drive {
        loop {
            while self.starts.next.get() < self.slots.len() && !self.failed.get() {
                let Some(f) = self.fibers.idle.borrow_mut().pop().or_else(|| self.new_runner_or_fail()) else { break };
                self.start(f);
            }
            if !self.warps.ready.borrow().is_empty() {
                if self.progress.pass() && !self.failed.get() && progress::watch_passes(self) {
                    self.failed.set(true);
                }
                self.resume_ready();
                continue;
            }
            if self.warps.mask_queries.get() > 0 && !self.failed.get() {
                warp::resolve_active_masks(self);
                continue;
            }
            // Spinning threads, once nothing else can run (and before any verdict: a thread
            // may be spinning on its way to a barrier or collective the others wait at). In a
            // cooperative launch they may wait for another block: after one round of them per
            // turn, the block gives the other blocks a turn.
            if self.progress.any_yielded() {
                if self.launch.cooperative && !self.progress.take_turn() {
                    return Drive::Spinning;
                }
                let yielded = self.progress.take_yielded();
                self.warps.ready.borrow_mut().extend(yielded);
                self.resume_ready();
                continue;
            }
            if self.warps.warp_waiting.get() + self.warps.mask_queries.get() > 0 {
                if !self.failed.replace(true) {
                    self.record(warp::deadlock(self));
                }
                self.abort_warp_waiting();
                continue;
            }
            if self.barrier.arrival_count[self.barrier.parity.get()].get() == 0 {
                break;
            }
            if self.failed.get() {
                self.resume_waiting();
                continue;
            }
            if self.needs_full_verdict() {
                if self.barrier.generation.get() == 0 {
                    self.materialize_exits();
                }
                match synccheck::verdict(self) {
                    synccheck::Verdict::Release => {}
                    synccheck::Verdict::Skipped(finding) => {
                        if !self.barrier.barrier_reported.replace(true) {
                            self.record(finding);
                        }
                    }
                    synccheck::Verdict::Deadlock(finding) => {
                        self.record(finding);
                        self.failed.set(true);
                        continue;
                    }
                }
            }
            // Passing barriers is not progress by itself: the watchdog looks now and then.
            if self.progress.pass() && progress::watch_passes(self) {
                self.failed.set(true);
                continue;
            }
            let op = self.first_site_op();
            let clustered = op == BarrierOp::Cluster && self.launch.kernel.cluster[0] != 0;
            if clustered && !self.barrier.grid_go.replace(false) {
                return Drive::GridWait;
            }
            if op == BarrierOp::Grid {
                if !self.launch.cooperative {
                    self.fail_grid(
                        "this_grid().sync() in a launch that is not cooperative; its blocks need not be resident \
                         together, so the sync might never complete (on a GPU it is undefined). Launch the kernel \
                         with launch_cooperative!"
                            .to_owned(),
                    );
                    continue;
                }
                if !self.barrier.grid_go.replace(false) {
                    return Drive::GridWait;
                }
            }
            self.release();
        }
        Drive::Done
    }

    /// Resumes the threads whose warp collective completed, in the order they completed or in
    /// the seed's order (or aborts them once the block has failed). Those may complete more
    /// collectives, and are resumed by the next call.
    fn resume_ready(&self) {
        stuck::beat();
        let mut ready = std::mem::take(&mut *self.warps.ready.borrow_mut());
        if let Some(seed) = self.launch.config.get_seed() {
            // Keyed apart from the barrier generations (small numbers) and the start order.
            let round = self.warps.ready_rounds.get();
            self.warps.ready_rounds.set(round.wrapping_add(1));
            shuffle(&mut ready, seed, self.id.linear.get(), 0x8000_0000 | round);
        }
        let list = &self.warps.ready_list[..ready.len()];
        list.iter().zip(&ready).for_each(|(c, &t)| c.set(t));
        self.warps.releasing_ready.set(true);
        self.drain_release(list);
        self.warps.releasing_ready.set(false);
        let mut queue = self.warps.ready.borrow_mut();
        if queue.is_empty() {
            // Keep the allocation for the next round.
            ready.clear();
            *queue = ready;
        }
    }

    /// Aborts every thread waiting in a warp collective (the block has failed): a parked
    /// fiber is unwound here, a waiting future is queued as ready, to be dropped by the next
    /// `resume_ready`.
    fn abort_warp_waiting(&self) {
        for t in 0..self.slots.len() as u32 {
            let s = &self.slots[t as usize];
            if s.state.get() == State::WarpWaiting {
                if s.parked.get() {
                    self.resume(t, Resume::Abort);
                } else {
                    s.state.set(State::Ready);
                    self.warps.ready.borrow_mut().push(t);
                }
            }
        }
        self.warps.warp_waiting.set(0);
        self.warps.mask_queries.set(0);
    }

    /// Writes the slots of the threads that exited at `exit0` before the first barrier (which
    /// left them untouched), so that the barrier verdict sees every exit. Runs when every
    /// thread has started.
    fn materialize_exits(&self) {
        let Some(at) = self.barrier.exit0.get() else { return };
        for s in self.slots.iter() {
            if s.state.get() == State::NotStarted {
                s.state.set(State::Exited);
                s.at.set(Some(at));
                s.exit_generation.set(0);
            }
        }
        self.dirty.set(true);
    }

    /// A new runner fiber, or `None` when the host could not make one: then the launch has the
    /// error and the block has failed.
    fn new_runner_or_fail(&self) -> Option<Fiber> {
        match self.new_runner() {
            Ok(f) => Some(f),
            Err(e) => {
                self.launch.host_failure(e);
                self.failed.set(true);
                None
            }
        }
    }

    fn new_runner(&self) -> Result<Fiber, crate::host::report::error::Error> {
        let body = move |s: &Suspender<'_>| match &self.threads {
            Threads::Calls(runner) => runner(self, s),
            Threads::Tasks(_) => task_runner(self, s),
        };
        if fiber::direct_runners() {
            return Ok(Fiber::Direct);
        }
        let limit = self.launch.config.get_timeout();
        // SAFETY (both arms): the fiber borrows `self` (boxed, so it does not move) and the
        // runner function, which lives as long as `self`. Every fiber is driven to completion
        // before `self` is dropped: threads are resumed until they exit or unwind (`run`), and
        // idle runners are finished in `Drop`.
        if self.fibers.os_threads {
            let i = self.starts.next.get();
            let t =
                if self.starts.seeded { self.starts.order.borrow().get(i).copied().unwrap_or(0) as usize } else { i };
            let name = format!("b{}t{}", self.id.linear.get(), t);
            let size = self.launch.config.get_stack_size();
            let wake = move || {
                context::enter(self);
                stuck::limit(limit);
            };
            return unsafe { fiber::spawn_os(name, size, wake, body) };
        }
        let stack = fiber::take_stack(self.launch.config.get_stack_size())?;
        Ok(Fiber::Co(unsafe { Coroutine::with_stack_unchecked(stack, move |y, _| body(&Suspender::Co(y))) }))
    }

    /// Names this OS thread after thread `t` of the block (`EMU_SCHEDULE=threads`), as it starts
    /// running it: debuggers list it as `b<block>t<thread>` (linear indices).
    #[cold]
    fn name_os_thread(&self, t: usize) {
        os_fiber::set_thread_name(&format!("b{}t{}", self.id.linear.get(), t));
    }

    /// Whether threads wait by blocking their fiber (`EMU_SCHEDULE=threads`), so that awaited
    /// barriers and collectives must block too.
    pub(crate) fn blocking_waits(&self) -> bool {
        self.fibers.os_threads
    }

    fn release(&self) {
        let op = self.first_site_op();
        if op != BarrierOp::Sync {
            let arrivals = self.waiting_now();
            let waiting = arrivals.len() as u32;
            let count = arrivals.iter().filter(|t| self.slots[t.get() as usize].predicate.get()).count() as u32;
            self.barrier.barrier_result.set(match op {
                BarrierOp::Sync | BarrierOp::Grid | BarrierOp::Cluster => 0,
                BarrierOp::Count => count,
                BarrierOp::And => (count == waiting) as u32,
                BarrierOp::Or => (count > 0) as u32,
            });
        }
        self.barrier.generation.set(self.barrier.generation.get() + 1);
        // A heartbeat for the monitor of blocked threads (`stuck.rs`).
        stuck::beat();
        self.resume_waiting();
    }

    fn first_site_op(&self) -> BarrierOp {
        self.waiting_now().first().map_or(BarrierOp::Sync, |t| self.slots[t.get() as usize].op.get())
    }

    /// The threads waiting at the current barrier, in arrival order.
    fn waiting_now(&self) -> &[Cell<u32>] {
        let p = self.barrier.parity.get();
        &self.barrier.arrivals[p][..self.barrier.arrival_count[p].get()]
    }

    /// Resumes every thread waiting at the barrier once, in arrival order or in the seed's
    /// order (`drain_release`); once the block has failed, aborts them instead.
    fn resume_waiting(&self) {
        let p = self.barrier.parity.get();
        let n = self.barrier.arrival_count[p].get();
        self.barrier.parity.set(p ^ 1);
        self.barrier.arrival_count[p ^ 1].set(0);
        self.new_generation();
        let list = &self.barrier.arrivals[p][..n];
        if self.starts.seeded {
            let mut waiting: Vec<u32> = list.iter().map(Cell::get).collect();
            let seed = self.launch.config.get_seed().unwrap_or(0);
            shuffle(&mut waiting, seed, self.id.linear.get(), self.barrier.generation.get());
            list.iter().zip(waiting).for_each(|(c, t)| c.set(t));
        }
        self.drain_release(list);
        self.barrier.arrival_count[p].set(0);
    }

    /// Resumes each thread of `list` once, in order (or aborts them once the block has
    /// failed): a thread parked on a fiber is resumed here; a run of threads waiting as
    /// futures is handed to a runner fiber, which polls them in order (`poll_released`) until
    /// it meets a parked thread or the end of the list.
    fn drain_release(&self, list: &[Cell<u32>]) {
        let n = list.len();
        self.barrier.release_pos.set(0);
        self.barrier.release_len.set(n);
        loop {
            let k = self.barrier.release_pos.get();
            if k >= n {
                break;
            }
            let t = list[k].get();
            if self.slots[t as usize].parked.get() {
                self.barrier.release_pos.set(k + 1);
                self.resume(t, if self.failed.get() { Resume::Abort } else { Resume::Continue });
            } else {
                debug_assert!(matches!(self.threads, Threads::Tasks(_)), "a waiting plain thread has a fiber");
                let Some(f) = self.fibers.idle.borrow_mut().pop().or_else(|| self.new_runner_or_fail()) else {
                    // No runner to poll it with (the block has failed): drop its future here.
                    self.barrier.release_pos.set(k + 1);
                    if let Threads::Tasks(tasks) = &self.threads {
                        self.current.set(t);
                        // On the scheduler's stack: no fiber's yielder applies.
                        let y = self.fibers.yielder.replace(std::ptr::null());
                        self.dropping(t, || {
                            let _ = panic::catch_unwind(AssertUnwindSafe(|| tasks.discard(t as usize)));
                        });
                        self.fibers.yielder.set(y);
                    }
                    self.slots[t as usize].state.set(State::Failed);
                    continue;
                };
                self.start(f);
            }
        }
        self.barrier.release_len.set(0);
    }

    /// Runs a runner fiber (new or idle) until it parks with a thread or goes idle.
    fn start(&self, mut f: Fiber) {
        if let Fiber::Direct = f {
            let body = |s: &Suspender<'_>| match &self.threads {
                Threads::Calls(runner) => runner(self, s),
                Threads::Tasks(_) => task_runner(self, s),
            };
            let end = body(&Suspender::Direct);
            return self.settle(f, Resumed::Return(end));
        }
        // Armed exactly while the fiber runs; it does not move in between (`overflow::arm`).
        overflow::arm(&f);
        let r = f.resume(Resume::Continue);
        overflow::disarm();
        self.settle(f, r);
    }

    /// Resumes the fiber parked with thread `t`, in place, until it suspends again or
    /// finishes.
    #[inline(always)]
    fn resume(&self, t: u32, input: Resume) {
        self.current.set(t);
        // The borrow is held while the fiber runs: fiber code never touches `fibers`.
        let mut fibers = self.fibers.parked.borrow_mut();
        let f = fibers[t as usize].as_mut().expect("a waiting thread has a fiber");
        // Armed exactly while the fiber runs, in place in `fibers` (`overflow::arm`).
        overflow::arm(f);
        let r = f.resume(input);
        overflow::disarm();
        // The common case: the thread went on to its next barrier on the same fiber. (A
        // runner of a state-machine kernel may instead have gone on to poll other threads and
        // parked with one of them.)
        if let Resumed::Yield(Suspend::Barrier) = r {
            if self.current.get() == t {
                return;
            }
        }
        let f = fibers[t as usize].take().expect("present");
        self.slots[t as usize].parked.set(false);
        drop(fibers);
        self.settle(f, r);
    }

    /// Puts a fiber that stopped running other than at a barrier where it belongs.
    #[cold]
    #[inline(never)]
    fn settle(&self, f: Fiber, r: Resumed) {
        match r {
            Resumed::Yield(Suspend::Barrier) => {
                let t = self.current.get() as usize;
                self.fibers.parked.borrow_mut()[t] = Some(f);
                self.slots[t].parked.set(true);
            }
            Resumed::Yield(Suspend::Idle) => self.fibers.idle.borrow_mut().push(f),
            Resumed::Yield(Suspend::Abandoned) => self.abandoned(f),
            Resumed::Return(end) => self.finished(f, end),
        }
    }

    fn finished(&self, f: Fiber, end: RunnerEnd) {
        match end {
            RunnerEnd::Done => {}
            RunnerEnd::Aborted => self.failed.set(true),
            RunnerEnd::Blocked => {
                let t = self.current.get();
                if let Threads::Tasks(tasks) = &self.threads {
                    tasks.abandon(t as usize);
                }
                let s = &self.slots[t as usize];
                s.state.set(State::Failed);
                self.dirty.set(true);
                let k = self.launch.kernel;
                let at = s.at.get().map_or_else(
                    || crate::host::report::SourceLocation { file: k.file.to_owned(), line: k.line, column: 1 },
                    crate::host::report::SourceLocation::from,
                );
                self.record(progress::report(self, t, at, progress::Stuck::Blocked));
                self.launch.progress.stop_launch();
                self.failed.set(true);
            }
            RunnerEnd::StackOverflow => {
                let t = self.current.get();
                if let Threads::Tasks(tasks) = &self.threads {
                    tasks.abandon(t as usize);
                }
                self.slots[t as usize].state.set(State::Failed);
                self.record(Finding::StackOverflow {
                    thread: self.thread(),
                    block: self.block_idx(),
                    stack_size: self.launch.config.get_stack_size(),
                });
                self.failed.set(true);
            }
        }
        if let Some(stack) = f.into_stack() {
            fiber::give_back(stack);
        }
    }

    /// Records a finding that does not stop the block (initcheck, racecheck), once per kind
    /// and call site (pair of sites for a race): a repeat only adds to the first one's count.
    pub(crate) fn note(&self, f: Finding) {
        let t = self.launch.block.linear(f.thread()) as u32;
        if !self.slots[t as usize].faulted.get() {
            self.findings.note(t, f);
        }
    }

    /// Records `f` (dropped if its thread faulted before: what it does after its fault is not
    /// the kernel's behaviour).
    fn record(&self, f: Finding) {
        let t = self.launch.block.linear(f.thread()) as u32;
        if !self.slots[t as usize].faulted.get() {
            self.findings.record(t, f);
        }
    }

    /// Records `finding` for the running thread, fails the block and unwinds the thread. A
    /// faulted thread is stopped instead.
    pub(crate) fn fail(&self, finding: Finding) -> ! {
        self.stop_if_faulted();
        self.record(finding);
        self.failed.set(true);
        self.unwind(KernelAbort)
    }

    /// Whether thread `t` made a faulting access in this block (memcheck).
    pub(crate) fn faulted(&self, t: u32) -> bool {
        self.slots.get(t as usize).is_some_and(|s| s.faulted.get())
    }

    /// Stops the running thread if it made a faulting access: called where a thread waits
    /// (barriers, warp collectives, progress points), it ends the thread as if it had exited
    /// there, and the block goes on.
    #[inline(always)]
    pub(crate) fn stop_if_faulted(&self) {
        let s = &self.slots[self.current.get() as usize];
        if s.faulted.get() && s.stop.get() == Stop::No {
            self.stop_faulted();
        }
    }

    /// memcheck's [`Site::fault`] for the running thread.
    #[inline(always)]
    fn fault(&self) -> crate::host::check::Fault {
        use crate::host::check::Fault;
        if self.slots[self.current.get() as usize].faulted.replace(true) {
            return Fault::Repeat;
        }
        self.faults.set(self.faults.get() + 1);
        if self.launch.findings.would_keep(self.id.linear.get()) {
            Fault::Report
        } else {
            Fault::Count
        }
    }

    /// After the running thread's fault: stops it now while the launch has had fewer than
    /// `UNWIND_LIMIT` faults.
    fn after_fault(&self) {
        // (A block run as barrier regions catches the stop in its region loop, `regions.rs`.)
        // A thread being stopped runs on to the end of its stop.
        if !self.stopping() && self.launch.stop_at_fault() {
            self.stop_faulted();
        }
    }

    /// Stores the report of the running thread's fault in the launch (counted in `faults`).
    fn keep_fault(&self, f: Finding) {
        self.launch.findings.offer(self.id.linear.get(), self.current.get(), f);
    }

    /// Runs the threads not started yet, one after another, on the calling fiber: the hot
    /// loop of kernels without barriers, so it does as little as it can per thread. A thread
    /// that reaches a barrier suspends this fiber inside `body`; a failing thread unwinds out
    /// (so the block cannot become failed while this loop goes on).
    ///
    /// `start(t, ctx)` runs thread `t` until it ends (`Ready` with its exit position) or waits
    /// at an awaited barrier (`Pending`): a plain call of the kernel, or the first poll of the
    /// thread's future.
    #[inline(always)]
    fn run_threads<S: Fn(usize, ThreadCtx) -> Poll<Exit>>(&self, start: &S) {
        if self.failed.get() {
            return;
        }
        let index = self.launch.thread_indices();
        let b = self.launch.block;
        match (self.starts.seeded, b.y == 1 && b.z == 1) {
            (false, true) => self.run_threads_in(start, |i| i, |t| Dim3::new(t as u32, 0, 0)),
            (false, false) => self.run_threads_in(start, |i| i, |t| index[t]),
            (true, _) => self.run_threads_in(start, |i| self.starts.order.borrow()[i] as usize, |t| index[t]),
        }
    }

    /// The start loop: `order` maps start positions to threads, `index` threads to their
    /// `threadIdx` (computed for 1-D blocks, so that the kernel's index arithmetic folds into
    /// the loop).
    #[inline(always)]
    fn run_threads_in<S: Fn(usize, ThreadCtx) -> Poll<Exit>>(
        &self,
        start: &S,
        order: impl Fn(usize) -> usize,
        index: impl Fn(usize) -> Dim3,
    ) {
        let slots = &*self.slots;
        let ctx = self.ctx(Dim3::new(0, 0, 0));
        loop {
            let i = self.starts.next.get();
            if i >= slots.len() {
                return;
            }
            // Published before the thread runs: the scheduler reads it if the thread suspends.
            self.starts.next.set(i + 1);
            let t = order(i);
            self.current.set(t as u32);
            if let Poll::Ready(at) = start(t, ThreadCtx { thread_idx: index(t), ..ctx }) {
                self.ended(&slots[t], at);
            }
        }
    }

    /// The indices thread `thread_idx` of this block runs with.
    #[inline(always)]
    fn ctx(&self, thread_idx: Dim3) -> ThreadCtx {
        ThreadCtx {
            thread_idx,
            block_idx: self.id.idx.get(),
            block_dim: self.launch.block,
            grid_dim: self.launch.grid,
            warp_mask: self.warp_mask(),
        }
    }

    /// The launch's warp size less one (warp sizes are powers of two, 32 or 1): a thread's
    /// lane is its linear index masked by it.
    #[inline(always)]
    pub(crate) fn warp_mask(&self) -> u32 {
        self.launch.config.get_warp_size().max(1) - 1
    }

    /// Records that the thread of `s` ran to its end at `at`.
    #[inline(always)]
    fn ended(&self, s: &Slot, at: Exit) {
        // While no slot of the block has been written (so still before the first barrier, and
        // no thread waits in a warp collective), a thread that exits where the first one did
        // leaves its slot untouched: the hot path of barrier-free kernels.
        if !self.dirty.get() {
            match self.barrier.exit0.get() {
                Some(first) if std::ptr::eq(first, at) => return,
                None => {
                    self.barrier.exit0.set(Some(at));
                    return;
                }
                Some(_) => {}
            }
        }
        self.ended_slow(s, at);
    }

    /// `ended` once slots have been written: an untouched slot may still take the shortcut
    /// before the first barrier, and a thread that wrote its slot (it took part in a warp
    /// collective) has its exit recorded; then the collectives of its warp that wait for it
    /// are re-checked.
    #[cold]
    #[inline(never)]
    fn ended_slow(&self, s: &Slot, at: Exit) {
        let shortcut = self.barrier.generation.get() == 0
            && s.state.get() == State::NotStarted
            && match self.barrier.exit0.get() {
                Some(first) => std::ptr::eq(first, at),
                None => {
                    self.barrier.exit0.set(Some(at));
                    true
                }
            };
        if !shortcut {
            self.exited(s, at);
        }
        if self.warps.warp_waiting.get() != 0 {
            warp::lane_exited(self, self.current.get());
        }
    }

    /// Records in its slot that the thread of `s` exited at `at`.
    #[cold]
    #[inline(never)]
    fn exited(&self, s: &Slot, at: Exit) {
        self.dirty.set(true);
        s.state.set(State::Exited);
        s.at.set(Some(at));
        // Before the first barrier (generation 0, the common case) the generation is the
        // slot's reset value, and the exits are counted as started minus waiting threads (see
        // `needs_full_verdict`).
        let g = self.barrier.generation.get();
        s.exit_generation.set(g);
        self.progress.event();
        if g != 0 {
            self.barrier.exits_this_generation.set(self.barrier.exits_this_generation.get() + 1);
        }
    }

    /// Polls the released threads that wait as futures, in release order, up to the first
    /// one parked on a fiber (the scheduler resumes that one) or the end of the list. Once the
    /// block has failed, drops their futures instead.
    fn poll_released(&self, tasks: &dyn TaskTable) {
        let mut list = self.release_list();
        loop {
            let k = self.barrier.release_pos.get();
            if k >= self.barrier.release_len.get() {
                return;
            }
            let t = list[k].get() as usize;
            let s = &self.slots[t];
            if s.parked.get() {
                return;
            }
            self.barrier.release_pos.set(k + 1);
            self.current.set(t as u32);
            let parks = self.fibers.parks.get();
            if self.failed.get() {
                self.dropping(t as u32, || tasks.discard(t));
                s.state.set(State::Failed);
            } else if let Poll::Ready(at) = tasks.poll(t) {
                self.ended(s, at);
            }
            // This runner was parked inside the poll (a blocking barrier or collective) and
            // resumed in a later release, of another list: look it up again. (Other fibers run
            // only while this one is parked, so the count changes only then.)
            if self.fibers.parks.get() != parks {
                list = self.release_list();
            }
        }
    }

    /// The list the running release resumes threads from.
    fn release_list(&self) -> &[Cell<u32>] {
        if self.warps.releasing_ready.get() {
            &self.warps.ready_list
        } else {
            &self.barrier.arrivals[self.barrier.parity.get() ^ 1]
        }
    }

    /// Cleans up after the running thread unwound: `true` if it was a faulted thread that
    /// stopped (it now counts as exited, and the block goes on), `false` if the block failed.
    #[cold]
    fn thread_unwound(&self, payload: Box<dyn Any + Send>) -> bool {
        let t = self.current.get();
        let s = &self.slots[t as usize];
        if s.faulted.get() && payload.downcast_ref::<KernelAbort>().is_none() {
            // Stopped at a wait (`ThreadStop`), or a panic of what it computed after its
            // fault, which is not the kernel's behaviour (and not reported).
            let _ = panics::take();
            self.dirty.set(true);
            s.state.set(State::Exited);
            s.at.set(None);
            let g = self.barrier.generation.get();
            s.exit_generation.set(g);
            self.progress.event();
            if g != 0 {
                self.barrier.exits_this_generation.set(self.barrier.exits_this_generation.get() + 1);
            }
            if self.warps.warp_waiting.get() != 0 {
                warp::lane_exited(self, t);
            }
            return true;
        }
        s.state.set(State::Failed);
        self.failed.set(true);
        if payload.downcast_ref::<KernelAbort>().is_some() {
            return false; // already recorded, or the block is being aborted
        }
        let (message, at) = panics::take().unwrap_or_else(|| (panics::message(&*payload), None));
        self.record(Finding::Panic { message, at, thread: self.thread(), block: self.block_idx() });
        false
    }
}

/// What the checkers see of the running block (`check::Site`).
impl Site for BlockRun<'_> {
    fn host_failure(&self, e: crate::host::report::error::Error) -> ! {
        crate::host::sched::launch::host_failure_in_kernel(self, e)
    }
    #[inline(always)]
    fn current(&self) -> u32 {
        self.current.get()
    }
    fn thread_index(&self, t: u32) -> Dim3 {
        self.launch.thread_index(t)
    }
    fn block_idx(&self) -> Dim3 {
        self.id.idx.get()
    }
    fn linear_index(&self) -> u64 {
        self.id.linear.get()
    }
    fn block_of(&self, linear: u64) -> Dim3 {
        self.launch.grid.unlinear(linear)
    }
    fn serial(&self) -> u64 {
        self.id.serial.get()
    }
    fn launch_serial(&self) -> u64 {
        self.launch().serial
    }
    fn generation(&self) -> u32 {
        self.barrier.generation.get()
    }
    fn warp_epoch(&self, t: u32) -> u32 {
        BlockRun::warp_epoch(self, t)
    }
    #[inline(always)]
    fn warp_syncs(&self) -> u32 {
        self.warps.warp_syncs.get()
    }
    fn warp_size(&self) -> u32 {
        self.launch.config.get_warp_size().max(1)
    }
    fn checks(&self) -> Checks {
        self.launch.config.get_checks()
    }
    fn shared(&self) -> SharedShadows<'_> {
        let a = &self.arena;
        SharedShadows { base: a.base(), size: a.size(), init: a.init_bits(), race: a.race_shadow() }
    }
    // racecheck's hook for distributed shared memory: the peer whose arena holds `address`.
    fn shared_at(&self, address: usize) -> Option<(SharedShadows<'_>, u64)> {
        let (_, len) = self.barrier.group.get();
        let peer = (0..len as u32)
            .filter_map(|r| self.peer(r))
            .find(|p| (p.arena.base()..p.arena.base() + p.arena.size()).contains(&address))?;
        Some((Site::shared(peer), peer.id.serial.get()))
    }
    fn note(&self, f: Finding) {
        BlockRun::note(self, f)
    }
    fn fail(&self, f: Finding) -> ! {
        BlockRun::fail(self, f)
    }
    #[inline(always)]
    fn fault(&self) -> crate::host::check::Fault {
        BlockRun::fault(self)
    }
    fn keep_fault(&self, f: Finding) {
        BlockRun::keep_fault(self, f)
    }
    fn after_fault(&self) {
        BlockRun::after_fault(self)
    }
}

/// What synccheck sees of the block at a barrier: its thread slots.
impl synccheck::Barrier for BlockRun<'_> {
    fn threads(&self) -> u32 {
        self.slots.len() as u32
    }
    fn block_dim(&self) -> Dim3 {
        self.launch.block
    }
    fn waiting_at(&self, t: u32) -> Option<&'static Location<'static>> {
        let s = &self.slots[t as usize];
        (s.state.get() == State::Waiting).then(|| s.at.get().expect("a waiting thread records its barrier"))
    }
    fn exit_of(&self, t: u32) -> Option<(u32, Option<&'static Location<'static>>)> {
        let s = &self.slots[t as usize];
        (s.state.get() == State::Exited).then(|| (s.exit_generation.get(), s.at.get()))
    }
    fn kernel_span(&self) -> (&'static str, u32, u32) {
        let k = self.launch.kernel;
        (k.file, k.line, k.end_line)
    }
}

impl Drop for BlockRun<'_> {
    fn drop(&mut self) {
        // Finish the idle runners: resumed with `Abort` while idle, a runner returns.
        for mut f in self.fibers.idle.get_mut().drain(..).collect::<Vec<_>>() {
            if let Resumed::Return(_) = f.resume(Resume::Abort) {
                if let Some(stack) = f.into_stack() {
                    fiber::give_back(stack);
                }
            }
        }
    }
}

/// The loop of every runner fiber: do `work` (start threads, poll released ones) until there
/// is none left, then park as idle until there is more (or the launch ends). A thread that
/// panics, or is unwound by an abort, ends the fiber after `unwound` cleaned up after it.
///
/// With `EMU_SCHEDULE=threads` a runner is an OS thread, named after the GPU thread it runs
/// (`b<block>t<thread>`, renamed as it starts each one, `emu-idle` while idle): a GPU thread
/// that waits keeps its OS thread, and the runners go on with the others on new or idle ones,
/// as fibers do. So every live GPU thread has an OS thread of its own, and a launch starts
/// about as many OS threads as GPU threads wait at once, not one per GPU thread.
#[inline(never)]
fn runner_loop(block: &BlockRun<'_>, y: &Suspender<'_>, work: impl Fn(), unwound: impl Fn(usize)) -> RunnerEnd {
    let y_ptr = (y as *const Suspender<'_>).cast::<Suspender<'static>>();
    loop {
        block.fibers.yielder.set(y_ptr);
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(&work)) {
            unwound(block.current.get() as usize);
            if !block.thread_unwound(payload) {
                return RunnerEnd::Aborted;
            }
            // A faulted thread stopped: go on with the others.
            continue;
        }
        if block.fibers.os_threads {
            os_fiber::set_thread_name("emu-idle");
        }
        match y.suspend(Suspend::Idle) {
            Resume::Continue => {}
            Resume::Abort => return RunnerEnd::Done,
        }
    }
}

/// The body of every runner fiber of a plain kernel: run threads as calls of `body`.
pub(crate) fn runner<F: Fn(ThreadCtx) -> Exit>(block: &BlockRun<'_>, body: &F, y: &Suspender<'_>) -> RunnerEnd {
    if block.fibers.os_threads {
        let start = |t: usize, ctx| {
            block.name_os_thread(t);
            Poll::Ready(body(ctx))
        };
        return runner_loop(block, y, || block.run_threads(&start), |_| {});
    }
    runner_loop(block, y, || block.run_threads(&|_, ctx| Poll::Ready(body(ctx))), |_| {})
}

/// The body of every runner fiber of a state-machine kernel: start threads as futures, and
/// poll released ones.
fn task_runner(block: &BlockRun<'_>, y: &Suspender<'_>) -> RunnerEnd {
    let Threads::Tasks(tasks) = &block.threads else { unreachable!("a task runner in a block of plain threads") };
    let tasks = &**tasks;
    runner_loop(
        block,
        y,
        || {
            if block.fibers.os_threads {
                // Its waits block (`blocking_waits`): each thread runs to its end here.
                block.run_threads(&|t, ctx| {
                    block.name_os_thread(t);
                    tasks.start(t, ctx)
                });
                return;
            }
            block.run_threads(&|t, ctx| tasks.start(t, ctx));
            block.poll_released(tasks);
        },
        // The future panicked (or was unwound by an abort) inside its poll: drop what is
        // left of it.
        |t| {
            block.dropping(t as u32, || {
                let _ = panic::catch_unwind(AssertUnwindSafe(|| tasks.discard(t)));
            });
        },
    )
}

/// Records that the running thread of `block` waits at the barrier at `at`.
#[inline(always)]
pub(crate) fn arrive(block: &BlockRun<'_>, op: BarrierOp, predicate: bool, at: &'static Location<'static>) {
    let t = block.current.get();
    let slot = &block.slots[t as usize];
    // A thread that faulted stops here (memcheck).
    block.stop_if_faulted();
    block.dirty.set(true);
    slot.state.set(State::Waiting);
    slot.at.set(Some(at));
    slot.op.set(op);
    slot.predicate.set(predicate);
    block.barrier.arrive(t, at);
}

/// `sync_threads` and its count/and/or forms on the host: record where the thread waits and
/// suspend its fiber until the scheduler releases (or aborts) it.
pub(crate) fn barrier(op: BarrierOp, predicate: bool, at: &'static Location<'static>) -> u32 {
    let block = context::block_for("sync_threads");
    if block.stopping() {
        // What a block of this one thread would give (the module's doc, "Stopping a thread").
        return match op {
            BarrierOp::Sync | BarrierOp::Grid | BarrierOp::Cluster => 0,
            BarrierOp::Count | BarrierOp::And | BarrierOp::Or => predicate as u32,
        };
    }
    arrive(block, op, predicate, at);
    block.park();
    block.slots[block.current.get() as usize].state.set(State::Running);
    block.barrier.barrier_result.get()
}

/// The most blocks a lane loop's span form runs at once (`regions_span_room`): the most a
/// worker takes at a time (`launch.rs`).
const SPAN_BLOCKS: u64 = 64;

/// Whether a launch's lane loop may run its blocks in spans (`fission/spans.rs`): blocks of
/// one dimension and at most `LANE_CHUNK` threads, so that a span's chunks hold whole blocks;
/// no checker (each sees its blocks one by one), no seed (threads run in index order), no
/// debugger watch (it sees each block start), and the tier on (`EMU_TIERS_OFF=spans`).
fn spans_allowed(launch: &LaunchShared) -> bool {
    let (b, c) = (launch.block, &launch.config);
    b.y == 1
        && b.z == 1
        && b.x as usize <= crate::host::sched::regions::fast::LANE_CHUNK
        && !crate::host::check::any(c.get_checks())
        && c.get_seed().is_none()
        && c.get_tiers_off() & crate::host::config::Tier::Spans.bit() == 0
        && crate::host::sched::debugger::watched().is_none()
}

/// What a block run as barrier regions (`regions.rs`) needs of the runner: it runs inside
/// the first thread's call, on the runner fiber, and names each thread as it runs it.
impl BlockRun<'_> {
    /// Marks every thread of the block started (the regions run them all) and returns the
    /// start order when a seed shuffles it.
    pub(crate) fn regions_take_starts(&self) -> Option<Vec<u32>> {
        self.in_regions.set(true);
        self.starts.next.set(self.slots.len());
        self.starts.seeded.then(|| self.starts.order.borrow().clone())
    }
    /// Whether this block runs as barrier regions (a helper's progress point then only lets
    /// the watchdog look, as a region's does: `progress::point`).
    #[inline(always)]
    pub(crate) fn runs_regions(&self) -> bool {
        self.in_regions.get()
    }
    /// Makes `t` the running thread (checkers and reports name it).
    #[inline(always)]
    pub(crate) fn regions_set_current(&self, t: u32) {
        self.current.set(t);
    }
    /// Records a finding that does not stop the block (a skipped barrier).
    pub(crate) fn regions_record(&self, f: Finding) {
        self.record(f);
    }
    /// How many of the block's threads have faulted so far (a region compares it before and
    /// after, and drops the faulted threads from the running order).
    #[inline(always)]
    pub(crate) fn regions_faults(&self) -> u64 {
        self.faults.get()
    }
    /// How many blocks from the running one a lane loop's span form may run at once
    /// (`regions/mod.rs`, `run_blocks`): those left in this runner's span of the grid's row,
    /// at most [`SPAN_BLOCKS`]; 0 where the launch takes no spans ([`spans_allowed`]).
    #[inline(always)]
    pub(crate) fn regions_span_room(&self) -> u64 {
        if !self.spans {
            return 0;
        }
        let linear = self.id.linear.get();
        let row = u64::from(self.launch.grid.x);
        (self.id.span_end.get().saturating_sub(linear)).min(row - linear % row).min(SPAN_BLOCKS)
    }
    /// A span form ran the `done` blocks from the running one (at least one, inside
    /// [`regions_span_room`](Self::regions_span_room)): the last of them becomes the running
    /// block, which ends as any block run as regions does, and the others are counted as
    /// ended. They recorded nothing: a span runs no checker, and a chunk that panics leaves
    /// its blocks to be run alone.
    pub(crate) fn regions_span_done(&self, done: u64) {
        debug_assert!(done >= 1);
        let last = self.id.linear.get() + done - 1;
        self.launch.progress.add_blocks_done(self.done_slot, done - 1);
        self.id.linear.set(last);
        self.id.idx.set(self.launch.grid.unlinear(last));
        self.id.serial.set(self.id.serial.get() + done - 1);
    }
    /// The running block, run as regions, has ended: records it as [`run`](Self::run) would
    /// and begins the next block of the span ([`run_span`](Self::run_span)), still inside the
    /// runner's call. `false` (nothing done) at the span's end, when the block failed (its
    /// runner ends it as usual), or when the launch stops.
    pub(crate) fn regions_next_block(&self) -> bool {
        let next = self.id.linear.get() + 1;
        if next >= self.id.span_end.get()
            || self.failed.get()
            || self.launch.failed_on_host()
            || self.launch.progress.timed_out()
        {
            return false;
        }
        self.finish();
        self.reset(next);
        stuck::beat();
        // What `drive` does on entry: `block_idx()` in helpers and macros reads it.
        context::enter(self);
        self.progress.new_turn();
        true
    }
    /// The barrier at `at` completed: the generation moves on, and now and then the watchdog
    /// looks (passing barriers is not progress by itself, `progress.rs`).
    #[inline(always)]
    pub(crate) fn regions_released(&self, at: &'static Location<'static>) -> u32 {
        let g = self.barrier.generation.get() + 1;
        self.barrier.generation.set(g);
        if self.progress.pass() {
            progress::watch_region_barrier(self, at);
        }
        g
    }

    /// Records the watchdog's report, made from the scheduler (`progress::watch_passes`).
    pub(crate) fn record_stuck(&self, f: Finding) {
        self.record(f);
    }
}

impl BlockRun<'_> {
    /// Suspends the running thread's fiber until the scheduler resumes it; unwinds the thread
    /// if it is resumed with `Abort`. Its slot must already say what it waits for.
    pub(crate) fn park(&self) {
        debug_assert!(!self.stopping(), "a thread being stopped never waits");
        self.fibers.parks.set(self.fibers.parks.get().wrapping_add(1));
        let y = self.fibers.yielder.get();
        // SAFETY: `yielder` belongs to the fiber running this code: the runner sets it when
        // it starts a thread, and it is restored below each time this fiber is resumed. A
        // running fiber's yielder is alive.
        let resume = unsafe { &*y }.suspend(Suspend::Barrier);
        self.fibers.yielder.set(y);
        if resume == Resume::Abort {
            self.unwind(KernelAbort)
        }
    }

    /// Whether the running thread is being stopped (the module's doc, "Stopping a thread"):
    /// then it must not wait, and must not be unwound again.
    #[inline(always)]
    pub(crate) fn stopping(&self) -> bool {
        self.any_stop.get() && self.stopping_slow()
    }

    #[cold]
    #[inline(never)]
    fn stopping_slow(&self) -> bool {
        match self.slots[self.current.get() as usize].stop.get() {
            Stop::No => false,
            Stop::Unwinding => std::thread::panicking(),
            Stop::Dropping => true,
        }
    }

    /// The running thread panicked (the panic hook): it unwinds from now on.
    pub(crate) fn panicking_now(&self) {
        self.slots[self.current.get() as usize].stop.set(Stop::Unwinding);
        self.any_stop.set(true);
        self.dirty.set(true);
    }

    /// Unwinds the running thread with `payload`; a thread already being stopped is
    /// abandoned instead (its `Drop` code reached a failure: unwinding again would abort).
    #[cold]
    #[inline(never)]
    pub(crate) fn unwind<P: Any + Send>(&self, payload: P) -> ! {
        // Unwinding out of a `Drop` run by an unwind aborts; out of a future being dropped (a
        // plain drop, inside a `catch_unwind`) it does not.
        if self.stopping() && std::thread::panicking() {
            self.abandon_running();
        }
        self.slots[self.current.get() as usize].stop.set(Stop::Unwinding);
        self.any_stop.set(true);
        self.dirty.set(true);
        panic::resume_unwind(Box::new(payload))
    }

    /// Stops the running thread, which made a faulting access: unwinds it to its runner, which
    /// records it as exited (`thread_unwound`).
    #[cold]
    #[inline(never)]
    fn stop_faulted(&self) -> ! {
        self.unwind(panics::ThreadStop)
    }

    /// Runs `f`, which drops thread `t`'s future, with `t` marked as being stopped.
    fn dropping(&self, t: u32, f: impl FnOnce()) {
        let s = &self.slots[t as usize];
        let before = s.stop.replace(Stop::Dropping);
        self.any_stop.set(true);
        self.dirty.set(true);
        f();
        s.stop.set(before);
    }

    /// Suspends the running thread's fiber for good: it was being stopped and failed again.
    /// The scheduler marks it failed and resets the fiber (`abandoned`).
    #[cold]
    fn abandon_running(&self) -> ! {
        let y = self.fibers.yielder.get();
        // SAFETY: as in `park`: a non-null yielder is the one of the fiber running this code
        // (it is null while the scheduler runs a thread's drop on its own stack).
        let y = unsafe { y.as_ref() };
        let Some(y) = y.filter(|y| !matches!(y, Suspender::Direct)) else {
            // No fiber to leave (a direct runner under miri, or a drop run by the scheduler whose
            // own `Drop` panicked and then failed again): nothing else can end this thread.
            eprintln!("deviceemu: a GPU thread failed again while it was unwinding, with no fiber to leave; aborting");
            std::process::abort();
        };
        loop {
            let _ = y.suspend(Suspend::Abandoned);
        }
    }

    /// Settles a fiber whose thread was abandoned (`abandon_running`): the thread failed, its
    /// future (if any) is forgotten, and its stack reused.
    #[cold]
    fn abandoned(&self, f: Fiber) {
        let t = self.current.get();
        if let Threads::Tasks(tasks) = &self.threads {
            tasks.abandon(t as usize);
        }
        self.slots[t as usize].state.set(State::Failed);
        self.failed.set(true);
        self.fibers.yielder.set(std::ptr::null());
        if let Some(stack) = f.abandon() {
            fiber::give_back(stack);
        }
    }
}

/// `cluster.map_shared_rank(view, rank)` on the host: the same part of the same shared array in
/// the block of rank `rank` of the running block's cluster.
#[track_caller]
pub(crate) fn map_shared_rank<'v, T: crate::device::DeviceCopy>(
    view: &crate::device::Shared<'v, T>,
    rank: u32,
    at: &'static Location<'static>,
) -> crate::device::Shared<'v, T> {
    let block = context::block_for("map_shared_rank");
    let clustered = block.launch.kernel.cluster[0] != 0;
    if !clustered && rank == 0 {
        return *view; // a cluster of one block
    }
    let problem = match if clustered { block.peer(rank) } else { None } {
        None => format!(
            "map_shared_rank: rank {rank} is outside the cluster, which has {} block(s) ({})",
            block.launch.kernel.cluster_dim().count(),
            if block.launch.kernel.cluster[0] == 0 {
                "the kernel has no #[kernel(cluster(..))] shape".to_owned()
            } else {
                format!("shape {}", block.launch.kernel.cluster_dim())
            }
        ),
        Some(peer) => match peer.arena.mirror(&block.arena, view) {
            Some(v) => return v,
            None => {
                "map_shared_rank takes a view of a shared array (shared_array! or dynamic_shared) of the calling block"
                    .to_owned()
            }
        },
    };
    block.fail(Finding::Panic {
        message: problem,
        at: Some(crate::host::report::SourceLocation::from(at)),
        thread: block.thread(),
        block: block.block_idx(),
    })
}

/// Deterministic Fisher–Yates shuffle keyed by (seed, block, generation).
pub(crate) fn shuffle<T>(v: &mut [T], seed: u64, block: u64, generation: u32) {
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
