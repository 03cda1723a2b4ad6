//! [`HostBuffer`] (page-locked host memory on the GPU) and the asynchronous copies of
//! `DeviceBuffer`.
//!
//! A queued copy holds a handle to both buffers' memory (so neither can be freed under it)
//! and is recorded in both buffers' pending work (`devices::Pending`): the host's accesses to
//! a `HostBuffer` wait for the queued copies that write it (reads) or use it (writes, drop),
//! and the borrow checker keeps the host from holding a slice of it across a call that
//! queues a copy into it (`tests/ui/host_buffer_*.rs`).

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::device::DeviceCopy;
use crate::host::devices::{self, Done, Pending};
use crate::host::mem::buffer::DeviceBuffer;
use crate::host::report::error::Error;
use crate::host::report::last_error;
use crate::host::stream::Stream;

/// Host memory for asynchronous copies (`cudaMallocHost`: page-locked on the GPU, plain host
/// memory in the emulator).
///
/// [`DeviceBuffer::copy_from_host_async`] and [`DeviceBuffer::copy_to_host_async`] queue
/// copies from and into it; [`as_slice`](Self::as_slice) waits for the queued copies that write
/// it and [`as_mut_slice`](Self::as_mut_slice) and drop for all that use it.
pub struct HostBuffer<T: DeviceCopy> {
    store: Arc<HostStorage<T>>,
    /// A handle held by a queued copy: it never waits.
    queued: bool,
}

struct HostStorage<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    /// Page-locked by the CUDA driver (made while the target is the GPU).
    pinned: bool,
    pending: Mutex<Pending>,
    marker: PhantomData<T>,
}

// SAFETY: the storage owns its memory like a `Box<[T]>`; the host and queued copies access it
// in the order `pending` imposes.
unsafe impl<T: DeviceCopy> Send for HostStorage<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for HostStorage<T> {}

impl<T: DeviceCopy> Drop for HostStorage<T> {
    fn drop(&mut self) {
        #[cfg(feature = "gpu")]
        if self.pinned {
            // SAFETY: allocated by `alloc_pinned` in `zeroed`; freed once, after the context
            // settled (`free_pinned`).
            unsafe { crate::gpu::stream::free_pinned(self.ptr.as_ptr() as *mut std::ffi::c_void) };
            return;
        }
        // SAFETY: made from a `Box<[T]>` of `len` elements in `from_vec`; the last handle is gone.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) });
    }
}

impl<T: DeviceCopy> HostBuffer<T> {
    fn from_vec(v: Vec<T>) -> Self {
        let len = v.len();
        let raw = Box::into_raw(v.into_boxed_slice()) as *mut T;
        // SAFETY: `Box::into_raw` never returns null.
        let ptr = unsafe { NonNull::new_unchecked(raw) };
        HostBuffer {
            store: Arc::new(HostStorage {
                ptr,
                len,
                pinned: false,
                pending: Mutex::new(Pending::default()),
                marker: PhantomData,
            }),
            queued: false,
        }
    }

