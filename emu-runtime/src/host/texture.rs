//! Texture objects on the host: [`TextureObject`] (CUDA's `cudaCreateTextureObject` over a
//! `DeviceBuffer`, a pitched 2-D buffer or a CUDA array), and the emulator's table of live
//! objects that the device API's texture reads look up (`with`).
//!
//! # Why a snapshot is exact
//!
//! An emulator object keeps its own copy of the texels. For objects over a buffer
//! ([`TextureObject::linear`], [`TextureObject::pitch_2d`]) that is exactly what CUDA shows:
//! the object borrows the buffer (`&'b DeviceBuffer<T>`) for its whole life, so no kernel can
//! write the buffer (that needs `&mut`) until the object is gone. Arrays are copies in CUDA
//! too (`cudaMemcpyToArray`).
//!
//! # Handles
//!
//! A kernel gets a [`Texture<T>`], a `u64` handle that is `Copy` and `'static` like CUDA's.
//! On the GPU it is the driver's `CUtexObject`; in the emulator an id (tagged with
//! `EMU_TAG`) into `LIVE`. Ids are never reused, so a handle whose object was dropped is
//! found dead and fails the kernel: no read of freed memory, ever. A per-host-thread cache
//! (`CACHE`) keeps the lookup off the table's lock; it is flushed whenever an object is
//! dropped (`EPOCH`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::device::texture::sampler::{self, Texels};
use crate::device::texture::{
    lanes_of, FilterMode, Format, IntegerTexel, Lanes, ReadMode, Texel, Texture, TextureDesc,
};
use crate::host::mem::buffer::DeviceBuffer;
use crate::host::report::error::Error;

/// The tag of emulator handles (GPU handles are small integers).
const EMU_TAG: u64 = 0x7e3a_0000_0000_0000;

/// The bytes a pitched row must be a multiple of (the H200's `texturePitchAlignment`).
pub const PITCH_ALIGNMENT: usize = 32;

/// What an object reads from, which decides the reads it allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Linear,
    Array1d,
    Array2d,
    Pitch2d,
}

/// A texture read, as the device API asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// `tex1Dfetch`.
    Fetch,
    /// `tex1D`.
    Sample1d,
    /// `tex2D`.
    Sample2d,
}

/// An emulator object's texels and descriptor.
#[derive(Debug)]
struct State {
    kind: Kind,
    desc: TextureDesc,
    /// The lanes and format of the type kernels read (`Texture<T>`'s `T`).
    lanes: Lanes,
    format: Format,
    /// The texels' format when they are integers read as normalised floats.
    normalized: Option<Format>,
    channels: usize,
    width: usize,
    height: usize,
    pitch: usize,
    data: Box<[f32]>,
}

impl State {
    fn texels(&self) -> Texels<'_> {
        Texels { data: &self.data, channels: self.channels, width: self.width, height: self.height, pitch: self.pitch }
    }
}

static NEXT: AtomicU64 = AtomicU64::new(1);
static EPOCH: AtomicU64 = AtomicU64::new(0);
static LIVE: RwLock<Option<HashMap<u64, Arc<State>>>> = RwLock::new(None);

/// `(epoch, [(handle, state)])`: the objects a host thread looked up since `epoch`.
type LookupCache = RefCell<(u64, Vec<(u64, Arc<State>)>)>;

thread_local! {
    /// `(epoch, [(handle, state)])`: the objects this host thread looked up since `epoch`.
    static CACHE: LookupCache = const { RefCell::new((0, Vec::new())) };
    /// The object over linear memory this host thread last fetched from ([`fetch_hot`]).
    static HOT: Cell<Option<Hot>> = const { Cell::new(None) };
}

/// A `tex1Dfetch` of an object over linear memory without normalisation, as `with` last
/// allowed it on this host thread: the handle, the epoch it was looked up in, the type read,
/// and the object's texels.
#[derive(Clone, Copy)]
struct Hot {
    handle: u64,
    epoch: u64,
    /// The type read ([`hot_key`]).
    key: u32,
    /// The object's texels (`State::data`), `width * channels` of them.
    data: *const f32,
    width: usize,
}

