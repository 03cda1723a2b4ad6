//! Arithmetic, comparisons and min/max on `f16` (CUDA's `__half`) and `bf16` (`__nv_bfloat16`).
//!
//! `f16` functions are named like CUDA's (`__hadd` is [`hadd`]); the `bf16` ones carry a
//! `_bf16` suffix ([`hadd_bf16`]), since CUDA overloads one name for both types. Add, subtract,
//! multiply and fma are correctly rounded to nearest in the 16-bit format (PTX `add.rn.f16`,
//! `fma.rn.bf16`, ...; fma rounds once), subnormals included; NaN results are the canonical
//! NaN `0x7fff`. Division follows the CUDA headers' algorithm (see [`hdiv`]).

use half::{bf16, f16};

use super::fast::{div_approx, rcp_approx_ftz};
#[cfg(target_arch = "nvptx64")]
use super::ptx::{ptx, ptx_setp};
#[cfg_attr(target_arch = "nvptx64", allow(unused_imports))]
use super::soft::{self, Fmt, Round, BF16, F16};
use super::{bfloat162float, float2bfloat16_rn, float2half_rn, fmaf_rn, fmul_rn, half2float};

#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
#[inline(always)]
fn h(x: u32) -> f16 {
    f16::from_bits(x as u16)
}
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
#[inline(always)]
fn bh(x: u32) -> bf16 {
    bf16::from_bits(x as u16)
}

/// Value of a 16-bit pattern as f32 (exact, NaN stays NaN).
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
#[inline(always)]
fn val(f: Fmt, x: u16) -> f32 {
    f32::from_bits(soft::convert(f, soft::F32, x as u32, Round::Nearest))
}

/// IEEE 754-2019 minimumNumber/maximumNumber with `-0 < +0`; `nan` selects NaN propagation.
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
#[inline(always)]
fn minmax(f: Fmt, a: u16, b: u16, want_max: bool, propagate_nan: bool) -> u16 {
    let an = f.is_nan(a as u32);
    let bn = f.is_nan(b as u32);
    if an || bn {
        if propagate_nan || (an && bn) {
            return f.nan() as u16;
        }
        return if an { b } else { a };
    }
    let (x, y) = (val(f, a), val(f, b));
    let a_less = if x == y { a & 0x8000 != 0 && b & 0x8000 == 0 } else { x < y };
    let b_less = if x == y { b & 0x8000 != 0 && a & 0x8000 == 0 } else { y < x };
    if want_max {
        if a_less {
            b
        } else {
            a
        }
    } else if b_less {
        b
    } else {
        a
    }
}

