//! racecheck's shadow of global memory: 16 bytes per record, allocated a page at a time.
//!
//! # Layout
//!
//! A record (one per alignment unit of the buffer's element type: per element for scalars) is
//! two 64-bit *cells*, after FastTrack's epochs and ThreadSanitizer's shadow words:
//!
//! * cell 0: the last plain write, and the record's lock bit (blocks run on several host
//!   threads; the lock is held only while one access updates the record);
//! * cell 1: the one read or atomic access that no later access has ordered, or, when there
//!   are several (concurrent reads: FastTrack's *read-shared* state), the index of an
//!   out-of-line entry of four cells (two reads, two atomic accesses), in the shadow's side
//!   table. The entry is freed when a write orders them all again.
//!
//! A cell (bits, high to low): lock (1, cell 0 only), tag (2: empty, a stamp, out of line),
//! kind (2: read, write, atomic read, atomic write), the block's linear index modulo 2^25 (25),
//! the thread's index in its block (10), and the index of the stamp's *state* (24: generation,
//! warp epoch, clock, scope and source line, interned in `states.rs`). A cell's block is read
//! back as the block nearest the running one with those low bits: blocks run in increasing
//! order, a few at a time, so only a block 2^24 or more away from the running one is mistaken
//! for another.
//!
//! The records are one anonymous mapping (for shadows of at least 1 MiB; smaller ones are
//! ordinary zeroed allocations), so the OS allocates them a page (4 KiB, 256 records) at a
//! time, zero-filled, on first touch: memory a launch never touches costs nothing, and the hot
//! path has no page table to consult. A `#[device_global]`'s shadow outlives launches: the
//! first access of a new launch clears it.
//!
//! # Accounting
//!
//! [`bytes`] is what the tests read: when accounting is on ([`reset_peak`] turns it on), each
//! shadow adds, when it is dropped (at the end of its launch, when it holds the most), the
//! bytes of its records' pages that are resident (`mincore`; the whole allocation when it is
//! not a mapping) and of its out-of-line entries.
//!
//! # Budget
//!
//! The records of every global shadow alive in the process, at 16 bytes each, are reserved when
//! the shadow is made, against a budget (`EMU_RACECHECK_SHADOW`: bytes, with an optional `K`,
//! `M` or `G` suffix; half the machine's memory by default). A buffer whose shadow does not fit
//! fails the launch with error 2 before it runs, and out-of-line entries that would pass the
//! budget fail it while it runs (`Site::host_failure`), never an abort.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::clock::SyncClock;
use super::states;
use crate::host::report::error::Error;

/// Bytes per record.
pub(super) const RECORD_BYTES: usize = 16;

/// The lock bit of cell 0.
const LOCK: u64 = 1 << 63;
const TAG_SHIFT: u32 = 61;
const TAG_MASK: u64 = 3 << TAG_SHIFT;
/// A stamp.
pub(super) const TAG_STAMP: u64 = 1 << TAG_SHIFT;
/// Out of line: the low 32 bits are an index into the side table.
pub(super) const TAG_SIDE: u64 = 2 << TAG_SHIFT;
pub(super) const KIND_SHIFT: u32 = 59;
pub(super) const BLOCK_SHIFT: u32 = 34;
/// Bits of the block's linear index a cell keeps.
pub(super) const BLOCK_BITS: u32 = 25;
pub(super) const THREAD_SHIFT: u32 = 24;
/// Bits of the thread index (blocks have at most 1024 threads).
pub(super) const THREAD_BITS: u32 = 10;
/// The bits that name the thread (block and thread).
pub(super) const WHO: u64 = ((1 << (BLOCK_BITS + THREAD_BITS)) - 1) << THREAD_SHIFT;
const _: () = assert!(states::STATE_BITS == THREAD_SHIFT);

/// The tag of a cell.
#[inline(always)]
pub(super) fn tag(c: u64) -> u64 {
    c & TAG_MASK
}

/// One record: its two cells.
#[derive(Debug, Default)]
pub(super) struct Rec([AtomicU64; 2]);

