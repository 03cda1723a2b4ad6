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
    pub(super) at: &'static Location<'static>,
}

impl State {
    fn key(&self) -> Key {
        (self.generation, self.warp_epoch, self.clock, self.cluster, self.scope as u8, self.at as *const Location<'static> as usize)
    }
}

type Key = (u32, u32, u32, u32, u8, usize);

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
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table { index: parking_lot::Mutex::new(HashMap::new()), chunks: std::array::from_fn(|_| OnceLock::new()) })
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

/// The barrier generation of state `id` (one that [`StateCache::intern`] returned).
#[inline]
pub(super) fn generation(id: u32) -> u32 {
    let (k, off) = place(id);
    match table().chunks[k].get().and_then(|c| c[off].get()) {
        Some(s) => s.generation,
        None => unknown(id),
    }
}

#[cold]
#[inline(never)]
fn unknown(id: u32) -> ! {
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
    if id >= CAPACITY {
        return None;
    }
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
}

impl StateCache {
    /// The index of `s`; `None` when the table is full.
    #[inline(always)]
    pub(super) fn intern(&mut self, s: State) -> Option<u32> {
        let key = s.key();
        // Slots by source line (locations are distinct statics), mixed with the clock and the
        // generation so that one line's states at successive barriers take different slots.
        let h = ((key.5 >> 3) ^ (key.0 as usize).wrapping_mul(31) ^ (key.2 as usize).wrapping_mul(7)) & (CACHE - 1);
        if let Some(slots) = &self.slots {
            if slots[h].0 == key {
                return Some(slots[h].1);
            }
        }
        self.miss(s, h)
    }

    #[cold]
    #[inline(never)]
    fn miss(&mut self, s: State, slot: usize) -> Option<u32> {
        let id = intern_slow(s)?;
        // The null location never matches a real state's.
        let slots = self.slots.get_or_insert_with(|| Box::new([((0, 0, 0, 0, 0, 0), 0); CACHE]));
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
        let a = State { generation: 3, warp_epoch: 1, clock: 7, cluster: 0, scope: Scope::Device, at: Location::caller() };
        let b = State { clock: 8, ..a };
        let (ia, ib) = (c.intern(a).unwrap(), c.intern(b).unwrap());
        assert_ne!(ia, ib);
        assert_eq!(c.intern(a), Some(ia));
        assert_eq!(get(ia), a);
        assert_eq!(get(ib), b);
    }
}
