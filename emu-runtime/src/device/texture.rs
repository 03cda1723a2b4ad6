//! Textures: read-only device memory read through the texture unit, with CUDA's
//! `tex1Dfetch`, `tex1D` and `tex2D`.
//!
//! A kernel takes a [`Texture<T>`] by value (CUDA's `cudaTextureObject_t`) and reads it with
//! [`Texture::fetch`] / [`tex1d_fetch`] (integer index into linear memory),
//! [`Texture::sample_1d`] / [`tex1d`] (a 1-D array, float coordinate) or
//! [`Texture::sample_2d`] / [`tex2d`] (a 2-D array or pitched 2-D memory). The host creates
//! the object with `deviceemu::TextureObject` and passes `obj.texture()` to `launch!`.
//!
//! ```text
//!  kernel code ──► Texture::{fetch, sample_1d, sample_2d}
//!                     │
//!                     ├─ host:  host.rs  ──► host::texture (the object's texels) ──► sampler.rs
//!                     └─ nvptx: nvptx.rs ──► tex.1d.v4.f32.s32 / tex.1d.v4.f32.f32 / tex.2d.v4.f32.f32
//! ```
//!
//! [`sampler`] is the texture unit's arithmetic (addressing, point and linear filtering with
//! the hardware's 1.8 fixed-point weights), checked against an H200 bit for bit.

use core::marker::PhantomData;

use crate::device::copy::DeviceCopy;

#[cfg(not(target_arch = "nvptx64"))]
pub mod sampler;

#[cfg(not(target_arch = "nvptx64"))]
#[path = "texture/host.rs"]
mod imp;

#[cfg(target_arch = "nvptx64")]
#[path = "texture/nvptx.rs"]
mod imp;

/// What a coordinate outside the texture reads (CUDA's `cudaTextureAddressMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum AddressMode {
    /// Repeat the texture (`cudaAddressModeWrap`); normalised coordinates only, else clamp.
    Wrap = 0,
    /// Repeat the edge texel (`cudaAddressModeClamp`), the default.
    Clamp = 1,
    /// Repeat the texture mirrored (`cudaAddressModeMirror`); normalised coordinates only, else
    /// clamp.
    Mirror = 2,
    /// Read the border colour (`cudaAddressModeBorder`).
    Border = 3,
}

/// How a sample is computed from texels (CUDA's `cudaTextureFilterMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum FilterMode {
    /// The nearest texel (`cudaFilterModePoint`), the default.
    Point = 0,
    /// Linear (1-D) or bilinear (2-D) interpolation of the nearest texels, with 1.8 fixed-point
    /// weights (`cudaFilterModeLinear`).
    Linear = 1,
}

/// How a texture is sampled (CUDA's `cudaTextureDesc`, for the fields it has here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDesc {
    /// Addressing mode per dimension, `[x, y]`.
    pub address: [AddressMode; 2],
    /// Point or linear filtering.
    pub filter: FilterMode,
    /// Whether coordinates are normalised to `[0, 1)` (`normalizedCoords`).
    pub normalized: bool,
    /// The border colour, `[x, y, z, w]` (a 1-channel texture uses `x`).
    pub border: [f32; 4],
}

impl Default for TextureDesc {
    fn default() -> Self {
        TextureDesc { address: [AddressMode::Clamp; 2], filter: FilterMode::Point, normalized: false, border: [0.0; 4] }
    }
}

