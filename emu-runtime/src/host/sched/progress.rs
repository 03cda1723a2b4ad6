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
//! **Progress**, for the watchdog, is any of: a thread of the block started, exited, or passed a
//! barrier or a warp collective; a block of the launch ended. A thread that has looped through
//! progress points for `EMU_TIMEOUT` seconds (default 60, [`Config::timeout`]) with no
//! progress anywhere in its block or launch is stopped: its block reports
//! `Launch timeout` with every live thread's state and line, grouped as ranges, and the launch
//! returns error 702 (`cudaErrorLaunchTimeout`). The other blocks' spinning threads notice the
//! launch has timed out at their next progress point and report too; blocks not started yet
//! are not run. Loops in functions without `#[device]` have no progress points: they can
//! neither yield nor be stopped.
//!
//! [`Config::timeout`]: crate::Config::timeout

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::host::sched::block::{BlockRun, State};
use crate::host::report::{thread_ranges, Finding, SourceLocation};

/// Loop iterations between two calls of the slow path.
pub(crate) const INTERVAL: u32 = 64;

/// What a launch's blocks share for the watchdog.
#[derive(Debug, Default)]
pub(crate) struct LaunchProgress {
    /// Blocks that ended.
    blocks_done: AtomicU64,
    /// Turns of a cooperative launch's blocks in which something progressed.
    grid_turns: AtomicU64,
    /// Set once a block timed out: the others stop at their next progress point, and no new
    /// block starts.
    timed_out: AtomicBool,
}

impl LaunchProgress {
    /// A block of the launch ended.
    pub(crate) fn block_done(&self) {
        self.blocks_done.fetch_add(1, Ordering::Relaxed);
    }

    /// A block of a cooperative launch progressed in its turn: its spin-waiting peers are not
    /// stuck.
    pub(crate) fn grid_turn(&self) {
        self.grid_turns.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether a block of the launch timed out.
    pub(crate) fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }
}

/// One block's part: its spinning threads and the watchdog's last look.
#[derive(Debug, Default)]
pub(crate) struct BlockProgress {
    /// Threads that yielded at a progress point, to be resumed once nothing else can run.
    yielded: RefCell<Vec<u32>>,
    /// Starts, exits (past the shortcut), barrier releases and completed collectives so far.
    events: Cell<u64>,
    /// The progress signature at the watchdog's last look, and when it last changed.
    mark: Cell<Option<(u64, Instant)>>,
    /// Slow-path calls since the signature last changed (the back-off of a lone spinner).
    idle: Cell<u32>,
    /// Time slept since the signature last changed (the back-off's duty cycle).
    slept: Cell<std::time::Duration>,
    /// In a cooperative launch: whether the block's spinning threads have had their round in
    /// the block's current turn (`BlockRun::drive`).
    turn_used: Cell<bool>,
}

impl BlockProgress {
    /// How many things have progressed in the block so far.
    pub(crate) fn events(&self) -> u64 {
        self.events.get()
    }

    /// Something in the block progressed (a barrier released, a collective completed, a thread
    /// exited).
    #[inline(always)]
    pub(crate) fn event(&self) {
        self.events.set(self.events.get().wrapping_add(1));
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
        self.mark.set(None);
        self.idle.set(0);
        self.slept.set(std::time::Duration::ZERO);
    }
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
    block.stop_if_faulted();
    // A thread being stopped never yields (`block.rs`, "Stopping a thread"); the watchdog
    // still watches it, and abandons it if its `Drop` code spins.
    let stopping = block.stopping();
    let launch = block.launch();
    let limit = launch.config.get_timeout();
    let p = block.progress();
    if !limit.is_zero() && launch.progress.timed_out() {
        timeout(block, at);
    }
    let signature = p
        .events
        .get()
        .wrapping_add(block.started_count() as u64)
        .wrapping_add(launch.progress.blocks_done.load(Ordering::Relaxed) << 32)
        .wrapping_add(launch.progress.grid_turns.load(Ordering::Relaxed) << 16);
    let now = Instant::now();
    match p.mark.get() {
        Some((s, since)) if s == signature => {
            p.idle.set(p.idle.get().saturating_add(1));
            if !limit.is_zero() && now.duration_since(since) >= limit {
                launch.progress.timed_out.store(true, Ordering::Relaxed);
                timeout(block, at);
            }
        }
        _ => {
            p.mark.set(Some((signature, now)));
            p.idle.set(0);
            p.slept.set(std::time::Duration::ZERO);
        }
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
    let idle_for = p.mark.get().map_or(std::time::Duration::ZERO, |(_, since)| now.duration_since(since));
    let n = p.idle.get();
    if n >= 32 && idle_for >= std::time::Duration::from_millis(2) && p.slept.get() * 16 < idle_for {
        let d = std::time::Duration::from_micros(u64::from((n - 31).min(50)) * 20);
        std::thread::sleep(d);
        p.slept.set(p.slept.get() + d);
    } else {
        std::thread::yield_now();
    }
    Step::Continue
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
fn timeout(block: &BlockRun<'_>, at: &'static Location<'static>) -> ! {
    let launch = block.launch();
    let me = block.current();
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for t in 0..block.slots.len() as u32 {
        let slot = &block.slots[t as usize];
        let place = |l: Option<&'static Location<'static>>| l.map(SourceLocation::from).map_or("?".to_owned(), |l| format!("{}:{}", l.file, l.line));
        let what = if t == me {
            format!("spinning at {}", place(Some(at)))
        } else {
            match block.state_of(t) {
                State::Spinning => format!("spinning at {}", place(slot.at.get())),
                State::Waiting => format!("waiting at the barrier at {}", place(slot.at.get())),
                State::WarpWaiting => format!("waiting in a warp collective at {}", place(slot.at.get())),
                State::Ready | State::Running => format!("about to resume at {}", place(slot.at.get())),
                State::NotStarted => "not started".to_owned(),
                State::Exited | State::Failed => continue,
            }
        };
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, ts)) => ts.push(t),
            None => groups.push((what, vec![t])),
        }
    }
    let groups = groups.into_iter().map(|(what, ts)| format!("{} {what}", thread_ranges(launch.block, &ts))).collect();
    block.fail(Finding::LaunchTimeout {
        at: SourceLocation::from(at),
        thread: block.thread(),
        block: block.block_idx(),
        seconds: launch.config.get_timeout().as_secs_f64(),
        groups,
    })
}
