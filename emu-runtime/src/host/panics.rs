//! Capturing panics raised by kernel code, for the report.
//!
//! A panic hook (installed at the first launch, and again at any later launch that finds
//! another hook in its place, chained to the previous one) checks whether the panicking
//! host thread is running a GPU thread. If so it records the message and location for the
//! block scheduler, which reports them with the thread and block and fails the launch with
//! error 719; the default "thread panicked at" message is not printed. Panics outside kernels
//! go to the previous hook unchanged.

use std::cell::RefCell;
use std::panic::{self, PanicHookInfo};
use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::host::context;
use crate::host::report::SourceLocation;

/// The unwinding payload used to end a GPU thread whose failure is already recorded (an
/// out-of-bounds access, or a block being aborted). It never reaches the panic hook.
#[derive(Debug)]
pub(crate) struct KernelAbort;

thread_local! {
    static STASH: RefCell<Option<(String, Option<SourceLocation>)>> = const { RefCell::new(None) };
}

/// The address of the hook [`install`] set last (0 before the first launch).
static OURS: AtomicUsize = AtomicUsize::new(0);

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

fn address(hook: &Hook) -> usize {
    (&**hook as *const (dyn Fn(&PanicHookInfo<'_>) + Sync + Send)).cast::<()>() as usize
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

/// Installs the hook at each launch unless it is still the current one: a user's hook set
/// after an earlier launch replaced ours, and is chained to the new one (so it still sees the
/// panics outside kernels). Between the take and the set of the check, a panic on another host
/// thread would see the default hook; the block scheduler then takes the message from the
/// unwinding payload (without a location).
pub(crate) fn install() {
    if std::thread::panicking() {
        return; // the hook cannot be changed from a panicking thread
    }
    let current = panic::take_hook();
    if address(&current) == OURS.load(Relaxed) {
        panic::set_hook(current);
        return;
    }
    let previous = current;
    let hook: Hook = Box::new(move |info: &PanicHookInfo<'_>| {
        if context::current().is_some() {
            let message = message(info.payload());
            let at = info.location().map(SourceLocation::from);
            STASH.with(|s| *s.borrow_mut() = Some((message, at)));
        } else {
            previous(info);
        }
    });
    OURS.store(address(&hook), Relaxed);
    panic::set_hook(hook);
}

/// The message and location of the last kernel panic on this host thread.
pub(crate) fn take() -> Option<(String, Option<SourceLocation>)> {
    STASH.with(|s| s.borrow_mut().take())
}
