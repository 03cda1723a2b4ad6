//! The exact engine: IEEE 754 binary formats (f32, f16, bf16) in integer arithmetic.
//!
//! ```text
//!  bits ──unpack──► (sign, Class::Finite { sig, exp })      value = ±sig·2^exp, exactly
//!                         │
//!          add / mul / fma / div / sqrt / rsqrt              exact integer result, or a
//!                         │                                  quotient/root with a sticky bit
//!                         ▼                                  jammed into its lowest bit
//!                   round_pack(fmt, sign, sig, exp, mode) ──► bits (subnormals, overflow,
//!                                                              signed zeros, ties to even)
//! ```
//!
//! Every operation computes the exact result (or enough of it: at least two bits below the
//! rounding position plus a sticky bit) and rounds once, so every rounding mode is correct by
//! construction. Only `core` and `libm` (for a first guess of integer square roots, corrected
//! exactly afterwards) are used, so the same code compiles for the host and for
//! `nvptx64-nvidia-cuda`.
//!
//! NaN results are the device's canonical NaN: all ones below the sign bit (`0x7fffffff`,
//! `0x7fff`). The `_ftz` forms flush subnormal inputs to zero of the same sign and return zero
//! of the result's sign for a result that is tiny after rounding with an unbounded exponent
//! ([`round_pack_x`]), which is where the device decides.

/// A rounding direction: CUDA's `_rn`, `_rz`, `_ru`, `_rd` (PTX `.rn`, `.rz`, `.rp`, `.rm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward +infinity.
    Up,
    /// Toward -infinity.
    Down,
}

/// A binary interchange format: precision `p` (with the hidden bit), maximum exponent and width.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fmt {
    /// Significand bits including the hidden bit.
    pub(crate) p: u32,
    /// Largest unbiased exponent; also the bias.
    pub(crate) emax: i32,
    /// Total width in bits (at most 32).
    pub(crate) width: u32,
}

/// IEEE binary32.
pub(crate) const F32: Fmt = Fmt { p: 24, emax: 127, width: 32 };
/// IEEE binary16.
pub(crate) const F16: Fmt = Fmt { p: 11, emax: 15, width: 16 };
/// bfloat16: binary32's exponent range with 8 significand bits.
pub(crate) const BF16: Fmt = Fmt { p: 8, emax: 127, width: 16 };

impl Fmt {
    #[inline(always)]
    pub(crate) const fn emin(self) -> i32 {
        1 - self.emax
    }
    #[inline(always)]
    pub(crate) const fn man_bits(self) -> u32 {
        self.p - 1
    }
    #[inline(always)]
    pub(crate) const fn man_mask(self) -> u32 {
        (1 << self.man_bits()) - 1
    }
    #[inline(always)]
    pub(crate) const fn exp_all_ones(self) -> u32 {
        (1 << (self.width - self.p)) - 1
    }
    #[inline(always)]
    pub(crate) const fn sign_bit(self) -> u32 {
        1 << (self.width - 1)
    }
    /// The device's canonical NaN: every bit but the sign set.
    #[inline(always)]
    pub(crate) const fn nan(self) -> u32 {
        self.sign_bit() - 1
    }
    #[inline(always)]
    pub(crate) const fn inf(self) -> u32 {
        self.exp_all_ones() << self.man_bits()
    }
    #[inline(always)]
    pub(crate) const fn max_finite(self) -> u32 {
        self.inf() - 1
    }
    #[inline(always)]
    pub(crate) const fn signed(self, sign: bool, mag: u32) -> u32 {
        if sign {
            mag | self.sign_bit()
        } else {
            mag
        }
    }
    #[inline(always)]
    pub(crate) const fn is_nan(self, bits: u32) -> bool {
        bits & (self.sign_bit() - 1) > self.inf()
    }
    /// True for nonzero values with a zero exponent field.
    #[inline(always)]
    pub(crate) const fn is_subnormal(self, bits: u32) -> bool {
        let mag = bits & (self.sign_bit() - 1);
        mag != 0 && mag <= self.man_mask()
    }
    /// Flushes a subnormal to zero of the same sign (`.ftz`); other values pass unchanged.
    #[inline(always)]
    pub(crate) const fn ftz(self, bits: u32) -> u32 {
        if self.is_subnormal(bits) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }
}

