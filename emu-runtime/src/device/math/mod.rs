//! f32 and f64 math functions (`sinf`, `expf`, `powf`, ...; `sin`, `exp`, `pow`, ... as CUDA
//! names them) that give the same bits emulated and on the GPU.
//!
//! Each function is one implementation, compiled for both targets: the [`libm`] crate's
//! (a port of musl's), or exact bit-level code for the functions that have one right answer.
//! On the GPU they therefore compute the same bits as in the emulator, but **not** the bits of
//! CUDA's own `sinf` (libdevice): a kernel that must match CUDA C code calling `sinf` bit for
//! bit cannot, since NVIDIA's implementation differs. Two details make the results identical
//! on both targets:
//!
//! * a NaN result is always the canonical NaN `0x7fffffff` (the device's arithmetic produces it,
//!   the host's would keep payloads);
//! * [`fminf`]/[`fmaxf`] order `-0` below `+0`, rather than leaving the choice to the hardware.
//!
//! # Accuracy
//!
//! Maximum error in ulps against the correctly rounded result, measured on 10^7 or more inputs
//! per function (`math/accuracy_tests.rs`), next to CUDA's documented bound (CUDA C
//! Programming Guide, "Mathematical Functions"). FP.md has the full table, with the inputs.
//!
//! | function | here | CUDA |   | function | here | CUDA |
//! |---|---|---|---|---|---|---|
//! | `sinf` `cosf` | 1 | 2 |  | `expf` `exp2f` | 1 | 2 |
//! | `tanf` | 1 | 4 |  | `exp10f` | 0 | 2 |
//! | `asinf` `acosf` | 1 | 2 |  | `expm1f` | 1 | 1 |
//! | `atanf` | 1 | 2 |  | `logf` `log2f` | 1 | 1 |
//! | `atan2f` | 1 | 3 |  | `log10f` | 1 | 2 |
//! | `sinhf` | 2 | 3 |  | `log1pf` | 1 | 1 |
//! | `coshf` | 1 | 2 |  | `powf` | 1 | 4 |
//! | `tanhf` | 2 | 2 |  | `cbrtf` | 0 | 1 |
//! | `erff` | 1 | 2 |  | `hypotf` | 1 | 3 |
//! | `erfcf` | 3 | 4 |  | `sqrtf` `fmaf` | 0 | 0 |
//!
//! ("here": the largest distance, in ulps, to the correctly rounded result over 10^7 inputs;
//! `exp10f` is computed in f64 and rounded, and was correctly rounded on every input tried.)
//!
//! `fabsf fminf fmaxf floorf ceilf roundf truncf fmodf copysignf` are exact (0 ulp), as on the
//! device.

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod accuracy_tests;

mod f64;
pub use self::f64::*;

#[inline(always)]
fn canon(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(0x7fff_ffff)
    } else {
        x
    }
}

macro_rules! libm1 {
    ($($name:ident: $doc:literal;)*) => {$(
        #[doc = concat!($doc, " (the `libm` crate's `", stringify!($name), "`; NaN results are `0x7fffffff`).")]
        #[inline]
        #[must_use]
        pub fn $name(x: f32) -> f32 {
            canon(libm::$name(x))
        }
    )*};
}

macro_rules! libm2 {
    ($($name:ident: $doc:literal;)*) => {$(
        #[doc = concat!($doc, " (the `libm` crate's `", stringify!($name), "`; NaN results are `0x7fffffff`).")]
        #[inline]
        #[must_use]
        pub fn $name(x: f32, y: f32) -> f32 {
            canon(libm::$name(x, y))
        }
    )*};
}

libm1! {
    sinf: "Sine of `x` (radians)";
    cosf: "Cosine of `x` (radians)";
    tanf: "Tangent of `x` (radians)";
    asinf: "Arcsine of `x`";
    acosf: "Arccosine of `x`";
    atanf: "Arctangent of `x`";
    sinhf: "Hyperbolic sine of `x`";
    coshf: "Hyperbolic cosine of `x`";
    tanhf: "Hyperbolic tangent of `x`";
    expf: "`e^x`";
    exp2f: "`2^x`";
    expm1f: "`e^x - 1`, accurate near zero";
    logf: "Natural logarithm of `x`";
    log2f: "Base-2 logarithm of `x`";
    log10f: "Base-10 logarithm of `x`";
    log1pf: "`ln(1 + x)`, accurate near zero";
    cbrtf: "Cube root of `x`";
    erff: "Error function of `x`";
    erfcf: "Complementary error function `1 - erf(x)`";
}

libm1! {
    tgammaf: "Gamma function of `x`";
}

macro_rules! via_f64 {
    ($($name:ident = $f64:ident: $doc:literal;)*) => {$(
        #[doc = concat!($doc, ": the `libm` crate's f64 `", stringify!($f64), "` rounded to f32 (its f32 version is off by up to \
                         2 ulp, and `acoshf` is not NaN for `-2 < x <= -1`); NaN results are `0x7fffffff`.")]
        #[inline]
        #[must_use]
        pub fn $name(x: f32) -> f32 {
            canon(libm::$f64(x as f64) as f32)
        }
    )*};
}

