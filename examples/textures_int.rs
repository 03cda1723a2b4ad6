//! 8- and 16-bit integer textures on the GPU and in the emulator, compared bit for bit (the
//! `gpu_vs_emu` texture rows for the integer formats): texels of `u8`, `i8`, `u16` and `i16`
//! with 1, 2 and 4 channels, read as the element type (`Texture<u8>`, `Texture<[u8; 4]>`, ...;
//! point filtering) and as normalised floats (`TextureObject::*_normalized`, a `Texture<f32>`,
//! `Texture<[f32; 4]>`, ...; point and linear), through `tex1Dfetch`, `tex1D` and `tex2D` on
//! linear memory, 1-D and 2-D arrays and pitched memory, in every addressing mode.
//!
//! `cargo run --release --example textures_int --features gpu` (needs an NVIDIA GPU).
//! `GPU_VS_EMU_DUMP=dir` also writes the GPU's results to `dir/textures_int.gpu`;
//! `GPU_VS_EMU_REPLAY=dir` compares the emulator with such a recorded run instead (no GPU
//! needed, nor the `gpu` feature). Without either and without a GPU it prints one sample read
//! and exits.

#[path = "textures.rs"]
#[allow(dead_code)]
pub mod textures_example;

use deviceemu::prelude::*;
use deviceemu::texture::{AddressMode as A, FilterMode as F};
use deviceemu::{Config, Error, Target};
use textures_example::{fetch_each, sample_each_1d, sample_each_1d_x2, sample_each_2d, sample_each_2d_x4};

/// `out[i] = tex1Dfetch<unsigned char>(t, first + i)`: an element-type read.
#[kernel]
pub fn fetch_u8(t: Texture<u8>, first: i32, out: &mut [u8]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.fetch(first + i as i32);
    }
}

/// `out[i] = tex1Dfetch<signed char>(t, first + i)`.
#[kernel]
pub fn fetch_i8(t: Texture<i8>, first: i32, out: &mut [i8]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.fetch(first + i as i32);
    }
}

/// `out[i] = tex1Dfetch<unsigned short>(t, first + i)`.
#[kernel]
pub fn fetch_u16(t: Texture<u16>, first: i32, out: &mut [u16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.fetch(first + i as i32);
    }
}

/// `out[i] = tex1Dfetch<short>(t, first + i)`.
#[kernel]
pub fn fetch_i16(t: Texture<i16>, first: i32, out: &mut [i16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = tex1d_fetch(t, first + i as i32);
    }
}

/// `out[i] = tex1D<signed char>(t, xs[i])`.
#[kernel]
pub fn sample_1d_i8(t: Texture<i8>, xs: &[f32], out: &mut [i8]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_1d(xs[i]);
    }
}

/// `out[i] = tex1D<unsigned short>(t, xs[i])`.
#[kernel]
pub fn sample_1d_u16(t: Texture<u16>, xs: &[f32], out: &mut [u16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = tex1d(t, xs[i]);
    }
}

/// `out[i] = tex1D<uchar2>(t, xs[i])`.
#[kernel]
pub fn sample_1d_u8x2(t: Texture<[u8; 2]>, xs: &[f32], out: &mut [[u8; 2]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_1d(xs[i]);
    }
}

/// `out[i] = tex2D<uchar4>(t, xs[i], ys[i])`: an RGBA texel as it is stored.
#[kernel]
pub fn sample_2d_u8x4(t: Texture<[u8; 4]>, xs: &[f32], ys: &[f32], out: &mut [[u8; 4]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_2d(xs[i], ys[i]);
    }
}

/// `out[i] = tex2D<short2>(t, xs[i], ys[i])`.
#[kernel]
pub fn sample_2d_i16x2(t: Texture<[i16; 2]>, xs: &[f32], ys: &[f32], out: &mut [[i16; 2]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = tex2d(t, xs[i], ys[i]);
    }
}

/// `out[i] = tex2D<ushort4>(t, xs[i], ys[i])`.
#[kernel]
pub fn sample_2d_u16x4(t: Texture<[u16; 4]>, xs: &[f32], ys: &[f32], out: &mut [[u16; 4]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_2d(xs[i], ys[i]);
    }
}