/// What a bit pattern is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Zero,
    /// A nonzero finite value `sig * 2^exp` (subnormals included, not normalized).
    Finite {
        sig: u64,
        exp: i32,
    },
    Inf,
    Nan,
}

/// Splits `bits` of format `f` into its sign and class.
#[inline(always)]
pub(crate) fn unpack(f: Fmt, bits: u32) -> (bool, Class) {
    let sign = bits & f.sign_bit() != 0;
    let e = (bits >> f.man_bits()) & f.exp_all_ones();
    let m = bits & f.man_mask();
    let class = if e == f.exp_all_ones() {
        if m == 0 {
            Class::Inf
        } else {
            Class::Nan
        }
    } else if e == 0 {
        if m == 0 {
            Class::Zero
        } else {
            Class::Finite { sig: m as u64, exp: f.emin() - f.man_bits() as i32 }
        }
    } else {
        Class::Finite { sig: (m | (1 << f.man_bits())) as u64, exp: e as i32 - f.emax - f.man_bits() as i32 }
    };
    (sign, class)
}

#[inline(always)]
fn bitlen128(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// Shifts right, OR-ing every bit shifted out into the lowest bit ("sticky jamming").
#[inline(always)]
pub(crate) fn shr_jam(x: u128, s: u32) -> u128 {
    if s == 0 {
        x
    } else if s >= 128 {
        (x != 0) as u128
    } else {
        (x >> s) | ((x & ((1u128 << s) - 1)) != 0) as u128
    }
}

/// The result of overflowing in direction `mode`: infinity or the largest finite value.
#[inline(always)]
pub(crate) fn overflow(f: Fmt, sign: bool, mode: Round) -> u32 {
    let to_inf = match mode {
        Round::Nearest => true,
        Round::Zero => false,
        Round::Up => !sign,
        Round::Down => sign,
    };
    f.signed(sign, if to_inf { f.inf() } else { f.max_finite() })
}

/// Whether to step the kept magnitude up by one unit, given the discarded remainder `rem` out of
/// a unit of `2 * half`.
#[inline(always)]
fn round_up(mode: Round, sign: bool, kept_odd: bool, rem: u128, half: u128) -> bool {
    match mode {
        Round::Nearest => rem > half || (rem == half && kept_odd),
        Round::Zero => false,
        Round::Up => rem != 0 && !sign,
        Round::Down => rem != 0 && sign,
    }
}

/// Rounds `±sig * 2^exp` (`sig > 0`) to format `f` with direction `mode`.
///
/// `sig` may carry a sticky bit jammed into its lowest bit, provided that bit lies at least two
/// places below the rounding position (callers keep `p + 2` or more significant bits whenever
/// they jam).
#[inline]
pub(crate) fn round_pack(f: Fmt, sign: bool, sig: u128, exp: i32, mode: Round) -> u32 {
    debug_assert!(sig != 0);
    let p = f.p as i32;
    let lead = exp + bitlen128(sig) - 1;
    // Exponent of the last kept bit: the normal quantum, or the subnormal one below emin.
    let mut q = if lead >= f.emin() { lead } else { f.emin() } - (p - 1);
    let mut kept: u128;
    if q > exp {
        let sh = (q - exp) as u32;
        let (k, rem, half) = if sh >= 128 {
            (0, sig, u128::MAX) // sig < 2^127 <= half: below half, inexact
        } else {
            (sig >> sh, sig & ((1u128 << sh) - 1), 1u128 << (sh - 1))
        };
        kept = k;
        if round_up(mode, sign, kept & 1 == 1, rem, half) {
            kept += 1;
            if kept == 1u128 << p {
                kept >>= 1;
                q += 1;
            }
        }
    } else {
        kept = sig << (exp - q) as u32;
    }
    if kept == 0 {
        return f.signed(sign, 0);
    }
    if kept >= 1u128 << (p - 1) {
        let e = q + p - 1;
        if e > f.emax {
            return overflow(f, sign, mode);
        }
        let biased = (e + f.emax) as u32;
        f.signed(sign, (biased << f.man_bits()) | (kept as u32 & f.man_mask()))
    } else {
        // Subnormal: q is the subnormal quantum, the exponent field is zero.
        f.signed(sign, kept as u32)
    }
}

/// Whether `±sig * 2^exp` is *tiny* in IEEE 754's after-rounding sense: rounded to `f.p` bits
/// in direction `mode` as though the exponent range were unbounded, it lies strictly between
/// `±2^emin`. This is the device's `.ftz` criterion for results (see [`round_pack_x`]).
#[inline]
pub(crate) fn tiny_after_rounding(f: Fmt, sign: bool, sig: u128, exp: i32, mode: Round) -> bool {
    let len = bitlen128(sig);
    let lead = exp + len - 1;
    if lead >= f.emin() {
        return false;
    }
    if lead < f.emin() - 1 {
        return true; // rounding raises the value by at most one binade
    }
    // lead == emin - 1: tiny unless rounding to p bits carries up to 2^emin.
    let p = f.p as i32;
    let sh = len - p;
    if sh <= 0 {
        return true; // already exact in p bits
    }
    let sh = sh as u32;
    let kept = sig >> sh;
    let rem = sig & ((1u128 << sh) - 1);
    let up = round_up(mode, sign, kept & 1 == 1, rem, 1u128 << (sh - 1));
    !(up && kept + 1 == 1u128 << p)
}

/// [`round_pack`], with the device's `.ftz` rule when `ftz` is set: a result that is tiny
/// after rounding with an unbounded exponent ([`tiny_after_rounding`]) becomes zero of the same
/// sign. Measured on the H200: `mul.rn.ftz` of `2^-126` and `1 - 2^-24` is `+0`, although the
/// IEEE-rounded result (a tie) is the normal `2^-126`; `div.rp.ftz` of `2^-126` by `1 + 2^-23`
/// likewise (ptxas's division routine flushes when the exponent of its rounded 24-bit quotient
/// is below the normal range); and `fma.ftz` agrees on every corpus input, where flushing on
/// the exact value or on the IEEE-rounded value would not.
#[inline]
pub(crate) fn round_pack_x(f: Fmt, sign: bool, sig: u128, exp: i32, mode: Round, ftz: bool) -> u32 {
    if ftz && tiny_after_rounding(f, sign, sig, exp, mode) {
        return f.signed(sign, 0);
    }
    round_pack(f, sign, sig, exp, mode)
}

/// `a + b` for finite nonzero operands given as `±sig·2^exp` (sig below 2^50).
#[allow(clippy::too_many_arguments)]
#[inline]
fn add_finite(f: Fmt, sa: bool, ma: u128, ea: i32, sb: bool, mb: u128, eb: i32, mode: Round, ftz: bool) -> u32 {
    let la = ea + bitlen128(ma) - 1;
    let lb = eb + bitlen128(mb) - 1;
    // Common exponent: the larger operand keeps at least 50 free bits below its last bit, so
    // jamming the smaller one cannot reach the rounding position, even after cancellation.
    let base = if la > lb { la } else { lb } - 100;
    let align = |m: u128, e: i32| -> u128 {
        if e >= base {
            m << (e - base) as u32
        } else {
            shr_jam(m, (base - e) as u32)
        }
    };
    let xa = align(ma, ea);
    let xb = align(mb, eb);
    let (sign, mag) = if sa == sb {
        (sa, xa + xb)
    } else if xa >= xb {
        (sa, xa - xb)
    } else {
        (sb, xb - xa)
    };
    if mag == 0 {
        // An exact zero sum of opposite operands: +0, or -0 when rounding down.
        return f.signed(mode == Round::Down, 0);
    }
    round_pack_x(f, sign, mag, base, mode, ftz)
}

/// `a + b` in format `f`.
#[inline]
pub(crate) fn add(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    add_x(f, a, b, mode, false)
}

/// `a + b` in format `f`, flushing subnormal inputs and tiny results (`add.ftz`).
#[inline]
pub(crate) fn add_ftz(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    add_x(f, f.ftz(a), f.ftz(b), mode, true)
}

#[inline]
fn add_x(f: Fmt, a: u32, b: u32, mode: Round, ftz: bool) -> u32 {
    let (sa, ca) = unpack(f, a);
    let (sb, cb) = unpack(f, b);
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf, Class::Inf) => {
            if sa == sb {
                f.signed(sa, f.inf())
            } else {
                f.nan()
            }
        }
        (Class::Inf, _) => f.signed(sa, f.inf()),
        (_, Class::Inf) => f.signed(sb, f.inf()),
        (Class::Zero, Class::Zero) => f.signed(if sa == sb { sa } else { mode == Round::Down }, 0),
        (Class::Zero, Class::Finite { .. }) => b,
        (Class::Finite { .. }, Class::Zero) => a,
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            add_finite(f, sa, ma as u128, ea, sb, mb as u128, eb, mode, ftz)
        }
    }
}

