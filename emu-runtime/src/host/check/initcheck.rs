//! initcheck: reads of device memory that nothing has written.
//!
//! # Definition
//!
//! A kernel that reads an element of global memory no one has written since
//! `DeviceBuffer::uninit` (`cudaMalloc`), or a byte of the block's shared memory no thread of
//! the block has written, reads an undefined value: on a GPU whatever the memory held before.
//! compute-sanitizer's initcheck reports it as `Uninitialized __global__ memory read`.
//!
//! # Algorithm
//!
//! Shadow bits, one per element of a global buffer (per alignment unit of its element type, so
//! that `t[r][c]` of an array element counts apart) and one per byte of a block's shared
//! memory; and, for a unit of a global buffer written only in part through a `View::cast` (a
//! byte of a `u32`), the mask of its bytes written, in a side table ([`InitBits`]), so that a
//! read of the whole unit is reported until every byte has been written:
//!
//! * A buffer from `uninit` starts with every bit clear; `from_slice`, `zeroed` and
//!   `copy_from_slice` leave no shadow at all (everything is initialised). A block's shared
//!   memory starts clear for every block.
//! * A store sets the bits it covers; a load finds them all set, or is reported (once per
//!   block and call site, with a count) and goes on with the value in memory (zero bytes for a
//!   fresh buffer). An atomic reads and writes: it is checked, then sets its bits.
//! * Stores are `fetch_or`s on atomic words, because blocks run in parallel.
//!
//! # Cost when off
//!
//! None for element loads and stores: `#[kernel]` compiles the kernel twice, and the launch
//! runs the copy without checks unless initcheck is on (the `checked` argument of
//! `__private::load`/`store` is then the constant `false`). `#[device]` helpers ask once per
//! call, and atomics once per operation, whether the running launch checks (a thread-local).
//!
//! A vectorised lane loop's chunk (`Regions::each_chunk`) is checked per access site
//! ([`on_lanes`]): a store sets the chunk's bits a word at a time, a load tests them so, and
//! only the elements not written go through the per-access check, which reports them.
//!
//! # Limits
//!
//! * Writes made by a launch without initcheck are not tracked: after such a launch, a buffer
//!   it could write counts as initialised everywhere.
//! * Accesses through `View::load`/`View::store` called by hand are not checked (the index
//!   syntax, `v[i]`, is). The same holds for racecheck, which shares this hook
//!   (`checkers.rs`).

use std::cell::RefCell;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::device::{Space, View, ViewKind};
use crate::host::check::view_meta::ViewMeta;
use crate::host::check::Site;
use crate::host::report::{Access, Finding, SourceLocation};

/// Attaches `bits`, the shadow of the allocation `meta` describes, to it.
pub(crate) fn attach(meta: &mut ViewMeta, bits: *const InitBits) {
    meta.init = bits.cast();
}

/// The shadow attached to `meta` (null: none; [`attach`] is the one writer of the slot).
#[inline]
pub(crate) fn bits(meta: &ViewMeta) -> *const InitBits {
    meta.init.cast()
}

/// The shadow of a global buffer: one bit per alignment unit of its element type (per element
/// for scalars), set once written.
#[derive(Debug)]
pub(crate) struct InitBits {
    words: Box<[AtomicU64]>,
    /// Units written in part (through a cast view): their written bytes, one bit each (units
    /// are at most 16 bytes). A unit leaves the table when its last byte is written.
    partial: std::sync::Mutex<std::collections::HashMap<usize, u16>>,
}

impl InitBits {
    /// All clear: `len` elements not written yet; out of memory is an error.
    pub(crate) fn new(len: usize) -> Result<Self, crate::host::report::error::Error> {
        let words = crate::host::alloc::try_slice(
            len.div_ceil(64),
            || AtomicU64::new(0),
            || format!("initcheck's shadow bits of a buffer of {len} elements (DeviceBuffer::uninit)"),
            "use a smaller buffer, or DeviceBuffer::zeroed (which needs no shadow)",
        )?;
        Ok(InitBits { words, partial: Default::default() })
    }

