//! Views of global and shared memory: what a kernel's slice parameters and shared arrays
//! become inside the kernel body.
//!
//! `#[kernel]` turns `x: &[T]` into a [`Global<T>`] and `y: &mut [T]` into a [`GlobalMut<T>`],
//! and rewrites `y[i] = a * x[i]` into checked loads and stores on these views. A view is a
//! pointer, a length and (on the host) a pointer to the allocation's description used in
//! reports; it is `Copy`, so no `&mut` to device memory ever exists on the host.
//!
//! A view carries the lifetime `'l` of its launch: the launcher makes the views of a launch
//! from borrows of its buffers, and the kernel function is generic over `'l`, so a kernel
//! cannot keep a view past its launch (storing one in a `static` needs `'l: 'static`, which a
//! kernel cannot prove), and the host cannot drop a buffer while a view of it is alive. In
//! signatures the lifetime may be elided: `fn h(x: Global<f32>)`.
//!
//! Accesses go through [`View::load`] and [`View::store`], which check bounds on every access
//! and, on the host, use relaxed atomic operations so that a racy kernel is a reported bug and
//! never undefined behaviour of the emulator.

use core::fmt;
use core::marker::PhantomData;

use super::backend;
use super::copy::{AnyBitPattern, DeviceCopy};

/// The memory space a view points into, named as compute-sanitizer names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory (`__global__`): kernel buffer parameters.
    Global,
    /// Shared memory (`__shared__`): `shared_array!` and `dynamic_shared`.
    Shared,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "__global__",
            Space::Shared => "__shared__",
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The kind of a [`View`]: which memory space it points into and whether it may be written.
pub trait ViewKind: sealed::Sealed + Copy + 'static {
    /// The memory space of views of this kind.
    const SPACE: Space;
}

/// Marks views that kernels may write to and use atomics on.
#[diagnostic::on_unimplemented(
    message = "cannot write through a read-only kernel parameter",
    label = "this view is read-only (`&[T]`)",
    note = "declare the kernel parameter as `&mut [T]` to write to it"
)]
pub trait Writable: ViewKind {}

/// Kind of a read-only global-memory view (a `&[T]` kernel parameter).
#[derive(Clone, Copy, Debug)]
pub enum ReadOnly {}
/// Kind of a writable global-memory view (a `&mut [T]` kernel parameter).
#[derive(Clone, Copy, Debug)]
pub enum ReadWrite {}
/// Kind of a shared-memory view (`shared_array!`, `dynamic_shared`).
#[derive(Clone, Copy, Debug)]
pub enum SharedMem {}

impl sealed::Sealed for ReadOnly {}
impl sealed::Sealed for ReadWrite {}
impl sealed::Sealed for SharedMem {}
impl ViewKind for ReadOnly {
    const SPACE: Space = Space::Global;
}
impl ViewKind for ReadWrite {
    const SPACE: Space = Space::Global;
}
impl ViewKind for SharedMem {
    const SPACE: Space = Space::Shared;
}
impl Writable for ReadWrite {}
impl Writable for SharedMem {}

/// A bounds-checked view of `len` elements of device memory.
///
/// Kernels do not name this type directly: `#[kernel]` gives it to slice parameters and
/// `shared_array!` returns it. Index it like a slice (`v[i]`, `v[i] = x`, `v[i] += x`,
/// `t[r][c]` for arrays of arrays); `#[kernel]` and `#[device]` rewrite those expressions into
/// [`View::load`] and [`View::store`].
pub struct View<'l, T, K> {
    ptr: *mut T,
    len: usize,
    meta: backend::MetaPtr,
    /// On the host, for a view of shared memory: the arena and block it was made in
    /// (`host/mem/stamp.rs`), checked before every access; 0 (always live) for global memory.
    #[cfg(not(target_arch = "nvptx64"))]
    stamp: u64,
    /// The launch (or the borrow of the memory) the view lives in; `K` is its kind.
    kind: PhantomData<(&'l (), K)>,
}

/// A read-only view of global memory: what a `&[T]` kernel parameter becomes.
pub type Global<'l, T> = View<'l, T, ReadOnly>;
/// A writable view of global memory: what a `&mut [T]` kernel parameter becomes.
pub type GlobalMut<'l, T> = View<'l, T, ReadWrite>;
/// A view of the block's shared memory.
pub type Shared<'l, T> = View<'l, T, SharedMem>;

