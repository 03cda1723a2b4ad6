//! Unit tests of the engine: `rustc_apfloat` as an independent reference for every op it has,
//! exact checks for square roots, and the readings taken on an H200.

use half::{bf16, f16};
use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as ARound};

use super::soft::{self, Fmt, Round, BF16, F16, F32};
use super::*;

const MODES: [(Round, ARound); 4] = [
    (Round::Nearest, ARound::NearestTiesToEven),
    (Round::Zero, ARound::TowardZero),
    (Round::Up, ARound::TowardPositive),
    (Round::Down, ARound::TowardNegative),
];

/// xorshift64*, enough for test inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A bit pattern of format `f`, biased toward hard cases.
    fn pattern(&mut self, f: Fmt) -> u32 {
        let r = self.next();
        let width_mask = if f.width == 32 { u32::MAX } else { (1 << f.width) - 1 };
        let raw = (r >> 32) as u32 & width_mask;
        let sign = raw & f.sign_bit();
        let m = raw & f.man_mask();
        let emax_field = f.exp_all_ones();
        let e = match r & 7 {
            0 | 1 => return raw,
            2 => 0,
            3 => 1 + (r >> 8) as u32 % 3,
            4 => emax_field - 1 - (r >> 8) as u32 % 3,
            5 => emax_field,
            _ => (emax_field / 2) + ((r >> 8) as u32 % 9) - 4,
        };
        let m = match (r >> 16) & 3 {
            0 => m,
            1 => m & !((1u32 << ((r >> 20) as u32 % f.p)) - 1) & f.man_mask(),
            2 => (f.man_mask() ^ (m & 7)) & f.man_mask(),
            _ => m & 0xf,
        };
        sign | (e << f.man_bits()) | m
    }
}

trait Ap: Float + Copy {
    const FMT: Fmt;
}
impl Ap for Single {
    const FMT: Fmt = F32;
}
impl Ap for Half {
    const FMT: Fmt = F16;
}
impl Ap for BFloat {
    const FMT: Fmt = BF16;
}

fn ap<T: Ap>(bits: u32) -> T {
    T::from_bits(bits as u128)
}
fn ap_bits<T: Ap>(x: T) -> u32 {
    if x.is_nan() {
        T::FMT.nan()
    } else {
        x.to_bits() as u32
    }
}

fn check_binary<T: Ap>(n: usize, seed: u64) {
    let f = T::FMT;
    let mut rng = Rng(seed);
    for _ in 0..n {
        let a = rng.pattern(f);
        let b = if rng.next() & 1 == 0 {
            rng.pattern(f)
        } else {
            (a ^ (rng.next() as u32 & 0x3f)) & (f.sign_bit() << 1).wrapping_sub(1)
        };
        let c = rng.pattern(f);
        for (m, am) in MODES {
            let (x, y, z) = (ap::<T>(a), ap::<T>(b), ap::<T>(c));
            let cases = [
                ("add", soft::add(f, a, b, m), ap_bits(x.add_r(y, am).value)),
                ("sub", soft::sub(f, a, b, m), ap_bits(x.sub_r(y, am).value)),
                ("mul", soft::mul(f, a, b, m), ap_bits(x.mul_r(y, am).value)),
                ("div", soft::div(f, a, b, m), ap_bits(x.div_r(y, am).value)),
                ("fma", soft::fma(f, a, b, c, m), ap_bits(x.mul_add_r(y, z, am).value)),
            ];
            for (op, got, want) in cases {
                assert_eq!(got, want, "{op} {m:?} width {} a={a:#x} b={b:#x} c={c:#x}", f.width);
            }
        }
    }
}

#[test]
fn f32_arith_matches_apfloat() {
    check_binary::<Single>(40_000, 1);
}

#[test]
fn f16_arith_matches_apfloat() {
    check_binary::<Half>(20_000, 2);
}

#[test]
fn bf16_arith_matches_apfloat() {
    check_binary::<BFloat>(20_000, 3);
}

