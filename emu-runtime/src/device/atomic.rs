//! Atomic read-modify-write operations on global and shared memory (`atomicAdd` and friends).
//!
//! Each is a method on writable views (`&mut [T]` kernel parameters, `shared_array!`,
//! `dynamic_shared`) that returns the element's old value, like CUDA's. Each family of
//! operations has a trait listing the element types CUDA supports for it, so an atomic on
//! another type is a compile error naming that trait:
//!
//! | methods | trait | types |
//! |---------|-------|-------|
//! | `atomic_add` | [`AtomicAdd`] | `u32 i32 u64 i64 f32 f64`, `f16 bf16 Half2 Bfloat162` (sm_90) |
//! | `atomic_sub` | [`AtomicSub`] | `u32 i32 u64 i64` |
//! | `atomic_min`, `atomic_max` | [`AtomicMinMax`] | `u32 i32 u64 i64` |
//! | `atomic_exch` | [`AtomicExch`] | `u32 i32 u64 i64 f32 f64` |
//! | `atomic_and`, `atomic_or`, `atomic_xor` | [`AtomicBitwise`] | `u32 i32 u64 i64` |
//! | `atomic_cas` | [`AtomicCas`] | `u16 u32 i32 u64 i64` |
//! | `atomic_inc`, `atomic_dec` | [`AtomicIncDec`] | `u32` |
//!
//! On the host each is one relaxed std atomic (or a `fetch_update` loop); on the GPU one `atom`
//! instruction (`atom.shared` for shared views). Integer arithmetic wraps.
//!
//! # Ordered and volatile loads and stores
//!
//! The tools that flags and spin-waits are written with, as `cuda::atomic_ref<T, scope>`'s
//! `load`/`store` and CUDA's `volatile` give them, for the types of [`AtomicLoadStore`]
//! (`u8 i8 u16 i16 u32 i32 u64 i64 f32 f64`, floats bit for bit):
//!
//! * `v.atomic_load(i, order)` on every view (`&[T]` parameters too), `v.atomic_store(i, value,
//!   order)` on writable ones, with `core::sync::atomic::Ordering` at device scope;
//! * `v.atomic_load_scoped(i, order, scope)` and `v.atomic_store_scoped(i, value, order, scope)`
//!   with a [`Scope`];
//! * `v.volatile_load(i)` and `v.volatile_store(i, value)`.
//!
//! A load takes `Relaxed`, `Acquire` or `SeqCst`, a store `Relaxed`, `Release` or `SeqCst`;
//! another order panics at the caller's line, as std's atomics do (a kernel panic on the host,
//! a `trap` on the GPU). Unlike a plain `v[i]`, these are never merged with other accesses or
//! hoisted out of a loop, so `while flag.atomic_load(0, Acquire) == 0 {}` spins on the GPU.
//!
//! | call | PTX (global; `.shared` added for shared views) | host |
//! |------|-----------------------------------------------|------|
//! | `atomic_load(i, Relaxed)` | `ld.relaxed.gpu` | `load(Relaxed)` |
//! | `atomic_load(i, Acquire)` | `ld.acquire.gpu` | `load(Acquire)` |
//! | `atomic_load(i, SeqCst)` | `fence.sc.gpu; ld.acquire.gpu` | `load(SeqCst)` |
//! | `atomic_store(i, x, Relaxed)` | `st.relaxed.gpu` | `store(Relaxed)` |
//! | `atomic_store(i, x, Release)` | `st.release.gpu` | `store(Release)` |
//! | `atomic_store(i, x, SeqCst)` | `fence.sc.gpu; st.relaxed.gpu` | `store(SeqCst)` |
//! | `..._scoped(.., Scope::Block / Device / System)` | `.cta` / `.gpu` / `.sys` instead of `.gpu` | as above |
//! | `atomic_add_scoped(i, x, Scope::Block / System)` (and every read-modify-write) | `atom.relaxed.cta` / `atom.relaxed.sys` | as unscoped |
//! | `volatile_load(i)` | `ld.volatile` | `load(Relaxed)` |
//! | `volatile_store(i, x)` | `st.volatile` | `store(Relaxed)` |
//!
//! The SeqCst forms are what libcu++'s `cuda::atomic_ref` emits on sm_70 and later. On the
//! host every scope is the whole machine (std's atomics have no narrower one). An index out of
//! bounds is reported like any access (an invalid read or write, error 700). The checkers see
//! a load as a read and a store as a write of the element for initcheck; racecheck, which does
//! not record atomics, does not record these either (see `host::atomic::on_ordered`).