macro_rules! half_family {
    ($ty:ident, $fmt:ident, $tyname:literal, $cuda_ty:literal, $ptx_ty:literal, $wrap:ident,
     add: $add:ident, sub: $sub:ident, mul: $mul:ident, fma: $fma:ident, neg: $neg:ident, abs: $abs:ident,
     eq: $eq:ident, ne: $ne:ident, lt: $lt:ident, le: $le:ident, gt: $gt:ident, ge: $ge:ident,
     equ: $equ:ident, neu: $neu:ident, ltu: $ltu:ident, leu: $leu:ident, gtu: $gtu:ident, geu: $geu:ident,
     isnan: $isnan:ident, min: $min:ident, max: $max:ident, min_nan: $min_nan:ident, max_nan: $max_nan:ident) => {
        #[doc = concat!("`a + b` on ", $tyname, ", rounded to nearest: CUDA's `__hadd` on `", $cuda_ty, "` (PTX `add.rn.", $ptx_ty, "`).")]
        #[inline]
        #[must_use]
        pub fn $add(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("add.rn.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $wrap(soft::add($fmt, a.to_bits() as u32, b.to_bits() as u32, Round::Nearest))
            }
        }
        #[doc = concat!("`a - b` on ", $tyname, ", rounded to nearest: CUDA's `__hsub` on `", $cuda_ty, "` (PTX `sub.rn.", $ptx_ty, "`).")]
        #[inline]
        #[must_use]
        pub fn $sub(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("sub.rn.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $wrap(soft::sub($fmt, a.to_bits() as u32, b.to_bits() as u32, Round::Nearest))
            }
        }
        #[doc = concat!("`a * b` on ", $tyname, ", rounded to nearest: CUDA's `__hmul` on `", $cuda_ty, "` (PTX `mul.rn.", $ptx_ty, "`).")]
        #[inline]
        #[must_use]
        pub fn $mul(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("mul.rn.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $wrap(soft::mul($fmt, a.to_bits() as u32, b.to_bits() as u32, Round::Nearest))
            }
        }
        #[doc = concat!("`a * b + c` on ", $tyname, " with one rounding to nearest: CUDA's `__hfma` on `", $cuda_ty, "` (PTX `fma.rn.", $ptx_ty, "`).")]
        #[inline]
        #[must_use]
        pub fn $fma(a: $ty, b: $ty, c: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("fma.rn.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits(), c.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $wrap(soft::fma($fmt, a.to_bits() as u32, b.to_bits() as u32, c.to_bits() as u32, Round::Nearest))
            }
        }
        #[doc = concat!("`-a` on ", $tyname, ": CUDA's `__hneg` (PTX `neg.", $ptx_ty, "`): flips the sign bit; a NaN gives the canonical NaN `0x7fff` (measured on the H200).")]
        #[inline]
        #[must_use]
        pub fn $neg(a: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("neg.", $ptx_ty) => reg16 u16; reg16 a.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let x = a.to_bits();
                <$ty>::from_bits(if $fmt.is_nan(x as u32) { $fmt.nan() as u16 } else { x ^ 0x8000 })
            }
        }
        #[doc = concat!("`|a|` on ", $tyname, ": CUDA's `__habs` (PTX `abs.", $ptx_ty, "`): clears the sign bit; a NaN gives the canonical NaN `0x7fff` (measured on the H200).")]
        #[inline]
        #[must_use]
        pub fn $abs(a: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("abs.", $ptx_ty) => reg16 u16; reg16 a.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let x = a.to_bits();
                <$ty>::from_bits(if $fmt.is_nan(x as u32) { $fmt.nan() as u16 } else { x & 0x7fff })
            }
        }
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__heq", "eq", "a == b", false, $eq, |x, y| x == y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hne", "ne", "a != b", false, $ne, |x, y| x != y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hlt", "lt", "a < b", false, $lt, |x, y| x < y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hle", "le", "a <= b", false, $le, |x, y| x <= y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hgt", "gt", "a > b", false, $gt, |x, y| x > y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hge", "ge", "a >= b", false, $ge, |x, y| x >= y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hequ", "equ", "a == b", true, $equ, |x, y| x == y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hneu", "neu", "a != b", true, $neu, |x, y| x != y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hltu", "ltu", "a < b", true, $ltu, |x, y| x < y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hleu", "leu", "a <= b", true, $leu, |x, y| x <= y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hgtu", "gtu", "a > b", true, $gtu, |x, y| x > y);
        half_family!(@cmp $ty, $fmt, $tyname, $ptx_ty, "__hgeu", "geu", "a >= b", true, $geu, |x, y| x >= y);
        #[doc = concat!("Whether `a` is a NaN: CUDA's `__hisnan` on `", $cuda_ty, "`.")]
        #[inline]
        #[must_use]
        pub fn $isnan(a: $ty) -> bool {
            #[cfg(target_arch = "nvptx64")]
            {
                ptx_setp!(concat!("setp.nan.", $ptx_ty); reg16 a.to_bits(), a.to_bits())
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $fmt.is_nan(a.to_bits() as u32)
            }
        }
        #[doc = concat!("Minimum of two ", $tyname, " values: CUDA's `__hmin` (PTX `min.", $ptx_ty, "`). A NaN operand is ignored; two NaNs give `0x7fff`; `-0` is less than `+0`.")]
        #[inline]
        #[must_use]
        pub fn $min(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("min.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                <$ty>::from_bits(minmax($fmt, a.to_bits(), b.to_bits(), false, false))
            }
        }
        #[doc = concat!("Maximum of two ", $tyname, " values: CUDA's `__hmax` (PTX `max.", $ptx_ty, "`). A NaN operand is ignored; two NaNs give `0x7fff`; `+0` is greater than `-0`.")]
        #[inline]
        #[must_use]
        pub fn $max(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("max.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                <$ty>::from_bits(minmax($fmt, a.to_bits(), b.to_bits(), true, false))
            }
        }
        #[doc = concat!("Minimum of two ", $tyname, " values, NaN-propagating: CUDA's `__hmin_nan` (PTX `min.NaN.", $ptx_ty, "`); any NaN gives `0x7fff`.")]
        #[inline]
        #[must_use]
        pub fn $min_nan(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("min.NaN.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                <$ty>::from_bits(minmax($fmt, a.to_bits(), b.to_bits(), false, true))
            }
        }
        #[doc = concat!("Maximum of two ", $tyname, " values, NaN-propagating: CUDA's `__hmax_nan` (PTX `max.NaN.", $ptx_ty, "`); any NaN gives `0x7fff`.")]
        #[inline]
        #[must_use]
        pub fn $max_nan(a: $ty, b: $ty) -> $ty {
            #[cfg(target_arch = "nvptx64")]
            {
                <$ty>::from_bits(ptx!(concat!("max.NaN.", $ptx_ty) => reg16 u16; reg16 a.to_bits(), b.to_bits()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                <$ty>::from_bits(minmax($fmt, a.to_bits(), b.to_bits(), true, true))
            }
        }
    };
    (@cmp $ty:ident, $fmt:ident, $tyname:literal, $ptx_ty:literal, $cuda:literal, $op:literal, $rel:literal, $unordered:literal, $name:ident, |$x:ident, $y:ident| $e:expr) => {
        #[doc = concat!("`", $rel, "` on ", $tyname, ": CUDA's `", $cuda, "` (PTX `setp.", $op, ".", $ptx_ty, "`). ",
            "Comparisons with a NaN give `", stringify!($unordered), "` (",
            "the `u` forms are unordered comparisons); `-0 == +0`.")]
        #[inline]
        #[must_use]
        pub fn $name(a: $ty, b: $ty) -> bool {
            #[cfg(target_arch = "nvptx64")]
            {
                ptx_setp!(concat!("setp.", $op, ".", $ptx_ty); reg16 a.to_bits(), b.to_bits())
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let ($x, $y) = (val($fmt, a.to_bits()), val($fmt, b.to_bits()));
                if $x.is_nan() || $y.is_nan() {
                    $unordered
                } else {
                    $e
                }
            }
        }
    };
}

