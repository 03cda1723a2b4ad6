//! racecheck's table of access states: what a shadow cell of global memory refers to besides
//! its thread and its kind.
//!
//! A stamp's thread-independent part, its *state* — the barrier generation, the warp's
//! `sync_warp` count, the thread's clock, the scope of an atomic and the source line — is the
//! same for every thread of a block that makes the same access between the same barriers, and
//! for the same access of every other block. So a shadow cell holds a 24-bit index into one
//! process-wide table of states, interned on first use, instead of the 24 bytes of the state
//! (ThreadSanitizer keeps source lines out of its shadow the same way, through its traces).
//!
//! The table is append-only: a state's index stays valid for the life of the process, and its
//! entry never changes once published. Lookups take no lock: the entries live in chunks of
//! doubling size, each published once (`OnceLock`). Interning takes a lock, but each worker
//! keeps a direct-mapped cache of the states it interned ([`StateCache`]), so the lock is taken
//! about once per access site, generation and clock value seen by the worker.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use crate::device::Scope;

/// The thread-independent part of an access's stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    pub(super) generation: u32,
    pub(super) warp_epoch: u32,
    pub(super) clock: u32,
    /// Cluster syncs the thread called.
    pub(super) cluster: u32,
    pub(super) scope: Scope,
    /// A volatile access that does not synchronise (not a write after a fence): two of them
    /// by lanes of one warp that nothing orders are a warp-synchronous hazard (`racecheck.rs`).
    pub(super) volatile: bool,
    pub(super) at: &'static Location<'static>,
}

impl State {
    /// The state packed in three words (exactly: two states with the same key are equal): the
    /// location with the scope and the volatile flag in its low bits (a `Location` is aligned
    /// to at least 8), the generation and the cluster syncs, the clock and the warp epoch.
    #[inline(always)]
    fn key(&self) -> Key {
        [
            self.at as *const Location<'static> as usize as u64 | self.scope as u64 | (self.volatile as u64) << 2,
            (self.generation as u64) << 32 | self.cluster as u64,
            (self.clock as u64) << 32 | self.warp_epoch as u64,
        ]
    }
}

type Key = [u64; 3];
const _: () = assert!(std::mem::align_of::<Location<'static>>() >= 8 && (Scope::System as u64) < 4);

/// Bits of a state index in a shadow cell.
pub(super) const STATE_BITS: u32 = 24;
/// How many states the table can hold.
pub(super) const CAPACITY: usize = 1 << STATE_BITS;

/// Entries in the first chunk; chunk `k` holds `FIRST << k`.
const FIRST: usize = 1024;
/// Chunks: `FIRST * (2^CHUNKS - 1) >= CAPACITY`.
const CHUNKS: usize = 15;

struct Table {
    index: parking_lot::Mutex<HashMap<Key, u32>>,
    chunks: [OnceLock<Box<[OnceLock<State>]>>; CHUNKS],
    /// Each state's generation, by index, for the cells' common case (one load, no chunk to
    /// find): `CAPACITY` zeroed words the OS maps a page at a time as states are added (empty
    /// if the host could not reserve them: then no state is ever added).
    generations: &'static [AtomicU32],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table {
        index: parking_lot::Mutex::new(HashMap::new()),
        chunks: std::array::from_fn(|_| OnceLock::new()),
        generations: zeroed_words(CAPACITY),
    })
}

/// `n` zeroed words, for the life of the process (a large zeroed allocation is mapped lazily
/// by the allocator: untouched pages cost nothing); empty if the host cannot allocate them.
fn zeroed_words(n: usize) -> &'static [AtomicU32] {
    let Ok(layout) = std::alloc::Layout::array::<AtomicU32>(n) else { return &[] };
    // SAFETY: `layout` has a non-zero size (`n` is `CAPACITY`).
    let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU32>();
    if p.is_null() {
        return &[];
    }
    // SAFETY: `p` is a fresh allocation of `n` zeroed `AtomicU32`s (zero is a valid
    // `AtomicU32`), never freed, so it may be borrowed for `'static`.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// The chunk and the offset in it of state `id`.
#[inline]
fn place(id: u32) -> (usize, usize) {
    let n = id as usize / FIRST + 1;
    let k = n.ilog2() as usize;
    (k, id as usize - FIRST * ((1 << k) - 1))
}

/// The state of index `id` (one that [`StateCache::intern`] returned).
#[inline]
pub(super) fn get(id: u32) -> State {
    let (k, off) = place(id);
    match table().chunks[k].get().and_then(|c| c[off].get()) {
        Some(s) => *s,
        None => unknown(id),
    }
}

