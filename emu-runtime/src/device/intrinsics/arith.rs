//! f32 arithmetic with an explicit rounding mode, and its `.ftz` forms.

#[cfg(target_arch = "nvptx64")]
use super::ptx::ptx;
#[cfg(not(target_arch = "nvptx64"))]
use super::soft::{self, Round, F32};

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn b(x: f32) -> u32 {
    x.to_bits()
}
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn z(x: f32) -> u32 {
    F32.ftz(x.to_bits())
}

/// Defines `name_{rn,rz,ru,rd}` and `name_{rn,rz,ru,rd}_ftz` for one operation.
macro_rules! four_modes {
    (
        $what:literal, $cuda:literal, $ptx:literal,
        ($($arg:ident),*),
        [$rn:ident $rz:ident $ru:ident $rd:ident],
        [$rn_f:ident $rz_f:ident $ru_f:ident $rd_f:ident],
        |$mode:ident| $body:expr,
        |$mode_f:ident| $body_f:expr
    ) => {
        four_modes!(@one $what, $cuda, "rn", $ptx, "rn", "to nearest, ties to even", Nearest, ($($arg),*), $rn, $rn_f, |$mode| $body, |$mode_f| $body_f);
        four_modes!(@one $what, $cuda, "rz", $ptx, "rz", "toward zero", Zero, ($($arg),*), $rz, $rz_f, |$mode| $body, |$mode_f| $body_f);
        four_modes!(@one $what, $cuda, "ru", $ptx, "rp", "up (toward +∞)", Up, ($($arg),*), $ru, $ru_f, |$mode| $body, |$mode_f| $body_f);
        four_modes!(@one $what, $cuda, "rd", $ptx, "rm", "down (toward −∞)", Down, ($($arg),*), $rd, $rd_f, |$mode| $body, |$mode_f| $body_f);
    };
    (@one $what:literal, $cuda:literal, $suffix:literal, $ptx:literal, $ptx_mode:literal, $dir:literal, $m:ident,
        ($($arg:ident),*), $name:ident, $name_f:ident, |$mode:ident| $body:expr, |$mode_f:ident| $body_f:expr) => {
        #[doc = concat!($what, ", rounded ", $dir, ": CUDA's `", $cuda, $suffix, "` (PTX `", $ptx, ".", $ptx_mode, ".f32`).")]
        ///
        /// Exact to the device for every input, subnormals included; a NaN result is the
        /// canonical NaN `0x7fffffff`. On the GPU this is the PTX instruction itself.
        #[inline]
        #[must_use]
        pub fn $name($($arg: f32),*) -> f32 {
            #[cfg(target_arch = "nvptx64")]
            {
                ptx!(concat!($ptx, ".", $ptx_mode, ".f32") => reg32 f32; reg32 $($arg),*)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let $mode = Round::$m;
                $body
            }
        }

        #[doc = concat!($what, ", rounded ", $dir, ", flushing subnormals: PTX `", $ptx, ".", $ptx_mode, ".ftz.f32` (what `nvcc -ftz=true` makes of `", $cuda, $suffix, "`).")]
        ///
        /// Subnormal inputs are read as zero of the same sign, and a result that is *tiny* is
        /// returned as zero of the same sign: tiny means below `2^-126` in magnitude after
        /// rounding to 24 bits in this direction as though the exponent range were unbounded
        /// (IEEE 754's "tininess after rounding"), which is what the H200 does. So a result
        /// that rounds up to exactly `2^-126` only because of the subnormal spacing is still
        /// flushed. Never returns a subnormal.
        #[inline]
        #[must_use]
        pub fn $name_f($($arg: f32),*) -> f32 {
            #[cfg(target_arch = "nvptx64")]
            {
                ptx!(concat!($ptx, ".", $ptx_mode, ".ftz.f32") => reg32 f32; reg32 $($arg),*)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let $mode_f = Round::$m;
                $body_f
            }
        }
    };
}

