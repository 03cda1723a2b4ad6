//! Forward progress and the watchdog.
//!
//! **The guarantee.** Since Volta, CUDA schedules the threads of a warp independently and
//! promises starvation-free progress: a thread that spins on a flag another thread of its block
//! (or an earlier block of its grid) sets will see it. The emulator runs a block's threads one at
//! a time, so a spinning thread must make room for the others. `#[kernel]` and `#[device]` put a
//! *progress point* at the head of every `while` and `loop` body of the host form (a `for` loop
//! over a finite iterator ends on its own and is left alone): a counter in a local variable,
//! and every [`INTERVAL`] iterations a call of the slow path here, which
//!
//! 1. asks the watchdog whether the launch is still making progress (below), and
//! 2. if another thread of the block can run (one not started yet, one released, or another
//!    spinning one), *yields*: the thread is queued as spinning and its fiber parks (or, in a
//!    state-machine kernel, its future returns `Pending`); the scheduler runs the others and
//!    resumes spinning threads once nothing else can run, before any barrier verdict.
//!
//! A spin on a flag set by a thread of the same warp, another warp, or an earlier block then
//! completes under every seed, block order and schedule. Across blocks, the launcher hands
//! blocks out in increasing order (`launch.rs`), so the lowest unfinished block has every
//! earlier block finished and always runs: decoupled look-back (CUB's single-pass scan) works.
//! A block that waits for a *later* block has no guarantee in CUDA either (the later block may
//! not be resident); the emulator runs it as long as that later block can run beside it
//! (parallel blocks), and otherwise the watchdog stops the launch.
//!
//! **Progress**, for the watchdog, is any of: a thread of the block started or exited; a block
//! of the launch ended; in a cooperative launch, a thread of another block of the grid started
//! or exited; or the device memory kernels can write changed (a fingerprint of every
//! `DeviceBuffer`, the `#[device_global]` statics kernels used and the block's shared memory,
//! `mem/fingerprint.rs`). Passing a barrier or completing a warp collective is *not* progress
//! in itself: a loop that passes barriers forever with nothing written (`while
//! f.volatile_load(0) == 0 { sync_threads(); }`) hangs on a GPU, while an iterative stencil
//! passes as many barriers and writes its grid at every step. The watchdog looks at a block at
//! its threads' progress points and every [`PASS_INTERVAL`] barrier releases or completed
//! collectives. When nothing has progressed for `EMU_TIMEOUT / 2` seconds (default 60,
//! [`Config::timeout`]) it takes a fingerprint of the memory, and when nothing has progressed
//! for `EMU_TIMEOUT` seconds and the memory is the same another `EMU_TIMEOUT / 2` seconds later,
//! the block is *stuck*: it reports `Launch timeout` with every live thread's state and line,
//! grouped as ranges, and the launch returns error 702 (`cudaErrorLaunchTimeout`). Memory that
//! changed starts a new window. The other blocks notice that the launch has timed out at their
//! next progress point or barrier and report too; blocks not started yet are not run.
//!
//! What the rule cannot tell apart: a loop that writes only what is already there (a
//! converged solver iterating on) or only into its threads' own variables looks stuck once it
//! has done so for `EMU_TIMEOUT` seconds, as a single thread computing in registers for that
//! long always did; and a spin that writes a changing value (a counter of its attempts) looks
//! busy forever. For the second, the launch's *wall-clock bound* (`EMU_LAUNCH_TIMEOUT`, default
//! 24 hours, [`Config::launch_timeout`]) stops any launch that runs longer, at its next progress
//! point or barrier; and a GPU thread that reaches no scheduling point at all for `EMU_TIMEOUT`
//! seconds because it is blocked in a system call (`std::thread::sleep`, a lock) is stopped by
//! the monitor of `stuck.rs`. Loops in functions without `#[device]` have no progress points:
//! they can neither yield nor be stopped, except by that monitor while blocked in a system
//! call.
//!
//! [`Config::timeout`]: crate::Config::timeout
//! [`Config::launch_timeout`]: crate::Config::launch_timeout

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::device::backend::BarrierOp;
use crate::host::mem::fingerprint;

