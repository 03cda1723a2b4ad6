//! Textures: read-only device memory read through the texture unit, with CUDA's
//! `tex1Dfetch`, `tex1D` and `tex2D`.
//!
//! A kernel takes a [`Texture<T>`] by value (CUDA's `cudaTextureObject_t`) and reads it with
//! [`Texture::fetch`] / [`tex1d_fetch`] (integer index into linear memory),
//! [`Texture::sample_1d`] / [`tex1d`] (a 1-D array, float coordinate) or
//! [`Texture::sample_2d`] / [`tex2d`] (a 2-D array or pitched 2-D memory). The host creates
//! the object with `deviceemu::TextureObject` and passes `obj.texture()` to `launch!`.
//!
//! Texels are `f32` or 8- and 16-bit integers (`u8`, `i8`, `u16`, `i16`), alone or in pairs
//! and quads ([`Texel`]). A `Texture<T>` reads `T`: the texels' own type
//! ([`ReadMode::ElementType`]; integers with point filtering only), or, for integer texels
//! made with the `TextureObject::*_normalized` constructors, floats in `[0, 1]` / `[-1, 1]`
//! ([`ReadMode::NormalizedFloat`], [`IntegerTexel::Normalized`]): a texture of `[u8; 4]`
//! RGBA texels is a `Texture<[u8; 4]>` or a `Texture<[f32; 4]>`.
//!
//! ```text
//!  kernel code ──► Texture::{fetch, sample_1d, sample_2d}
//!                     │
//!                     ├─ host:  host.rs  ──► host::texture (the object's texels) ──► sampler.rs
//!                     └─ nvptx: nvptx.rs ──► tex.1d.v4.{f32,s32,u32}.s32 / tex.1d.v4.*.f32 / tex.2d.v4.*.f32
//! ```
//!
//! [`sampler`] is the texture unit's arithmetic (addressing, point and linear filtering with
//! the hardware's 1.8 fixed-point weights, the integer formats' conversions and 16-bit
//! filter), checked against an H200 bit for bit (i8 linear filtering: within `1/32767`).

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

/// How a texture's texels are read (CUDA's `cudaTextureReadMode`): decided by the
/// `TextureObject` constructor, since it decides the type the kernel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ReadMode {
    /// The texel's own type (`cudaReadModeElementType`): floats as floats, integers as
    /// integers. Integer texels allow point filtering only.
    ElementType = 0,
    /// 8- and 16-bit integers as floats (`cudaReadModeNormalizedFloat`): unsigned ones to
    /// `[0, 1]`, signed ones to `[-1, 1]`; point or linear filtering.
    NormalizedFloat = 1,
}

/// The format of one channel of a texel (CUDA's `CUarray_format`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `f32` (`CU_AD_FORMAT_FLOAT`).
    F32,
    /// `u8` (`CU_AD_FORMAT_UNSIGNED_INT8`).
    U8,
    /// `i8` (`CU_AD_FORMAT_SIGNED_INT8`).
    I8,
    /// `u16` (`CU_AD_FORMAT_UNSIGNED_INT16`).
    U16,
    /// `i16` (`CU_AD_FORMAT_SIGNED_INT16`).
    I16,
}

impl Format {
    /// Bytes per channel.
    pub const fn bytes(self) -> usize {
        match self {
            Format::F32 => 4,
            Format::U8 | Format::I8 => 1,
            Format::U16 | Format::I16 => 2,
        }
    }
    /// Whether the channels are integers.
    pub const fn is_integer(self) -> bool {
        !matches!(self, Format::F32)
    }
    /// Whether the channels are signed integers.
    pub const fn is_signed(self) -> bool {
        matches!(self, Format::I8 | Format::I16)
    }
    /// The type's name.
    pub const fn name(self) -> &'static str {
        match self {
            Format::F32 => "f32",
            Format::U8 => "u8",
            Format::I8 => "i8",
            Format::U16 => "u16",
            Format::I16 => "i16",
        }
    }
}

/// What the texture unit's four 32-bit result lanes hold for a read.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// f32 bits (float texels, and normalised-float reads).
    Float,
    /// A sign-extended integer (element-type reads of signed texels).
    Signed,
    /// A zero-extended integer (element-type reads of unsigned texels).
    Unsigned,
}

mod sealed {
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => { $( impl Sealed for $t {} impl Sealed for [$t; 2] {} impl Sealed for [$t; 4] {} )* };
    }
    sealed!(f32, u8, i8, u16, i16);
}

/// The element types a texture holds, and the types kernels read: `f32`, `u8`, `i8`, `u16`
/// and `i16`, alone or as pairs and quads (`[f32; 2]` is `float2`, `[u8; 4]` is `uchar4`).
///
/// A kernel's `Texture<T>` reads `T`: the texels' own type (an element-type read), or for
/// 8- and 16-bit integer texels read as normalised floats, their [`IntegerTexel::Normalized`]
/// float type.
pub trait Texel: DeviceCopy + sealed::Sealed {
    /// Channels per texel.
    const CHANNELS: usize;
    /// The format of each channel.
    #[doc(hidden)]
    const FORMAT: Format;
    /// The texel from the first `CHANNELS` of the texture unit's result lanes (f32 bits for
    /// float types, the integer for integer types).
    #[doc(hidden)]
    fn from_lanes(c: [u32; 4]) -> Self;
    /// The texel's channels, each as an f32 (integers exactly).
    #[doc(hidden)]
    fn write_channels(self, out: &mut [f32]);
}