four_modes!(
    "`a + b`", "__fadd_", "add", (a, bb),
    [fadd_rn fadd_rz fadd_ru fadd_rd], [fadd_rn_ftz fadd_rz_ftz fadd_ru_ftz fadd_rd_ftz],
    |m| f(soft::add(F32, b(a), b(bb), m)),
    |m| f(soft::add_ftz(F32, b(a), b(bb), m))
);
four_modes!(
    "`a - b`", "__fsub_", "sub", (a, bb),
    [fsub_rn fsub_rz fsub_ru fsub_rd], [fsub_rn_ftz fsub_rz_ftz fsub_ru_ftz fsub_rd_ftz],
    |m| f(soft::sub(F32, b(a), b(bb), m)),
    |m| f(soft::sub_ftz(F32, b(a), b(bb), m))
);
four_modes!(
    "`a * b`", "__fmul_", "mul", (a, bb),
    [fmul_rn fmul_rz fmul_ru fmul_rd], [fmul_rn_ftz fmul_rz_ftz fmul_ru_ftz fmul_rd_ftz],
    |m| f(soft::mul(F32, b(a), b(bb), m)),
    |m| f(soft::mul_ftz(F32, b(a), b(bb), m))
);
four_modes!(
    "`a / b`, correctly rounded", "__fdiv_", "div", (a, bb),
    [fdiv_rn fdiv_rz fdiv_ru fdiv_rd], [fdiv_rn_ftz fdiv_rz_ftz fdiv_ru_ftz fdiv_rd_ftz],
    |m| f(soft::div(F32, b(a), b(bb), m)),
    |m| f(soft::div_ftz(F32, b(a), b(bb), m))
);
four_modes!(
    "`a * b + c` with a single rounding", "__fmaf_", "fma", (a, bb, c),
    [fmaf_rn fmaf_rz fmaf_ru fmaf_rd], [fmaf_rn_ftz fmaf_rz_ftz fmaf_ru_ftz fmaf_rd_ftz],
    |m| f(soft::fma(F32, b(a), b(bb), b(c), m)),
    |m| f(soft::fma_ftz(F32, b(a), b(bb), b(c), m))
);
four_modes!(
    "`1 / x`, correctly rounded", "__frcp_", "rcp", (x),
    [frcp_rn frcp_rz frcp_ru frcp_rd], [frcp_rn_ftz frcp_rz_ftz frcp_ru_ftz frcp_rd_ftz],
    |m| f(soft::div(F32, 0x3f80_0000, b(x), m)),
    |m| f(soft::div_ftz(F32, 0x3f80_0000, b(x), m))
);
four_modes!(
    "`sqrt(x)`, correctly rounded (`sqrt(-0) = -0`, negative gives NaN)", "__fsqrt_", "sqrt", (x),
    [fsqrt_rn fsqrt_rz fsqrt_ru fsqrt_rd], [fsqrt_rn_ftz fsqrt_rz_ftz fsqrt_ru_ftz fsqrt_rd_ftz],
    |m| f(soft::sqrt(F32, b(x), m)),
    |m| f(soft::sqrt(F32, z(x), m))
);

/// `1 / sqrt(x)`, correctly rounded to nearest: CUDA's `__frsqrt_rn`.
///
/// `+0` gives `+inf`, `-0` gives `-inf`, `+inf` gives `+0`, negative values and NaN give the
/// canonical NaN. Computed exactly (an integer square root of `2^112 / m`), so there is no
/// double rounding.
#[inline]
#[must_use]
pub fn frsqrt_rn(x: f32) -> f32 {
    // No single PTX instruction rounds 1/sqrt correctly (CUDA builds `__frsqrt_rn` from
    // `rsqrt.approx` and fmas); the engine's exact result is the same bits on both targets.
    f32::from_bits(super::soft::rsqrt(super::soft::F32, x.to_bits(), super::soft::Round::Nearest))
}

/// Clamps `x` to `[0.0, 1.0]`: CUDA's `__saturatef` (PTX `cvt.sat.f32.f32`).
///
/// NaN gives `+0.0`, and so does `-0.0`.
#[inline]
#[must_use]
pub fn saturatef(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("cvt.sat.f32.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x >= 1.0 {
        1.0
    } else {
        x
    }
}
