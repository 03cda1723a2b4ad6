//! racecheck's shadow cells: a stamp in 64 bits, and a record (of shared or global memory) in
//! two of them.
//!
//! A record is two cells, after FastTrack's epochs and ThreadSanitizer's shadow words:
//!
//! * the *write* cell: the last plain write (in global memory its top bit is also the record's
//!   lock, `global.rs`);
//! * the *other* cell: the one read or atomic access that no later access has ordered, or,
//!   when there are several (concurrent reads: FastTrack's *read-shared* state), the index of
//!   an out-of-line entry of four cells (two reads, two atomic accesses) in a [`Side`] table.
//!   The entry is freed when a write orders them all again.
//!
//! A cell (bits, high to low): lock (1, write cells of global memory only), tag (2: empty, a
//! stamp, out of line), kind (2: read, write, atomic read, atomic write), the block's linear
//! index modulo 2^25 (25), the thread's index in its block (10), and the index of the stamp's
//! *state* (24: generation, warp epoch, clock, scope and source line, interned in `states.rs`).
//! A cell's block is read back as the block nearest the running one with those low bits:
//! blocks run in increasing order, a few at a time, so only a block 2^24 or more away from the
//! running one is mistaken for another.
//!
//! [`fast`] decides the common cases on the cells alone (an empty record, the running thread's
//! own accesses, accesses its block's barriers ordered); everything else goes through the
//! parent module's `update` on the record read back as stamps ([`slow`]), so the two give the
//! same verdicts.

use super::states;
use super::{update, Hazard, Judge, Kind, Record, Stamp};
use crate::host::report::error::Error;

const TAG_SHIFT: u32 = 61;
const TAG_MASK: u64 = 3 << TAG_SHIFT;
/// A stamp.
const TAG_STAMP: u64 = 1 << TAG_SHIFT;
/// Out of line: the low 32 bits are an index into the side table.
const TAG_SIDE: u64 = 2 << TAG_SHIFT;
const KIND_SHIFT: u32 = 59;
const BLOCK_SHIFT: u32 = 34;
/// Bits of the block's linear index a cell keeps.
const BLOCK_BITS: u32 = 25;
const BLOCK_FIELD: u64 = ((1 << BLOCK_BITS) - 1) << BLOCK_SHIFT;
pub(super) const THREAD_SHIFT: u32 = states::STATE_BITS;
/// Bits of the thread index (blocks have at most 1024 threads).
const THREAD_BITS: u32 = 10;
/// The bits that name the thread (block and thread).
const WHO: u64 = ((1 << (BLOCK_BITS + THREAD_BITS)) - 1) << THREAD_SHIFT;
const STATE_MASK: u64 = (1 << THREAD_SHIFT) - 1;
const _: () = assert!(THREAD_SHIFT + THREAD_BITS == BLOCK_SHIFT && BLOCK_SHIFT + BLOCK_BITS == KIND_SHIFT);

#[inline(always)]
fn tag(c: u64) -> u64 {
    c & TAG_MASK
}

#[inline(always)]
fn kind_bits(k: Kind) -> u64 {
    match k {
        Kind::Read => 0,
        Kind::Write => 1,
        Kind::AtomicRead => 2,
        Kind::AtomicWrite => 3,
    }
}

/// The cell of stamp `s` (its state interned).
#[inline]
pub(super) fn cell(s: &Stamp) -> u64 {
    cell_of(s.kind, s.block as u64, s.thread as u32, s.state)
}

/// The cell of a stamp of `kind` by thread `thread` of block `block` whose state is `state`
/// (as [`cell`] makes it).
#[inline(always)]
pub(super) fn cell_of(kind: Kind, block: u64, thread: u32, state: u32) -> u64 {
    TAG_STAMP
        | kind_bits(kind) << KIND_SHIFT
        | (block & ((1 << BLOCK_BITS) - 1)) << BLOCK_SHIFT
        | ((thread as u64) & ((1 << THREAD_BITS) - 1)) << THREAD_SHIFT
        | state as u64
}