/// The type a fetch reads, as one word: its channels (1, 2 or 4), lanes and format.
#[inline(always)]
const fn hot_key(channels: usize, lanes: Lanes, format: Format) -> u32 {
    channels as u32 | (lanes as u32) << 8 | (format as u32) << 16
}

/// `tex1Dfetch` of element `i` by the object `with` last allowed a fetch of on this host
/// thread, without a look in the cache: what a fetch in a kernel's loop reads every time.
/// `None` when the last object is another, or the read is of another type, or an object was
/// dropped since (then `with` decides, and reports).
#[inline(always)]
pub(crate) fn fetch_hot(handle: u64, channels: usize, lanes: Lanes, format: Format, i: i32) -> Option<[f32; 4]> {
    let epoch = EPOCH.load(Ordering::Acquire);
    let key = hot_key(channels, lanes, format);
    HOT.with(|h| {
        let h = h.get()?;
        if h.handle != handle || h.epoch != epoch || h.key != key {
            return None;
        }
        let mut out = [0.0; 4];
        if let Ok(i) = usize::try_from(i) {
            if i < h.width {
                // SAFETY: `h.data` is the `data` of a `State` whose `Arc` this host thread's
                // `CACHE` holds: `with` stored both at epoch `h.epoch`, and `CACHE` lets its
                // entries go only when it sees another epoch. The epoch only grows and is
                // `h.epoch` now, so the entry is still there and the state alive; a `State`
                // is never written after it is made. `i < width`, so `i * channels + c` for
                // `c < channels` (the channels of the key, which `with` checked against the
                // object's) is below `width * channels`, the length of `data`.
                unsafe {
                    let at = h.data.add(i * channels);
                    match channels {
                        1 => out[0] = *at,
                        2 => out[..2].copy_from_slice(std::slice::from_raw_parts(at, 2)),
                        _ => out[..channels.min(4)].copy_from_slice(std::slice::from_raw_parts(at, channels.min(4))),
                    }
                }
            }
        }
        Some(out)
    })
}

fn register(state: State) -> u64 {
    let id = EMU_TAG | NEXT.fetch_add(1, Ordering::Relaxed);
    let mut live = LIVE.write().unwrap_or_else(|e| e.into_inner());
    live.get_or_insert_with(HashMap::new).insert(id, Arc::new(state));
    id
}

fn unregister(id: u64) {
    let mut live = LIVE.write().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = live.as_mut() {
        m.remove(&id);
    }
    EPOCH.fetch_add(1, Ordering::AcqRel);
}

