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
#[inline(always)]
#[track_caller]
pub fn dynamic_shared<T: DeviceCopy>() -> Shared<'static, T> {
    backend::dynamic_shared::<T>()
}
