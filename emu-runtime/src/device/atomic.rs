//! Atomic read-modify-write operations on global and shared memory (`atomicAdd` and friends).
//!
//! Each is a method on writable views (`&mut [T]` kernel parameters, `shared_array!`,
//! `dynamic_shared`) that returns the element's old value, like CUDA's. Each family of
//! operations has a trait listing the element types CUDA supports for it, so an atomic on
//! another type is a compile error naming that trait:
//!
//! | methods | trait | types |
//! |---------|-------|-------|
//! | `atomic_add` | [`AtomicAdd`] | `u32 i32 u64 i64 f32 f64` |
//! | `atomic_sub` | [`AtomicSub`] | `u32 i32 u64 i64` |
//! | `atomic_min`, `atomic_max` | [`AtomicMinMax`] | `u32 i32 u64 i64` |
//! | `atomic_exch` | [`AtomicExch`] | `u32 i32 u64 i64 f32 f64` |
//! | `atomic_and`, `atomic_or`, `atomic_xor` | [`AtomicBitwise`] | `u32 i32 u64 i64` |
//! | `atomic_cas` | [`AtomicCas`] | `u16 u32 i32 u64 i64` |
//! | `atomic_inc`, `atomic_dec` | [`AtomicIncDec`] | `u32` |
//!
//! On the host each is one relaxed std atomic (or a `fetch_update` loop); on the GPU one `atom`
//! instruction (`atom.shared` for shared views). Integer arithmetic wraps.

use super::backend;
use super::copy::DeviceCopy;
use super::view::{View, ViewKind, Writable};

/// Element types that support [`View::atomic_add`]: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
///
/// `f32` follows the device's `atom.add.f32`: it rounds to nearest even and flushes subnormal
/// inputs and results to zero of the same sign; a NaN result is the canonical NaN `0x7fffffff`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_add` (trait `AtomicAdd`)",
    label = "CUDA's atomicAdd takes u32, i32, u64, i64, f32 or f64"
)]
pub trait AtomicAdd: DeviceCopy + backend::AtomicAddImpl {}

impl AtomicAdd for u32 {}
impl AtomicAdd for i32 {}
impl AtomicAdd for u64 {}
impl AtomicAdd for i64 {}
impl AtomicAdd for f32 {}
impl AtomicAdd for f64 {}

/// Element types that support [`View::atomic_sub`]: `u32`, `i32`, `u64`, `i64`.
///
/// CUDA's `atomicSub` takes `int` and `unsigned int`; the 64-bit forms are the same operation
/// (an atomic add of the wrapping negation, which is how the GPU does it: PTX has no
/// `atom.sub`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_sub` (trait `AtomicSub`)",
    label = "atomic_sub takes u32, i32, u64 or i64"
)]
pub trait AtomicSub: DeviceCopy + backend::AtomicSubImpl {}

impl AtomicSub for u32 {}
impl AtomicSub for i32 {}
impl AtomicSub for u64 {}
impl AtomicSub for i64 {}

/// Element types that support [`View::atomic_min`] and [`View::atomic_max`]: `u32`, `i32`,
/// `u64`, `i64`, compared as signed or unsigned integers according to the type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_min`/`atomic_max` (trait `AtomicMinMax`)",
    label = "CUDA's atomicMin/atomicMax take u32, i32, u64 or i64"
)]
pub trait AtomicMinMax: DeviceCopy + backend::AtomicMinMaxImpl {}

impl AtomicMinMax for u32 {}
impl AtomicMinMax for i32 {}
impl AtomicMinMax for u64 {}
impl AtomicMinMax for i64 {}

/// Element types that support [`View::atomic_exch`]: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
///
/// Floats are swapped bit for bit (NaN payloads and signed zeros are kept).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_exch` (trait `AtomicExch`)",
    label = "CUDA's atomicExch takes u32, i32, u64, i64, f32 (or f64)"
)]
pub trait AtomicExch: DeviceCopy + backend::AtomicExchImpl {}

impl AtomicExch for u32 {}
impl AtomicExch for i32 {}
impl AtomicExch for u64 {}
impl AtomicExch for i64 {}
impl AtomicExch for f32 {}
impl AtomicExch for f64 {}

/// Element types that support [`View::atomic_and`], [`View::atomic_or`] and
/// [`View::atomic_xor`]: `u32`, `i32`, `u64`, `i64`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_and`/`atomic_or`/`atomic_xor` (trait `AtomicBitwise`)",
    label = "CUDA's atomicAnd/atomicOr/atomicXor take u32, i32, u64 or i64"
)]
pub trait AtomicBitwise: DeviceCopy + backend::AtomicBitwiseImpl {}

impl AtomicBitwise for u32 {}
impl AtomicBitwise for i32 {}
impl AtomicBitwise for u64 {}
impl AtomicBitwise for i64 {}

