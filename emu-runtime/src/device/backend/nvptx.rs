//! NVPTX backend of the device API: PTX special registers, `bar.sync`, plain loads and stores
//! with a `trap` on out-of-bounds indices, `atom.*`, and `.shared` variables.
//!
//! ```text
//!  kernel code ──► device::{thread_idx, sync_threads, View::load, ...}
//!                     │
//!                     ▼
//!  this file ──► %tid / %ctaid / %ntid / %nctaid      (core::arch::nvptx)
//!            ──► bar.sync 0, bar.red.{popc,and,or}    (inline asm)
//!            ──► ld / st / atom on generic addresses  (bounds-checked, trap on failure)
//!            ──► .shared arrays declared by #[kernel] (global_asm!, cvta.shared)
//! ```
//!
//! Bounds checks trap by default (the launch then fails with CUDA's error 719 on the host);
//! the `unchecked-gpu` feature of `emu-runtime` removes them for speed.

use core::arch::asm;
use core::arch::nvptx;

use super::BarrierOp;
use crate::device::copy::DeviceCopy;
use crate::device::dim::Dim3;
use crate::device::view::{Shared, View, ViewKind, Writable};

/// Views carry no description on the GPU.
pub(crate) type MetaPtr = ();
use super::AccessKind;

#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { Dim3::new(nvptx::_thread_idx_x() as u32, nvptx::_thread_idx_y() as u32, nvptx::_thread_idx_z() as u32) }
}

#[inline(always)]
pub(crate) fn block_idx() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_block_idx_x() as u32, nvptx::_block_idx_y() as u32, nvptx::_block_idx_z() as u32) }
}

#[inline(always)]
pub(crate) fn block_dim() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_block_dim_x() as u32, nvptx::_block_dim_y() as u32, nvptx::_block_dim_z() as u32) }
}

#[inline(always)]
pub(crate) fn grid_dim() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_grid_dim_x() as u32, nvptx::_grid_dim_y() as u32, nvptx::_grid_dim_z() as u32) }
}

#[inline(always)]
pub(crate) fn barrier(op: BarrierOp, predicate: bool) -> u32 {
    let p = predicate as u32;
    let r: u32;
    // SAFETY: block barriers; `bar.red` reduces the predicate over the block's threads.
    unsafe {
        match op {
            BarrierOp::Sync => {
                nvptx::_syncthreads();
                r = 0;
            }
            BarrierOp::Count => asm!(
                "{{ .reg .pred %p; setp.ne.u32 %p, {p}, 0; bar.red.popc.u32 {r}, 0, %p; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
            BarrierOp::And => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; bar.red.and.pred %q, 0, %p; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
            BarrierOp::Or => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; bar.red.or.pred %q, 0, %p; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
        }
    }
    r
}

#[inline(always)]
pub(crate) fn fence_device() {
    // SAFETY: a memory fence.
    unsafe { asm!("membar.gl;") }
}

#[inline(always)]
pub(crate) fn fence_block() {
    // SAFETY: a memory fence.
    unsafe { asm!("membar.cta;") }
}

#[inline(always)]
fn check(i: usize, len: usize) {
    #[cfg(not(feature = "unchecked-gpu"))]
    if i >= len {
        // SAFETY: `trap` aborts the kernel; the host sees cudaErrorLaunchFailure.
        unsafe { nvptx::trap() }
    }
    #[cfg(feature = "unchecked-gpu")]
    let _ = (i, len);
}

#[inline(always)]
pub(crate) fn check_index<T, K: ViewKind>(view: &View<T, K>, i: usize, _elem_size: usize, _access: AccessKind) {
    check(i, view.len());
}

#[inline(always)]
pub(crate) fn load<T: DeviceCopy, K: ViewKind>(view: &View<T, K>, i: usize) -> T {
    check(i, view.len());
    // SAFETY: `i < len` (checked above unless the user opted out), and the view points to
    // `len` elements of device memory.
    unsafe { view.raw_ptr().add(i).read() }
}

#[inline(always)]
pub(crate) fn store<T: DeviceCopy, K: Writable>(view: &View<T, K>, i: usize, value: T) {
    check(i, view.len());
    // SAFETY: as in `load`.
    unsafe { view.raw_ptr().add(i).write(value) }
}

/// `dynamic_shared::<T>()`: the launch's dynamic shared memory.
#[inline(always)]
pub(crate) fn dynamic_shared<T: DeviceCopy>() -> Shared<T> {
    let p: u64;
    let bytes: u32;
    // SAFETY: `__emu_dynamic_shared` is the module's `.extern .shared` array (declared below);
    // `%dynamic_smem_size` is the size the launch gave it.
    unsafe {
        asm!("cvta.shared.u64 {p}, __emu_dynamic_shared;", p = out(reg64) p);
        asm!("mov.u32 {b}, %dynamic_smem_size;", b = out(reg32) bytes);
    }
    let len = match core::mem::size_of::<T>() {
        0 => 0,
        s => bytes as usize / s,
    };
    // SAFETY: the dynamic shared memory of the block, `bytes` long, 16-byte aligned.
    unsafe { View::from_raw_parts(p as *mut T, len, ()) }
}

core::arch::global_asm!(".extern .shared .align 16 .b8 __emu_dynamic_shared[];");

/// The view of a `.shared` array whose generic address is `p` (from `cvta.shared`).
///
/// # Safety
///
/// `p` must be the address of a `.shared` array of at least `len` elements of `T`.
#[inline(always)]
pub unsafe fn shared_view<T: DeviceCopy>(p: u64, len: usize) -> Shared<T> {
    // SAFETY: the caller's contract.
    unsafe { View::from_raw_parts(p as *mut T, len, ()) }
}

/// How each element type performs `atomic_add` on the GPU.
#[doc(hidden)]
pub trait AtomicAddImpl: Sized {
    /// Adds `v` to `*p` atomically and returns the old value.
    ///
    /// # Safety
    ///
    /// `p` must be a valid generic address of a `Self` in global or shared memory.
    unsafe fn atomic_add_raw(p: *mut Self, v: Self) -> Self;
}

macro_rules! atom_add {
    ($t:ty, $ptx:literal, $class:ident) => {
        impl AtomicAddImpl for $t {
            #[inline(always)]
            unsafe fn atomic_add_raw(p: *mut Self, v: Self) -> Self {
                let old: $t;
                // SAFETY: `p` is a valid generic address (caller).
                unsafe { asm!(concat!("atom.add.", $ptx, " {o}, [{p}], {v};"), o = out($class) old, p = in(reg64) p, v = in($class) v) };
                old
            }
        }
    };
}
atom_add!(u32, "u32", reg32);
atom_add!(i32, "s32", reg32);
atom_add!(u64, "u64", reg64);
atom_add!(i64, "u64", reg64);
atom_add!(f32, "f32", reg32);
atom_add!(f64, "f64", reg64);

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: aborts the kernel; the host sees cudaErrorLaunchFailure.
    unsafe { nvptx::trap() }
}