/// The stamp of cell `c` (`None`: empty), read by the running thread of block `me_block`.
fn uncell(c: u64, me_block: u32) -> Option<Stamp> {
    if tag(c) != TAG_STAMP {
        return None;
    }
    let kind = match (c >> KIND_SHIFT) & 3 {
        0 => Kind::Read,
        1 => Kind::Write,
        2 => Kind::AtomicRead,
        _ => Kind::AtomicWrite,
    };
    // The block nearest the running one with these low bits: the difference, as a signed
    // 25-bit number.
    let low = ((c & BLOCK_FIELD) >> BLOCK_SHIFT) as u32;
    let delta = ((low.wrapping_sub(me_block) << (32 - BLOCK_BITS)) as i32) >> (32 - BLOCK_BITS);
    let state = (c & STATE_MASK) as u32;
    let st = states::get(state);
    Some(Stamp {
        block: me_block.wrapping_add(delta as u32),
        thread: ((c >> THREAD_SHIFT) & ((1 << THREAD_BITS) - 1)) as u16,
        state,
        generation: st.generation,
        warp_epoch: st.warp_epoch,
        clock: st.clock,
        cluster: st.cluster,
        kind,
        scope: st.scope,
        volatile: st.volatile,
        at: st.at,
    })
}

/// The common cases, decided on the cells alone: a plain access `me` (made at barrier
/// generation `generation`) to a record whose accesses are all superseded by it — the running
/// thread's own, or its block's before a barrier it passed since. Then nothing races, and the
/// access replaces them as `update` would. Returns whether it applied.
#[inline(always)]
pub(super) fn fast(write: &mut u64, other: &mut u64, me: u64, kind: Kind, generation: u32) -> bool {
    fast_with(states::generations(), write, other, me, kind, generation)
}

/// Whether cell `c` is superseded by the access whose cell is `me` (made at barrier generation
/// `generation`): empty, the same thread's, or its block's before a barrier it passed since
/// (`generations`: the states' generations, `states::generations`).
#[inline(always)]
fn superseded(generations: &[std::sync::atomic::AtomicU32], c: u64, me: u64, generation: u32) -> bool {
    if c == 0 {
        return true;
    }
    if tag(c) != TAG_STAMP {
        return false;
    }
    if c & WHO == me & WHO {
        return true;
    }
    c & BLOCK_FIELD == me & BLOCK_FIELD
        && match generations.get((c & STATE_MASK) as usize) {
            Some(g) => g.load(std::sync::atomic::Ordering::Relaxed) < generation,
            None => states::unknown((c & STATE_MASK) as u32),
        }
}

/// [`fast`], given the states' generations (`states::generations`).
#[inline(always)]
pub(super) fn fast_with(
    generations: &[std::sync::atomic::AtomicU32],
    write: &mut u64,
    other: &mut u64,
    me: u64,
    kind: Kind,
    generation: u32,
) -> bool {
    match kind {
        Kind::Read => {
            // A write stays (reads do not replace it); the one read is replaced.
            if superseded(generations, *write, me, generation)
                && (*other == 0 || ((*other >> KIND_SHIFT) & 3 == 0 && superseded(generations, *other, me, generation)))
            {
                *other = me;
                return true;
            }
            false
        }
        Kind::Write => {
            if superseded(generations, *write, me, generation) && superseded(generations, *other, me, generation) {
                *write = me;
                *other = 0;
                return true;
            }
            false
        }
        Kind::AtomicRead | Kind::AtomicWrite => false,
    }
}

/// Out-of-line entries: four cells each (two reads, two atomics), and the free ones.
#[derive(Debug, Default)]
pub(super) struct Side {
    pub(super) entries: Vec<[u64; 4]>,
    pub(super) free: Vec<u32>,
    /// Bytes reserved against global memory's budget for `entries` and `free`.
    pub(super) reserved: usize,
}

