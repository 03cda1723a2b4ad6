//! Capturing panics raised by kernel code, for the report.
//!
//! A panic hook (installed once, chained to the previous one) checks whether the panicking
//! host thread is running a GPU thread. If so it records the message and location for the
//! block scheduler, which reports them with the thread and block and fails the launch with
//! error 719; the default "thread panicked at" message is not printed. Panics outside kernels
//! go to the previous hook unchanged.

use std::cell::RefCell;
use std::panic::{self, PanicHookInfo};
use std::sync::Once;

use crate::host::sched::context;
use crate::host::report::SourceLocation;

/// The unwinding payload used to end a GPU thread whose failure is already recorded (an
/// out-of-bounds access, or a block being aborted). It never reaches the panic hook.
#[derive(Debug)]
pub(crate) struct KernelAbort;

thread_local! {
    static STASH: RefCell<Option<(String, Option<SourceLocation>)>> = const { RefCell::new(None) };
}

/// Installs the hook (once per process).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            if context::current().is_some() {
                let message = match info.payload().downcast_ref::<&str>() {
                    Some(s) => (*s).to_owned(),
                    None => match info.payload().downcast_ref::<String>() {
                        Some(s) => s.clone(),
                        None => "panic with a non-string payload".to_owned(),
                    },
                };
                let at = info.location().map(SourceLocation::from);
                STASH.with(|s| *s.borrow_mut() = Some((message, at)));
            } else {
                previous(info);
            }
        }));
    });
}

/// The message and location of the last kernel panic on this host thread.
pub(crate) fn take() -> Option<(String, Option<SourceLocation>)> {
    STASH.with(|s| s.borrow_mut().take())
}