    /// An access of `size` bytes at byte offset `offset` of a buffer of `granule`-byte units,
    /// which does not cover whole units (a cast view's): whether every byte it reads was
    /// written, and, for a write, records its bytes (a unit whose bytes are all written gets
    /// its bit).
    fn partial_access(&self, offset: usize, size: usize, granule: usize, write: bool) -> bool {
        let g = granule.clamp(1, 16);
        let mut partial = self.partial.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = true;
        let mut b = offset;
        while b < offset + size {
            let u = b / g;
            let lo = b - u * g;
            let hi = (offset + size - u * g).min(g);
            let mask = ((1u32 << hi) - (1u32 << lo)) as u16;
            if !self.is_set(u) {
                let had = partial.get(&u).copied().unwrap_or(0);
                all &= had & mask == mask;
                if write {
                    let now = had | mask;
                    if u32::from(now) == (1u32 << g) - 1 {
                        partial.remove(&u);
                        self.set(u);
                    } else {
                        partial.insert(u, now);
                    }
                }
            }
            b = u * g + hi;
        }
        all
    }

    /// A copy of the bits (`EMU_PATH=verify` puts them back between its two runs).
    pub(crate) fn snapshot(&self) -> Vec<u64> {
        self.words.iter().map(|w| w.load(Relaxed)).collect()
    }

    /// Sets the bits to a [`InitBits::snapshot`] of them.
    pub(crate) fn restore(&self, bits: &[u64]) {
        self.words.iter().zip(bits).for_each(|(w, &b)| w.store(b, Relaxed));
    }

    pub(crate) fn is_set(&self, i: usize) -> bool {
        self.words[i / 64].load(Relaxed) & (1 << (i % 64)) != 0
    }

    pub(crate) fn set(&self, i: usize) {
        self.words[i / 64].fetch_or(1 << (i % 64), Relaxed);
    }

    /// The words and masks that cover bits `lo..hi` (`lo < hi`).
    #[inline(always)]
    fn spans(lo: usize, hi: usize) -> impl Iterator<Item = (usize, u64)> {
        (lo / 64..=(hi - 1) / 64).map(move |w| {
            let from = if w == lo / 64 { lo % 64 } else { 0 };
            let to = if w == (hi - 1) / 64 { (hi - 1) % 64 + 1 } else { 64 };
            (w, (u64::MAX >> (64 - (to - from))) << from)
        })
    }

    /// Whether bits `lo..hi` are all set.
    fn all_set(&self, lo: usize, hi: usize) -> bool {
        lo >= hi || Self::spans(lo, hi).all(|(w, mask)| self.words[w].load(Relaxed) & mask == mask)
    }

    /// Sets bits `lo..hi`.
    fn set_range(&self, lo: usize, hi: usize) {
        if lo < hi {
            Self::spans(lo, hi).for_each(|(w, mask)| {
                self.words[w].fetch_or(mask, Relaxed);
            });
        }
    }
}

/// The shadow of a worker's shared memory: one bit per byte, cleared for each block.
#[derive(Debug, Default)]
pub(crate) struct SharedInitBits {
    words: RefCell<Vec<u64>>,
}

impl SharedInitBits {
    /// Clears the bits of the first `bytes` bytes (a new block); out of memory is an error
    /// (and leaves the shadow empty: nothing is reported for the block).
    pub(crate) fn clear(&self, bytes: usize) -> Result<(), crate::host::report::error::Error> {
        let mut w = self.words.borrow_mut();
        w.clear();
        crate::host::alloc::try_resize(
            &mut w,
            bytes.div_ceil(64),
            0,
            || format!("initcheck's shadow bits of {bytes} bytes of shared memory"),
            "lower Config::max_shared_bytes, or run without EMU_CHECK=initcheck",
        )
    }

    /// Whether bytes `[start, start + n)` are all written; sets them when `write`.
    fn check_and_mark(&self, start: usize, n: usize, write: bool) -> bool {
        let mut w = self.words.borrow_mut();
        let mut all = true;
        for b in start..start + n {
            let (word, bit) = (b / 64, 1u64 << (b % 64));
            // A shadow that could not be allocated (the launch fails with that error) counts
            // as written.
            let Some(w) = w.get_mut(word) else { return true };
            all &= *w & bit != 0;
            if write {
                *w |= bit;
            }
        }
        all
    }
}

/// What an access does to the shadow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Atomic,
}

