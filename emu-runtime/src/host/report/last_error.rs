//! `get_last_error` / `peek_at_last_error`: the last launch error of each host thread.

use std::cell::RefCell;

use crate::host::report::error::Error;

thread_local! {
    static LAST: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// In a kernel, `get_last_error()` and `peek_at_last_error()` return the running GPU thread's
/// device-side last error (the device runtime's, `sched/devrt.rs`, which sets this hook when a
/// kernel first makes a device-runtime call): `Some` in a kernel, `None` outside.
pub(crate) static IN_KERNEL: std::sync::OnceLock<KernelLastError> = std::sync::OnceLock::new();

/// The device runtime's answer to `get_last_error` (`true`: take) or `peek_at_last_error`.
pub(crate) type KernelLastError = fn(bool) -> Option<Result<(), Error>>;

pub(crate) fn record(e: &Error) {
    LAST.with(|l| *l.borrow_mut() = Some(e.clone()));
}

/// Returns the last error from a launch on this host thread and resets it, as CUDA's
/// `cudaGetLastError` does. `Ok(())` when there was none.
///
/// Unlike CUDA, errors such as 700 are not sticky: the next launch works normally.
///
/// Called in a kernel, it returns the calling GPU thread's last device-side error (a
/// device-side `launch!`'s, as CUDA's device-side `cudaGetLastError`).
pub fn get_last_error() -> Result<(), Error> {
    if let Some(r) = IN_KERNEL.get().and_then(|h| h(true)) {
        return r;
    }
    match LAST.with(|l| l.borrow_mut().take()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Returns the last error from a launch on this host thread without resetting it, as CUDA's
/// `cudaPeekAtLastError` does.
pub fn peek_at_last_error() -> Result<(), Error> {
    if let Some(r) = IN_KERNEL.get().and_then(|h| h(false)) {
        return r;
    }
    match LAST.with(|l| l.borrow().clone()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
