//! Conversions between f32, integers, f16 and bf16 with an explicit rounding mode.

use half::{bf16, f16};

#[cfg(target_arch = "nvptx64")]
use super::ptx::ptx;
#[cfg_attr(target_arch = "nvptx64", allow(unused_imports))]
use super::soft::{self, Round, BF16, F16, F32};

/// Defines the four rounding modes of one conversion. `gpu:` gives the PTX instruction's parts
/// (`cvt.` + mode + `$isuf` + `$types`), its output and input register classes and types, and
/// the map from the instruction's output to the result.
macro_rules! conv4 {
    ($what:literal, $cuda:literal, $ptx:literal, $from:ty => $to:ty,
     [$rn:ident $rz:ident $ru:ident $rd:ident], |$x:ident, $mode:ident| $body:expr,
     gpu: ($isuf:literal, $types:literal, $oc:ident $ot:ty, $ic:ident, $post:expr)) => {
        conv4!(@one $what, $cuda, "rn", $ptx, "rn", "to nearest, ties to even", Nearest, $from => $to, $rn, |$x, $mode| $body, ($isuf, $types, $oc $ot, $ic, $post));
        conv4!(@one $what, $cuda, "rz", $ptx, "rz", "toward zero", Zero, $from => $to, $rz, |$x, $mode| $body, ($isuf, $types, $oc $ot, $ic, $post));
        conv4!(@one $what, $cuda, "ru", $ptx, "rp", "up (toward +∞)", Up, $from => $to, $ru, |$x, $mode| $body, ($isuf, $types, $oc $ot, $ic, $post));
        conv4!(@one $what, $cuda, "rd", $ptx, "rm", "down (toward −∞)", Down, $from => $to, $rd, |$x, $mode| $body, ($isuf, $types, $oc $ot, $ic, $post));
    };
    (@one $what:literal, $cuda:literal, $suffix:literal, $ptx:literal, $pm:literal, $dir:literal, $m:ident,
     $from:ty => $to:ty, $name:ident, |$x:ident, $mode:ident| $body:expr,
     ($isuf:literal, $types:literal, $oc:ident $ot:ty, $ic:ident, $post:expr)) => {
        #[doc = concat!($what, ", rounded ", $dir, ": CUDA's `", $cuda, $suffix, "` (PTX `cvt.", $pm, $isuf, $types, "`).")]
        #[inline]
        #[must_use]
        pub fn $name($x: $from) -> $to {
            #[cfg(target_arch = "nvptx64")]
            {
                let d: $ot = ptx!(concat!("cvt.", $pm, $isuf, $types) => $oc $ot; $ic $x);
                ($post)(d)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let $mode = Round::$m;
                $body
            }
        }
    };
}

conv4!(
    "f32 to i32, saturating (`±inf` and out-of-range values clamp to `i32::MIN`/`i32::MAX`, NaN gives 0)",
    "__float2int_", "cvt.r*i.s32.f32", f32 => i32,
    [float2int_rn float2int_rz float2int_ru float2int_rd],
    |x, m| soft::f32_to_i32(x.to_bits(), m),
    gpu: ("i", ".s32.f32", reg32 i32, reg32, |d: i32| d)
);
conv4!(
    "f32 to u32, saturating (negative values clamp to 0 after rounding, too large to `u32::MAX`, NaN gives 0)",
    "__float2uint_", "cvt.r*i.u32.f32", f32 => u32,
    [float2uint_rn float2uint_rz float2uint_ru float2uint_rd],
    |x, m| soft::f32_to_u32(x.to_bits(), m),
    gpu: ("i", ".u32.f32", reg32 u32, reg32, |d: u32| d)
);
conv4!(
    "i32 to f32",
    "__int2float_", "cvt.r*.f32.s32", i32 => f32,
    [int2float_rn int2float_rz int2float_ru int2float_rd],
    |x, m| f32::from_bits(soft::from_int(F32, x < 0, x.unsigned_abs() as u64, m)),
    gpu: ("", ".f32.s32", reg32 f32, reg32, |d: f32| d)
);
conv4!(
    "u32 to f32",
    "__uint2float_", "cvt.r*.f32.u32", u32 => f32,
    [uint2float_rn uint2float_rz uint2float_ru uint2float_rd],
    |x, m| f32::from_bits(soft::from_int(F32, false, x as u64, m)),
    gpu: ("", ".f32.u32", reg32 f32, reg32, |d: f32| d)
);
conv4!(
    "f32 to f16 (subnormal results kept, overflow per rounding direction, NaN gives `0x7fff`)",
    "__float2half_", "cvt.r*.f16.f32", f32 => f16,
    [float2half_rn float2half_rz float2half_ru float2half_rd],
    |x, m| f16::from_bits(soft::convert(F32, F16, x.to_bits(), m) as u16),
    gpu: ("", ".f16.f32", reg16 u16, reg32, f16::from_bits)
);
conv4!(
    "f32 to bf16 (subnormal results kept, overflow per rounding direction, NaN gives `0x7fff`)",
    "__float2bfloat16_", "cvt.r*.bf16.f32", f32 => bf16,
    [float2bfloat16_rn float2bfloat16_rz float2bfloat16_ru float2bfloat16_rd],
    |x, m| bf16::from_bits(soft::convert(F32, BF16, x.to_bits(), m) as u16),
    gpu: ("", ".bf16.f32", reg16 u16, reg32, bf16::from_bits)
);

/// f16 to f32, exact: CUDA's `__half2float` (PTX `cvt.f32.f16`). NaN gives `0x7fffffff`.
#[inline]
#[must_use]
pub fn half2float(x: f16) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("cvt.f32.f16" => reg32 f32; reg16 x.to_bits())
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        f32::from_bits(soft::convert(F16, F32, x.to_bits() as u32, Round::Nearest))
    }
}

/// bf16 to f32, exact: CUDA's `__bfloat162float` (PTX `cvt.f32.bf16` on sm_90).
///
/// The bits move up by 16 and nothing else happens: a NaN keeps its sign and payload (`0x7f81`
/// gives `0x7f810000`, a signalling NaN stays signalling), unlike [`half2float`]. Measured on
/// the H200 over all 65536 inputs. The GPU build does the same shift.
#[inline]
#[must_use]
pub fn bfloat162float(x: bf16) -> f32 {
    f32::from_bits((x.to_bits() as u32) << 16)
}