/// Runs `f` on the texels and descriptor of the emulator object `handle`, for a read `read` of
/// a `channels`-channel texel; a dead or foreign handle, or a read the object does not allow,
/// fails the calling GPU thread (a panic, which the launch reports).
#[track_caller]
pub(crate) fn with<R>(
    handle: u64,
    channels: usize,
    lanes: Lanes,
    format: Format,
    read: Read,
    f: impl FnOnce(&Texels<'_>, &TextureDesc, Option<Format>) -> R,
) -> R {
    let epoch = EPOCH.load(Ordering::Acquire);
    CACHE.with(|c| {
        // The state is used in place, under the cache's borrow (nothing below reads a texture
        // again): cloning its `Arc` for every fetch made the threads of every worker write one
        // reference count, 40 ns a fetch on two workers (benches/costs.rs).
        let mut cache = c.borrow_mut();
        if cache.0 != epoch {
            cache.1.clear();
            cache.0 = epoch;
        }
        let i = match cache.1.iter().position(|(h, _)| *h == handle) {
            Some(i) => i,
            None => {
                let live = LIVE.read().unwrap_or_else(|e| e.into_inner());
                let Some(state) = live.as_ref().and_then(|m| m.get(&handle)).cloned() else {
                    drop(live);
                    drop(cache);
                    dead(handle)
                };
                cache.1.push((handle, state));
                cache.1.len() - 1
            }
        };
        let state = &cache.1[i].1;
        let allowed = match read {
            Read::Fetch => state.kind == Kind::Linear,
            Read::Sample1d => state.kind == Kind::Array1d,
            Read::Sample2d => matches!(state.kind, Kind::Array2d | Kind::Pitch2d),
        };
        if !allowed {
            let kind = state.kind;
            drop(cache);
            wrong_read(read, kind);
        }
        if state.channels != channels || state.lanes != lanes || state.format != format {
            let found = (state.format, state.channels);
            drop(cache);
            wrong_type(read, found, (format, channels));
        }
        if read == Read::Fetch && state.normalized.is_none() {
            debug_assert_eq!(state.data.len(), state.width * state.channels);
            HOT.with(|h| {
                h.set(Some(Hot {
                    handle,
                    epoch,
                    key: hot_key(channels, lanes, format),
                    data: state.data.as_ptr(),
                    width: state.width,
                }))
            });
        }
        f(&state.texels(), &state.desc, state.normalized)
    })
}

#[cold]
#[inline(never)]
#[track_caller]
fn dead(handle: u64) -> ! {
    if handle & EMU_TAG == EMU_TAG {
        panic!("texture object {handle:#x} was used after its TextureObject was dropped");
    }
    panic!(
        "texture object {handle:#x} is not an emulator texture (created for the GPU, or never created): create \
         texture objects under the same target as the launch (EMU_TARGET / Config::target)"
    )
}

#[cold]
#[inline(never)]
#[track_caller]
fn wrong_read(read: Read, kind: Kind) -> ! {
    let what = match kind {
        Kind::Linear => "linear memory (TextureObject::linear), which is read with fetch / tex1d_fetch",
        Kind::Array1d => "a 1-D array (TextureObject::array_1d), which is read with sample_1d / tex1d",
        Kind::Array2d => "a 2-D array (TextureObject::array_2d), which is read with sample_2d / tex2d",
        Kind::Pitch2d => "pitched 2-D memory (TextureObject::pitch_2d), which is read with sample_2d / tex2d",
    };
    panic!("a texture read ({read:?}) does not match its object: the object is over {what}")
}

#[cold]
#[inline(never)]
#[track_caller]
fn wrong_type(read: Read, object: (Format, usize), asked: (Format, usize)) -> ! {
    let name = |(f, c): (Format, usize)| if c == 1 { f.name().to_string() } else { format!("[{}; {c}]", f.name()) };
    panic!(
        "a texture read ({read:?}) does not match its object: the kernel reads a Texture<{}>, the object gives {}",
        name(asked),
        name(object)
    )
}

/// A texture object (CUDA's `cudaCreateTextureObject`): texels in device memory, read in
/// kernels through the [`Texture<T>`] handle that [`texture`](Self::texture) returns.
///
/// * [`linear`](Self::linear): over a buffer (`cudaResourceTypeLinear`), read with
///   `fetch` (`tex1Dfetch`);
/// * [`pitch_2d`](Self::pitch_2d): over a buffer holding rows of `pitch` elements
///   (`cudaResourceTypePitch2D`), read with `sample_2d` (`tex2D`);
/// * [`array_1d`](Self::array_1d) and [`array_2d`](Self::array_2d): over a copy of host data
///   (a CUDA array, `cudaResourceTypeArray`), read with `sample_1d` (`tex1D`) and `sample_2d`.
///
/// Each reads its texels as they are (`T` is the texel type; integers allow point filtering
/// only, else `cudaErrorInvalidFilterSetting`). The `_normalized` forms
/// ([`linear_normalized`](Self::linear_normalized), [`pitch_2d_normalized`](Self::pitch_2d_normalized),
/// [`array_1d_normalized`](Self::array_1d_normalized), [`array_2d_normalized`](Self::array_2d_normalized))
/// take 8- and 16-bit integer texels `S` and read them as normalised floats
/// (`cudaReadModeNormalizedFloat`): `T` is `S::Normalized` (`f32`, `[f32; 2]` or `[f32; 4]`).
///
/// The object lives on the target its buffer lives on (arrays: the current target, like
/// `DeviceBuffer`), and is destroyed when dropped.
pub struct TextureObject<'b, T: Texel> {
    handle: u64,
    desc: TextureDesc,
    read_mode: ReadMode,
    #[cfg(feature = "gpu")]
    _gpu: Option<crate::gpu::texture::GpuTexture>,
    /// The buffer the object reads (of `T`, or for a normalised read, of integer texels).
    _buffer: PhantomData<&'b ()>,
    _read: PhantomData<fn() -> T>,
}

