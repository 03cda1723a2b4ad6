//! Shared memory: one arena per worker, carved into the block's static arrays and its dynamic
//! region.
//!
//! Each `shared_array!` call site is a `static` [`SharedSite`]; its address (plus the element
//! type) keys the arena's table, so every thread of a block that evaluates the same
//! `shared_array!` gets the same memory. A worker reuses its arena for the blocks it runs one
//! after another: a new block sees whatever the previous one left, which is what
//! "uninitialised" means on a GPU too.

use std::alloc::Layout;
use std::any::TypeId;
use std::cell::{Cell, RefCell};

use crate::device::{DeviceCopy, Shared, View};
use crate::host::alloc as host_alloc;
use crate::host::check::initcheck::SharedInitBits;
use crate::host::check::racecheck::SharedRaceShadow;
use crate::host::check::view_meta::ViewMeta;
use crate::host::mem::stamp::Slot;
use crate::host::report::error::Error;

/// The identity of one `shared_array!` call site (a `static` the macro declares).
#[derive(Debug)]
pub struct SharedSite {
    file: &'static str,
    line: u32,
    column: u32,
    /// The `let` binding it initialises, when `#[kernel]`/`#[device]` saw one ("" otherwise).
    binding: &'static str,
}

impl SharedSite {
    /// Describes the call site.
    pub const fn new(file: &'static str, line: u32, column: u32) -> Self {
        SharedSite { file, line, column, binding: "" }
    }

    /// Describes the call site of `let binding = shared_array![..]`.
    pub const fn named(binding: &'static str, file: &'static str, line: u32, column: u32) -> Self {
        SharedSite { file, line, column, binding }
    }
}

struct Entry {
    site: usize,
    /// The same site, for allocating its array in another block's arena (distributed shared
    /// memory, [`SharedArena::mirror`]).
    site_ref: &'static SharedSite,
    type_id: TypeId,
    offset: usize,
    len: usize,
    /// The element type's alignment and the array's size in bytes.
    align: usize,
    bytes: usize,
    meta: Box<ViewMeta>,
}

/// (site, element type, offset, length, description) of a shared array.
type CachedArray = (usize, TypeId, usize, usize, *const ViewMeta);

/// A worker's shared memory.
pub(crate) struct SharedArena {
    /// The arena's memory. Invariant: its first `used` bytes are initialised (cleared when
    /// they became reachable); no view reaches past them.
    base: *mut u8,
    layout: Layout,
    dynamic_bytes: usize,
    limit: usize,
    used: Cell<usize>,
    entries: RefCell<Vec<Entry>>,
    /// The last array handed out (site, type, offset, len, meta): every thread of a block
    /// evaluates the same `shared_array!`s in turn, so this one-entry cache nearly always hits.
    last: Cell<Option<CachedArray>>,
    dynamic_meta: Box<ViewMeta>,
    /// initcheck's shadow of the arena, cleared for each block of a launch that checks.
    init: SharedInitBits,
    /// racecheck's shadow of the arena.
    race: SharedRaceShadow,
    /// The stamp of the arena's views (`stamp.rs`): it moves on with each block, and when the
    /// arena goes.
    slot: Slot,
}

const ARENA_ALIGN: usize = 128;

impl SharedArena {
    /// An arena for blocks that may use `limit` bytes, of which `dynamic_bytes` are dynamic.
    /// Out of memory is an error naming the arena and `Config::max_shared_bytes`.
    pub(crate) fn new(dynamic_bytes: usize, limit: usize) -> Result<Self, Error> {
        let size = limit.max(dynamic_bytes).max(1);
        let what = || format!("a worker's shared-memory arena ({limit} bytes per block)");
        const HINT: &str = "lower Config::max_shared_bytes (the arena holds that many bytes, per worker thread)";
        host_alloc::check(what, size, HINT)?;
        let layout = Layout::from_size_align(size, ARENA_ALIGN).map_err(|_| host_alloc::error(what(), size, HINT))?;
        let base = match pool::take(layout) {
            Some(base) => base,
            // SAFETY: `layout` has a non-zero size.
            None => unsafe { std::alloc::alloc(layout) },
        };
        if base.is_null() {
            return Err(host_alloc::error(what(), size, HINT));
        }
        // Static arrays go after the dynamic region.
        let used = dynamic_bytes.next_multiple_of(16).min(size);
        // Only the arena's first `used` bytes are ever reachable (the dynamic region here, each
        // static array as `allocate` carves it), so only they are cleared: a launch of small
        // blocks no longer clears the whole `max_shared_bytes` (48 KiB) for each worker.
        // SAFETY: `used <= size`, inside the allocation.
        unsafe { base.write_bytes(0, used) };
        let dynamic_meta = Box::new(ViewMeta::new("dynamic shared memory", None, base as usize, dynamic_bytes));
        let Some(slot) = Slot::new() else {
            pool::give(base, layout);
            return Err(host_alloc::error(
                what(),
                size,
                "run fewer blocks at once (more than 65,535 shared arenas are alive)",
            ));
        };
        Ok(SharedArena {
            base,
            layout,
            dynamic_bytes,
            limit,
            used: Cell::new(used),
            entries: RefCell::new(Vec::new()),
            last: Cell::new(None),
            dynamic_meta,
            init: SharedInitBits::default(),
            race: SharedRaceShadow::default(),
            slot,
        })
    }

