//! Fibers: the stackful coroutines GPU threads run on.
//!
//! ```text
//!   worker host thread stack         fiber stacks (mmap, guard page below each)
//!   ┌──────────────────┐             ┌────────────┐ ┌────────────┐
//!   │ block scheduler  │ ─resume──►  │ runner:    │ │ thread 7   │ ...
//!   │  (block.rs)      │ ◄─suspend─  │ threads    │ │ waiting at │
//!   └──────────────────┘             │ 8, 9, ...  │ │ a barrier  │
//!                                    └────────────┘ └────────────┘
//! ```
//!
//! A fiber starts as a *runner* that runs not-yet-started threads one after another as plain
//! calls; when the thread it is running reaches a barrier, the fiber suspends and stays with
//! that thread, and the scheduler starts a fresh runner for the rest. Kernels without
//! barriers therefore cost one fiber per block, not one per thread.
//!
//! Stacks are reused through a per-host-thread pool, and the top of each is staggered by a
//! multiple of 64 bytes: page-aligned stacks would otherwise put every thread's hot frames in
//! the same L1 cache sets (measured 1.5–2.6× faster in planning; ARCHITECTURE.md, "Measurements behind the design").

use std::cell::{Cell, RefCell};

use corosensei::stack::{DefaultStack, Stack, StackPointer};
use corosensei::trap::CoroutineTrapHandler;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::host::alloc as host_alloc;
use crate::host::report::error::Error;
use crate::host::sched::os_fiber::{Link, OsFiber};

/// What a fiber says when it suspends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suspend {
    /// The running thread waits at a barrier (its slot says which).
    Barrier,
    /// The runner found no thread left to start; it can be reused for the next block.
    Idle,
    /// The running thread, which was being stopped, failed again (`block.rs`, "Stopping a
    /// thread"): the fiber is never resumed, and is reset with [`Fiber::abandon`].
    Abandoned,
}

/// What the scheduler says when it resumes a fiber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Carry on.
    Continue,
    /// The block failed: unwind the thread.
    Abort,
}

/// How a fiber finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunnerEnd {
    /// No thread was left to start.
    Done,
    /// The running thread failed (its finding is recorded) or was told to abort.
    Aborted,
    /// The running thread overflowed the stack (set up by the trap handler in `overflow`).
    StackOverflow,
    /// The running thread was blocked in a system call for `EMU_TIMEOUT` and abandoned there
    /// (the monitor of `stuck.rs`, through the same trap handler).
    Blocked,
}

/// What a fiber did when resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resumed {
    /// It suspended.
    Yield(Suspend),
    /// It returned.
    Return(RunnerEnd),
}

/// A GPU thread's fiber: a stackful coroutine on the worker's host thread, or with
/// `EMU_SCHEDULE=threads` an OS thread of its own (`os_fiber.rs`).
pub(crate) enum Fiber {
    /// A corosensei coroutine.
    Co(Coroutine<Resume, Suspend, RunnerEnd, FiberStack>),
    /// An OS thread.
    Os(OsFiber),
    /// No fiber: the block scheduler calls the runner's body on its own stack, to its end
    /// (`BlockRun::start`). Only for runs where nothing suspends: state-machine kernels whose
    /// barriers are all awaited, or kernels without barriers. Used under miri, which cannot
    /// run the coroutines' assembly (`direct_runners`).
    Direct,
}

/// Whether runners are [`Fiber::Direct`]: under miri, and in the tests that check that path
/// without miri.
#[inline]
pub(crate) fn direct_runners() -> bool {
    #[cfg(test)]
    if DIRECT.with(Cell::get) {
        return true;
    }
    cfg!(miri)
}

#[cfg(test)]
thread_local! {
    /// Tests: make this host thread's runners direct.
    pub(crate) static DIRECT: Cell<bool> = const { Cell::new(false) };
}

impl Fiber {
    /// Runs the fiber until it suspends or returns.
    #[inline(always)]
    pub(crate) fn resume(&mut self, input: Resume) -> Resumed {
        match self {
            Fiber::Co(c) => match c.resume(input) {
                CoroutineResult::Yield(s) => Resumed::Yield(s),
                CoroutineResult::Return(e) => Resumed::Return(e),
            },
            Fiber::Os(o) => o.resume(input),
            Fiber::Direct => unreachable!("a direct runner is never suspended, so never resumed"),
        }
    }

    /// The coroutine's stack, for reuse, once it has returned (OS fibers have none).
    pub(crate) fn into_stack(self) -> Option<FiberStack> {
        match self {
            Fiber::Co(c) => Some(c.into_stack()),
            Fiber::Os(_) | Fiber::Direct => None,
        }
    }

    /// Gives up a fiber suspended with [`Suspend::Abandoned`] without running anything more on
    /// it: a coroutine is reset (the values on its stack are forgotten, not dropped) and its
    /// stack returned for reuse; an OS fiber's thread stays parked for good (`OsFiber`'s drop).
    pub(crate) fn abandon(self) -> Option<FiberStack> {
        match self {
            Fiber::Co(mut c) => {
                // SAFETY: the coroutine is suspended for good in the middle of its thread's
                // stop; nothing outside the stack points into it (the scheduler reset its
                // yielder pointer, the overflow handler is disarmed, the thread's future is
                // forgotten by `TaskTable::abandon`), so forgetting its frames leaks what they
                // own and nothing reads them again.
                unsafe { c.force_reset() };
                Some(c.into_stack())
            }
            Fiber::Os(_) | Fiber::Direct => None,
        }
    }

