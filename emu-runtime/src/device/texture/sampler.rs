//! The texture unit's arithmetic, as a pure function of the texels, the descriptor and the
//! coordinates: what the emulator's `tex1Dfetch`/`tex1D`/`tex2D` return, and the reference the
//! H200 oracle (`tests/it/memory/tex_oracle.rs`, probe `tools/probes/p10_textures.cu`) checks bit for
//! bit.
//!
//! The model follows the CUDA C++ Programming Guide's appendix "Texture Fetching", with what
//! the guide leaves open measured on an H200 (README, "Textures"; 229 338 probe samples and the
//! `gpu_vs_emu` texture rows, 0 differences):
//!
//! 1. **Coordinates** (`to_fixed`) become fixed point with 21 fractional bits, rounded down;
//!    a normalised coordinate is truncated to 21 bits *before* it is scaled by the size `N`
//!    (exactly, in integers). Subnormal coordinates read as 0; NaN reads as 0; huge ones
//!    saturate.
//! 2. **Point filtering** reads texel `floor(x)`.
//! 3. **Linear filtering** rounds `x - 0.5` to 8 fractional bits, ties upwards: its integer
//!    part `i` and the weight `alpha` in 1/256 (the guide's 9-bit 1.8 fixed point). Texels `i`
//!    and `i + 1` (and rows `j`, `j + 1`) are blended with weights derived from the rounded
//!    `alpha * beta` (`weights`), which sum to 256.
//! 4. **The blend** (`blend`) aligns the texels of non-zero weight to the largest one's
//!    exponent with 28 significant bits (truncating toward zero), sums exactly, and rounds to
//!    f32 once, ties away from zero; subnormal texels and results flush to zero.
//! 5. **Addressing** applies to texel indices: clamp to `[0, N - 1]`; wrap modulo `N`; mirror
//!    with period `2N`; border: an index outside `[0, N)` reads the border colour. Wrap and
//!    mirror need normalised coordinates (as CUDA says); with unnormalised ones they clamp.
//! 6. **1-D arrays** are 2-D arrays of height 1 sampled at `y = 0`: linear filtering blends
//!    rows -1 and 0 half and half, and row -1 is the border colour in border mode (y).
//! 7. **`tex1Dfetch`** on linear memory has no addressing and no filtering: an index outside
//!    the buffer reads zero.
//!
//! **8- and 16-bit integer texels** (probe `tools/probes/p12_tex_int.cu`, oracle
//! `tests/it/memory/tex_int_oracle.rs`; RESULTS.md section 12) are addressed the same way. Read as the
//! element type they give the integer ([`element_lane`]; the border colour is the low bits of
//! its f32 pattern, [`element_border`]). Read as normalised floats
//! ([`sample_2d_normalized`] and the others): point filtering converts the texel exactly
//! ([`normalized`]), the border colour is first made a texel of the format
//! ([`normalized_border`]), and linear filtering blends the integers in 16 bits
//! (`filter_integer`), not the floats: bit for bit with the H200 for u8, u16 and i16; i8 within
//! one unit of `1/32767`.

use super::{AddressMode, FilterMode, Format, TextureDesc};

/// Texels as the sampler sees them: `channels` f32 values per texel, rows of `pitch` texels
/// (`height` 1 for a 1-D texture).
#[derive(Clone, Copy, Debug)]
pub struct Texels<'a> {
    /// The texel values, channel-interleaved, row after row.
    pub data: &'a [f32],
    /// Channels per texel: 1, 2 or 4.
    pub channels: usize,
    /// Texels per row.
    pub width: usize,
    /// Rows (1 for a 1-D texture).
    pub height: usize,
    /// Texels from the start of one row to the start of the next (at least `width`).
    pub pitch: usize,
}