half_family!(f16, F16, "`f16`", "__half", "f16", h,
    add: hadd, sub: hsub, mul: hmul, fma: hfma, neg: hneg, abs: habs,
    eq: heq, ne: hne, lt: hlt, le: hle, gt: hgt, ge: hge,
    equ: hequ, neu: hneu, ltu: hltu, leu: hleu, gtu: hgtu, geu: hgeu,
    isnan: hisnan, min: hmin, max: hmax, min_nan: hmin_nan, max_nan: hmax_nan);

half_family!(bf16, BF16, "`bf16`", "__nv_bfloat16", "bf16", bh,
    add: hadd_bf16, sub: hsub_bf16, mul: hmul_bf16, fma: hfma_bf16, neg: hneg_bf16, abs: habs_bf16,
    eq: heq_bf16, ne: hne_bf16, lt: hlt_bf16, le: hle_bf16, gt: hgt_bf16, ge: hge_bf16,
    equ: hequ_bf16, neu: hneu_bf16, ltu: hltu_bf16, leu: hleu_bf16, gtu: hgtu_bf16, geu: hgeu_bf16,
    isnan: hisnan_bf16, min: hmin_bf16, max: hmax_bf16, min_nan: hmin_nan_bf16, max_nan: hmax_nan_bf16);

/// `a / b` on `f16`: CUDA's `__hdiv`, following `cuda_fp16.hpp`'s algorithm.
///
/// The device computes `q = a * rcp.approx.ftz(b)` in f32 and rounds it to f16, refining `q`
/// with two fmas only when the f16 result is a tiny subnormal (below `0x008f`). The result is
/// the correctly rounded quotient except where the exact quotient lies within about two f32 ulps
/// of an f16 rounding boundary; there it depends on the hardware reciprocal, which is emulated
/// exactly for every f16 divisor by a table measured on the device (see `fast.rs`).
#[inline]
#[must_use]
pub fn hdiv(a: f16, b: f16) -> f16 {
    // Each step is the intrinsic for the header's instruction, so the GPU build is the same
    // instruction sequence: cvt.f32.f16, rcp.approx.ftz.f32, mul.rn.f32, cvt.rn.f16.f32, fma.rn.f32.
    let fa = half2float(a);
    let fb = half2float(b);
    let rcp = rcp_approx_ftz(fb);
    let mut fv = fmul_rn(rcp, fa);
    let mut v = float2half_rn(fv).to_bits();
    let abs = v & 0x7fff;
    if abs < 0x008f && abs > 0 {
        let err = fmaf_rn(-fb, fv, fa);
        fv = fmaf_rn(rcp, err, fv);
        v = float2half_rn(fv).to_bits();
    }
    f16::from_bits(v)
}

/// `a / b` on `bf16`: CUDA's `__hdiv` on `__nv_bfloat16`, following `cuda_bf16.hpp`.
///
/// The device computes `div.approx.f32` on the f32 values (scaling a divisor of magnitude
/// `2^126` or more by `1/4` first, and the result back) and rounds the quotient to bf16.
/// `div.approx.f32` multiplies both operands by `2^24` when the divisor is subnormal, so
/// subnormal divisors divide normally (`0x0001 / 0x0001` is 1). Exact: the hardware reciprocal
/// of every bf16 significand is known (see `fast.rs`).
#[inline]
#[must_use]
pub fn hdiv_bf16(a: bf16, b: bf16) -> bf16 {
    let fa = bfloat162float(a);
    let mut fb = bfloat162float(b);
    let big = f32::from_bits(fb.to_bits() & 0x7fff_ffff) >= f32::from_bits(0x7e80_0000);
    if big {
        fb = fmul_rn(fb, 0.25);
    }
    let mut q = div_approx(fa, fb);
    if big {
        q = fmaf_rn(q, 0.25, -0.0);
    }
    float2bfloat16_rn(q)
}