impl<T: Texel> std::fmt::Debug for TextureObject<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextureObject")
            .field("handle", &format_args!("{:#x}", self.handle))
            .field("desc", &self.desc)
            .field("read_mode", &self.read_mode)
            .finish()
    }
}

/// CUDA's `cudaErrorInvalidFilterSetting` (26): linear filtering of integers read as integers.
fn filter_setting(message: String) -> Error {
    let e = Error::InvalidFilterSetting { message };
    crate::host::report::last_error::record(&e);
    e
}

fn invalid(message: String) -> Error {
    let e = Error::InvalidValue { message };
    crate::host::report::last_error::record(&e);
    e
}

/// The texels as the sampler reads them: each channel as an f32 (integers exactly).
fn channels_of<S: Texel>(data: &[S]) -> Result<Box<[f32]>, Error> {
    let mut out = Vec::new();
    out.try_reserve_exact(data.len() * S::CHANNELS)
        .map_err(|_| Error::MemoryAllocation { bytes: data.len() * S::CHANNELS * 4 })?;
    out.resize(data.len() * S::CHANNELS, 0.0);
    for (t, o) in data.iter().zip(out.chunks_exact_mut(S::CHANNELS)) {
        t.write_channels(o);
    }
    Ok(out.into_boxed_slice())
}