impl Texels<'_> {
    /// Texel `(i, j)` widened to four channels (missing ones read 0), or the border colour.
    fn texel(&self, i: Option<usize>, j: Option<usize>, border: &[f32; 4]) -> [f32; 4] {
        let (Some(i), Some(j)) = (i, j) else { return *border };
        let at = (j * self.pitch + i) * self.channels;
        // By channel count, so that each copy is a fixed-size one (not a `memcpy` call).
        match self.channels {
            1 => [self.data[at], 0.0, 0.0, 0.0],
            2 => {
                let d = &self.data[at..at + 2];
                [d[0], d[1], 0.0, 0.0]
            }
            _ => {
                let mut out = [0.0; 4];
                out[..self.channels].copy_from_slice(&self.data[at..at + self.channels]);
                out
            }
        }
    }
}

/// Fractional bits of a coordinate in texel units (the H200 truncates to 21).
const COORD_BITS: u32 = 21;
/// Fractional bits of the filter weights.
const WEIGHT_BITS: u32 = 8;
const ONE: i64 = 1 << WEIGHT_BITS;

/// A coordinate in texel units, in fixed point with [`COORD_BITS`] fractional bits: a
/// subnormal coordinate reads as 0, an unnormalised one is rounded down, a normalised one is
/// rounded down to 21 fractional bits *before* it is scaled by the size `n` (so
/// `(1/13) * 13` in f32, slightly above 1, still lands in texel 0). Saturates; NaN reads as 0.
fn to_fixed(c: f32, n: usize, normalized: bool) -> i64 {
    let c = if c.is_subnormal() { 0.0 } else { c };
    // `as` saturates and maps NaN to 0; the clamp keeps the arithmetic below in i64.
    let limit = (1i64 << 40) as f64;
    let q = ((c as f64) * (1u64 << COORD_BITS) as f64).floor().clamp(-limit, limit) as i64;
    if normalized {
        q * n as i64
    } else {
        q
    }
}

/// The texel index `i` on an axis of `n` texels under `mode`, or `None` for the border.
fn address(i: i64, n: usize, mode: AddressMode, normalized: bool) -> Option<usize> {
    let n = n as i64;
    let mode = match (mode, normalized) {
        (AddressMode::Wrap | AddressMode::Mirror, false) => AddressMode::Clamp,
        (m, _) => m,
    };
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1) as usize),
        AddressMode::Border => (0..n).contains(&i).then_some(i as usize),
        AddressMode::Wrap => Some(i.rem_euclid(n) as usize),
        AddressMode::Mirror => {
            let j = i.rem_euclid(2 * n);
            Some(if j < n { j } else { 2 * n - 1 - j } as usize)
        }
    }
}

/// Where a coordinate lands on one axis: the (addressed) texels and the weight of the second.
#[derive(Clone, Copy, Debug)]
struct Axis {
    first: Option<usize>,
    second: Option<usize>,
    /// The weight of `second`, in 1/256 (0 for point filtering).
    alpha: i64,
}

fn axis(c: f32, n: usize, mode: AddressMode, desc: &TextureDesc) -> Axis {
    let u = to_fixed(c, n, desc.normalized);
    match desc.filter {
        FilterMode::Point => {
            let t = address(u >> COORD_BITS, n, mode, desc.normalized);
            Axis { first: t, second: t, alpha: 0 }
        }
        FilterMode::Linear => {
            // `u - 0.5` rounded to 8 fractional bits, ties upwards.
            let shift = COORD_BITS - WEIGHT_BITS;
            let b = (u - (1 << (COORD_BITS - 1)) + (1 << (shift - 1))) >> shift;
            let i = b >> WEIGHT_BITS;
            Axis {
                first: address(i, n, mode, desc.normalized),
                second: address(i + 1, n, mode, desc.normalized),
                alpha: b & (ONE - 1),
            }
        }
    }
}

/// The bilinear weights, in 1/256, of texels `(i, j)`, `(i+1, j)`, `(i, j+1)`, `(i+1, j+1)`:
/// `alpha * beta` rounded (ties up) and the others derived from it, so they sum to 256.
fn weights(alpha: i64, beta: i64) -> [i64; 4] {
    let w11 = (alpha * beta + ONE / 2) >> WEIGHT_BITS;
    [ONE - alpha - beta + w11, alpha - w11, beta - w11, w11]
}

