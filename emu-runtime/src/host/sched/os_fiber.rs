//! Fibers backed by OS threads, for `EMU_SCHEDULE=threads`: each live GPU thread is on a named
//! OS thread (`b<block>t<thread>`, linear indices; a runner renames its thread as it starts each
//! GPU thread, `block.rs`), so `info threads` in gdb lists every live GPU thread with its
//! stack, as the old `-deviceemu` did.
//!
//! ```text
//!   worker host thread                 OS fiber thread "b1t3"
//!   resume(input) ── baton ─────────►  runs until it suspends or ends
//!   (waits)       ◄─ baton ───────────  suspend(s) / returns
//! ```
//!
//! The baton (a mutex and a condition variable) makes the pair behave like a coroutine: exactly
//! one of the two threads runs at a time, and each hand-over orders all memory accesses before
//! it with those after it. That is what makes it sound to run scheduler code that uses `Cell`s
//! (`BlockRun` is not `Sync`) on the fiber's thread.
//!
//! Inside its thread, the fiber's body runs on a corosensei coroutine with a guarded stack of
//! `EMU_STACK_SIZE` bytes, so that a stack overflow is caught and reported (`overflow.rs`) as
//! with fibers; the thread's own stack is small.

use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::host::report::error::Error;
use crate::host::sched::fiber::{FiberStack, Resume, Resumed, RunnerEnd, Suspend};
use crate::host::sched::overflow;

/// Whose turn it is, and what the other side handed over.
#[derive(Debug)]
enum Baton {
    /// The fiber's turn, with its input.
    Fiber(Resume),
    /// The host's turn, with what the fiber said.
    Host(Resumed),
    /// Taken by the side that runs.
    Running,
}

/// The hand-over point shared by a fiber thread and its host.
#[derive(Debug)]
pub(crate) struct Link {
    baton: Mutex<Baton>,
    turn: Condvar,
}

impl Link {
    /// Hands `b` over and waits until the baton comes back with what `take` accepts.
    fn pass<T>(&self, b: Baton, take: impl Fn(&mut Baton) -> Option<T>) -> T {
        let mut g = self.baton.lock();
        *g = b;
        self.turn.notify_all();
        loop {
            if let Some(v) = take(&mut g) {
                *g = Baton::Running;
                return v;
            }
            self.turn.wait(&mut g);
        }
    }

    /// In the fiber thread: hands `s` to the host and waits to be resumed.
    pub(crate) fn suspend(&self, s: Suspend) -> Resume {
        self.pass(Baton::Host(Resumed::Yield(s)), |b| match b {
            Baton::Fiber(r) => Some(*r),
            _ => None,
        })
    }
}

/// Renames the calling OS thread (Linux and macOS; debuggers show the name; at most 15 bytes
/// are kept).
pub(crate) fn set_thread_name(name: &str) {
    let mut buf = [0u8; 16];
    let n = name.len().min(15);
    buf[..n].copy_from_slice(&name.as_bytes()[..n]);
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: `buf` is NUL-terminated and outlives the call; PR_SET_NAME names the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, buf.as_ptr() as libc::c_ulong, 0, 0, 0);
    }
    #[cfg(all(target_os = "macos", not(miri)))]
    // SAFETY: as above; macOS names the calling thread.
    unsafe {
        libc::pthread_setname_np(buf.as_ptr().cast());
    }
    #[cfg(any(miri, not(any(target_os = "linux", target_os = "macos"))))]
    let _ = buf;
}

/// The OS thread's own stack: the GPU thread runs on the coroutine's; this one holds the
/// trampoline, the unwinding of a panic that left the coroutine, and nothing else.
const THREAD_STACK: usize = 128 * 1024;

/// A fiber running on an OS thread of its own.
#[derive(Debug)]
pub(crate) struct OsFiber {
    link: Arc<Link>,
    thread: Option<JoinHandle<()>>,
    done: bool,
}

/// Lets a closure that borrows the block's scheduler cross to the fiber thread.
struct AssertSend<F>(F);
// SAFETY: the closure runs on the fiber thread only while the host waits for the baton (see
// the module doc), so the non-`Sync` state it borrows is never used by two threads at once,
// and the baton's mutex orders the accesses of one with those of the other.
unsafe impl<F> Send for AssertSend<F> {}