impl<T, K> Clone for View<'_, T, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, K> Copy for View<'_, T, K> {}

impl<T, K: ViewKind> fmt::Debug for View<'_, T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View").field("space", &K::SPACE).field("ptr", &self.ptr).field("len", &self.len).finish()
    }
}

// SAFETY: a global view is a pointer into a device buffer that outlives the view (`'l`). The host
// backend performs every element access through it as a relaxed atomic load or store (see
// `host::memory`), so sharing views between the host threads that run blocks can never be a
// data race in Rust's sense, whatever the kernel does.
unsafe impl<T: DeviceCopy> Send for View<'_, T, ReadOnly> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for View<'_, T, ReadOnly> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Send for View<'_, T, ReadWrite> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for View<'_, T, ReadWrite> {}
// Shared views stay `!Send`: they point into the arena of the worker running their block.

impl<'l, T, K: ViewKind> View<'l, T, K> {
    /// Builds a view from its parts.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for reads (and writes, if `K: Writable`) of `len` elements of `T`
    /// for all of `'l` (the caller chooses `'l` no longer than the memory lives: the borrow of
    /// the buffer, or the launch), every other access to that memory during `'l` must also go
    /// through views (or be atomic), and `meta` must describe that memory (on the host, the
    /// checkers write through its shadow pointers at the view's indices).
    #[doc(hidden)]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, meta: backend::MetaPtr) -> Self {
        View {
            ptr,
            len,
            meta,
            #[cfg(not(target_arch = "nvptx64"))]
            stamp: 0,
            kind: PhantomData,
        }
    }

    /// [`View::from_raw_parts`] for a view of a shared arena: `stamp` is the arena's now
    /// (`host/mem/stamp.rs`).
    ///
    /// # Safety
    ///
    /// As [`View::from_raw_parts`], for as long as `stamp` is live.
    #[cfg(not(target_arch = "nvptx64"))]
    pub(crate) unsafe fn from_raw_parts_stamped(ptr: *mut T, len: usize, meta: backend::MetaPtr, stamp: u64) -> Self {
        View { ptr, len, meta, stamp, kind: PhantomData }
    }

    /// This view's memory, `len` elements of `U` from `ptr`: a part of it (`row`, `cast`),
    /// with its stamp.
    ///
    /// # Safety
    ///
    /// `[ptr, ptr + len)` lies inside this view's memory, aligned for `U` (or only reached
    /// through checked accesses, which report a misaligned view), and `U` and `T` are valid
    /// for each other's bits where they overlap.
    #[inline(always)]
    pub(crate) unsafe fn sub<U>(&self, ptr: *mut U, len: usize) -> View<'l, U, K> {
        View {
            ptr,
            len,
            meta: self.meta,
            #[cfg(not(target_arch = "nvptx64"))]
            stamp: self.stamp,
            kind: PhantomData,
        }
    }

    /// Whether the view may be used: on the host, a view of shared memory kept past the block
    /// that made it may not (`host/mem/stamp.rs`); every other view may.
    #[inline(always)]
    pub(crate) fn is_live(&self) -> bool {
        #[cfg(not(target_arch = "nvptx64"))]
        return K::SPACE != Space::Shared || backend::stamp_live(self.stamp);
        #[cfg(target_arch = "nvptx64")]
        return true;
    }

    /// Whether the view is of global memory or of the shared memory of the block this host
    /// thread runs the barrier regions of now (`host/mem/stamp.rs`, `Running`): such a view
    /// stays live, and its memory allocated, until the region run ends.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub(crate) fn is_running_blocks(&self) -> bool {
        K::SPACE != Space::Shared || backend::stamp_running(self.stamp)
    }

    /// The view's stamp (host).
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub(crate) fn stamp(&self) -> u64 {
        self.stamp
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the first element (for diagnostics; do not dereference it).
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    #[inline(always)]
    pub(crate) fn raw_ptr(&self) -> *mut T {
        self.ptr
    }

    /// Whether the view starts aligned for `T` (only a [`View::cast`] can start misaligned).
    #[inline(always)]
    pub(crate) fn is_aligned(&self) -> bool {
        core::mem::align_of::<T>() == 1 || self.ptr as usize % core::mem::align_of::<T>() == 0
    }

    #[inline(always)]
    pub(crate) fn meta(&self) -> backend::MetaPtr {
        self.meta
    }
}

