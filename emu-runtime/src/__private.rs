//! Items the macros' expansions use. Not a public API: names and signatures may change in any
//! release.

pub use crate::device::backend::BarrierOp;
pub use crate::device::backend::{
    AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl,
    AtomicMinMaxImpl, AtomicSubImpl,
};
pub use crate::device::part::{part, part_offset, val, FinishKind, Part, PartMut, Val};
pub use crate::device::{
    Constant, DeviceCopy, DeviceGlobal, Dim3, Global, GlobalMut, Shared, SymbolDef, View, ViewKind, Writable,
};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::check::view_meta::{MetaPtr, ViewMeta};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::stream::{
    launch::{launch_on_gpu_stream, on_default_stream, Queued},
    Stream,
};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::{
    config::Checks,
    launch_desc::{GpuArg, KernelInfo, LaunchConfig},
    mem::buffer::DeviceBuffer,
    mem::shared_mem::SharedSite,
    mem::slice::{KernelArg, KernelArgMut},
    sched::devrt::{device_launch, DeviceArg, DeviceArgMut, DeviceStream},
    sched::launch::{last_runners, launch, launch_on_gpu, launch_tasks},
    sched::regions::{
        announce_general, last_in_place, last_narrowed, last_path, last_proved, last_scaled, last_spanned,
        last_strided, last_vectorised, last_views, launch_lanes, launch_lanes_spanned, launch_regions,
        launch_regions_guarded, region_progress_point, vote_new, vote_put, vote_seal, Exchange, Guard, HandOver,
        LaneCursor, Lanes, Regions, SlotOf, Slots, TaggedSlots, Turn, Vote, Voted, ZeroSlots,
    },
    sched::verify::{inject_fast_path_fault, Written},
};

/// racecheck's accounting of its global-memory shadows, for tests: the bytes that the shadows
/// dropped since the last [`reset_race_shadow_peak`] held at their end (the resident pages of
/// their records and their out-of-line entries; the process-wide table of access states is
/// [`race_states`]), and the bytes reserved against `EMU_RACECHECK_SHADOW` now.
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_shadow_bytes() -> (usize, usize) {
    crate::host::check::racecheck::global_shadow_bytes()
}

/// racecheck's pool of the mappings of ended shadows, for tests: the bytes it keeps reserved
/// against `EMU_RACECHECK_SHADOW` (the pages earlier launches touched, which the next shadow
/// of the same size zeroes as it touches them again) and how many mappings it holds. The live
/// shadows' reservations, [`race_shadow_bytes`]' second figure, do not include them.
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_shadow_pool() -> (usize, usize) {
    crate::host::check::racecheck::global_shadow_pool()
}

/// Turns racecheck's accounting on and starts a new sum for [`race_shadow_bytes`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn reset_race_shadow_peak() {
    crate::host::check::racecheck::reset_global_shadow_peak()
}

/// How many access states racecheck has interned in the process (about 40 bytes each).
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_states() -> usize {
    crate::host::check::racecheck::interned_states()
}

#[cfg(not(target_arch = "nvptx64"))]
use core::panic::Location;

pub use crate::device::access::{
    helper_checking, range_add, range_cast, range_last, range_max, range_min, range_mul, range_neg, range_skip_hi,
    range_skip_lo, range_sub, row, row_len, row_write, Index, RangeInt,
};
pub use crate::device::print::kprint_args;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub use crate::host::mem::memory::{clear_ymm_upper, ymm_upper_in_use};

/// How an access `v[i]` of a kernel checks itself: `bool`, the `__EMU_CHECKED` of the
/// per-thread forms (whether the checkers see it), or [`Valid`] in a region whose views were
/// checked live and aligned when it started (`fission/views.rs`). One `load` and one `store`
/// take either, so that a kernel's error at an access (an index that is no integer) is one
/// error, not one per form.
pub trait Access: Copy {
    /// `v[i]`.
    #[track_caller]
    fn load<T: DeviceCopy, K: ViewKind>(self, v: &View<T, K>, i: usize) -> T;
    /// `v[i] = value`.
    #[track_caller]
    fn store<T: DeviceCopy, K: Writable>(self, v: &View<T, K>, i: usize, value: T);
}

