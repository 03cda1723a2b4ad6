//! How each element type performs the atomics other than `atomic_add` on the host (that one,
//! with the device's float rounding, lives in `memory`).
//!
//! Every operation is one relaxed std atomic on the element's bytes (`fetch_sub`, `fetch_min`,
//! `swap`, `compare_exchange`, ...; `fetch_update` where std has no single operation), so the
//! invariant of `memory` holds: device memory is only ever touched through relaxed atomics.
//! Signed types go through the signed std atomics where the sign matters (`min`/`max`) and
//! through the unsigned ones otherwise (two's-complement bits are the same).
//!
//! In the shared memory of a block whose threads all run on this host thread, in a launch
//! without clusters (barrier regions, `stamp::Running::enter_alone`), no other host thread can
//! touch the element, and each read-modify-write is a relaxed load and a relaxed store instead
//! ([`rmw`]): the same operation, still through atomics, without a locked instruction.
//!
//! Each trait takes the memory space for parity with the GPU backend, where it picks
//! `atom.shared` over generic `atom`; the host ignores it.
//!
//! Ordered loads and stores (`atomic_load`, `atomic_store`, `..._scoped`) are the std atomic
//! load or store of the element's bits with the caller's `Ordering`; the scope is ignored (the
//! host's atomics are all system-wide). Volatile ones are relaxed atomic loads and stores
//! (std's `read_volatile` would be a data race, undefined behaviour, next to another block's
//! store). [`on_ordered`] is the checkers' hook for all of them.

use core::sync::atomic::{
    AtomicI32, AtomicI64, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering, Ordering::Relaxed,
};

use crate::device::backend::{
    AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl, AtomicMinMaxImpl,
    AtomicSubImpl,
};
use crate::device::{Scope, Space};

/// The element at `p` as a `&$atomic` (an atomic type of the element's size).
macro_rules! as_atomic {
    ($atomic:ty, $p:expr) => {
        // SAFETY: the atomic has the element's size, and its alignment (its size) is the
        // element's alignment on every supported host; `$p` is valid, aligned and only accessed
        // atomically while the kernel runs (the caller's contract).
        unsafe { &*($p as *const $atomic) }
    };
}

/// A read-modify-write of the element at `p` in space `space`: `*p = new` where `old` names
/// `*p`, returning `old`. In the shared memory of a block that this host thread runs alone
/// (`stamp::alone`: barrier regions, no clusters), no other host thread touches the element
/// until the block ends, so a relaxed load and a relaxed store are the same operation as the
/// atomic and cost a few cycles where a locked instruction costs about twenty (cuda-samples'
/// histogram256, four shared atomics per input word, took 8.3 ms a launch with `lock xadd`,
/// 2.3 ms with this). Elsewhere, `$atomic_op`: the std atomic.
macro_rules! rmw {
    ($atomic:ty, $p:expr, $space:expr, |$old:ident| $new:expr, $atomic_op:expr) => {{
        if $space == $crate::device::Space::Shared && $crate::host::mem::stamp::alone($p as usize) {
            // SAFETY: as `as_atomic!` (the caller's contract on `$p`).
            let a = unsafe { &*($p as *const $atomic) };
            let $old = a.load(::core::sync::atomic::Ordering::Relaxed);
            a.store($new, ::core::sync::atomic::Ordering::Relaxed);
            $old
        } else {
            $atomic_op
        }
    }};
}
pub(crate) use rmw;

macro_rules! int_atomics {
    // `$bits`/`$atomic`: the unsigned word and its atomic; `$ord`: the atomic that orders like
    // `$t` (signed for signed types), for min and max.
    ($($t:ty => $bits:ty, $atomic:ident, $ord:ident);* $(;)?) => { $(
        impl AtomicSubImpl for $t {
            #[inline(always)]
            unsafe fn atomic_sub_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as $bits;
                rmw!($atomic, p, space, |old| old.wrapping_sub(v), as_atomic!($atomic, p).fetch_sub(v, Relaxed)) as $t
            }
        }

        impl AtomicMinMaxImpl for $t {
            #[inline(always)]
            unsafe fn atomic_min_raw(p: *mut Self, v: Self, space: Space) -> Self {
                rmw!($ord, p, space, |old| old.min(v), as_atomic!($ord, p).fetch_min(v, Relaxed))
            }
            #[inline(always)]
            unsafe fn atomic_max_raw(p: *mut Self, v: Self, space: Space) -> Self {
                rmw!($ord, p, space, |old| old.max(v), as_atomic!($ord, p).fetch_max(v, Relaxed))
            }
        }

        impl AtomicExchImpl for $t {
            #[inline(always)]
            unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as $bits;
                rmw!($atomic, p, space, |_old| v, as_atomic!($atomic, p).swap(v, Relaxed)) as $t
            }
        }

        impl AtomicBitwiseImpl for $t {
            #[inline(always)]
            unsafe fn atomic_and_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as $bits;
                rmw!($atomic, p, space, |old| old & v, as_atomic!($atomic, p).fetch_and(v, Relaxed)) as $t
            }
            #[inline(always)]
            unsafe fn atomic_or_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as $bits;
                rmw!($atomic, p, space, |old| old | v, as_atomic!($atomic, p).fetch_or(v, Relaxed)) as $t
            }
            #[inline(always)]
            unsafe fn atomic_xor_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as $bits;
                rmw!($atomic, p, space, |old| old ^ v, as_atomic!($atomic, p).fetch_xor(v, Relaxed)) as $t
            }
        }

        impl AtomicCasImpl for $t {
            #[inline(always)]
            unsafe fn atomic_cas_raw(p: *mut Self, compare: Self, v: Self, space: Space) -> Self {
                let (compare, v) = (compare as $bits, v as $bits);
                rmw!($atomic, p, space, |old| if old == compare { v } else { old }, {
                    let r = as_atomic!($atomic, p).compare_exchange(compare, v, Relaxed, Relaxed);
                    r.unwrap_or_else(|old| old)
                }) as $t
            }
        }
    )* };
}
int_atomics! {
    u32 => u32, AtomicU32, AtomicU32;
    i32 => u32, AtomicU32, AtomicI32;
    u64 => u64, AtomicU64, AtomicU64;
    i64 => u64, AtomicU64, AtomicI64;
}