#[test]
fn conversions_match_apfloat() {
    let mut rng = Rng(4);
    for _ in 0..60_000 {
        let a = rng.pattern(F32);
        let x: Single = ap(a);
        for (m, am) in MODES {
            let h: Half = x.convert_r(am, &mut false).value;
            assert_eq!(soft::convert(F32, F16, a, m), ap_bits(h), "f32->f16 {m:?} {a:#x}");
            let bf: BFloat = x.convert_r(am, &mut false).value;
            assert_eq!(soft::convert(F32, BF16, a, m), ap_bits(bf), "f32->bf16 {m:?} {a:#x}");
            // Integers: apfloat rounds exactly; the device saturates and maps NaN to 0.
            let want_i = if x.is_nan() {
                0
            } else {
                x.to_i128_r(64, am, &mut false).value.clamp(i32::MIN as i128, i32::MAX as i128) as i32
            };
            assert_eq!(soft::f32_to_i32(a, m), want_i, "f32->i32 {m:?} {a:#x}");
            let want_u =
                if x.is_nan() { 0 } else { x.to_i128_r(64, am, &mut false).value.clamp(0, u32::MAX as i128) as u32 };
            assert_eq!(soft::f32_to_u32(a, m), want_u, "f32->u32 {m:?} {a:#x}");
            let i = rng.next() as u32 >> (rng.next() % 32);
            let want: Single = Single::from_i128_r(i as i32 as i128, am).value;
            assert_eq!(soft::from_int(F32, (i as i32) < 0, (i as i32).unsigned_abs() as u64, m), ap_bits(want));
            let want: Single = Single::from_u128_r(i as u128, am).value;
            assert_eq!(soft::from_int(F32, false, i as u64, m), ap_bits(want));
        }
    }
    // Widening is exact for every 16-bit pattern.
    for h in 0..=u16::MAX as u32 {
        let x: Half = ap(h);
        let y: Single = x.convert_r(ARound::NearestTiesToEven, &mut false).value;
        assert_eq!(soft::convert(F16, F32, h, Round::Nearest), ap_bits(y));
        let x: BFloat = ap(h);
        let y: Single = x.convert_r(ARound::NearestTiesToEven, &mut false).value;
        assert_eq!(soft::convert(BF16, F32, h, Round::Nearest), ap_bits(y));
    }
}

/// The exact square of an f32 value as `(sig^2, 2*exp)`, compared with `x = m * 2^e`.
fn cmp_square(y: f64, x: f64) -> core::cmp::Ordering {
    // y has 24 bits, y^2 has 48: exact in u128 after scaling both to a common exponent.
    let (ym, ye) = decompose(y);
    let (xm, xe) = decompose(x);
    let lhs_e = 2 * ye;
    let (l, r) =
        if lhs_e >= xe { ((ym * ym) << (lhs_e - xe) as u32, xm) } else { (ym * ym, xm << (xe - lhs_e) as u32) };
    l.cmp(&r)
}

/// `x = m * 2^e` with integer `m` (x positive finite).
fn decompose(x: f64) -> (u128, i32) {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let m = bits & ((1 << 52) - 1);
    if e == 0 {
        (m as u128, -1074)
    } else {
        ((m | 1 << 52) as u128, e - 1075)
    }
}

/// Checks that `r` is `sqrt(x)` rounded with `mode`, exactly, for positive finite `x`.
fn check_sqrt_exact(x: f32, mode: Round) {
    let r = f32::from_bits(soft::sqrt(F32, x.to_bits(), mode));
    let lo = r;
    let hi = f32::from_bits(r.to_bits() + 1);
    let below = f32::from_bits(r.to_bits() - 1);
    use core::cmp::Ordering::*;
    let c = cmp_square(lo as f64, x as f64);
    match mode {
        Round::Zero | Round::Down => {
            assert!(c != Greater && cmp_square(hi as f64, x as f64) == Greater, "sqrt {mode:?} {:#x}", x.to_bits())
        }
        Round::Up => assert!(c != Less && cmp_square(below as f64, x as f64) == Less, "sqrt up {:#x}", x.to_bits()),
        Round::Nearest => {
            // Midpoints (24 significant bits + 1) squared, compared with x, all exact.
            let mid_hi = (lo as f64 + hi as f64) / 2.0;
            let mid_lo = (below as f64 + lo as f64) / 2.0;
            assert!(
                cmp_square(mid_hi, x as f64) != Less && cmp_square(mid_lo, x as f64) != Greater,
                "sqrt rn {:#x}",
                x.to_bits()
            );
            assert!(cmp_square(mid_hi, x as f64) != Equal, "a square root is never a midpoint");
        }
    }
}

