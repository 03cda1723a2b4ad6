//! Parts of a [`DeviceBuffer`]: [`DeviceSlice`] and [`DeviceSliceMut`], made by
//! [`DeviceBuffer::slice`] and [`DeviceBuffer::slice_mut`].
//!
//! A slice is what CUDA code writes as a pointer offset, `d_data + blockSize`: passed to a
//! kernel it is a `&[T]` (or `&mut [T]`) of its own length, starting at its first element, and
//! it is the source or destination of partial copies, host to device, device to host and
//! device to device (`cudaMemcpy` with an offset and a size).
//!
//! The checkers see a slice as part of its buffer: reports name the kernel parameter and give
//! the buffer's bounds, initcheck's shadow is the buffer's, and racecheck's records cover the
//! whole buffer, so two launches' views of one buffer are told apart by address.
//!
//! Kernel arguments: a `&[T]` parameter takes anything that implements [`KernelArg<T>`]
//! (`&buffer`, `&mut buffer`, a slice), a `&mut [T]` parameter anything that implements
//! [`KernelArgMut<T>`] (`&mut buffer`, a mutable slice).

use std::fmt;
use std::ops::{Bound, Range, RangeBounds};

use crate::device::DeviceCopy;
use crate::host::launch_desc::GpuArg;
use crate::host::mem::buffer::DeviceBuffer;
use crate::host::report::error::Error;

/// An immutable part of a [`DeviceBuffer`]: `buffer.slice(start..end)`.
pub struct DeviceSlice<'a, T: DeviceCopy> {
    buf: &'a DeviceBuffer<T>,
    start: usize,
    len: usize,
}

/// A mutable part of a [`DeviceBuffer`]: `buffer.slice_mut(start..end)`.
pub struct DeviceSliceMut<'a, T: DeviceCopy> {
    buf: &'a mut DeviceBuffer<T>,
    start: usize,
    len: usize,
}

impl<T: DeviceCopy> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceCopy> Copy for DeviceSlice<'_, T> {}

impl<T: DeviceCopy> fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceSlice").field("start", &self.start).field("len", &self.len).finish()
    }
}
impl<T: DeviceCopy> fmt::Debug for DeviceSliceMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceSliceMut").field("start", &self.start).field("len", &self.len).finish()
    }
}

/// `range` of `0..len` as a `Range`, or a panic in the words of slice indexing.
#[track_caller]
fn resolve(range: impl RangeBounds<usize>, len: usize, what: &str) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1).expect("range start overflows usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1).expect("range end overflows usize"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        panic!("{what}: range {start}..{end} is out of bounds for a buffer of {len} elements");
    }
    start..end
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// The elements `range` of the buffer, as a `&[T]` kernel argument or a copy's source
    /// (CUDA's `d_data + offset`).
    ///
    /// # Panics
    ///
    /// When `range` is not inside `0..self.len()`, as slice indexing does.
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceSlice<'_, T> {
        let r = resolve(range, self.len(), "DeviceBuffer::slice");
        DeviceSlice { buf: self, start: r.start, len: r.len() }
    }

    /// The elements `range` of the buffer, as a `&mut [T]` kernel argument or a copy's
    /// destination.
    ///
    /// # Panics
    ///
    /// When `range` is not inside `0..self.len()`.
    #[track_caller]
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceSliceMut<'_, T> {
        let r = resolve(range, self.len(), "DeviceBuffer::slice_mut");
        DeviceSliceMut { buf: self, start: r.start, len: r.len() }
    }
}

/// The memory a slice covers, for the copies.
#[derive(Clone, Copy)]
struct Part<'a, T: DeviceCopy> {
    buf: &'a DeviceBuffer<T>,
    start: usize,
    len: usize,
}

impl<T: DeviceCopy> Part<'_, T> {
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    fn bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    fn byte_offset(&self) -> usize {
        self.start * size_of::<T>()
    }

    /// The device address of the first element, for a buffer on the GPU.
    fn gpu_address(&self) -> Option<u64> {
        self.buf.device_address().map(|(p, _)| p + self.byte_offset() as u64)
    }

    /// The first element in emulator memory.
    fn host_ptr(&self) -> Result<*mut T, Error> {
        // SAFETY: `start <= len` of the buffer (checked when the slice was made).
        self.buf.raw().map(|p| unsafe { p.add(self.start) })
    }

    fn check_len(&self, other: usize, what: &str) -> Result<(), Error> {
        if other == self.len {
            return Ok(());
        }
        Err(Error::InvalidValue {
            message: format!(
                "{what}: the slice has {} elements but the other side has {other}; copy between parts of the \
                 same length (slice the buffer with `slice(a..b)` to pick them)",
                self.len
            ),
        })
    }

    fn to_vec(self) -> Result<Vec<T>, Error> {
        // All-zero bytes are a valid `T` (a `DeviceCopy` requirement); the copy overwrites them.
        // SAFETY: as above.
        let mut v = vec![unsafe { std::mem::zeroed::<T>() }; self.len];
        self.copy_to_slice(&mut v)?;
        Ok(v)
    }

    fn copy_to_slice(self, out: &mut [T]) -> Result<(), Error> {
        self.check_len(out.len(), "copy_to_slice")?;
        // Waits for the queued work that writes the buffer, as `DeviceBuffer::to_vec` does.
        self.buf.before_host_read()?;
        if self.len == 0 {
            return Ok(());
        }
        #[cfg(feature = "gpu")]
        if let Some(addr) = self.gpu_address() {
            return crate::gpu::copy::download(addr, out);
        }
        let src = self.host_ptr()?;
        // SAFETY: `src` is valid for `len` elements of the buffer, which the slice borrows
        // (no kernel runs meanwhile); `out` is a distinct host slice of the same length.
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), self.len) };
        Ok(())
    }
}