/// A record's cells, locked: what the access may read and change; dropping it stores them
/// back and unlocks the record.
pub(super) struct Locked<'a> {
    rec: &'a Rec,
    pub(super) write: u64,
    pub(super) other: u64,
}

impl Rec {
    /// Takes the record's lock and reads its cells.
    #[inline]
    pub(super) fn lock(&self) -> Locked<'_> {
        let mut spins = 0u32;
        let write = loop {
            let v = self.0[0].fetch_or(LOCK, Ordering::Acquire);
            if v & LOCK == 0 {
                break v;
            }
            while self.0[0].load(Ordering::Relaxed) & LOCK != 0 {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        };
        Locked { rec: self, write, other: self.0[1].load(Ordering::Relaxed) }
    }
}

impl Drop for Locked<'_> {
    /// Stores the cells and releases the lock (also when a host failure unwinds the thread).
    #[inline]
    fn drop(&mut self) {
        self.rec.0[1].store(self.other, Ordering::Relaxed);
        self.rec.0[0].store(self.write & !LOCK, Ordering::Release);
    }
}

/// The out-of-line entries: four cells each (two reads, two atomics), and the free ones.
#[derive(Debug, Default)]
pub(super) struct Side {
    pub(super) entries: Vec<[u64; 4]>,
    free: Vec<u32>,
    /// Bytes reserved against the budget for `entries` and `free`.
    reserved: usize,
}

/// Bytes of global shadow reserved in the process (records and out-of-line entries).
static RESERVED: AtomicUsize = AtomicUsize::new(0);
/// Whether shadows count what they held when dropped, and the sum since [`reset_peak`].
static ACCOUNTING: AtomicBool = AtomicBool::new(false);
static HELD: AtomicUsize = AtomicUsize::new(0);

/// The bytes that the global shadows dropped since the last [`reset_peak`] held at their end
/// (resident record pages and out-of-line entries), and the bytes reserved now (records of
/// the live shadows at 16 bytes each, and their out-of-line entries).
pub(crate) fn bytes() -> (usize, usize) {
    (HELD.load(Ordering::Relaxed), RESERVED.load(Ordering::Relaxed))
}

/// Turns the accounting on and starts a new sum for [`bytes`].
pub(crate) fn reset_peak() {
    ACCOUNTING.store(true, Ordering::Relaxed);
    HELD.store(0, Ordering::Relaxed);
}

/// How many access states are interned (each takes about 40 bytes, once per process).
pub(crate) fn states() -> usize {
    states::len()
}

/// The budget: `EMU_RACECHECK_SHADOW`, or half the machine's memory.
fn budget() -> Result<usize, Error> {
    match std::env::var("EMU_RACECHECK_SHADOW") {
        Ok(v) => parse_bytes(&v).ok_or(Error::InvalidSetting {
            variable: "EMU_RACECHECK_SHADOW",
            value: v,
            valid: "a size in bytes with an optional K, M or G suffix, e.g. `EMU_RACECHECK_SHADOW=4G`",
        }),
        Err(_) => Ok(crate::host::alloc::physical_memory() / 2),
    }
}

fn parse_bytes(v: &str) -> Option<usize> {
    let v = v.trim();
    let (num, shift) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 10),
        'm' | 'M' => (&v[..v.len() - 1], 20),
        'g' | 'G' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(1 << shift)
}

const HINT: &str = "run EMU_CHECK=racecheck on a smaller buffer, or raise EMU_RACECHECK_SHADOW";

/// Reserves `bytes` against the budget, or says why not.
fn reserve(bytes: usize, what: impl Fn() -> String) -> Result<(), Error> {
    let budget = budget()?;
    let mut now = RESERVED.load(Ordering::Relaxed);
    loop {
        let total = now.saturating_add(bytes);
        if total > budget {
            return Err(crate::host::alloc::error(
                format!("{} (the budget, EMU_RACECHECK_SHADOW, is {budget} bytes; {now} are in use)", what()),
                bytes,
                HINT,
            ));
        }
        match RESERVED.compare_exchange_weak(now, total, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(()),
            Err(v) => now = v,
        }
    }
}

