//! Items the macros' expansions use. Not a public API: names and signatures may change in any
//! release.

pub use crate::device::backend::{
    AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl, AtomicMinMaxImpl,
    AtomicSubImpl,
};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::check::memcheck::{MetaPtr, ViewMeta};
pub use crate::device::backend::BarrierOp;
pub use crate::device::{DeviceCopy, Dim3, Global, GlobalMut, Shared, View, ViewKind, Writable};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::{
    mem::buffer::DeviceBuffer,
    sched::launch::{launch, launch_on_gpu, launch_tasks, GpuArg, KernelInfo, LaunchConfig},
    mem::shared_mem::SharedSite,
};


#[cfg(not(target_arch = "nvptx64"))]
use core::panic::Location;

pub use crate::device::print::kprint_args;

/// The integer types an index of device memory may have (`v[i]`, `t[r][c]`), as CUDA code
/// writes them: every primitive integer. A non-negative index that fits in `usize` is that
/// `usize`; a negative one becomes its two's complement (`i as isize as usize`, the address
/// it would touch, below the view's start), and a value too large for `usize` becomes
/// `usize::MAX`: both are out of bounds for every view, and the report of a negative index
/// shows its value (`index -1 is before the start of ...`). For `usize` it is the identity.
#[diagnostic::on_unimplemented(
    message = "device memory cannot be indexed by `{Self}`",
    label = "not a primitive integer",
    note = "an index of a view is a primitive integer (`u32`, `i32`, `usize`, `i64`, ...)"
)]
pub trait Index: Copy {
    /// The index as a `usize`.
    fn to_index(self) -> usize;
}

impl Index for usize {
    #[inline(always)]
    fn to_index(self) -> usize {
        self
    }
}

macro_rules! index_impls {
    (unsigned: $($u:ty),*; signed: $($s:ty),*) => {
        $(impl Index for $u {
            #[inline(always)]
            fn to_index(self) -> usize {
                // Lossless for the types narrower than `usize`; a `u128` (or a `u64` on a
                // 32-bit target) too large for `usize` is out of bounds anyway.
                usize::try_from(self).unwrap_or(usize::MAX)
            }
        })*
        $(impl Index for $s {
            #[inline(always)]
            fn to_index(self) -> usize {
                // Sign-extended: a negative index wraps below the view's start (at least
                // `usize::MAX / 2 + 1`, past the end of every view); an `i128` beyond `isize`
                // saturates.
                match isize::try_from(self) {
                    Ok(i) => i as usize,
                    Err(_) if self < 0 => isize::MIN as usize,
                    Err(_) => usize::MAX,
                }
            }
        })*
    };
}

index_impls!(unsigned: u8, u16, u32, u64, u128; signed: i8, i16, i32, i64, i128, isize);

/// `v[i]` in a kernel. `checked` is a constant in a kernel's body (`#[kernel]` compiles the
/// body with and without the checkers that watch each access, initcheck and racecheck), and
/// asked once per call in a `#[device]` helper.
#[inline(always)]
#[track_caller]
pub fn load<T: DeviceCopy, K: ViewKind, I: Index>(checked: bool, v: &View<T, K>, i: I) -> T {
    let i = i.to_index();
    let x = v.load(i);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        crate::host::sched::hooks::on_load(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
    x
}

/// `v[i] = value` in a kernel (`checked` as for [`load`]).
#[inline(always)]
#[track_caller]
pub fn store<T: DeviceCopy, K: Writable, I: Index>(checked: bool, v: &View<T, K>, i: I, value: T) {
    let i = i.to_index();
    v.store(i, value);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        crate::host::sched::hooks::on_store(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
}

/// The launch of a `#[kernel(host_only)]` kernel when its target is the GPU: an error that
/// names the kernel (it has no PTX); `None` when the target is the emulator (or the settings
/// are invalid, which the emulated launch then reports).
#[cfg(not(target_arch = "nvptx64"))]
pub fn host_only_on_gpu(kernel: &'static KernelInfo) -> Option<Result<(), crate::Error>> {
    let config = crate::host::config::effective().ok()?;
    if config.get_target() != crate::host::config::Target::Gpu {
        return None;
    }
    let e = crate::Error::NotSupported {
        message: format!(
            "kernel `{}` is `#[kernel(host_only)]`: it has no PTX and runs on the emulator only; \
             launch it with the emulator as the target (EMU_TARGET=emulator), or remove `host_only`",
            kernel.name
        ),
    };
    crate::host::report::last_error::record(&e);
    Some(Err(e))
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

/// Whether the running kernel checks accesses: what a `#[device]` helper asks once per call.
#[inline(always)]
pub fn helper_checking() -> bool {
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::host::sched::context::checking();
    #[cfg(target_arch = "nvptx64")]
    return false;
}

/// `v[i]` as the non-last index of `v[i][j]`.
#[inline(always)]
#[track_caller]
pub fn row<'l, T: DeviceCopy, const N: usize, K: ViewKind, I: Index>(v: &View<'l, [T; N], K>, i: I) -> View<'l, T, K> {
    v.row(i.to_index())
}

/// `v[i]` as the non-last index of `v[i][j] = x`: a bad `i` is reported as a write.
#[inline(always)]
#[track_caller]
pub fn row_write<'l, T: DeviceCopy, const N: usize, K: ViewKind, I: Index>(v: &View<'l, [T; N], K>, i: I) -> View<'l, T, K> {
    v.row_for(i.to_index(), crate::device::backend::AccessKind::Write)
}