use core::sync::atomic::Ordering;

use super::backend;
use super::copy::DeviceCopy;
use super::view::{View, ViewKind, Writable};

/// Element types that support [`View::atomic_add`]: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`,
/// and (sm_90) `f16`, `bf16` and their pairs [`Half2`](crate::intrinsics::Half2) and
/// [`Bfloat162`](crate::intrinsics::Bfloat162).
///
/// `f32` follows the device's `atom.add.f32`: it rounds to nearest even and flushes subnormal
/// inputs and results to zero of the same sign; a NaN result is the canonical NaN `0x7fffffff`.
///
/// `f16`, `bf16` and the pairs follow `atom.add.noftz.f16` / `.bf16` / `.f16x2` / `.bf16x2`:
/// the exact sum rounded to nearest even, subnormal inputs and results kept (`noftz`), each
/// lane of a pair on its own, the pair one atomic 32-bit word; a NaN result is the canonical
/// NaN `0x7fff` (as `add.rn.f16`; not yet checked against the H200 for the atomic forms).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `atomic_add` (trait `AtomicAdd`)",
    label = "CUDA's atomicAdd takes u32, i32, u64, i64, f32, f64, f16, bf16, Half2 or Bfloat162"
)]
pub trait AtomicAdd: DeviceCopy + backend::AtomicAddImpl {}