    /// The handler that turns a fault on the coroutine's guard page into its return.
    pub(crate) fn trap_handler(&self) -> Option<CoroutineTrapHandler<RunnerEnd>> {
        match self {
            Fiber::Co(c) => Some(c.trap_handler()),
            Fiber::Os(_) | Fiber::Direct => None,
        }
    }
}

/// How code running on a fiber suspends it.
pub(crate) enum Suspender<'y> {
    /// A coroutine's yielder.
    Co(&'y Yielder<Resume, Suspend>),
    /// An OS fiber's link; `wake` runs on the fiber's thread each time it is resumed.
    Os(&'y Link, &'y dyn Fn()),
    /// A direct runner ([`Fiber::Direct`]): going idle ends it; it cannot wait (a blocking
    /// barrier or collective panics, and the block's state is then not to be trusted: this
    /// path is for miri's test of awaited barriers only).
    Direct,
}

impl Suspender<'_> {
    /// Suspends the fiber with `s` until the scheduler resumes it.
    #[inline(always)]
    pub(crate) fn suspend(&self, s: Suspend) -> Resume {
        match self {
            Suspender::Co(y) => y.suspend(s),
            Suspender::Os(link, wake) => {
                // Waiting for the baton is the emulator's wait, not the GPU thread's.
                crate::host::sched::stuck::leave();
                let r = link.suspend(s);
                crate::host::sched::stuck::enter();
                wake();
                r
            }
            // An idle direct runner ends (as an idle fiber does when aborted): the scheduler
            // makes a new one when there is more to run.
            Suspender::Direct if s == Suspend::Idle => Resume::Abort,
            Suspender::Direct => panic!(
                "deviceemu: a blocking barrier or warp collective needs a fiber, and runners have none \
                 here (miri): only kernels whose barriers are all awaited run without fibers"
            ),
        }
    }
}

/// Starts an OS fiber (see [`OsFiber::spawn`]) whose body runs on a guarded `stack`-byte
/// stack; `wake` runs on its thread when it starts and each time it is resumed. A thread or
/// stack the host cannot make is an error.
///
/// # Safety
///
/// As for [`OsFiber::spawn`].
pub(crate) unsafe fn spawn_os<W, F>(name: String, stack: usize, wake: W, body: F) -> Result<Fiber, Error>
where
    W: Fn(),
    F: FnOnce(&Suspender<'_>) -> RunnerEnd,
{
    let stack = take_stack(stack)?;
    // SAFETY: the caller's contract.
    Ok(Fiber::Os(unsafe {
        OsFiber::spawn(name, Some(stack), move |link| {
            wake();
            crate::host::sched::stuck::enter();
            let end = body(&Suspender::Os(link, &wake));
            crate::host::sched::stuck::leave();
            end
        })
    }?))
}

/// A guarded mmap stack whose usable top is staggered by a multiple of 64 bytes.
pub(crate) struct FiberStack {
    inner: DefaultStack,
    stagger: usize,
    size: usize,
}

// SAFETY: `base` stays inside the mapping (the stagger is at most 960 bytes of a stack of at
// least 16 KiB) and keeps 16-byte alignment; `limit` and the guard page are the inner stack's.
unsafe impl Stack for FiberStack {
    fn base(&self) -> StackPointer {
        StackPointer::new(self.inner.base().get() - self.stagger).expect("stack base is not null")
    }
    fn limit(&self) -> StackPointer {
        self.inner.limit()
    }
}

/// Most stacks kept per host thread for reuse.
const POOL_MAX: usize = 2048;

thread_local! {
    static POOL: RefCell<Vec<FiberStack>> = const { RefCell::new(Vec::new()) };
    static CREATED: Cell<usize> = const { Cell::new(0) };
}

/// A stack of `size` usable bytes, from this host thread's pool when possible; a stack that
/// cannot be mapped is an error that names `EMU_STACK_SIZE`.
pub(crate) fn take_stack(size: usize) -> Result<FiberStack, Error> {
    if let Some(s) = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let i = p.iter().rposition(|s| s.size == size)?;
        Some(p.swap_remove(i))
    }) {
        return Ok(s);
    }
    let k = CREATED.with(|c| {
        let k = c.get();
        c.set(k + 1);
        k
    });
    const HINT: &str = "lower EMU_STACK_SIZE (or Config::stack_size); each GPU thread waiting at a barrier holds one";
    let what = || format!("a {size}-byte stack for a GPU thread");
    host_alloc::check(what, size, HINT)?;
    let inner = DefaultStack::new(size).map_err(|e| host_alloc::error(format!("{} ({e})", what()), size, HINT))?;
    Ok(FiberStack { inner, stagger: (k % 16) * 64, size })
}

/// Returns a stack to this host thread's pool.
pub(crate) fn give_back(stack: FiberStack) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOL_MAX {
            p.push(stack);
        }
    });
}