/// The bytes of `data` (what a CUDA array is filled with).
#[cfg(feature = "gpu")]
fn bytes_of<S: Texel>(data: &[S]) -> &[u8] {
    // SAFETY: `S: DeviceCopy` has no padding, so every byte of the slice is initialised; `u8`
    // has alignment 1, and the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// Refuses what CUDA refuses: linear filtering of integer texels read as integers.
fn check_read<S: Texel>(desc: &TextureDesc, mode: ReadMode) -> Result<(), Error> {
    if S::FORMAT.is_integer() && mode == ReadMode::ElementType && desc.filter == FilterMode::Linear {
        return Err(filter_setting(format!(
            "linear filtering of {} texels needs a normalised-float read (CUDA refuses it for element-type reads): use \
             the `_normalized` constructor (a Texture<f32...> in kernels) or FilterMode::Point",
            S::FORMAT.name()
        )));
    }
    Ok(())
}

fn on_gpu_target() -> Result<bool, Error> {
    #[cfg(feature = "gpu")]
    {
        Ok(crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu)
    }
    #[cfg(not(feature = "gpu"))]
    {
        Ok(false)
    }
}

impl<'b, T: Texel> TextureObject<'b, T> {
    fn emulated<S: Texel>(
        kind: Kind,
        desc: TextureDesc,
        read_mode: ReadMode,
        width: usize,
        height: usize,
        pitch: usize,
        data: &[S],
    ) -> Result<Self, Error> {
        let data = channels_of(data)?;
        let normalized = (read_mode == ReadMode::NormalizedFloat).then_some(S::FORMAT);
        let mut sampled = desc;
        if S::FORMAT.is_integer() && normalized.is_none() {
            // An element-type read of integers reads the border colour's low bits.
            sampled.border = desc.border.map(|b| sampler::element_border(S::FORMAT, b));
        }
        let state = State {
            kind,
            desc: sampled,
            lanes: lanes_of::<T>(),
            format: T::FORMAT,
            normalized,
            channels: T::CHANNELS,
            width,
            height,
            pitch,
            data,
        };
        Ok(TextureObject {
            handle: register(state),
            desc,
            read_mode,
            #[cfg(feature = "gpu")]
            _gpu: None,
            _buffer: PhantomData,
            _read: PhantomData,
        })
    }

    #[cfg(feature = "gpu")]
    fn on_gpu<S: Texel>(
        desc: TextureDesc,
        read_mode: ReadMode,
        res: crate::gpu::texture::Resource<'_>,
    ) -> Result<Self, Error> {
        let g = crate::gpu::texture::GpuTexture::create(res, S::FORMAT, S::CHANNELS, read_mode, &desc)?;
        Ok(TextureObject {
            handle: g.handle(),
            desc,
            read_mode,
            _gpu: Some(g),
            _buffer: PhantomData,
            _read: PhantomData,
        })
    }

    fn over_linear<S: Texel>(buf: &'b DeviceBuffer<S>, desc: TextureDesc, mode: ReadMode) -> Result<Self, Error> {
        check_read::<S>(&desc, mode)?;
        if buf.is_empty() {
            return Err(invalid("a linear texture needs a buffer of at least one element".into()));
        }
        #[cfg(feature = "gpu")]
        if let Some((ptr, len)) = buf.device_address() {
            return Self::on_gpu::<S>(
                desc,
                mode,
                crate::gpu::texture::Resource::Linear { ptr, bytes: len * std::mem::size_of::<S>() },
            );
        }
        Self::emulated(Kind::Linear, desc, mode, buf.len(), 1, buf.len(), &buf.to_vec()?)
    }

    fn over_pitch<S: Texel>(
        buf: &'b DeviceBuffer<S>,
        width: usize,
        height: usize,
        pitch: usize,
        desc: TextureDesc,
        mode: ReadMode,
    ) -> Result<Self, Error> {
        check_read::<S>(&desc, mode)?;
        let size = std::mem::size_of::<S>();
        if width == 0 || height == 0 || pitch < width || (pitch * size) % PITCH_ALIGNMENT != 0 {
            return Err(invalid(format!(
                "a pitched texture of {width} x {height} texels needs width and height of at least 1 and a pitch of at \
                 least the width whose bytes are a multiple of {PITCH_ALIGNMENT} (pitch_for({width}) = {}); got pitch {pitch}",
                pitch_for::<S>(width)
            )));
        }
        if buf.len() < pitch * (height - 1) + width {
            return Err(invalid(format!(
                "a pitched texture of {height} rows of pitch {pitch} needs {} elements; the buffer has {}",
                pitch * (height - 1) + width,
                buf.len()
            )));
        }
        #[cfg(feature = "gpu")]
        if let Some((ptr, _)) = buf.device_address() {
            return Self::on_gpu::<S>(
                desc,
                mode,
                crate::gpu::texture::Resource::Pitch2d { ptr, width, height, pitch_bytes: pitch * size },
            );
        }
        Self::emulated(Kind::Pitch2d, desc, mode, width, height, pitch, &buf.to_vec()?)
    }

    /// A texture over all of `buf` (`cudaResourceTypeLinear`), read in kernels with
    /// [`Texture::fetch`] (`tex1Dfetch`): no filtering, no addressing, and an index outside
    /// the buffer reads zero, so `desc`'s filter and addressing modes do not apply (but
    /// integer texels, read as integers here, still refuse `FilterMode::Linear`, as CUDA does).
    pub fn linear(buf: &'b DeviceBuffer<T>, desc: TextureDesc) -> Result<Self, Error> {
        Self::over_linear(buf, desc, ReadMode::ElementType)
    }

    /// [`linear`](Self::linear) over 8- or 16-bit integer texels read as normalised floats
    /// (`cudaReadModeNormalizedFloat`): a `DeviceBuffer<u8>` gives a `Texture<f32>`, a
    /// `DeviceBuffer<[i16; 2]>` a `Texture<[f32; 2]>`.
    pub fn linear_normalized<S: IntegerTexel<Normalized = T>>(
        buf: &'b DeviceBuffer<S>,
        desc: TextureDesc,
    ) -> Result<Self, Error> {
        Self::over_linear(buf, desc, ReadMode::NormalizedFloat)
    }

    /// A 2-D texture of `width` × `height` texels over `buf`, whose rows start every `pitch`
    /// elements (`cudaResourceTypePitch2D`, as `cudaMallocPitch` lays them out), read with
    /// [`Texture::sample_2d`] (`tex2D`). `pitch * size_of::<T>()` must be a multiple of
    /// [`PITCH_ALIGNMENT`] (32 bytes, CUDA's rule on the H200); [`pitch_for`] gives the
    /// smallest such pitch. Integer texels, read as integers, allow point filtering only.
    pub fn pitch_2d(
        buf: &'b DeviceBuffer<T>,
        width: usize,
        height: usize,
        pitch: usize,
        desc: TextureDesc,
    ) -> Result<Self, Error> {
        Self::over_pitch(buf, width, height, pitch, desc, ReadMode::ElementType)
    }

    /// [`pitch_2d`](Self::pitch_2d) over 8- or 16-bit integer texels read as normalised floats;
    /// `pitch` counts texels of `S` (`pitch_for::<S>(width)`).
    pub fn pitch_2d_normalized<S: IntegerTexel<Normalized = T>>(
        buf: &'b DeviceBuffer<S>,
        width: usize,
        height: usize,
        pitch: usize,
        desc: TextureDesc,
    ) -> Result<Self, Error> {
        Self::over_pitch(buf, width, height, pitch, desc, ReadMode::NormalizedFloat)
    }

    /// The handle kernels take.
    pub fn texture(&self) -> Texture<T> {
        Texture::from_handle(self.handle)
    }

    /// How the texture is sampled.
    pub fn desc(&self) -> TextureDesc {
        self.desc
    }

    /// How the texels are read: [`ReadMode::NormalizedFloat`] for the `_normalized`
    /// constructors, else [`ReadMode::ElementType`].
    pub fn read_mode(&self) -> ReadMode {
        self.read_mode
    }
}

impl<T: Texel> TextureObject<'static, T> {
    fn array<S: Texel>(
        width: usize,
        height: usize,
        data: &[S],
        desc: TextureDesc,
        mode: ReadMode,
    ) -> Result<Self, Error> {
        check_read::<S>(&desc, mode)?;
        if on_gpu_target()? {
            #[cfg(feature = "gpu")]
            return Self::on_gpu::<S>(
                desc,
                mode,
                crate::gpu::texture::Resource::Array { width, height, data: bytes_of(data) },
            );
        }
        let (kind, rows) = if height == 0 { (Kind::Array1d, 1) } else { (Kind::Array2d, height) };
        Self::emulated(kind, desc, mode, width, rows, width, data)
    }

    fn array_1d_as<S: Texel>(data: &[S], desc: TextureDesc, mode: ReadMode) -> Result<Self, Error> {
        if data.is_empty() {
            return Err(invalid("a 1-D texture array needs at least one texel".into()));
        }
        Self::array(data.len(), 0, data, desc, mode)
    }

    fn array_2d_as<S: Texel>(
        width: usize,
        height: usize,
        data: &[S],
        desc: TextureDesc,
        mode: ReadMode,
    ) -> Result<Self, Error> {
        if width == 0 || height == 0 || data.len() != width * height {
            return Err(invalid(format!(
                "a 2-D texture array of {width} x {height} texels needs width and height of at least 1 and {} texels; got {}",
                width * height,
                data.len()
            )));
        }
        Self::array(width, height, data, desc, mode)
    }

    /// A 1-D CUDA array holding a copy of `data`, read with [`Texture::sample_1d`] (`tex1D`).
    /// Integer texels, read as integers, allow point filtering only.
    pub fn array_1d(data: &[T], desc: TextureDesc) -> Result<Self, Error> {
        Self::array_1d_as(data, desc, ReadMode::ElementType)
    }

    /// [`array_1d`](Self::array_1d) of 8- or 16-bit integer texels read as normalised floats.
    pub fn array_1d_normalized<S: IntegerTexel<Normalized = T>>(data: &[S], desc: TextureDesc) -> Result<Self, Error> {
        Self::array_1d_as(data, desc, ReadMode::NormalizedFloat)
    }

    /// A 2-D CUDA array of `width` × `height` texels holding a copy of `data` (row after
    /// row), read with [`Texture::sample_2d`] (`tex2D`). Integer texels, read as integers,
    /// allow point filtering only.
    pub fn array_2d(width: usize, height: usize, data: &[T], desc: TextureDesc) -> Result<Self, Error> {
        Self::array_2d_as(width, height, data, desc, ReadMode::ElementType)
    }

    /// [`array_2d`](Self::array_2d) of 8- or 16-bit integer texels read as normalised floats:
    /// an RGBA image of `[u8; 4]` gives a `Texture<[f32; 4]>`.
    pub fn array_2d_normalized<S: IntegerTexel<Normalized = T>>(
        width: usize,
        height: usize,
        data: &[S],
        desc: TextureDesc,
    ) -> Result<Self, Error> {
        Self::array_2d_as(width, height, data, desc, ReadMode::NormalizedFloat)
    }
}