impl<T: DeviceCopy, K: ViewKind> View<'_, T, K> {
    /// Reads element `i` (what `v[i]` means in a kernel).
    ///
    /// An out-of-bounds index is reported in compute-sanitizer's shape and ends the launch with
    /// error 700 (illegal address).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        backend::load(self, i)
    }

    /// Writes element `i` (what `v[i] = value` means in a kernel).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, i: usize, value: T)
    where
        K: Writable,
    {
        backend::store(self, i, value)
    }
}

impl<'l, T: AnyBitPattern, K: ViewKind> View<'l, T, K> {
    /// The same memory seen as elements of `U` (CUDA's `reinterpret_cast<U*>(p)`): a view of
    /// `len * size_of::<T>() / size_of::<U>()` elements starting at the same address, of the
    /// same kind (a read-only view stays read-only), which the checkers see as the same
    /// allocation. A byte array in shared memory cleared as `u32`s, an `atomic_inc` on `u32`s
    /// of a byte buffer:
    ///
    /// ```ignore
    /// let bytes = shared_array![u8; 1024];
    /// let words = bytes.cast::<u32>();   // 256 elements
    /// words[tid] = 0;
    /// ```
    ///
    /// The start must be aligned for `U`, as on the GPU: every access through a misaligned
    /// view is reported as compute-sanitizer reports it (`Invalid __global__ read of size 4
    /// bytes ... Address 0x... is misaligned`) and ends the launch with error 716
    /// (cudaErrorMisalignedAddress). Both types must be valid for any bits
    /// ([`AnyBitPattern`]: integers, floats and arrays of them).
    #[inline(always)]
    pub fn cast<U: AnyBitPattern>(&self) -> View<'l, U, K> {
        let bytes = self.len * core::mem::size_of::<T>();
        let len = bytes.checked_div(core::mem::size_of::<U>()).unwrap_or(0);
        // SAFETY: the new view covers the first `len * size_of::<U>() <= bytes` bytes of this
        // one, valid as long as it is (`'l`), in the same space and of the same kind; any
        // bytes are a valid `U` and a valid `T` (`AnyBitPattern`), so writes through either
        // view leave valid values for the other; `meta` describes the same allocation. An
        // access through a start misaligned for `U` is reported before it touches memory
        // (`check_index`).
        unsafe { self.sub(self.ptr as *mut U, len) }
    }
}

impl<'l, T: DeviceCopy, const N: usize, K: ViewKind> View<'l, [T; N], K> {
    /// The view of row `i` of an array of arrays (what `t[i]` means in `t[i][j]`).
    #[inline(always)]
    #[track_caller]
    pub fn row(&self, i: usize) -> View<'l, T, K> {
        self.row_for(i, backend::AccessKind::Read)
    }

    /// [`View::row`] for an access of kind `access` (what a bad `i` is reported as: an
    /// access of one `T` at the start of row `i`).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn row_for(&self, i: usize, access: backend::AccessKind) -> View<'l, T, K> {
        if !backend::check_row(self, i, core::mem::size_of::<T>(), access) {
            // Reported; the faulting thread goes on with an empty row (its accesses fault
            // again, and are dropped).
            // SAFETY: no element of an empty view is ever accessed.
            return unsafe { self.sub(self.ptr as *mut T, 0) };
        }
        // SAFETY: `i < len`, so row `i` lies inside the memory this view covers, and its `N`
        // elements of `T` are exactly that row.
        unsafe { self.sub(self.ptr.add(i) as *mut T, N) }
    }
}