    /// A block starts in the arena: views made by the block before are stale from now on.
    pub(crate) fn new_block(&self) {
        self.slot.next_epoch();
    }

    /// The stamp of the views made now.
    pub(crate) fn stamp(&self) -> u64 {
        self.slot.stamp()
    }

    /// The address of the arena's first byte.
    pub(crate) fn base(&self) -> usize {
        self.base as usize
    }

    /// initcheck's shadow of the arena.
    pub(crate) fn init_bits(&self) -> &SharedInitBits {
        &self.init
    }

    /// racecheck's shadow of the arena.
    pub(crate) fn race_shadow(&self) -> &SharedRaceShadow {
        &self.race
    }

    /// The arena's size in bytes.
    pub(crate) fn size(&self) -> usize {
        self.layout.size()
    }

    /// Starts a block of a launch that checks: every byte unwritten.
    pub(crate) fn clear_init_bits(&self) -> Result<(), Error> {
        self.init.clear(self.layout.size())
    }

    #[inline]
    fn lookup(&self, site: usize, type_id: TypeId) -> Option<(usize, usize, *const ViewMeta)> {
        if let Some((s, t, offset, len, meta)) = self.last.get() {
            if s == site && t == type_id {
                return Some((offset, len, meta));
            }
        }
        let entries = self.entries.borrow();
        let found = entries
            .iter()
            .find(|e| e.site == site && e.type_id == type_id)
            .map(|e| (e.offset, e.len, &*e.meta as *const ViewMeta));
        if let Some((offset, len, meta)) = found {
            self.last.set(Some((site, type_id, offset, len, meta)));
        }
        found
    }

    /// The view of the static array declared at `site`.
    #[inline]
    ///
    /// Fails with the bytes the arena would need and its limit when the array does not fit.
    pub(crate) fn array<T: DeviceCopy>(
        &self,
        site: &'static SharedSite,
        len: usize,
    ) -> Result<Shared<'static, T>, (usize, usize)> {
        let key = site as *const SharedSite as usize;
        let type_id = TypeId::of::<T>();
        let (offset, len, meta) = match self.lookup(key, type_id) {
            Some(found) => found,
            None => {
                self.allocate(site, type_id, len, std::mem::size_of::<T>(), std::mem::align_of::<T>(), T::__EMU_DIMS)?
            }
        };
        // SAFETY: the region `[offset, offset + len * size)` lies inside the arena, is aligned
        // for `T`, and belongs to this site alone while this block runs; every access through
        // the view checks its stamp first (`View::is_live`), which goes stale when the next
        // block starts here or the arena is dropped. Shared memory is only touched by the
        // worker's host thread.
        Ok(unsafe { View::from_raw_parts_stamped(self.base.add(offset) as *mut T, len, meta, self.stamp()) })
    }

    /// Carves the array of `site` (`len` elements of `size` bytes aligned to `align`) out of
    /// the arena.
    fn allocate(
        &self,
        site: &'static SharedSite,
        type_id: TypeId,
        len: usize,
        size: usize,
        align: usize,
        dims: [usize; 3],
    ) -> Result<(usize, usize, *const ViewMeta), (usize, usize)> {
        let bytes = len * size;
        let offset = self.used.get().next_multiple_of(align.max(16));
        let end = offset + bytes;
        if end > self.limit || align > ARENA_ALIGN {
            return Err((end, self.limit));
        }
        // SAFETY: `used <= offset + bytes = end <= limit <= arena size`: the new array's bytes
        // (and the padding before it) are cleared before any view reaches them, which keeps
        // the invariant that the arena's first `used` bytes are initialised.
        unsafe { self.base.add(self.used.get()).write_bytes(0, end - self.used.get()) };
        self.used.set(end);
        // SAFETY: `offset + bytes <= limit <= arena size`.
        let start = unsafe { self.base.add(offset) } as usize;
        let mut meta = ViewMeta::new("shared array", Some((site.file, site.line)), start, bytes);
        meta.elem_size = size;
        meta.dims = dims;
        meta.binding = (!site.binding.is_empty()).then_some(site.binding);
        let meta = Box::new(meta);
        let _ = site.column;
        let m = &*meta as *const ViewMeta;
        let key = site as *const SharedSite as usize;
        self.entries.borrow_mut().push(Entry { site: key, site_ref: site, type_id, offset, len, align, bytes, meta });
        Ok((offset, len, m))
    }

    /// The view, in this arena, of what `view` covers in `from` (another block's arena of the
    /// same launch): the same part of the same shared array (distributed shared memory). The
    /// array is carved out of this arena if its block has not evaluated its `shared_array!`
    /// yet. `None` if `view` is not shared memory of `from`, or the array does not fit here.
    pub(crate) fn mirror<T: DeviceCopy>(&self, from: &SharedArena, view: &Shared<'_, T>) -> Option<Shared<'static, T>> {
        // A view kept from an earlier block is not a view of `from`'s block.
        if view.stamp() != from.stamp() {
            return None;
        }
        let addr = (view.raw_ptr() as usize).checked_sub(from.base as usize)?;
        let size = std::mem::size_of::<T>();
        let span = view.len().checked_mul(size)?;
        let (offset, meta) = if addr + span <= from.dynamic_bytes && std::ptr::eq(view.meta(), &*from.dynamic_meta) {
            (addr, &*self.dynamic_meta as *const ViewMeta)
        } else {
            let (site, type_id, len, esize, align, start, bytes, dims) = {
                let entries = from.entries.borrow();
                let e = entries.iter().find(|e| (e.offset..e.offset + e.bytes.max(1)).contains(&addr))?;
                (e.site_ref, e.type_id, e.len, e.bytes / e.len.max(1), e.align, e.offset, e.bytes, e.meta.dims)
            };
            if addr + span > start + bytes {
                return None;
            }
            let key = site as *const SharedSite as usize;
            let (here, _, meta) = match self.lookup(key, type_id) {
                Some(found) => found,
                None => self.allocate(site, type_id, len, esize, align, dims).ok()?,
            };
            (here + (addr - start), meta)
        };
        // SAFETY: `[offset, offset + span)` lies inside the array of this arena that matches the
        // one `view` covers in `from` (same site, type and length), so it is inside the arena and
        // aligned for `T`; the arena outlives the blocks of the launch, and it is only touched
        // by the host thread that drives the cluster's blocks.
        Some(unsafe { View::from_raw_parts_stamped(self.base.add(offset) as *mut T, view.len(), meta, self.stamp()) })
    }

    /// The view of the dynamic shared memory, as `T`s.
    pub(crate) fn dynamic<T: DeviceCopy>(&self) -> Shared<'static, T> {
        assert!(std::mem::align_of::<T>() <= 16, "dynamic_shared::<T>() needs T aligned to at most 16 bytes");
        let len = match std::mem::size_of::<T>() {
            0 => 0,
            s => self.dynamic_bytes / s,
        };
        // SAFETY: the dynamic region is the arena's first `dynamic_bytes` bytes, 128-aligned.
        unsafe { View::from_raw_parts_stamped(self.base as *mut T, len, &*self.dynamic_meta, self.stamp()) }
    }
}

