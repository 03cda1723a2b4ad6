//! Shared memory: `shared_array!` (static, one array per block and call site) and
//! [`dynamic_shared`] (the launch's dynamic shared bytes).

use super::backend;
use super::copy::DeviceCopy;
use super::view::Shared;

/// Declares a shared-memory array of `N` elements of `T`, one per block (`__shared__ T a[N]`).
///
/// Every thread of a block that evaluates the same `shared_array!` gets a view of the same
/// memory; a new block gets a fresh, uninitialised instance. `T` may itself be an array:
/// `shared_array![[f32; 16]; 16]` is indexed `t[r][c]`.
///
/// ```ignore
/// let mut tile = shared_array![f32; 256];
/// tile[thread_idx().x as usize] = 1.0;
/// ```
///
/// Inside `#[kernel]` and `#[device]` functions the attribute rewrites each `shared_array!`
/// so that, compiled for the GPU, it becomes a `.shared` variable of its own; elsewhere it is
/// host-only.
#[macro_export]
macro_rules! shared_array {
    // `let name = shared_array![T; N]`, as `#[kernel]` and `#[device]` pass it: reports name
    // the array `name`.
    (@named $name:literal, $t:ty; $n:expr) => {{
        #[cfg(not(target_arch = "nvptx64"))]
        let view = {
            static __EMU_SHARED_SITE: $crate::__private::SharedSite =
                $crate::__private::SharedSite::named($name, ::core::file!(), ::core::line!(), ::core::column!());
            $crate::__private::shared_array::<$t, { $n }>(&__EMU_SHARED_SITE)
        };
        #[cfg(target_arch = "nvptx64")]
        let view: $crate::device::Shared<$t> = ::core::compile_error!(
            "on the GPU, `shared_array!` only works inside `#[kernel]` and `#[device]` functions"
        );
        view
    }};
    ($t:ty; $n:expr) => {{
        #[cfg(not(target_arch = "nvptx64"))]
        let view = {
            static __EMU_SHARED_SITE: $crate::__private::SharedSite =
                $crate::__private::SharedSite::new(::core::file!(), ::core::line!(), ::core::column!());
            $crate::__private::shared_array::<$t, { $n }>(&__EMU_SHARED_SITE)
        };
        #[cfg(target_arch = "nvptx64")]
        let view: $crate::device::Shared<$t> = ::core::compile_error!(
            "on the GPU, `shared_array!` only works inside `#[kernel]` and `#[device]` functions"
        );
        view
    }};
}

/// The launch's dynamic shared memory (the third `launch!` parameter, in bytes) viewed as
/// elements of `T` (`extern __shared__ T a[]`).
///
/// The view has `shared_bytes / size_of::<T>()` elements and is 16-byte aligned. Every thread
/// of a block sees the same memory.
///
/// `T` is an [`AnyBitPattern`](crate::device::AnyBitPattern) type (integers, floats, arrays of
/// them, or a struct that implements it): the buffer has no type of its own, and two calls with
/// different types view the same bytes, so a `bool` written as a `u8` 2 would otherwise be read
/// back as an invalid `bool`.
#[inline(always)]
#[track_caller]
pub fn dynamic_shared<T: crate::device::AnyBitPattern>() -> Shared<'static, T> {
    backend::dynamic_shared::<T>()
}

/// Declares a block-shared single value of type `T` (`__shared__ T x;`), one per block.
///
/// It is a one-element shared array (`shared_array![T; 1]`) read and written with
/// [`SharedScalar::load`] and [`SharedScalar::store`], and updated with the element type's
/// atomics (`next.atomic_add(1)`). The checkers see it exactly as they see a one-element
/// shared array: a write by one thread and a read by another with no barrier between is a
/// race, a read before any write is an initcheck error.
///
/// ```ignore
/// let next = shared_scalar![u32];
/// if thread_idx().x == 0 { next.store(work.atomic_add(0, 1)); }
/// sync_threads();
/// let w = next.load();
/// ```
///
/// Inside `#[kernel]` and `#[device]` functions the attribute rewrites it as it rewrites
/// `shared_array!`, so that it becomes a `.shared` variable of its own on the GPU.
#[macro_export]
macro_rules! shared_scalar {
    (@named $name:literal, $t:ty) => {
        $crate::__private::shared_scalar($crate::shared_array!(@named $name, $t; 1))
    };
    ($t:ty) => {
        $crate::__private::shared_scalar($crate::shared_array!($t; 1))
    };
}

