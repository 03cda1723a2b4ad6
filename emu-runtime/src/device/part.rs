//! Parts of elements: what `v[i].x`, `v[i].m[k]`, `v[i].a.b` and `v[i].method()` mean in a
//! kernel, where `v` is a view of global or shared memory.
//!
//! `#[kernel]` and `#[device]` rewrite a place expression rooted in an element of a view into a
//! [`Part`]: the view, the element's index, and the byte offset of the part inside the element,
//! which a projection closure (`|e| &mut e.a.b`) picks on a local value ([`part_offset`]). The
//! part is then read or written with accesses of its own size, as CUDA does: `v[i].x += a`
//! reads and writes the 8 bytes of `x`, not the element around it, so that two threads (or two
//! blocks on two host threads) writing different fields of one element never undo each other's
//! writes, and racecheck and initcheck see exactly those bytes.
//!
//! A method call on an element or a part (`v[i].a.push_bit(..)`) and a `&mut` borrow of one
//! passed to a function (`swap(&mut v[i], &mut v[j])`) go through a [`PartMut`]: a copy of the
//! part that derefs to it; when the callee borrowed it mutably (Rust calls `DerefMut` only then),
//! [`PartMut::finish`] writes it back once the call returns. A method that takes `&self` or
//! `self` only reads.
//!
//! The offset is computed on a local all-zero element ([`DeviceCopy`] types accept the all-zero
//! bit pattern) and checked to lie inside the element, so no projection can reach memory
//! outside it; the element's own bounds are checked as for `v[i]`.

use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};

use super::backend;
use super::copy::DeviceCopy;
use super::view::{View, ViewKind, Writable};

/// The byte offset, inside a `T`, of the `F` that `proj` picks (`|e| &mut e.a.b[k]`).
///
/// # Panics
///
/// When the projection reaches outside the element (through a `Deref` of a field, say): a
/// place expression in a kernel must name a part of the element itself.
#[inline(always)]
#[track_caller]
pub fn part_offset<T: DeviceCopy, F>(proj: impl FnOnce(&mut T) -> &mut F) -> usize {
    let mut local: T = super::copy::zero();
    let base = &mut local as *mut T as usize;
    let part = proj(&mut local) as *mut F as usize;
    let off = part.wrapping_sub(base);
    if size_of::<F>() > size_of::<T>() || off > size_of::<T>() - size_of::<F>() {
        outside::<T, F>();
    }
    off
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside<T, F>() -> ! {
    panic!(
        "a place expression on an element of device memory reaches outside the element (a `{}` inside a `{}`): \
         only its fields and the elements of its arrays can be read or written in place",
        core::any::type_name::<F>(),
        core::any::type_name::<T>()
    )
}

/// The part at byte `off` of element `i` of a view: what a place expression such as
/// `v[i].a.b` denotes. Made by [`part`]; read with [`Part::load`], written with
/// [`Part::store`].
pub struct Part<'l, T, K: ViewKind, F> {
    view: View<'l, T, K>,
    i: usize,
    off: usize,
    part: PhantomData<F>,
}

impl<T, K: ViewKind, F> Clone for Part<'_, T, K, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, K: ViewKind, F> Copy for Part<'_, T, K, F> {}

impl<T, K: ViewKind, F> core::fmt::Debug for Part<'_, T, K, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Part").field("index", &self.i).field("offset", &self.off).finish()
    }
}

/// The part of element `i` of `view` that `proj` picks (`|e| &mut e.x`; `|e| e` for the whole
/// element). The element's index is checked when the part is read or written.
#[inline(always)]
#[track_caller]
pub fn part<'l, T: DeviceCopy, K: ViewKind, F: Copy, I: super::access::Index>(
    view: &View<'l, T, K>,
    i: I,
    proj: impl FnOnce(&mut T) -> &mut F,
) -> Part<'l, T, K, F> {
    Part { view: *view, i: i.to_index(), off: part_offset(proj), part: PhantomData }
}

impl<'l, T: DeviceCopy, K: ViewKind, F: Copy> Part<'l, T, K, F> {
    /// Reads the part (`checked`: the launch runs the per-access checkers, as for
    /// `__private::load`).
    #[inline(always)]
    #[track_caller]
    pub fn load(self, checked: bool) -> F {
        // SAFETY: `off` and `F` are a part of `T` (`part_offset` checked it), so `F` has no
        // padding of its own (`T: DeviceCopy` has none) and its bits in a valid `T` are valid.
        let x = unsafe { backend::load_part::<T, F, K>(&self.view, self.i, self.off) };
        #[cfg(not(target_arch = "nvptx64"))]
        if checked {
            self.hook(false);
        }
        #[cfg(target_arch = "nvptx64")]
        let _ = checked;
        x
    }

