//! The arguments a device-side launch passes to a child kernel (`launch!` inside a kernel):
//! views of the parent's global memory. One definition for both targets: the emulator's device
//! runtime (`host/sched/devrt.rs`) and the GPU's (`device/devrt.rs`, nvptx) re-export it.

use super::{ReadOnly, ReadWrite, View};

/// A kernel argument a device-side launch passes for a child's `&[T]` parameter: a view of
/// the parent's global memory, by value or by reference. Shared memory cannot be passed to a
/// child (CUDA makes that undefined).
#[diagnostic::on_unimplemented(
    message = "a device-side launch passes a global-memory view of the parent for a `&[T]` parameter, not `{Self}`",
    label = "not a view of the parent's global memory",
    note = "pass a parameter of the parent kernel (`data`, `&data` or `&mut data`); shared memory cannot be passed to a child kernel"
)]
pub trait DeviceArg<'l, T> {
    /// The view the child gets.
    fn into_view(self) -> View<'l, T, ReadOnly>;
}

/// A kernel argument a device-side launch passes for a child's `&mut [T]` parameter: a
/// writable view of the parent's global memory.
#[diagnostic::on_unimplemented(
    message = "a device-side launch passes a writable global-memory view of the parent for a `&mut [T]` parameter, not `{Self}`",
    label = "not a writable view of the parent's global memory",
    note = "pass a `&mut [T]` parameter of the parent kernel (`data` or `&mut data`); a `&[T]` parameter cannot become writable"
)]
pub trait DeviceArgMut<'l, T> {
    /// The view the child gets.
    fn into_view(self) -> View<'l, T, ReadWrite>;
}

fn read_only<'l, T, K: super::ViewKind>(v: &View<'l, T, K>) -> View<'l, T, ReadOnly> {
    // SAFETY: the same memory, length and description as `v`, which is valid for its launch
    // `'l`; a read-only view of writable memory only loses rights.
    unsafe { View::from_raw_parts(v.raw_ptr(), v.len(), v.meta()) }
}

impl<'l, T> DeviceArg<'l, T> for View<'l, T, ReadOnly> {
    fn into_view(self) -> View<'l, T, ReadOnly> {
        self
    }
}
impl<'l, T> DeviceArg<'l, T> for &View<'l, T, ReadOnly> {
    fn into_view(self) -> View<'l, T, ReadOnly> {
        *self
    }
}
impl<'l, T> DeviceArg<'l, T> for View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadOnly> {
        read_only(&self)
    }
}
impl<'l, T> DeviceArg<'l, T> for &View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadOnly> {
        read_only(self)
    }
}
impl<'l, T> DeviceArg<'l, T> for &mut View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadOnly> {
        read_only(self)
    }
}
impl<'l, T> DeviceArgMut<'l, T> for View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadWrite> {
        self
    }
}
impl<'l, T> DeviceArgMut<'l, T> for &View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadWrite> {
        *self
    }
}
impl<'l, T> DeviceArgMut<'l, T> for &mut View<'l, T, ReadWrite> {
    fn into_view(self) -> View<'l, T, ReadWrite> {
        *self
    }
}
