//! Texture objects on the GPU: `cuTexObjectCreate` over a buffer's device memory (linear or
//! pitched 2-D) or over a CUDA array (`cuArrayCreate` + a copy of the host texels), through
//! cudarc's driver `sys` bindings (cudarc has no safe layer for textures). Texels are f32 or
//! 8- and 16-bit integers (`CU_AD_FORMAT_*`); integer texels read as integers set
//! `CU_TRSF_READ_AS_INTEGER`, and without it the texture unit reads them as normalised floats.

use std::ffi::c_void;

use cudarc::driver::sys::{self, CUaddress_mode, CUarray_format, CUfilter_mode, CUresourcetype};

use super::{driver_error, gpu};
use crate::device::texture::{AddressMode, FilterMode, Format, ReadMode, TextureDesc};
use crate::host::report::error::Error;

/// What a GPU texture object reads.
#[derive(Debug)]
pub(crate) enum Resource<'a> {
    /// `bytes` of device memory at `ptr`.
    Linear { ptr: u64, bytes: usize },
    /// Rows of `width` texels every `pitch_bytes`, at `ptr`.
    Pitch2d { ptr: u64, width: usize, height: usize, pitch_bytes: usize },
    /// A CUDA array of `width` × `height` texels (`height` 0: 1-D) holding `data` (the
    /// texels' bytes, channels interleaved).
    Array { width: usize, height: usize, data: &'a [u8] },
}

/// A texture object and the array it owns, destroyed on drop.
#[derive(Debug)]
pub(crate) struct GpuTexture {
    object: sys::CUtexObject,
    array: Option<sys::CUarray>,
}

// SAFETY: the handles are plain driver handles; the driver API is thread-safe and the object
// is only destroyed once, in `Drop`.
unsafe impl Send for GpuTexture {}
// SAFETY: as above; `&GpuTexture` only reads the handle.
unsafe impl Sync for GpuTexture {}

fn mode(m: AddressMode) -> CUaddress_mode {
    match m {
        AddressMode::Wrap => CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::Clamp => CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Mirror => CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR,
        AddressMode::Border => CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
    }
}

impl GpuTexture {
    /// Creates the object (and its array) for `channels`-channel texels of `texel_format`,
    /// read as `read_mode` says.
    pub(crate) fn create(
        res: Resource<'_>,
        texel_format: Format,
        channels: usize,
        read_mode: ReadMode,
        desc: &TextureDesc,
    ) -> Result<GpuTexture, Error> {
        let g = gpu()?;
        g.bind()?;
        let format = match texel_format {
            Format::F32 => CUarray_format::CU_AD_FORMAT_FLOAT,
            Format::U8 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
            Format::I8 => CUarray_format::CU_AD_FORMAT_SIGNED_INT8,
            Format::U16 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16,
            Format::I16 => CUarray_format::CU_AD_FORMAT_SIGNED_INT16,
        };
        let mut rd = sys::CUDA_RESOURCE_DESC {
            resType: CUresourcetype::CU_RESOURCE_TYPE_LINEAR,
            res: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
                reserved: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 { reserved: [0; 32] },
            },
            flags: 0,
        };
        let mut array = None;
        match res {
            Resource::Linear { ptr, bytes } => {
                rd.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
                rd.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                    devPtr: ptr,
                    format,
                    numChannels: channels as u32,
                    sizeInBytes: bytes,
                };
            }
            Resource::Pitch2d { ptr, width, height, pitch_bytes } => {
                rd.resType = CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
                rd.res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
                    devPtr: ptr,
                    format,
                    numChannels: channels as u32,
                    width,
                    height,
                    pitchInBytes: pitch_bytes,
                };
            }
            Resource::Array { width, height, data } => {
                let ad = sys::CUDA_ARRAY_DESCRIPTOR {
                    Width: width,
                    Height: height,
                    Format: format,
                    NumChannels: channels as u32,
                };
                let mut a: sys::CUarray = std::ptr::null_mut();
                // SAFETY: `ad` is a valid descriptor and `a` a place for the handle.
                unsafe { sys::cuArrayCreate_v2(&mut a, &ad) }
                    .result()
                    .map_err(|e| driver_error(e, "creating a CUDA array"))?;
                let row = width * channels * texel_format.bytes();
                let copy = sys::CUDA_MEMCPY2D {
                    srcXInBytes: 0,
                    srcY: 0,
                    srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
                    srcHost: data.as_ptr() as *const c_void,
                    srcDevice: 0,
                    srcArray: std::ptr::null_mut(),
                    srcPitch: row,
                    dstXInBytes: 0,
                    dstY: 0,
                    dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
                    dstHost: std::ptr::null_mut(),
                    dstDevice: 0,
                    dstArray: a,
                    dstPitch: 0,
                    WidthInBytes: row,
                    Height: height.max(1),
                };
                debug_assert_eq!(data.len(), row * height.max(1));
                // SAFETY: `data` holds `width * max(height, 1)` texels of `channels` channels
                // of `texel_format`, the array was created with that shape; the copy is
                // synchronous.
                let copied = unsafe { sys::cuMemcpy2D_v2(&copy) }.result();
                if let Err(e) = copied {
                    // SAFETY: created above, destroyed once.
                    unsafe { sys::cuArrayDestroy(a) };
                    return Err(driver_error(e, "copying texels to a CUDA array"));
                }
                array = Some(a);
                rd.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
                rd.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: a };
            }
        }
        let filter = match desc.filter {
            FilterMode::Point => CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            FilterMode::Linear => CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
        };
        let td = sys::CUDA_TEXTURE_DESC {
            addressMode: [mode(desc.address[0]), mode(desc.address[1]), mode(desc.address[1])],
            filterMode: filter,
            flags: (if desc.normalized { sys::CU_TRSF_NORMALIZED_COORDINATES } else { 0 })
                | (if texel_format.is_integer() && read_mode == ReadMode::ElementType {
                    sys::CU_TRSF_READ_AS_INTEGER
                } else {
                    0
                }),
            maxAnisotropy: 0,
            mipmapFilterMode: CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            mipmapLevelBias: 0.0,
            minMipmapLevelClamp: 0.0,
            maxMipmapLevelClamp: 0.0,
            borderColor: desc.border,
            reserved: [0; 12],
        };
        let mut object: sys::CUtexObject = 0;
        // SAFETY: valid descriptors; the resource (device memory borrowed by the host object,
        // or the array owned here) outlives the texture object.
        let created = unsafe { sys::cuTexObjectCreate(&mut object, &rd, &td, std::ptr::null()) }.result();
        if let Err(e) = created {
            if let Some(a) = array {
                // SAFETY: created above, destroyed once.
                unsafe { sys::cuArrayDestroy(a) };
            }
            return Err(driver_error(e, "creating a texture object"));
        }
        Ok(GpuTexture { object, array })
    }

    /// The handle kernels take.
    pub(crate) fn handle(&self) -> u64 {
        self.object
    }
}

impl Drop for GpuTexture {
    fn drop(&mut self) {
        if let Ok(g) = gpu() {
            let _ = g.bind();
            // SAFETY: created by `create`, destroyed once; no launch runs (launches are
            // synchronous and borrow nothing of this object past their end).
            unsafe {
                sys::cuTexObjectDestroy(self.object);
                if let Some(a) = self.array {
                    sys::cuArrayDestroy(a);
                }
            }
        }
    }
}