impl Drop for SharedArena {
    fn drop(&mut self) {
        pool::give(self.base, self.layout);
    }
}

/// Arena memory is never freed: a dropped arena's memory waits here for the next arena of the
/// same layout (nearly all arenas have one: `Config::max_shared_bytes`).
///
/// So a view of shared memory always points into allocated memory, even kept past its block
/// and its launch (a stale view, `stamp.rs`): the stamp check decides what is *reported*, and
/// no access, checked or not, can touch freed memory. This is what lets the barrier regions'
/// proved accesses check a view's stamp once per region run rather than per access
/// (`__private::view_aligned`), and it closes the window between a check and its access that
/// another launch's arena, dropped on another stream meanwhile, would leave open. The memory
/// kept is at most what the most arenas ever alive at once used.
mod pool {
    use std::alloc::Layout;
    use std::sync::Mutex;

    /// Arena memory kept for a later arena. A pointer, not an address, so that the memory stays
    /// reachable from this static (miri's leak check, and its provenance, follow pointers only).
    struct Kept(*mut u8);

    // SAFETY: `Kept` owns memory no arena uses (the pool hands it to one arena at a time), so
    // it may move between threads.
    unsafe impl Send for Kept {}

    /// Free arena memory with its layout.
    static FREE: Mutex<Vec<(Kept, Layout)>> = Mutex::new(Vec::new());

    /// Memory of `layout` an arena dropped, if any.
    pub(super) fn take(layout: Layout) -> Option<*mut u8> {
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        let i = free.iter().rposition(|(_, l)| *l == layout)?;
        Some(free.swap_remove(i).0 .0)
    }

    /// Keeps `base`, allocated with `layout`, for a later arena (never freed).
    pub(super) fn give(base: *mut u8, layout: Layout) {
        FREE.lock().unwrap_or_else(|e| e.into_inner()).push((Kept(base), layout));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_arenas_memory_stays_allocated_for_the_next_arena() {
        // A layout no other test's arena has (other tests may run at once).
        let (dynamic, limit) = (0, 40_000 + 16 * 7);
        let a = SharedArena::new(dynamic, limit).unwrap();
        let (base, stamp) = (a.base, a.stamp());
        drop(a);
        assert!(!crate::host::mem::stamp::live(stamp), "the dropped arena's views are stale");
        // The memory was kept, not freed: the next arena of this layout gets it back.
        let b = SharedArena::new(dynamic, limit).unwrap();
        assert_eq!(b.base, base);
        assert_ne!(b.stamp(), stamp);
    }
}
