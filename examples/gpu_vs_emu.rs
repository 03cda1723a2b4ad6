//! Runs the example kernels on the GPU and in the emulator with the same inputs and compares
//! the results bit for bit (NaN compared as a class for plain arithmetic). Atomics are compared
//! through a kernel whose results do not depend on the order threads run in (`atomics_mix`), and
//! ordered and volatile loads and stores through a chained scan across blocks (`chained_scan`),
//! and the memory API (constant memory, device globals, slices, casts) through
//! `memory_api/kernels.rs`.
//!
//! `cargo run --release --example gpu_vs_emu --features gpu` (needs an NVIDIA GPU).

#[path = "fp_sweep/kernels.rs"]
mod fp_sweep;
#[path = "fp_sweep/math.rs"]
mod math_sweep;
#[path = "histogram.rs"]
#[allow(dead_code)]
mod histogram_example;
#[path = "memory_api/kernels.rs"]
mod memory_api;
#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul_example;
#[path = "reduction.rs"]
#[allow(dead_code)]
mod reduction_example;
#[path = "saxpy.rs"]
#[allow(dead_code)]
mod saxpy_example;
#[path = "warps.rs"]
#[allow(dead_code)]
mod warps_example;
#[path = "textures.rs"]
#[allow(dead_code)]
mod textures_example;

use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use deviceemu::prelude::*;
use deviceemu::{Config, Error, Target};

/// A double-buffered 1-D stencil in shared memory: `steps` smoothing passes over one block.
#[kernel]
pub fn stencil(steps: u32, input: &[f32], output: &mut [f32]) {
    let a = shared_array![f32; 258];
    let b = shared_array![f32; 258];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * n;
    a[t + 1] = input[base + t];
    if t == 0 {
        a[0] = 0.0;
        a[n + 1] = 0.0;
        b[0] = 0.0;
        b[n + 1] = 0.0;
    }
    sync_threads();
    let mut step = 0;
    while step < steps {
        let (src, dst) = if step % 2 == 0 { (a, b) } else { (b, a) };
        dst[t + 1] = 0.25 * src[t] + 0.5 * src[t + 1] + 0.25 * src[t + 2];
        sync_threads();
        step += 1;
    }
    let last = if steps % 2 == 0 { a } else { b };
    output[base + t] = last[t + 1];
}

/// Spin-waits (independent thread scheduling): in every block, thread 0 spins on a shared flag
/// that thread `setter` sets, and thread 0 of block `b` then waits for block `b - 1`'s
/// published prefix (decoupled look-back) before publishing its own.
#[kernel]
pub fn spin_waits(setter: u32, flags: &mut [u32], out: &mut [u32]) {
    let mut flag = shared_array![u32; 1];
    let t = thread_idx().x;
    let b = block_idx().x as usize;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if t == setter {
        flag.atomic_exch(0, 1000 + t);
    }
    if t == 0 {
        let mut seen = flag.atomic_or(0, 0);
        while seen == 0 {
            seen = flag.atomic_or(0, 0);
        }
        let prefix = if b == 0 {
            0
        } else {
            let mut v = flags.atomic_or(b - 1, 0);
            while v == 0 {
                v = flags.atomic_or(b - 1, 0);
            }
            v
        };
        out[2 * b] = seen;
        out[2 * b + 1] = prefix;
        thread_fence();
        flags.atomic_exch(b, prefix + 1);
    }
}

/// Plain f32 arithmetic on arbitrary bit patterns: `+ - * /`, and `deviceemu::math`'s `sqrtf`, `fmaf`.
#[kernel]
pub fn arith(x: &[u32], y: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let (a, b) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
        let k = i * 6;
        out[k] = (a + b).to_bits();
        out[k + 1] = (a - b).to_bits();
        out[k + 2] = (a * b).to_bits();
        out[k + 3] = (a / b).to_bits();
        out[k + 4] = deviceemu::math::sqrtf(a).to_bits();
        out[k + 5] = deviceemu::math::fmaf(a, b, a).to_bits();
    }
}