use crate::host::report::{thread_ranges, Finding, SourceLocation};
use crate::host::sched::block::{BlockRun, State};

/// Loop iterations between two calls of the slow path.
pub(crate) const INTERVAL: u32 = 64;

/// Slots of [`LaunchProgress`]'s count of ended blocks: one per runner, up to this many.
const DONE_SLOTS: usize = 16;

/// A counter on a cache line (two, for the adjacent-line prefetcher) of its own.
#[derive(Debug)]
#[repr(align(128))]
struct Padded(AtomicU64);

/// What a launch's blocks share for the watchdog.
#[derive(Debug)]
pub(crate) struct LaunchProgress {
    /// When the launch started (the wall-clock bound).
    started: Instant,
    /// Blocks that ended, counted by each runner in its own slot (`runner_slot`): a shared
    /// counter that every block adds to moves its cache line between the workers' cores once a
    /// block, which cost a barrier-free launch of 256-thread blocks 15% of its time on two
    /// cores. The watchdog reads their sum.
    blocks_done: [Padded; DONE_SLOTS],
    /// The next runner's slot in `blocks_done`.
    next_slot: AtomicUsize,
    /// Turns of a cooperative launch's blocks in which a thread started or exited.
    grid_turns: AtomicU64,
    /// Set once a block timed out: the others stop at their next progress point, and no new
    /// block starts.
    timed_out: AtomicBool,
    /// The last fingerprint of the device memory kernels can write, and when it was taken
    /// (`mem/fingerprint.rs`): blocks that look at about the same time share one.
    memory: Mutex<Option<(Instant, u64)>>,
}

impl LaunchProgress {
    /// A launch's watchdog state, its clock started now.
    pub(crate) fn new() -> Self {
        LaunchProgress {
            started: Instant::now(),
            blocks_done: std::array::from_fn(|_| Padded(AtomicU64::new(0))),
            next_slot: AtomicUsize::new(0),
            grid_turns: AtomicU64::new(0),
            timed_out: AtomicBool::new(false),
            memory: Mutex::new(None),
        }
    }

    /// A block of the launch ended.
    pub(crate) fn block_done(&self, slot: usize) {
        self.add_blocks_done(slot, 1);
    }

    /// `n` blocks of the launch ended (more than one: a lane loop's span, `regions/mod.rs`).
    pub(crate) fn add_blocks_done(&self, slot: usize, n: u64) {
        let c = &self.blocks_done[slot].0;
        // Runners that share a slot (more of them than slots) may lose a count to each other
        // here; the watchdog only asks whether the sum moved, which it still does.
        c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
    }

    /// A new runner's slot for [`block_done`](Self::block_done).
    pub(crate) fn runner_slot(&self) -> usize {
        self.next_slot.fetch_add(1, Ordering::Relaxed) % DONE_SLOTS
    }

    /// How many runners (host threads driving blocks) the launch made.
    pub(crate) fn runners(&self) -> usize {
        self.next_slot.load(Ordering::Relaxed)
    }

    /// Blocks that ended so far (the sum of the runners' counts).
    fn blocks_done(&self) -> u64 {
        self.blocks_done.iter().fold(0u64, |a, c| a.wrapping_add(c.0.load(Ordering::Relaxed)))
    }

    /// A block of a cooperative launch had a thread start or exit in its turn: its peers that
    /// wait for it are not stuck.
    pub(crate) fn grid_turn(&self) {
        self.grid_turns.fetch_add(1, Ordering::Relaxed);
    }

    /// A block of the launch timed out: the others stop at their next progress point or
    /// barrier, and no new block starts.
    pub(crate) fn stop_launch(&self) {
        self.timed_out.store(true, Ordering::Relaxed);
    }

    /// Whether a block of the launch timed out.
    pub(crate) fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// The fingerprint of device memory, at most `max_age` old.
    fn memory(&self, now: Instant, max_age: Duration) -> u64 {
        let mut m = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        match *m {
            Some((at, f)) if now.saturating_duration_since(at) < max_age => f,
            _ => {
                let f = fingerprint::global();
                *m = Some((now, f));
                f
            }
        }
    }
}

