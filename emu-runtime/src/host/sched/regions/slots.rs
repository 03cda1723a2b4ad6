//! Per-thread slots: where a block run as regions keeps the values of a local that lives across
//! a barrier, one per thread.
//!
//! Two forms, which the macro picks by the local's type (`fission/mod.rs`, `emit`):
//!
//! - [`Slots`], for a [`DeviceCopy`] type: all-zero until a thread stores its value (every
//!   `DeviceCopy` type accepts the all-zero bits), so a read is a plain copy, with no tag to
//!   test, and the slots of a region's threads are contiguous values (a vectorised region's
//!   lane loop reads them as such);
//! - [`Lanes`], for any other type: an `Option` per thread, taken or copied out and put back.
//!
//! The macro names the type when the local's binding shows it (`let x: u32 = ..`, `as u32`,
//! a suffixed literal) and [`SlotOf`] chooses between the two at compile time: its
//! [`ZeroSlots`] method applies where the type is `DeviceCopy`, and its [`TaggedSlots`]
//! method, one auto-reference further, everywhere else (a generic type without the bound, a
//! tuple, a reference). Both forms have the same `take`, `get` and `put`, so the region code is
//! the same for either.
use std::cell::Cell;
use std::marker::PhantomData;

use crate::device::DeviceCopy;

use super::Regions;

/// Values of one local that lives across a barrier, one per thread of the block. Cells: a
/// vectorised region's lane loop and its lane-by-lane rerun (`Regions::each_chunk_below`)
/// both hold it.
pub struct Lanes<T>(Box<[Cell<Option<T>>]>);

impl<T> std::fmt::Debug for Lanes<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes").field("threads", &self.0.len()).finish()
    }
}

impl<T> Lanes<T> {
    /// Empty slots for `threads` threads.
    pub(super) fn new(threads: usize) -> Self {
        Lanes((0..threads).map(|_| Cell::new(None)).collect())
    }

    /// Thread `t`'s value, moved out (the region puts it back with [`Lanes::put`]).
    #[inline(always)]
    pub fn take(&self, t: usize) -> T {
        stored(self.0[t].take())
    }

    /// Thread `t`'s value, copied (it stays in its slot): what a vectorised region reads, so
    /// that a chunk that runs again lane by lane finds it (`Regions::each_chunk_below`).
    #[inline(always)]
    pub fn get(&self, t: usize) -> T
    where
        T: Copy,
    {
        stored(self.0[t].get())
    }

    /// Stores thread `t`'s value.
    #[inline(always)]
    pub fn put(&self, t: usize, v: T) {
        self.0[t].set(Some(v));
    }
}

impl<T> Lanes<T> {
    /// Threads `c0..c0 + m`'s slots, for one chunk of a vectorised region that writes in place
    /// (`fission/vector.rs`): the same `take`, `get` and `put` by thread index.
    #[inline(always)]
    pub fn window(&self, c0: usize, m: usize) -> Window<'_, Cell<Option<T>>> {
        Window { cells: &self.0[c0..c0 + m], c0 }
    }
}

/// Slots a warp shuffle's hand-over copies as a whole (`Exchange::put_lanes`): each fills
/// `dst` (the exchange's first threads) with the values of its threads, `None` for a thread
/// with none to hand over.
pub trait HandOver<T> {
    /// Hands over the values of threads `0..dst.len()`; `live` is the running order when
    /// some threads are gone (`None`: every thread of the block is live).
    fn hand_over(&self, dst: &[Cell<Option<T>>], live: Option<&[u32]>);
}

/// Tagged slots hand over what they hold: an empty slot is a thread that never stored.
impl<T: Copy> HandOver<T> for Lanes<T> {
    #[inline(always)]
    fn hand_over(&self, dst: &[Cell<Option<T>>], _: Option<&[u32]>) {
        for (d, s) in dst.iter().zip(self.0.iter()) {
            d.set(s.get());
        }
    }
}

