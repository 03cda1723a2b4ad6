//! GPU-vs-emulator sweep of `deviceemu::math`: one implementation (the `libm` crate, NaN
//! canonicalised) compiled for both sides, so every function must give the same bits.

use deviceemu::math::*;
use deviceemu::prelude::*;

/// The swept functions, in the order `math_sweep` switches on, with their arity.
pub(crate) const MATH_OPS: &[(&str, u32)] = &[
    ("sinf", 1),
    ("cosf", 1),
    ("tanf", 1),
    ("asinf", 1),
    ("acosf", 1),
    ("atanf", 1),
    ("atan2f", 2),
    ("sinhf", 1),
    ("coshf", 1),
    ("tanhf", 1),
    ("expf", 1),
    ("exp2f", 1),
    ("exp10f", 1),
    ("expm1f", 1),
    ("logf", 1),
    ("log2f", 1),
    ("log10f", 1),
    ("log1pf", 1),
    ("powf", 2),
    ("sqrtf", 1),
    ("cbrtf", 1),
    ("hypotf", 2),
    ("erff", 1),
    ("erfcf", 1),
    ("fabsf", 1),
    ("fminf", 2),
    ("fmaxf", 2),
    ("floorf", 1),
    ("ceilf", 1),
    ("roundf", 1),
    ("truncf", 1),
    ("fmodf", 2),
    ("fmaf", 3),
    ("copysignf", 2),
];

/// Applies math function `blockIdx.y` to `n` inputs.
#[kernel]
pub fn math_sweep(n: u32, a: &[u32], b: &[u32], c: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let op = block_idx().y as usize;
    if i < n as usize {
        let k = op * n as usize + i;
        let (x, y, z) = (f32::from_bits(a[k]), f32::from_bits(b[k]), f32::from_bits(c[k]));
        let r = match op {
            0 => sinf(x),
            1 => cosf(x),
            2 => tanf(x),
            3 => asinf(x),
            4 => acosf(x),
            5 => atanf(x),
            6 => atan2f(x, y),
            7 => sinhf(x),
            8 => coshf(x),
            9 => tanhf(x),
            10 => expf(x),
            11 => exp2f(x),
            12 => exp10f(x),
            13 => expm1f(x),
            14 => logf(x),
            15 => log2f(x),
            16 => log10f(x),
            17 => log1pf(x),
            18 => powf(x, y),
            19 => sqrtf(x),
            20 => cbrtf(x),
            21 => hypotf(x, y),
            22 => erff(x),
            23 => erfcf(x),
            24 => fabsf(x),
            25 => fminf(x, y),
            26 => fmaxf(x, y),
            27 => floorf(x),
            28 => ceilf(x),
            29 => roundf(x),
            30 => truncf(x),
            31 => fmodf(x, y),
            32 => fmaf(x, y, z),
            _ => copysignf(x, y),
        };
        out[k] = r.to_bits();
    }
}

/// Runs every math function on `n` inputs on the GPU and in the emulator; returns the number of
/// differing results (printing a line per function).
pub(crate) fn math_sweep_run_all(n: usize) -> Result<usize, deviceemu::Error> {
    assert!(n % 256 == 0 && n > 0);
    let ops = MATH_OPS.len();
    // Random bit patterns for a third, values in [-100, 100) for the rest (where functions
    // are most used), from splitmix64.
    let mut s = 0x5eed_u64;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    };
    let mut gen = |k: usize| -> u32 {
        let r = next();
        if k % 3 == 0 {
            r
        } else {
            ((r >> 8) as f32 / (1u32 << 24) as f32 * 200.0 - 100.0).to_bits()
        }
    };
    let a: Vec<u32> = (0..ops * n).map(&mut gen).collect();
    let b: Vec<u32> = (0..ops * n).map(&mut gen).collect();
    let c: Vec<u32> = (0..ops * n).map(&mut gen).collect();
    let run = |target: deviceemu::Target| -> Result<Vec<u32>, deviceemu::Error> {
        deviceemu::with_config(deviceemu::Config::default().target(target), || {
            let ab = DeviceBuffer::from_slice(&a)?;
            let bb = DeviceBuffer::from_slice(&b)?;
            let cb = DeviceBuffer::from_slice(&c)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(ops * n)?;
            launch!(math_sweep<<<((n / 256) as u32, ops as u32), 256>>>(n as u32, &ab, &bb, &cb, &mut ob))?;
            ob.to_vec()
        })
    };
    let gpu = run(deviceemu::Target::Gpu)?;
    let emu = run(deviceemu::Target::Emulator)?;
    let mut total = 0;
    for (op, &(name, _)) in MATH_OPS.iter().enumerate() {
        let lo = op * n;
        let diffs: Vec<usize> = (lo..lo + n).filter(|&k| gpu[k] != emu[k]).collect();
        total += diffs.len();
        println!("math {name:<10} {n:>8} inputs {:>6} differences", diffs.len());
        for &k in diffs.iter().take(3) {
            println!(
                "    inputs {:#010x} {:#010x} {:#010x}: gpu {:#010x} emulator {:#010x}",
                a[k], b[k], c[k], gpu[k], emu[k]
            );
        }
    }
    Ok(total)
}