/// One block's part: its spinning threads and the watchdog's last look.
#[derive(Debug, Default)]
pub(crate) struct BlockProgress {
    /// Threads that yielded at a progress point, to be resumed once nothing else can run.
    yielded: RefCell<Vec<u32>>,
    /// Thread exits so far (starts are counted by the block).
    events: Cell<u64>,
    /// Barrier releases and completed collectives since the watchdog last looked.
    passes: Cell<u32>,
    /// The watchdog's last look.
    mark: Cell<Option<Mark>>,
    /// Slow-path calls since the signature last changed (the back-off of a lone spinner).
    idle: Cell<u32>,
    /// Time slept since the signature last changed (the back-off's duty cycle).
    slept: Cell<Duration>,
    /// In a cooperative launch: whether the block's spinning threads have had their round in
    /// the block's current turn (`BlockRun::drive`).
    turn_used: Cell<bool>,
}

/// What the watchdog saw when progress last happened.
#[derive(Clone, Copy, Debug)]
struct Mark {
    /// The progress signature (starts, exits, blocks ended, grid turns).
    signature: u64,
    /// When the quiet window began.
    since: Instant,
    /// The memory's fingerprint within the window, and when it was taken.
    memory: Option<(u64, Instant)>,
}

impl BlockProgress {
    /// How many threads of the block have exited so far.
    pub(crate) fn events(&self) -> u64 {
        self.events.get()
    }

    /// A thread of the block exited.
    #[inline(always)]
    pub(crate) fn event(&self) {
        self.events.set(self.events.get().wrapping_add(1));
    }

    /// A barrier was released or a collective completed: `true` every [`PASS_INTERVAL`]
    /// times, when the watchdog must look ([`stuck`]).
    #[inline(always)]
    pub(crate) fn pass(&self) -> bool {
        let n = self.passes.get().wrapping_add(1);
        self.passes.set(n);
        n % PASS_INTERVAL == 0
    }

    /// Whether threads wait at a progress point.
    #[inline(always)]
    pub(crate) fn any_yielded(&self) -> bool {
        !self.yielded.borrow().is_empty()
    }

    /// Takes the threads waiting at progress points, in the order they yielded.
    pub(crate) fn take_yielded(&self) -> Vec<u32> {
        std::mem::take(&mut *self.yielded.borrow_mut())
    }

    /// The block is driven again (a cooperative launch's turn): its spinners get a round.
    pub(crate) fn new_turn(&self) {
        self.turn_used.set(false);
    }

    /// Whether the spinners may have their round in this turn (once per turn).
    pub(crate) fn take_turn(&self) -> bool {
        !self.turn_used.replace(true)
    }

    /// Forgets everything: a new block starts.
    pub(crate) fn reset(&self) {
        self.yielded.borrow_mut().clear();
        self.events.set(0);
        self.passes.set(0);
        self.mark.set(None);
        self.idle.set(0);
        self.slept.set(Duration::ZERO);
    }
}

/// Barrier releases and completed collectives between two looks of the watchdog.
pub(crate) const PASS_INTERVAL: u32 = 256;

/// Why the watchdog stops a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stuck {
    /// Nothing progressed for `EMU_TIMEOUT` seconds (see the module's doc).
    NoProgress,
    /// The launch ran past `EMU_LAUNCH_TIMEOUT`.
    WallClock,
    /// A thread was blocked in a system call for `EMU_TIMEOUT` seconds (`stuck.rs`).
    Blocked,
}

