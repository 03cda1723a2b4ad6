//! [`DeviceBuffer`]: global memory that kernels read and write.

use std::alloc::{self, Layout};
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::device::DeviceCopy;
use crate::host::error::Error;

/// Alignment of every allocation, as `cudaMalloc` guarantees.
const ALIGN: usize = 256;

/// A buffer in (emulated) device global memory, like a `cudaMalloc` allocation.
///
/// Pass `&buf` to a kernel parameter `&[T]` and `&mut buf` to a `&mut [T]` in `launch!`.
/// Launches are synchronous, so the host methods below see the kernel's results as soon as
/// `launch!` returns.
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
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
        let ptr = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            // SAFETY: the layout has a non-zero size.
            let p = unsafe { alloc::alloc_zeroed(layout) } as *mut T;
            NonNull::new(p).ok_or(Error::MemoryAllocation { bytes: layout.size() })?
        };
        Ok(DeviceBuffer { ptr, len, marker: PhantomData })
    }

    /// A buffer of `len` elements, all zero (`cudaMalloc` + `cudaMemset(0)`).
    pub fn zeroed(len: usize) -> Result<Self, Error> {
        // All-zero bytes are a valid `T` (a `DeviceCopy` requirement).
        Self::alloc_zeroed(len)
    }

    /// A buffer of `len` elements whose contents are undefined (`cudaMalloc`).
    ///
    /// Kernels must write elements before reading them. The emulator fills the memory with
    /// zero bytes so that the host stays well-defined; the initcheck checker, when it lands,
    /// will report reads of elements no one wrote.
    pub fn uninit(len: usize) -> Result<Self, Error> {
        Self::alloc_zeroed(len)
    }

    /// A buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy` host to device).
    pub fn from_slice(data: &[T]) -> Result<Self, Error> {
        let mut b = Self::alloc_zeroed(data.len())?;
        b.as_mut_slice().copy_from_slice(data);
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
        self.as_mut_slice().copy_from_slice(data);
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

    /// The device address of the first element.
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// The raw pointer handed to views by the launcher.
    pub(crate) fn raw(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len).expect("layout was valid at allocation");
        if layout.size() != 0 {
            // SAFETY: allocated in `alloc_zeroed` with this layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
        }
    }
}

impl<T: DeviceCopy + fmt::Debug> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer").field("ptr", &self.ptr).field("len", &self.len).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let mut b = DeviceBuffer::from_slice(&[1u32, 2, 3]).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![1, 2, 3]);
        assert_eq!(b.as_ptr() as usize % 256, 0);
        b.copy_from_slice(&[4, 5, 6]).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![4, 5, 6]);
        let e = b.copy_from_slice(&[1]).unwrap_err();
        assert_eq!(e.code(), 1);
        assert_eq!(DeviceBuffer::<f64>::zeroed(4).unwrap().to_vec().unwrap(), vec![0.0; 4]);
        assert!(DeviceBuffer::<u8>::zeroed(0).unwrap().is_empty());
        assert_eq!(DeviceBuffer::<u64>::zeroed(usize::MAX / 4).unwrap_err().code(), 2);
    }
}