/// Zeroed slots hold a value for every thread, but only a live thread stored its own: every
/// live thread ran every region so far, the one that binds the local among them, and a thread
/// that exited or stopped at a fault is out of the running order. A slot of any other thread
/// holds a value of an earlier block or the all-zero one, and hands over nothing, as an
/// empty tagged slot does.
impl<T: DeviceCopy> HandOver<T> for Slots<'_, T> {
    #[inline(always)]
    fn hand_over(&self, dst: &[Cell<Option<T>>], live: Option<&[u32]>) {
        match live {
            None => {
                for (d, s) in dst.iter().zip(self.cells.iter()) {
                    d.set(Some(s.get()));
                }
            }
            Some(order) => {
                dst.iter().for_each(|d| d.set(None));
                for &t in order {
                    if let (Some(d), Some(s)) = (dst.get(t as usize), self.cells.get(t as usize)) {
                        d.set(Some(s.get()));
                    }
                }
            }
        }
    }
}

/// A chunk's share of a block's slots ([`Slots::window`], [`Lanes::window`]), indexed by
/// thread as the slots are: lane `k` of the chunk is thread `c0 + k`, and the index check is
/// against the chunk's length, which the lane loop's own bound shows the compiler, so the
/// loop over lanes vectorises.
pub struct Window<'a, C> {
    cells: &'a [C],
    c0: usize,
}

impl<C> std::fmt::Debug for Window<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Window").field("from", &self.c0).field("threads", &self.cells.len()).finish()
    }
}

impl<T: DeviceCopy> Window<'_, Cell<T>> {
    /// Thread `t`'s value.
    #[inline(always)]
    pub fn take(&self, t: usize) -> T {
        self.cells[t.wrapping_sub(self.c0)].get()
    }

    /// Thread `t`'s value.
    #[inline(always)]
    pub fn get(&self, t: usize) -> T {
        self.cells[t.wrapping_sub(self.c0)].get()
    }

    /// Stores thread `t`'s value.
    #[inline(always)]
    pub fn put(&self, t: usize, v: T) {
        self.cells[t.wrapping_sub(self.c0)].set(v);
    }
}

impl<T> Window<'_, Cell<Option<T>>> {
    /// Thread `t`'s value, moved out.
    #[inline(always)]
    pub fn take(&self, t: usize) -> T {
        stored(self.cells[t.wrapping_sub(self.c0)].take())
    }

    /// Thread `t`'s value, copied.
    #[inline(always)]
    pub fn get(&self, t: usize) -> T
    where
        T: Copy,
    {
        stored(self.cells[t.wrapping_sub(self.c0)].get())
    }

    /// Stores thread `t`'s value.
    #[inline(always)]
    pub fn put(&self, t: usize, v: T) {
        self.cells[t.wrapping_sub(self.c0)].set(Some(v));
    }
}

/// A slot's value, which its thread stored before any region read it.
#[inline(always)]
fn stored<T>(v: Option<T>) -> T {
    match v {
        Some(v) => v,
        None => unset(),
    }
}

#[cold]
#[inline(never)]
fn unset() -> ! {
    unreachable!("deviceemu: a value live across a barrier was read before the thread stored it (a bug in #[kernel])")
}

/// Values of one local of a [`DeviceCopy`] type that lives across a barrier, one per thread of
/// the block, all-zero until a thread of the runner's first block stores its own. A thread
/// reads only a value it stored (fission keeps a local's slot from the run that binds it to
/// the runs that read it, and a thread that exits runs no later region); where that did not
/// hold, a read would give a value of `T` some thread stored earlier, or the all-zero one:
/// always a valid `T`.
///
/// Their storage comes from the runner's [`SlotPool`] and goes back to it when the block
/// ends, so the blocks after the first of a runner allocate and clear nothing.
pub struct Slots<'r, T: DeviceCopy> {
    cells: Box<[Cell<T>]>,
    pool: Option<&'r SlotPool>,
}

impl<T: DeviceCopy> std::fmt::Debug for Slots<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slots").field("threads", &self.cells.len()).finish()
    }
}