impl<'l, T, K: ViewKind> View<'l, T, K> {
    /// The view of elements `range` of this one: CUDA's pointer arithmetic inside a kernel
    /// (`&v[first]` handed to a device function, `const float* row = v + r * w;`). In a
    /// kernel or `#[device]` function, `&v[a..b]`, `&v[a..]` and `&mut v[a..]` mean
    /// `v.slice(a..b)` and `v.slice(a..)`; the range may be of any integer type.
    ///
    /// The sub-view is of the same kind (a read-only view stays read-only) and the checkers
    /// see it as the same allocation: its element `j` is element `a + j` of this view, for
    /// initcheck and racecheck too. Its accesses are checked against its own length, as a
    /// Rust slice's are (CUDA checks a pointer only against the whole allocation). A range
    /// past the end, or whose start is past its end, is reported where the sub-view is made,
    /// as an out-of-bounds access of its first element past this view (memcheck's report,
    /// error 700); the kernel then goes on with an empty view. On the GPU the sub-view is a
    /// pointer and a length, and a bad range traps as a bad index does.
    ///
    /// ```ignore
    /// #[device]
    /// fn sum_run(p: Global<f32>) -> f32 {        // __device__ float sum_run(const float* p, int n)
    ///     let mut s = 0.0;
    ///     for j in 0..p.len() { s += p[j]; }
    ///     s
    /// }
    /// // in the kernel: out[r] = sum_run(&v[r * w..(r + 1) * w]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn slice<R: SliceRange>(&self, range: R) -> View<'l, T, K> {
        let (start, end) = range.bounds(self.len);
        if !backend::check_slice(self, start, end) {
            // Reported; the thread goes on with an empty view (its accesses fault again).
            // SAFETY: no element of an empty view is ever accessed.
            return unsafe { self.sub(self.ptr, 0) };
        }
        // SAFETY: `start <= end <= len` (checked above): elements `start..end` lie inside this
        // view's memory, and `ptr + start` is at most one past its end.
        unsafe { self.sub(self.ptr.add(start), end - start) }
    }
}

/// A range of element indices for [`View::slice`]: `a..b`, `a..`, `..b`, `a..=b`, `..=b` or
/// `..`, of any primitive integer type (a negative bound is out of range).
pub trait SliceRange: slice_range::Sealed {
    /// The range's `[start, end)` in a view of `len` elements (not yet checked).
    #[doc(hidden)]
    fn bounds(self, len: usize) -> (usize, usize);
}

mod slice_range {
    pub trait Sealed {}
    /// An integer bound of a range, as an index: a negative one or one too large for `usize`
    /// is `usize::MAX` (out of range).
    pub trait Bound: Copy {
        fn index(self) -> usize;
    }
    macro_rules! bounds {
        ($($t:ty),*) => {$(
            impl Bound for $t {
                #[inline(always)]
                #[allow(unused_comparisons)]
                fn index(self) -> usize {
                    if self < 0 { usize::MAX } else { usize::try_from(self).unwrap_or(usize::MAX) }
                }
            }
        )*};
    }
    bounds!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
    impl<I: Bound> Sealed for core::ops::Range<I> {}
    impl<I: Bound> Sealed for core::ops::RangeFrom<I> {}
    impl<I: Bound> Sealed for core::ops::RangeTo<I> {}
    impl<I: Bound> Sealed for core::ops::RangeInclusive<I> {}
    impl<I: Bound> Sealed for core::ops::RangeToInclusive<I> {}
    impl Sealed for core::ops::RangeFull {}
}
use slice_range::Bound;

impl<I: Bound> SliceRange for core::ops::Range<I> {
    #[inline(always)]
    fn bounds(self, _len: usize) -> (usize, usize) {
        (self.start.index(), self.end.index())
    }
}
impl<I: Bound> SliceRange for core::ops::RangeFrom<I> {
    #[inline(always)]
    fn bounds(self, len: usize) -> (usize, usize) {
        (self.start.index(), len)
    }
}
impl<I: Bound> SliceRange for core::ops::RangeTo<I> {
    #[inline(always)]
    fn bounds(self, _len: usize) -> (usize, usize) {
        (0, self.end.index())
    }
}
impl<I: Bound> SliceRange for core::ops::RangeInclusive<I> {
    #[inline(always)]
    fn bounds(self, _len: usize) -> (usize, usize) {
        (self.start().index(), self.end().index().saturating_add(1))
    }
}
impl<I: Bound> SliceRange for core::ops::RangeToInclusive<I> {
    #[inline(always)]
    fn bounds(self, _len: usize) -> (usize, usize) {
        (0, self.end.index().saturating_add(1))
    }
}
impl SliceRange for core::ops::RangeFull {
    #[inline(always)]
    fn bounds(self, len: usize) -> (usize, usize) {
        (0, len)
    }
}
