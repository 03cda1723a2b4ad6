//! CUDA's fast-math intrinsics (`__expf`, `__sinf`, `__fdividef`, ...): **not bit-exact** in the
//! emulator. (In a kernel's GPU build each is the PTX instruction CUDA uses, so there the bits
//! are the device's.)
//!
//! On the device these are built from the special-function unit's approximations
//! (`ex2.approx`, `lg2.approx`, `sin.approx`, `cos.approx`, `rcp.approx`), whose exact bits NVIDIA
//! does not document. The emulation keeps the device's *structure* (the same f32 multiplications
//! around each approximation, the same special cases) and replaces each hardware approximation
//! by the correctly rounded function, so every result lies within the error bounds that the CUDA
//! C Programming Guide documents for the intrinsic (listed on each function), and usually within
//! one or two ulps of the device's result. FP.md records the measured distance to the H200.
//!
//! The reciprocal is modelled more closely, because `hdiv` and `hdiv_bf16` are exact and use it:
//! [`mufu_rcp`] is the hardware `MUFU.RCP` (PTX `rcp.approx.ftz.f32`) with its special cases
//! and flushing, exact on every significand of 10 or fewer fraction bits (a table measured on
//! the H200), and `rcp.approx.f32` / `div.approx.f32` wrap it in the scalings that ptxas 13.0
//! emits for sm_90 (read from its SASS). So [`fdividef`] is exact when the divisor is an f16 or
//! bf16 value (or any value with at most 11 significant bits), and within an ulp of the device
//! otherwise.

use super::fmul_rn;
#[cfg(target_arch = "nvptx64")]
use super::ptx::ptx;
#[cfg_attr(target_arch = "nvptx64", allow(unused_imports))]
use super::soft::{self, Round, F32};

/// `log2(e)` rounded to f32, as CUDA's headers use it.
const LOG2_E: f32 = f32::from_bits(0x3fb8_aa3b);
/// `log2(10)` rounded to f32.
const LOG2_10: f32 = f32::from_bits(0x4054_9a78);
/// `ln(2)` rounded to f32.
const LN_2: f32 = f32::from_bits(0x3f31_7218);
/// `log10(2)` rounded to f32.
const LOG10_2: f32 = f32::from_bits(0x3e9a_209b);