/// A block-shared single value: what [`shared_scalar!`](crate::shared_scalar) gives.
///
/// `Copy`, like the views: every copy names the same value of the same block.
pub struct SharedScalar<'l, T> {
    view: Shared<'l, T>,
}

impl<T> Clone for SharedScalar<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedScalar<'_, T> {}

impl<T> core::fmt::Debug for SharedScalar<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedScalar").field("ptr", &self.view.as_ptr()).finish()
    }
}

impl<'l, T: DeviceCopy> SharedScalar<'l, T> {
    /// The scalar held in element 0 of `view` (a one-element shared array).
    #[inline(always)]
    pub(crate) fn new(view: Shared<'l, T>) -> Self {
        SharedScalar { view }
    }

    /// Reads the value (what `x` means for CUDA's `__shared__ T x;`).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self) -> T {
        super::access::load(super::access::helper_checking(), &self.view, 0usize)
    }

    /// Writes the value (`x = value;`).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, value: T) {
        super::access::store(super::access::helper_checking(), &self.view, 0usize, value)
    }

    /// The one-element shared array that holds the value (to pass where a view is expected).
    #[inline(always)]
    pub fn view(&self) -> Shared<'l, T> {
        self.view
    }
}

macro_rules! scalar_atomics {
    ($($(#[$doc:meta])* $name:ident: $bound:ident ($($arg:ident),*);)*) => {
        impl<'l, T: DeviceCopy> SharedScalar<'l, T> {
            $(
                $(#[$doc])*
                #[inline(always)]
                #[track_caller]
                pub fn $name(&self, $($arg: T),*) -> T
                where
                    T: super::atomic::$bound,
                {
                    self.view.$name(0, $($arg),*)
                }
            )*
        }
    };
}

scalar_atomics! {
    /// `atomicAdd(&x, value)`: adds and returns the old value.
    atomic_add: AtomicAdd (value);
    /// `atomicSub(&x, value)`.
    atomic_sub: AtomicSub (value);
    /// `atomicMin(&x, value)`.
    atomic_min: AtomicMinMax (value);
    /// `atomicMax(&x, value)`.
    atomic_max: AtomicMinMax (value);
    /// `atomicExch(&x, value)`.
    atomic_exch: AtomicExch (value);
    /// `atomicAnd(&x, value)`.
    atomic_and: AtomicBitwise (value);
    /// `atomicOr(&x, value)`.
    atomic_or: AtomicBitwise (value);
    /// `atomicXor(&x, value)`.
    atomic_xor: AtomicBitwise (value);
    /// `atomicCAS(&x, compare, value)`.
    atomic_cas: AtomicCas (compare, value);
    /// `atomicInc(&x, limit)`.
    atomic_inc: AtomicIncDec (limit);
    /// `atomicDec(&x, limit)`.
    atomic_dec: AtomicIncDec (limit);
}

mod parts_sealed {
    pub trait Sealed {}
}

/// The element types of a typed split of the dynamic shared memory: tuples of 2 to 4
/// [`AnyBitPattern`](crate::device::AnyBitPattern) types, `(f32, i32)`. See [`dynamic_shared_parts`].
pub trait SharedParts: parts_sealed::Sealed {
    /// The parts' lengths in elements, one per part: `[usize; K]`.
    type Lens;
    /// The parts' views, one per part: `(Shared<A>, Shared<B>, ..)`.
    type Views;
    #[doc(hidden)]
    #[track_caller]
    fn split(bytes: Shared<'static, u8>, lens: Self::Lens) -> Self::Views;
}

/// The view of `n` elements of `T` at the first offset at or after `*offset` aligned for `T`;
/// moves `*offset` past it. `None` when the part does not fit in `bytes` (or its size
/// overflows).
#[inline(always)]
fn part<T: crate::device::AnyBitPattern>(
    bytes: &Shared<'static, u8>,
    offset: &mut usize,
    n: usize,
) -> Option<Shared<'static, T>> {
    let align = core::mem::align_of::<T>();
    // The dynamic memory starts 16-byte aligned (128 on the host), so an offset aligned for
    // `T` is an address aligned for `T` when `T` needs at most 16.
    if align > 16 {
        return None;
    }
    let start = offset.checked_next_multiple_of(align)?;
    let end = start.checked_add(n.checked_mul(core::mem::size_of::<T>())?)?;
    if end > bytes.len() {
        return None;
    }
    *offset = end;
    // SAFETY: `[start, end)` lies inside the dynamic shared memory `bytes` covers (checked
    // above), and `start` is aligned for `T` (its alignment divides both `start` and the
    // 16-byte aligned base). The part is the same memory `dynamic_shared::<T>()` would view
    // at that offset, in the same space and with the same description, so the checkers see it
    // as that allocation; every access through it is bounds-checked against `n`. `bytes`
    // itself is never read or written, so the bits a part sees are those other views of the
    // dynamic memory (`dynamic_shared::<U>()`, other parts) leave, as for `dynamic_shared::<T>()`.
    Some(unsafe { bytes.sub(bytes.raw_ptr().add(start) as *mut T, n) })
}

/// Stops the kernel: the parts of a `dynamic_shared_parts` do not fit in the launch's dynamic
/// shared memory. On the host a panic, which reports kernel, block, thread and line (error
/// 719); on the GPU a trap (the launch fails with error 719).
#[cold]
#[inline(never)]
#[track_caller]
fn parts_do_not_fit<P>(lens: &[usize], have: usize, too_aligned: bool) -> ! {
    #[cfg(not(target_arch = "nvptx64"))]
    {
        panic!(
            "dynamic_shared_parts::<{}>({lens:?}): the parts do not fit in the launch's {have} bytes of dynamic shared \
             memory (each part starts aligned for its type, after the one before it); give at least their total, \
             aligned, as launch!'s third parameter, `launch!(k<<<grid, block, bytes>>>(..))`{}",
            core::any::type_name::<P>(),
            if too_aligned { "; a part's type is aligned to more than 16 bytes, which dynamic shared memory is not" } else { "" }
        )
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (lens, have, too_aligned);
        // SAFETY: `trap` aborts the kernel; the host sees a launch failure.
        unsafe { core::arch::nvptx::trap() }
    }
}

macro_rules! shared_parts {
    ($k:literal: $($t:ident $v:ident),+) => {
        impl<$($t: crate::device::AnyBitPattern),+> parts_sealed::Sealed for ($($t,)+) {}
        impl<$($t: crate::device::AnyBitPattern),+> SharedParts for ($($t,)+) {
            type Lens = [usize; $k];
            type Views = ($(Shared<'static, $t>,)+);
            #[inline(always)]
            #[track_caller]
            fn split(bytes: Shared<'static, u8>, lens: [usize; $k]) -> Self::Views {
                let mut offset = 0usize;
                let mut k = 0;
                $(
                    let $v = match part::<$t>(&bytes, &mut offset, lens[k]) {
                        Some(v) => v,
                        None => parts_do_not_fit::<Self>(&lens, bytes.len(), core::mem::align_of::<$t>() > 16),
                    };
                    k += 1;
                )+
                let _ = k;
                ($($v,)+)
            }
        }
    };
}

shared_parts!(2: A a, B b);
shared_parts!(3: A a, B b, C c);
shared_parts!(4: A a, B b, C c, D d);

/// The launch's dynamic shared memory split into typed parts laid out one after the other,
/// each aligned for its type: CUDA's
///
/// ```c++
/// extern __shared__ float s[];
/// float* a = s;             // n floats
/// int* b = (int*)&a[n];     // m ints
/// ```
///
/// is `let (a, b) = dynamic_shared_parts::<(f32, i32)>([n, m]);`. Each part is a shared
/// view of its own length: `a[n]` is an out-of-bounds access (memcheck's report, error 700),
/// not a read of `b[0]`. Parts that do not fit in the launch's dynamic shared size (the third
/// `launch!` parameter) stop the kernel with a report naming the line (error 719; a trap on
/// the GPU). Tuples of 2, 3 and 4 parts; every element type aligned to at most 16 bytes.
#[inline(always)]
#[track_caller]
pub fn dynamic_shared_parts<P: SharedParts>(lens: P::Lens) -> P::Views {
    P::split(backend::dynamic_shared::<u8>(), lens)
}
