//! Accuracy of `deviceemu::math` against correctly rounded results, for FP.md.
//!
//! `cargo test -p emu-runtime --release --lib math_accuracy -- --ignored --nocapture` measures every
//! function on 10^7 inputs (half uniformly random finite bit patterns, half in the function's
//! useful range) and prints, per function, the largest distance in ulps between the result and
//! the correctly rounded one (the measure of CUDA's table), and the largest error in ulps
//! against the real value. The reference is the f64 `libm` function rounded to f32 (for
//! `exp10f`, which is computed from `libm::exp10`, the host's `10f64.powf`; their own
//! error, under 1 f64 ulp, is 2^-29 f32 ulps; hard cases at exactly that margin are
//! vanishingly rare). The quick test checks 10^5 inputs per function against the same bounds.

use crate::device::math;
use rayon::prelude::*;

type F1 = fn(f32) -> f32;
type F2 = fn(f32, f32) -> f32;

enum Func {
    One(F1, fn(f64) -> f64, (f32, f32)),
    Two(F2, fn(f64, f64) -> f64, (f32, f32), (f32, f32)),
}

/// (name, emulator function, f64 reference, input range, CUDA's documented max ulp, our bound)
fn functions() -> Vec<(&'static str, Func, u32, u32)> {
    use Func::*;
    vec![
        ("sinf", One(math::sinf, libm::sin, (-100.0, 100.0)), 2, 1),
        ("cosf", One(math::cosf, libm::cos, (-100.0, 100.0)), 2, 1),
        ("tanf", One(math::tanf, libm::tan, (-100.0, 100.0)), 4, 1),
        ("asinf", One(math::asinf, libm::asin, (-1.0, 1.0)), 2, 1),
        ("acosf", One(math::acosf, libm::acos, (-1.0, 1.0)), 2, 1),
        ("atanf", One(math::atanf, libm::atan, (-100.0, 100.0)), 2, 1),
        ("atan2f", Two(math::atan2f, libm::atan2, (-10.0, 10.0), (-10.0, 10.0)), 3, 1),
        ("sinhf", One(math::sinhf, libm::sinh, (-90.0, 90.0)), 3, 2),
        ("coshf", One(math::coshf, libm::cosh, (-90.0, 90.0)), 2, 1),
        ("tanhf", One(math::tanhf, libm::tanh, (-10.0, 10.0)), 2, 2),
        ("expf", One(math::expf, libm::exp, (-104.0, 89.0)), 2, 1),
        ("exp2f", One(math::exp2f, libm::exp2, (-150.0, 128.0)), 2, 1),
        ("exp10f", One(math::exp10f, |x| 10f64.powf(x), (-45.0, 39.0)), 2, 1),
        ("expm1f", One(math::expm1f, libm::expm1, (-20.0, 89.0)), 1, 1),
        ("logf", One(math::logf, libm::log, (0.0, 1000.0)), 1, 1),
        ("log2f", One(math::log2f, libm::log2, (0.0, 1000.0)), 1, 1),
        ("log10f", One(math::log10f, libm::log10, (0.0, 1000.0)), 2, 1),
        ("log1pf", One(math::log1pf, libm::log1p, (-1.0, 1000.0)), 1, 1),
        ("powf", Two(math::powf, libm::pow, (0.0, 100.0), (-40.0, 40.0)), 4, 1),
        ("sqrtf", One(math::sqrtf, libm::sqrt, (0.0, 1e6)), 0, 0),
        ("cbrtf", One(math::cbrtf, libm::cbrt, (-1e6, 1e6)), 1, 1),
        ("hypotf", Two(math::hypotf, libm::hypot, (-1e4, 1e4), (-1e4, 1e4)), 3, 1),
        ("erff", One(math::erff, libm::erf, (-5.0, 5.0)), 2, 2),
        ("erfcf", One(math::erfcf, libm::erfc, (-5.0, 11.0)), 4, 4),
        ("fabsf", One(math::fabsf, libm::fabs, (-10.0, 10.0)), 0, 0),
        ("fminf", Two(math::fminf, libm::fmin, (-10.0, 10.0), (-10.0, 10.0)), 0, 0),
        ("fmaxf", Two(math::fmaxf, libm::fmax, (-10.0, 10.0), (-10.0, 10.0)), 0, 0),
        ("floorf", One(math::floorf, libm::floor, (-1e7, 1e7)), 0, 0),
        ("ceilf", One(math::ceilf, libm::ceil, (-1e7, 1e7)), 0, 0),
        ("roundf", One(math::roundf, libm::round, (-1e7, 1e7)), 0, 0),
        ("truncf", One(math::truncf, libm::trunc, (-1e7, 1e7)), 0, 0),
        ("fmodf", Two(math::fmodf, libm::fmod, (-1e6, 1e6), (-100.0, 100.0)), 0, 0),
        ("copysignf", Two(math::copysignf, libm::copysign, (-10.0, 10.0), (-10.0, 10.0)), 0, 0),
        ("asinhf", One(math::asinhf, libm::asinh, (-100.0, 100.0)), 3, 1),
        ("acoshf", One(math::acoshf, libm::acosh, (1.0, 100.0)), 4, 1),
        ("atanhf", One(math::atanhf, libm::atanh, (-1.0, 1.0)), 3, 1),
        ("rsqrtf", One(math::rsqrtf, |x| 1.0 / libm::sqrt(x), (0.0, 1e6)), 2, 1),
        ("remainderf", Two(math::remainderf, libm::remainder, (-1e6, 1e6), (-100.0, 100.0)), 0, 0),
        ("tgammaf", One(math::tgammaf, libm::tgamma, (-10.0, 35.0)), 5, 1),
        ("lgammaf", One(math::lgammaf, |x| libm::lgamma_r(x).0, (-20.0, 1e4)), 6, 1),
    ]
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Input `i` of a stream: even indices any finite pattern, odd ones uniform in `range`.
fn input(seed: u64, i: u64, range: (f32, f32)) -> f32 {
    let r = mix64(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    if i & 1 == 0 {
        let b = (r >> 32) as u32;
        let x = f32::from_bits(b);
        if x.is_finite() {
            x
        } else {
            f32::from_bits(b & 0xbfff_ffff)
        }
    } else {
        let t = (r >> 40) as f64 / (1u64 << 24) as f64;
        (range.0 as f64 + t * (range.1 as f64 - range.0 as f64)) as f32
    }
}

fn key(x: f32) -> i64 {
    let b = x.to_bits();
    if b & 0x8000_0000 != 0 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

#[derive(Clone, Copy, Default)]
struct Stat {
    /// Largest distance in ulps to the correctly rounded result.
    max_ulps: u64,
    /// Largest error in ulps against the f64 value.
    max_err: f64,
    worst: (f32, f32),
    /// NaN/number disagreements (special-case bugs).
    class: u64,
}

fn merge(a: Stat, b: Stat) -> Stat {
    let (mut s, o) = if a.max_ulps >= b.max_ulps { (a, b) } else { (b, a) };
    s.max_err = s.max_err.max(o.max_err);
    s.class += o.class;
    s
}

fn measure_one(got: f32, exact: f64, x: f32, y: f32) -> Stat {
    let cr = exact as f32;
    let mut s = Stat { worst: (x, y), ..Stat::default() };
    if exact.is_nan() || got.is_nan() {
        s.class = (exact.is_nan() != got.is_nan()) as u64;
        return s;
    }
    s.max_ulps = (key(got) - key(cr)).unsigned_abs();
    if cr.is_finite() && got.is_finite() {
        let e = (cr.to_bits() >> 23) & 0xff;
        let ulp = 2f64.powi(if e == 0 { -149 } else { e as i32 - 150 });
        s.max_err = (got as f64 - exact).abs() / ulp;
    }
    s
}

fn measure(f: &Func, n: u64, seed: u64) -> Stat {
    (0..n)
        .into_par_iter()
        .fold(Stat::default, |acc, i| {
            let s = match f {
                Func::One(g, r, range) => {
                    let x = input(seed, i, *range);
                    measure_one(g(x), r(x as f64), x, 0.0)
                }
                Func::Two(g, r, rx, ry) => {
                    let x = input(seed, i, *rx);
                    let y = input(seed ^ 0x5555, i, *ry);
                    measure_one(g(x, y), r(x as f64, y as f64), x, y)
                }
            };
            merge(acc, s)
        })
        .reduce(Stat::default, merge)
}

fn run(n: u64) -> Vec<String> {
    let mut failures = Vec::new();
    println!("| function | inputs | max ulp vs correctly rounded | max error (ulp, vs exact) | CUDA's bound (ulp) | worst input |");
    println!("|---|---|---|---|---|---|");
    for (i, (name, f, cuda, ours)) in functions().into_iter().enumerate() {
        let s = measure(&f, n, 0x1234_5678 + i as u64);
        println!(
            "| `{name}` | {n} | {} | {:.3} | {cuda} | `{:e}`{} |",
            s.max_ulps,
            s.max_err,
            s.worst.0,
            if matches!(f, Func::Two(..)) { format!(", `{:e}`", s.worst.1) } else { String::new() }
        );
        if s.max_ulps > ours as u64 || s.class > 0 {
            failures.push(format!("{name}: {} ulp (bound {ours}), {} NaN disagreements", s.max_ulps, s.class));
        }
    }
    failures
}

#[test]
fn math_accuracy_quick() {
    let failures = run(100_000);
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
#[ignore = "10^7 inputs per function: about a minute per function on 2 cores in release"]
fn math_accuracy_full() {
    let failures = run(10_000_000);
    assert!(failures.is_empty(), "{failures:?}");
}