impl<'r, T: DeviceCopy> Slots<'r, T> {
    /// All-zero slots for `threads` threads, or a block's slots of the same type and length
    /// from `pool`.
    fn new(threads: usize, pool: Option<&'r SlotPool>) -> Self {
        let cells = pool
            .and_then(|p| p.take::<T>(threads))
            .unwrap_or_else(|| vec![Cell::new(crate::device::copy::zero::<T>()); threads].into_boxed_slice());
        Slots { cells, pool }
    }

    /// Thread `t`'s value (the same as [`Slots::get`]: the type is `Copy`).
    #[inline(always)]
    pub fn take(&self, t: usize) -> T {
        self.cells[t].get()
    }

    /// Thread `t`'s value.
    #[inline(always)]
    pub fn get(&self, t: usize) -> T {
        self.cells[t].get()
    }

    /// Stores thread `t`'s value.
    #[inline(always)]
    pub fn put(&self, t: usize, v: T) {
        self.cells[t].set(v);
    }

    /// Threads `c0..c0 + m`'s slots, for one chunk of a vectorised region that writes in place
    /// ([`Window`]).
    #[inline(always)]
    pub fn window(&self, c0: usize, m: usize) -> Window<'_, Cell<T>> {
        Window { cells: &self.cells[c0..c0 + m], c0 }
    }
}

impl<T: DeviceCopy> Drop for Slots<'_, T> {
    fn drop(&mut self) {
        if let Some(pool) = self.pool {
            pool.give(std::mem::take(&mut self.cells));
        }
    }
}

/// A runner's storage for [`Slots`], kept from block to block: per element type, the boxes of
/// the blocks that ended. A kernel has a few slot types, so a list searched in order.
#[derive(Default)]
pub(crate) struct SlotPool(std::cell::RefCell<Vec<(std::any::TypeId, Box<dyn std::any::Any>)>>);

impl std::fmt::Debug for SlotPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlotPool").finish_non_exhaustive()
    }
}

impl SlotPool {
    /// A box of `threads` slots of `T` that an ended block gave back, if there is one.
    fn take<T: DeviceCopy>(&self, threads: usize) -> Option<Box<[Cell<T>]>> {
        let mut pool = self.0.try_borrow_mut().ok()?;
        let (_, boxes) = pool.iter_mut().find(|(id, _)| *id == std::any::TypeId::of::<T>())?;
        let boxes = boxes.downcast_mut::<Vec<Box<[Cell<T>]>>>()?;
        let i = boxes.iter().rposition(|b| b.len() == threads)?;
        Some(boxes.swap_remove(i))
    }

    /// Keeps `cells` for a later block.
    fn give<T: DeviceCopy>(&self, cells: Box<[Cell<T>]>) {
        let Ok(mut pool) = self.0.try_borrow_mut() else { return };
        let id = std::any::TypeId::of::<T>();
        if let Some(boxes) =
            pool.iter_mut().find(|(i, _)| *i == id).and_then(|(_, b)| b.downcast_mut::<Vec<Box<[Cell<T>]>>>())
        {
            boxes.push(cells);
            return;
        }
        pool.push((id, Box::new(vec![cells])));
    }
}

/// The slots for a local of type `T`, chosen at compile time: `(&SlotOf::<T>::new()).slots(rb)`
/// with [`ZeroSlots`] and [`TaggedSlots`] in scope gives [`Slots`] when `T` is
/// [`DeviceCopy`], and [`Lanes`] otherwise (method lookup tries `&SlotOf<T>`, where only
/// `ZeroSlots` is implemented, before `&&SlotOf<T>`).
pub struct SlotOf<T>(PhantomData<fn() -> T>);

impl<T> SlotOf<T> {
    /// The chooser for type `T`.
    #[inline(always)]
    pub const fn new() -> Self {
        SlotOf(PhantomData)
    }
}

impl<T> Default for SlotOf<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> std::fmt::Debug for SlotOf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SlotOf")
    }
}

/// [`SlotOf`]'s choice for a [`DeviceCopy`] type: [`Slots`].
pub trait ZeroSlots<T: DeviceCopy> {
    /// Slots for each thread of `rb`'s block.
    fn slots<'r>(&self, rb: &Regions<'r>) -> Slots<'r, T>;
}

