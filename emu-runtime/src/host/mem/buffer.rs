//! [`DeviceBuffer`]: global memory that kernels read and write.

use std::alloc::Layout;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::device::DeviceCopy;
use crate::host::report::error::Error;
use crate::host::check::initcheck::InitBits;

/// Alignment of every allocation, as `cudaMalloc` guarantees.
const ALIGN: usize = 256;

/// A buffer in (emulated) device global memory, like a `cudaMalloc` allocation.
///
/// Pass `&buf` to a kernel parameter `&[T]` and `&mut buf` to a `&mut [T]` in `launch!`.
/// Launches are synchronous, so the host methods below see the kernel's results as soon as
/// `launch!` returns.
pub struct DeviceBuffer<T: DeviceCopy> {
    /// Emulator memory (dangling when the buffer lives on the GPU).
    ptr: NonNull<T>,
    len: usize,
    /// GPU memory, when the buffer was created with the GPU as target.
    #[cfg(feature = "gpu")]
    dev: Option<crate::gpu::DeviceAlloc>,
    /// Which elements have been written, for initcheck; `None` once all count as written.
    init: Option<Box<InitBits>>,
    marker: PhantomData<T>,
}

// SAFETY: the buffer owns its memory like a `Box<[T]>`; kernels access it only through views
// with relaxed atomics while a launch borrows the buffer.
unsafe impl<T: DeviceCopy> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only allows reads (and launches that read through atomics).
unsafe impl<T: DeviceCopy> Sync for DeviceBuffer<T> {}

impl<T: DeviceCopy> DeviceBuffer<T> {
    fn layout(len: usize) -> Result<Layout, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::MemoryAllocation { bytes: usize::MAX })?;
        Layout::from_size_align(bytes, ALIGN.max(std::mem::align_of::<T>()))
            .map_err(|_| Error::MemoryAllocation { bytes })
    }

    fn alloc_zeroed(len: usize) -> Result<Self, Error> {
        let layout = Self::layout(len)?;
        #[cfg(feature = "gpu")]
        if crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu {
            let dev = crate::gpu::DeviceAlloc::zeroed(layout.size())?;
            return Ok(DeviceBuffer { ptr: NonNull::dangling(), len, dev: Some(dev), init: None, marker: PhantomData });
        }
        let ptr = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            // Big buffers are mapped lazily: their zero pages cost nothing until touched.
            let p = crate::host::alloc::alloc_zeroed(layout) as *mut T;
            NonNull::new(p).ok_or(Error::MemoryAllocation { bytes: layout.size() })?
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            #[cfg(feature = "gpu")]
            dev: None,
            init: None,
            marker: PhantomData,
        })
    }

    /// The GPU allocation, if the buffer lives on the GPU.
    #[cfg(feature = "gpu")]
    fn gpu(&self) -> Option<&crate::gpu::DeviceAlloc> {
        self.dev.as_ref()
    }
    #[cfg(not(feature = "gpu"))]
    fn gpu(&self) -> Option<&NoGpu> {
        None
    }

    /// The device address and length the GPU entry takes, or `None` for emulator memory.
    pub(crate) fn device_address(&self) -> Option<(u64, usize)> {
        self.gpu().map(|d| (device_ptr(d), self.len))
    }

    /// Whether the buffer lives in GPU memory (else in the emulator's).
    pub fn is_on_gpu(&self) -> bool {
        self.gpu().is_some()
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
        let mut b = Self::alloc_zeroed(len)?;
        if b.gpu().is_none() {
            // One bit per alignment unit, so that elements of arrays (`t[r][c]`) count apart.
            b.init = Some(Box::new(InitBits::new(b.bytes() / std::mem::align_of::<T>())?));
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
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the buffer to a new `Vec` (`cudaMemcpy` device to host).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        if let Some(d) = self.gpu() {
            // All-zero bytes are a valid `T`; the download overwrites them.
            let mut v = vec![zeroed_value::<T>(); self.len];
            d.download(&mut v)?;
            return Ok(v);
        }
        Ok(self.as_slice().to_vec())
    }

    /// Overwrites the buffer with `data`, which must have the same length (`cudaMemcpy` host to
    /// device).
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::InvalidValue {
                message: format!(
                    "copy_from_slice: the source has {} elements but the buffer has {}; \
                     copy a slice of the same length or allocate a new buffer",
                    data.len(),
                    self.len
                ),
            });
        }
        if let Some(d) = self.gpu() {
            return d.upload(data);
        }
        self.as_mut_slice().copy_from_slice(data);
        self.init = None;
        Ok(())
    }

    /// Copies the buffer into `out`, which must have the same length.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        if out.len() != self.len {
            return Err(Error::InvalidValue {
                message: format!(
                    "copy_to_slice: the destination has {} elements but the buffer has {}",
                    out.len(),
                    self.len
                ),
            });
        }
        if let Some(d) = self.gpu() {
            return d.download(out);
        }
        out.copy_from_slice(self.as_slice());
        Ok(())
    }

    fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` is valid for `len` initialised elements (zeroed or copied at creation);
        // no kernel runs while `&self` is borrowed here, because launches borrow the buffer.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The address of the first element: in emulator memory, or on the GPU for a buffer that
    /// lives there. Do not dereference it.
    pub fn as_ptr(&self) -> *const T {
        match self.gpu() {
            Some(d) => device_ptr(d) as usize as *const T,
            None => self.ptr.as_ptr(),
        }
    }

    /// The emulator-memory pointer handed to views by the launcher, or an error for a buffer
    /// that lives on the GPU.
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
        Ok(self.ptr.as_ptr())
    }

    /// initcheck's shadow of the buffer (null when every element counts as written).
    pub(crate) fn init_bits(&self) -> *const InitBits {
        self.init.as_deref().map_or(std::ptr::null(), |b| b as *const InitBits)
    }

    /// Marks elements `start..start + len` as written (a partial copy into them; `from`: the
    /// copy's source buffer and first element, whose initcheck bits they take).
    ///
    /// After a launch that could write the buffer without initcheck, the elements it could
    /// write count as written (the whole buffer: its shadow goes).
    pub(crate) fn mark_written(&mut self, start: usize, len: usize, from: Option<(&DeviceBuffer<T>, usize)>) {
        if from.is_none() && start == 0 && len == self.len {
            self.init = None;
        }
        let Some(bits) = self.init.as_deref() else { return };
        let per = std::mem::size_of::<T>() / std::mem::align_of::<T>();
        let src = from.and_then(|(b, s)| b.init.as_deref().map(|bits| (bits, s)));
        for u in 0..len * per {
            if src.is_none_or(|(sb, s)| sb.is_set(s * per + u)) {
                bits.set(start * per + u);
            }
        }
    }

    /// Size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.gpu().is_some() {
            return; // the `DeviceAlloc` frees itself
        }
        let layout = Self::layout(self.len).expect("layout was valid at allocation");
        if layout.size() != 0 {
            // SAFETY: allocated in `alloc_zeroed` with this layout.
            unsafe { crate::host::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
        }
    }
}

impl<T: DeviceCopy + fmt::Debug> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer").field("ptr", &self.ptr).field("len", &self.len).finish()
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