/// Every shuffle mode on 64-bit and 32-bit values with lane arguments 0..70 (the low five bits
/// count on the GPU), varied per lane, in full warps; then shuffles under a half-warp mask, and
/// votes. `out` gets `SHUFFLE_OUTPUTS` values per thread.
#[kernel]
pub fn shuffle_sweep(values: &[u64], out: &mut [u64]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let lane = lane_id();
    let v = values[t];
    let base = t * SHUFFLE_OUTPUTS;
    let mut k = 0;
    let mut arg = 0u32;
    while arg < 70 {
        let a = arg.wrapping_add(lane % 3);
        out[base + k] = shfl_sync(FULL_MASK, v, a);
        out[base + k + 1] = shfl_up_sync(FULL_MASK, v, a);
        out[base + k + 2] = shfl_down_sync(FULL_MASK, v, a);
        out[base + k + 3] = shfl_xor_sync(FULL_MASK, v, a) ^ shfl_xor_sync(FULL_MASK, v as u32, a) as u64;
        out[base + k + 4] = shfl_down_sync(FULL_MASK, f32::from_bits(v as u32), a).to_bits() as u64;
        k += 5;
        arg += 1;
    }
    if lane < 16 {
        out[base + k] = shfl_sync(0xffff, v, lane ^ 7) ^ shfl_xor_sync(0xffff, v, (v as u32) & 15);
    }
    let p = v % 3 == 0;
    out[base + k + 1] = ballot_sync(FULL_MASK, p) as u64
        | (all_sync(FULL_MASK, p) as u64) << 32
        | (any_sync(FULL_MASK, p) as u64) << 33
        | (all_sync(FULL_MASK, v != 1) as u64) << 34;
    sync_warp(FULL_MASK);
}

/// Outputs per thread of `shuffle_sweep`.
pub const SHUFFLE_OUTPUTS: usize = 70 * 5 + 2;

/// Votes in warps with missing or exited lanes: lanes from `cut` on return first; the block's
/// last warp is partial when the block size is not a multiple of 32.
#[kernel]
pub fn votes_with_exits(cut: u32, values: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if lane_id() >= cut {
        return;
    }
    let p = values[t] % 5 < 2;
    out[t * 3] = ballot_sync(FULL_MASK, p);
    out[t * 3 + 1] = all_sync(FULL_MASK, p) as u32 | (any_sync(FULL_MASK, p) as u32) << 1;
    out[t * 3 + 2] = shfl_xor_sync(FULL_MASK, values[t], 1) & if (lane_id() ^ 1) < cut { u32::MAX } else { 0 };
}

/// Atomics whose results do not depend on the order threads run in, so that the GPU and the
/// emulator must agree exactly: min/max/and/or/xor reductions, `inc`/`dec` counts (and the sum
/// of the tickets `inc` hands out, a fixed multiset), `sub` on `i64`, `exch` of arbitrary
/// `f32` bits into distinct slots (the old value goes next to it), and one `cas` winner per
/// block (who wins depends on the order, so only that there is one is kept). Float
/// `atomic_add` is left out: its rounding depends on the order.
#[kernel]
pub fn atomics_mix(x: &[u32], acc: &mut [u32], wide: &mut [i64], slots: &mut [f32], per_block: &mut [u32]) {
    let t = thread_idx().x as usize;
    let (b, n) = (block_idx().x as usize, x.len());
    let i = b * block_dim().x as usize + t;
    let s = shared_array![u32; 3];
    if t == 0 {
        s[0] = u32::MAX;
        s[1] = 0;
        s[2] = 0;
    }
    sync_threads();
    let v = x[i];
    s.atomic_min(0, v);
    let ticket = s.atomic_inc(1, 40);
    let won = s.atomic_cas(2, 0, t as u32 + 1) == 0;
    acc.atomic_max(0, v);
    acc.atomic_and(1, v | 0x8421_8421);
    acc.atomic_or(2, v & 0x00ff_ff00);
    acc.atomic_xor(3, v);
    acc.atomic_dec(4, 999);
    acc.atomic_add(5, ticket);
    acc.atomic_add(6, won as u32);
    wide.atomic_min(0, v as i32 as i64 * 3);
    wide.atomic_sub(1, v as i64);
    slots[n + i] = slots.atomic_exch(i, f32::from_bits(v));
    sync_threads();
    if t == 0 {
        per_block[2 * b] = s[0];
        per_block[2 * b + 1] = s[1];
    }
}

