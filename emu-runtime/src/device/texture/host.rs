//! Host backend of the texture reads: the object's texels (`host::texture`) through the
//! sampler, and the sampler's result as the texture unit's four 32-bit lanes.

use super::{sampler, Format, Lanes};
use crate::device::backend::texture::{with, Read};

/// The lanes of a sample `v`: f32 bits, or for an element-type read of integer texels the
/// integer the texture unit returns (`sampler::element_lane`).
#[inline]
fn lanes(lanes: Lanes, format: Format, v: [f32; 4]) -> [u32; 4] {
    match lanes {
        Lanes::Float => v.map(f32::to_bits),
        Lanes::Signed | Lanes::Unsigned => v.map(|c| sampler::element_lane(format, c)),
    }
}

#[inline]
#[track_caller]
pub(super) fn fetch_1d(handle: u64, l: Lanes, format: Format, channels: usize, i: i32) -> [u32; 4] {
    if let Some(v) = crate::device::backend::texture::fetch_hot(handle, channels, l, format, i) {
        return lanes(l, format, v);
    }
    lanes(
        l,
        format,
        with(handle, channels, l, format, Read::Fetch, |t, _, n| match n {
            Some(f) => sampler::fetch_1d_normalized(t, f, i),
            None => sampler::fetch_1d(t, i),
        }),
    )
}

#[inline]
#[track_caller]
pub(super) fn sample_1d(handle: u64, l: Lanes, format: Format, channels: usize, x: f32) -> [u32; 4] {
    lanes(
        l,
        format,
        with(handle, channels, l, format, Read::Sample1d, |t, d, n| match n {
            Some(f) => sampler::sample_1d_normalized(t, f, d, x),
            None => sampler::sample_1d(t, d, x),
        }),
    )
}

#[inline]
#[track_caller]
pub(super) fn sample_2d(handle: u64, l: Lanes, format: Format, channels: usize, x: f32, y: f32) -> [u32; 4] {
    lanes(
        l,
        format,
        with(handle, channels, l, format, Read::Sample2d, |t, d, n| match n {
            Some(f) => sampler::sample_2d_normalized(t, f, d, x, y),
            None => sampler::sample_2d(t, d, x, y),
        }),
    )
}