/// `sync_threads()` (and its count/and/or forms, by `op`) in the body of a state-machine
/// kernel: `#[kernel]` writes `barrier_await(op, predicate).await` in its place.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn barrier_await(op: BarrierOp, predicate: bool) -> crate::host::sched::task::BarrierAwait {
    crate::host::sched::task::BarrierAwait::new(op, predicate)
}

/// Warp collectives in the body of a state-machine kernel: `#[kernel]` writes
/// `sync_warp_await(mask).await` in place of `sync_warp(mask)`, and so on for each collective.
/// Each waits for its warp as an `.await` rather than by parking a fiber.
#[cfg(not(target_arch = "nvptx64"))]
mod warp_awaits {
    use core::future::Future;

    use crate::device::backend::{ShflMode, VoteOp};
    use crate::device::WarpShuffle;
    use crate::host::sched::task::WarpAwait;
    use crate::host::sched::warp::WarpOp;

    /// `active_mask()`.
    #[inline(always)]
    #[track_caller]
    pub fn active_mask_await() -> impl Future<Output = u32> {
        let w = WarpAwait::new(WarpOp::ActiveMask, 0, 0, 0);
        async move { w.await as u32 }
    }

    /// `sync_warp(mask)`.
    #[inline(always)]
    #[track_caller]
    pub fn sync_warp_await(mask: u32) -> impl Future<Output = ()> {
        let w = WarpAwait::new(WarpOp::Sync, mask, 0, 0);
        async move {
            w.await;
        }
    }

    /// `all_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn all_sync_await(mask: u32, p: bool) -> impl Future<Output = bool> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::All), mask, p as u64, 0);
        async move { w.await != 0 }
    }

    /// `any_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn any_sync_await(mask: u32, p: bool) -> impl Future<Output = bool> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::Any), mask, p as u64, 0);
        async move { w.await != 0 }
    }

    /// `ballot_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn ballot_sync_await(mask: u32, p: bool) -> impl Future<Output = u32> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::Ballot), mask, p as u64, 0);
        async move { w.await as u32 }
    }

    macro_rules! shuffles {
        ($($(#[$doc:meta])* $name:ident, $mode:ident;)*) => { $(
            $(#[$doc])*
            #[inline(always)]
            #[track_caller]
            pub fn $name<T: WarpShuffle>(mask: u32, value: T, lane: u32) -> impl Future<Output = T> {
                let w = WarpAwait::new(WarpOp::Shfl(ShflMode::$mode), mask, value.to_bits(), lane);
                async move { T::from_bits(w.await) }
            }
        )* };
    }

    shuffles! {
        /// `shfl_sync(mask, v, src_lane)`.
        shfl_sync_await, Idx;
        /// `shfl_up_sync(mask, v, delta)`.
        shfl_up_sync_await, Up;
        /// `shfl_down_sync(mask, v, delta)`.
        shfl_down_sync_await, Down;
        /// `shfl_xor_sync(mask, v, lane_mask)`.
        shfl_xor_sync_await, Bfly;
    }
}
#[cfg(not(target_arch = "nvptx64"))]
pub use warp_awaits::*;

/// The indices of the GPU thread a kernel function runs as: `#[kernel]` passes them to the
/// host form of the kernel, and replaces `thread_idx()`, `block_idx()`, `block_dim()` and
/// `grid_dim()` in the kernel's own body by these fields.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct ThreadCtx {
    /// `threadIdx`.
    pub thread_idx: Dim3,
    /// `blockIdx`.
    pub block_idx: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
}