impl AtomicCasImpl for u16 {
    #[inline(always)]
    unsafe fn atomic_cas_raw(p: *mut Self, compare: Self, v: Self, space: Space) -> Self {
        rmw!(AtomicU16, p, space, |old| if old == compare { v } else { old }, {
            as_atomic!(AtomicU16, p).compare_exchange(compare, v, Relaxed, Relaxed).unwrap_or_else(|old| old)
        })
    }
}

impl AtomicExchImpl for f32 {
    #[inline(always)]
    unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
        let v = v.to_bits();
        f32::from_bits(rmw!(AtomicU32, p, space, |_old| v, as_atomic!(AtomicU32, p).swap(v, Relaxed)))
    }
}

impl AtomicExchImpl for f64 {
    #[inline(always)]
    unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
        let v = v.to_bits();
        f64::from_bits(rmw!(AtomicU64, p, space, |_old| v, as_atomic!(AtomicU64, p).swap(v, Relaxed)))
    }
}

/// `atom.inc.u32`: counts up and wraps to 0 past `limit`.
pub(crate) fn inc_u32(old: u32, limit: u32) -> u32 {
    if old >= limit {
        0
    } else {
        old + 1
    }
}

/// `atom.dec.u32`: counts down and wraps to `limit` at 0 (or from above `limit`).
pub(crate) fn dec_u32(old: u32, limit: u32) -> u32 {
    if old == 0 || old > limit {
        limit
    } else {
        old - 1
    }
}

impl AtomicIncDecImpl for u32 {
    #[inline(always)]
    unsafe fn atomic_inc_raw(p: *mut Self, limit: Self, space: Space) -> Self {
        rmw!(AtomicU32, p, space, |old| inc_u32(old, limit), {
            // The closure always returns `Some`, so `fetch_update` always succeeds with the old
            // value.
            let r = as_atomic!(AtomicU32, p).fetch_update(Relaxed, Relaxed, |old| Some(inc_u32(old, limit)));
            r.unwrap_or_else(|old| old)
        })
    }
    #[inline(always)]
    unsafe fn atomic_dec_raw(p: *mut Self, limit: Self, space: Space) -> Self {
        rmw!(AtomicU32, p, space, |old| dec_u32(old, limit), {
            let r = as_atomic!(AtomicU32, p).fetch_update(Relaxed, Relaxed, |old| Some(dec_u32(old, limit)));
            r.unwrap_or_else(|old| old)
        })
    }
}

