//! Copies at device addresses (parts of buffers, device to device) and the device addresses
//! of `#[constant]` and `#[device_global]` statics in a loaded module (`cuModuleGetGlobal`).
//! The host-blocking copies first wait for the device's queued work (`stream::settle`), as the
//! whole-buffer copies do.

use cudarc::driver::{result, DevicePtr};

use super::{driver_error, gpu, stream};
use crate::host::report::error::Error;

/// Copies `src` to device address `dst`.
pub(crate) fn upload<T>(dst: u64, src: &[T]) -> Result<(), Error> {
    stream::settle(crate::host::devices::current())?;
    gpu()?.bind()?;
    // SAFETY: `dst` starts a device range of at least `size_of_val(src)` bytes (a slice of a
    // live allocation, or a module global of that size, checked by the callers).
    unsafe { result::memcpy_htod_sync(dst, src) }.map_err(|e| driver_error(e, "copying to the GPU"))
}

/// Copies from device address `src` into `dst`.
pub(crate) fn download<T>(src: u64, dst: &mut [T]) -> Result<(), Error> {
    stream::settle(crate::host::devices::current())?;
    gpu()?.bind()?;
    // SAFETY: as in `upload`; `T: DeviceCopy` values are valid for any bytes.
    unsafe { result::memcpy_dtoh_sync(dst, src) }.map_err(|e| driver_error(e, "copying from the GPU"))
}

/// Copies `bytes` bytes from device address `src` to `dst`.
pub(crate) fn device_to_device(dst: u64, src: u64, bytes: usize) -> Result<(), Error> {
    gpu()?.bind()?;
    // SAFETY: both ranges lie in live allocations of at least `bytes` bytes (callers).
    unsafe { result::memcpy_dtod_sync(dst, src, bytes) }.map_err(|e| driver_error(e, "copying on the GPU"))
}

/// The device address and size of the global `name` of the module `ptx` (loaded on first use).
pub(crate) fn symbol(ptx: &'static str, name: &str) -> Result<(u64, usize), Error> {
    let g = gpu()?;
    g.bind()?;
    let module = g.module(ptx)?;
    let view = module
        .get_global(name, &g.stream)
        .map_err(|e| driver_error(e, &format!("finding the symbol `{name}` in its PTX module")))?;
    let (ptr, _sync) = view.device_ptr(&g.stream);
    Ok((ptr, view.len()))
}

/// The initial values of a module's `#[constant]` statics: each `.const` symbol
/// `__emu_const_NAME` has its initialiser in the `.global` symbol `__emu_cinit_NAME` (the
/// nvptx backend cannot put initialised data in `.const`), copied over when the module loads.
pub(crate) fn init_constants(module: &std::sync::Arc<cudarc::driver::CudaModule>, ptx: &str) -> Result<(), Error> {
    let g = gpu()?;
    for name in ptx.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| w.starts_with("__emu_cinit_"))
    {
        let target = name.replacen("__emu_cinit_", "__emu_const_", 1);
        let get = |n: &str| {
            module
                .get_global(n, &g.stream)
                .map(|v| (v.device_ptr(&g.stream).0, v.len()))
                .map_err(|e| driver_error(e, &format!("finding the symbol `{n}` in its PTX module")))
        };
        let (from, bytes) = get(name)?;
        let (to, cbytes) = get(&target)?;
        device_to_device(to, from, bytes.min(cbytes))?;
    }
    Ok(())
}