/// `(index, ulps)`: where the device's `rcp.approx.ftz.f32` (SASS `MUFU.RCP`) of the significand
/// `1 + index/1024` differs from the correctly rounded reciprocal, and by how much (always one
/// ulp). Measured on the H200 by the oracle (op `rcp_approx_ftz`: the 1024 significands with 10
/// fraction bits, at 9 exponents from `2^-126` to `2^126`, all stored); the same 130 corrections
/// hold at every exponent, so the hardware scales exactly with the exponent. These are the
/// significands of every `f16` and `bf16` value, which is all that `hdiv` and `hdiv_bf16` divide
/// by. `tests/it/fp/fp_oracle.rs` prints this list again if a new oracle run differs.
pub(crate) const RCP_APPROX_FIXUPS: &[(u16, i8)] = &[
    (6, -1),
    (11, 1),
    (14, -1),
    (17, 1),
    (18, 1),
    (20, 1),
    (32, -1),
    (46, -1),
    (48, 1),
    (62, -1),
    (70, -1),
    (77, -1),
    (86, -1),
    (87, -1),
    (88, -1),
    (91, 1),
    (97, 1),
    (98, 1),
    (104, 1),
    (105, 1),
    (113, 1),
    (126, -1),
    (127, -1),
    (135, -1),
    (138, 1),
    (147, 1),
    (148, 1),
    (153, 1),
    (160, -1),
    (176, -1),
    (179, -1),
    (203, 1),
    (204, 1),
    (209, 1),
    (214, -1),
    (219, -1),
    (221, -1),
    (225, 1),
    (226, 1),
    (252, 1),
    (260, 1),
    (274, -1),
    (287, -1),
    (296, 1),
    (298, 1),
    (304, 1),
    (305, 1),
    (325, -1),
    (346, 1),
    (349, -1),
    (371, 1),
    (386, 1),
    (395, 1),
    (396, 1),
    (401, -1),
    (403, 1),
    (408, 1),
    (409, 1),
    (415, -1),
    (417, 1),
    (425, 1),
    (439, 1),
    (443, -1),
    (445, -1),
    (449, 1),
    (453, 1),
    (454, 1),
    (458, 1),
    (467, 1),
    (473, -1),
    (474, -1),
    (481, 1),
    (488, 1),
    (498, 1),
    (505, 1),
    (507, 1),
    (519, 1),
    (520, 1),
    (521, 1),
    (528, 1),
    (531, 1),
    (543, 1),
    (547, 1),
    (558, -1),
    (563, 1),
    (564, 1),
    (614, -1),
    (627, 1),
    (647, 1),
    (648, 1),
    (650, 1),
    (651, 1),
    (667, 1),
    (675, 1),
    (676, 1),
    (687, 1),
    (700, 1),
    (701, 1),
    (724, 1),
    (728, 1),
    (751, -1),
    (783, -1),
    (785, 1),
    (786, 1),
    (787, 1),
    (789, 1),
    (805, 1),
    (807, 1),
    (813, 1),
    (823, 1),
    (872, 1),
    (874, 1),
    (876, 1),
    (878, 1),
    (893, 1),
    (920, 1),
    (923, 1),
    (928, 1),
    (944, 1),
    (950, -1),
    (954, -1),
    (956, -1),
    (957, -1),
    (965, -1),
    (968, 1),
    (987, 1),
    (988, 1),
    (997, 1),
    (1010, -1),
    (1016, -1),
];

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn nan() -> f32 {
    f32::from_bits(F32.nan())
}

/// Rounds an f64 to the nearest f32, NaN to the canonical NaN.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn to_f32(x: f64) -> f32 {
    if x.is_nan() {
        nan()
    } else {
        x as f32
    }
}

/// `MUFU.RCP`, the special-function unit's reciprocal, which is PTX `rcp.approx.ftz.f32`.
///
/// Subnormal inputs read as zero (`±0` gives `±inf`), `±inf` gives `±0`, NaN the canonical NaN,
/// and a result below `2^-126` is flushed to zero of its sign. For a normal `x = 2^e * m`,
/// `1 <= m < 2`, the result is `2^-e * R(m)`: the hardware reciprocal does not depend on the
/// exponent (measured). `R(m)` is emulated as the correctly rounded `1/m` corrected by
/// [`RCP_APPROX_FIXUPS`]: exact for significands with at most 10 fraction bits (every f16 and
/// bf16 value), and within one ulp of the device elsewhere (its interpolation is not public).
#[inline]
pub(crate) fn mufu_rcp(bits: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("rcp.approx.ftz.f32" => reg32 f32; reg32 f32::from_bits(bits)).to_bits()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    mufu_rcp_soft(bits)
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline]
fn mufu_rcp_soft(bits: u32) -> u32 {
    let bits = F32.ftz(bits);
    let sign = bits & 0x8000_0000;
    let mag = bits & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        return F32.nan();
    }
    if mag == 0 {
        return sign | 0x7f80_0000;
    }
    if mag == 0x7f80_0000 {
        return sign;
    }
    let e = (mag >> 23) as i32 - 127;
    let mant = mag & 0x7f_ffff;
    // 1/m in (0.5, 1]: exponent field 126, or 127 for m = 1.
    let mut r = soft::div(F32, 0x3f80_0000, 0x3f80_0000 | mant, Round::Nearest);
    if mant & 0x1fff == 0 {
        let idx = (mant >> 13) as u16;
        if let Ok(i) = RCP_APPROX_FIXUPS.binary_search_by_key(&idx, |&(k, _)| k) {
            r = (r as i32 + RCP_APPROX_FIXUPS[i].1 as i32) as u32;
        }
    }
    let re = (r >> 23) as i32 - e;
    if re <= 0 {
        return sign; // below the normal range: flushed
    }
    sign | ((re as u32) << 23) | (r & 0x7f_ffff)
}

