//! The device API's host entry points that need the running block: they find it (`context`)
//! and hand it to the checkers (`check`) or to its shared arena (`mem::shared_mem`).
//!
//! `#[kernel]` runs a kernel's checked copy only when a per-access checker is on
//! (`__private::per_access`), so the access hooks are never reached otherwise.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::device::{DeviceCopy, Ordered, Scope, Shared, Space, View, ViewKind};
use crate::host::check::memcheck;
use crate::host::check::view_meta::ViewMeta;
use crate::host::check::{self, initcheck, racecheck};
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

/// The checks of one access site of a chunk of a vectorised lane loop (`__private::lane_check`):
/// lane `k < m`, thread `c0 + k` of the running block, reads (`write` false) or writes
/// element `start + k` of `view` (in bounds: the lane loop's proof). A lane the checkers hand
/// back to their per-access checks runs them as the running thread; the chunk's first thread
/// is the running one again afterwards.
#[inline(never)]
pub(crate) fn on_lanes<T, K: ViewKind>(
    view: &View<T, K>,
    start: usize,
    c0: usize,
    m: usize,
    write: bool,
    at: &'static Location<'static>,
) {
    let block = context::block_for("a memory access");
    let counting = COUNTING.load(Relaxed);
    if counting {
        LANE_CHECKS[0].fetch_add(1, Relaxed);
    }
    check::on_lanes(block, view, start, c0 as u32, m, write, at, &|t| {
        if counting {
            LANE_CHECKS[1].fetch_add(1, Relaxed);
        }
        block.regions_set_current(t)
    });
    block.regions_set_current(c0 as u32);
}

/// The calls of [`on_lanes`] in the process, and the lanes they handed to a checker's
/// per-access path (one per lane and checker), counted once [`lane_checks`] was first called
/// (a counter that every host thread bumps would cost a cache line's trip per chunk).
static LANE_CHECKS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
static COUNTING: AtomicBool = AtomicBool::new(false);

/// What [`LANE_CHECKS`] counted so far (for tests); turns the counting on.
pub(crate) fn lane_checks() -> (u64, u64) {
    COUNTING.store(true, Relaxed);
    (LANE_CHECKS[0].load(Relaxed), LANE_CHECKS[1].load(Relaxed))
}

/// The checkers' look at an atomic read-modify-write on element `i` (in bounds), `op`, when the
/// running launch checks: initcheck sees a read and a write, racecheck a relaxed device-scope
/// atomic. Returns what `op` does.
#[inline(always)]
pub(crate) fn on_atomic<T, K: ViewKind, R>(
    view: &View<T, K>,
    i: usize,
    at: &'static Location<'static>,
    op: impl FnOnce() -> R,
) -> R {
    if context::checking() {
        checked_atomic(view, i, at, op)
    } else {
        op()
    }
}

#[inline(never)]
fn checked_atomic<T, K: ViewKind, R>(
    view: &View<T, K>,
    i: usize,
    at: &'static Location<'static>,
    op: impl FnOnce() -> R,
) -> R {
    let block = context::block_for("an atomic");
    let checks = block.launch().config.get_checks();
    if checks.initcheck {
        initcheck::on_atomic(block, view, i, at);
    }
    if checks.racecheck {
        racecheck::on_atomic(block, view, i, racecheck::AtomicAccess::RMW, at, op)
    } else {
        op()
    }
}

/// racecheck's look at `thread_fence()` (`scope` Device) or `thread_fence_block()` (Block),
/// when the running launch checks.
#[inline(always)]
pub(crate) fn on_fence(scope: Scope) {
    if context::checking() {
        checked_fence(scope);
    }
}

#[inline(never)]
fn checked_fence(scope: Scope) {
    let block = context::block_for("a fence");
    if block.launch().config.get_checks().racecheck {
        racecheck::on_fence(block, scope);
    }
}

/// racecheck's look at `this_cluster().sync()` by the running thread, before it waits, when
/// the running launch checks.
#[inline(always)]
pub(crate) fn on_cluster_sync() {
    if context::checking() {
        checked_cluster_sync();
    }
}