/// Where a GPU thread exited: what a kernel function returns (on the host, the position of
/// the `return` or of the end of the body, for synccheck; nothing on the GPU).
#[cfg(not(target_arch = "nvptx64"))]
pub type Exit = &'static Location<'static>;
/// Where a GPU thread exited (nothing on the GPU).
#[cfg(target_arch = "nvptx64")]
pub type Exit = ();

/// The running GPU thread exits here: `#[kernel]` returns this at each `return` and at the
/// end of the body.
#[inline(always)]
#[track_caller]
pub fn exit_here() -> Exit {
    #[cfg(not(target_arch = "nvptx64"))]
    return Location::caller();
}

/// `shared_array![T; N]`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn shared_array<T: DeviceCopy, const N: usize>(site: &'static SharedSite) -> Shared<'static, T> {
    crate::device::backend::shared_array::<T, N>(site)
}

/// A read-only view of a device buffer, for a `&[T]` kernel parameter: the view lives as
/// long as the borrows of the buffer and of its description.
///
/// # Safety
///
/// `meta` must describe `buf`: it is the value [`meta`] returned for this buffer, unchanged
/// (the checkers write through its shadow pointers at the view's indices, sized for `buf`).
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn global<'l, T: DeviceCopy>(buf: &'l DeviceBuffer<T>, meta: &'l ViewMeta) -> Result<Global<'l, T>, crate::Error> {
    shadow_ok(meta)?;
    // SAFETY: the buffer is borrowed for `'l`, so its memory is valid for `len` elements for
    // all of it; kernels access it only through views; `meta` describes it (the caller's
    // contract).
    Ok(unsafe { View::from_raw_parts(buf.raw()?, buf.len(), meta) })
}

/// The error of a checker shadow [`meta`] could not allocate (recorded as the last error).
#[cfg(not(target_arch = "nvptx64"))]
fn shadow_ok(meta: &ViewMeta) -> Result<(), crate::Error> {
    match meta.race.as_deref().and_then(|r| r.error()) {
        Some(e) => {
            crate::host::report::last_error::record(e);
            Err(e.clone())
        }
        None => Ok(()),
    }
}

/// A writable view of a device buffer, for a `&mut [T]` kernel parameter.
///
/// # Safety
///
/// As for [`global`]: `meta` is the value [`meta`] returned for `buf`, unchanged.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn global_mut<'l, T: DeviceCopy>(
    buf: &'l mut DeviceBuffer<T>,
    meta: &'l ViewMeta,
) -> Result<GlobalMut<'l, T>, crate::Error> {
    shadow_ok(meta)?;
    if meta.init.is_null() {
        // Not checked by this launch: its writes are not tracked.
        buf.assume_written();
    }
    // SAFETY: as in `global`; the `&mut` borrow keeps the host from touching it meanwhile.
    Ok(unsafe { View::from_raw_parts(buf.raw()?, buf.len(), meta) })
}

/// The description of a buffer parameter for reports.
#[cfg(not(target_arch = "nvptx64"))]
pub fn meta<T: DeviceCopy>(name: &'static str, buf: &DeviceBuffer<T>, checks: crate::host::config::Checks) -> ViewMeta {
    let mut m = ViewMeta::new(name, None, buf.as_ptr() as usize, buf.bytes()).of::<T>();
    m.granule = core::mem::align_of::<T>();
    if checks.initcheck {
        m.init = buf.init_bits();
    }
    if checks.racecheck {
        m.race = Some(Box::new(crate::host::check::racecheck::GlobalRaceShadow::new(buf.bytes() / m.granule, name)));
    }
    m
}

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