/// The watchdog's look at `block` at `now`: whether it is stuck (the module's doc).
pub(crate) fn stuck(block: &BlockRun<'_>, now: Instant) -> Option<Stuck> {
    let launch = block.launch();
    let wall = launch.config.get_launch_timeout();
    if !wall.is_zero() && now.saturating_duration_since(launch.progress.started) >= wall {
        return Some(Stuck::WallClock);
    }
    let limit = launch.config.get_timeout();
    if limit.is_zero() {
        return None;
    }
    let p = block.progress();
    let signature = p
        .events
        .get()
        .wrapping_add(block.started_count() as u64)
        .wrapping_add(launch.progress.blocks_done() << 32)
        .wrapping_add(launch.progress.grid_turns.load(Ordering::Relaxed) << 16);
    let Some(m) = p.mark.get().filter(|m| m.signature == signature) else {
        p.mark.set(Some(Mark { signature, since: now, memory: None }));
        p.idle.set(0);
        p.slept.set(Duration::ZERO);
        return None;
    };
    p.idle.set(p.idle.get().saturating_add(1));
    let quiet = now.saturating_duration_since(m.since);
    if quiet < limit / 2 {
        return None;
    }
    match m.memory {
        None => {
            p.mark.set(Some(Mark { memory: Some((memory(block, now), now)), ..m }));
            None
        }
        Some((before, at)) if quiet >= limit && now.saturating_duration_since(at) >= limit / 2 => {
            let after = memory(block, now);
            if after == before {
                return Some(Stuck::NoProgress);
            }
            // Written meanwhile: a new window, this fingerprint its first.
            p.mark.set(Some(Mark {
                signature,
                since: now.checked_sub(limit / 2).unwrap_or(now),
                memory: Some((after, now)),
            }));
            None
        }
        Some(_) => None,
    }
}

/// The fingerprint of the memory `block`'s threads can write: the launch's device memory
/// (shared with the blocks that look within an eighth of the limit) and the block's shared
/// arena.
fn memory(block: &BlockRun<'_>, now: Instant) -> u64 {
    let launch = block.launch();
    let global = launch.progress.memory(now, launch.config.get_timeout() / 8);
    let arena = block.arena();
    // SAFETY: the arena's `size` bytes at `base` belong to this block, whose threads run on
    // this host thread and access them through views (relaxed atomics) only.
    unsafe { crate::host::mem::memory::fingerprint(arena.base() as *const u8, arena.size(), global) }
}

/// Counts one loop iteration; `true` every [`INTERVAL`] iterations, when the caller must go
/// through the slow path.
#[inline(always)]
pub(crate) fn due(counter: &mut u32) -> bool {
    *counter = counter.wrapping_add(1);
    *counter % INTERVAL == 0
}

/// What the slow path decided.
enum Step {
    /// Go on looping.
    Continue,
    /// Yield: other threads can run.
    Yield,
}

/// The watchdog's look and the yield decision for the running thread of `block`, spinning at
/// `at`. Stops the thread (unwinding it) if the launch timed out.
fn step(block: &BlockRun<'_>, at: &'static Location<'static>) -> Step {
    // Not blocked in a system call (`stuck.rs`), even while it backs off with sleeps below.
    crate::host::sched::stuck::beat();
    block.stop_if_faulted();
    // A thread being stopped never yields (`block.rs`, "Stopping a thread"); the watchdog
    // still watches it, and abandons it if its `Drop` code spins.
    let stopping = block.stopping();
    let launch = block.launch();
    let p = block.progress();
    if launch.progress.timed_out() {
        timeout(block, at, Stuck::NoProgress);
    }
    let now = Instant::now();
    if let Some(why) = stuck(block, now) {
        launch.progress.stop_launch();
        timeout(block, at, why);
    }
    // In a cooperative launch the block's driver gives the other blocks a turn instead.
    if !stopping && (block.others_can_run() || launch.cooperative) {
        return Step::Yield;
    }
    // Nothing else of this block can run. The thread may spin on something another block or
    // stream will do, on another worker, or it may be working through a long loop alone (a
    // one-thread block's partition loop, a serial tail): the two look the same here. Give the
    // core up; after 2 ms with no progress, also sleep a little longer each time (up to 1 ms),
    // so that the worker it waits for runs even when workers outnumber cores, but only while
    // the sleeps stay under a sixteenth of that time: a working loop loses at most about 6%.
    let idle_for = p.mark.get().map_or(Duration::ZERO, |m| now.saturating_duration_since(m.since));
    let n = p.idle.get();
    if n >= 32 && idle_for >= Duration::from_millis(2) && p.slept.get() * 16 < idle_for {
        let d = Duration::from_micros(u64::from((n - 31).min(50)) * 20);
        std::thread::sleep(d);
        p.slept.set(p.slept.get() + d);
    } else {
        std::thread::yield_now();
    }
    Step::Continue
}