/// A chained sum across blocks with ordered and volatile accesses: each block takes a ticket
/// (its place in the chain, in the order blocks start, so that it only ever waits for a block
/// that is running), sums its chunk in shared memory, and its thread 0 spins with acquire
/// loads until the block with the previous ticket has published its inclusive sum
/// (`status[k] = sum << 1 | 1`, a release store), then publishes its own. Every thread then
/// reads the block's exclusive prefix from shared memory (a release store and acquire loads
/// across the barrier) and writes its inclusive scan with a volatile store. The results do not
/// depend on the order blocks run in.
#[kernel]
pub fn chained_scan(x: &[u32], ticket: &mut [u32], status: &mut [u64], scan: &mut [u64]) {
    let s = shared_array![u64; 3];
    let part = shared_array![u32; 256];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if t == 0 {
        s.atomic_store_scoped(0, ticket.atomic_add(0, 1) as u64, Relaxed, Scope::Block);
        s.atomic_store(1, 0, Relaxed);
    }
    sync_threads();
    let k = s.atomic_load_scoped(0, Relaxed, Scope::Block) as usize;
    let v = x[k * n + t];
    part[t] = v;
    s.atomic_add(1, v as u64);
    sync_threads();
    if t == 0 {
        let mut before = 0;
        if k > 0 {
            let mut st = status.atomic_load(k - 1, Acquire);
            while st & 1 == 0 {
                st = status.atomic_load(k - 1, Acquire);
            }
            before = st >> 1;
        }
        status.atomic_store_scoped(k, (before + s.atomic_load(1, Relaxed)) << 1 | 1, Release, Scope::System);
        s.atomic_store(2, before, Release);
    }
    sync_threads();
    let mut own = s.atomic_load(2, Acquire);
    let mut j = 0;
    while j <= t {
        own += part[j] as u64;
        j += 1;
    }
    scan.volatile_store(k * n + t, own);
}

/// `active_mask()` in the two branches of a divergent `if`, after the lanes from 28 on exited.
/// The GPU's answer is whatever lanes run together (converged lanes of each branch in
/// practice); the emulator's is the lanes at the same call site.
#[kernel]
pub fn branch_masks(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    if lane >= 28 {
        return;
    }
    out[t] = if lane < 10 { active_mask() } else { active_mask() | 1 << 31 };
}

/// Reads one element past the end of `x` in thread 0 (to see the GPU's error for a bounds
/// trap).
#[kernel]
pub fn read_past_end(x: &[f32], out: &mut [f32]) {
    if thread_idx().x == 0 {
        out[0] = x[x.len()];
    }
}

fn on<R>(target: Target, f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    deviceemu::with_config(Config::default().target(target), f)
}

/// Runs `f` on both targets and counts differing elements (`same` decides equality).
fn compare<T: Copy + std::fmt::Debug>(
    name: &str,
    f: impl Fn() -> Result<Vec<T>, Error>,
    same: impl Fn(&T, &T) -> bool,
) -> Result<usize, Error> {
    let gpu = on(Target::Gpu, &f)?;
    let emu = on(Target::Emulator, &f)?;
    assert_eq!(gpu.len(), emu.len());
    let diffs: Vec<usize> = (0..gpu.len()).filter(|&i| !same(&gpu[i], &emu[i])).collect();
    println!("{name:<12} {:>10} values  {:>6} differences", gpu.len(), diffs.len());
    for &i in diffs.iter().take(5) {
        println!("    [{i}] gpu {:?} emulator {:?}", gpu[i], emu[i]);
    }
    Ok(diffs.len())
}