impl Access for bool {
    #[inline(always)]
    #[track_caller]
    fn load<T: DeviceCopy, K: ViewKind>(self, v: &View<T, K>, i: usize) -> T {
        crate::device::access::load(self, v, i)
    }
    #[inline(always)]
    #[track_caller]
    fn store<T: DeviceCopy, K: Writable>(self, v: &View<T, K>, i: usize, value: T) {
        crate::device::access::store(self, v, i, value)
    }
}

/// The accesses of a region whose views were found live and aligned when it started: each
/// checks its index only (`load_valid`, `store_valid`).
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct Valid;

#[cfg(not(target_arch = "nvptx64"))]
impl Access for Valid {
    #[inline(always)]
    #[track_caller]
    fn load<T: DeviceCopy, K: ViewKind>(self, v: &View<T, K>, i: usize) -> T {
        load_valid(v, i)
    }
    #[inline(always)]
    #[track_caller]
    fn store<T: DeviceCopy, K: Writable>(self, v: &View<T, K>, i: usize, value: T) {
        store_valid(v, i, value)
    }
}

/// `v[i]` in a kernel (`device/access.rs`; a forward, so that a bad index's error names this
/// path).
#[inline(always)]
#[track_caller]
pub fn load<T: DeviceCopy, K: ViewKind, I: Index, A: Access>(checked: A, v: &View<T, K>, i: I) -> T {
    checked.load(v, i.to_index())
}

/// `v[i] = value` in a kernel (`device/access.rs`; a forward, as [`load`]).
#[inline(always)]
#[track_caller]
pub fn store<T: DeviceCopy, K: Writable, I: Index, A: Access>(checked: A, v: &View<T, K>, i: I, value: T) {
    checked.store(v, i.to_index(), value)
}
#[cfg(target_arch = "nvptx64")]
pub use crate::device::devrt::{DeviceArg, DeviceArgMut, DeviceStream, ParamBuffer};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::device::backend::ReduxKind;
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::sched::regions::fast::{
    lane_check, lane_checks, lane_dst, lane_last, lane_load, lane_run, lane_src, lane_store, lanes_kept, lin_add,
    lin_fits, lin_mul, lin_neg, lin_sub, lin_value, load_in_bounds, load_row_in_bounds, load_valid, region_bound,
    region_bound_scaled, store_in_bounds, store_row_in_bounds, store_valid, view_aligned, xchg_all, xchg_any,
    xchg_ballot, xchg_down, xchg_idx, xchg_put, xchg_reduce, xchg_up, xchg_xor, LaneAt, LaneBuf, LaneDst, LaneInt,
    LaneMark, LaneSrc, RegionBound, Snapshot, LANE_CHUNK, SPAN_CHUNK, TIER_HOISTED, TIER_INTERLEAVE, TIER_RANGES,
    TIER_TURN, TIER_VECTOR, TIER_VIEWS, VECTOR_MIN, VECTOR_MIN_IN_PLACE,
};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::sched::launch::host_only_on_gpu;

/// What the debugger command `emu-where` prints for the running GPU thread (for tests).
#[cfg(not(target_arch = "nvptx64"))]
pub fn debugger_where() -> String {
    crate::host::sched::debugger::where_now()
}

/// Runs `launch` (one `launch!`) as a cooperative launch (`launch_cooperative!`).
#[cfg(not(target_arch = "nvptx64"))]
pub fn cooperative<R>(launch: impl FnOnce() -> R) -> R {
    crate::host::sched::launch::cooperative(launch)
}

/// The checkers of the launch being made: the launcher runs the kernel's checked copy when one
/// of them watches each access ([`per_access`]), and gives them to [`meta`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_checks() -> crate::host::config::Checks {
    crate::host::config::effective().map(|c| c.get_checks()).unwrap_or_default()
}

/// Whether `checks` has a checker that watches each access (initcheck, racecheck).
#[cfg(not(target_arch = "nvptx64"))]
pub fn per_access(checks: crate::host::config::Checks) -> bool {
    crate::host::check::any(checks)
}

