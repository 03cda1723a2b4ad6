//! The texture unit's arithmetic, as a pure function of the texels, the descriptor and the
//! coordinates: what the emulator's `tex1Dfetch`/`tex1D`/`tex2D` return, and the reference the
//! H200 oracle (`tests/tex_oracle.rs`) checks against the hardware.
//!
//! The model follows the CUDA C++ Programming Guide's appendix "Texture Fetching", with the
//! details the guide leaves open measured on an H200 (README, "Textures"):
//!
//! * **Coordinates** become fixed point with 8 fractional bits (`to_fixed`): normalised
//!   coordinates are first scaled by the size in f32 (`x * N`, rounded to nearest).
//! * **Point filtering** reads texel `floor(x)`.
//! * **Linear filtering** reads texels `i = floor(x - 0.5)` and `i + 1` with weight
//!   `alpha = frac(x - 0.5)`, which is the low 8 bits of the fixed-point coordinate: the 9-bit
//!   1.8 fixed-point weight of the guide (so `1 - alpha` is exact); in 2-D, `beta` likewise, and
//!   the four texels are blended with the weights' products.
//! * **Addressing** is applied to texel indices: clamp to `[0, N - 1]`; wrap modulo `N`; mirror
//!   with period `2N`; border: an index outside `[0, N)` reads the border colour. Wrap and
//!   mirror need normalised coordinates (CUDA says so); with unnormalised ones they act as
//!   clamp.
//! * **`tex1Dfetch`** on linear memory has no addressing modes and no filtering: an index
//!   outside the buffer reads zero.

use super::{AddressMode, FilterMode, TextureDesc};

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
        let mut out = [0.0; 4];
        out[..self.channels].copy_from_slice(&self.data[at..at + self.channels]);
        out
    }
}

/// Fractional bits of the fixed-point coordinates and weights.
const FRAC_BITS: u32 = 8;
const ONE: i64 = 1 << FRAC_BITS;

/// The unnormalised coordinate `c` in fixed point with 8 fractional bits, rounded down
/// (saturating; NaN reads as 0).
fn to_fixed(c: f32) -> i64 {
    // `as` saturates and maps NaN to 0; the range keeps the index arithmetic below in i64.
    let v = (c as f64 * ONE as f64).floor();
    (v as i64).clamp(-(1 << 40), 1 << 40)
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
    let c = if desc.normalized { c * n as f32 } else { c };
    let fixed = to_fixed(c);
    match desc.filter {
        FilterMode::Point => {
            let i = fixed >> FRAC_BITS;
            let t = address(i, n, mode, desc.normalized);
            Axis { first: t, second: t, alpha: 0 }
        }
        FilterMode::Linear => {
            let b = fixed - ONE / 2;
            let i = b >> FRAC_BITS;
            Axis {
                first: address(i, n, mode, desc.normalized),
                second: address(i + 1, n, mode, desc.normalized),
                alpha: b & (ONE - 1),
            }
        }
    }
}

/// Blends `a` and `b` with weight `w` (in 1/256) for `b`: `(1 - w) a + w b`, per channel.
fn lerp(a: [f32; 4], b: [f32; 4], w: i64) -> [f32; 4] {
    let (wa, wb) = ((ONE - w) as f32 / ONE as f32, w as f32 / ONE as f32);
    core::array::from_fn(|k| wa * a[k] + wb * b[k])
}

/// `tex1D(t, x)`: a 1-D texture sampled at `x` (normalised or not, as `desc` says).
pub fn sample_1d(t: &Texels<'_>, desc: &TextureDesc, x: f32) -> [f32; 4] {
    let ax = axis(x, t.width, desc.address[0], desc);
    let row = Some(0);
    let a = t.texel(ax.first, row, &desc.border);
    if ax.alpha == 0 && desc.filter == FilterMode::Point {
        return a;
    }
    lerp(a, t.texel(ax.second, row, &desc.border), ax.alpha)
}

/// `tex2D(t, x, y)`: a 2-D texture sampled at `(x, y)`.
pub fn sample_2d(t: &Texels<'_>, desc: &TextureDesc, x: f32, y: f32) -> [f32; 4] {
    let ax = axis(x, t.width, desc.address[0], desc);
    let ay = axis(y, t.height, desc.address[1], desc);
    let b = &desc.border;
    if desc.filter == FilterMode::Point {
        return t.texel(ax.first, ay.first, b);
    }
    let top = lerp(t.texel(ax.first, ay.first, b), t.texel(ax.second, ay.first, b), ax.alpha);
    let bottom = lerp(t.texel(ax.first, ay.second, b), t.texel(ax.second, ay.second, b), ax.alpha);
    lerp(top, bottom, ay.alpha)
}

/// `tex1Dfetch(t, i)` on linear memory: element `i`, or zero outside `[0, width)`.
pub fn fetch_1d(t: &Texels<'_>, i: i32) -> [f32; 4] {
    match usize::try_from(i) {
        Ok(i) if i < t.width => t.texel(Some(i), Some(0), &[0.0; 4]),
        _ => [0.0; 4],
    }
}

#[cfg(test)]
mod tests;
