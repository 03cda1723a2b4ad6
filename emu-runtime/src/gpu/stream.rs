//! Streams, events and asynchronous copies on the GPU: CUDA streams and events through
//! cudarc's driver layer, with no synchronisation per launch.
//!
//! A `Stream` made while the target is the GPU holds a [`GpuStream`]: a `cuStreamCreate`
//! stream (`CU_STREAM_DEFAULT` for `Stream::new`, `CU_STREAM_NON_BLOCKING` for
//! `Stream::non_blocking`), or the legacy default stream (`CU_STREAM_LEGACY`) or the per-thread
//! default stream (`CU_STREAM_PER_THREAD`) for `Stream::default_stream`. Launches on it are
//! `cuLaunchKernel` calls that return at once (the parameters are copied by the driver at the
//! call); `EMU_LAUNCH_BLOCKING=1` synchronises the stream after each. Faults come back from
//! the synchronising calls as driver errors with CUDA's codes (and are sticky, as on CUDA).
//!
//! Buffer safety on the GPU: work in one stream is ordered by the stream; the blocking copies
//! (`to_vec`, `copy_from_slice`), the release of a `DeviceBuffer` or `HostBuffer` and the host's
//! access to a `HostBuffer` that an asynchronous copy used synchronise the context first, so
//! they never race queued work of any stream. Queued work on two streams that share a buffer
//! is ordered by events, as in CUDA (the emulator orders it by itself).

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{result, sys};

use crate::gpu::{driver_error, gpu};
use crate::host::report::error::Error;
use crate::host::sched::launch::{GpuArg, KernelInfo, LaunchConfig};

/// A CUDA stream handle, destroyed with its last `Stream` when it was created here.
#[derive(Debug)]
pub(crate) struct GpuStream {
    pub(crate) raw: sys::CUstream,
    owned: bool,
}

// SAFETY: a CUDA stream handle may be used from any host thread of the process (the context is
// bound before each use).
unsafe impl Send for GpuStream {}
// SAFETY: as above; the driver serialises calls on a stream.
unsafe impl Sync for GpuStream {}

impl Drop for GpuStream {
    fn drop(&mut self) {
        if self.owned {
            if let Ok(g) = gpu() {
                let _ = g.bind();
                // SAFETY: created by `cuStreamCreate` here, destroyed once; queued work still
                // completes (cuStreamDestroy's contract).
                let _ = unsafe { result::stream::destroy(self.raw) };
            }
        }
    }
}

/// Whether any asynchronous work was queued on the GPU (the blocking calls then synchronise the
/// context first).
static QUEUED: AtomicBool = AtomicBool::new(false);

/// A new stream: blocking (synchronises with the legacy default stream) or not.
pub(crate) fn create(blocking: bool) -> Result<GpuStream, Error> {
    gpu()?.bind()?;
    let kind = if blocking { result::stream::StreamKind::Default } else { result::stream::StreamKind::NonBlocking };
    let raw = result::stream::create(kind).map_err(|e| driver_error(e, "creating a stream"))?;
    Ok(GpuStream { raw, owned: true })
}

/// The legacy default stream, or this host thread's default stream.
pub(crate) fn default_stream(per_thread: bool) -> GpuStream {
    // CU_STREAM_LEGACY is 0x1 and CU_STREAM_PER_THREAD 0x2 (cuda.h): special handles every
    // stream-taking driver call accepts.
    let raw = if per_thread { 0x2usize } else { 0x1usize } as sys::CUstream;
    GpuStream { raw, owned: false }
}

/// Waits for everything queued on the GPU (`cuCtxSynchronize`) when asynchronous work was ever
/// queued: before blocking copies and releases.
pub(crate) fn settle() -> Result<(), Error> {
    if QUEUED.load(Ordering::Acquire) {
        device_synchronize()?;
    }
    Ok(())
}

/// `cuCtxSynchronize`.
pub(crate) fn device_synchronize() -> Result<(), Error> {
    gpu()?.bind()?;
    result::ctx::synchronize().map_err(|e| driver_error(e, "synchronising the device"))
}

/// `cuStreamSynchronize`.
pub(crate) fn synchronize(s: &GpuStream) -> Result<(), Error> {
    gpu()?.bind()?;
    // SAFETY: a valid stream handle (created here or a special handle).
    unsafe { result::stream::synchronize(s.raw) }.map_err(|e| driver_error(e, "synchronising a stream"))
}

/// `cuStreamQuery`: `Ok(false)` for CUDA_ERROR_NOT_READY.
pub(crate) fn query(s: &GpuStream) -> Result<bool, Error> {
    gpu()?.bind()?;
    // SAFETY: a valid stream handle.
    match unsafe { sys::cuStreamQuery(s.raw) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(driver_error(cudarc::driver::DriverError(e), "querying a stream")),
    }
}