impl AtomicAdd for u32 {}
impl AtomicAdd for i32 {}
impl AtomicAdd for u64 {}
impl AtomicAdd for i64 {}
impl AtomicAdd for f32 {}
impl AtomicAdd for f64 {}
impl AtomicAdd for half::f16 {}
impl AtomicAdd for half::bf16 {}
impl AtomicAdd for crate::device::intrinsics::Half2 {}
impl AtomicAdd for crate::device::intrinsics::Bfloat162 {}

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
    /// `op` on the address of element `i`, after checking `i < len` (an out-of-bounds index is
    /// reported as an invalid atomic, error 700, at the caller's line, and gives zero).
    ///
    /// The checkers see the atomic and `op` runs as one step (`backend::atomic`): racecheck
    /// orders the atomics of a location as they happened.
    ///
    /// The pointer is a `.shared`-window address for shared views on the GPU, hence
    /// `wrapping_add`: it must only be passed to the backend's atomics.
    #[inline(always)]
    #[track_caller]
    fn atomic_at(&self, i: usize, op: impl FnOnce(*mut T) -> T) -> T {
        if !backend::check_index(self, i, core::mem::size_of::<T>(), backend::AccessKind::Atomic) {
            return crate::device::copy::zero(); // reported: the faulting thread's atomic does nothing
        }
        let p = self.raw_ptr().wrapping_add(i);
        backend::atomic(self, i, move || op(p))
    }

    /// Atomically adds `value` to element `i` and returns the old value (CUDA's `atomicAdd`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_add(&self, i: usize, value: T) -> T
    where
        T: AtomicAdd,
        K: Writable,
    {
        // SAFETY: `i < len` was checked, so `p` is element `i` of the view, in the space
        // `K::SPACE` says.
        self.atomic_at(i, move |p| unsafe { T::atomic_add_raw(p, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_sub_raw(p, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_min_raw(p, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_max_raw(p, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_exch_raw(p, value, K::SPACE) })
    }

    /// Atomically sets element `i` to `old & value` and returns `old` (CUDA's `atomicAnd`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_and(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_and_raw(p, value, K::SPACE) })
    }

    /// Atomically sets element `i` to `old | value` and returns `old` (CUDA's `atomicOr`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_or(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_or_raw(p, value, K::SPACE) })
    }

    /// Atomically sets element `i` to `old ^ value` and returns `old` (CUDA's `atomicXor`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_xor(&self, i: usize, value: T) -> T
    where
        T: AtomicBitwise,
        K: Writable,
    {
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_xor_raw(p, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_cas_raw(p, compare, value, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_inc_raw(p, limit, K::SPACE) })
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
        // SAFETY: as in `atomic_add`.
        self.atomic_at(i, move |p| unsafe { T::atomic_dec_raw(p, limit, K::SPACE) })
    }
}

/// The scoped read-modify-write atomics: CUDA's `atomicAdd_block` / `atomicAdd_system` and the
/// like are `atomic_add_scoped(i, v, Scope::Block)` / `(.., Scope::System)`, in the form of
/// [`View::atomic_load_scoped`]. `Scope::Device` is the plain atomic. On the GPU they are
/// `atom.relaxed.cta` / `atom.relaxed.sys` (`atom` for the device scope); on the host every
/// scope is the whole machine, so they do what the unscoped forms do.
macro_rules! scoped_rmw {
    ($($(#[$doc:meta])* $name:ident, $raw:ident, $bound:ident, ($($arg:ident),+);)*) => {
        impl<T: DeviceCopy, K: ViewKind> View<'_, T, K> {
            $(
                $(#[$doc])*
                #[inline(always)]
                #[track_caller]
                pub fn $name(&self, i: usize, $($arg: T,)+ scope: Scope) -> T
                where
                    T: $bound,
                    K: Writable,
                {
                    // SAFETY: as in `atomic_add`.
                    self.atomic_at(i, move |p| unsafe { T::$raw(p, $($arg,)+ K::SPACE, scope) })
                }
            )*
        }
    };
}

scoped_rmw! {
    /// [`View::atomic_add`] at `scope` (`atomicAdd_block`, `atomicAdd_system`).
    atomic_add_scoped, atomic_add_scoped_raw, AtomicAdd, (value);
    /// [`View::atomic_sub`] at `scope`.
    atomic_sub_scoped, atomic_sub_scoped_raw, AtomicSub, (value);
    /// [`View::atomic_min`] at `scope`.
    atomic_min_scoped, atomic_min_scoped_raw, AtomicMinMax, (value);
    /// [`View::atomic_max`] at `scope`.
    atomic_max_scoped, atomic_max_scoped_raw, AtomicMinMax, (value);
    /// [`View::atomic_exch`] at `scope`.
    atomic_exch_scoped, atomic_exch_scoped_raw, AtomicExch, (value);
    /// [`View::atomic_and`] at `scope`.
    atomic_and_scoped, atomic_and_scoped_raw, AtomicBitwise, (value);
    /// [`View::atomic_or`] at `scope`.
    atomic_or_scoped, atomic_or_scoped_raw, AtomicBitwise, (value);
    /// [`View::atomic_xor`] at `scope`.
    atomic_xor_scoped, atomic_xor_scoped_raw, AtomicBitwise, (value);
    /// [`View::atomic_cas`] at `scope` (`atomicCAS_block`, `atomicCAS_system`).
    atomic_cas_scoped, atomic_cas_scoped_raw, AtomicCas, (compare, value);
    /// [`View::atomic_inc`] at `scope`.
    atomic_inc_scoped, atomic_inc_scoped_raw, AtomicIncDec, (limit);
    /// [`View::atomic_dec`] at `scope`.
    atomic_dec_scoped, atomic_dec_scoped_raw, AtomicIncDec, (limit);
}

/// Which threads an ordered access synchronises with: CUDA's `cuda::thread_scope`, PTX's
/// scope qualifiers.
///
/// On the host every scope is the whole machine: std's atomics have no narrower one, and the
/// emulator runs the device and the host on the same memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The threads of the block (`cuda::thread_scope_block`, PTX `.cta`).
    Block,
    /// Every thread of the device (`cuda::thread_scope_device`, PTX `.gpu`): the scope of
    /// [`View::atomic_load`] and [`View::atomic_store`].
    Device,
    /// The device, the host and other devices (`cuda::thread_scope_system`, PTX `.sys`).
    System,
}

/// Element types that support [`View::atomic_load`], [`View::atomic_store`], their `_scoped`
/// forms, [`View::volatile_load`] and [`View::volatile_store`]: `u8`, `i8`, `u16`, `i16`,
/// `u32`, `i32`, `u64`, `i64`, `f32`, `f64` (floats are loaded and stored bit for bit: NaN
/// payloads, signed zeros and subnormals are kept).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic or volatile loads and stores (trait `AtomicLoadStore`)",
    label = "atomic_load, atomic_store, volatile_load and volatile_store take u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64"
)]
pub trait AtomicLoadStore: DeviceCopy + backend::AtomicLoadStoreImpl {}