/// Checks and records element `i` of `view` (in bounds) for an access of `kind` at `at`.
fn access<S: Site, T, K: ViewKind>(site: &S, view: &View<T, K>, i: usize, kind: Kind, at: &'static Location<'static>) {
    let size = core::mem::size_of::<T>();
    let initialised = match K::SPACE {
        Space::Global => {
            // SAFETY: the launch keeps the views' descriptions alive while its kernel runs.
            let meta = unsafe { &*view.meta() };
            // SAFETY: as above: the buffer (and its shadow) is borrowed by the launch.
            let Some(bits) = (unsafe { bits(meta).as_ref() }) else { return };
            let address = view.raw_ptr() as usize + i * size;
            let g = meta.granule.max(1);
            if (address - meta.base) % g != 0 || size % g != 0 {
                // Part of a unit (a cast view): byte by byte.
                let was = bits.partial_access(address - meta.base, size, g, kind != Kind::Load);
                was || kind == Kind::Store
            } else {
                let units = meta.granules(address, size);
                let was = kind == Kind::Store || units.clone().all(|u| bits.is_set(u));
                if kind != Kind::Load {
                    units.for_each(|u| bits.set(u));
                }
                was
            }
        }
        Space::Shared => {
            let own = site.shared();
            let address = view.raw_ptr() as usize + i * size;
            // The block's own shared memory, or another block's of its cluster (a
            // `map_shared_rank` view): that block's bits.
            let shared = if address >= own.base && address + size <= own.base + own.size {
                own
            } else {
                match site.shared_at(address) {
                    Some((peer, _)) => peer,
                    None => return,
                }
            };
            shared.init.check_and_mark(address - shared.base, size, kind != Kind::Load) || kind == Kind::Store
        }
    };
    if !initialised {
        report(site, view, i, kind, at);
    }
}

#[cold]
#[inline(never)]
fn report<S: Site, T, K: ViewKind>(block: &S, view: &View<T, K>, i: usize, kind: Kind, at: &'static Location<'static>) {
    // SAFETY: views made by the launch or the arena have live descriptions.
    let meta = unsafe { view.meta().as_ref() };
    let name = meta.map_or_else(|| "memory".to_owned(), crate::host::check::view_meta::describe);
    block.note(Finding::UninitializedAccess {
        space: K::SPACE,
        access: if kind == Kind::Atomic { Access::Atomic } else { Access::Read },
        size: core::mem::size_of::<T>(),
        index: i,
        len: view.len(),
        name,
        address: view.raw_ptr() as usize + i * core::mem::size_of::<T>(),
        at: SourceLocation::from(at),
        thread: block.thread(),
        block: block.block_idx(),
        count: 1,
    });
}

/// A checked load of element `i` (already bounds-checked).
pub(crate) fn on_load<S: Site, T, K: ViewKind>(site: &S, view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    access(site, view, i, Kind::Load, at);
}

/// A checked store to element `i` (already bounds-checked).
pub(crate) fn on_store<S: Site, T, K: ViewKind>(site: &S, view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    access(site, view, i, Kind::Store, at);
}

/// An atomic on element `i` (already bounds-checked) by the running thread of `site`.
pub(crate) fn on_atomic<S: Site, T, K: ViewKind>(
    site: &S,
    view: &View<T, K>,
    i: usize,
    at: &'static Location<'static>,
) {
    access(site, view, i, Kind::Atomic, at);
}

/// One access site of a chunk of a vectorised lane loop: element `start + k` of `view` (in
/// bounds) for each lane `k < m`, read (`write` false) or written. A store sets the chunk's
/// bits at once; a load checks them at once, and hands each element not written yet to
/// `slow(k)` (the per-access check, which reports it for lane `k`). Shared memory, and elements
/// of more than one unit, go through `slow` lane by lane.
pub(crate) fn on_lanes<S: Site, T, K: ViewKind>(
    site: &S,
    view: &View<T, K>,
    start: usize,
    m: usize,
    write: bool,
    slow: &mut dyn FnMut(usize),
) {
    let _ = site;
    let size = core::mem::size_of::<T>();
    // SAFETY: the launch keeps the views' descriptions alive while its kernel runs.
    let meta = unsafe { view.meta().as_ref() };
    let (Space::Global, Some(meta)) = (K::SPACE, meta) else {
        (0..m).for_each(slow);
        return;
    };
    // SAFETY: as above: the buffer (and its shadow) is borrowed by the launch.
    let Some(bits) = (unsafe { bits(meta).as_ref() }) else { return };
    let address = view.raw_ptr() as usize + start * size;
    if size == 0 || meta.granule != size || address < meta.base || (address - meta.base) % size != 0 {
        (0..m).for_each(slow);
        return;
    }
    let first = (address - meta.base) / size;
    if write {
        bits.set_range(first, first + m);
    } else if !bits.all_set(first, first + m) {
        (0..m).filter(|&k| !bits.is_set(first + k)).for_each(slow);
    }
}