/// `sum(w[k] * v[k]) / 256` as the H200's filter computes it: subnormal texels read as zero
/// (of their sign); the texels with a non-zero weight are aligned to the largest one's
/// exponent `e` (`|v| < 2^e`) and truncated toward zero to multiples of `2^(e - 28)`; the
/// weighted sum is exact, and rounds to f32 once, ties away from zero; a subnormal result is
/// flushed to zero of its sign, and a zero result is `-0` when every texel taking part is
/// negative (`-0` included). An infinity or NaN among the `live` texels (those whose exact
/// weight `(1 - alpha or alpha) * (1 - beta or beta)` is not zero, even where the rounded
/// `w[k]` is) gives that infinity, or NaN.
fn blend(v: [f32; 4], w: [i64; 4], live: [bool; 4]) -> f32 {
    let v = v.map(|x| if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x });
    let used = |k: usize| w[k] != 0;
    let zero = || if (0..4).filter(|&k| used(k)).all(|k| v[k].is_sign_negative()) { -0.0 } else { 0.0 };
    if (0..4).any(|k| live[k] && !v[k].is_finite()) {
        // Infinities of one sign give that infinity (whatever their weight); NaN, or both signs,
        // give NaN.
        let special = (0..4).filter(|&k| live[k] && !v[k].is_finite());
        let (mut pos, mut neg) = (false, false);
        for k in special {
            match v[k] {
                x if x.is_nan() => return f32::NAN,
                x if x > 0.0 => pos = true,
                _ => neg = true,
            }
        }
        return match (pos, neg) {
            (true, false) => f32::INFINITY,
            (false, true) => f32::NEG_INFINITY,
            _ => f32::NAN,
        };
    }
    // (significand, unbiased exponent of its lowest bit) of each used non-zero texel.
    let parts = v.map(|x| {
        let b = x.to_bits();
        let (exp, frac) = ((b >> 23) & 0xff, (b & 0x7f_ffff) as i64);
        let (m, e) = if exp == 0 { (frac, -149) } else { (frac | 1 << 23, exp as i32 - 150) };
        (if b >> 31 == 1 { -m } else { m }, e)
    });
    // `top`: the exponent `e` with `|v| < 2^e` of the largest used texel.
    let top = (0..4)
        .filter(|&k| used(k) && parts[k].0 != 0)
        .map(|k| parts[k].1 + 64 - (parts[k].0.unsigned_abs().leading_zeros() as i32))
        .max();
    let Some(top) = top else { return zero() };
    let lsb = top - 28;
    let mut sum: i64 = 0;
    for k in (0..4).filter(|&k| used(k)) {
        let (m, e) = parts[k];
        let shift = e - lsb;
        let mag = m.unsigned_abs() as i64;
        let a = if shift >= 0 {
            mag << shift
        } else if -shift >= 63 {
            0
        } else {
            mag >> -shift
        };
        sum += w[k] * if m < 0 { -a } else { a };
    }
    // sum * 2^(lsb - 8), rounded to 24 significant bits, ties away from zero.
    let mag = sum.unsigned_abs();
    if mag == 0 {
        return zero();
    }
    let bits = 64 - mag.leading_zeros() as i32;
    let (mut r, mut scale) = (mag, lsb - WEIGHT_BITS as i32);
    if bits > 24 {
        let s = bits - 24;
        r = (mag >> s) + ((mag >> (s - 1)) & 1);
        scale += s;
    }
    let value = r as f64 * 2f64.powi(scale);
    let out = (if sum < 0 { -value } else { value }) as f32;
    if out.is_subnormal() {
        return f32::from_bits(out.to_bits() & 0x8000_0000);
    }
    out
}

/// Blends the 2 x 2 footprint `t` (`[(i, j), (i+1, j), (i, j+1), (i+1, j+1)]`) per channel.
fn filter(t: [[f32; 4]; 4], alpha: i64, beta: i64) -> [f32; 4] {
    let w = weights(alpha, beta);
    let live = [true, alpha != 0, beta != 0, alpha != 0 && beta != 0];
    core::array::from_fn(|c| blend([t[0][c], t[1][c], t[2][c], t[3][c]], w, live))
}