impl AtomicLoadStore for u8 {}
impl AtomicLoadStore for i8 {}
impl AtomicLoadStore for u16 {}
impl AtomicLoadStore for i16 {}
impl AtomicLoadStore for u32 {}
impl AtomicLoadStore for i32 {}
impl AtomicLoadStore for u64 {}
impl AtomicLoadStore for i64 {}
impl AtomicLoadStore for f32 {}
impl AtomicLoadStore for f64 {}

/// An ordered or volatile load or store, as the checkers' hook sees it
/// (`host::atomic::on_ordered`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ordered {
    /// A store (`atomic_store`, `volatile_store`); otherwise a load.
    pub(crate) write: bool,
    /// Its memory order: `Relaxed`, `Acquire` or `SeqCst` for loads, `Relaxed`, `Release` or
    /// `SeqCst` for stores (`Relaxed` for volatile accesses).
    pub(crate) order: Ordering,
    /// Its scope (`System` for volatile accesses, which PTX's memory model treats as relaxed
    /// accesses at system scope).
    pub(crate) scope: Scope,
    /// Whether it is `volatile_load` or `volatile_store`.
    pub(crate) volatile: bool,
}

/// `order`, if a load may take it (`Relaxed`, `Acquire`, `SeqCst`); panics at the caller's
/// line otherwise, as std's `load` does.
#[inline(always)]
#[track_caller]
fn load_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Relaxed | Ordering::Acquire | Ordering::SeqCst => order,
        Ordering::Release => {
            panic!("atomic_load with Ordering::Release: a load cannot release (use Relaxed, Acquire or SeqCst)")
        }
        Ordering::AcqRel => {
            panic!("atomic_load with Ordering::AcqRel: a load cannot release (use Relaxed, Acquire or SeqCst)")
        }
        _ => panic!("atomic_load takes Ordering::Relaxed, Acquire or SeqCst"),
    }
}

/// `order`, if a store may take it (`Relaxed`, `Release`, `SeqCst`); panics at the caller's
/// line otherwise, as std's `store` does.
#[inline(always)]
#[track_caller]
fn store_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Relaxed | Ordering::Release | Ordering::SeqCst => order,
        Ordering::Acquire => {
            panic!("atomic_store with Ordering::Acquire: a store cannot acquire (use Relaxed, Release or SeqCst)")
        }
        Ordering::AcqRel => {
            panic!("atomic_store with Ordering::AcqRel: a store cannot acquire (use Relaxed, Release or SeqCst)")
        }
        _ => panic!("atomic_store takes Ordering::Relaxed, Release or SeqCst"),
    }
}

