//! `get_last_error` / `peek_at_last_error`: the last launch error of each host thread.

use std::cell::RefCell;

use crate::host::report::error::Error;

thread_local! {
    static LAST: RefCell<Option<Error>> = const { RefCell::new(None) };
}

pub(crate) fn record(e: &Error) {
    LAST.with(|l| *l.borrow_mut() = Some(e.clone()));
}

/// Returns the last error from a launch on this host thread and resets it, as CUDA's
/// `cudaGetLastError` does. `Ok(())` when there was none.
///
/// Unlike CUDA, errors such as 700 are not sticky: the next launch works normally.
pub fn get_last_error() -> Result<(), Error> {
    match LAST.with(|l| l.borrow_mut().take()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Returns the last error from a launch on this host thread without resetting it, as CUDA's
/// `cudaPeekAtLastError` does.
pub fn peek_at_last_error() -> Result<(), Error> {
    match LAST.with(|l| l.borrow().clone()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