    /// A pinned buffer of `len` zero elements, when the target is the GPU.
    #[cfg(feature = "gpu")]
    fn pinned(len: usize) -> Result<Option<Self>, Error> {
        if crate::host::config::effective()?.get_target() != crate::host::config::Target::Gpu {
            return Ok(None);
        }
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::MemoryAllocation { bytes: usize::MAX })?;
        let p = crate::gpu::stream::alloc_pinned(bytes)? as *mut T;
        // SAFETY: `alloc_pinned` never returns null on success.
        let ptr = unsafe { NonNull::new_unchecked(p) };
        Ok(Some(HostBuffer {
            store: Arc::new(HostStorage {
                ptr,
                len,
                pinned: true,
                pending: Mutex::new(Pending::default()),
                marker: PhantomData,
            }),
            queued: false,
        }))
    }

    /// Before the host touches a pinned buffer: the GPU's queued copies have completed.
    fn settle(&self) {
        #[cfg(feature = "gpu")]
        if self.store.pinned {
            let _ = crate::gpu::stream::settle_all();
        }
    }

    /// A buffer of `len` zero elements.
    pub fn zeroed(len: usize) -> Result<Self, Error> {
        #[cfg(feature = "gpu")]
        if let Some(b) = Self::pinned(len)? {
            return Ok(b);
        }
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| Error::MemoryAllocation { bytes: len.saturating_mul(std::mem::size_of::<T>()) })?;
        // SAFETY: all-zero bytes are a valid `T` (a `DeviceCopy` requirement).
        v.resize(len, unsafe { std::mem::zeroed() });
        Ok(Self::from_vec(v))
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(data: &[T]) -> Result<Self, Error> {
        #[cfg(feature = "gpu")]
        if let Some(mut b) = Self::pinned(data.len())? {
            b.as_mut_slice().copy_from_slice(data);
            return Ok(b);
        }
        let mut v = Vec::new();
        v.try_reserve_exact(data.len()).map_err(|_| Error::MemoryAllocation { bytes: std::mem::size_of_val(data) })?;
        v.extend_from_slice(data);
        Ok(Self::from_vec(v))
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.store.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.store.len == 0
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.store.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The contents, once the queued copies into the buffer have completed (it waits for
    /// them).
    pub fn as_slice(&self) -> &[T] {
        self.settle();
        if !self.queued {
            let w = self.pending().writer();
            if let Some(w) = w {
                w.wait();
            }
        }
        // SAFETY: valid for `len` initialised elements; no queued copy writes it now (the
        // writer finished, and queuing a new one needs `&mut self`, which this borrow excludes).
        unsafe { std::slice::from_raw_parts(self.store.ptr.as_ptr(), self.store.len) }
    }

    /// The contents, writable, once every queued copy that uses the buffer has completed.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.settle();
        self.wait_all();
        // SAFETY: as above; no queued copy uses it now, and `&mut self` excludes new ones.
        unsafe { std::slice::from_raw_parts_mut(self.store.ptr.as_ptr(), self.store.len) }
    }

    /// A copy of the contents (waits as [`as_slice`](Self::as_slice)).
    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    fn wait_all(&self) {
        if self.queued {
            return;
        }
        let all = self.pending().all();
        for d in all {
            d.wait();
        }
    }

    fn share(&self) -> HostBuffer<T> {
        HostBuffer { store: self.store.clone(), queued: true }
    }

    /// The memory, for a queued copy.
    pub(crate) fn raw_ptr(&self) -> *mut T {
        self.store.ptr.as_ptr()
    }
}

impl<T: DeviceCopy> Drop for HostBuffer<T> {
    /// Waits for the queued copies that use the buffer (`cudaFreeHost` synchronises too).
    fn drop(&mut self) {
        self.wait_all();
    }
}

impl<T: DeviceCopy + fmt::Debug> fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostBuffer")
            .field("len", &self.store.len)
            .field("pinned", &self.store.pinned)
            .finish_non_exhaustive()
    }
}

/// A raw pointer a queued copy carries to its worker.
struct SendPtr<T>(*mut T);
// SAFETY: the memory it points to is kept alive by the job's buffer handles, and the item's
// dependencies order every other access to it.
unsafe impl<T> Send for SendPtr<T> {}

fn length_error(what: &str, a: usize, b: usize) -> Error {
    let e = Error::InvalidValue { message: format!("{what}: the source has {a} elements but the destination has {b}") };
    last_error::record(&e);
    e
}