/// `a - b` in format `f`.
#[inline]
pub(crate) fn sub(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    if f.is_nan(b) {
        return f.nan();
    }
    add(f, a, b ^ f.sign_bit(), mode)
}

/// `a - b` in format `f`, flushing subnormal inputs and tiny results (`sub.ftz`).
#[inline]
pub(crate) fn sub_ftz(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    if f.is_nan(b) {
        return f.nan();
    }
    add_ftz(f, a, b ^ f.sign_bit(), mode)
}

/// `a * b` in format `f`.
#[inline]
pub(crate) fn mul(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    mul_x(f, a, b, mode, false)
}

/// `a * b` in format `f`, flushing subnormal inputs and tiny results (`mul.ftz`).
#[inline]
pub(crate) fn mul_ftz(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    mul_x(f, f.ftz(a), f.ftz(b), mode, true)
}

#[inline]
fn mul_x(f: Fmt, a: u32, b: u32, mode: Round, ftz: bool) -> u32 {
    let (sa, ca) = unpack(f, a);
    let (sb, cb) = unpack(f, b);
    let s = sa != sb;
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => f.nan(),
        (Class::Inf, _) | (_, Class::Inf) => f.signed(s, f.inf()),
        (Class::Zero, _) | (_, Class::Zero) => f.signed(s, 0),
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            round_pack_x(f, s, ma as u128 * mb as u128, ea + eb, mode, ftz)
        }
    }
}