impl OsFiber {
    /// Starts an OS thread named `name`, which runs `body` on `stack` once the fiber is first
    /// resumed: on a coroutine inside the thread, so that the guard page below `stack` and the
    /// trap handler of `overflow.rs` turn a stack overflow into `RunnerEnd::StackOverflow`, as
    /// with fibers. Without a stack (the unit test, which runs under miri, where coroutines
    /// cannot) `body` runs on the thread's own stack. A thread the host cannot start is an
    /// error.
    ///
    /// # Safety
    ///
    /// Everything `body` borrows must outlive the fiber's run: the fiber must be resumed until
    /// it returns before what it borrows is dropped (then dropping it joins the thread).
    pub(crate) unsafe fn spawn<F>(name: String, stack: Option<FiberStack>, body: F) -> Result<OsFiber, Error>
    where
        F: FnOnce(&Link) -> RunnerEnd,
    {
        let link = Arc::new(Link { baton: Mutex::new(Baton::Running), turn: Condvar::new() });
        let l = Arc::clone(&link);
        let body = AssertSend(body);
        let run = move || {
            let body = body;
            // Wait for the first resume.
            {
                let mut g = l.baton.lock();
                while !matches!(*g, Baton::Fiber(_)) {
                    l.turn.wait(&mut g);
                }
                *g = Baton::Running;
            }
            // The runner catches the kernel's panics itself; this one keeps a bug in the
            // scheduler from leaving the host waiting for a baton that never comes.
            let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let l = &*l;
                let Some(stack) = stack else { return (body.0)(l) };
                // SAFETY: the coroutine is resumed once, here, and runs to its end (a return, a
                // trapped overflow, or a panic that `resume` propagates) before `l` and what
                // `body` borrows can go away.
                let mut co =
                    unsafe { Coroutine::with_stack_unchecked(stack, move |_: &Yielder<(), ()>, ()| (body.0)(l)) };
                overflow::arm_trap(co.trap_handler());
                let r = co.resume(());
                overflow::disarm_trap();
                match r {
                    CoroutineResult::Return(end) => end,
                    CoroutineResult::Yield(()) => unreachable!("an OS fiber's coroutine never yields"),
                }
            }))
            .unwrap_or(RunnerEnd::Aborted);
            let mut g = l.baton.lock();
            *g = Baton::Host(Resumed::Return(end));
            l.turn.notify_all();
        };
        // SAFETY: the caller keeps what `body` borrows alive until the thread has finished
        // (it is joined when the fiber is dropped, after it returned).
        let thread = unsafe { std::thread::Builder::new().name(name).stack_size(THREAD_STACK).spawn_unchecked(run) }
            .map_err(|e| {
                crate::host::alloc::error(
                    format!("an OS thread for a GPU thread ({e})"),
                    THREAD_STACK,
                    "launch fewer threads per block, or use the default EMU_SCHEDULE=fibers (EMU_SCHEDULE=threads starts one per GPU thread)",
                )
            })?;
        Ok(OsFiber { link, thread: Some(thread), done: false })
    }

    /// Runs the fiber until it suspends or returns.
    pub(crate) fn resume(&mut self, input: Resume) -> Resumed {
        assert!(!self.done, "deviceemu: resumed an OS fiber that has finished");
        let r = self.link.pass(Baton::Fiber(input), |b| match b {
            Baton::Host(r) => Some(*r),
            _ => None,
        });
        self.done = matches!(r, Resumed::Return(_));
        r
    }
}

impl Drop for OsFiber {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            if self.done {
                let _ = t.join();
            }
            // A fiber dropped while suspended is a scheduler bug; its thread stays parked
            // rather than running on with borrowed state.
        }
    }
}

#[cfg(test)]
mod tests {
    //! The baton alone: runs under miri (`cargo +nightly miri test -p emu-runtime --lib
    //! host::os_fiber`), whose data-race detector checks that state shared through `Cell`s
    //! (not `Sync`) is handed over with a happens-before edge each way.
    use std::cell::Cell;

    use super::OsFiber;
    use crate::host::sched::fiber::{Resume, Resumed, RunnerEnd, Suspend};

    #[test]
    fn the_baton_alternates_and_orders_unsynchronised_state() {
        let shared = Cell::new(0u32);
        let s = &shared;
        // SAFETY: the fiber is resumed until it returns before `shared` goes out of scope.
        let mut f = unsafe {
            OsFiber::spawn("t".into(), None, move |link| {
                s.set(s.get() + 1);
                assert_eq!(link.suspend(Suspend::Barrier), Resume::Continue);
                s.set(s.get() * 10);
                if link.suspend(Suspend::Idle) == Resume::Abort {
                    return RunnerEnd::Aborted;
                }
                RunnerEnd::Done
            })
            .unwrap()
        };
        assert_eq!(f.resume(Resume::Continue), Resumed::Yield(Suspend::Barrier));
        assert_eq!(shared.get(), 1);
        shared.set(shared.get() + 1);
        assert_eq!(f.resume(Resume::Continue), Resumed::Yield(Suspend::Idle));
        assert_eq!(shared.get(), 20);
        assert_eq!(f.resume(Resume::Abort), Resumed::Return(RunnerEnd::Aborted));
        drop(f);
    }
}