/// Each interned state's generation, by index (the cells' common case reads it).
#[inline]
pub(super) fn generations() -> &'static [AtomicU32] {
    // Stored before the state's index was handed out (`intern_slow`), and the index reaches
    // other host threads only through a cell stored with release ordering (a record's unlock)
    // or through the table's lock.
    table().generations
}

#[cold]
#[inline(never)]
pub(super) fn unknown(id: u32) -> ! {
    unreachable!("racecheck: shadow cell names state {id}, which was never interned (a bug in racecheck)")
}

/// The index of `s`, added to the table if it is new; `None` when the table is full.
#[cold]
#[inline(never)]
fn intern_slow(s: State) -> Option<u32> {
    let t = table();
    let mut index = t.index.lock();
    if let Some(&id) = index.get(&s.key()) {
        return Some(id);
    }
    let id = index.len();
    if id >= CAPACITY.min(t.generations.len()) {
        return None;
    }
    t.generations[id].store(s.generation, Ordering::Relaxed);
    let (k, off) = place(id as u32);
    let chunk = t.chunks[k].get_or_init(|| (0..FIRST << k).map(|_| OnceLock::new()).collect());
    let _ = chunk[off].set(s);
    index.insert(s.key(), id as u32);
    Some(id as u32)
}

/// How many states the table holds (for the memory accounting).
pub(super) fn len() -> usize {
    table().index.lock().len()
}

/// Slots of a worker's cache.
const CACHE: usize = 256;
const _: () = assert!(CACHE.is_power_of_two());

/// A worker's cache of interned states (direct-mapped on a hash of the state), allocated at
/// the first state it interns (a launch without racecheck never does).
#[derive(Debug, Default)]
pub(crate) struct StateCache {
    slots: Option<Box<[(Key, u32); CACHE]>>,
    /// [`generations`], once the cache has interned a state.
    generations: Generations,
}

/// The states' generations ([`generations`]; empty until set).
#[derive(Default)]
struct Generations(&'static [AtomicU32]);

impl std::fmt::Debug for Generations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Generations({} words)", self.0.len())
    }
}

impl StateCache {
    /// The index of `s`; `None` when the table is full.
    #[inline(always)]
    pub(super) fn intern(&mut self, s: State) -> Option<u32> {
        let key = s.key();
        // Slots by source line (locations are distinct statics, some bytes apart) and barrier
        // generation: the threads of a block make one line's access between two barriers in
        // one state, and the next block of the worker makes it again in the same states.
        let h = ((key[0] >> 3) ^ (key[0] >> 11) ^ (key[1] >> 32).wrapping_mul(37)) as usize & (CACHE - 1);
        if let Some(slots) = &self.slots {
            let (k, id) = &slots[h];
            // Word by word: an array comparison reads the key back from the stack in 16-byte
            // loads that its 8-byte stores cannot forward to (a stall of some 15 cycles).
            if k[0] == key[0] && k[1] == key[1] && k[2] == key[2] {
                return Some(*id);
            }
        }
        self.miss(s, h)
    }

    /// [`generations`], once [`intern`](Self::intern) returned a state (empty before).
    #[inline(always)]
    pub(super) fn generations(&self) -> &'static [AtomicU32] {
        self.generations.0
    }

    #[cold]
    #[inline(never)]
    fn miss(&mut self, s: State, slot: usize) -> Option<u32> {
        let id = intern_slow(s)?;
        // The null location never matches a real state's.
        self.generations = Generations(generations());
        let slots = self.slots.get_or_insert_with(|| Box::new([([0; 3], 0); CACHE]));
        slots[slot] = (s.key(), id);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_capacity() {
        assert_eq!(place(0), (0, 0));
        assert_eq!(place(FIRST as u32 - 1), (0, FIRST - 1));
        assert_eq!(place(FIRST as u32), (1, 0));
        assert_eq!(place(3 * FIRST as u32), (2, 0));
        let (k, off) = place(CAPACITY as u32 - 1);
        assert!(k < CHUNKS && off < FIRST << k);
    }

    #[test]
    fn interned_states_read_back() {
        let mut c = StateCache::default();
        let a = State {
            generation: 3,
            warp_epoch: 1,
            clock: 7,
            cluster: 0,
            scope: Scope::Device,
            volatile: false,
            at: Location::caller(),
        };
        let b = State { clock: 8, ..a };
        let (ia, ib) = (c.intern(a).unwrap(), c.intern(b).unwrap());
        assert_ne!(ia, ib);
        assert_eq!(c.intern(a), Some(ia));
        assert_eq!(get(ia), a);
        assert_eq!(get(ib), b);
    }
}