/// `a * b + c` rounded once, in format `f`.
#[inline]
pub(crate) fn fma(f: Fmt, a: u32, b: u32, c: u32, mode: Round) -> u32 {
    fma_x(f, a, b, c, mode, false)
}

/// `a * b + c` rounded once, in format `f`, flushing subnormal inputs and tiny results
/// (`fma.ftz`).
#[inline]
pub(crate) fn fma_ftz(f: Fmt, a: u32, b: u32, c: u32, mode: Round) -> u32 {
    fma_x(f, f.ftz(a), f.ftz(b), f.ftz(c), mode, true)
}

#[inline]
fn fma_x(f: Fmt, a: u32, b: u32, c: u32, mode: Round, ftz: bool) -> u32 {
    let (sa, ca) = unpack(f, a);
    let (sb, cb) = unpack(f, b);
    let (sc, cc) = unpack(f, c);
    let sp = sa != sb;
    if ca == Class::Nan || cb == Class::Nan || cc == Class::Nan {
        return f.nan();
    }
    let p_inf = ca == Class::Inf || cb == Class::Inf;
    let p_zero = ca == Class::Zero || cb == Class::Zero;
    if p_inf && p_zero {
        return f.nan();
    }
    if p_inf {
        if cc == Class::Inf && sc != sp {
            return f.nan();
        }
        return f.signed(sp, f.inf());
    }
    if cc == Class::Inf {
        return f.signed(sc, f.inf());
    }
    if p_zero {
        if cc == Class::Zero {
            return f.signed(if sp == sc { sc } else { mode == Round::Down }, 0);
        }
        return c;
    }
    let (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) = (ca, cb) else { unreachable!() };
    let pm = ma as u128 * mb as u128;
    let pe = ea + eb;
    match cc {
        Class::Zero => round_pack_x(f, sp, pm, pe, mode, ftz),
        Class::Finite { sig: mc, exp: ec } => add_finite(f, sp, pm, pe, sc, mc as u128, ec, mode, ftz),
        _ => unreachable!(),
    }
}

