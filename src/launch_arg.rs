//! How `launch!` passes an argument written as a name (`launch!(k<<<g, b>>>(d_data, n))`):
//! through a method call, `d_data.__emu_arg()`, so that a `&mut DeviceBuffer` variable is
//! reborrowed (the receiver of a `&mut self` method), not moved into the launcher's generic
//! `impl KernelArgMut` parameter, and stays usable in the next iteration of a loop, as a CUDA
//! pointer does. Method resolution picks one of three traits by the argument's type:
//!
//! | argument | trait | passes |
//! |---|---|---|
//! | `&mut DeviceBuffer<T>` | [`Reborrow`] (`&mut self`) | `&mut *d_data` |
//! | `DeviceSliceMut` | [`ByValue`] (`self`) | the slice, moved (as before) |
//! | a `Copy` value (`u32`, `&DeviceBuffer<T>`, a `DeviceCopy` struct) | [`ByCopy`] (`&self`) | a copy |

use emu_runtime::device::DeviceCopy;
use emu_runtime::{DeviceBuffer, DeviceSliceMut};

/// A buffer that a `&mut` variable lends to each launch.
pub trait Reborrow {
    /// `&mut *self`.
    fn __emu_arg(&mut self) -> &mut Self;
}

impl<T: DeviceCopy> Reborrow for DeviceBuffer<T> {
    #[inline(always)]
    fn __emu_arg(&mut self) -> &mut Self {
        self
    }
}

/// An argument passed by value (moved).
pub trait ByValue: Sized {
    /// `self`.
    fn __emu_arg(self) -> Self;
}

impl<T: DeviceCopy> ByValue for DeviceSliceMut<'_, T> {
    #[inline(always)]
    fn __emu_arg(self) -> Self {
        self
    }
}

/// An argument passed by copy.
pub trait ByCopy: Copy {
    /// `*self`.
    fn __emu_arg(&self) -> Self;
}

impl<T: Copy> ByCopy for T {
    #[inline(always)]
    fn __emu_arg(&self) -> Self {
        *self
    }
}