impl<T: Texel> Drop for TextureObject<'_, T> {
    fn drop(&mut self) {
        if self.handle & EMU_TAG == EMU_TAG {
            unregister(self.handle);
        }
        // A GPU object is destroyed by its `GpuTexture`'s `Drop`.
    }
}

/// The smallest pitch, in elements, of rows of `width` texels that [`TextureObject::pitch_2d`]
/// accepts (rows padded to [`PITCH_ALIGNMENT`] bytes, as `cudaMallocPitch` pads them).
pub fn pitch_for<T: Texel>(width: usize) -> usize {
    let size = std::mem::size_of::<T>();
    (width * size).div_ceil(PITCH_ALIGNMENT) * PITCH_ALIGNMENT / size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetch(t: &TextureObject<'_, [f32; 2]>, i: i32) -> Option<[f32; 4]> {
        fetch_hot(t.texture().handle(), 2, Lanes::Float, Format::F32, i)
    }

    /// The hot entry answers only for the object and type `with` last allowed a fetch of, reads
    /// its texels (zero past them), and stops answering once any object is dropped.
    #[test]
    fn the_hot_fetch_follows_the_lookup_and_the_epoch() {
        let texels: Vec<[f32; 2]> = (0..5).map(|i| [i as f32, -(i as f32)]).collect();
        let buf = DeviceBuffer::from_slice(&texels).unwrap();
        let t = TextureObject::linear(&buf, TextureDesc::new()).unwrap();
        let other = TextureObject::array_1d(&[1.0f32, 2.0], TextureDesc::new()).unwrap();
        let h = t.texture().handle();
        let looked_up = |i| with(h, 2, Lanes::Float, Format::F32, Read::Fetch, |x, _, _| sampler::fetch_1d(x, i));
        HOT.with(|c| c.set(None));
        assert_eq!(fetch(&t, 1), None, "nothing looked up yet");
        assert_eq!(looked_up(3), [3.0, -3.0, 0.0, 0.0]);
        assert_eq!(fetch(&t, 4), Some([4.0, -4.0, 0.0, 0.0]));
        assert_eq!(fetch(&t, 5), Some([0.0; 4]), "past the texels");
        assert_eq!(fetch(&t, -1), Some([0.0; 4]), "before them");
        assert_eq!(fetch_hot(h, 1, Lanes::Float, Format::F32, 0), None, "another type");
        assert_eq!(fetch_hot(other.texture().handle(), 1, Lanes::Float, Format::F32, 0), None, "another object");
        // Dropping any object moves the epoch: the next fetch looks up again.
        drop(other);
        assert_eq!(fetch(&t, 2), None);
        assert_eq!(looked_up(2), [2.0, -2.0, 0.0, 0.0]);
        assert_eq!(fetch(&t, 2), Some([2.0, -2.0, 0.0, 0.0]));
    }
}