/// `a / b` in format `f`.
#[inline]
pub(crate) fn div(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    div_x(f, a, b, mode, false)
}

/// `a / b` in format `f`, flushing subnormal inputs and tiny results (`div.ftz`, `rcp.ftz`).
#[inline]
pub(crate) fn div_ftz(f: Fmt, a: u32, b: u32, mode: Round) -> u32 {
    div_x(f, f.ftz(a), f.ftz(b), mode, true)
}

#[inline]
fn div_x(f: Fmt, a: u32, b: u32, mode: Round, ftz: bool) -> u32 {
    let (sa, ca) = unpack(f, a);
    let (sb, cb) = unpack(f, b);
    let s = sa != sb;
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf, Class::Inf) | (Class::Zero, Class::Zero) => f.nan(),
        (Class::Inf, _) | (_, Class::Zero) => f.signed(s, f.inf()),
        (_, Class::Inf) | (Class::Zero, _) => f.signed(s, 0),
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            // Numerator with its leading bit at 62; the divisor has at most 24 bits, so the
            // quotient keeps at least 38 bits, and the remainder becomes the sticky bit.
            let sh = 63 - (64 - ma.leading_zeros());
            let n = ma << sh;
            let q = n / mb;
            let r = n % mb;
            round_pack_x(f, s, (q | (r != 0) as u64) as u128, ea - sh as i32 - eb, mode, ftz)
        }
    }
}