/// Bytes an out-of-line entry takes (its cells and its free-list slot).
pub(super) const SIDE_ENTRY_BYTES: usize = std::mem::size_of::<[u64; 4]>() + std::mem::size_of::<u32>();

impl Side {
    /// A new entry holding `cells`; growing the table first asks `grow` for the bytes it adds
    /// (`Err`: past a budget), and fails if the host cannot allocate them.
    fn add(
        &mut self,
        cells: [u64; 4],
        grow: &mut dyn FnMut(usize) -> Result<(), Error>,
        what: &dyn Fn() -> String,
    ) -> Result<u32, Error> {
        if let Some(i) = self.free.pop() {
            self.entries[i as usize] = cells;
            return Ok(i);
        }
        if self.entries.len() == self.entries.capacity() {
            let more = self.entries.capacity().max(64);
            let bytes = more * SIDE_ENTRY_BYTES;
            grow(bytes)?;
            self.reserved += bytes;
            if self.entries.try_reserve_exact(more).and_then(|()| self.free.try_reserve_exact(more)).is_err() {
                return Err(crate::host::alloc::error(what(), bytes, "run EMU_CHECK=racecheck on a smaller buffer"));
            }
        }
        self.entries.push(cells);
        Ok((self.entries.len() - 1) as u32)
    }

    /// Bytes the table holds.
    pub(super) fn bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<[u64; 4]>() + self.free.capacity() * std::mem::size_of::<u32>()
    }

    /// Empties the table (keeping its memory).
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.free.clear();
    }
}

/// Where [`slow`] finds the side table: taken only when the record is out of line or goes out
/// of line.
pub(super) trait SideTable {
    /// The table, locked or borrowed.
    type Guard<'a>: std::ops::DerefMut<Target = Side>
    where
        Self: 'a;
    fn get(&self) -> Self::Guard<'_>;
    /// Asks for `bytes` more for the table (a budget).
    fn grow(&self, bytes: usize) -> Result<(), Error>;
    /// What the table is, for an allocation failure.
    fn what(&self) -> String;
}

/// The general case: the record's cells read back as a [`Record`] (from the side table when
/// they are out of line), updated by `update`, and stored back (out of line when more than one
/// read or atomic access remains). Returns the access `me` races with, if any, and how.
pub(super) fn slow<T: SideTable>(
    table: &T,
    write: &mut u64,
    other: &mut u64,
    me: Stamp,
    v: &Judge<'_>,
) -> Result<Option<(Stamp, Hazard)>, Error> {
    let mut r = Record { write: uncell(*write, me.block), ..Record::default() };
    let mut side = None;
    let out_of_line = (tag(*other) == TAG_SIDE).then_some(*other as u32);
    if let Some(i) = out_of_line {
        let guard = table.get();
        let c = guard.entries[i as usize];
        r.reads = [uncell(c[0], me.block), uncell(c[1], me.block)];
        r.atomics = [uncell(c[2], me.block), uncell(c[3], me.block)];
        side = Some(guard);
    } else if let Some(p) = uncell(*other, me.block) {
        if p.kind.atomic() {
            r.atomics[0] = Some(p);
        } else {
            r.reads[0] = Some(p);
        }
    }
    let hazard = update(&mut r, me, v);
    *write = r.write.as_ref().map_or(0, cell);
    let rest = [r.reads[0], r.reads[1], r.atomics[0], r.atomics[1]];
    let mut live = rest.iter().flatten();
    match (live.next(), live.next()) {
        (first, None) => {
            *other = first.map_or(0, cell);
            if let (Some(i), Some(side)) = (out_of_line, side.as_mut()) {
                side.free.push(i);
            }
        }
        _ => {
            let cells = rest.map(|s| s.as_ref().map_or(0, cell));
            let mut side = side.unwrap_or_else(|| table.get());
            match out_of_line {
                Some(i) => side.entries[i as usize] = cells,
                None => *other = TAG_SIDE | side.add(cells, &mut |b| table.grow(b), &|| table.what())? as u64,
            }
        }
    }
    Ok(hazard)
}