/// The shadow of a global buffer during one checked launch (or, for a `#[device_global]`, the
/// program): one record per alignment unit of its element type, in memory the OS allocates a
/// page at a time on first touch; the out-of-line entries; and the release clocks of the units
/// atomics wrote.
#[derive(Debug)]
pub(crate) struct GlobalRaceShadow {
    /// `len` zeroed records (dangling when `len` is 0), from `alloc::alloc_zeroed`.
    records: *mut Rec,
    /// Records in all.
    len: usize,
    pub(super) name: String,
    pub(super) side: parking_lot::Mutex<Side>,
    pub(super) syncs: parking_lot::Mutex<HashMap<usize, SyncClock>>,
    /// The launch whose records the shadow holds (0: none yet).
    launch: AtomicU64,
    /// Taken to clear the records for a new launch.
    clearing: parking_lot::Mutex<()>,
    /// Bytes reserved against the budget for the records.
    reserved: usize,
    /// Why the shadow could not be made (then it has no records, and the launch must not run:
    /// `__private::global` returns this).
    error: Option<Error>,
}

// SAFETY: the records are atomics, shared by the host threads that run the launch's blocks;
// the pointer is owned by the shadow (freed once, in `Drop`).
unsafe impl Send for GlobalRaceShadow {}
// SAFETY: as above: every access to a record goes through its atomics and its lock bit.
unsafe impl Sync for GlobalRaceShadow {}

impl GlobalRaceShadow {
    fn layout(len: usize) -> Option<std::alloc::Layout> {
        std::alloc::Layout::array::<Rec>(len).ok()
    }

    /// The shadow of `len` records of the buffer `name`; a shadow that does not fit the budget,
    /// or that the host cannot allocate, leaves an error for the launcher
    /// ([`GlobalRaceShadow::error`]).
    pub(crate) fn new(len: usize, name: &str) -> Self {
        let mut s = GlobalRaceShadow {
            records: std::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            name: name.to_owned(),
            side: Default::default(),
            syncs: Default::default(),
            launch: AtomicU64::new(0),
            clearing: parking_lot::Mutex::new(()),
            reserved: 0,
            error: None,
        };
        if len == 0 {
            return s;
        }
        let bytes = len.saturating_mul(RECORD_BYTES);
        let what = || format!("racecheck's shadow of buffer `{name}` ({len} records of {RECORD_BYTES} bytes)");
        if let Err(e) = reserve(bytes, what) {
            s.error = Some(e);
            return s;
        }
        s.reserved = bytes;
        let p = match Self::layout(len) {
            Some(layout) => crate::host::alloc::alloc_zeroed(layout),
            None => std::ptr::null_mut(),
        };
        if p.is_null() {
            s.error = Some(crate::host::alloc::error(what(), bytes, HINT));
            return s;
        }
        s.records = p.cast();
        s.len = len;
        s
    }

    /// Why the shadow could not be made, if it could not.
    pub(crate) fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    fn records(&self) -> &[Rec] {
        // SAFETY: `records` is `len` zeroed records allocated in `new` (a zeroed `AtomicU64`
        // is 0), or dangling with `len` 0; they live until `Drop`.
        unsafe { std::slice::from_raw_parts(self.records, self.len) }
    }

    /// Makes the shadow hold launch `launch`'s records: a shadow that held another launch's
    /// (a `#[device_global]`'s) is cleared first.
    #[inline]
    pub(super) fn enter_launch(&self, launch: u64) {
        if self.launch.load(Ordering::Acquire) != launch {
            self.clear_for(launch);
        }
    }