/// Launches `kernel` on `s` and returns at once (or, blocking, after it).
pub(crate) fn launch(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    max_shared: usize,
    args: &[GpuArg<'_>],
    s: &GpuStream,
    blocking: bool,
) -> Result<(), Error> {
    QUEUED.store(true, Ordering::Release);
    crate::gpu::launch_on(kernel, ptx, cfg, max_shared, args, s.raw)?;
    if blocking {
        synchronize(s).map_err(|e| rename(e, kernel))?;
    }
    Ok(())
}

fn rename(e: Error, kernel: &KernelInfo) -> Error {
    match e {
        Error::Driver { code, name, message } => Error::Driver { code, name, message: format!("running kernel `{}`: {message}", kernel.name) },
        other => other,
    }
}

/// A CUDA event.
#[derive(Debug)]
pub(crate) struct GpuEvent {
    raw: sys::CUevent,
}

// SAFETY: event handles may be used from any host thread of the process.
unsafe impl Send for GpuEvent {}
// SAFETY: as above.
unsafe impl Sync for GpuEvent {}

impl Drop for GpuEvent {
    fn drop(&mut self) {
        if let Ok(g) = gpu() {
            let _ = g.bind();
            // SAFETY: created by `cuEventCreate`, destroyed once.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

impl GpuEvent {
    pub(crate) fn new(timing: bool) -> Result<GpuEvent, Error> {
        gpu()?.bind()?;
        let flags = if timing { sys::CUevent_flags::CU_EVENT_DEFAULT } else { sys::CUevent_flags::CU_EVENT_DISABLE_TIMING };
        let raw = result::event::create(flags).map_err(|e| driver_error(e, "creating an event"))?;
        Ok(GpuEvent { raw })
    }

    pub(crate) fn record(&self, s: &GpuStream) -> Result<(), Error> {
        gpu()?.bind()?;
        QUEUED.store(true, Ordering::Release);
        // SAFETY: valid event and stream handles.
        unsafe { result::event::record(self.raw, s.raw) }.map_err(|e| driver_error(e, "recording an event"))
    }

    pub(crate) fn wait_on(&self, s: &GpuStream) -> Result<(), Error> {
        gpu()?.bind()?;
        // SAFETY: valid event and stream handles.
        unsafe { result::stream::wait_event(s.raw, self.raw, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .map_err(|e| driver_error(e, "making a stream wait for an event"))
    }

    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        gpu()?.bind()?;
        // SAFETY: a valid event handle.
        unsafe { result::event::synchronize(self.raw) }.map_err(|e| driver_error(e, "synchronising an event"))
    }

    pub(crate) fn query(&self) -> Result<bool, Error> {
        gpu()?.bind()?;
        // SAFETY: a valid event handle.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(driver_error(cudarc::driver::DriverError(e), "querying an event")),
        }
    }

    pub(crate) fn elapsed(start: &GpuEvent, end: &GpuEvent) -> Result<f32, Error> {
        gpu()?.bind()?;
        // SAFETY: valid event handles.
        unsafe { result::event::elapsed(start.raw, end.raw) }.map_err(|e| driver_error(e, "reading an event's time"))
    }
}

/// Page-locked host memory of `bytes` bytes, zeroed (`cuMemHostAlloc`).
pub(crate) fn alloc_pinned(bytes: usize) -> Result<*mut c_void, Error> {
    gpu()?.bind()?;
    // SAFETY: the context is bound; the memory is freed by `free_pinned`.
    let p = unsafe { result::malloc_host(bytes.max(1), 0) }.map_err(|e| match driver_error(e, "allocating pinned host memory") {
        Error::Driver { code: 2, .. } => Error::MemoryAllocation { bytes },
        other => other,
    })?;
    // SAFETY: `p` is a fresh allocation of at least `bytes` bytes.
    unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
    Ok(p)
}

/// Frees pinned memory once nothing queued can use it.
///
/// # Safety
///
/// `p` came from [`alloc_pinned`] and is freed once.
pub(crate) unsafe fn free_pinned(p: *mut c_void) {
    let _ = settle();
    if let Ok(g) = gpu() {
        let _ = g.bind();
        // SAFETY: the caller's contract.
        let _ = unsafe { result::free_host(p) };
    }
}

/// Queues a host-to-device copy of `bytes` bytes.
///
/// # Safety
///
/// `src` is valid for `bytes` bytes until the copy completes; `dst` is a device allocation of at
/// least `bytes` bytes.
pub(crate) unsafe fn copy_htod_async(dst: u64, src: *const u8, bytes: usize, s: &GpuStream) -> Result<(), Error> {
    gpu()?.bind()?;
    QUEUED.store(true, Ordering::Release);
    // SAFETY: the caller's contract.
    unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, bytes, s.raw) }
        .result()
        .map_err(|e| driver_error(e, "queuing a copy to the GPU"))
}

/// Queues a device-to-host copy of `bytes` bytes.
///
/// # Safety
///
/// As for [`copy_htod_async`], with `dst` the host memory.
pub(crate) unsafe fn copy_dtoh_async(dst: *mut u8, src: u64, bytes: usize, s: &GpuStream) -> Result<(), Error> {
    gpu()?.bind()?;
    QUEUED.store(true, Ordering::Release);
    // SAFETY: the caller's contract.
    unsafe { sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, s.raw) }
        .result()
        .map_err(|e| driver_error(e, "queuing a copy from the GPU"))
}

/// Queues zeroing `bytes` bytes of device memory.
///
/// # Safety
///
/// `dst` is a device allocation of at least `bytes` bytes.
pub(crate) unsafe fn memset_zero_async(dst: u64, bytes: usize, s: &GpuStream) -> Result<(), Error> {
    gpu()?.bind()?;
    QUEUED.store(true, Ordering::Release);
    // SAFETY: the caller's contract.
    unsafe { result::memset_d8_async(dst, 0, bytes, s.raw) }.map_err(|e| driver_error(e, "queuing a memset"))
}

/// A device-to-device copy on the GPU (`copy_from_peer`; the gpu target uses one device).
///
/// # Safety
///
/// Both are device allocations of at least `bytes` bytes.
pub(crate) unsafe fn copy_dtod(dst: u64, src: u64, bytes: usize) -> Result<(), Error> {
    settle()?;
    gpu()?.bind()?;
    // SAFETY: the caller's contract.
    unsafe { result::memcpy_dtod_sync(dst, src, bytes) }.map_err(|e| driver_error(e, "copying between device buffers"))
}

/// The number of GPUs.
pub(crate) fn device_count() -> Result<u32, Error> {
    gpu()?;
    result::device::get_count().map(|n| n as u32).map_err(|e| driver_error(e, "counting devices"))
}
