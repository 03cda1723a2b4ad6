//! [`DeviceBuffer`]: global memory that kernels read and write.

use std::alloc::Layout;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::device::DeviceCopy;
use crate::host::check::initcheck::InitBits;
use crate::host::devices::{self, Pending};
use crate::host::report::error::Error;

/// Alignment of every allocation, as `cudaMalloc` guarantees.
const ALIGN: usize = 256;

/// A buffer in (emulated) device global memory, like a `cudaMalloc` allocation.
///
/// Pass `&buf` to a kernel parameter `&[T]` and `&mut buf` to a `&mut [T]` in `launch!`.
/// The three-argument `launch!` is synchronous, so the host methods below see the kernel's
/// results as soon as it returns. Work queued on a stream (`launch!` with a stream, the
/// `*_async` copies) keeps the buffer's memory alive until it has run, and the buffer records
/// it (cudarc's design): the host's reads (`to_vec`, `copy_to_slice`) wait for the queued work
/// that writes it, its writes (`copy_from_slice`) and dropping it wait for all the queued work
/// that uses it, in every stream, and queued work on another stream waits as a reader or
/// writer must. ARCHITECTURE.md, "Streams, events and asynchronous errors".
pub struct DeviceBuffer<T: DeviceCopy> {
    store: Arc<Storage<T>>,
    /// A handle that queued work holds (`share`): it never waits for the buffer's pending
    /// work, of which its own item is part.
    queued: bool,
}

/// The memory of a buffer, shared by its handle and the queued work that uses it.
struct Storage<T: DeviceCopy> {
    /// Emulator memory (dangling when the buffer lives on the GPU).
    ptr: NonNull<T>,
    len: usize,
    /// The device the buffer belongs to (`set_device`).
    device: u32,
    /// GPU memory, when the buffer was created with the GPU as target.
    #[cfg(feature = "gpu")]
    dev: Option<crate::gpu::DeviceAlloc>,
    /// Which elements have been written, for initcheck; `None` once all count as written.
    init: Mutex<Option<Box<InitBits>>>,
    /// The queued work that reads or writes the buffer.
    pending: Mutex<Pending>,
    marker: PhantomData<T>,
}

// SAFETY: the storage owns its memory like a `Box<[T]>`; kernels access it only through views
// with relaxed atomics, and host accesses and queued copies are ordered by `pending`.
unsafe impl<T: DeviceCopy> Send for Storage<T> {}
// SAFETY: shared access reads through atomics or after the writers finished (`pending`).
unsafe impl<T: DeviceCopy> Sync for Storage<T> {}