/// Two `f16` in one 32-bit word (CUDA's `__half2`): `x` is the low half, `y` the high one.
/// Kernels use it for [`atomic_add`](crate::device::View::atomic_add) on pairs
/// (`atomicAdd(__half2*, __half2)`, PTX `atom.add.noftz.f16x2`).
#[repr(C, align(4))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Half2 {
    /// The low half (`__half2::x`).
    pub x: f16,
    /// The high half (`__half2::y`).
    pub y: f16,
}

/// Two `bf16` in one 32-bit word (CUDA's `__nv_bfloat162`): `x` is the low half, `y` the
/// high one. Kernels use it for [`atomic_add`](crate::device::View::atomic_add) on pairs
/// (PTX `atom.add.noftz.bf16x2`).
#[repr(C, align(4))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bfloat162 {
    /// The low half (`__nv_bfloat162::x`).
    pub x: bf16,
    /// The high half (`__nv_bfloat162::y`).
    pub y: bf16,
}

impl Half2 {
    /// `Half2 { x, y }` (CUDA's `__halves2half2(x, y)`).
    #[inline(always)]
    pub const fn new(x: f16, y: f16) -> Self {
        Half2 { x, y }
    }
    /// The 32-bit word: `x` in bits 0 to 15, `y` in bits 16 to 31.
    #[inline(always)]
    pub const fn to_bits(self) -> u32 {
        self.x.to_bits() as u32 | (self.y.to_bits() as u32) << 16
    }
    /// The pair of a 32-bit word (the inverse of [`Half2::to_bits`]).
    #[inline(always)]
    pub const fn from_bits(w: u32) -> Self {
        Half2 { x: f16::from_bits(w as u16), y: f16::from_bits((w >> 16) as u16) }
    }
}

impl Bfloat162 {
    /// `Bfloat162 { x, y }` (CUDA's `__halves2bfloat162(x, y)`).
    #[inline(always)]
    pub const fn new(x: bf16, y: bf16) -> Self {
        Bfloat162 { x, y }
    }
    /// The 32-bit word: `x` in bits 0 to 15, `y` in bits 16 to 31.
    #[inline(always)]
    pub const fn to_bits(self) -> u32 {
        self.x.to_bits() as u32 | (self.y.to_bits() as u32) << 16
    }
    /// The pair of a 32-bit word (the inverse of [`Bfloat162::to_bits`]).
    #[inline(always)]
    pub const fn from_bits(w: u32) -> Self {
        Bfloat162 { x: bf16::from_bits(w as u16), y: bf16::from_bits((w >> 16) as u16) }
    }
}

// SAFETY: `f16` and `bf16` are `u16` bit patterns (`repr(transparent)`), so they have no
// padding and every pattern, zero included, is a valid value; the pairs are two of them in a
// `repr(C)` struct of size 4 and alignment 4: no padding either.
unsafe impl crate::device::DeviceCopy for f16 {}
// SAFETY: as above.
unsafe impl crate::device::DeviceCopy for bf16 {}
// SAFETY: as above.
unsafe impl crate::device::DeviceCopy for Half2 {}
// SAFETY: as above.
unsafe impl crate::device::DeviceCopy for Bfloat162 {}
// SAFETY: every bit pattern is a valid `f16`, `bf16` or pair of them.
unsafe impl crate::device::AnyBitPattern for f16 {}
// SAFETY: as above.
unsafe impl crate::device::AnyBitPattern for bf16 {}
// SAFETY: as above.
unsafe impl crate::device::AnyBitPattern for Half2 {}
// SAFETY: as above.
unsafe impl crate::device::AnyBitPattern for Bfloat162 {}

const _: () = assert!(core::mem::size_of::<Half2>() == 4 && core::mem::align_of::<Half2>() == 4);
const _: () = assert!(core::mem::size_of::<Bfloat162>() == 4 && core::mem::align_of::<Bfloat162>() == 4);

/// What `atom.add.noftz` computes for one 16-bit lane on the host: the exact sum rounded to
/// nearest even, subnormals kept (`noftz`), NaN results the canonical NaN `0x7fff` — the same
/// as [`hadd`] and [`hadd_bf16`] (PTX `add.rn.f16`/`.bf16`).
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) fn atom_add_lane(bf: bool, a: u16, b: u16) -> u16 {
    if bf {
        hadd_bf16(bf16::from_bits(a), bf16::from_bits(b)).to_bits()
    } else {
        hadd(f16::from_bits(a), f16::from_bits(b)).to_bits()
    }
}
