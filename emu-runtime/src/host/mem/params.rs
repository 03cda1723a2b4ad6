//! The views and descriptions of a kernel's buffer parameters, made by the launcher
//! (`#[kernel]`'s `__launch`, through `__private::meta`, `global` and `global_mut`): each
//! buffer's `ViewMeta` with the checkers' shadows attached, and the view the kernel indexes.
//!
//! Moved from `__private.rs` (issue 27).

use crate::device::{DeviceCopy, Global, GlobalMut, View};
use crate::host::check::view_meta::ViewMeta;
use crate::host::mem::slice::{KernelArg, KernelArgMut};
use crate::host::report::error::Error;

/// A read-only view of a device buffer or slice, for a `&[T]` kernel parameter: the view
/// lives as long as the borrows of the argument and of its description.
///
/// # Safety
///
/// `meta` must describe `arg`'s buffer: it is the value [`meta`] returned for this argument,
/// unchanged (the checkers write through its shadow pointers at the view's addresses, sized
/// for the whole buffer).
pub unsafe fn global<'l, T: DeviceCopy, A: KernelArg<T>>(
    arg: &'l A,
    meta: &'l ViewMeta,
) -> Result<Global<'l, T>, Error> {
    shadow_ok(meta)?;
    let (buf, start, len) = arg.parts();
    // SAFETY: the buffer is borrowed for `'l` (through `arg`), so its memory is valid for its
    // `len` elements for all of it, and `start + len` is inside them (a slice is checked when
    // it is made); kernels access it only through views; `meta` describes it (the caller's
    // contract).
    Ok(unsafe { View::from_raw_parts(buf.raw()?.add(start), len, meta) })
}

/// The error of a checker shadow [`meta`] could not allocate (recorded as the last error).
fn shadow_ok(meta: &ViewMeta) -> Result<(), Error> {
    match crate::host::check::racecheck::shadow_of(meta).and_then(|r| r.error()) {
        Some(e) => {
            crate::host::report::last_error::record(e);
            Err(e.clone())
        }
        None => Ok(()),
    }
}

/// A writable view of a device buffer or mutable slice, for a `&mut [T]` kernel parameter.
///
/// # Safety
///
/// As for [`global`]: `meta` is the value [`meta`] returned for `arg`, unchanged.
pub unsafe fn global_mut<'l, T: DeviceCopy, A: KernelArgMut<T>>(
    arg: &'l mut A,
    meta: &'l ViewMeta,
) -> Result<GlobalMut<'l, T>, Error> {
    shadow_ok(meta)?;
    let (buf, start, len) = arg.parts_mut();
    if meta.init.is_null() {
        // Not checked by this launch: its writes are not tracked.
        buf.mark_written(start, len, None);
    }
    // SAFETY: as in `global`; the `&mut` borrow keeps the host from touching it meanwhile.
    Ok(unsafe { View::from_raw_parts(buf.raw()?.add(start), len, meta) })
}

/// The description of a buffer (or slice) parameter for reports: the whole buffer's.
pub fn meta<T: DeviceCopy, A: KernelArg<T>>(
    name: &'static str,
    arg: &A,
    checks: crate::host::config::Checks,
) -> ViewMeta {
    let buf = arg.parts().0;
    // A synchronous launch waits for the queued work that uses the buffer (a queued launch's
    // own handle does not wait).
    buf.wait_all();
    let mut m = ViewMeta::new(name, None, buf.as_ptr() as usize, buf.bytes()).of::<T>();
    m.granule = core::mem::align_of::<T>();
    if checks.initcheck {
        crate::host::check::initcheck::attach(&mut m, buf.init_bits());
    }
    if checks.racecheck {
        crate::host::check::racecheck::attach(&mut m);
    }
    m
}