/// The watchdog's look from the scheduler, every [`PASS_INTERVAL`] barrier releases or
/// completed collectives of `block` (`BlockRun::drive`): if the launch timed out or the block
/// is stuck, records the timeout report (naming the first waiting thread) and returns `true`:
/// the caller fails the block, which aborts its waiting threads.
pub(crate) fn watch_passes(block: &BlockRun<'_>) -> bool {
    let launch = block.launch();
    let why = if launch.progress.timed_out() { Some(Stuck::NoProgress) } else { stuck(block, Instant::now()) };
    let Some(why) = why else { return false };
    launch.progress.stop_launch();
    let first = (0..block.slots.len() as u32)
        .find(|&t| matches!(block.state_of(t), State::Waiting | State::WarpWaiting | State::Ready));
    let t = first.unwrap_or(block.current());
    let at = block.slots[t as usize].at.get().unwrap_or(Location::caller());
    block.record_stuck(report(block, t, SourceLocation::from(at), why));
    true
}

/// The watchdog's look from a block run as barrier regions, at the barrier at `at`
/// (`regions.rs`): stops the block as [`step`] does.
pub(crate) fn watch_region_barrier(block: &BlockRun<'_>, at: &'static Location<'static>) {
    let launch = block.launch();
    if launch.progress.timed_out() {
        timeout(block, at, Stuck::NoProgress);
    }
    if let Some(why) = stuck(block, Instant::now()) {
        launch.progress.stop_launch();
        timeout(block, at, why);
    }
}

/// Queues the running thread as spinning at `at`.
fn enqueue(block: &BlockRun<'_>, at: &'static Location<'static>) {
    let t = block.current();
    let slot = &block.slots[t as usize];
    slot.state.set(State::Spinning);
    slot.at.set(Some(at));
    block.mark_dirty();
    block.progress().yielded.borrow_mut().push(t);
}

/// The slow path of a progress point in plain code (kernels without barriers in their body,
/// and `#[device]` helpers): check the watchdog, and yield by parking the thread's fiber.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn point() {
    let at = Location::caller();
    let Some(block) = crate::host::sched::context::current() else { return };
    if block.runs_regions() {
        // A helper's loop in region code (`emu-macros/src/fission/mod.rs`, `RegionLoops`):
        // every thread runs on the runner's fiber, which must not park; the watchdog looks,
        // as at a region's own progress point.
        crate::host::sched::stuck::beat();
        block.stop_if_faulted();
        watch_region_barrier(block, at);
        return;
    }
    if let Step::Yield = step(block, at) {
        enqueue(block, at);
        block.park();
        block.slots[block.current() as usize].state.set(State::Running);
    }
}

/// The slow path of a progress point in the body of a state-machine kernel: `.await`ed, it
/// returns `Pending` once when the thread yields.
#[derive(Debug)]
#[must_use = "a progress point does nothing unless awaited"]
pub struct ProgressAwait {
    at: &'static Location<'static>,
    yielded: bool,
}

impl ProgressAwait {
    /// The progress point at the caller's location.
    #[track_caller]
    #[inline(always)]
    pub(crate) fn new() -> Self {
        ProgressAwait { at: Location::caller(), yielded: false }
    }
}

impl std::future::Future for ProgressAwait {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        use std::task::Poll;
        let Some(block) = crate::host::sched::context::current() else { return Poll::Ready(()) };
        if self.yielded {
            block.slots[block.current() as usize].state.set(State::Running);
            return Poll::Ready(());
        }
        if let Step::Yield = step(block, self.at) {
            enqueue(block, self.at);
            if block.blocking_waits() {
                block.park();
                block.slots[block.current() as usize].state.set(State::Running);
                return Poll::Ready(());
            }
            self.yielded = true;
            return Poll::Pending;
        }
        Poll::Ready(())
    }
}