/// `out[i] = tex2D<char4>(t, xs[i], ys[i])`.
#[kernel]
pub fn sample_2d_i8x4(t: Texture<[i8; 4]>, xs: &[f32], ys: &[f32], out: &mut [[i8; 4]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_2d(xs[i], ys[i]);
    }
}

/// `out[i] = tex1D<float4>(t, xs[i])`.
#[kernel]
pub fn sample_1d_f32x4(t: Texture<[f32; 4]>, xs: &[f32], out: &mut [[f32; 4]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_1d(xs[i]);
    }
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

/// Floats in `[-1, 1)`.
fn floats(n: usize, seed: u64) -> Vec<f32> {
    bits(n, seed).into_iter().map(|b| (b >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0).collect()
}

fn on<R>(target: Target, f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    deviceemu::with_config(Config::default().target(target), f)
}

/// The recorded GPU run of `GPU_VS_EMU_REPLAY`: `(name, values)` per row.
fn recorded(dir: &std::ffi::OsStr) -> Result<Vec<(String, Vec<u32>)>, Error> {
    let path = std::path::Path::new(dir).join("textures_int.gpu");
    let b = std::fs::read(&path).map_err(|e| Error::InvalidValue { message: format!("{}: {e}", path.display()) })?;
    let (mut at, mut rows) = (0, Vec::new());
    let u32_at = |at: &mut usize| {
        let v = u32::from_le_bytes(b[*at..*at + 4].try_into().unwrap());
        *at += 4;
        v
    };
    while at < b.len() {
        let len = u32_at(&mut at) as usize;
        let name = String::from_utf8_lossy(&b[at..at + len]).into_owned();
        at += len;
        let n = u32_at(&mut at) as usize;
        let values = (0..n).map(|_| u32_at(&mut at)).collect();
        rows.push((name, values));
    }
    Ok(rows)
}

/// Runs `f` on the GPU and in the emulator (or replays the GPU's recorded values) and counts
/// the differing 32-bit values; `same` compares two values (bits, or NaN as a class).
fn compare(
    name: &str,
    f: impl Fn() -> Result<Vec<u32>, Error>,
    same: impl Fn(u32, u32) -> bool,
) -> Result<usize, Error> {
    let gpu = if let Some(dir) = std::env::var_os("GPU_VS_EMU_REPLAY") {
        let rows = recorded(&dir)?;
        let row = rows.into_iter().find(|(n, _)| n == name);
        row.ok_or_else(|| Error::InvalidValue { message: format!("{name}: not in the recorded run") })?.1
    } else {
        let gpu = on(Target::Gpu, &f)?;
        if let Some(dir) = std::env::var_os("GPU_VS_EMU_DUMP") {
            use std::io::Write;
            let path = std::path::Path::new(&dir).join("textures_int.gpu");
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| Error::InvalidValue { message: e.to_string() })?;
            let mut bytes = Vec::new();
            bytes.extend((name.len() as u32).to_le_bytes());
            bytes.extend(name.as_bytes());
            bytes.extend((gpu.len() as u32).to_le_bytes());
            bytes.extend(gpu.iter().flat_map(|v| v.to_le_bytes()));
            file.write_all(&bytes).map_err(|e| Error::InvalidValue { message: e.to_string() })?;
        }
        gpu
    };
    let emu = on(Target::Emulator, &f)?;
    assert_eq!(gpu.len(), emu.len(), "{name}: the GPU and the emulator gave different lengths");
    let diffs: Vec<usize> = (0..gpu.len()).filter(|&i| !same(gpu[i], emu[i])).collect();
    println!("{name:<16} {:>8} values  {:>6} differences", gpu.len(), diffs.len());
    for &i in diffs.iter().take(6) {
        println!(
            "    [{i}] gpu {:#010x} ({}) emulator {:#010x} ({})",
            gpu[i],
            f32::from_bits(gpu[i]),
            emu[i],
            f32::from_bits(emu[i])
        );
    }
    Ok(diffs.len())
}

/// A row's differences, or 1 (and the error printed) when it failed.
fn survive(name: &str, r: Result<usize, Error>) -> usize {
    r.unwrap_or_else(|e| {
        println!("{name:<16} FAILED: {e}");
        1
    })
}

fn bits_equal(a: u32, b: u32) -> bool {
    a == b
}

fn float_bits_or_nan(a: u32, b: u32) -> bool {
    a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}

fn f32_bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

/// The descriptors: every mode, filter and normalisation (a mixed pair too), or only the point
/// ones (element-type reads of integers allow no linear filtering).
fn descs(point_only: bool) -> Vec<TextureDesc> {
    let mut v = Vec::new();
    for normalized in [false, true] {
        for filter in [F::Point, F::Linear] {
            if point_only && filter == F::Linear {
                continue;
            }
            for m in [A::Wrap, A::Clamp, A::Mirror, A::Border] {
                v.push(
                    TextureDesc::new()
                        .address(m)
                        .filter(filter)
                        .normalized(normalized)
                        .border([0.25, -0.625, 7.25, 1000.0]),
                );
            }
            v.push(
                TextureDesc::new()
                    .address_xy(A::Wrap, A::Border)
                    .filter(filter)
                    .normalized(normalized)
                    .border([-1.5, 2.0, 0.5, 255.0]),
            );
        }
    }
    v
}

/// Coordinates over `[-2n, 3n]` (or `[-2, 3]` normalised): a 1/8 grid, random, special.
fn coords(n: usize, normalized: bool, seed: u64) -> Vec<f32> {
    let specials = [0.0f32, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -1e10, 1e-30, 0.5, 1.0];
    let mut v: Vec<f32> = (-16 * n as i32..=24 * n as i32).map(|k| k as f32 / 8.0).collect();
    v.extend(floats(512, seed).into_iter().map(|r| (r * 2.5 + 0.5) * n as f32));
    if normalized {
        v.iter_mut().for_each(|x| *x /= n as f32);
    }
    v.extend(specials);
    v
}

/// Coordinate pairs for a `w × h` texture.
fn pairs(w: usize, h: usize, normalized: bool, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut xs = coords(w, normalized, seed);
    let mut ys = coords(h, normalized, seed + 1);
    let n = xs.len().min(ys.len());
    xs.truncate(n);
    ys.truncate(n);
    ys.reverse();
    (xs, ys)
}

fn grid(n: usize) -> u32 {
    (n as u32).div_ceil(256)
}

/// Every row; the total number of differences.
pub fn rows() -> Result<usize, Error> {
    let mut total = 0;
    // Every 8-bit value and every 16-bit value through tex1Dfetch, read as floats and as
    // integers; indices past both ends read 0.
    let u8s: Vec<u8> = (0..=255).collect();
    let i8s: Vec<i8> = (-128..=127).collect();
    let u16s: Vec<u16> = (0..=65535).collect();
    let i16s: Vec<i16> = (-32768..=32767).collect();
    total += survive(
        "fetch_norm",
        compare(
            "fetch_norm",
            || {
                let mut all = Vec::new();
                macro_rules! norm {
            ($v:expr) => {{
                let buf = DeviceBuffer::from_slice(&$v)?;
                let t = TextureObject::linear_normalized(&buf, TextureDesc::new())?;
                let mut out = DeviceBuffer::<f32>::zeroed($v.len() + 8)?;
                launch!(fetch_each<<<grid($v.len() + 8), 256>>>(t.texture(), -4, &mut out))?;
                all.extend(f32_bits(out.to_vec()?));
            }};
        }
                norm!(u8s);
                norm!(i8s);
                norm!(u16s);
                norm!(i16s);
                Ok(all)
            },
            bits_equal,
        ),
    );
    total += survive(
        "fetch_elem",
        compare(
            "fetch_elem",
            || {
                let mut all = Vec::new();
                macro_rules! elem {
            ($v:expr, $k:ident, $t:ty) => {{
                let buf = DeviceBuffer::from_slice(&$v)?;
                let t = TextureObject::linear(&buf, TextureDesc::new())?;
                let mut out = DeviceBuffer::<$t>::zeroed($v.len() + 8)?;
                launch!($k<<<grid($v.len() + 8), 256>>>(t.texture(), -4, &mut out))?;
                all.extend(out.to_vec()?.into_iter().map(|v| v as u32));
            }};
        }
                elem!(u8s, fetch_u8, u8);
                elem!(i8s, fetch_i8, i8);
                elem!(u16s, fetch_u16, u16);
                elem!(i16s, fetch_i16, i16);
                Ok(all)
            },
            bits_equal,
        ),
    );

    // 1-D arrays of 37 random texels of each format: normalised reads in every mode, filter
    // and normalisation; element-type reads (i8, u16, u8x2) with point filtering.
    let b37 = bits(37 * 2, 60);
    let (a_u8, a_i8): (Vec<u8>, Vec<i8>) =
        (b37.iter().map(|b| *b as u8).collect(), b37.iter().map(|b| (*b >> 8) as i8).collect());
    let (a_u16, a_i16): (Vec<u16>, Vec<i16>) =
        (b37.iter().map(|b| (*b >> 4) as u16).collect(), b37.iter().map(|b| (*b >> 16) as i16).collect());
    let (a_u8, a_i8, a_u16, a_i16) = (&a_u8[..37], &a_i8[..37], &a_u16[..37], &a_i16[..37]);
    total += survive(
        "tex1D_norm",
        compare(
            "tex1D_norm",
            || {
                let mut all = Vec::new();
                for d in descs(false) {
                    let xs = coords(37, d.normalized, 61);
                    let xb = DeviceBuffer::from_slice(&xs)?;
                    macro_rules! one {
                ($v:expr) => {{
                    let t = TextureObject::array_1d_normalized($v, d)?;
                    let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                    launch!(sample_each_1d<<<grid(xs.len()), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?));
                }};
            }
                    one!(a_u8);
                    one!(a_i8);
                    one!(a_u16);
                    one!(a_i16);
                    let x2: Vec<[u8; 2]> = b37.chunks(2).map(|c| [c[0] as u8, c[1] as u8]).collect();
                    let t = TextureObject::array_1d_normalized(&x2, d)?;
                    let mut out = DeviceBuffer::<[f32; 2]>::zeroed(xs.len())?;
                    launch!(sample_each_1d_x2<<<grid(xs.len()), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                }
                Ok(all)
            },
            float_bits_or_nan,
        ),
    );
    total += survive(
        "tex1D_elem",
        compare(
            "tex1D_elem",
            || {
                let mut all = Vec::new();
                for d in descs(true) {
                    let xs = coords(37, d.normalized, 62);
                    let xb = DeviceBuffer::from_slice(&xs)?;
                    let t = TextureObject::array_1d(a_i8, d)?;
                    let mut out = DeviceBuffer::<i8>::zeroed(xs.len())?;
                    launch!(sample_1d_i8<<<grid(xs.len()), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().map(|v| v as u32));
                    let t = TextureObject::array_1d(a_u16, d)?;
                    let mut out = DeviceBuffer::<u16>::zeroed(xs.len())?;
                    launch!(sample_1d_u16<<<grid(xs.len()), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().map(|v| v as u32));
                    let x2: Vec<[u8; 2]> = b37.chunks(2).map(|c| [c[0] as u8, (c[1] >> 8) as u8]).collect();
                    let t = TextureObject::array_1d(&x2, d)?;
                    let mut out = DeviceBuffer::<[u8; 2]>::zeroed(xs.len())?;
                    launch!(sample_1d_u8x2<<<grid(xs.len()), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().flatten().map(|v| v as u32));
                }
                Ok(all)
            },
            bits_equal,
        ),
    );

    // 2-D: an RGBA u8 image 9 x 7 (array and pitched memory), i16 pairs, u16 and i8 quads.
    let (w, h) = (9usize, 7usize);
    let b2 = bits(w * h, 63);
    let rgba: Vec<[u8; 4]> = b2.iter().map(|b| b.to_le_bytes()).collect();
    let i16x2: Vec<[i16; 2]> = b2.iter().map(|b| [*b as i16, (*b >> 16) as i16]).collect();
    let b3 = bits(w * h * 2, 64);
    let u16x4: Vec<[u16; 4]> =
        b3.chunks(2).map(|c| [c[0] as u16, (c[0] >> 16) as u16, c[1] as u16, (c[1] >> 16) as u16]).collect();
    let i8x4: Vec<[i8; 4]> = b3.chunks(2).map(|c| c[1].to_le_bytes().map(|b| b as i8)).collect();
    let pitch = deviceemu::pitch_for::<[u8; 4]>(w);
    let mut padded = vec![[0xa5u8; 4]; pitch * h];
    for j in 0..h {
        padded[j * pitch..j * pitch + w].copy_from_slice(&rgba[j * w..(j + 1) * w]);
    }
    total += survive(
        "tex2D_norm",
        compare(
            "tex2D_norm",
            || {
                let mut all = Vec::new();
                let pbuf = DeviceBuffer::from_slice(&padded)?;
                for d in descs(false) {
                    let (xs, ys) = pairs(w, h, d.normalized, 65);
                    let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                    let mut out = DeviceBuffer::<[f32; 4]>::zeroed(xs.len())?;
                    let t = TextureObject::array_2d_normalized(w, h, &rgba, d)?;
                    launch!(sample_each_2d_x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                    let t = TextureObject::pitch_2d_normalized(&pbuf, w, h, pitch, d)?;
                    launch!(sample_each_2d_x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                    let t = TextureObject::array_2d_normalized(w, h, &u16x4, d)?;
                    launch!(sample_each_2d_x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                    let t = TextureObject::array_2d_normalized(w, h, &i8x4, d)?;
                    launch!(sample_each_2d_x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                    // One channel of the i16 pairs, through a Texture<f32> on i16 texels.
                    let plane: Vec<i16> = i16x2.iter().map(|p| p[0]).collect();
                    let t = TextureObject::array_2d_normalized(w, h, &plane, d)?;
                    let mut one = DeviceBuffer::<f32>::zeroed(xs.len())?;
                    launch!(sample_each_2d<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut one))?;
                    all.extend(f32_bits(one.to_vec()?));
                }
                Ok(all)
            },
            float_bits_or_nan,
        ),
    );
    total += survive(
        "tex2D_elem",
        compare(
            "tex2D_elem",
            || {
                let mut all = Vec::new();
                let pbuf = DeviceBuffer::from_slice(&padded)?;
                for d in descs(true) {
                    let (xs, ys) = pairs(w, h, d.normalized, 66);
                    let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                    let mut out = DeviceBuffer::<[u8; 4]>::zeroed(xs.len())?;
                    let t = TextureObject::array_2d(w, h, &rgba, d)?;
                    launch!(sample_2d_u8x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().flatten().map(|v| v as u32));
                    let t = TextureObject::pitch_2d(&pbuf, w, h, pitch, d)?;
                    launch!(sample_2d_u8x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().flatten().map(|v| v as u32));
                    let t = TextureObject::array_2d(w, h, &i16x2, d)?;
                    let mut o2 = DeviceBuffer::<[i16; 2]>::zeroed(xs.len())?;
                    launch!(sample_2d_i16x2<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut o2))?;
                    all.extend(o2.to_vec()?.into_iter().flatten().map(|v| v as u32));
                    let t = TextureObject::array_2d(w, h, &u16x4, d)?;
                    let mut o4 = DeviceBuffer::<[u16; 4]>::zeroed(xs.len())?;
                    launch!(sample_2d_u16x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut o4))?;
                    all.extend(o4.to_vec()?.into_iter().flatten().map(|v| v as u32));
                    let t = TextureObject::array_2d(w, h, &i8x4, d)?;
                    let mut o8 = DeviceBuffer::<[i8; 4]>::zeroed(xs.len())?;
                    launch!(sample_2d_i8x4<<<grid(xs.len()), 256>>>(t.texture(), &xb, &yb, &mut o8))?;
                    all.extend(o8.to_vec()?.into_iter().flatten().map(|v| v as u32));
                }
                Ok(all)
            },
            bits_equal,
        ),
    );
    // Border colours out of the formats' ranges (negative, above 1, huge, NaN, -0), both reads.
    let borders = [
        [-1.5f32, 2.0, 255.0, 65535.0],
        [-128.0, 0.999, 1e9, -3e9],
        [f32::NAN, -0.0, 0.5, 128.0],
        [300.0, -200.0, 70000.0, -40000.0],
    ];
    total += survive(
        "border",
        compare(
            "border",
            || {
                let mut all = Vec::new();
                let xs: Vec<f32> = (0..117).map(|k| (k % 13) as f32 * 0.5 - 2.0).collect();
                let ys: Vec<f32> = (0..117).map(|k| (k / 13) as f32 * 0.5 - 1.5).collect();
                let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                for b in borders {
                    for filter in [F::Point, F::Linear] {
                        let d = TextureDesc::new().address(A::Border).filter(filter).border(b);
                        let mut out = DeviceBuffer::<[f32; 4]>::zeroed(xs.len())?;
                        let t = TextureObject::array_2d_normalized(w, h, &rgba, d)?;
                        launch!(sample_each_2d_x4<<<1, 128>>>(t.texture(), &xb, &yb, &mut out))?;
                        all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                        let t = TextureObject::array_2d_normalized(w, h, &i8x4, d)?;
                        launch!(sample_each_2d_x4<<<1, 128>>>(t.texture(), &xb, &yb, &mut out))?;
                        all.extend(f32_bits(out.to_vec()?.into_iter().flatten().collect()));
                        if filter == F::Point {
                            let mut o = DeviceBuffer::<[u8; 4]>::zeroed(xs.len())?;
                            let t = TextureObject::array_2d(w, h, &rgba, d)?;
                            launch!(sample_2d_u8x4<<<1, 128>>>(t.texture(), &xb, &yb, &mut o))?;
                            all.extend(o.to_vec()?.into_iter().flatten().map(|v| v as u32));
                            let mut o = DeviceBuffer::<[i8; 4]>::zeroed(xs.len())?;
                            let t = TextureObject::array_2d(w, h, &i8x4, d)?;
                            launch!(sample_2d_i8x4<<<1, 128>>>(t.texture(), &xb, &yb, &mut o))?;
                            all.extend(o.to_vec()?.into_iter().flatten().map(|v| v as u32));
                            let mut o = DeviceBuffer::<[u16; 4]>::zeroed(xs.len())?;
                            let t = TextureObject::array_2d(w, h, &u16x4, d)?;
                            launch!(sample_2d_u16x4<<<1, 128>>>(t.texture(), &xb, &yb, &mut o))?;
                            all.extend(o.to_vec()?.into_iter().flatten().map(|v| v as u32));
                        }
                    }
                }
                Ok(all)
            },
            float_bits_or_nan,
        ),
    );
    Ok(total)
}

fn gpu_here() -> bool {
    #[cfg(feature = "gpu")]
    {
        deviceemu::gpu::available()
    }
    #[cfg(not(feature = "gpu"))]
    {
        false
    }
}

fn main() -> Result<(), Error> {
    if std::env::var_os("GPU_VS_EMU_REPLAY").is_none() && !gpu_here() {
        // No GPU: one read of an RGBA image as normalised floats, in the emulator.
        let image = [[255u8, 0, 128, 255], [0, 255, 64, 0]];
        let d = TextureDesc::new().filter(FilterMode::Linear);
        let t = TextureObject::array_1d_normalized(&image, d)?;
        let xs = DeviceBuffer::from_slice(&[0.5f32, 1.0, 1.5])?;
        let mut out = DeviceBuffer::<[f32; 4]>::zeroed(3)?;
        launch!(sample_1d_f32x4<<<1, 32>>>(t.texture(), &xs, &mut out))?;
        println!("RGBA u8 texels [255, 0, 128, 255] and [0, 255, 64, 0], tex1D at 0.5, 1.0, 1.5: {:?}", out.to_vec()?);
        println!("SKIPPED: no CUDA device here (or no `gpu` feature); the GPU comparison needs an NVIDIA GPU");
        return Ok(());
    }
    let total = rows()?;
    println!("TOTAL: {total} differences");
    std::process::exit(if total == 0 { 0 } else { 1 });
}
