//! The element accesses the macros' rewrite emits (`v[i]` → `load`, `v[i] = x` → `store`,
//! `t[r][c]` through `row`), the index types they take (`Index`), and the overflow-checked
//! index arithmetic of a region's proof (`RangeInt`, `range_add`, `range_mul`). The macro ABI
//! re-exports them (`__private::load`, ...); on the host the checkers' hooks are reached
//! through the backend (`backend::on_load`, `on_store`, `checking`).
//!
//! Moved from `__private.rs` (issue 27).

#[cfg(not(target_arch = "nvptx64"))]
use core::panic::Location;

use super::backend;
use super::copy::DeviceCopy;
use super::view::{View, ViewKind, Writable};

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
pub(crate) fn load<T: DeviceCopy, K: ViewKind, I: Index>(checked: bool, v: &View<T, K>, i: I) -> T {
    let i = i.to_index();
    let x = v.load(i);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        backend::on_load(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
    x
}

/// `v[i] = value` in a kernel (`checked` as for [`load`]).
#[inline(always)]
#[track_caller]
pub(crate) fn store<T: DeviceCopy, K: Writable, I: Index>(checked: bool, v: &View<T, K>, i: I, value: T) {
    let i = i.to_index();
    v.store(i, value);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        backend::on_store(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
}

/// Whether the running kernel checks accesses: what a `#[device]` helper asks once per call.
#[inline(always)]
pub fn helper_checking() -> bool {
    #[cfg(not(target_arch = "nvptx64"))]
    return backend::checking();
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
pub fn row_write<'l, T: DeviceCopy, const N: usize, K: ViewKind, I: Index>(
    v: &View<'l, [T; N], K>,
    i: I,
) -> View<'l, T, K> {
    v.row_for(i.to_index(), backend::AccessKind::Write)
}

/// The length of a row of `t` (`N`), for a region's proof.
#[inline(always)]
pub fn row_len<T, const N: usize, K: ViewKind>(_t: &View<[T; N], K>) -> usize {
    N
}

/// An integer a region's proof adds with overflow checked (`fission/ranges.rs`).
pub trait RangeInt: Index + Ord {
    /// `self + other`, or `None` on overflow.
    fn checked(self, other: Self) -> Option<Self>;
    /// `self - other`, or `None` on overflow.
    fn checked_minus(self, other: Self) -> Option<Self>;
    /// `self * other`, or `None` on overflow or when either is below 0.
    fn checked_mul_nonneg(self, other: Self) -> Option<Self>;
    /// `-self`, or `None` on overflow (an unsigned one but 0).
    fn checked_negate(self) -> Option<Self>;
}

macro_rules! range_ints {
    ($($t:ty),*) => {
        $(impl RangeInt for $t {
            #[inline(always)]
            fn checked(self, other: Self) -> Option<Self> {
                self.checked_add(other)
            }
            #[inline(always)]
            fn checked_minus(self, other: Self) -> Option<Self> {
                self.checked_sub(other)
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn checked_mul_nonneg(self, other: Self) -> Option<Self> {
                if self < 0 || other < 0 {
                    return None;
                }
                self.checked_mul(other)
            }
            #[inline(always)]
            fn checked_negate(self) -> Option<Self> {
                (0 as $t).checked_sub(self)
            }
        })*
    };
}

range_ints!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// The product of two ends of index ranges, `None` if either is, is below 0, or the product
/// overflows.
#[inline(always)]
pub fn range_mul<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    a?.checked_mul_nonneg(b?)
}

/// The sum of two ends of index ranges, `None` if either is or the sum overflows.
#[inline(always)]
pub fn range_add<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    a?.checked(b?)
}

/// The difference of two ends of index ranges, `None` if either is or the difference
/// overflows (an unsigned one below 0).
#[inline(always)]
pub fn range_sub<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    a?.checked_minus(b?)
}

/// The last value of a loop `for j in start..end` (`exclusive`) or `start..=end` whose ends
/// take one value each, `None` if either is or the loop runs no pass (then nothing is known
/// of `j`, and the proof fails); `one` is 1 of the loop's type.
#[inline(always)]
pub fn range_last<T: RangeInt>(start: Option<T>, end: Option<T>, one: T, exclusive: bool) -> Option<T> {
    let (s, e) = (start?, end?);
    match exclusive {
        true if s < e => e.checked_minus(one),
        false if s <= e => Some(e),
        _ => None,
    }
}

/// Minus an end of an index range (of `-x`, whose lower end is minus `x`'s upper one), `None`
/// if it is or the negation overflows.
#[inline(always)]
pub fn range_neg<T: RangeInt>(a: Option<T>) -> Option<T> {
    a?.checked_negate()
}

/// The smaller of two ends of index ranges (a range's end narrowed by a guard), `None` if
/// either is.
#[inline(always)]
pub fn range_min<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    Some(a?.min(b?))
}

/// The larger of two ends of index ranges, `None` if either is.
#[inline(always)]
pub fn range_max<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    Some(a?.max(b?))
}

/// The lower end `lo` of a range narrowed by `x != c` (`c` from `c_lo` to `c_hi`): `lo + one`
/// when `c` takes one value only and `lo` is it; `lo` otherwise, and when `c`'s range is
/// `None` (then nothing is known of `c`, and nothing narrows).
#[inline(always)]
pub fn range_skip_lo<T: RangeInt>(lo: Option<T>, c_lo: Option<T>, c_hi: Option<T>, one: T) -> Option<T> {
    match (lo, c_lo, c_hi) {
        (Some(l), Some(a), Some(b)) if a == b && l == a => l.checked(one),
        _ => lo,
    }
}

/// The upper end `hi` of a range narrowed by `x != c`: `hi - one` when `c` takes one value
/// only and `hi` is it (see [`range_skip_lo`]).
#[inline(always)]
pub fn range_skip_hi<T: RangeInt>(hi: Option<T>, c_lo: Option<T>, c_hi: Option<T>, one: T) -> Option<T> {
    match (hi, c_lo, c_hi) {
        (Some(h), Some(a), Some(b)) if a == b && h == a => h.checked_minus(one),
        _ => hi,
    }
}

/// An end of an index range converted to the integer type `T` (an `as T` cast), `None` if it
/// is or if `T` does not hold it: between two ends that convert, every value converts, and in
/// the same order.
#[inline(always)]
pub fn range_cast<T: RangeInt + TryFrom<U>, U: RangeInt>(a: Option<U>) -> Option<T> {
    T::try_from(a?).ok()
}