/// Stops the running thread of `block`, spinning at `at`, with a timeout report naming every
/// live thread of the block.
#[cold]
fn timeout(block: &BlockRun<'_>, at: &'static Location<'static>, why: Stuck) -> ! {
    block.fail(report(block, block.current(), SourceLocation::from(at), why))
}

/// The timeout report of `block`, by thread `me` at `at`: every live thread's state and line,
/// grouped as ranges, and what the watchdog saw.
#[cold]
pub(crate) fn report(block: &BlockRun<'_>, me: u32, at: SourceLocation, why: Stuck) -> Finding {
    let launch = block.launch();
    let running = block.current();
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for t in 0..block.slots.len() as u32 {
        let slot = &block.slots[t as usize];
        let place = |l: Option<&'static Location<'static>>| {
            l.map(SourceLocation::from).map_or("?".to_owned(), |l| format!("{}:{}", l.file, l.line))
        };
        let what = match block.state_of(t) {
            _ if t == me && t == running && why == Stuck::Blocked => {
                format!("blocked in a system call since it started or was last resumed, at {}:{}", at.file, at.line)
            }
            _ if t == me && t == running => format!("spinning at {}:{}", at.file, at.line),
            State::Spinning => format!("spinning at {}", place(slot.at.get())),
            State::Waiting => match slot.op.get() {
                BarrierOp::Grid => format!("waiting at the grid sync at {}", place(slot.at.get())),
                BarrierOp::Cluster => format!("waiting at the cluster sync at {}", place(slot.at.get())),
                _ => format!("waiting at the barrier at {}", place(slot.at.get())),
            },
            State::WarpWaiting => format!("waiting in a warp collective at {}", place(slot.at.get())),
            State::Ready | State::Running => format!("about to resume at {}", place(slot.at.get())),
            State::NotStarted => "not started".to_owned(),
            State::Exited | State::Failed => continue,
        };
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, ts)) => ts.push(t),
            None => groups.push((what, vec![t])),
        }
    }
    let mut groups: Vec<String> =
        groups.into_iter().map(|(what, ts)| format!("{} {what}", thread_ranges(launch.block, &ts))).collect();
    let seconds = match why {
        Stuck::WallClock => launch.config.get_launch_timeout().as_secs_f64(),
        Stuck::NoProgress | Stuck::Blocked => launch.config.get_timeout().as_secs_f64(),
    };
    groups.push(match why {
        Stuck::NoProgress => format!(
            "no thread of the launch started or exited, no block ended and the device memory kernels write did not \
             change for {seconds} s (passing barriers or warp collectives is not progress by itself); a spin-wait \
             whose flag nothing sets hangs on a GPU too. Raise EMU_TIMEOUT (or Config::timeout) if the work is \
             legitimately this long; 0 turns the watchdog off"
        ),
        Stuck::WallClock => format!(
            "the launch ran for {seconds} s, its wall-clock bound, although its threads looked busy; raise \
             EMU_LAUNCH_TIMEOUT (or Config::launch_timeout) if the work is legitimately this long; 0 turns the \
             bound off"
        ),
        Stuck::Blocked => format!(
            "the thread reached no barrier, warp collective, progress point or end for {seconds} s, and used no \
             processor time meanwhile: it is blocked in a system call (std::thread::sleep, a lock, I/O), which no \
             GPU thread can do; it was abandoned there without running its destructors. Raise EMU_TIMEOUT (or \
             Config::timeout) if the wait is legitimately this long; 0 turns the watchdog off"
        ),
    });
    Finding::LaunchTimeout {
        at,
        thread: launch.thread_index(me),
        block: block.block_idx(),
        seconds,
        limit: if why == Stuck::WallClock { "EMU_LAUNCH_TIMEOUT" } else { "EMU_TIMEOUT" },
        groups,
    }
}