/// Deterministic pseudo-random bits (splitmix64).
fn bits(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

fn floats(n: usize, seed: u64) -> Vec<f32> {
    bits(n, seed).into_iter().map(|b| (b >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0).collect()
}

fn f32_bits_equal(a: &f32, b: &f32) -> bool {
    a.to_bits() == b.to_bits()
}

/// The texture rows: `tex1Dfetch` on linear memory, `tex1D` on 1-D arrays and `tex2D` on 2-D
/// arrays and pitched memory, in every addressing mode, filter and normalisation, with 1, 2
/// and 4 channels; coordinates on a 1/16-texel grid, random ones and special values.
/// `compare` for f32 rows, which also writes the GPU's bits to `$GPU_VS_EMU_DUMP/NAME.gpu`
/// (little-endian u32s) when that variable is set; with `$GPU_VS_EMU_REPLAY` set it reads the
/// GPU's results from such a file instead of running the GPU (to check a changed emulator
/// against a recorded run).
fn tcompare(name: &str, f: impl Fn() -> Result<Vec<f32>, Error>, same: impl Fn(&f32, &f32) -> bool) -> Result<usize, Error> {
    let file = |dir: &std::ffi::OsStr| std::path::Path::new(dir).join(format!("{name}.gpu"));
    if let Some(dir) = std::env::var_os("GPU_VS_EMU_REPLAY") {
        let bytes = std::fs::read(file(&dir)).map_err(|e| Error::InvalidValue { message: format!("{name}: {e}") })?;
        let gpu: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_bits(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect();
        let emu = on(Target::Emulator, &f)?;
        assert_eq!(gpu.len(), emu.len(), "{name}: the recorded run has another length");
        let diffs: Vec<usize> = (0..gpu.len()).filter(|&i| !same(&gpu[i], &emu[i])).collect();
        println!("{name:<12} {:>10} values  {:>6} differences (recorded GPU run)", gpu.len(), diffs.len());
        for &i in diffs.iter().take(5) {
            println!("    [{i}] gpu {:?} emulator {:?}", gpu[i], emu[i]);
        }
        return Ok(diffs.len());
    }
    if let Some(dir) = std::env::var_os("GPU_VS_EMU_DUMP") {
        let gpu = on(Target::Gpu, &f)?;
        let bytes: Vec<u8> = gpu.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
        let _ = std::fs::write(file(&dir), bytes);
    }
    compare(name, f, same)
}

/// A row's differences, or 1 (and the error printed) when it failed, so that one failing row
/// does not hide the others.
fn survive(name: &str, r: Result<usize, Error>) -> usize {
    r.unwrap_or_else(|e| {
        println!("{name:<12} FAILED: {e}");
        1
    })
}

fn texture_rows() -> Result<usize, Error> {
    use deviceemu::texture::{AddressMode as A, FilterMode as F};
    use textures_example::*;
    let modes = [A::Wrap, A::Clamp, A::Mirror, A::Border];
    let mut descs = Vec::new();
    for normalized in [false, true] {
        for filter in [F::Point, F::Linear] {
            for m in modes {
                descs.push(TextureDesc::new().address(m).filter(filter).normalized(normalized).border([7.25, -3.5, 0.125, 1000.0]));
            }
            descs.push(TextureDesc::new().address_xy(A::Wrap, A::Border).filter(filter).normalized(normalized).border([-1.5; 4]));
        }
    }
    let specials = [0.0f32, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX, 1e10, -1e10, 1e-30, 0.5, 1.0];
    // Coordinates over [-2n, 3n] (or [-2, 3] normalised): a 1/16 grid, random, special.
    let coords = |n: usize, normalized: bool, seed: u64| -> Vec<f32> {
        let mut v: Vec<f32> = (-32 * n as i32..=48 * n as i32).map(|k| k as f32 / 16.0).collect();
        v.extend(floats(2048, seed).into_iter().map(|r| (r * 2.5 + 0.5) * n as f32));
        if normalized {
            v.iter_mut().for_each(|x| *x /= n as f32);
        }
        v.extend(specials);
        v
    };
    let mut total = 0;
    let lin: Vec<f32> = floats(1000, 40).into_iter().map(|v| v * 100.0).collect();
    total += survive("tex1Dfetch", tcompare(
        "tex1Dfetch",
        || {
            let buf = DeviceBuffer::from_slice(&lin)?;
            let t = TextureObject::linear(&buf, TextureDesc::new())?;
            let mut out = DeviceBuffer::<f32>::zeroed(1100)?;
            launch!(fetch_each<<<5, 256>>>(t.texture(), -50, &mut out))?;
            out.to_vec()
        },
        f32_bits_equal,
    ));
    let t37: Vec<f32> = floats(37, 41).into_iter().map(|v| v * 100.0).collect();
    total += survive("tex1D", tcompare(
        "tex1D",
        || {
            let mut all = Vec::new();
            for d in &descs {
                let xs = coords(37, d.normalized, 42);
                let t = TextureObject::array_1d(&t37, *d)?;
                let xb = DeviceBuffer::from_slice(&xs)?;
                let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                launch!(sample_each_1d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &mut out))?;
                all.extend(out.to_vec()?);
            }
            Ok(all)
        },
        f32_bits_equal,
    ));
    let (w, h) = (9usize, 7usize);
    let t97: Vec<f32> = floats(w * h, 43).into_iter().map(|v| v * 100.0).collect();
    let pairs = |normalized: bool, seed: u64| -> (Vec<f32>, Vec<f32>) {
        let mut xs = coords(w, normalized, seed);
        let mut ys = coords(h, normalized, seed + 1);
        let n = xs.len().min(ys.len());
        xs.truncate(n);
        ys.truncate(n);
        ys.reverse();
        (xs, ys)
    };
    let row_2d = |name: &str, pitched: bool| {
        tcompare(
            name,
            || {
                let mut all = Vec::new();
                let pitch = deviceemu::pitch_for::<f32>(w);
                let mut padded = vec![-999.0f32; pitch * h];
                for j in 0..h {
                    padded[j * pitch..j * pitch + w].copy_from_slice(&t97[j * w..(j + 1) * w]);
                }
                let buf = DeviceBuffer::from_slice(&padded)?;
                for d in &descs {
                    let (xs, ys) = pairs(d.normalized, 44);
                    let t = if pitched { TextureObject::pitch_2d(&buf, w, h, pitch, *d)? } else { TextureObject::array_2d(w, h, &t97, *d)? };
                    let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                    let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                    launch!(sample_each_2d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(out.to_vec()?);
                }
                Ok(all)
            },
            f32_bits_equal,
        )
    };
    total += survive("tex2D", row_2d("tex2D", false));
    total += survive("tex2D_pitch", row_2d("tex2D_pitch", true));
    let t4: Vec<[f32; 4]> = floats(w * h * 4, 45).chunks(4).map(|c| [c[0] * 100.0, c[1], c[2] * 1e-3, c[3] * 1e4]).collect();
    total += survive("tex2D_float4", tcompare(
        "tex2D_float4",
        || {
            let mut all = Vec::new();
            for d in descs.iter().filter(|d| d.filter == F::Linear) {
                let (xs, ys) = pairs(d.normalized, 46);
                let t = TextureObject::array_2d(w, h, &t4, *d)?;
                let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                let mut out = DeviceBuffer::<[f32; 4]>::zeroed(xs.len())?;
                launch!(sample_each_2d_x4<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                all.extend(out.to_vec()?.into_iter().flatten());
            }
            Ok(all)
        },
        f32_bits_equal,
    ));
    let t2: Vec<[f32; 2]> = floats(22, 47).chunks(2).map(|c| [c[0] * 10.0, c[1] * 1e3]).collect();
    total += survive("tex1D_float2", tcompare(
        "tex1D_float2",
        || {
            let mut all = Vec::new();
            for d in &descs {
                let xs = coords(11, d.normalized, 48);
                let t = TextureObject::array_1d(&t2, *d)?;
                let xb = DeviceBuffer::from_slice(&xs)?;
                let mut out = DeviceBuffer::<[f32; 2]>::zeroed(xs.len())?;
                launch!(sample_each_1d_x2<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &mut out))?;
                all.extend(out.to_vec()?.into_iter().flatten());
            }
            Ok(all)
        },
        f32_bits_equal,
    ));
    // Texels of every magnitude: random bit patterns with all exponents (subnormals and
    // zeros of both signs included), bilinear in every mode; then infinities and NaN among
    // them (NaN compared as a class).
    let wide_texels = |specials: bool| -> Vec<f32> {
        bits(w * h, 49)
            .into_iter()
            .enumerate()
            .map(|(k, b)| match (specials, k % 9) {
                (true, 2) => f32::INFINITY,
                (true, 5) => f32::NAN,
                (true, 7) => f32::NEG_INFINITY,
                (_, 4) => f32::from_bits(b & 0x807f_ffff),
                (_, 8) => if b & 1 == 0 { 0.0 } else { -0.0 },
                _ => {
                    let x = f32::from_bits(b);
                    if x.is_finite() { x } else { f32::from_bits(b & 0xbfff_ffff) }
                }
            })
            .collect()
    };
    for (name, specials) in [("tex2D_wide", false), ("tex2D_inf_nan", true)] {
        let texels = wide_texels(specials);
        total += survive(
            name,
            tcompare(
                name,
                || {
                    let mut all = Vec::new();
                    for d in &descs {
                        let (xs, ys) = pairs(d.normalized, 50);
                        let t = TextureObject::array_2d(w, h, &texels, *d)?;
                        let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                        let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                        launch!(sample_each_2d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                        all.extend(out.to_vec()?);
                    }
                    Ok(all)
                },
                |p, q| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
            ),
        );
    }
    Ok(total)
}

fn main() -> Result<(), Error> {
    // `gpu_vs_emu textures`: the texture rows alone (also without a GPU, replaying a recorded
    // run with GPU_VS_EMU_REPLAY=dir).
    let replay = std::env::var_os("GPU_VS_EMU_REPLAY").is_some();
    if !replay && !deviceemu::gpu::available() {
        println!("SKIPPED: no CUDA device or driver here; gpu_vs_emu needs an NVIDIA GPU");
        return Ok(());
    }
    if std::env::var_os("GPU_VS_EMU_MISALIGNED").is_some() {
        return memory_api::misaligned_on_both();
    }
    if std::env::args().nth(1).as_deref() == Some("textures") {
        let total = texture_rows()?;
        println!("TOTAL: {total} differences");
        std::process::exit(if total == 0 { 0 } else { 1 });
    }
    let mut total = 0;
    let n = 1 << 20;
    let x = floats(n, 1);
    let y0 = floats(n, 2);
    total += compare(
        "saxpy",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut yb = DeviceBuffer::from_slice(&y0)?;
            launch!(saxpy_example::saxpy<<<(n as u32).div_ceil(256), 256>>>(1.5, &xb, &mut yb))?;
            yb.to_vec()
        },
        f32_bits_equal,
    )?;
    total += compare(
        "block_sum",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
            launch!(reduction_example::block_sum<<<(n / 256) as u32, 256>>>(&xb, &mut partial))?;
            let mut total = DeviceBuffer::<f32>::zeroed(1)?;
            launch!(reduction_example::final_sum<<<1, 256>>>(&partial, &mut total))?;
            let mut v = partial.to_vec()?;
            v.extend(total.to_vec()?);
            Ok(v)
        },
        f32_bits_equal,
    )?;
    let (m, k, nn) = (300usize, 200usize, 250usize);
    let a = floats(m * k, 3);
    let b = floats(k * nn, 4);
    total += compare(
        "matmul",
        || {
            let ab = DeviceBuffer::from_slice(&a)?;
            let bb = DeviceBuffer::from_slice(&b)?;
            let mut cb = DeviceBuffer::<f32>::zeroed(m * nn)?;
            let grid = ((nn as u32).div_ceil(16), (m as u32).div_ceil(16));
            launch!(matmul_example::matmul<<<grid, (16, 16)>>>(m as u32, k as u32, nn as u32, &ab, &bb, &mut cb))?;
            cb.to_vec()
        },
        f32_bits_equal,
    )?;
    let data: Vec<u8> = bits(n, 5).into_iter().map(|b| (b % 251) as u8).collect();
    total += compare(
        "histogram",
        || {
            let db = DeviceBuffer::from_slice(&data)?;
            let mut hb = DeviceBuffer::<u32>::zeroed(256)?;
            launch!(histogram_example::histogram<<<256, 256>>>(&db, &mut hb))?;
            hb.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "stencil",
        || {
            let xb = DeviceBuffer::from_slice(&x[..256 * 64])?;
            let mut ob = DeviceBuffer::<f32>::zeroed(256 * 64)?;
            launch!(stencil<<<64, 256>>>(7, &xb, &mut ob))?;
            ob.to_vec()
        },
        f32_bits_equal,
    )?;
    let xs = bits(n, 6);
    let ys = bits(n, 7);
    total += compare(
        "arith",
        || {
            let xb = DeviceBuffer::from_slice(&xs)?;
            let yb = DeviceBuffer::from_slice(&ys)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(n * 6)?;
            launch!(arith<<<(n as u32).div_ceil(256), 256>>>(&xb, &yb, &mut ob))?;
            ob.to_vec()
        },
        // NaN as a class: the GPU returns the canonical NaN, x86 keeps payloads.
        |p, q| p == q || (f32::from_bits(*p).is_nan() && f32::from_bits(*q).is_nan()),
    )?;
    total += compare(
        "warp_sum",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
            launch!(warps_example::warp_block_sum<<<(n / 256) as u32, 256>>>(&xb, &mut partial))?;
            partial.to_vec()
        },
        f32_bits_equal,
    )?;
    let ks: Vec<u32> = bits(n, 8).into_iter().map(|b| b % 1000).collect();
    total += compare(
        "warp_scan",
        || {
            let kb = DeviceBuffer::from_slice(&ks)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(n)?;
            launch!(warps_example::warp_block_scan<<<(n / 256) as u32, 256>>>(&kb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "ballot",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut cb = DeviceBuffer::<u32>::zeroed(n / 32)?;
            launch!(warps_example::count_above<<<(n / 256) as u32, 256>>>(0.25, &xb, &mut cb))?;
            cb.to_vec()
        },
        |p, q| p == q,
    )?;
    let wide: Vec<u64> = bits(2 * 64 * 8, 9).chunks(2).map(|c| (c[0] as u64) << 32 | c[1] as u64).collect();
    total += compare(
        "shuffles",
        || {
            let vb = DeviceBuffer::from_slice(&wide)?;
            let mut ob = DeviceBuffer::<u64>::zeroed(wide.len() * SHUFFLE_OUTPUTS)?;
            launch!(shuffle_sweep<<<8, 64>>>(&vb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let small = bits(80, 10);
    total += compare(
        "vote_exits",
        || {
            let mut all = Vec::new();
            for cut in [32u32, 31, 17, 1] {
                let vb = DeviceBuffer::from_slice(&small)?;
                let mut ob = DeviceBuffer::<u32>::zeroed(80 * 3)?;
                launch!(votes_with_exits<<<1, 80>>>(cut, &vb, &mut ob))?;
                all.extend(ob.to_vec()?);
            }
            Ok(all)
        },
        |p, q| p == q,
    )?;
    total += compare(
        "active_mask",
        || {
            let mut ob = DeviceBuffer::<u32>::zeroed(96)?;
            launch!(branch_masks<<<1, 96>>>(&mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let xs_atomic = bits(1 << 16, 8);
    total += compare(
        "atomics",
        || {
            let n = xs_atomic.len();
            let xb = DeviceBuffer::from_slice(&xs_atomic)?;
            let mut acc = DeviceBuffer::from_slice(&[0, u32::MAX, 0, 0, 0, 0, 0])?;
            let mut wide = DeviceBuffer::from_slice(&[i64::MAX, 0])?;
            let mut slots = DeviceBuffer::from_slice(&(0..2 * n).map(|k| k as f32).collect::<Vec<_>>())?;
            let mut per_block = DeviceBuffer::<u32>::zeroed(2 * n / 256)?;
            launch!(atomics_mix<<<(n / 256) as u32, 256>>>(&xb, &mut acc, &mut wide, &mut slots, &mut per_block))?;
            let mut v: Vec<u64> = acc.to_vec()?.into_iter().map(u64::from).collect();
            v.extend(wide.to_vec()?.into_iter().map(|w| w as u64));
            v.extend(per_block.to_vec()?.into_iter().map(u64::from));
            v.extend(slots.to_vec()?.into_iter().map(|f| u64::from(f.to_bits())));
            Ok(v)
        },
        |p, q| p == q,
    )?;
    for setter in [7u32, 200] {
        total += compare(
            &format!("spin_waits{setter}"),
            || {
                let blocks = 4096;
                let mut flags = DeviceBuffer::<u32>::zeroed(blocks)?;
                let mut out = DeviceBuffer::<u32>::zeroed(2 * blocks)?;
                launch!(spin_waits<<<blocks as u32, 256>>>(setter, &mut flags, &mut out))?;
                let mut v = out.to_vec()?;
                v.extend(flags.to_vec()?);
                Ok(v)
            },
            |p, q| p == q,
        )?;
    }
    let xs_chain: Vec<u32> = bits(1 << 16, 11).into_iter().map(|b| b >> 12).collect();
    total += compare(
        "ordered",
        || {
            let n = xs_chain.len();
            let xb = DeviceBuffer::from_slice(&xs_chain)?;
            let mut ticket = DeviceBuffer::<u32>::zeroed(1)?;
            let mut status = DeviceBuffer::<u64>::zeroed(n / 256)?;
            let mut scan = DeviceBuffer::<u64>::zeroed(n)?;
            launch!(chained_scan<<<(n / 256) as u32, 256>>>(&xb, &mut ticket, &mut status, &mut scan))?;
            let mut v = scan.to_vec()?;
            v.extend(status.to_vec()?);
            Ok(v)
        },
        |p, q| p == q,
    )?;
    // The memory API: constant memory, device globals, slices as arguments and partial copies,
    // casts (`examples/memory_api/kernels.rs`).
    let xm = floats(5000, 12);
    let ym = floats(5000, 13);
    let classes = bits(10_000, 14);
    let cast_words = bits(256 * 8, 15);
    let cast_bytes: Vec<u8> = bits(4096, 16).into_iter().map(|b| b as u8).collect();
    total += compare("constant", || memory_api::constant_row(&xm), |p, q| p == q)?;
    total += compare("dev_global", || memory_api::device_global_row(&classes), |p, q| p == q)?;
    total += compare("slices", || memory_api::slices_row(&xm, &ym), |p, q| p == q)?;
    total += compare("casts", || memory_api::casts_row(&cast_words, &cast_bytes), |p, q| p == q)?;
    total += fp_sweep::fp_sweep_run_all(1 << 16)?;
    total += math_sweep::math_sweep_run_all(1 << 16)?;
    total += texture_rows()?;
    println!("TOTAL: {total} differences");
    // Last, since a trap leaves the GPU context unusable (CUDA's errors are sticky).
    let trap = on(Target::Gpu, || {
        let xb = DeviceBuffer::from_slice(&[1.0f32; 4])?;
        let mut ob = DeviceBuffer::<f32>::zeroed(1)?;
        launch!(read_past_end<<<1, 32>>>(&xb, &mut ob))
    });
    match trap {
        Err(e) => println!("out-of-bounds read on the GPU: code {} ({e})", e.code()),
        Ok(()) => println!("out-of-bounds read on the GPU: no error (bounds checks are off?)"),
    }
    if total != 0 {
        std::process::exit(1);
    }
    Ok(())
}