impl<T: DeviceCopy> DeviceSlice<'_, T> {
    fn part(&self) -> Part<'_, T> {
        Part { buf: self.buf, start: self.start, len: self.len }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The index of the slice's first element in its buffer.
    pub fn offset(&self) -> usize {
        self.start
    }

    /// A part of this slice (`range` relative to its start).
    ///
    /// # Panics
    ///
    /// When `range` is not inside `0..self.len()`.
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Self {
        let r = resolve(range, self.len, "DeviceSlice::slice");
        DeviceSlice { buf: self.buf, start: self.start + r.start, len: r.len() }
    }

    /// Copies the slice to a new `Vec` (`cudaMemcpy` device to host of a part).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        self.part().to_vec()
    }

    /// Copies the slice into `out`, which must have the same length.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        self.part().copy_to_slice(out)
    }
}

impl<'a, T: DeviceCopy> DeviceSliceMut<'a, T> {
    fn part(&self) -> Part<'_, T> {
        Part { buf: self.buf, start: self.start, len: self.len }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The index of the slice's first element in its buffer.
    pub fn offset(&self) -> usize {
        self.start
    }

    /// A read-only view of this slice.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { buf: self.buf, start: self.start, len: self.len }
    }

    /// A part of this slice (`range` relative to its start).
    ///
    /// # Panics
    ///
    /// When `range` is not inside `0..self.len()`.
    #[track_caller]
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceSliceMut<'_, T> {
        let r = resolve(range, self.len, "DeviceSliceMut::slice_mut");
        DeviceSliceMut { buf: self.buf, start: self.start + r.start, len: r.len() }
    }

    /// Copies the slice to a new `Vec`.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        self.part().to_vec()
    }

    /// Copies the slice into `out`, which must have the same length.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        self.part().copy_to_slice(out)
    }

    /// Overwrites the slice with `data`, which must have the same length (`cudaMemcpy` host to
    /// device at an offset).
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        let p = self.part();
        p.check_len(data.len(), "copy_from_slice")?;
        // Waits for every queued user of the buffer, as `DeviceBuffer::copy_from_slice` does.
        p.buf.before_host_write()?;
        if p.len == 0 {
            return Ok(());
        }
        #[cfg(feature = "gpu")]
        if let Some(addr) = p.gpu_address() {
            return crate::gpu::copy::upload(addr, data);
        }
        let dst = p.host_ptr()?;
        // SAFETY: `dst` is valid for `len` elements of the buffer, borrowed mutably by the
        // slice; `data` is host memory, distinct from it.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, p.len) };
        self.buf.mark_written(self.start, self.len, None);
        Ok(())
    }

    /// Overwrites the slice with the elements of `src`, a part of another buffer of the same
    /// length (`cudaMemcpy` device to device). Both must live under the same target.
    pub fn copy_from_device(&mut self, src: DeviceSlice<'_, T>) -> Result<(), Error> {
        let (d, s) = (self.part(), src.part());
        d.check_len(s.len, "copy_from_device")?;
        d.buf.before_host_write()?;
        s.buf.before_host_read()?;
        if d.len == 0 {
            return Ok(());
        }
        match (d.gpu_address(), s.gpu_address()) {
            #[cfg(feature = "gpu")]
            (Some(dst), Some(from)) => return crate::gpu::copy::device_to_device(dst, from, d.bytes()),
            (None, None) => {}
            _ => {
                return Err(Error::InvalidValue {
                    message: "copy_from_device: one buffer lives in GPU memory and the other in the emulator's; \
                              create both under the same target (EMU_TARGET / Config::target)"
                        .into(),
                })
            }
        }
        let (to, from) = (d.host_ptr()?, s.host_ptr()?);
        // SAFETY: both are valid for `len` elements of their buffers; they are different
        // buffers (one is borrowed mutably, the other shared), so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(from, to, d.len) };
        self.buf.mark_written(self.start, self.len, Some((src.buf, src.start)));
        Ok(())
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Overwrites the whole buffer with `src`, a part of another buffer of the same length
    /// (`cudaMemcpy` device to device); for a part of this one, use
    /// `buffer.slice_mut(a..b).copy_from_device(other.slice(c..d))`.
    pub fn copy_from_device(&mut self, src: DeviceSlice<'_, T>) -> Result<(), Error> {
        self.slice_mut(..).copy_from_device(src)
    }
}