#[inline(never)]
fn checked_cluster_sync() {
    let block = context::block_for("a cluster sync");
    if block.launch().config.get_checks().racecheck {
        racecheck::on_cluster_sync(block);
    }
}

/// The checkers' hook for an ordered or volatile load or store of element `i` of `view`
/// (already bounds-checked), made at `at`: what `atomic_load`, `atomic_store`, their `_scoped`
/// forms, `volatile_load` and `volatile_store` report, when the running launch checks.
///
/// `access` says whether it writes, its `Ordering` and `Scope`, and whether it is volatile
/// (then `Relaxed` at `System` scope, as PTX's memory model treats volatile accesses). Today:
///
/// * initcheck sees a load as a read of the element (reported if nothing wrote it) and a
///   store as a write (the element is initialised from then on);
/// * racecheck checks and records them as atomic accesses, and synchronises by their ordering
///   and scope (`check/racecheck.rs`), with `op`, the access itself, as one step.
#[inline(always)]
pub(crate) fn on_ordered<T, K: ViewKind, R>(
    view: &View<T, K>,
    i: usize,
    access: Ordered,
    at: &'static Location<'static>,
    op: impl FnOnce() -> R,
) -> R {
    if context::checking() {
        checked_ordered(view, i, access, at, op)
    } else {
        op()
    }
}

#[inline(never)]
fn checked_ordered<T, K: ViewKind, R>(
    view: &View<T, K>,
    i: usize,
    access: Ordered,
    at: &'static Location<'static>,
    op: impl FnOnce() -> R,
) -> R {
    let block = context::block_for("an atomic load or store");
    let checks = block.launch().config.get_checks();
    if checks.initcheck {
        if access.write {
            initcheck::on_store(block, view, i, at);
        } else {
            initcheck::on_load(block, view, i, at);
        }
    }
    if checks.racecheck {
        racecheck::on_atomic(block, view, i, racecheck::AtomicAccess::ordered(access), at, op)
    } else {
        op()
    }
}

/// memcheck's report of an access of `size` bytes at index `index`, past the end of a view of
/// `len` elements of `stride` bytes at `base` (the stride is the size, but for a row index of
/// `t[i][j]`, where it is the row's); marks the running thread faulted (the caller skips the
/// access).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn out_of_bounds<K: ViewKind>(
    meta: *const ViewMeta,
    base: usize,
    len: usize,
    index: usize,
    size: usize,
    stride: usize,
    access: Access,
    at: &'static Location<'static>,
) {
    memcheck::out_of_bounds(context::current(), meta, K::SPACE, access, size, stride, index, len, base, at)
}

/// memcheck's report of an access of element `index` (of `size` bytes) through a view of
/// shared memory kept past its block; marks the running thread faulted (the caller skips the
/// access).
#[cold]
#[inline(never)]
pub(crate) fn stale<T, K: ViewKind>(
    view: &View<T, K>,
    index: usize,
    size: usize,
    access: Access,
    at: &'static Location<'static>,
) {
    let what = format!("a view of {} `{}`", view.len(), core::any::type_name::<T>());
    let address = (view.raw_ptr() as usize).wrapping_add(index.wrapping_mul(core::mem::size_of::<T>()));
    memcheck::stale(context::current(), K::SPACE, access, size, index, what, address, at)
}

/// memcheck's report of an access of element `index` through a view whose start,
/// `view_base`, is misaligned for its element type (a cast view); unwinds the running thread.
#[cold]
#[inline(never)]
pub(crate) fn misaligned(
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    view_base: usize,
    at: &'static Location<'static>,
) -> ! {
    memcheck::misaligned(context::current(), meta, space, access, size, index, view_base, at)
}

/// Whether the running launch checks races (false outside a kernel).
pub(crate) fn racecheck_on() -> bool {
    context::checking() && context::current().is_some_and(|b| b.launch().config.get_checks().racecheck)
}

/// `shared_array!` on the host.
#[track_caller]
pub(crate) fn static_array<T: DeviceCopy>(site: &'static SharedSite, len: usize) -> Shared<'static, T> {
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
pub(crate) fn dynamic<T: DeviceCopy>() -> Shared<'static, T> {
    context::block_for("dynamic_shared").arena().dynamic::<T>()
}