impl<T: AtomicLoadStore, K: ViewKind> View<'_, T, K> {
    /// `op` on the address of element `i`, after checking `i < len` (reported as an invalid
    /// read or write, error 700, at the caller's line: then `None`), as one step with the
    /// checkers' look at the access (`backend::ordered`).
    #[inline(always)]
    #[track_caller]
    fn ordered_at<R>(&self, i: usize, access: Ordered, op: impl FnOnce(*mut T) -> R) -> Option<R> {
        let kind = if access.write { backend::AccessKind::Write } else { backend::AccessKind::Read };
        if !backend::check_index(self, i, core::mem::size_of::<T>(), kind) {
            return None; // reported: the faulting thread's access does nothing (a load gives zero)
        }
        let p = self.raw_ptr().wrapping_add(i);
        Some(backend::ordered(self, i, access, move || op(p)))
    }

    /// Atomically loads element `i` with memory order `order` at device scope
    /// (`cuda::atomic_ref<T, cuda::thread_scope_device>(v[i]).load(order)`; PTX
    /// `ld.relaxed.gpu` or `ld.acquire.gpu`, `SeqCst` with a `fence.sc.gpu` before).
    ///
    /// # Panics
    ///
    /// With `Ordering::Release` or `AcqRel`, as std's `load` does.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_load(&self, i: usize, order: Ordering) -> T {
        self.atomic_load_scoped(i, order, Scope::Device)
    }

    /// Atomically loads element `i` with memory order `order` at scope `scope`
    /// (`cuda::atomic_ref<T, scope>(v[i]).load(order)`).
    ///
    /// # Panics
    ///
    /// With `Ordering::Release` or `AcqRel`, as std's `load` does.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_load_scoped(&self, i: usize, order: Ordering, scope: Scope) -> T {
        let order = load_order(order);
        // SAFETY: `i < len` was checked, so `p` is element `i` of the view, in the space
        // `K::SPACE` says; `order` is one a load takes.
        self.ordered_at(i, Ordered { write: false, order, scope, volatile: false }, move |p| unsafe {
            T::atomic_load_raw(p, order, scope, K::SPACE)
        })
        .unwrap_or_else(crate::device::copy::zero)
    }

    /// Atomically stores `value` in element `i` with memory order `order` at device scope
    /// (`cuda::atomic_ref<T, cuda::thread_scope_device>(v[i]).store(value, order)`; PTX
    /// `st.relaxed.gpu` or `st.release.gpu`, `SeqCst` as a `fence.sc.gpu` and `st.relaxed.gpu`).
    ///
    /// # Panics
    ///
    /// With `Ordering::Acquire` or `AcqRel`, as std's `store` does.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_store(&self, i: usize, value: T, order: Ordering)
    where
        K: Writable,
    {
        self.atomic_store_scoped(i, value, order, Scope::Device)
    }

    /// Atomically stores `value` in element `i` with memory order `order` at scope `scope`
    /// (`cuda::atomic_ref<T, scope>(v[i]).store(value, order)`).
    ///
    /// # Panics
    ///
    /// With `Ordering::Acquire` or `AcqRel`, as std's `store` does.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_store_scoped(&self, i: usize, value: T, order: Ordering, scope: Scope)
    where
        K: Writable,
    {
        let order = store_order(order);
        // SAFETY: as in `atomic_load_scoped`; `K: Writable` views point into writable memory.
        self.ordered_at(i, Ordered { write: true, order, scope, volatile: false }, move |p| unsafe {
            T::atomic_store_raw(p, value, order, scope, K::SPACE)
        });
    }

    /// Loads element `i` as CUDA's `volatile` does (PTX `ld.volatile`): never merged with
    /// another load or moved out of a loop. On the host, a relaxed atomic load.
    #[inline(always)]
    #[track_caller]
    pub fn volatile_load(&self, i: usize) -> T {
        let access = Ordered { write: false, order: Ordering::Relaxed, scope: Scope::System, volatile: true };
        // SAFETY: as in `atomic_load_scoped`.
        self.ordered_at(i, access, move |p| unsafe { T::volatile_load_raw(p, K::SPACE) })
            .unwrap_or_else(crate::device::copy::zero)
    }

    /// Stores `value` in element `i` as CUDA's `volatile` does (PTX `st.volatile`). On the
    /// host, a relaxed atomic store.
    #[inline(always)]
    #[track_caller]
    pub fn volatile_store(&self, i: usize, value: T)
    where
        K: Writable,
    {
        let access = Ordered { write: true, order: Ordering::Relaxed, scope: Scope::System, volatile: true };
        // SAFETY: as in `atomic_store_scoped`.
        self.ordered_at(i, access, move |p| unsafe { T::volatile_store_raw(p, value, K::SPACE) });
    }
}
