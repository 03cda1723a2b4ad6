//! Items the macros' expansions use. Not a public API: names and signatures may change in any
//! release.

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::atomic::{
    AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicMinMaxImpl, AtomicSubImpl,
};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::memory::{AtomicAddImpl, MetaPtr, ViewMeta};
pub use crate::device::backend::BarrierOp;
pub use crate::device::{DeviceCopy, Dim3, Global, GlobalMut, Shared, View, ViewKind, Writable};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::{
    buffer::DeviceBuffer,
    launch::{launch, launch_on_gpu, launch_tasks, GpuArg, KernelInfo, LaunchConfig},
    shared_mem::SharedSite,
};


#[cfg(not(target_arch = "nvptx64"))]
use core::panic::Location;

pub use crate::device::print::kprint_args;

/// `v[i]` in a kernel.
#[inline(always)]
#[track_caller]
pub fn load<T: DeviceCopy, K: ViewKind>(v: &View<T, K>, i: usize) -> T {
    v.load(i)
}

/// `v[i] = value` in a kernel.
#[inline(always)]
#[track_caller]
pub fn store<T: DeviceCopy, K: Writable>(v: &View<T, K>, i: usize, value: T) {
    v.store(i, value)
}

/// `v[i]` as the non-last index of `v[i][j]`.
#[inline(always)]
#[track_caller]
pub fn row<T: DeviceCopy, const N: usize, K: ViewKind>(v: &View<[T; N], K>, i: usize) -> View<T, K> {
    v.row(i)
}

/// `sync_threads()` (and its count/and/or forms, by `op`) in the body of a state-machine
/// kernel: `#[kernel]` writes `barrier_await(op, predicate).await` in its place.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn barrier_await(op: BarrierOp, predicate: bool) -> crate::host::task::BarrierAwait {
    crate::host::task::BarrierAwait::new(op, predicate)
}

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
pub fn shared_array<T: DeviceCopy, const N: usize>(site: &'static SharedSite) -> Shared<T> {
    crate::device::backend::shared_array::<T, N>(site)
}

/// A read-only view of a device buffer, for a `&[T]` kernel parameter.
///
/// `meta` must outlive the launch.
#[cfg(not(target_arch = "nvptx64"))]
pub fn global<T: DeviceCopy>(buf: &DeviceBuffer<T>, meta: &ViewMeta) -> Result<Global<T>, crate::Error> {
    // SAFETY: the buffer is borrowed for the whole launch by the launcher, so its memory is
    // valid for `len` elements; kernels access it only through views.
    Ok(unsafe { View::from_raw_parts(buf.raw()?, buf.len(), meta) })
}

/// A writable view of a device buffer, for a `&mut [T]` kernel parameter.
#[cfg(not(target_arch = "nvptx64"))]
pub fn global_mut<T: DeviceCopy>(buf: &mut DeviceBuffer<T>, meta: &ViewMeta) -> Result<GlobalMut<T>, crate::Error> {
    // SAFETY: as in `global`; the `&mut` borrow keeps the host from touching it meanwhile.
    Ok(unsafe { View::from_raw_parts(buf.raw()?, buf.len(), meta) })
}

/// The description of a buffer parameter for reports.
#[cfg(not(target_arch = "nvptx64"))]
pub fn meta<T: DeviceCopy>(name: &'static str, buf: &DeviceBuffer<T>) -> ViewMeta {
    ViewMeta { name, declared_at: None, base: buf.as_ptr() as usize, bytes: buf.bytes() }
}

#[cfg(target_arch = "nvptx64")]
pub use crate::device::backend::{
    shared_view, AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicMinMaxImpl,
    AtomicSubImpl,
};

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

/// Types a kernel may take by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a plain-data type",
    note = "kernel parameters are scalars (integers, floats, bool), `#[repr(C)]` plain-data structs implementing `DeviceCopy`, `&[T]` or `&mut [T]`"
)]
pub trait KernelScalar: DeviceCopy {}
impl<T: DeviceCopy> KernelScalar for T {}
