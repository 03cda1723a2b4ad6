//! memcheck: accesses outside the memory a view covers.
//!
//! # Algorithm
//!
//! There is no shadow: every element access of a view (`View::get`, `set`, indexing, atomics)
//! compares its index with the view's length before it touches memory (`check_index` in
//! `device/backend/host.rs`), always, whatever `EMU_CHECK` says: the emulator's memory safety
//! rests on it, since a view's pointer is only valid for `len` elements. An index past the end
//! is reported here with the view's description (the kernel parameter's name, or the
//! `__shared__` array's declaration), the address and the allocation's bounds, in
//! compute-sanitizer's words, and the thread stops there, as if it had exited. The block's
//! other threads carry on, so every faulting thread counts one error, as under
//! compute-sanitizer, where a faulting thread stops at its first fault (on an H200 with
//! `--destroy-on-device-error kernel`, 10^6 threads that each make two faulting writes count
//! 1,000,000 errors; `tools/probes/RESULTS.md`). The launch returns the report (error 700).
//!
//! A thread stops by unwinding, which costs microseconds. So past the first 256 faults of a
//! launch (`UNWIND_LIMIT` in `sched/launch.rs`) a faulting
//! thread is only marked *faulted*: the access does nothing (a load gives zero bits), its later
//! faults and findings are dropped, and it stops at its next barrier, warp collective or loop
//! progress point. What it computes until then is not defined, as memory after a faulting
//! launch is not on the GPU (the context is lost there): its stores and atomics on in-bounds
//! memory still happen. A fault's report is built only if it is among the lowest (block,
//! thread) of the launch, which the report stores (`report::LaunchFindings`). So a launch in
//! which every thread faults costs about what a clean one does, in bounded memory
//! (`benches/failures.rs`).
//!
//! The description ([`ViewMeta`], `check/view_meta.rs`) is made by the launcher for each
//! buffer parameter and by the shared arena for each shared array; initcheck and racecheck
//! attach their shadows of the allocation to it, when those checkers are on.

use core::panic::Location;

use crate::device::Space;
use crate::host::check::view_meta::{describe, ViewMeta};
use crate::host::check::{Fault, Site};
use crate::host::report::{Access, Finding, SourceLocation};

/// Reports an out-of-bounds access by the running GPU thread and marks it faulted (the caller
/// then skips the access; a load gives zero bits): an access of `size` bytes at index `index`
/// of a view of `len` elements of `stride` bytes at `view_base` (the stride is the size but
/// for a row index of `t[i][j]`, where it is the row's).
///
/// `site` is the running block (`None` outside a kernel: a view used from host code, then this
/// is an ordinary panic).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn out_of_bounds<S: Site + ?Sized>(
    site: Option<&S>,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    stride: usize,
    index: usize,
    len: usize,
    view_base: usize,
    at: &'static Location<'static>,
) {
    let Some(ctx) = site else {
        // SAFETY: a view's meta pointer is either null or points to a `ViewMeta` that outlives
        // the launch (kept by the launcher or the block's shared arena).
        let name = unsafe { meta.as_ref() }.map_or("<view>", |m| m.name);
        panic!("index {index} out of bounds for `{name}` of length {len}");
    };
    // First the count: a fault past what the launch stores costs nothing more.
    match ctx.fault() {
        Fault::Repeat => return,
        Fault::Report => report(ctx, meta, space, access, size, stride, index, len, view_base, at),
        Fault::Count => {}
    }
    ctx.after_fault();
}

/// Builds and stores the report of a fault that the launch keeps.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn report<S: Site + ?Sized>(
    ctx: &S,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    stride: usize,
    index: usize,
    len: usize,
    view_base: usize,
    at: &'static Location<'static>,
) {
    // SAFETY: as in `out_of_bounds`.
    let meta = unsafe { meta.as_ref() };
    let (name, base, bytes) = match meta {
        Some(m) => (m.name, m.base, m.bytes),
        None => ("<view>", view_base, len * stride),
    };
    let address = view_base.wrapping_add(index.wrapping_mul(stride));
    ctx.keep_fault(Finding::OutOfBounds {
        space,
        access,
        size,
        index,
        len,
        name: match meta {
            Some(m) => describe(m),
            None => format!("`{name}`"),
        },
        address,
        base,
        bytes,
        at: SourceLocation::from(at),
        thread: ctx.thread(),
        block: ctx.block_idx(),
    })
}

/// Reports an access through a view whose start is misaligned for the element type (a
/// `View::cast` of an offset start) by the running GPU thread, and unwinds it, as the GPU
/// faults with cudaErrorMisalignedAddress (716).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn misaligned<S: Site + ?Sized>(
    site: Option<&S>,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    view_base: usize,
    at: &'static Location<'static>,
) -> ! {
    // SAFETY: as in `out_of_bounds`.
    let meta = unsafe { meta.as_ref() };
    let address = view_base.wrapping_add(index.wrapping_mul(size));
    let name = meta.map_or_else(|| "`<view>`".to_owned(), describe);
    let Some(ctx) = site else {
        panic!("misaligned access of size {size} at {address:#x} through a cast view of {name}");
    };
    ctx.fail(Finding::MisalignedAddress {
        space,
        access,
        size,
        index,
        name,
        address,
        at: SourceLocation::from(at),
        thread: ctx.thread(),
        block: ctx.block_idx(),
    })
}

/// memcheck's report of an access of element `index` (of `size` bytes) through a view of
/// shared memory whose block has ended (its stamp is stale, `mem/stamp.rs`): counted and
/// reported as a fault; the caller skips the access. `what` describes the view without its
/// description, which may be gone with its arena. Outside a kernel it is a panic.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stale<S: Site + ?Sized>(
    site: Option<&S>,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    what: String,
    address: usize,
    at: &'static Location<'static>,
) {
    let Some(ctx) = site else {
        panic!("{what}, a view of shared memory, was used at {at} after the block that made it ended");
    };
    match ctx.fault() {
        Fault::Repeat => return,
        Fault::Report => ctx.keep_fault(Finding::StaleView {
            space,
            access,
            size,
            index,
            name: what,
            address,
            at: SourceLocation::from(at),
            thread: ctx.thread(),
            block: ctx.block_idx(),
        }),
        Fault::Count => {}
    }
    ctx.after_fault();
}