#[test]
fn sqrt_is_correctly_rounded() {
    let mut rng = Rng(5);
    for _ in 0..100_000 {
        let bits = rng.pattern(F32) & 0x7fff_ffff;
        let x = f32::from_bits(bits);
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        for (m, _) in MODES {
            check_sqrt_exact(x, m);
        }
        // Round to nearest is what the hardware (and Rust) computes.
        assert_eq!(soft::sqrt(F32, bits, Round::Nearest), x.sqrt().to_bits(), "{bits:#x}");
    }
    // Exact squares and their neighbours.
    for i in 1..20_000u32 {
        let y = f32::from_bits(0x3f80_0000 + i * 419);
        let sq = y as f64 * y as f64;
        let x = sq as f32;
        for d in [-1i32, 0, 1] {
            let xb = (x.to_bits() as i32 + d) as u32;
            for (m, _) in MODES {
                check_sqrt_exact(f32::from_bits(xb), m);
            }
        }
    }
    assert_eq!(fsqrt_rn(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(fsqrt_rz(-1.0).to_bits(), 0x7fff_ffff);
    assert_eq!(fsqrt_ru(f32::INFINITY), f32::INFINITY);
    assert_eq!(fsqrt_rd(4.0), 2.0);
    assert_eq!(fsqrt_rn(f32::from_bits(1)).to_bits(), f32::from_bits(1).sqrt().to_bits());
    assert_eq!(fsqrt_ru(f32::from_bits(1)).to_bits(), f32::from_bits(1).sqrt().to_bits() + 1);
}

/// `x * y^2` compared with 1, exactly (x and y positive finite f64 holding f32 or midpoints).
fn cmp_rsqrt(x: f64, y: f64) -> core::cmp::Ordering {
    let (xm, xe) = decompose(x);
    let (ym, ye) = decompose(y);
    // x*y^2 = xm*ym^2 * 2^(xe+2ye); xm < 2^53, ym^2 < 2^106: too wide, so strip trailing zeros.
    let (xm, xe) = strip(xm, xe);
    let (ym, ye) = strip(ym, ye);
    let prod = xm * ym * ym; // xm <= 24 bits, ym <= 25 bits: < 2^74
    let e = xe + 2 * ye;
    if e >= 0 {
        if e > 60 {
            core::cmp::Ordering::Greater
        } else {
            (prod << e as u32).cmp(&1)
        }
    } else if -e >= 127 {
        core::cmp::Ordering::Less
    } else {
        prod.cmp(&(1u128 << (-e) as u32))
    }
}

fn strip(m: u128, e: i32) -> (u128, i32) {
    let tz = m.trailing_zeros();
    (m >> tz, e + tz as i32)
}

#[test]
fn rsqrt_is_correctly_rounded() {
    use core::cmp::Ordering::*;
    let mut rng = Rng(6);
    let mut checked = 0;
    for i in 0..200_000u32 {
        let bits = if i < 50_000 { 0x3f80_0000 + i * 167 } else { rng.pattern(F32) & 0x7fff_ffff };
        let x = f32::from_bits(bits);
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        let y = frsqrt_rn(x);
        if y == 0.0 || y.is_infinite() || y.to_bits() & 0x7f80_0000 == 0 {
            continue; // only huge/tiny x, where y is subnormal; checked below separately
        }
        let up = f32::from_bits(y.to_bits() + 1);
        let down = f32::from_bits(y.to_bits() - 1);
        let mid_up = (y as f64 + up as f64) / 2.0;
        let mid_down = (y as f64 + down as f64) / 2.0;
        // 1/sqrt(x) lies between the two midpoints: x*mid_up^2 >= 1 >= x*mid_down^2.
        assert!(cmp_rsqrt(x as f64, mid_up) != Less, "rsqrt {bits:#x} -> {:#x} too small", y.to_bits());
        assert!(cmp_rsqrt(x as f64, mid_down) != Greater, "rsqrt {bits:#x} -> {:#x} too large", y.to_bits());
        checked += 1;
    }
    assert!(checked > 150_000);
    assert_eq!(frsqrt_rn(4.0), 0.5);
    assert_eq!(frsqrt_rn(0.25), 2.0);
    assert_eq!(frsqrt_rn(0.0), f32::INFINITY);
    assert_eq!(frsqrt_rn(-0.0), f32::NEG_INFINITY);
    assert_eq!(frsqrt_rn(f32::INFINITY).to_bits(), 0);
    assert_eq!(frsqrt_rn(-1.0).to_bits(), 0x7fff_ffff);
    assert_eq!(frsqrt_rn(f32::from_bits(1)).to_bits(), 0x64b5_04f3); // 2^-149 -> 2^74.5, rounded
}

#[test]
fn rsqrt_of_subnormal_and_huge() {
    // 2^-149: 1/sqrt = 2^74.5 = 2^74 * 1.41421356..
    let y = frsqrt_rn(f32::from_bits(1));
    let want = (2f64.powf(74.5)) as f32;
    assert_eq!(y, want);
    // max: 1/sqrt(2^128 (1-2^-24)) ~ 2^-64
    let y = frsqrt_rn(f32::MAX);
    assert_eq!(y, (1.0 / (f32::MAX as f64).sqrt()) as f32);
}

#[test]
fn h200_readings() {
    let tiny = f32::from_bits(0x33c0_0000);
    assert_eq!(fadd_rz(1.0, tiny).to_bits(), 0x3f80_0000);
    assert_eq!(fadd_rn(1.0, tiny).to_bits(), 0x3f80_0001);
    assert_eq!(fadd_ru(1.0, tiny).to_bits(), 0x3f80_0001);
    assert_eq!(float2half_rz(f32::from_bits(0x3f80_0001)).to_bits(), 0x3c00);
    assert_eq!(float2bfloat16_ru(f32::from_bits(0x3f80_0001)).to_bits(), 0x3f81);
    assert_eq!(float2int_rz(-2.7), -2);
    assert_eq!(float2int_rn(f32::INFINITY), 0x7fff_ffff);
    assert_eq!(saturatef(f32::NAN).to_bits(), 0);
    assert_eq!(fadd_rn(f32::from_bits(0x7fc0_1234), 1.0).to_bits(), 0x7fff_ffff);
    assert_eq!(fmul_rn(f32::from_bits(0x0080_0000), 0.5).to_bits(), 0x0040_0000);
    assert_eq!(fmul_rn_ftz(f32::from_bits(0x0080_0000), 0.5).to_bits(), 0);
}

#[test]
fn special_values() {
    let nan = 0x7fff_ffff;
    let inf = f32::INFINITY;
    // Signed zeros of exact cancellation: +0 except when rounding down.
    assert_eq!(fadd_rn(1.0, -1.0).to_bits(), 0);
    assert_eq!(fadd_rz(1.0, -1.0).to_bits(), 0);
    assert_eq!(fadd_ru(1.0, -1.0).to_bits(), 0);
    assert_eq!(fadd_rd(1.0, -1.0).to_bits(), 0x8000_0000);
    assert_eq!(fadd_rn(-0.0, -0.0).to_bits(), 0x8000_0000);
    assert_eq!(fadd_rn(-0.0, 0.0).to_bits(), 0);
    assert_eq!(fadd_rd(-0.0, 0.0).to_bits(), 0x8000_0000);
    assert_eq!(fsub_rn(0.0, 0.0).to_bits(), 0);
    assert_eq!(fsub_rd(0.0, 0.0).to_bits(), 0x8000_0000);
    assert_eq!(fmaf_rn(1.0, -1.0, 1.0).to_bits(), 0);
    assert_eq!(fmaf_rd(1.0, -1.0, 1.0).to_bits(), 0x8000_0000);
    assert_eq!(fmaf_rn(0.0, -1.0, 0.0).to_bits(), 0);
    assert_eq!(fmaf_rn(-0.0, 1.0, -0.0).to_bits(), 0x8000_0000);
    // Overflow by direction.
    let max = f32::MAX;
    assert_eq!(fadd_rn(max, max), inf);
    assert_eq!(fadd_rz(max, max), max);
    assert_eq!(fadd_ru(max, max), inf);
    assert_eq!(fadd_rd(max, max), max);
    assert_eq!(fadd_rd(-max, -max), -inf);
    assert_eq!(fadd_ru(-max, -max), -max);
    assert_eq!(fmul_rz(-max, 2.0), -max);
    // Invalid operations.
    assert_eq!(fadd_rn(inf, -inf).to_bits(), nan);
    assert_eq!(fmul_rn(inf, 0.0).to_bits(), nan);
    assert_eq!(fdiv_rn(0.0, 0.0).to_bits(), nan);
    assert_eq!(fdiv_rn(inf, inf).to_bits(), nan);
    assert_eq!(fmaf_rn(inf, 0.0, f32::NAN).to_bits(), nan);
    assert_eq!(fmaf_rn(inf, 1.0, -inf).to_bits(), nan);
    assert_eq!(fdiv_rn(1.0, -0.0), -inf);
    assert_eq!(frcp_rn(-0.0), -inf);
    assert_eq!(frcp_rz(f32::MAX).to_bits(), 0x0020_0000);
    assert_eq!(frcp_rn_ftz(f32::MAX).to_bits(), 0);
    assert_eq!(frcp_rn_ftz(f32::from_bits(0x8000_0001)), -inf);
    // Integer conversions saturate; NaN gives 0.
    assert_eq!(float2int_rn(f32::NAN), 0);
    assert_eq!(float2int_rn(-inf), i32::MIN);
    assert_eq!(float2int_rz(2147483520.0), 2147483520);
    assert_eq!(float2int_rz(2147483648.0), i32::MAX);
    assert_eq!(float2int_rn(-2147483648.0), i32::MIN);
    assert_eq!(float2int_rn(2.5), 2);
    assert_eq!(float2int_rn(3.5), 4);
    assert_eq!(float2int_rn(-2.5), -2);
    assert_eq!(float2int_ru(-0.5), 0);
    assert_eq!(float2int_rd(-0.5), -1);
    assert_eq!(float2int_ru(f32::from_bits(1)), 1);
    assert_eq!(float2uint_rn(-0.7), 0);
    assert_eq!(float2uint_rd(-0.1), 0);
    assert_eq!(float2uint_rz(4294967296.0), u32::MAX);
    assert_eq!(float2uint_ru(4294967040.0), 4294967040);
    assert_eq!(float2uint_rn(f32::NAN), 0);
    assert_eq!(int2float_rz(16_777_217), 16_777_216.0);
    assert_eq!(int2float_ru(16_777_217), 16_777_218.0);
    assert_eq!(int2float_rn(16_777_219), 16_777_220.0);
    assert_eq!(int2float_rd(-16_777_217), -16_777_218.0);
    assert_eq!(uint2float_rz(u32::MAX), 4294967040.0);
    assert_eq!(uint2float_rn(u32::MAX), 4294967296.0);
    assert_eq!(int2float_rn(0).to_bits(), 0);
    // f16 and bf16.
    assert_eq!(float2half_rn(65520.0).to_bits(), 0x7c00);
    assert_eq!(float2half_rz(65520.0).to_bits(), 0x7bff);
    assert_eq!(float2half_rn(f32::NAN).to_bits(), 0x7fff);
    assert_eq!(float2half_rn(f32::from_bits(0x3300_0000)).to_bits(), 0); // 2^-25: tie to even (0)
    assert_eq!(float2half_rn(f32::from_bits(0x3300_0001)).to_bits(), 1);
    assert_eq!(float2half_ru(f32::from_bits(1)).to_bits(), 1);
    assert_eq!(float2half_rd(-f32::from_bits(1)).to_bits(), 0x8001);
    assert_eq!(half2float(f16::from_bits(1)), 2f32.powi(-24));
    assert_eq!(half2float(f16::from_bits(0x7e01)).to_bits(), nan);
    assert_eq!(float2bfloat16_rn(f32::from_bits(0x3f80_8000)).to_bits(), 0x3f80);
    assert_eq!(float2bfloat16_rn(f32::from_bits(0x3f81_8000)).to_bits(), 0x3f82);
    assert_eq!(float2bfloat16_rz(f32::MAX).to_bits(), 0x7f7f);
    assert_eq!(float2bfloat16_rn(f32::MAX).to_bits(), 0x7f80);
    assert_eq!(float2bfloat16_rn(f32::from_bits(0x7f80_0001)).to_bits(), 0x7fff);
    assert_eq!(bfloat162float(bf16::from_bits(0x0001)).to_bits(), 0x0001_0000);
    assert_eq!(saturatef(-0.0).to_bits(), 0);
    assert_eq!(saturatef(2.0), 1.0);
    assert_eq!(saturatef(0.25), 0.25);
    assert_eq!(saturatef(-inf), 0.0);
}

#[test]
fn half_arith() {
    let h = |x: f32| float2half_rn(x);
    assert_eq!(hadd(h(1.0), h(2.0)), h(3.0));
    assert_eq!(hmul(h(3.0), h(0.5)), h(1.5));
    assert_eq!(hsub(h(1.0), h(1.0)).to_bits(), 0);
    assert_eq!(hadd(h(65504.0), h(65504.0)).to_bits(), 0x7c00);
    // fma rounds once: 1 + 2^-11 squared is 1 + 2^-10 + 2^-22; minus (1 + 2^-10) leaves 2^-22,
    // which a rounded product would have lost.
    let a = f16::from_bits(0x3c01);
    let c = hneg(f16::from_bits(0x3c02));
    assert_eq!(half2float(hfma(a, a, c)), 2f32.powi(-20));
    assert_eq!(hneg(h(0.0)).to_bits(), 0x8000);
    assert!(hlt(h(-0.0), h(1.0)) && !hlt(h(0.0), h(-0.0)) && heq(h(0.0), h(-0.0)));
    let nan = f16::from_bits(0x7e00);
    assert!(!heq(nan, nan) && hneu(nan, nan) && !hne(nan, h(1.0)) && hltu(nan, h(1.0)));
    assert_eq!(hmin(nan, h(2.0)), h(2.0));
    assert_eq!(hmin_nan(nan, h(2.0)).to_bits(), 0x7fff);
    assert_eq!(hmin(h(0.0), h(-0.0)).to_bits(), 0x8000);
    assert_eq!(hmax(h(-0.0), h(0.0)).to_bits(), 0);
    assert_eq!(hdiv(h(1.0), h(4.0)), h(0.25));
    assert_eq!(hdiv(h(6.0), h(3.0)), h(2.0));
    assert_eq!(hdiv(h(1.0), h(0.0)).to_bits(), 0x7c00);
    assert_eq!(hdiv(h(0.0), h(0.0)).to_bits(), 0x7fff);
    let b = |x: f32| float2bfloat16_rn(x);
    assert_eq!(hadd_bf16(b(1.0), b(2.0)), b(3.0));
    assert_eq!(hdiv_bf16(b(1.0), b(4.0)), b(0.25));
    assert_eq!(hdiv_bf16(b(1.0), bf16::from_bits(0x7f00)).to_bits(), 0x0040); // 2^-127 via the 1/4 scaling
    assert_eq!(hfma_bf16(b(2.0), b(3.0), b(1.0)), b(7.0));
}

/// hdiv is the correctly rounded quotient except near f16 rounding boundaries.
#[test]
fn hdiv_is_nearly_correctly_rounded() {
    let mut rng = Rng(8);
    let mut off = 0;
    for _ in 0..200_000 {
        let a = rng.next() as u16;
        let b = rng.next() as u16;
        let (fa, fb) = (f16::from_bits(a), f16::from_bits(b));
        let want = soft::div(F16, a as u32, b as u32, Round::Nearest) as u16;
        let got = hdiv(fa, fb).to_bits();
        if got != want {
            off += 1;
        }
    }
    assert!(off < 20, "{off} of 200000 quotients differ from correct rounding");
}

#[test]
fn fast_math_bounds() {
    assert_eq!(expf_fast(0.0), 1.0);
    assert_eq!(log2f_fast(8.0), 3.0);
    assert!(logf_fast(-1.0).is_nan());
    assert_eq!(logf_fast(0.0), f32::NEG_INFINITY);
    assert_eq!(fdividef(1.0, f32::from_bits(0x7f00_0000)), 0.0);
    assert!(fdividef(f32::INFINITY, f32::from_bits(0x7f00_0000)).is_nan());
    assert_eq!(fdividef(6.0, 3.0), 2.0);
    assert!((sinf_fast(1.0) - 1f32.sin()).abs() < 1e-6);
    assert!((powf_fast(2.0, 10.0) - 1024.0).abs() < 1e-3);
}

/// The `.ftz` result rule, against its definition: a result is flushed exactly when, rounded to
/// 24 bits in its direction with the exponent range unbounded, it is below `2^-126`. The
/// unbounded rounding is computed by scaling an operand by `2^64` (exact for these normal
/// operands), which moves the result far from the subnormal range. Inputs: products, quotients
/// and fma results within a few ulps of `2^-126`. (The H200 agrees: FP.md, the FTZ probe.)
#[test]
fn ftz_flushes_what_is_tiny_after_rounding() {
    let mut rng = Rng(0x7e57_f12e);
    let up = |x: u32| x + (64 << 23); // times 2^64
    let below_2_pow_m62 = |x: u32| x & 0x7fff_ffff < (127 - 62) << 23;
    let mut flushed_ieee_normal = 0;
    for i in 0..60_000u32 {
        let r = rng.next();
        let (mode, _) = MODES[(r & 3) as usize];
        let neg = (r >> 2) & 1 == 1;
        // |a| in [2^-67, 2^-8), so that 2^-126 / |a| and 2^126 * |a| are normal.
        let a = ((neg as u32) << 31) | (((60 + (r >> 8) % 59) as u32) << 23) | ((r >> 16) as u32 & 0x7f_ffff);
        let fa = f32::from_bits(a & 0x7fff_ffff) as f64;
        let k = ((r >> 40) % 7) as u32;
        let (got, plain, scaled) = match i % 3 {
            0 => {
                let b = ((2f64.powi(-126) / fa) as f32).to_bits() + k - 3;
                (soft::mul_ftz(F32, a, b, mode), soft::mul(F32, a, b, mode), soft::mul(F32, up(a), b, mode))
            }
            1 => {
                let b = ((2f64.powi(126) * fa) as f32).to_bits() + k - 3;
                (soft::div_ftz(F32, a, b, mode), soft::div(F32, a, b, mode), soft::div(F32, up(a), b, mode))
            }
            _ => {
                // a * b is about 2.7 * 2^-126; c brings the sum to about (1 - 2^-24) * 2^-126.
                let b = ((2f64.powi(-126) / (0.375 * fa)) as f32).to_bits() + k;
                let sign = if neg { -1.0 } else { 1.0 };
                let t = sign * (1.0 - 2f64.powi(-24)) * 2f64.powi(-126);
                let c = ((t - f32::from_bits(a) as f64 * f32::from_bits(b) as f64) as f32).to_bits();
                (
                    soft::fma_ftz(F32, a, b, c, mode),
                    soft::fma(F32, a, b, c, mode),
                    soft::fma(F32, up(a), b, up(c), mode),
                )
            }
        };
        let want = if below_2_pow_m62(scaled) { plain & 0x8000_0000 } else { plain };
        assert_eq!(got, want, "case {i} mode {mode:?}: {a:#010x}");
        flushed_ieee_normal += (want & 0x7fff_ffff == 0 && plain & 0x7fff_ffff == 0x0080_0000) as u32;
    }
    // Results that IEEE rounding takes up to 2^-126 and the rule still flushes: they occur.
    assert!(flushed_ieee_normal > 100, "{flushed_ieee_normal}");
}

/// The 128-bit long division by 32-bit digits that `rsqrt` uses (the NVPTX backend has no
/// 128-bit division).
#[test]
fn div_u128_small_is_division() {
    let mut rng = Rng(0xd1f);
    for _ in 0..100_000 {
        let n = ((rng.next() as u128) << 64 | rng.next() as u128) >> (rng.next() % 100);
        let d = (rng.next() >> (32 + rng.next() % 32)).max(1);
        assert_eq!(soft::div_u128_small(n, d), (n / d as u128, (n % d as u128) as u64));
    }
}