/// `tex1D(t, x)`: a 1-D texture sampled at `x` (normalised or not, as `desc` says).
///
/// The H200 samples a 1-D array as a 2-D one of height 1 at `y = 0`: with linear filtering
/// that is halfway between row 0 and row -1, which the y addressing mode (`desc.address[1]`)
/// maps to row 0 again, or, in border mode, to the border colour (half of it is blended in).
pub fn sample_1d(t: &Texels<'_>, desc: &TextureDesc, x: f32) -> [f32; 4] {
    sample_2d(t, desc, x, 0.0)
}

/// `tex2D(t, x, y)`: a 2-D texture sampled at `(x, y)`.
pub fn sample_2d(t: &Texels<'_>, desc: &TextureDesc, x: f32, y: f32) -> [f32; 4] {
    let ax = axis(x, t.width, desc.address[0], desc);
    let ay = axis(y, t.height, desc.address[1], desc);
    let b = &desc.border;
    if desc.filter == FilterMode::Point {
        return t.texel(ax.first, ay.first, b);
    }
    let footprint = [
        t.texel(ax.first, ay.first, b),
        t.texel(ax.second, ay.first, b),
        t.texel(ax.first, ay.second, b),
        t.texel(ax.second, ay.second, b),
    ];
    filter(footprint, ax.alpha, ay.alpha)
}

/// `tex1Dfetch(t, i)` on linear memory: element `i`, or zero outside `[0, width)`.
pub fn fetch_1d(t: &Texels<'_>, i: i32) -> [f32; 4] {
    match usize::try_from(i) {
        Ok(i) if i < t.width => t.texel(Some(i), Some(0), &[0.0; 4]),
        _ => [0.0; 4],
    }
}

/// The largest value of an integer format (what reads as 1.0), and whether it is signed.
fn unit(format: Format) -> (f64, bool) {
    match format {
        Format::U8 => (255.0, false),
        Format::I8 => (127.0, true),
        Format::U16 => (65535.0, false),
        Format::I16 => (32767.0, true),
        Format::F32 => (1.0, true),
    }
}

/// An 8- or 16-bit integer texel channel `v` read as a normalised float
/// (`cudaReadModeNormalizedFloat`) with point filtering: `v / 255`, `v / 127`, `v / 65535` or
/// `v / 32767`, correctly rounded, and the most negative value of a signed format clamped to
/// `-1` (H200: all 65 536 values of each 16-bit format, all 256 of each 8-bit one, exact).
/// Float channels are returned as they are.
pub fn normalized(format: Format, v: f32) -> f32 {
    if format == Format::F32 {
        return v;
    }
    ((v as f64 / unit(format).0) as f32).max(-1.0)
}

/// The border colour channel `b` as a texel of an integer format read as normalised floats:
/// clamped to `[0, 1]` (unsigned) or `[-1, 1]` (signed), scaled by 255 / 127 / 65535 / 32767
/// and rounded to the nearest integer, ties toward zero (H200: `0.5` on u8 reads `127 / 255`);
/// NaN reads 0. Returned as the integer's value.
pub fn normalized_border(format: Format, b: f32) -> f32 {
    let (max, signed) = unit(format);
    if format == Format::F32 {
        return b;
    }
    if b.is_nan() {
        return 0.0;
    }
    let q = (b as f64).clamp(if signed { -1.0 } else { 0.0 }, 1.0) * max;
    // Nearest, ties toward zero.
    let r = q.abs();
    let n = if r - r.floor() > 0.5 { r.floor() + 1.0 } else { r.floor() };
    (n.copysign(q) + 0.0) as f32
}

/// The border colour channel `b` as a texel of an integer format read as the element type: the
/// low 8 or 16 bits of `b`'s f32 bit pattern, as the format's integer (H200: border `0.999`,
/// bits `0x3f7fbe77`, reads `0x77` as u8 and `-16777` as i16). Float formats give `b`.
pub fn element_border(format: Format, b: f32) -> f32 {
    let bits = b.to_bits();
    match format {
        Format::F32 => b,
        Format::U8 => (bits as u8) as f32,
        Format::I8 => (bits as u8 as i8) as f32,
        Format::U16 => (bits as u16) as f32,
        Format::I16 => (bits as u16 as i16) as f32,
    }
}