impl<T: DeviceCopy> ZeroSlots<T> for SlotOf<T> {
    #[inline(always)]
    fn slots<'r>(&self, rb: &Regions<'r>) -> Slots<'r, T> {
        Slots::new(rb.threads(), Some(rb.slot_pool()))
    }
}

/// [`SlotOf`]'s choice for any other type: [`Lanes`].
pub trait TaggedSlots<T> {
    /// Slots for each thread of `rb`'s block.
    fn slots(&self, rb: &Regions<'_>) -> Lanes<T>;
}

impl<T> TaggedSlots<T> for &SlotOf<T> {
    #[inline(always)]
    fn slots(&self, rb: &Regions<'_>) -> Lanes<T> {
        rb.lanes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_its_chunks_slots_by_thread_index() {
        let s = Slots::<u32>::new(8, None);
        s.put(5, 9);
        let w = s.window(4, 3);
        assert_eq!((w.get(4), w.take(5)), (0, 9));
        w.put(6, 7);
        assert_eq!(s.get(6), 7);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.window(4, 3).get(7)));
        assert!(out.is_err(), "thread 7 is past the window");
        let l = Lanes::<String>::new(4);
        l.put(2, "x".into());
        let w = l.window(2, 2);
        assert_eq!(w.take(2), "x");
        w.put(3, "y".into());
        assert_eq!(l.take(3), "y");
    }

    #[test]
    fn zeroed_slots_start_at_zero_and_keep_each_threads_value() {
        let s = Slots::<[u32; 2]>::new(3, None);
        assert_eq!(s.get(2), [0, 0]);
        s.put(1, [7, 8]);
        assert_eq!((s.get(0), s.take(1), s.get(1)), ([0, 0], [7, 8], [7, 8]));
    }

    #[test]
    fn a_pool_gives_back_slots_of_the_same_type_and_length_only() {
        let pool = SlotPool::default();
        let s = Slots::<u32>::new(4, Some(&pool));
        s.put(3, 9);
        drop(s);
        // Another type, another length: fresh, all-zero slots.
        assert_eq!(Slots::<i32>::new(4, Some(&pool)).get(3), 0);
        assert_eq!(Slots::<u32>::new(5, Some(&pool)).get(3), 0);
        // The same: the ended block's box, its values as they were (every one a valid `u32`).
        let again = Slots::<u32>::new(4, Some(&pool));
        assert_eq!(again.get(3), 9);
        // Taken: the next one of that shape is fresh.
        assert_eq!(Slots::<u32>::new(4, Some(&pool)).get(3), 0);
    }

    /// The type of the slots `make` gives (without a block to make them for).
    fn chosen<S>(_make: fn(&Regions<'static>) -> S) -> &'static str {
        std::any::type_name::<S>()
    }

    #[test]
    #[allow(clippy::needless_borrow)] // The borrow is the choice (see `SlotOf`).
    fn slot_of_picks_zeroed_slots_for_device_copy_types_only() {
        let c = chosen(|rb| (&SlotOf::<u32>::new()).slots(rb));
        assert!(c.contains("Slots<'_, u32>"), "{c}");
        assert!(chosen(|rb| (&SlotOf::<[f32; 4]>::new()).slots(rb)).contains("Slots<'_, [f32; 4]>"));
        assert!(chosen(|rb| (&SlotOf::<(u32, u32)>::new()).slots(rb)).contains("Lanes<(u32, u32)>"));
        assert!(chosen(|rb| (&SlotOf::<String>::new()).slots(rb)).contains("Lanes<alloc::string::String>"));
        fn generic<T>() -> &'static str {
            chosen(|rb| (&SlotOf::<T>::new()).slots(rb))
        }
        assert!(generic::<u32>().contains("Lanes<u32>"), "a type parameter without the bound keeps tags");
    }

    #[test]
    fn tagged_slots_move_their_value_out() {
        let l = Lanes::<String>::new(2);
        l.put(0, "a".into());
        assert_eq!(l.take(0), "a");
        assert!(
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l.take(0))).is_err(),
            "a taken slot is empty again"
        );
    }
}