/// Integer square root: the largest `r` with `r * r <= n`.
#[inline]
pub(crate) fn isqrt(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    // libm's sqrt is correctly rounded; the guess is within a few units and corrected exactly.
    // (No 128-bit <-> f64 conversions: the NVPTX backend has no routines for them.)
    let approx = ((n >> 64) as u64 as f64) * 18_446_744_073_709_551_616.0 + (n as u64) as f64;
    let mut r = libm::sqrt(approx) as u64 as u128;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// `(n / d, n % d)` for a divisor below `2^32`, by long division in 32-bit digits: only
/// 64-bit divisions, which the NVPTX backend has (it cannot call the 128-bit division routine).
#[inline]
pub(crate) fn div_u128_small(n: u128, d: u64) -> (u128, u64) {
    debug_assert!(d != 0 && d < 1 << 32);
    let mut q = 0u128;
    let mut r = 0u64;
    for k in (0..4).rev() {
        let cur = (r << 32) | ((n >> (32 * k)) as u64 & 0xffff_ffff);
        q |= ((cur / d) as u128) << (32 * k);
        r = cur % d;
    }
    (q, r)
}

/// Normalizes a positive finite `sig * 2^exp` so that `sig` has exactly `bits` or `bits + 1`
/// significant bits and `exp` is even.
#[inline(always)]
fn normalize_even(sig: u64, exp: i32, bits: i32) -> (u128, i32) {
    let len = 64 - sig.leading_zeros() as i32;
    let mut sh = bits - len;
    if (exp - sh) & 1 != 0 {
        sh += 1;
    }
    let m = if sh >= 0 { (sig as u128) << sh as u32 } else { (sig as u128) >> (-sh) as u32 };
    (m, exp - sh)
}

/// Square root in format `f`.
#[inline]
pub(crate) fn sqrt(f: Fmt, a: u32, mode: Round) -> u32 {
    let (s, c) = unpack(f, a);
    match c {
        Class::Nan => f.nan(),
        Class::Zero => a,
        _ if s => f.nan(),
        Class::Inf => f.inf(),
        Class::Finite { sig, exp } => {
            // m has 60 or 61 bits: the root has 30 or 31, the remainder is the sticky bit.
            let (m, e) = normalize_even(sig, exp, 60);
            let r = isqrt(m);
            let sticky = r * r != m;
            round_pack(f, false, r | sticky as u128, e / 2, mode)
        }
    }
}

/// `1 / sqrt(a)` rounded once, in format `f`.
#[inline]
pub(crate) fn rsqrt(f: Fmt, a: u32, mode: Round) -> u32 {
    let (s, c) = unpack(f, a);
    match c {
        Class::Nan => f.nan(),
        Class::Zero => f.signed(s, f.inf()),
        _ if s => f.nan(),
        Class::Inf => 0,
        Class::Finite { sig, exp } => {
            // a = m * 2^e with m of 24 or 25 bits and e even. 1/sqrt(a) = sqrt(2^112 / m) *
            // 2^(-56 - e/2); floor(sqrt(x)) = floor(sqrt(floor(x))) for x >= 0, so an integer
            // root of the integer quotient gives the truncated result (about 44 bits), and it
            // is exact only if both the division and the root are.
            let (m, e) = normalize_even(sig, exp, 24);
            let (n, rem) = div_u128_small(1u128 << 112, m as u64);
            let r = isqrt(n);
            let sticky = rem != 0 || r * r != n;
            round_pack(f, false, r | sticky as u128, -56 - e / 2, mode)
        }
    }
}

/// Converts `bits` of format `from` to format `to`, rounding with `mode`; NaN becomes `to`'s
/// canonical NaN.
#[inline]
pub(crate) fn convert(from: Fmt, to: Fmt, bits: u32, mode: Round) -> u32 {
    let (s, c) = unpack(from, bits);
    match c {
        Class::Nan => to.nan(),
        Class::Inf => to.signed(s, to.inf()),
        Class::Zero => to.signed(s, 0),
        Class::Finite { sig, exp } => round_pack(to, s, sig as u128, exp, mode),
    }
}

/// Rounds `±sig * 2^exp` to an integer with `mode`; returns the magnitude, saturated at 2^40.
#[inline]
fn round_to_integer(sign: bool, sig: u64, exp: i32, mode: Round) -> u64 {
    if exp >= 0 {
        return if exp >= 40 { 1 << 40 } else { (sig << exp).min(1 << 40) };
    }
    let sh = (-exp) as u32;
    let sig = sig as u128;
    let (kept, rem, half) =
        if sh >= 127 { (0, sig, u128::MAX) } else { (sig >> sh, sig & ((1u128 << sh) - 1), 1u128 << (sh - 1)) };
    (kept + round_up(mode, sign, kept & 1 == 1, rem, half) as u128) as u64
}

/// `cvt.{rni,rzi,rpi,rmi}.s32.f32`: saturating, NaN gives 0.
#[inline]
pub(crate) fn f32_to_i32(bits: u32, mode: Round) -> i32 {
    let (s, c) = unpack(F32, bits);
    match c {
        Class::Nan | Class::Zero => 0,
        Class::Inf => {
            if s {
                i32::MIN
            } else {
                i32::MAX
            }
        }
        Class::Finite { sig, exp } => {
            let m = round_to_integer(s, sig, exp, mode);
            if s {
                if m >= 1 << 31 {
                    i32::MIN
                } else {
                    -(m as i64) as i32
                }
            } else if m > i32::MAX as u64 {
                i32::MAX
            } else {
                m as i32
            }
        }
    }
}

/// `cvt.{rni,rzi,rpi,rmi}.u32.f32`: saturating to `[0, u32::MAX]`, NaN gives 0.
#[inline]
pub(crate) fn f32_to_u32(bits: u32, mode: Round) -> u32 {
    let (s, c) = unpack(F32, bits);
    match c {
        Class::Nan | Class::Zero => 0,
        Class::Inf => {
            if s {
                0
            } else {
                u32::MAX
            }
        }
        Class::Finite { sig, exp } => {
            let m = round_to_integer(s, sig, exp, mode);
            if s {
                0
            } else if m > u32::MAX as u64 {
                u32::MAX
            } else {
                m as u32
            }
        }
    }
}

/// Converts an integer `±mag` to format `f` with `mode` (zero is +0).
#[inline]
pub(crate) fn from_int(f: Fmt, sign: bool, mag: u64, mode: Round) -> u32 {
    if mag == 0 {
        0
    } else {
        round_pack(f, sign, mag as u128, 0, mode)
    }
}