impl TextureDesc {
    /// The default: clamp, point filtering, unnormalised coordinates, border colour 0.
    pub fn new() -> Self {
        Self::default()
    }
    /// The same addressing mode in every dimension.
    pub fn address(mut self, mode: AddressMode) -> Self {
        self.address = [mode; 2];
        self
    }
    /// Addressing modes per dimension.
    pub fn address_xy(mut self, x: AddressMode, y: AddressMode) -> Self {
        self.address = [x, y];
        self
    }
    /// The filter mode.
    pub fn filter(mut self, filter: FilterMode) -> Self {
        self.filter = filter;
        self
    }
    /// Normalised (`true`) or unnormalised coordinates.
    pub fn normalized(mut self, normalized: bool) -> Self {
        self.normalized = normalized;
        self
    }
    /// The border colour.
    pub fn border(mut self, color: [f32; 4]) -> Self {
        self.border = color;
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for [f32; 2] {}
    impl Sealed for [f32; 4] {}
}

/// The element types a texture holds: `f32`, `[f32; 2]` (`float2`) and `[f32; 4]` (`float4`).
pub trait Texel: DeviceCopy + sealed::Sealed {
    /// Channels per texel.
    const CHANNELS: usize;
    /// The texel from the first `CHANNELS` of what the texture unit returns.
    #[doc(hidden)]
    fn from_channels(c: [f32; 4]) -> Self;
    /// The texel's channels.
    #[doc(hidden)]
    fn write_channels(self, out: &mut [f32]);
}

impl Texel for f32 {
    const CHANNELS: usize = 1;
    #[inline(always)]
    fn from_channels(c: [f32; 4]) -> Self {
        c[0]
    }
    fn write_channels(self, out: &mut [f32]) {
        out[0] = self;
    }
}

impl Texel for [f32; 2] {
    const CHANNELS: usize = 2;
    #[inline(always)]
    fn from_channels(c: [f32; 4]) -> Self {
        [c[0], c[1]]
    }
    fn write_channels(self, out: &mut [f32]) {
        out[..2].copy_from_slice(&self);
    }
}

impl Texel for [f32; 4] {
    const CHANNELS: usize = 4;
    #[inline(always)]
    fn from_channels(c: [f32; 4]) -> Self {
        c
    }
    fn write_channels(self, out: &mut [f32]) {
        out.copy_from_slice(&self);
    }
}

/// A texture object (CUDA's `cudaTextureObject_t`): what a kernel takes to read a texture.
///
/// Get one from a host-side `TextureObject` (`obj.texture()`) and pass it to `launch!` by
/// value; in the kernel, read it with [`fetch`](Self::fetch), [`sample_1d`](Self::sample_1d)
/// or [`sample_2d`](Self::sample_2d). It is a handle: using it after its `TextureObject` was
/// dropped fails the kernel in the emulator (and is undefined on a GPU, as in CUDA).
#[repr(transparent)]
pub struct Texture<T: Texel> {
    handle: u64,
    _texel: PhantomData<fn() -> T>,
}

impl<T: Texel> Clone for Texture<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Texel> Copy for Texture<T> {}

impl<T: Texel> core::fmt::Debug for Texture<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Texture({:#x})", self.handle)
    }
}

// SAFETY: a `u64` handle: no padding, and every value (zero included) is a valid handle value;
// the emulator checks a handle before it uses it.
unsafe impl<T: Texel> DeviceCopy for Texture<T> {}

impl<T: Texel> Texture<T> {
    /// The texture object with driver handle (or emulator id) `handle`.
    #[doc(hidden)]
    pub fn from_handle(handle: u64) -> Self {
        Texture { handle, _texel: PhantomData }
    }

    /// The driver handle (GPU) or the emulator's id of the object.
    pub fn handle(self) -> u64 {
        self.handle
    }

    /// `tex1Dfetch(t, i)`: element `i` of a texture over linear memory (a `DeviceBuffer`); no
    /// filtering, and an index outside the buffer reads zero.
    #[inline(always)]
    #[track_caller]
    pub fn fetch(self, i: i32) -> T {
        T::from_channels(imp::fetch_1d(self.handle, T::CHANNELS, i))
    }

    /// `tex1D(t, x)`: a 1-D array texture sampled at `x`, with the object's addressing and
    /// filtering.
    #[inline(always)]
    #[track_caller]
    pub fn sample_1d(self, x: f32) -> T {
        T::from_channels(imp::sample_1d(self.handle, T::CHANNELS, x))
    }

    /// `tex2D(t, x, y)`: a 2-D texture (array or pitched memory) sampled at `(x, y)`.
    #[inline(always)]
    #[track_caller]
    pub fn sample_2d(self, x: f32, y: f32) -> T {
        T::from_channels(imp::sample_2d(self.handle, T::CHANNELS, x, y))
    }
}

/// `tex1Dfetch<T>(t, i)`: [`Texture::fetch`].
#[inline(always)]
#[track_caller]
pub fn tex1d_fetch<T: Texel>(t: Texture<T>, i: i32) -> T {
    t.fetch(i)
}

/// `tex1D<T>(t, x)`: [`Texture::sample_1d`].
#[inline(always)]
#[track_caller]
pub fn tex1d<T: Texel>(t: Texture<T>, x: f32) -> T {
    t.sample_1d(x)
}

/// `tex2D<T>(t, x, y)`: [`Texture::sample_2d`].
#[inline(always)]
#[track_caller]
pub fn tex2d<T: Texel>(t: Texture<T>, x: f32, y: f32) -> T {
    t.sample_2d(x, y)
}