fn stream_device_check<T: DeviceCopy>(what: &str, buf: &DeviceBuffer<T>, stream: &Stream) -> Result<(), Error> {
    devices::check_sticky()?;
    if buf.device() != stream.device() {
        let e = Error::InvalidValue {
            message: format!(
                "{what}: the buffer belongs to device {} but the stream to device {}; queue it on a stream of the buffer's device",
                buf.device(),
                stream.device()
            ),
        };
        last_error::record(&e);
        return Err(e);
    }
    Ok(())
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Queues a copy of `src` into this buffer on `stream` (`cudaMemcpyAsync` host to device)
    /// and returns at once; both must have the same length. The copy waits for the queued work
    /// that uses this buffer and that writes `src`, whatever their streams.
    pub fn copy_from_host_async(&mut self, src: &HostBuffer<T>, stream: &Stream) -> Result<(), Error> {
        stream_device_check("copy_from_host_async", self, stream)?;
        if src.len() != self.len() {
            return Err(length_error("copy_from_host_async", src.len(), self.len()));
        }
        #[cfg(feature = "gpu")]
        if let Some((dst, _)) = self.device_address() {
            let s = gpu_stream("copy_from_host_async", stream)?;
            // SAFETY: `src` holds `bytes()` bytes and stays allocated until the copy completes
            // (its release settles the context); `dst` is this buffer's device allocation.
            return crate::host::stream::record_gpu(unsafe {
                crate::gpu::stream::copy_htod_async(dst, src.raw_ptr() as *const u8, self.bytes(), s)
            });
        }
        let done = Done::new();
        let mut deps = self.pending().add_write(&done);
        deps.extend(src.pending().add_read(&done));
        let (dst, srch) = (self.share(), src.share());
        let (to, from, n) = (SendPtr(dst.raw_ptr()), SendPtr(srch.raw_ptr()), self.len());
        let job = Box::new(move || {
            let (to, from) = (to, from);
            // SAFETY: both hold `n` elements, kept alive by `dst` and `srch`; this item is the
            // destination's only user and the source's writers finished (its dependencies).
            unsafe { std::ptr::copy_nonoverlapping(from.0, to.0, n) };
            dst.assume_written();
            drop(srch);
            Ok(())
        });
        stream.shared.enqueue(done, deps, Some(job), devices::sticky_on());
        Ok(())
    }

    /// Queues a copy of this buffer into `dst` on `stream` (`cudaMemcpyAsync` device to host)
    /// and returns at once; both must have the same length. `dst.as_slice()` waits for it.
    pub fn copy_to_host_async(&self, dst: &mut HostBuffer<T>, stream: &Stream) -> Result<(), Error> {
        stream_device_check("copy_to_host_async", self, stream)?;
        if dst.len() != self.len() {
            return Err(length_error("copy_to_host_async", self.len(), dst.len()));
        }
        #[cfg(feature = "gpu")]
        if let Some((from, _)) = self.device_address() {
            let s = gpu_stream("copy_to_host_async", stream)?;
            // SAFETY: as in `copy_from_host_async`, with `dst` the host memory; the host reads
            // it only after the context settled (`as_slice`).
            return crate::host::stream::record_gpu(unsafe {
                crate::gpu::stream::copy_dtoh_async(dst.raw_ptr() as *mut u8, from, self.bytes(), s)
            });
        }
        let done = Done::new();
        let mut deps = dst.pending().add_write(&done);
        deps.extend(self.pending().add_read(&done));
        let (srch, dsth) = (self.share(), dst.share());
        let (to, from, n) = (SendPtr(dsth.raw_ptr()), SendPtr(srch.raw_ptr()), self.len());
        let job = Box::new(move || {
            let (to, from) = (to, from);
            // SAFETY: as in `copy_from_host_async`, with the roles swapped.
            unsafe { std::ptr::copy_nonoverlapping(from.0, to.0, n) };
            drop((srch, dsth));
            Ok(())
        });
        stream.shared.enqueue(done, deps, Some(job), devices::sticky_on());
        Ok(())
    }

    /// Queues setting every byte of the buffer to zero on `stream` (`cudaMemsetAsync(0)`) and
    /// returns at once.
    pub fn memset_zero_async(&mut self, stream: &Stream) -> Result<(), Error> {
        stream_device_check("memset_zero_async", self, stream)?;
        #[cfg(feature = "gpu")]
        if let Some((dst, _)) = self.device_address() {
            let s = gpu_stream("memset_zero_async", stream)?;
            // SAFETY: this buffer's device allocation, `bytes()` bytes.
            return crate::host::stream::record_gpu(unsafe {
                crate::gpu::stream::memset_zero_async(dst, self.bytes(), s)
            });
        }
        let done = Done::new();
        let deps = self.pending().add_write(&done);
        let dst = self.share();
        let (to, bytes) = (SendPtr(dst.raw_ptr() as *mut u8), self.bytes());
        let job = Box::new(move || {
            let to = to;
            // SAFETY: `bytes` bytes kept alive by `dst`, this item its only user; all-zero
            // bytes are a valid `T`.
            unsafe { std::ptr::write_bytes(to.0, 0, bytes) };
            dst.assume_written();
            Ok(())
        });
        stream.shared.enqueue(done, deps, Some(job), devices::sticky_on());
        Ok(())
    }
}

/// The CUDA stream of `stream`, for a copy of a buffer in GPU memory.
#[cfg(feature = "gpu")]
fn gpu_stream<'s>(what: &str, stream: &'s Stream) -> Result<&'s Arc<crate::gpu::stream::GpuStream>, Error> {
    stream.gpu.as_ref().ok_or_else(|| {
        let e = Error::InvalidValue {
            message: format!("{what}: the buffer is in GPU memory but the stream was made for the emulator; make both under the same target"),
        };
        last_error::record(&e);
        e
    })
}