#[cfg(not(target_arch = "nvptx64"))]
const TWO_24: f32 = 16_777_216.0;
#[cfg(not(target_arch = "nvptx64"))]
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;

/// `rcp.approx.ftz.f32`, as `cuda_fp16.hpp`'s `__hdiv` uses it: `MUFU.RCP` alone.
#[inline]
pub(crate) fn rcp_approx_ftz(x: f32) -> f32 {
    f32::from_bits(mufu_rcp(x.to_bits()))
}

/// `rcp.approx.f32` (subnormals kept), as ptxas 13.0 compiles it for sm_90: the input is
/// scaled by `s = 2^24` when below `2^-126` (zero included) or by `s = 1/4` when above `2^126`,
/// and the result is `s * MUFU.RCP(s * x)` in round-to-nearest f32 multiplications.
#[inline]
pub(crate) fn rcp_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("rcp.approx.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let a = f32::from_bits(x.to_bits() & 0x7fff_ffff);
        let mut s = if a < MIN_NORMAL { TWO_24 } else { 1.0 };
        if a > f32::from_bits(0x7e80_0000) {
            s = 0.25;
        }
        fmul_rn(s, f32::from_bits(mufu_rcp(fmul_rn(s, x).to_bits())))
    }
}

/// `div.approx.f32` (subnormals kept), as ptxas 13.0 compiles it for sm_90: when `|b| < 2^-126`
/// (zero included) both operands are first multiplied by `2^24`; the result is
/// `MUFU.RCP(b) * a`, one round-to-nearest multiplication. PTX's rule that
/// `2^126 < |b| < 2^128` gives 0 (NaN for infinite `a`) follows from the reciprocal flushing.
#[inline]
pub(crate) fn div_approx(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("div.approx.f32" => reg32 f32; reg32 a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (a, b) = if f32::from_bits(b.to_bits() & 0x7fff_ffff) < MIN_NORMAL {
            (fmul_rn(a, TWO_24), fmul_rn(b, TWO_24))
        } else {
            (a, b)
        };
        fmul_rn(f32::from_bits(mufu_rcp(b.to_bits())), a)
    }
}

/// `div.approx.ftz.f32`: `MUFU.RCP(b) * a` with the multiplication's `.ftz`.
#[inline]
pub(crate) fn div_approx_ftz(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("div.approx.ftz.f32" => reg32 f32; reg32 a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::fmul_rn_ftz(f32::from_bits(mufu_rcp(b.to_bits())), a)
    }
}

/// `ex2.approx.f32`, emulated as the correctly rounded `2^x`.
#[inline]
fn ex2_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("ex2.approx.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    to_f32(libm::exp2(x as f64))
}

/// `lg2.approx.f32`, emulated as the correctly rounded `log2(x)` (`-inf` at zero, NaN below).
#[inline]
fn lg2_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("lg2.approx.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if x.is_nan() || x < 0.0 {
            nan()
        } else {
            to_f32(libm::log2(x as f64))
        }
    }
}

/// `x / y` fast: CUDA's `__fdividef` (PTX `div.approx.f32`). **Not bit-exact** in general.
///
/// CUDA documents a maximum error of 2 ulp for `2^-126 <= |y| <= 2^126`; for
/// `2^126 < |y| < 2^128` the result is 0 (NaN if `x` is infinite), as on the device. The
/// emulation follows the device's code exactly (`x * MUFU.RCP(y)`, both scaled by `2^24` when
/// `y` is subnormal, see `div_approx`); only the hardware reciprocal's low bit is unknown for
/// divisors whose significand has more than 10 fraction bits, so the result is the device's for
/// every divisor with at most 11 significant bits and within about one ulp of it otherwise.
#[inline]
#[must_use]
pub fn fdividef(x: f32, y: f32) -> f32 {
    div_approx(x, y)
}

