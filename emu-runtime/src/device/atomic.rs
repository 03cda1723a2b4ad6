//! Atomic read-modify-write operations on global and shared memory (`atomicAdd` and friends).

use super::backend;
use super::copy::DeviceCopy;
use super::view::{View, Writable};

/// Element types that support [`View::atomic_add`]: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
///
/// `f32` follows the device's `atom.add.f32`: it rounds to nearest even and flushes subnormal
/// inputs and results to zero of the same sign; a NaN result is the canonical NaN `0x7fffffff`.
pub trait AtomicAdd: DeviceCopy + backend::AtomicAddImpl {}

impl AtomicAdd for u32 {}
impl AtomicAdd for i32 {}
impl AtomicAdd for u64 {}
impl AtomicAdd for i64 {}
impl AtomicAdd for f32 {}
impl AtomicAdd for f64 {}

impl<T: AtomicAdd, K: Writable> View<T, K> {
    /// Atomically adds `value` to element `i` and returns the old value (CUDA's `atomicAdd`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_add(&self, i: usize, value: T) -> T {
        backend::check_index(self, i, core::mem::size_of::<T>(), backend::AccessKind::Atomic);
        // SAFETY: `i < len` was checked, so the element lies inside the view (the pointer is a
        // `.shared`-window address for shared views on the GPU, hence `wrapping_add`).
        unsafe { T::atomic_add_raw(self.raw_ptr().wrapping_add(i), value, K::SPACE) }
    }
}
