//! The f64 functions of CUDA's math API (`exp`, `log`, `sin`, `pow`, ...), as [`super`]'s f32
//! functions are made: the `libm` crate's (a port of musl's) on both targets, NaN results
//! canonical (`0x7fffffffffffffff`, the device's), and the exact functions written out. On the
//! GPU they compute the same bits as in the emulator (compiled from the same source to PTX's
//! IEEE f64 operations), but not the bits of CUDA's libdevice (FP.md, "`deviceemu::math`").

#[inline(always)]
fn canon(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(0x7fff_ffff_ffff_ffff)
    } else {
        x
    }
}

macro_rules! libm1 {
    ($($name:ident: $doc:literal;)*) => {$(
        #[doc = concat!($doc, " (the `libm` crate's `", stringify!($name), "`; NaN results are `0x7fffffffffffffff`).")]
        #[inline]
        #[must_use]
        pub fn $name(x: f64) -> f64 {
            canon(libm::$name(x))
        }
    )*};
}

macro_rules! libm2 {
    ($($name:ident: $doc:literal;)*) => {$(
        #[doc = concat!($doc, " (the `libm` crate's `", stringify!($name), "`; NaN results are `0x7fffffffffffffff`).")]
        #[inline]
        #[must_use]
        pub fn $name(x: f64, y: f64) -> f64 {
            canon(libm::$name(x, y))
        }
    )*};
}

libm1! {
    sin: "Sine of `x` (radians)";
    cos: "Cosine of `x` (radians)";
    tan: "Tangent of `x` (radians)";
    asin: "Arcsine of `x`";
    acos: "Arccosine of `x`";
    atan: "Arctangent of `x`";
    sinh: "Hyperbolic sine of `x`";
    cosh: "Hyperbolic cosine of `x`";
    tanh: "Hyperbolic tangent of `x`";
    asinh: "Inverse hyperbolic sine of `x`";
    acosh: "Inverse hyperbolic cosine of `x`";
    atanh: "Inverse hyperbolic tangent of `x`";
    exp: "`e^x`";
    exp2: "`2^x`";
    exp10: "`10^x`";
    expm1: "`e^x - 1`, accurate near zero";
    log: "Natural logarithm of `x`";
    log2: "Base-2 logarithm of `x`";
    log10: "Base-10 logarithm of `x`";
    log1p: "`ln(1 + x)`, accurate near zero";
    cbrt: "Cube root of `x`";
    erf: "Error function of `x`";
    erfc: "Complementary error function `1 - erf(x)`";
    tgamma: "Gamma function of `x`";
}

libm2! {
    atan2: "Arctangent of `y / x` using the signs of both to pick the quadrant (argument order `(y, x)` as in C)";
    pow: "`x^y`";
    hypot: "`sqrt(x^2 + y^2)` without undue overflow";
    fmod: "Remainder of `x / y` with the sign of `x`, exact";
    remainder: "IEEE remainder of `x / y` (`x - n*y`, `n` the integer nearest `x / y`), exact";
}

/// Natural logarithm of the absolute value of the gamma function of `x` (the `libm` crate's
/// `lgamma`; NaN results are `0x7fffffffffffffff`).
#[inline]
#[must_use]
pub fn lgamma(x: f64) -> f64 {
    canon(libm::lgamma_r(x).0)
}

/// Sine and cosine of `x` (radians): `(sin(x), cos(x))`, as CUDA's `sincos(x, &s, &c)`.
#[inline]
#[must_use]
pub fn sincos(x: f64) -> (f64, f64) {
    (sin(x), cos(x))
}

/// Square root of `x`, correctly rounded: the same as `f64::sqrt` and the device's `sqrt`
/// (`sqrt.rn.f64`); NaN results are `0x7fffffffffffffff`.
#[inline]
#[must_use]
pub fn sqrt(x: f64) -> f64 {
    canon(libm::sqrt(x))
}

/// `1 / sqrt(x)`: the correctly rounded square root, then the correctly rounded reciprocal (two
/// roundings; within 1 ulp, CUDA's bound). NaN results are `0x7fffffffffffffff`.
#[inline]
#[must_use]
pub fn rsqrt(x: f64) -> f64 {
    canon(1.0 / libm::sqrt(x))
}

/// `x * y + z` with one rounding: the same as `f64::mul_add` and the device's `fma`
/// (`fma.rn.f64`); NaN results are `0x7fffffffffffffff`.
#[inline]
#[must_use]
pub fn fma(x: f64, y: f64, z: f64) -> f64 {
    canon(libm::fma(x, y, z))
}

/// Absolute value of `x` (clears the sign bit); NaN gives `0x7fffffffffffffff` (the H200's
/// `abs.f64` keeps a NaN's sign and quiets it, which the host would not: probe p16).
#[inline]
#[must_use]
pub fn fabs(x: f64) -> f64 {
    canon(f64::from_bits(x.to_bits() & 0x7fff_ffff_ffff_ffff))
}

/// `x` with the sign of `y` (bit operation, as on the device).
#[inline]
#[must_use]
pub fn copysign(x: f64, y: f64) -> f64 {
    f64::from_bits((x.to_bits() & 0x7fff_ffff_ffff_ffff) | (y.to_bits() & 0x8000_0000_0000_0000))
}

/// Largest integer not above `x` (exact; NaN results are `0x7fffffffffffffff`).
#[inline]
#[must_use]
pub fn floor(x: f64) -> f64 {
    canon(libm::floor(x))
}

/// Smallest integer not below `x` (exact; NaN results are `0x7fffffffffffffff`).
#[inline]
#[must_use]
pub fn ceil(x: f64) -> f64 {
    canon(libm::ceil(x))
}

/// `x` rounded to the nearest integer, halfway cases away from zero (exact; NaN results are
/// `0x7fffffffffffffff`).
#[inline]
#[must_use]
pub fn round(x: f64) -> f64 {
    canon(libm::round(x))
}

/// `x` rounded toward zero to an integer (exact; NaN results are `0x7fffffffffffffff`).
#[inline]
#[must_use]
pub fn trunc(x: f64) -> f64 {
    canon(libm::trunc(x))
}

/// Smaller of `x` and `y`: a NaN operand is ignored (two NaNs give `0x7fffffffffffffff`) and
/// `-0` is below `+0`.
#[inline]
#[must_use]
pub fn fmin(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        return canon(y);
    }
    if y.is_nan() {
        return x;
    }
    if x < y || (x == y && x.to_bits() >> 63 != 0) {
        x
    } else {
        y
    }
}

/// Larger of `x` and `y`: a NaN operand is ignored (two NaNs give `0x7fffffffffffffff`) and
/// `+0` is above `-0`.
#[inline]
#[must_use]
pub fn fmax(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        return canon(y);
    }
    if y.is_nan() {
        return x;
    }
    if x > y || (x == y && x.to_bits() >> 63 == 0) {
        x
    } else {
        y
    }
}
