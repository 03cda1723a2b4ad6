//! Device-side `malloc` and `free` (CUDA's heap, `cudaLimitMallocHeapSize`).
//!
//! [`device_malloc::<T>(n)`](device_malloc) gives a [`DevicePtr<T>`] to `n` elements of the
//! device heap, or `None` when the heap has no room (CUDA's `malloc` returns `NULL`);
//! [`device_free`] gives it back. A `DevicePtr` is a plain value (`DeviceCopy`): a thread can
//! store it in shared or global memory for others to use, as CUDA code stores a pointer, and
//! the memory stays allocated across launches until it is freed. Elements are reached through
//! [`DevicePtr::view`] (a [`GlobalMut`] whose accesses are bounds-checked like a buffer
//! parameter's), or [`DevicePtr::load`] and [`DevicePtr::store`]:
//!
//! ```ignore
//! // float* buf = (float*)malloc(n * sizeof(float)); ... free(buf);
//! if let Some(p) = device_malloc::<f32>(n) {
//!     let buf: GlobalMut<f32> = p.view();
//!     buf[0] = 1.0;
//!     device_free(p);
//! }
//! ```
//!
//! **On the GPU** these are CUDA's own `malloc` and `free` (the PTX calls them; the driver
//! links its heap), whose size [`set_malloc_heap_size`](crate::set_malloc_heap_size) sets
//! (`cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)`; CUDA's default is 8 MiB).
//!
//! **In the emulator** the heap is one arena of the same size (set before the first
//! allocation, or with `EMU_MALLOC_HEAP_SIZE`), allocated once and kept for the program's life,
//! so that a view of freed memory still points into valid host memory. It checks what CUDA
//! leaves undefined, each report naming the sites: an index past the allocation (memcheck's
//! out-of-bounds report, error 700); a `view`, `load`, `store` or `free` of a block already
//! freed (use after free, double free) or of a pointer `device_malloc` did not return (the
//! thread panics with the message, and the launch fails); and blocks never freed, which
//! [`device_heap_leaks`](crate::device_heap_leaks) lists and which are printed at the program's
//! exit, in compute-sanitizer's leak-check shape. A view made before its block was freed is
//! not checked again (its accesses read or write the arena, as the GPU's would).

use core::marker::PhantomData;
use core::panic::Location;

use super::backend;
use super::copy::DeviceCopy;
use super::view::{GlobalMut, View};

/// A pointer to `len` elements of the device heap, from [`device_malloc`].
///
/// `Copy` and [`DeviceCopy`], so that it can be stored in shared or global memory (CUDA code
/// hands a `malloc`ed pointer to other threads). The null pointer ([`DevicePtr::null`], the
/// all-zero bits) has no elements.
#[repr(C)]
pub struct DevicePtr<T> {
    addr: u64,
    len: u64,
    /// The allocation's serial number (emulator; 0 on the GPU): tells a block from a later
    /// one at the same address, for the use-after-free check.
    id: u64,
    elem: PhantomData<fn() -> T>,
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevicePtr<T> {}

impl<T> core::fmt::Debug for DevicePtr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DevicePtr({:#x}, {} elements)", self.addr, self.len)
    }
}

impl<T> PartialEq for DevicePtr<T> {
    fn eq(&self, o: &Self) -> bool {
        self.addr == o.addr && self.id == o.id
    }
}
impl<T> Eq for DevicePtr<T> {}

// SAFETY: three `u64`s (no padding), valid for any bits (all zero is null; other bits are
// checked before use in the emulator, and are the GPU's own business there), no host
// references: the address is device memory's (the emulator's arena, which lives for the
// program).
unsafe impl<T: 'static> DeviceCopy for DevicePtr<T> {}

impl<T: DeviceCopy> DevicePtr<T> {
    /// The null pointer: no elements; `view` of it is an empty view.
    #[inline(always)]
    pub const fn null() -> Self {
        DevicePtr { addr: 0, len: 0, id: 0, elem: PhantomData }
    }

    /// Whether this is the null pointer.
    #[inline(always)]
    pub fn is_null(&self) -> bool {
        self.addr == 0
    }

    /// The number of elements allocated.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no elements were allocated (also for null).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A view of the elements, writable, bounds-checked as a buffer parameter's. In the
    /// emulator a freed block is a use after free here (the thread panics naming where the
    /// block was allocated and freed); null gives an empty view.
    #[inline]
    #[track_caller]
    pub fn view<'l>(&self) -> GlobalMut<'l, T> {
        if self.addr == 0 {
            // SAFETY: no element of an empty view is ever accessed.
            return unsafe {
                View::from_raw_parts(
                    core::ptr::NonNull::dangling().as_ptr(),
                    0,
                    backend::heap_meta(0, 0, Location::caller()),
                )
            };
        }
        let meta = backend::heap_meta(self.addr, self.id, Location::caller());
        // SAFETY: `heap_meta` returned (it panics otherwise), so `addr` is a live block of the
        // device heap of at least `len` elements of `T` (allocated with `T`'s alignment); the
        // heap's memory is never released (the emulator's arena lives for the program; the
        // GPU's heap for the context), and it is reached only through views and the heap's
        // relaxed accesses; `meta` describes the block.
        unsafe { View::from_raw_parts(self.addr as usize as *mut T, self.len as usize, meta) }
    }

    /// Reads element `i` (checked: bounds, and in the emulator that the block is live).
    #[inline]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        self.view().load(i)
    }

    /// Writes element `i` (checked as [`DevicePtr::load`]).
    #[inline]
    #[track_caller]
    pub fn store(&self, i: usize, value: T) {
        self.view().store(i, value)
    }
}

/// CUDA's `malloc(n * sizeof(T))` in a kernel: `n` elements of the device heap, aligned for
/// `T` (and to 16 bytes, as CUDA's), or `None` when the heap has no room for them (CUDA
/// returns `NULL`). The contents are not initialised (the emulator's arena starts zeroed; a
/// reused block keeps what it held).
#[inline]
#[track_caller]
#[must_use]
pub fn device_malloc<T: DeviceCopy>(n: usize) -> Option<DevicePtr<T>> {
    let bytes = n.checked_mul(core::mem::size_of::<T>())?;
    let (addr, id) = backend::heap_alloc(bytes, core::mem::align_of::<T>(), Location::caller())?;
    Some(DevicePtr { addr, len: n as u64, id, elem: PhantomData })
}

/// CUDA's `free(p)` in a kernel: gives the block back to the heap. Freeing null does nothing.
/// In the emulator a double free, or a pointer `device_malloc` did not return, makes the
/// thread panic with where the block was allocated and freed.
#[inline]
#[track_caller]
pub fn device_free<T: DeviceCopy>(p: DevicePtr<T>) {
    if p.addr != 0 {
        backend::heap_free(p.addr, p.id, Location::caller());
    }
}
