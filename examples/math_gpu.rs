//! `deviceemu::math` on the GPU: the f64 functions and the f32 ones added with them, run on
//! the GPU and in the emulator (every result must be the same bits), and the kernels that
//! probe p16 (`tools/probes/p16_libdevice.cu`) loads from this file's PTX to measure how far
//! `deviceemu::math` is from nvcc's own functions on the device (every f32 input of the
//! one-argument functions; random inputs for the rest). Run on a GPU machine:
//!
//! ```sh
//! cargo run --release --features gpu --example math_gpu
//! ```
//!
//! The op tables here and in p16 are generated together (their order is the kernels' `op`).

use deviceemu::math::*;
use deviceemu::prelude::*;

/// One-argument f32 functions, in `op` order.
pub const F32_1: &[&str] = &[
    "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf", "expf",
    "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf", "sqrtf", "rsqrtf", "cbrtf", "erff", "erfcf",
    "lgammaf", "tgammaf", "fabsf", "floorf", "ceilf", "roundf", "truncf",
];
/// Two-argument f32 functions.
pub const F32_2: &[&str] = &["atan2f", "powf", "hypotf", "fminf", "fmaxf", "fmodf", "remainderf", "copysignf"];
/// One-argument f64 functions.
pub const F64_1: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "exp2",
    "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "erf", "erfc", "lgamma", "tgamma",
    "fabs", "floor", "ceil", "round", "trunc",
];
/// Two-argument f64 functions.
pub const F64_2: &[&str] = &["atan2", "pow", "hypot", "fmin", "fmax", "fmod", "remainder", "copysign"];

#[inline(always)]
fn f32_1(op: u32, x: f32) -> f32 {
    match op {
        0 => sinf(x),
        1 => cosf(x),
        2 => tanf(x),
        3 => asinf(x),
        4 => acosf(x),
        5 => atanf(x),
        6 => sinhf(x),
        7 => coshf(x),
        8 => tanhf(x),
        9 => asinhf(x),
        10 => acoshf(x),
        11 => atanhf(x),
        12 => expf(x),
        13 => exp2f(x),
        14 => exp10f(x),
        15 => expm1f(x),
        16 => logf(x),
        17 => log2f(x),
        18 => log10f(x),
        19 => log1pf(x),
        20 => sqrtf(x),
        21 => rsqrtf(x),
        22 => cbrtf(x),
        23 => erff(x),
        24 => erfcf(x),
        25 => lgammaf(x),
        26 => tgammaf(x),
        27 => fabsf(x),
        28 => floorf(x),
        29 => ceilf(x),
        30 => roundf(x),
        _ => truncf(x),
    }
}

#[inline(always)]
fn f32_2(op: u32, x: f32, y: f32) -> f32 {
    match op {
        0 => atan2f(x, y),
        1 => powf(x, y),
        2 => hypotf(x, y),
        3 => fminf(x, y),
        4 => fmaxf(x, y),
        5 => fmodf(x, y),
        6 => remainderf(x, y),
        _ => copysignf(x, y),
    }
}

#[inline(always)]
fn f64_1(op: u32, x: f64) -> f64 {
    match op {
        0 => sin(x),
        1 => cos(x),
        2 => tan(x),
        3 => asin(x),
        4 => acos(x),
        5 => atan(x),
        6 => sinh(x),
        7 => cosh(x),
        8 => tanh(x),
        9 => asinh(x),
        10 => acosh(x),
        11 => atanh(x),
        12 => exp(x),
        13 => exp2(x),
        14 => exp10(x),
        15 => expm1(x),
        16 => log(x),
        17 => log2(x),
        18 => log10(x),
        19 => log1p(x),
        20 => sqrt(x),
        21 => rsqrt(x),
        22 => cbrt(x),
        23 => erf(x),
        24 => erfc(x),
        25 => lgamma(x),
        26 => tgamma(x),
        27 => fabs(x),
        28 => floor(x),
        29 => ceil(x),
        30 => round(x),
        _ => trunc(x),
    }
}

#[inline(always)]
fn f64_2(op: u32, x: f64, y: f64) -> f64 {
    match op {
        0 => atan2(x, y),
        1 => pow(x, y),
        2 => hypot(x, y),
        3 => fmin(x, y),
        4 => fmax(x, y),
        5 => fmod(x, y),
        6 => remainder(x, y),
        _ => copysign(x, y),
    }
}