/// What the texture unit returns in a read of `T`'s texels.
#[doc(hidden)]
pub const fn lanes_of<T: Texel>() -> Lanes {
    match T::FORMAT {
        Format::F32 => Lanes::Float,
        f if f.is_signed() => Lanes::Signed,
        _ => Lanes::Unsigned,
    }
}

/// 8- and 16-bit integer texels, which can also be read as normalised floats
/// ([`ReadMode::NormalizedFloat`]): a texture of `u8` texels made with
/// `TextureObject::array_2d_normalized` is a `Texture<f32>` in kernels.
///
/// ```
/// use emu_runtime::{device::texture::TextureDesc, TextureObject};
/// // u8 texels read as floats: a Texture<f32>.
/// let t: TextureObject<'_, f32> = TextureObject::array_1d_normalized(&[0u8, 255], TextureDesc::new()).unwrap();
/// ```
///
/// ```compile_fail
/// use emu_runtime::{device::texture::TextureDesc, TextureObject};
/// // f32 texels have no normalised-float read (CUDA answers cudaErrorInvalidNormSetting):
/// let t: TextureObject<'_, f32> = TextureObject::array_1d_normalized(&[0.0f32, 1.0], TextureDesc::new()).unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "a normalised-float read needs 8- or 16-bit integer texels, not `{Self}`",
    label = "not u8, i8, u16 or i16 (alone, in pairs or quads)",
    note = "float texels are read as they are: use the constructor without `_normalized`"
)]
pub trait IntegerTexel: Texel {
    /// The float type a normalised-float read gives: `f32`, `[f32; 2]` or `[f32; 4]`.
    type Normalized: Texel;
}

macro_rules! texels {
    ($($t:ty => $format:ident, $one:path),*) => { $(
        impl Texel for $t {
            const CHANNELS: usize = 1;
            const FORMAT: Format = Format::$format;
            #[inline(always)]
            fn from_lanes(c: [u32; 4]) -> Self {
                $one(c[0])
            }
            fn write_channels(self, out: &mut [f32]) {
                out[0] = self as f32;
            }
        }
        impl Texel for [$t; 2] {
            const CHANNELS: usize = 2;
            const FORMAT: Format = Format::$format;
            #[inline(always)]
            fn from_lanes(c: [u32; 4]) -> Self {
                [$one(c[0]), $one(c[1])]
            }
            fn write_channels(self, out: &mut [f32]) {
                out[0] = self[0] as f32;
                out[1] = self[1] as f32;
            }
        }
        impl Texel for [$t; 4] {
            const CHANNELS: usize = 4;
            const FORMAT: Format = Format::$format;
            #[inline(always)]
            fn from_lanes(c: [u32; 4]) -> Self {
                [$one(c[0]), $one(c[1]), $one(c[2]), $one(c[3])]
            }
            fn write_channels(self, out: &mut [f32]) {
                for (o, v) in out.iter_mut().zip(self) {
                    *o = v as f32;
                }
            }
        }
    )* };
}
texels!(f32 => F32, f32::from_bits, u8 => U8, lane::u8, i8 => I8, lane::i8, u16 => U16, lane::u16, i16 => I16, lane::i16);

/// A lane's integer as the texel's type (the low bits: the texture unit's lane is the value
/// sign- or zero-extended).
mod lane {
    #[inline(always)]
    pub(super) fn u8(v: u32) -> u8 {
        v as u8
    }
    #[inline(always)]
    pub(super) fn i8(v: u32) -> i8 {
        v as i8
    }
    #[inline(always)]
    pub(super) fn u16(v: u32) -> u16 {
        v as u16
    }
    #[inline(always)]
    pub(super) fn i16(v: u32) -> i16 {
        v as i16
    }
}

macro_rules! integer_texels {
    ($($t:ty),*) => { $(
        impl IntegerTexel for $t { type Normalized = f32; }
        impl IntegerTexel for [$t; 2] { type Normalized = [f32; 2]; }
        impl IntegerTexel for [$t; 4] { type Normalized = [f32; 4]; }
    )* };
}
integer_texels!(u8, i8, u16, i16);

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
        T::from_lanes(imp::fetch_1d(self.handle, lanes_of::<T>(), T::FORMAT, T::CHANNELS, i))
    }

    /// `tex1D(t, x)`: a 1-D array texture sampled at `x`, with the object's addressing and
    /// filtering.
    #[inline(always)]
    #[track_caller]
    pub fn sample_1d(self, x: f32) -> T {
        T::from_lanes(imp::sample_1d(self.handle, lanes_of::<T>(), T::FORMAT, T::CHANNELS, x))
    }

    /// `tex2D(t, x, y)`: a 2-D texture (array or pitched memory) sampled at `(x, y)`.
    #[inline(always)]
    #[track_caller]
    pub fn sample_2d(self, x: f32, y: f32) -> T {
        T::from_lanes(imp::sample_2d(self.handle, lanes_of::<T>(), T::FORMAT, T::CHANNELS, x, y))
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