    #[cold]
    #[inline(never)]
    fn clear_for(&self, launch: u64) {
        let _g = self.clearing.lock();
        if self.launch.load(Ordering::Acquire) == launch {
            return;
        }
        // A shadow's first launch finds it zeroed.
        if self.launch.load(Ordering::Relaxed) != 0 {
            for r in self.records() {
                r.0[0].store(0, Ordering::Relaxed);
                r.0[1].store(0, Ordering::Relaxed);
            }
        }
        {
            let mut side = self.side.lock();
            side.entries.clear();
            side.free.clear();
        }
        self.syncs.lock().clear();
        self.launch.store(launch, Ordering::Release);
    }

    /// The record `u` (an index the buffer's bounds checks let through).
    #[inline(always)]
    pub(super) fn record(&self, u: usize) -> &Rec {
        &self.records()[u]
    }

    /// Bytes of the records' memory that are resident (the whole allocation when it is not a
    /// mapping).
    fn resident(&self) -> usize {
        let Some(layout) = Self::layout(self.len).filter(|l| l.size() > 0) else { return 0 };
        if !crate::host::alloc::mapped(layout) {
            return layout.size();
        }
        resident(self.records.cast(), layout.size())
    }

    /// A new out-of-line entry holding `cells` (`Err`: past the budget, or not allocated).
    pub(super) fn side_new(&self, side: &mut Side, cells: [u64; 4]) -> Result<u32, Error> {
        if let Some(i) = side.free.pop() {
            side.entries[i as usize] = cells;
            return Ok(i);
        }
        if side.entries.len() == side.entries.capacity() {
            let more = side.entries.capacity().max(64);
            let bytes = more * (std::mem::size_of::<[u64; 4]>() + std::mem::size_of::<u32>());
            let what = || format!("racecheck's out-of-line records of buffer `{}` ({} more)", self.name, more);
            reserve(bytes, what)?;
            let grown = side.entries.try_reserve_exact(more).and_then(|()| side.free.try_reserve_exact(more));
            if grown.is_err() {
                RESERVED.fetch_sub(bytes, Ordering::Relaxed);
                return Err(crate::host::alloc::error(what(), bytes, HINT));
            }
            side.reserved += bytes;
        }
        side.entries.push(cells);
        Ok((side.entries.len() - 1) as u32)
    }

    /// Frees out-of-line entry `i`.
    pub(super) fn side_free(side: &mut Side, i: u32) {
        side.free.push(i);
    }
}

/// Resident bytes of the mapping of `size` bytes at `p` (page-aligned).
#[cfg(unix)]
fn resident(p: *mut u8, size: usize) -> usize {
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
    let pages = size.div_ceil(page);
    let mut v = vec![0u8; pages];
    // SAFETY: `p` is a live mapping of `size` bytes (page-aligned, from `mmap`); `v` has one
    // byte per page of it.
    let r = unsafe { libc::mincore(p.cast(), size, v.as_mut_ptr().cast()) };
    if r != 0 {
        return size;
    }
    v.iter().filter(|&&b| b & 1 != 0).count() * page
}

#[cfg(not(unix))]
fn resident(_: *mut u8, size: usize) -> usize {
    size
}

impl Drop for GlobalRaceShadow {
    fn drop(&mut self) {
        let (entries, side_reserved) = {
            let side = self.side.get_mut();
            (side.entries.capacity() * std::mem::size_of::<[u64; 4]>() + side.free.capacity() * std::mem::size_of::<u32>(), side.reserved)
        };
        if ACCOUNTING.load(Ordering::Relaxed) {
            HELD.fetch_add(self.resident() + entries, Ordering::Relaxed);
        }
        RESERVED.fetch_sub(self.reserved + side_reserved, Ordering::Relaxed);
        if self.len > 0 {
            if let Some(layout) = Self::layout(self.len) {
                // SAFETY: allocated in `new` with this layout by `alloc_zeroed`; not used after.
                unsafe { crate::host::alloc::dealloc(self.records.cast(), layout) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("16K"), Some(16 << 10));
        assert_eq!(parse_bytes(" 3 M "), Some(3 << 20));
        assert_eq!(parse_bytes("2g"), Some(2 << 30));
        assert_eq!(parse_bytes("lots"), None);
    }

    #[test]
    fn a_record_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Rec>(), RECORD_BYTES);
    }
}