/// `out[i] = f(bits(base + i))` for one-argument f32 function `op`: every input of a range,
/// with no input array (p16 sweeps all 2^32 in chunks).
#[kernel]
pub fn ld_f32_1(op: u32, base: u32, out: &mut [u32]) {
    let i = (block_idx().x as usize) * (block_dim().x as usize) + thread_idx().x as usize;
    if i < out.len() {
        out[i] = f32_1(op, f32::from_bits(base.wrapping_add(i as u32))).to_bits();
    }
}

/// `out[i] = f(a[i], b[i])` for two-argument f32 function `op`.
#[kernel]
pub fn ld_f32_2(op: u32, a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = (block_idx().x as usize) * (block_dim().x as usize) + thread_idx().x as usize;
    if i < out.len() {
        out[i] = f32_2(op, f32::from_bits(a[i]), f32::from_bits(b[i])).to_bits();
    }
}

/// `out[i] = f(a[i])` for one-argument f64 function `op`.
#[kernel]
pub fn ld_f64_1(op: u32, a: &[u64], out: &mut [u64]) {
    let i = (block_idx().x as usize) * (block_dim().x as usize) + thread_idx().x as usize;
    if i < out.len() {
        out[i] = f64_1(op, f64::from_bits(a[i])).to_bits();
    }
}

/// `out[i] = f(a[i], b[i])` for two-argument f64 function `op`.
#[kernel]
pub fn ld_f64_2(op: u32, a: &[u64], b: &[u64], out: &mut [u64]) {
    let i = (block_idx().x as usize) * (block_dim().x as usize) + thread_idx().x as usize;
    if i < out.len() {
        out[i] = f64_2(op, f64::from_bits(a[i]), f64::from_bits(b[i])).to_bits();
    }
}

/// Per-thread `device_malloc` scratch on the GPU (issue 30, item 6): each thread fills `k`
/// elements, sums them, frees them; `out[i]` is the sum, or `u32::MAX` when malloc failed.
#[kernel]
pub fn heap_sums(k: u32, out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        match device_malloc::<u32>(k as usize) {
            Some(p) => {
                let v: GlobalMut<u32> = p.view();
                let mut j = 0;
                while j < k {
                    v[j] = (i as u32).wrapping_mul(j + 1);
                    j += 1;
                }
                let mut s = 0u32;
                j = 0;
                while j < k {
                    s = s.wrapping_add(v[j]);
                    j += 1;
                }
                device_free(p);
                out[i] = s;
            }
            None => out[i] = u32::MAX,
        }
    }
}

/// `exp` through `std` (`f64::exp`): left out of this file's PTX, so its GPU launch fails with
/// 801 and the build warning's words (issue 30, item 13).
#[kernel]
pub fn std_exp(x: &mut [f64]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        x[i] = x[i].exp();
    }
}