/// Element types that support [`View::atomic_cas`]: `u16`, `u32`, `i32`, `u64`, `i64`.
///
/// `u16` is CUDA's `unsigned short` form (`atom.cas.b16`, sm_70 and later).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_cas` (trait `AtomicCas`)",
    label = "CUDA's atomicCAS takes u16, u32, i32, u64 or i64"
)]
pub trait AtomicCas: DeviceCopy + backend::AtomicCasImpl {}

impl AtomicCas for u16 {}
impl AtomicCas for u32 {}
impl AtomicCas for i32 {}
impl AtomicCas for u64 {}
impl AtomicCas for i64 {}

/// Element types that support [`View::atomic_inc`] and [`View::atomic_dec`]: `u32` only, as
/// in CUDA (`atom.inc.u32`, `atom.dec.u32`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_inc`/`atomic_dec` (trait `AtomicIncDec`)",
    label = "CUDA's atomicInc/atomicDec take u32 only"
)]
pub trait AtomicIncDec: DeviceCopy + backend::AtomicIncDecImpl {}

impl AtomicIncDec for u32 {}

impl<T: DeviceCopy, K: ViewKind> View<'_, T, K> {
    /// The address of element `i` after checking `i < len` (an out-of-bounds index is reported
    /// as an invalid atomic, error 700, at the caller's line).
    ///
    /// The pointer is a `.shared`-window address for shared views on the GPU, hence
    /// `wrapping_add`: it must only be passed to the backend's atomics.
    #[inline(always)]
    #[track_caller]
    fn atomic_ptr(&self, i: usize) -> *mut T {
        backend::check_index(self, i, core::mem::size_of::<T>(), backend::AccessKind::Atomic);
        backend::before_atomic(self, i);
        self.raw_ptr().wrapping_add(i)
    }

    /// Atomically adds `value` to element `i` and returns the old value (CUDA's `atomicAdd`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_add(&self, i: usize, value: T) -> T
    where
        T: AtomicAdd,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: `i < len` was checked, so `p` is element `i` of the view, in the space
        // `K::SPACE` says.
        unsafe { T::atomic_add_raw(p, value, K::SPACE) }
    }

    /// Atomically subtracts `value` from element `i` (wrapping) and returns the old value
    /// (CUDA's `atomicSub`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_sub(&self, i: usize, value: T) -> T
    where
        T: AtomicSub,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_sub_raw(p, value, K::SPACE) }
    }

    /// Atomically stores the smaller of element `i` and `value` in element `i` and returns the
    /// old value (CUDA's `atomicMin`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_min(&self, i: usize, value: T) -> T
    where
        T: AtomicMinMax,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_min_raw(p, value, K::SPACE) }
    }

    /// Atomically stores the larger of element `i` and `value` in element `i` and returns the
    /// old value (CUDA's `atomicMax`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_max(&self, i: usize, value: T) -> T
    where
        T: AtomicMinMax,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_max_raw(p, value, K::SPACE) }
    }

    /// Atomically stores `value` in element `i` and returns the old value (CUDA's
    /// `atomicExch`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_exch(&self, i: usize, value: T) -> T
    where
        T: AtomicExch,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_exch_raw(p, value, K::SPACE) }
    }

    /// Atomically sets element `i` to `old & value` and returns `old` (CUDA's `atomicAnd`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_and(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_and_raw(p, value, K::SPACE) }
    }

    /// Atomically sets element `i` to `old | value` and returns `old` (CUDA's `atomicOr`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_or(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_or_raw(p, value, K::SPACE) }
    }

    /// Atomically sets element `i` to `old ^ value` and returns `old` (CUDA's `atomicXor`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_xor(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_xor_raw(p, value, K::SPACE) }
    }

    /// Atomically compares element `i` with `compare` and, if they are equal, stores `value`
    /// in it; returns the old value either way, so the swap happened exactly when the result
    /// equals `compare` (CUDA's `atomicCAS`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_cas(&self, i: usize, compare: T, value: T) -> T
    where
        T: AtomicCas,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_cas_raw(p, compare, value, K::SPACE) }
    }

    /// Atomically counts element `i` up, wrapping to 0 once it reaches `limit`: stores
    /// `if old >= limit { 0 } else { old + 1 }` and returns `old` (CUDA's `atomicInc`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_inc(&self, i: usize, limit: T) -> T
    where
        T: AtomicIncDec,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_inc_raw(p, limit, K::SPACE) }
    }

    /// Atomically counts element `i` down, wrapping to `limit` at 0: stores
    /// `if old == 0 || old > limit { limit } else { old - 1 }` and returns `old` (CUDA's
    /// `atomicDec`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_dec(&self, i: usize, limit: T) -> T
    where
        T: AtomicIncDec,
        K: Writable,
    {
        let p = self.atomic_ptr(i);
        // SAFETY: as in `atomic_add`.
        unsafe { T::atomic_dec_raw(p, limit, K::SPACE) }
    }
}