via_f64! {
    asinhf = asinh: "Inverse hyperbolic sine of `x`";
    acoshf = acosh: "Inverse hyperbolic cosine of `x`";
    atanhf = atanh: "Inverse hyperbolic tangent of `x`";
}

/// Natural logarithm of the absolute value of the gamma function of `x`: the `libm` crate's f64
/// `lgamma` rounded to f32 (its f32 `lgammaf` is off by up to 86 ulp near the function's
/// negative zeros); NaN results are `0x7fffffff`.
#[inline]
#[must_use]
pub fn lgammaf(x: f32) -> f32 {
    canon(libm::lgamma_r(x as f64).0 as f32)
}

/// `1 / sqrt(x)`: the correctly rounded square root, then the correctly rounded reciprocal (two
/// roundings; within 1 ulp, CUDA's bound 2). NaN results are `0x7fffffff`.
#[inline]
#[must_use]
pub fn rsqrtf(x: f32) -> f32 {
    canon(1.0 / libm::sqrtf(x))
}

/// Sine and cosine of `x` (radians): `(sinf(x), cosf(x))`, as CUDA's `sincosf(x, &s, &c)`.
#[inline]
#[must_use]
pub fn sincosf(x: f32) -> (f32, f32) {
    (sinf(x), cosf(x))
}

libm2! {
    remainderf: "IEEE remainder of `x / y` (`x - n*y`, `n` the integer nearest `x / y`), exact";
    atan2f: "Arctangent of `y / x` using the signs of both to pick the quadrant (argument order `(y, x)` as in C)";
    powf: "`x^y`";
    hypotf: "`sqrt(x^2 + y^2)` without undue overflow";
    fmodf: "Remainder of `x / y` with the sign of `x`, exact";
}

/// `10^x`, computed in f64 (the `libm` crate's `exp10`) and rounded to f32: the f32 `exp10f`
/// of `libm` is off by up to 4 ulp, beyond CUDA's 2. NaN results are `0x7fffffff`.
#[inline]
#[must_use]
pub fn exp10f(x: f32) -> f32 {
    canon(libm::exp10(x as f64) as f32)
}

/// Square root of `x`, correctly rounded: the same as `f32::sqrt` and the device's `sqrtf`
/// (`sqrt.rn.f32`); NaN results are `0x7fffffff`.
#[inline]
#[must_use]
pub fn sqrtf(x: f32) -> f32 {
    canon(libm::sqrtf(x))
}

/// `x * y + z` with one rounding: the same as `f32::mul_add` and the device's `fmaf`
/// (`fma.rn.f32`); NaN results are `0x7fffffff`.
#[inline]
#[must_use]
pub fn fmaf(x: f32, y: f32, z: f32) -> f32 {
    canon(libm::fmaf(x, y, z))
}

/// Absolute value of `x` (clears the sign bit; NaN stays NaN with its payload, as on the device).
#[inline]
#[must_use]
pub fn fabsf(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff)
}

/// `x` with the sign of `y` (bit operation, as on the device).
#[inline]
#[must_use]
pub fn copysignf(x: f32, y: f32) -> f32 {
    f32::from_bits((x.to_bits() & 0x7fff_ffff) | (y.to_bits() & 0x8000_0000))
}

/// Largest integer not above `x` (exact; NaN results are `0x7fffffff`).
#[inline]
#[must_use]
pub fn floorf(x: f32) -> f32 {
    canon(libm::floorf(x))
}

/// Smallest integer not below `x` (exact; NaN results are `0x7fffffff`).
#[inline]
#[must_use]
pub fn ceilf(x: f32) -> f32 {
    canon(libm::ceilf(x))
}

/// `x` rounded to the nearest integer, halfway cases away from zero (exact; NaN results are
/// `0x7fffffff`).
#[inline]
#[must_use]
pub fn roundf(x: f32) -> f32 {
    canon(libm::roundf(x))
}

/// `x` rounded toward zero to an integer (exact; NaN results are `0x7fffffff`).
#[inline]
#[must_use]
pub fn truncf(x: f32) -> f32 {
    canon(libm::truncf(x))
}

/// Smaller of `x` and `y`: a NaN operand is ignored (two NaNs give `0x7fffffff`) and `-0` is
/// below `+0`.
#[inline]
#[must_use]
pub fn fminf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        return canon(y);
    }
    if y.is_nan() {
        return x;
    }
    if x < y || (x == y && x.to_bits() & 0x8000_0000 != 0) {
        x
    } else {
        y
    }
}

/// Larger of `x` and `y`: a NaN operand is ignored (two NaNs give `0x7fffffff`) and `+0` is
/// above `-0`.
#[inline]
#[must_use]
pub fn fmaxf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        return canon(y);
    }
    if y.is_nan() {
        return x;
    }
    if x > y || (x == y && x.to_bits() & 0x8000_0000 == 0) {
        x
    } else {
        y
    }
}