    /// Writes the part.
    #[inline(always)]
    #[track_caller]
    pub fn store(self, checked: bool, value: F)
    where
        K: Writable,
    {
        // SAFETY: as in `load`.
        unsafe { backend::store_part::<T, F, K>(&self.view, self.i, self.off, value) };
        #[cfg(not(target_arch = "nvptx64"))]
        if checked {
            self.hook(true);
        }
        #[cfg(target_arch = "nvptx64")]
        let _ = checked;
    }

    /// A copy of the part, for a method call or a `&mut` borrow: read now (seen by the
    /// checkers when `checked` and `read_checked`), written back by [`PartMut::finish`] if it
    /// was borrowed mutably.
    #[inline(always)]
    #[track_caller]
    pub fn guard(self, checked: bool, read_checked: bool) -> PartMut<'l, T, K, F> {
        let value = self.load(checked && read_checked);
        PartMut { part: self, value, dirty: false, checked }
    }

    /// The checkers' look at the access (in bounds or already reported): the part as a view of
    /// one `F`, in the same allocation, so that they see its bytes.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(never)]
    #[track_caller]
    fn hook(self, write: bool) {
        if self.i >= self.view.len() {
            return;
        }
        // SAFETY: element `i` is in bounds and `[off, off + size_of::<F>())` lies inside it
        // (`part_offset`), so the one-element view covers memory of this view, described by the
        // same `meta`; the checkers only read its address, length and description.
        let sub: View<'l, F, K> = unsafe {
            View::from_raw_parts(
                (self.view.raw_ptr().add(self.i) as *mut u8).add(self.off) as *mut F,
                1,
                self.view.meta(),
            )
        };
        let at = core::panic::Location::caller();
        if write {
            crate::device::backend::on_store(&sub, 0, at);
        } else {
            crate::device::backend::on_load(&sub, 0, at);
        }
    }
}

/// A copy of a part of an element, borrowed by a method call or a function call
/// (`v[i].a.push_bit(..)`, `swap(&mut v[i], &mut v[j])`): it derefs to the copy, and
/// [`PartMut::finish`] writes the copy back if it was borrowed mutably.
pub struct PartMut<'l, T: DeviceCopy, K: ViewKind, F: Copy> {
    part: Part<'l, T, K, F>,
    value: F,
    dirty: bool,
    checked: bool,
}

impl<T: DeviceCopy, K: ViewKind, F: Copy> core::fmt::Debug for PartMut<'_, T, K, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PartMut").field("part", &self.part).field("dirty", &self.dirty).finish()
    }
}

impl<T: DeviceCopy, K: ViewKind, F: Copy> Deref for PartMut<'_, T, K, F> {
    type Target = F;
    #[inline(always)]
    fn deref(&self) -> &F {
        &self.value
    }
}

impl<T: DeviceCopy, K: Writable, F: Copy> DerefMut for PartMut<'_, T, K, F> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut F {
        self.dirty = true;
        &mut self.value
    }
}

impl<T: DeviceCopy, K: ViewKind, F: Copy> PartMut<'_, T, K, F> {
    /// Ends the borrow: writes the copy back if it was borrowed mutably. (Not a `Drop`: a
    /// thread that unwinds out of the call leaves memory as it was, and never reaches the
    /// emulator from its unwinding.)
    #[inline(always)]
    #[track_caller]
    pub fn finish(this: Self)
    where
        K: FinishKind,
    {
        K::finish(this)
    }
}

/// How a [`PartMut`] of a view of kind `K` ends: written back (writable views) or not
/// (read-only views, which cannot be borrowed mutably).
pub trait FinishKind: ViewKind {
    /// Ends the borrow.
    #[doc(hidden)]
    fn finish<T: DeviceCopy, F: Copy>(this: PartMut<'_, T, Self, F>);
}

impl FinishKind for super::view::ReadOnly {
    #[inline(always)]
    fn finish<T: DeviceCopy, F: Copy>(_: PartMut<'_, T, Self, F>) {}
}

macro_rules! finish_writable {
    ($($k:ty),*) => { $(
        impl FinishKind for $k {
            #[inline(always)]
            #[track_caller]
            fn finish<T: DeviceCopy, F: Copy>(this: PartMut<'_, T, Self, F>) {
                if this.dirty {
                    this.part.store(this.checked, this.value);
                }
            }
        }
    )* };
}
finish_writable!(super::view::ReadWrite, super::view::SharedMem);

/// A copy of an element, or of a part of one, for a call of one of the primitive numbers'
/// by-value methods (`x[i].sqrt()` is `val(load(..)).sqrt()`). It only derefs: a method of
/// the same name that takes `&mut self` does not compile (it would write to the copy).
#[derive(Clone, Copy, Debug)]
pub struct Val<T>(T);

/// `x` for a by-value method call (see [`Val`]).
#[inline(always)]
pub fn val<T>(x: T) -> Val<T> {
    Val(x)
}

impl<T> Deref for Val<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}