/// `sync_threads()` (and its count/and/or forms, by `op`) in the body of a state-machine
/// kernel: `#[kernel]` writes `barrier_await(op, predicate).await` in its place.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn barrier_await(op: BarrierOp, predicate: bool) -> crate::host::sched::task::BarrierAwait {
    crate::host::sched::task::BarrierAwait::new(op, predicate)
}

/// What an awaited `sync_threads_and` or `sync_threads_or` returns, from the barrier's count:
/// `#[kernel]` writes `barrier_bool(barrier_await(op, p).await)`, a call, so that a statement
/// `sync_threads_or(p);` that drops it is no unused comparison.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn barrier_bool(count: u32) -> bool {
    count != 0
}

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::sched::warp_awaits::*;

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::sched::thread::{Exit, ThreadCtx};
/// Where a GPU thread exited (nothing on the GPU).
#[cfg(target_arch = "nvptx64")]
pub type Exit = ();

/// Keeps the `ThreadCtx` argument of a kernel's plain host form readable by a debugger on every
/// line: `#[kernel]` calls it at the end of the body. Not `inline(always)`: in a debug build the
/// call keeps the argument's address live, so it stays in a stack slot for the whole body (a
/// kernel that never reads a built-in index would otherwise show `__emu_ctx` as optimized out
/// after its first call); an optimised build inlines it to nothing.
#[cfg(not(target_arch = "nvptx64"))]
#[inline]
pub fn keep_ctx(_ctx: &ThreadCtx) {}

/// The running GPU thread exits here: `#[kernel]` returns this at each `return` and at the
/// end of the body. Not `inline(always)`: in a debug build its call is the code of the
/// kernel's closing brace, so that stepping stops there as it does at the end of a function.
#[inline]
#[track_caller]
pub fn exit_here() -> Exit {
    #[cfg(not(target_arch = "nvptx64"))]
    return Location::caller();
}

/// `dynamic_shared_parts::<P>(lens)` in a kernel (the rewrite calls it by this path).
#[inline(always)]
#[track_caller]
pub fn dynamic_shared_parts<P: crate::device::SharedParts>(lens: P::Lens) -> P::Views {
    crate::device::dynamic_shared_parts::<P>(lens)
}

/// `shared_scalar![T]`: the value held in the one-element shared array `view`.
#[inline(always)]
pub fn shared_scalar<T: DeviceCopy>(view: Shared<'_, T>) -> crate::device::SharedScalar<'_, T> {
    crate::device::SharedScalar::new(view)
}

/// `shared_array![T; N]`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn shared_array<T: DeviceCopy, const N: usize>(site: &'static SharedSite) -> Shared<'static, T> {
    crate::device::backend::shared_array::<T, N>(site)
}

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::mem::params::{global, global_mut, meta};

#[cfg(target_arch = "nvptx64")]
pub use crate::device::backend::shared_view;

/// Tells the optimiser what the hardware guarantees of `thread_idx()`, `block_idx()` and their
/// bounds (`%tid < %ntid`, `%ctaid < %nctaid`): the GPU entry of every kernel calls it first.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn assume_index_facts() {
    crate::device::backend::assume_index_facts()
}

/// Tells the optimiser that the running block has at most `max` threads: the GPU entry of a
/// `#[kernel(launch_bounds(max, ..))]` calls it, as `__launch_bounds__` lets nvcc assume.
///
/// # Safety
///
/// The block must have at most `max` threads: only the GPU entry of a kernel declared
/// `launch_bounds(max)` may call it (its launcher refuses bigger blocks, and its PTX has
/// `.maxntid max, 1, 1`, so the driver does too).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn assume_launch_bounds(max: u32) {
    // SAFETY: the caller's contract.
    unsafe { crate::device::backend::assume_block_at_most(max) }
}

/// The alignment of a `.shared` array of `T` (at least 16 bytes).
pub const fn shared_align<T>() -> usize {
    let a = core::mem::align_of::<T>();
    if a > 16 {
        a
    } else {
        16
    }
}

