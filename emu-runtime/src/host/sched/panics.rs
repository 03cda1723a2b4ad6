//! Capturing panics raised by kernel code, for the report.
//!
//! A panic hook (installed at the first launch, and again at any later launch that finds it
//! was replaced, chained to the previous one) checks whether the panicking
//! host thread is running a GPU thread. If so it records the message and location for the
//! block scheduler, which reports them with the thread and block and fails the launch with
//! error 719; the default "thread panicked at" message is not printed. Panics outside kernels
//! go to the previous hook unchanged. Should the hook still miss a kernel panic (a user's hook
//! that takes ours and does not call it), the report has the message from the unwinding
//! payload, without a location.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, PanicHookInfo};
use std::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Release},
};
use std::sync::Mutex;

use crate::host::report::SourceLocation;
use crate::host::sched::context;

/// The unwinding payload used to end a GPU thread whose failure is already recorded (an
/// out-of-bounds access, or a block being aborted). It never reaches the panic hook.
#[derive(Debug)]
pub(crate) struct KernelAbort;

/// The unwinding payload that stops a GPU thread which made a faulting access, at its next
/// barrier, warp collective or progress point (`block.rs`): the thread counts as exited, and
/// its block goes on. It never reaches the panic hook.
#[derive(Debug)]
pub(crate) struct ThreadStop;

thread_local! {
    static STASH: RefCell<Option<(String, Option<SourceLocation>)>> = const { RefCell::new(None) };
}

/// Whether the hook [`install`] set is still in place: cleared when it is dropped, which is
/// what `panic::set_hook` does to the hook it replaces.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Lives inside the installed hook; its drop says that the hook was replaced.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        INSTALLED.store(false, Release);
    }
}

/// The message a panic payload carries.
pub(crate) fn message(payload: &(dyn Any + Send)) -> String {
    match payload.downcast_ref::<&str>() {
        Some(s) => (*s).to_owned(),
        None => match payload.downcast_ref::<String>() {
            Some(s) => s.clone(),
            None => "panic with a non-string payload".to_owned(),
        },
    }
}

/// Installs the hook, at the first launch and at any later one that finds it replaced (a
/// user's `panic::set_hook` after an earlier launch): the new hook is chained to the user's,
/// which thus still sees the panics outside kernels. While the hook is in place this is one
/// atomic load.
pub(crate) fn install() {
    if INSTALLED.load(Acquire) {
        return;
    }
    static LOCK: Mutex<()> = Mutex::new(());
    let _one_at_a_time = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if INSTALLED.load(Acquire) || std::thread::panicking() {
        return; // installed meanwhile, or (panicking) the hook cannot be changed now
    }
    let previous = panic::take_hook();
    let installed = Installed;
    INSTALLED.store(true, Release);
    panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        let _in_place = &installed;
        if let Some(block) = context::current() {
            // From here the thread unwinds: its `Drop` code must not wait (`block.rs`).
            block.panicking_now();
            let message = message(info.payload());
            let at = info.location().map(SourceLocation::from);
            STASH.with(|s| *s.borrow_mut() = Some((message, at)));
        } else {
            previous(info);
        }
    }));
}

/// The message and location of the last kernel panic on this host thread.
pub(crate) fn take() -> Option<(String, Option<SourceLocation>)> {
    STASH.with(|s| s.borrow_mut().take())
}