/// splitmix64.
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Input `k` of a set: a third random bit patterns, the rest uniform in [-100, 100).
fn input(seed: u64, k: u64) -> f64 {
    let r = mix(seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    if k % 3 == 0 {
        f64::from_bits(r)
    } else {
        (r >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0
    }
}

/// Runs `ops` functions of one kind on both targets; prints a line per function, returns the
/// number of differing results.
fn compare<T: DeviceCopy + PartialEq + core::fmt::LowerHex>(
    kind: &str,
    ops: &[&str],
    n: usize,
    run: &dyn Fn(u32) -> Result<Vec<T>, deviceemu::Error>,
) -> Result<usize, deviceemu::Error> {
    let mut total = 0;
    for (op, name) in ops.iter().enumerate() {
        let gpu =
            deviceemu::with_config(deviceemu::Config::default().target(deviceemu::Target::Gpu), || run(op as u32))?;
        let emu =
            deviceemu::with_config(
                deviceemu::Config::default().target(deviceemu::Target::Emulator),
                || run(op as u32),
            )?;
        let diffs: Vec<usize> = (0..n).filter(|&k| gpu[k] != emu[k]).collect();
        total += diffs.len();
        println!("{kind} {name:<12} {n:>8} inputs {:>6} differences", diffs.len());
        for &k in diffs.iter().take(3) {
            println!("    input {k}: gpu {:#x} emulator {:#x}", gpu[k], emu[k]);
        }
    }
    Ok(total)
}

fn main() -> Result<(), deviceemu::Error> {
    let n = 1usize << 16;
    let a32: Vec<u32> = (0..n as u64).map(|k| (input(1, k) as f32).to_bits()).collect();
    let b32: Vec<u32> = (0..n as u64).map(|k| (input(2, k) as f32).to_bits()).collect();
    let a64: Vec<u64> = (0..n as u64).map(|k| input(3, k).to_bits()).collect();
    let b64: Vec<u64> = (0..n as u64).map(|k| input(4, k).to_bits()).collect();
    let mut total = 0;
    total += compare("f32", F32_1, n, &|op| {
        let mut out = DeviceBuffer::<u32>::zeroed(n)?;
        // Inputs: the bit patterns from 0x3f000000 (0.5) up, then the random set below.
        launch!(ld_f32_1<<<(n / 256) as u32, 256>>>(op, 0x3f00_0000, &mut out))?;
        out.to_vec()
    })?;
    total += compare("f32", F32_1, n, &|op| {
        let mut out = DeviceBuffer::<u32>::zeroed(n)?;
        launch!(ld_f32_1<<<(n / 256) as u32, 256>>>(op, 0xc2c8_0000, &mut out))?;
        out.to_vec()
    })?;
    total += compare("f32", F32_2, n, &|op| {
        let (a, b) = (DeviceBuffer::from_slice(&a32)?, DeviceBuffer::from_slice(&b32)?);
        let mut out = DeviceBuffer::<u32>::zeroed(n)?;
        launch!(ld_f32_2<<<(n / 256) as u32, 256>>>(op, &a, &b, &mut out))?;
        out.to_vec()
    })?;
    total += compare("f64", F64_1, n, &|op| {
        let a = DeviceBuffer::from_slice(&a64)?;
        let mut out = DeviceBuffer::<u64>::zeroed(n)?;
        launch!(ld_f64_1<<<(n / 256) as u32, 256>>>(op, &a, &mut out))?;
        out.to_vec()
    })?;
    total += compare("f64", F64_2, n, &|op| {
        let (a, b) = (DeviceBuffer::from_slice(&a64)?, DeviceBuffer::from_slice(&b64)?);
        let mut out = DeviceBuffer::<u64>::zeroed(n)?;
        launch!(ld_f64_2<<<(n / 256) as u32, 256>>>(op, &a, &b, &mut out))?;
        out.to_vec()
    })?;
    // The device heap: 64 MiB on the GPU, 1024 threads of 1000 u32 each (4 MB), against the
    // emulator's.
    deviceemu::with_config(deviceemu::Config::default().target(deviceemu::Target::Gpu), || {
        deviceemu::set_malloc_heap_size(64 << 20)
    })?;
    let heap = |target| {
        deviceemu::with_config(deviceemu::Config::default().target(target), || {
            let mut out = DeviceBuffer::<u32>::zeroed(1024)?;
            launch!(heap_sums<<<4, 256>>>(1000, &mut out))?;
            out.to_vec()
        })
    };
    let (g, e) = (heap(deviceemu::Target::Gpu)?, heap(deviceemu::Target::Emulator)?);
    let heap_diffs = g.iter().zip(&e).filter(|(a, b)| a != b).count();
    println!(
        "heap_sums: {heap_diffs} differences in 1024 sums (gpu out[5] = {}, {} malloc failures on the GPU)",
        g[5],
        g.iter().filter(|&&v| v == u32::MAX).count()
    );
    total += heap_diffs;
    let left_out = deviceemu::with_config(deviceemu::Config::default().target(deviceemu::Target::Gpu), || {
        let mut x = DeviceBuffer::from_slice(&[1.0f64])?;
        launch!(std_exp<<<1, 1>>>(&mut x))
    });
    match left_out {
        Err(e) => println!("std_exp on the GPU: error {}: {e}", e.code()),
        Ok(()) => println!("std_exp on the GPU: launched (it should have been left out)"),
    }
    println!("math_gpu: {total} differences between the GPU and the emulator");
    if total > 0 {
        std::process::exit(1);
    }
    Ok(())
}