/// What a kernel's `&[T]` parameter takes in `launch!`: `&buffer`, `&mut buffer`,
/// `buffer.slice(a..b)` or `buffer.slice_mut(a..b)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed as a `&[{T}]` kernel parameter",
    label = "expected `&DeviceBuffer<{T}>` or a slice of one",
    note = "pass a buffer as `&buffer`, or a part of it as `buffer.slice(start..end)` (CUDA's `d_data + offset`)"
)]
pub trait KernelArg<T: DeviceCopy> {
    /// The buffer, the first element and the length.
    #[doc(hidden)]
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize);
}

/// What a kernel's `&mut [T]` parameter takes in `launch!`: `&mut buffer` or
/// `buffer.slice_mut(a..b)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed as a `&mut [{T}]` kernel parameter",
    label = "expected `&mut DeviceBuffer<{T}>` or a mutable slice of one",
    note = "the kernel writes this parameter: pass `&mut buffer`, or a part of it as `buffer.slice_mut(start..end)`"
)]
pub trait KernelArgMut<T: DeviceCopy>: KernelArg<T> {
    /// The buffer, mutably, the first element and the length.
    #[doc(hidden)]
    fn parts_mut(&mut self) -> (&mut DeviceBuffer<T>, usize, usize);
}

impl<T: DeviceCopy> KernelArg<T> for &DeviceBuffer<T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self, 0, self.len())
    }
}
impl<T: DeviceCopy> KernelArg<T> for &mut DeviceBuffer<T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self, 0, self.len())
    }
}
impl<T: DeviceCopy> KernelArgMut<T> for &mut DeviceBuffer<T> {
    fn parts_mut(&mut self) -> (&mut DeviceBuffer<T>, usize, usize) {
        let len = self.len();
        (self, 0, len)
    }
}
impl<T: DeviceCopy> KernelArg<T> for DeviceSlice<'_, T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArg<T> for &DeviceSlice<'_, T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArg<T> for DeviceSliceMut<'_, T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArgMut<T> for DeviceSliceMut<'_, T> {
    fn parts_mut(&mut self) -> (&mut DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArg<T> for &DeviceSliceMut<'_, T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArg<T> for &mut DeviceSliceMut<'_, T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}
impl<T: DeviceCopy> KernelArgMut<T> for &mut DeviceSliceMut<'_, T> {
    fn parts_mut(&mut self) -> (&mut DeviceBuffer<T>, usize, usize) {
        (self.buf, self.start, self.len)
    }
}

/// The constructors of a buffer or slice argument (the launch description,
/// `host/launch_desc.rs`, names no buffer type).
impl<'a> GpuArg<'a> {
    /// A buffer argument.
    pub fn buffer<T: DeviceCopy>(buf: &'a DeviceBuffer<T>) -> Self {
        GpuArg::Buffer(buf.device_address())
    }
    /// A buffer or slice argument (`launch!`'s `&buf`, `buf.slice(a..b)`): the address of its
    /// first element and its length.
    pub fn slice<T: DeviceCopy, A: KernelArg<T>>(arg: &'a A) -> Self {
        let (buf, start, len) = arg.parts();
        GpuArg::Buffer(buf.device_address().map(|(p, _)| (p + (start * std::mem::size_of::<T>()) as u64, len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_copies() {
        let mut a = DeviceBuffer::from_slice(&[0u32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        assert_eq!(a.slice(2..5).to_vec().unwrap(), vec![2, 3, 4]);
        assert_eq!(a.slice(6..).slice(1..).to_vec().unwrap(), vec![7]);
        a.slice_mut(..2).copy_from_slice(&[10, 11]).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![10, 11, 2, 3, 4, 5, 6, 7]);
        let b = DeviceBuffer::from_slice(&[100u32, 101, 102]).unwrap();
        a.slice_mut(5..8).copy_from_device(b.slice(..)).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![10, 11, 2, 3, 4, 100, 101, 102]);
        let e = a.slice_mut(0..2).copy_from_device(b.slice(..)).unwrap_err();
        assert_eq!(e.code(), 1);
        assert!(e.to_string().contains("the slice has 2 elements but the other side has 3"), "{e}");
        assert!(a.slice(3..3).is_empty());
    }

    #[test]
    #[should_panic(expected = "range 2..9 is out of bounds for a buffer of 8 elements")]
    fn out_of_range_panics() {
        let a = DeviceBuffer::<u8>::zeroed(8).unwrap();
        let _ = a.slice(2..9);
    }
}
