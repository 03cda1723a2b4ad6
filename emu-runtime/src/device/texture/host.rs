//! Host backend of the texture reads: the object's texels (`host::texture`) through the
//! sampler.

use super::sampler;

#[inline]
#[track_caller]
pub(super) fn fetch_1d(handle: u64, channels: usize, i: i32) -> [f32; 4] {
    crate::host::texture::with(handle, channels, crate::host::texture::Read::Fetch, |t, _| sampler::fetch_1d(t, i))
}

#[inline]
#[track_caller]
pub(super) fn sample_1d(handle: u64, channels: usize, x: f32) -> [f32; 4] {
    crate::host::texture::with(handle, channels, crate::host::texture::Read::Sample1d, |t, d| sampler::sample_1d(t, d, x))
}

#[inline]
#[track_caller]
pub(super) fn sample_2d(handle: u64, channels: usize, x: f32, y: f32) -> [f32; 4] {
    crate::host::texture::with(handle, channels, crate::host::texture::Read::Sample2d, |t, d| sampler::sample_2d(t, d, x, y))
}