/// The 32-bit lane an element-type read returns for a sample `v` of an integer format (a
/// texel's value or an [`element_border`], exactly): the integer, sign-extended for signed
/// formats, zero-extended for unsigned ones (H200: i8 `-1` reads `0xffffffff`). Float formats
/// give `v`'s bits.
pub fn element_lane(format: Format, v: f32) -> u32 {
    if format == Format::F32 {
        return v.to_bits();
    }
    (v as i32) as u32
}

/// The linear filter of normalised-float reads of integer texels `v` (the footprint's integer
/// values) with weights `w` (in 1/256, summing to 256): the H200 filters in 16-bit integers,
/// not in floats. A texel's value `V` is `v` for 16-bit formats and `257 v` for u8 (unorm8
/// widened to unorm16); the sum `sum(w V) / 256` is rounded to an integer `X`, ties upwards,
/// and read as `X / 65535` (unsigned) or `X / 32767` (signed, clamped to -1), correctly
/// rounded. i8 is modelled as `V = 32767 v / 127` (exactly) with the same rounding: the H200
/// differs from that by one unit of `1 / 32767` in 4 % of the probe's i8 linear samples
/// (RESULTS.md section 12).
fn filter_integer(format: Format, v: [f32; 4], w: [i64; 4]) -> f32 {
    let sum = |scale: i64| -> i64 { (0..4).map(|k| w[k] * (v[k] as i64) * scale).sum() };
    let (x, max) = match format {
        Format::U8 => ((sum(257) + 128).div_euclid(256), 65535.0),
        Format::U16 | Format::I16 => {
            ((sum(1) + 128).div_euclid(256), if format == Format::U16 { 65535.0 } else { 32767.0 })
        }
        // floor(sum(w v) * 32767 / (127 * 256) + 1/2), in integers.
        Format::I8 => ((2 * sum(32767) + 127 * 256).div_euclid(2 * 127 * 256), 32767.0),
        Format::F32 => unreachable!("float texels are filtered by `filter`"),
    };
    ((x as f64 / max) as f32).max(-1.0)
}

/// `tex2D(t, x, y)` of 8- or 16-bit integer texels of `format` read as normalised floats
/// (`cudaReadModeNormalizedFloat`): `t` holds the texels' integer values. Addressing is that
/// of float textures; point filtering reads [`normalized`] texels (the border colour converted
/// by [`normalized_border`]), linear filtering blends the integers (`filter_integer`).
pub fn sample_2d_normalized(t: &Texels<'_>, format: Format, desc: &TextureDesc, x: f32, y: f32) -> [f32; 4] {
    let ax = axis(x, t.width, desc.address[0], desc);
    let ay = axis(y, t.height, desc.address[1], desc);
    let b = desc.border.map(|c| normalized_border(format, c));
    if desc.filter == FilterMode::Point {
        return t.texel(ax.first, ay.first, &b).map(|v| normalized(format, v));
    }
    let footprint = [
        t.texel(ax.first, ay.first, &b),
        t.texel(ax.second, ay.first, &b),
        t.texel(ax.first, ay.second, &b),
        t.texel(ax.second, ay.second, &b),
    ];
    let w = weights(ax.alpha, ay.alpha);
    core::array::from_fn(|c| {
        filter_integer(format, [footprint[0][c], footprint[1][c], footprint[2][c], footprint[3][c]], w)
    })
}

/// `tex1D(t, x)` of integer texels read as normalised floats (a 2-D texture of height 1 at
/// `y = 0`, as [`sample_1d`]).
pub fn sample_1d_normalized(t: &Texels<'_>, format: Format, desc: &TextureDesc, x: f32) -> [f32; 4] {
    sample_2d_normalized(t, format, desc, x, 0.0)
}

/// `tex1Dfetch(t, i)` of integer texels read as normalised floats: element `i` converted by
/// [`normalized`], or zero outside `[0, width)`.
pub fn fetch_1d_normalized(t: &Texels<'_>, format: Format, i: i32) -> [f32; 4] {
    fetch_1d(t, i).map(|v| normalized(format, v))
}

#[cfg(test)]
mod tests;