/// Asserts at compile time that a kernel's scalar parameter type can be passed to a kernel.
pub const fn assert_kernel_scalar<T: KernelScalar>() {}

/// A view passed to a function (`h(x)` in a kernel, `x` a view): `#[kernel]` and `#[device]`
/// write `pass(x)`, which is the view itself where the parameter is a view (a `#[device]`
/// helper's `&[T]`, `Global<T>`, ...), and where it is not, the error of [`FromView`], which
/// says to add `#[device]` to the helper.
#[inline(always)]
pub fn pass<V, P: FromView<V>>(v: V) -> P {
    P::from_view(v)
}

/// What a view may be passed as: the view itself.
#[diagnostic::on_unimplemented(
    message = "a view of device memory is passed where `{Self}` is expected",
    label = "this is a view (`{V}`), not `{Self}`",
    note = "a helper that takes a kernel's `&[T]` or `&mut [T]` needs `#[device]`: add `#[device]` to it, and its slice parameters take the kernel's views (bounds-checked)",
    note = "a view is passed as a view of the same kind: `&[T]`/`Global<T>` for a kernel's `&[T]`, `&mut [T]`/`GlobalMut<T>` for its `&mut [T]`"
)]
pub trait FromView<V>: Sized {
    /// `v` as the parameter's type.
    fn from_view(v: V) -> Self;
}

impl<'l, T: DeviceCopy, K: ViewKind> FromView<View<'l, T, K>> for View<'l, T, K> {
    #[inline(always)]
    fn from_view(v: Self) -> Self {
        v
    }
}

/// Implemented by nothing: what a kernel's name means as a function on the host requires it,
/// so that calling a kernel like a function is an error that says how to launch it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a kernel: it cannot be called like a function",
    label = "called like a function",
    note = "launch it with `launch!({Self}<<<grid, block>>>(...))`"
)]
pub trait NotAFunction<'a> {}

/// Types a kernel may take by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a plain-data type",
    note = "kernel parameters are scalars (integers, floats, bool), `#[repr(C)]` plain-data structs implementing `DeviceCopy`, `&[T]` or `&mut [T]`"
)]
pub trait KernelScalar: DeviceCopy {}
impl<T: DeviceCopy> KernelScalar for T {}

/// A progress point's counter (`#[kernel]` and `#[device]` put one at the head of every
/// `while` and `loop` body of the host form): `true` every few iterations, when the thread
/// must go through [`progress_point`] (or await [`progress_await`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn progress_due(counter: &mut u32) -> bool {
    crate::host::sched::progress::due(counter)
}

/// A progress point's slow path in plain code: the watchdog's check, and a yield to the block's
/// other threads when one can run (`host/progress.rs`).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn progress_point() {
    crate::host::sched::progress::point()
}

/// A progress point's slow path in the body of a state-machine kernel, `.await`ed.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn progress_await() -> crate::host::sched::progress::ProgressAwait {
    crate::host::sched::progress::ProgressAwait::new()
}

/// On the GPU, progress points are nothing: the hardware schedules threads independently.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn progress_due(_counter: &mut u32) -> bool {
    false
}

/// On the GPU, progress points are nothing.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn progress_point() {}

/// A write to a static in a kernel (`NAME[i] = x`): `#[kernel]` calls `NAME.__emu_write_to()`
/// first, which is this trait's no-op for every static but a `#[constant]`, whose inherent
/// method of the same name fails to compile with a message that says what to do.
pub trait WriteToStatic {
    /// Nothing: the static may be written.
    #[inline(always)]
    fn __emu_write_to(&self) {}
}
impl<T: ?Sized> WriteToStatic for T {}

/// What a kernel's launcher asks of a `#[device]` helper it calls from region code when the
/// helper's own `__emu_waits_NAME!()` (emitted next to it, `emu-macros/src/fission/helpers.rs`)
/// is not in textual scope: it may wait, so the launch takes the general path.
#[doc(hidden)]
#[macro_export]
macro_rules! __emu_helper_may_wait {
    () => {
        true
    };
}
#[doc(hidden)]
pub use crate::__emu_helper_may_wait as helper_may_wait;