/// `e^x` fast: CUDA's `__expf` (`ex2.approx(x * log2(e))`). **Not bit-exact.**
///
/// CUDA's bound: `2 + floor(|1.173 * x|)` ulp. The emulation rounds `x * log2(e)` to f32 like
/// the device (the source of the growing error) and then takes an exact `2^t`.
#[inline]
#[must_use]
pub fn expf_fast(x: f32) -> f32 {
    ex2_approx(fmul_rn(x, LOG2_E))
}

/// `10^x` fast: CUDA's `__exp10f` (`ex2.approx(x * log2(10))`). **Not bit-exact.**
///
/// CUDA's bound: `2 + floor(|2.97 * x|)` ulp.
#[inline]
#[must_use]
pub fn exp10f_fast(x: f32) -> f32 {
    ex2_approx(fmul_rn(x, LOG2_10))
}

/// `ln(x)` fast: CUDA's `__logf` (`lg2.approx(x) * ln(2)`). **Not bit-exact.**
///
/// CUDA's bound: absolute error `2^-21.41` for `x` in `[0.5, 2]`, otherwise 3 ulp.
#[inline]
#[must_use]
pub fn logf_fast(x: f32) -> f32 {
    fmul_rn(lg2_approx(x), LN_2)
}

/// `log2(x)` fast: CUDA's `__log2f` (`lg2.approx`). **Not bit-exact.**
///
/// CUDA's bound: absolute error `2^-22` for `x` in `[0.5, 2]`, otherwise 2 ulp.
#[inline]
#[must_use]
pub fn log2f_fast(x: f32) -> f32 {
    lg2_approx(x)
}

/// `log10(x)` fast: CUDA's `__log10f` (`lg2.approx(x) * log10(2)`). **Not bit-exact.**
///
/// CUDA's bound: absolute error `2^-24` for `x` in `[0.5, 2]`, otherwise 3 ulp.
#[inline]
#[must_use]
pub fn log10f_fast(x: f32) -> f32 {
    fmul_rn(lg2_approx(x), LOG10_2)
}

/// `sin(x)` fast: CUDA's `__sinf` (`sin.approx.f32`). **Not bit-exact.**
///
/// CUDA's bound: absolute error `2^-21.41` for `x` in `[-π, π]`, larger outside (the device
/// reduces the argument coarsely; the emulation does not, so far from zero the two differ
/// more). Infinities give NaN.
#[inline]
#[must_use]
pub fn sinf_fast(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("sin.approx.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    to_f32(libm::sin(x as f64))
}

/// `cos(x)` fast: CUDA's `__cosf` (`cos.approx.f32`). **Not bit-exact.**
///
/// CUDA's bound: absolute error `2^-21.19` for `x` in `[-π, π]`, larger outside. Infinities
/// give NaN.
#[inline]
#[must_use]
pub fn cosf_fast(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx!("cos.approx.f32" => reg32 f32; reg32 x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    to_f32(libm::cos(x as f64))
}

/// `tan(x)` fast: CUDA's `__tanf`, computed as `__sinf(x) * (1 / __cosf(x))` like the device.
/// **Not bit-exact**; CUDA documents the bound as derived from that formula.
#[inline]
#[must_use]
pub fn tanf_fast(x: f32) -> f32 {
    div_approx(sinf_fast(x), cosf_fast(x))
}

/// `x^y` fast: CUDA's `__powf`, computed as `ex2.approx(y * lg2.approx(x))` like the device.
/// **Not bit-exact**; CUDA documents the bound as derived from that formula (negative `x` gives
/// NaN).
#[inline]
#[must_use]
pub fn powf_fast(x: f32, y: f32) -> f32 {
    ex2_approx(fmul_rn(y, lg2_approx(x)))
}