impl<T: DeviceCopy> DeviceBuffer<T> {
    fn layout(len: usize) -> Result<Layout, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::MemoryAllocation { bytes: usize::MAX })?;
        Layout::from_size_align(bytes, ALIGN.max(std::mem::align_of::<T>()))
            .map_err(|_| Error::MemoryAllocation { bytes })
    }

    fn wrap(ptr: NonNull<T>, len: usize, #[cfg(feature = "gpu")] dev: Option<crate::gpu::DeviceAlloc>) -> Self {
        DeviceBuffer {
            store: Arc::new(Storage {
                ptr,
                len,
                device: devices::current(),
                #[cfg(feature = "gpu")]
                dev,
                init: Mutex::new(None),
                pending: Mutex::new(Pending::default()),
                marker: PhantomData,
            }),
            queued: false,
        }
    }

    fn alloc_zeroed(len: usize) -> Result<Self, Error> {
        devices::check_sticky()?;
        let layout = Self::layout(len)?;
        #[cfg(feature = "gpu")]
        if crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu {
            let dev = crate::gpu::DeviceAlloc::zeroed(layout.size())?;
            return Ok(Self::wrap(NonNull::dangling(), len, Some(dev)));
        }
        let ptr = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            // Big buffers are mapped lazily: their zero pages cost nothing until touched.
            let p = crate::host::alloc::alloc_zeroed(layout) as *mut T;
            let p = NonNull::new(p).ok_or(Error::MemoryAllocation { bytes: layout.size() })?;
            // The watchdog tells writes from spins by this memory (`fingerprint.rs`).
            crate::host::mem::fingerprint::register(p.as_ptr() as usize, layout.size());
            p
        };
        Ok(Self::wrap(
            ptr,
            len,
            #[cfg(feature = "gpu")]
            None,
        ))
    }

    /// The GPU allocation, if the buffer lives on the GPU.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu(&self) -> Option<&crate::gpu::DeviceAlloc> {
        self.store.dev.as_ref()
    }
    #[cfg(not(feature = "gpu"))]
    fn gpu(&self) -> Option<&NoGpu> {
        None
    }

    /// The device address and length the GPU entry takes, or `None` for emulator memory.
    pub(crate) fn device_address(&self) -> Option<(u64, usize)> {
        self.gpu().map(|d| (device_ptr(d), self.store.len))
    }

    /// Whether the buffer lives in GPU memory (else in the emulator's).
    pub fn is_on_gpu(&self) -> bool {
        self.gpu().is_some()
    }

    /// The device the buffer belongs to: the one current (`set_device`) when it was created.
    pub fn device(&self) -> u32 {
        self.store.device
    }

    /// A buffer of `len` elements, all zero (`cudaMalloc` + `cudaMemset(0)`).
    pub fn zeroed(len: usize) -> Result<Self, Error> {
        // All-zero bytes are a valid `T` (a `DeviceCopy` requirement).
        Self::alloc_zeroed(len)
    }

    /// A buffer of `len` elements whose contents are undefined (`cudaMalloc`).
    ///
    /// Kernels must write elements before reading them. The emulator fills the memory with
    /// zero bytes so that the host stays well-defined, and with initcheck on
    /// (`EMU_CHECK=initcheck`) reports a kernel's reads of elements nothing wrote.
    pub fn uninit(len: usize) -> Result<Self, Error> {
        let b = Self::alloc_zeroed(len)?;
        if b.gpu().is_none() {
            // One bit per alignment unit, so that elements of arrays (`t[r][c]`) count apart.
            *b.init_slot() = Some(Box::new(InitBits::new(b.bytes() / std::mem::align_of::<T>())?));
        }
        Ok(b)
    }

    /// A buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy` host to device).
    pub fn from_slice(data: &[T]) -> Result<Self, Error> {
        let mut b = Self::alloc_zeroed(data.len())?;
        b.copy_from_slice(data)?;
        Ok(b)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.store.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.store.len == 0
    }

    /// Copies the buffer to a new `Vec` (`cudaMemcpy` device to host). Waits for the queued
    /// work that writes the buffer, and returns an earlier fault of queued work on the device
    /// if one happened (CUDA returns it from the next blocking call).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        self.before_host_read()?;
        if let Some(d) = self.gpu() {
            // All-zero bytes are a valid `T`; the download overwrites them.
            let mut v = vec![zeroed_value::<T>(); self.store.len];
            d.download(&mut v)?;
            return Ok(v);
        }
        Ok(self.as_slice().to_vec())
    }

    /// Overwrites the buffer with `data`, which must have the same length (`cudaMemcpy` host to
    /// device). Waits for all queued work that uses the buffer first.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.store.len {
            return Err(Error::InvalidValue {
                message: format!(
                    "copy_from_slice: the source has {} elements but the buffer has {}; \
                     copy a slice of the same length or allocate a new buffer",
                    data.len(),
                    self.store.len
                ),
            });
        }
        self.before_host_write()?;
        if let Some(d) = self.gpu() {
            return d.upload(data);
        }
        self.as_mut_slice().copy_from_slice(data);
        *self.init_slot() = None;
        Ok(())
    }

    /// Copies the buffer into `out`, which must have the same length. Waits as
    /// [`to_vec`](Self::to_vec) does.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        if out.len() != self.store.len {
            return Err(Error::InvalidValue {
                message: format!(
                    "copy_to_slice: the destination has {} elements but the buffer has {}",
                    out.len(),
                    self.store.len
                ),
            });
        }
        self.before_host_read()?;
        if let Some(d) = self.gpu() {
            return d.download(out);
        }
        out.copy_from_slice(self.as_slice());
        Ok(())
    }

    /// A blocking host read: waits for the queued writer, then reports faults of queued work.
    pub(crate) fn before_host_read(&self) -> Result<(), Error> {
        if !self.queued {
            let writer = self.store.pending.lock().unwrap_or_else(|e| e.into_inner()).writer();
            if let Some(w) = writer {
                w.wait();
            }
        }
        devices::report_faults_at_blocking_call()
    }

    /// A blocking host write: waits for every queued user, then reports faults of queued work.
    pub(crate) fn before_host_write(&self) -> Result<(), Error> {
        self.wait_all();
        devices::report_faults_at_blocking_call()
    }

    /// Waits for every queued item that uses the buffer (nothing for a queued handle).
    pub(crate) fn wait_all(&self) {
        if self.queued {
            return;
        }
        let all = self.store.pending.lock().unwrap_or_else(|e| e.into_inner()).all();
        for d in all {
            d.wait();
        }
    }

    /// Whether queued work still uses the buffer.
    pub fn has_pending_work(&self) -> bool {
        self.store.pending.lock().unwrap_or_else(|e| e.into_inner()).any()
    }

    /// The queued work that uses the buffer, for the stream that queues an item with it.
    pub(crate) fn pending(&self) -> MutexGuard<'_, Pending> {
        self.store.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Another handle to the same memory, for an item queued on a stream: it keeps the memory
    /// alive until the item has run, and does not wait for pending work.
    pub(crate) fn share(&self) -> DeviceBuffer<T> {
        DeviceBuffer { store: self.store.clone(), queued: true }
    }

    fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` is valid for `len` initialised elements (zeroed or copied at creation);
        // no kernel writes it meanwhile: the host waited for the queued writers
        // (`before_host_read`), and a synchronous launch borrows the buffer.
        unsafe { std::slice::from_raw_parts(self.store.ptr.as_ptr(), self.store.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above; the host waited for every queued user (`before_host_write`), and
        // `&mut self` excludes synchronous launches and new queued work.
        unsafe { std::slice::from_raw_parts_mut(self.store.ptr.as_ptr(), self.store.len) }
    }

    /// The address of the first element: in emulator memory, or on the GPU for a buffer that
    /// lives there. Do not dereference it.
    pub fn as_ptr(&self) -> *const T {
        match self.gpu() {
            Some(d) => device_ptr(d) as usize as *const T,
            None => self.store.ptr.as_ptr(),
        }
    }

    /// The emulator-memory pointer handed to views by the launcher, or an error for a buffer
    /// that lives on the GPU or on another device.
    pub(crate) fn raw(&self) -> Result<*mut T, Error> {
        if self.gpu().is_some() {
            let e = Error::InvalidValue {
                message: "a kernel was launched in the emulator with a buffer in GPU memory; create buffers \
                          under the same target as the launch (EMU_TARGET / Config::target)"
                    .into(),
            };
            crate::host::report::last_error::record(&e);
            return Err(e);
        }
        if self.store.device != devices::current() {
            let e = Error::InvalidValue {
                message: format!(
                    "a kernel was launched on device {} with a buffer of device {}; copy it over with \
                     `copy_from_peer` into a buffer made after `set_device({})`",
                    devices::current(),
                    self.store.device,
                    devices::current()
                ),
            };
            crate::host::report::last_error::record(&e);
            return Err(e);
        }
        Ok(self.store.ptr.as_ptr())
    }

    /// The raw memory for a queued copy (emulator memory only).
    pub(crate) fn raw_ptr(&self) -> *mut T {
        self.store.ptr.as_ptr()
    }

    fn init_slot(&self) -> MutexGuard<'_, Option<Box<InitBits>>> {
        self.store.init.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// initcheck's shadow of the buffer (null when every element counts as written).
    ///
    /// The shadow stays where it is until the buffer is written by the host or by a launch
    /// without initcheck, neither of which can happen while the launch that asked runs.
    pub(crate) fn init_bits(&self) -> *const InitBits {
        self.init_slot().as_deref().map_or(std::ptr::null(), |b| b as *const InitBits)
    }

    /// Forgets which elements were written: after a launch that could write the buffer
    /// without initcheck, or a copy into it, all count as written.
    pub(crate) fn assume_written(&self) {
        *self.init_slot() = None;
    }

    /// Marks elements `start..start + len` as written (a partial copy into them; `from`: the
    /// copy's source buffer and first element, whose initcheck bits they take).
    pub(crate) fn mark_written(&self, start: usize, len: usize, from: Option<(&DeviceBuffer<T>, usize)>) {
        if from.is_none() && start == 0 && len == self.store.len {
            *self.init_slot() = None;
            return;
        }
        let slot = self.init_slot();
        let Some(bits) = slot.as_deref() else { return };
        let per = std::mem::size_of::<T>() / std::mem::align_of::<T>();
        // A different buffer (the copy borrows this one mutably), so a different lock.
        let src = from.map(|(b, s)| (b.init_slot(), s));
        let src = src.as_ref().and_then(|(g, s)| g.as_deref().map(|bits| (bits, *s)));
        for u in 0..len * per {
            if src.is_none_or(|(sb, s)| sb.is_set(s * per + u)) {
                bits.set(start * per + u);
            }
        }
    }

    /// Size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.store.len * std::mem::size_of::<T>()
    }

    /// Copies `src`, a buffer of another device (or the same), into this one (`cudaMemcpyPeer`):
    /// both must have the same length. Waits for the queued work that writes `src` and for all
    /// that uses this buffer, then copies.
    pub fn copy_from_peer(&mut self, src: &DeviceBuffer<T>) -> Result<(), Error> {
        if src.len() != self.len() {
            return Err(Error::InvalidValue {
                message: format!(
                    "copy_from_peer: the source has {} elements but the destination has {}",
                    src.len(),
                    self.len()
                ),
            });
        }
        src.before_host_read()?;
        self.before_host_write()?;
        #[cfg(feature = "gpu")]
        if self.gpu().is_some() || src.gpu().is_some() {
            let (Some((dst, _)), Some((from, _))) = (self.device_address(), src.device_address()) else {
                return Err(Error::InvalidValue {
                    message:
                        "copy_from_peer: one buffer is in GPU memory and the other in the emulator's; create both \
                              under the same target"
                            .into(),
                });
            };
            // SAFETY: both are device allocations of `bytes()` bytes (same length and type).
            return unsafe { crate::gpu::stream::copy_dtod(dst, from, self.bytes()) };
        }
        let n = self.len();
        // SAFETY: both are valid for `n` elements; `src`'s writers and every user of `self`
        // have finished, `&mut self` excludes new work on it, and two buffers never overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.store.ptr.as_ptr(), self.store.ptr.as_ptr(), n) };
        self.assume_written();
        Ok(())
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    /// Waits for the queued work that uses the buffer (`cudaFree` synchronises too); the
    /// memory itself goes when the last handle does.
    fn drop(&mut self) {
        self.wait_all();
    }
}

impl<T: DeviceCopy> Drop for Storage<T> {
    fn drop(&mut self) {
        #[cfg(feature = "gpu")]
        if self.dev.is_some() {
            return; // the `DeviceAlloc` frees itself
        }
        let layout = DeviceBuffer::<T>::layout(self.len).expect("layout was valid at allocation");
        if layout.size() != 0 {
            crate::host::mem::fingerprint::forget(self.ptr.as_ptr() as usize);
            // SAFETY: allocated in `alloc_zeroed` with this layout; the last handle is gone.
            unsafe { crate::host::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
        }
    }
}

impl<T: DeviceCopy + fmt::Debug> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.store.ptr)
            .field("len", &self.store.len)
            .field("device", &self.store.device)
            .finish()
    }
}

#[cfg(feature = "gpu")]
fn device_ptr(d: &crate::gpu::DeviceAlloc) -> u64 {
    d.ptr
}
#[cfg(not(feature = "gpu"))]
fn device_ptr(d: &NoGpu) -> u64 {
    match *d {}
}

/// The all-zero value of `T`.
fn zeroed_value<T: DeviceCopy>() -> T {
    // SAFETY: all-zero bytes are a valid `T` (a `DeviceCopy` requirement).
    unsafe { std::mem::zeroed() }
}

/// Stands in for the GPU allocation when the `gpu` feature is off (never constructed).
#[cfg(not(feature = "gpu"))]
#[derive(Debug)]
pub(crate) enum NoGpu {}

#[cfg(not(feature = "gpu"))]
impl NoGpu {
    #[allow(clippy::unused_self)]
    fn upload<T>(&self, _: &[T]) -> Result<(), Error> {
        match *self {}
    }
    fn download<T>(&self, _: &mut [T]) -> Result<(), Error> {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let mut b = DeviceBuffer::from_slice(&[1u32, 2, 3]).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![1, 2, 3]);
        assert_eq!(b.raw().unwrap() as usize % 256, 0);
        b.copy_from_slice(&[4, 5, 6]).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![4, 5, 6]);
        let e = b.copy_from_slice(&[1]).unwrap_err();
        assert_eq!(e.code(), 1);
        assert_eq!(DeviceBuffer::<f64>::zeroed(4).unwrap().to_vec().unwrap(), vec![0.0; 4]);
        assert!(DeviceBuffer::<u8>::zeroed(0).unwrap().is_empty());
        assert_eq!(DeviceBuffer::<u64>::zeroed(usize::MAX / 4).unwrap_err().code(), 2);
    }
}
