//! The device API's host entry points that need the running block: they find it (`context`)
//! and hand it to the checkers (`check`) or to its shared arena (`mem::shared_mem`).
//!
//! `#[kernel]` runs a kernel's checked copy only when a per-access checker is on
//! (`__private::per_access`), so the access hooks are never reached otherwise.

use std::panic::Location;

use crate::device::{DeviceCopy, Shared, Space, View, ViewKind};
use crate::host::check::memcheck::{self, ViewMeta};
use crate::host::check::{self, initcheck};
use crate::host::mem::shared_mem::SharedSite;
use crate::host::report::{Access, Finding, SourceLocation};
use crate::host::sched::context;

/// A checked load of element `i` (in bounds).
#[inline(never)]
pub(crate) fn on_load<T, K: ViewKind>(view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    check::on_access(context::block_for("a memory access"), view, i, false, at);
}

/// A checked store to element `i` (in bounds).
#[inline(never)]
pub(crate) fn on_store<T, K: ViewKind>(view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    check::on_access(context::block_for("a memory access"), view, i, true, at);
}

/// initcheck's look at an atomic on element `i` (in bounds), when the running launch checks.
#[inline(always)]
pub(crate) fn on_atomic<T, K: ViewKind>(view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    if context::checking() {
        let block = context::block_for("an atomic");
        if block.launch().config.get_checks().initcheck {
            initcheck::on_atomic(block, view, i, at);
        }
    }
}

/// memcheck's report of an access of element `index` past the end of a view (`len`
/// elements of `size` bytes at `view_base`); unwinds the running thread.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn out_of_bounds(
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    len: usize,
    view_base: usize,
    at: &'static Location<'static>,
) -> ! {
    memcheck::out_of_bounds(context::current(), meta, space, access, size, index, len, view_base, at)
}

/// `shared_array!` on the host.
#[track_caller]
pub(crate) fn static_array<T: DeviceCopy>(site: &'static SharedSite, len: usize) -> Shared<T> {
    let block = context::block_for("shared_array!");
    let at = Location::caller();
    match block.arena().array::<T>(site, len) {
        Ok(v) => v,
        Err((requested, limit)) => block.fail(Finding::SharedMemoryExceeded {
            requested,
            limit,
            at: SourceLocation::from(at),
            thread: block.thread(),
            block: block.block_idx(),
        }),
    }
}

/// `dynamic_shared::<T>()` on the host.
pub(crate) fn dynamic<T: DeviceCopy>() -> Shared<T> {
    context::block_for("dynamic_shared").arena().dynamic::<T>()
}