/// Ordered and volatile loads and stores of `$t` through `$atomic` (same size); `$to`/`$from`
/// turn a value into the atomic's word and back, bit for bit.
macro_rules! load_store {
    ($($t:ty => $atomic:ident, |$v:ident| $to:expr, |$w:ident| $from:expr);* $(;)?) => { $(
        impl AtomicLoadStoreImpl for $t {
            #[inline(always)]
            unsafe fn atomic_load_raw(p: *const Self, order: Ordering, _: Scope, _: Space) -> Self {
                let $w = as_atomic!($atomic, p).load(order);
                $from
            }
            #[inline(always)]
            unsafe fn atomic_store_raw(p: *mut Self, $v: Self, order: Ordering, _: Scope, _: Space) {
                as_atomic!($atomic, p).store($to, order)
            }
            #[inline(always)]
            unsafe fn volatile_load_raw(p: *const Self, _: Space) -> Self {
                let $w = as_atomic!($atomic, p).load(Relaxed);
                $from
            }
            #[inline(always)]
            unsafe fn volatile_store_raw(p: *mut Self, $v: Self, _: Space) {
                as_atomic!($atomic, p).store($to, Relaxed)
            }
        }
    )* };
}
load_store! {
    u8 => AtomicU8, |v| v, |w| w;
    i8 => AtomicU8, |v| v as u8, |w| w as i8;
    u16 => AtomicU16, |v| v, |w| w;
    i16 => AtomicU16, |v| v as u16, |w| w as i16;
    u32 => AtomicU32, |v| v, |w| w;
    i32 => AtomicU32, |v| v as u32, |w| w as i32;
    u64 => AtomicU64, |v| v, |w| w;
    i64 => AtomicU64, |v| v as u64, |w| w as i64;
    f32 => AtomicU32, |v| v.to_bits(), |w| f32::from_bits(w);
    f64 => AtomicU64, |v| v.to_bits(), |w| f64::from_bits(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inc_and_dec_follow_cuda() {
        assert_eq!(inc_u32(0, 3), 1);
        assert_eq!(inc_u32(2, 3), 3);
        assert_eq!(inc_u32(3, 3), 0);
        assert_eq!(inc_u32(9, 3), 0);
        assert_eq!(inc_u32(u32::MAX, u32::MAX), 0);
        assert_eq!(inc_u32(5, 0), 0);
        assert_eq!(dec_u32(3, 3), 2);
        assert_eq!(dec_u32(1, 3), 0);
        assert_eq!(dec_u32(0, 3), 3);
        assert_eq!(dec_u32(9, 3), 3);
        assert_eq!(dec_u32(0, 0), 0);
    }

    #[test]
    fn signed_min_max_compare_as_signed() {
        let mut x = [-5i32, 7];
        let p = x.as_mut_ptr();
        // SAFETY: `p` points to two `i32`s of a local array used only here.
        unsafe {
            assert_eq!(i32::atomic_min_raw(p, 3, Space::Global), -5);
            assert_eq!(i32::atomic_max_raw(p, 3, Space::Global), -5);
            assert_eq!(i32::atomic_min_raw(p.add(1), -1, Space::Global), 7);
            assert_eq!(i32::atomic_sub_raw(p.add(1), -2, Space::Global), -1);
        }
        assert_eq!(x, [3, 1]);
        let mut y = [u64::MAX - 1];
        // SAFETY: as above.
        unsafe {
            assert_eq!(u64::atomic_max_raw(y.as_mut_ptr(), 1, Space::Global), u64::MAX - 1);
            assert_eq!(u64::atomic_cas_raw(y.as_mut_ptr(), 1, 2, Space::Global), u64::MAX - 1);
            assert_eq!(u64::atomic_cas_raw(y.as_mut_ptr(), u64::MAX - 1, 2, Space::Global), u64::MAX - 1);
        }
        assert_eq!(y, [2]);
    }

    #[test]
    fn ordered_loads_and_stores_keep_every_bit() {
        use Ordering::{Acquire, Release, SeqCst};
        let mut f = [0f32; 1];
        let mut d = [0f64; 1];
        let mut b = [0i8; 1];
        let mut h = [0i16; 1];
        // SAFETY: each pointer is to a local array of one element of its type, used only here
        // (loads take it from `as_mut_ptr` too: an atomic access needs write permission).
        unsafe {
            for bits in [0x7fc0_1234u32, 0x8000_0000, 1, 0xff80_0000] {
                f32::atomic_store_raw(f.as_mut_ptr(), f32::from_bits(bits), Release, Scope::Block, Space::Global);
                assert_eq!(
                    f32::atomic_load_raw(f.as_mut_ptr().cast_const(), Acquire, Scope::System, Space::Global).to_bits(),
                    bits
                );
                f32::volatile_store_raw(f.as_mut_ptr(), f32::from_bits(bits ^ 1), Space::Shared);
                assert_eq!(f32::volatile_load_raw(f.as_mut_ptr().cast_const(), Space::Shared).to_bits(), bits ^ 1);
            }
            f64::atomic_store_raw(
                d.as_mut_ptr(),
                f64::from_bits(0x7ff0_0000_0000_0abc),
                SeqCst,
                Scope::Device,
                Space::Global,
            );
            assert_eq!(
                f64::atomic_load_raw(d.as_mut_ptr().cast_const(), SeqCst, Scope::Device, Space::Global).to_bits(),
                0x7ff0_0000_0000_0abc
            );
            i8::atomic_store_raw(b.as_mut_ptr(), -128, Relaxed, Scope::Device, Space::Global);
            assert_eq!(i8::atomic_load_raw(b.as_mut_ptr().cast_const(), Relaxed, Scope::Device, Space::Global), -128);
            i16::volatile_store_raw(h.as_mut_ptr(), -2, Space::Global);
            assert_eq!(i16::volatile_load_raw(h.as_mut_ptr().cast_const(), Space::Global), -2);
        }
        assert_eq!((b, h), ([-128], [-2]));
    }
}
