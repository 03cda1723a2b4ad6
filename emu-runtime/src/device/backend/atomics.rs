//! The backend interface of the atomics: how each element type performs each family of
//! operations. Declared once here; `host::memory`/`host::atomic` implement it with relaxed std
//! atomics, `nvptx.rs` with `atom` instructions. The public traits of `device::atomic` (the
//! types CUDA allows) have these as supertraits.

use core::sync::atomic::Ordering;

use crate::device::view::Space;
use crate::device::Scope;

/// How each element type performs `atomic_add`.
#[doc(hidden)]
pub trait AtomicAddImpl: Sized {
    /// Adds `v` to `*p` atomically and returns the old value.
    ///
    /// # Safety
    ///
    /// `p` must point to a `Self` of device memory covered by a view, aligned for `Self`: a
    /// host or generic address, or on the GPU the `.shared`-window address of one when `space`
    /// is shared. While the kernel runs, that memory is only accessed through relaxed loads
    /// and stores and atomics (the invariant of `host::memory`).
    unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_add_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_add_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_add_raw`'s.
        unsafe { Self::atomic_add_raw(p, v, space) }
    }
}

/// How each element type performs `atomic_sub` (on the GPU, `atom.add` of the wrapping
/// negation: PTX has no `atom.sub`).
#[doc(hidden)]
pub trait AtomicSubImpl: Sized {
    /// Subtracts `v` from `*p` atomically (wrapping) and returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_sub_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_sub_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_sub_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_sub_raw`'s.
        unsafe { Self::atomic_sub_raw(p, v, space) }
    }
}

/// How each element type performs `atomic_min` and `atomic_max`.
#[doc(hidden)]
pub trait AtomicMinMaxImpl: Sized {
    /// Stores the smaller of `*p` and `v` atomically and returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_min_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_min_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_min_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_min_raw`'s.
        unsafe { Self::atomic_min_raw(p, v, space) }
    }
    /// Stores the larger of `*p` and `v` atomically and returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_max_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_max_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_max_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_max_raw`'s.
        unsafe { Self::atomic_max_raw(p, v, space) }
    }
}

/// How each element type performs `atomic_exch`.
#[doc(hidden)]
pub trait AtomicExchImpl: Sized {
    /// Stores `v` in `*p` atomically and returns the old value (bit for bit).
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_exch_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_exch_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_exch_raw`'s.
        unsafe { Self::atomic_exch_raw(p, v, space) }
    }
}

/// How each element type performs `atomic_and`, `atomic_or` and `atomic_xor`.
#[doc(hidden)]
pub trait AtomicBitwiseImpl: Sized {
    /// `*p &= v` atomically; returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_and_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_and_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_and_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_and_raw`'s.
        unsafe { Self::atomic_and_raw(p, v, space) }
    }
    /// `*p |= v` atomically; returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_or_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_or_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_or_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_or_raw`'s.
        unsafe { Self::atomic_or_raw(p, v, space) }
    }
    /// `*p ^= v` atomically; returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_xor_raw(p: *mut Self, v: Self, space: Space) -> Self;
    /// `atomic_xor_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_xor_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_xor_raw`'s.
        unsafe { Self::atomic_xor_raw(p, v, space) }
    }
}

/// How each element type performs `atomic_cas`.
#[doc(hidden)]
pub trait AtomicCasImpl: Sized {
    /// Stores `v` in `*p` if `*p == compare`, atomically; returns the old value either way.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_cas_raw(p: *mut Self, compare: Self, v: Self, space: Space) -> Self;
    /// `atomic_cas_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_cas_scoped_raw(p: *mut Self, compare: Self, v: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_cas_raw`'s.
        unsafe { Self::atomic_cas_raw(p, compare, v, space) }
    }
}

/// How each element type performs `atomic_inc` and `atomic_dec`.
#[doc(hidden)]
pub trait AtomicIncDecImpl: Sized {
    /// `*p = if old >= limit { 0 } else { old + 1 }`; returns the old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_inc_raw(p: *mut Self, limit: Self, space: Space) -> Self;
    /// `atomic_inc_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_inc_scoped_raw(p: *mut Self, limit: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_inc_raw`'s.
        unsafe { Self::atomic_inc_raw(p, limit, space) }
    }
    /// `*p = if old == 0 || old > limit { limit } else { old - 1 }`; returns the
    /// old value.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn atomic_dec_raw(p: *mut Self, limit: Self, space: Space) -> Self;
    /// `atomic_dec_raw` at scope `scope` (`.cta`, `.gpu` or `.sys` on the GPU). The host has one
    /// scope, the whole machine: this default ignores `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    #[inline(always)]
    unsafe fn atomic_dec_scoped_raw(p: *mut Self, limit: Self, space: Space, scope: Scope) -> Self {
        let _ = scope;
        // SAFETY: the caller's contract, which is `atomic_dec_raw`'s.
        unsafe { Self::atomic_dec_raw(p, limit, space) }
    }
}

/// How each element type performs ordered and volatile loads and stores
/// (`atomic_load`, `atomic_store`, their `_scoped` forms, `volatile_load`, `volatile_store`).
#[doc(hidden)]
pub trait AtomicLoadStoreImpl: Sized {
    /// Loads `*p` atomically with memory order `order` at scope `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`], and `order` is `Relaxed`, `Acquire` or `SeqCst`.
    unsafe fn atomic_load_raw(p: *const Self, order: Ordering, scope: Scope, space: Space) -> Self;
    /// Stores `v` in `*p` atomically with memory order `order` at scope `scope`.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`], and `order` is `Relaxed`, `Release` or `SeqCst`.
    unsafe fn atomic_store_raw(p: *mut Self, v: Self, order: Ordering, scope: Scope, space: Space);
    /// Loads `*p` as a volatile access.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn volatile_load_raw(p: *const Self, space: Space) -> Self;
    /// Stores `v` in `*p` as a volatile access.
    ///
    /// # Safety
    ///
    /// As [`AtomicAddImpl::atomic_add_raw`].
    unsafe fn volatile_store_raw(p: *mut Self, v: Self, space: Space);
}
