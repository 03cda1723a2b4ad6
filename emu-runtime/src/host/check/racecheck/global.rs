//! racecheck's shadow of global memory: 16 bytes per record, allocated a page at a time.
//!
//! # Layout
//!
//! A record (one per alignment unit of the buffer's element type: per element for scalars) is
//! two cells (`cells.rs`): 16 bytes. The write cell's top bit is the record's lock: blocks run on
//! several host threads, and the lock is held only while one access updates the record.
//!
//! A large shadow also has a lock per page (`busy`), which a chunk of a vectorised lane loop
//! takes to update the page's records without a locked instruction per record
//! ([`GlobalRaceShadow::chunk`]); a record's lock then waits for the page's (see there).
//!
//! The records are one anonymous mapping (for shadows of at least 1 MiB; smaller ones are
//! ordinary zeroed allocations), so the OS allocates them a page (4 KiB, 256 records) at a
//! time, zero-filled, on first touch: memory a launch never touches costs nothing, and the hot
//! path consults only a bit per page (was it reserved). A `#[device_global]`'s shadow outlives launches: the
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
//! The global shadows alive in the process are reserved against a budget
//! (`EMU_RACECHECK_SHADOW`: bytes, with an optional `K`, `M` or `G` suffix; half the machine's
//! memory by default): a small shadow in full when it is made (one that does not fit fails the
//! launch with error 2 before it runs), a large one a page at a time as its records are
//! touched, and out-of-line entries as they are added; what would pass the budget while the
//! launch runs fails it with error 2 (`Site::host_failure`), never an abort. So a 4 GiB buffer
//! costs what its launch touches, and a launch that touches more than the budget stops.
//!
//! # Reuse
//!
//! A large shadow's mapping outlives it: when its launch ends it goes to a pool (at most
//! [`POOL_ENTRIES`] mappings, and half the budget's bytes), with a bit per page that the OS
//! backs (pages any launch touched: *warm*), and those pages stay reserved against the
//! budget. The next shadow of the same size takes it over, and zeroes each warm page at its
//! first touch instead of faulting a fresh one in: the OS's page faults, its zeroing and the
//! unmapping took more than half of saxpy's time under racecheck. A reservation that does not
//! fit the budget first unmaps the pool, as does a shadow made while the budget is exceeded
//! (a lowered `EMU_RACECHECK_SHADOW`). [`bytes`]' second figure is the live shadows'
//! reservations (without the pool's, [`pooled`]), and a shadow's held bytes are the resident
//! pages it touched, or that no earlier launch left. A chunk of a lane loop that is the first
//! of its launch to touch a page and covers all of it writes the page's records outright
//! ([`GlobalRaceShadow::fill_page`]): neither zeroed nor read.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use super::cells::{Side, SideTable};
use super::clock::SyncClock;
use super::states;
use crate::host::report::error::Error;

/// Bytes per record.
pub(super) const RECORD_BYTES: usize = 16;

/// The lock bit of the write cell.
const LOCK: u64 = 1 << 63;

/// One record: its two cells.
#[derive(Debug, Default)]
pub(super) struct Rec([AtomicU64; 2]);

/// A record's cells, locked: what the access may read and change; dropping it stores them
/// back and unlocks the record.
pub(super) struct Locked<'a> {
    rec: &'a Rec,
    write: u64,
    other: u64,
}

/// A page's lock (`GlobalRaceShadow::lock_pages`): a byte, in a table laid out so that
/// neighbouring pages (those of neighbouring blocks, which different host threads lock) fall
/// in different cache lines ([`page_slot`]).
#[derive(Debug, Default)]
struct PageLock(AtomicU8);

/// Page locks per cache line.
const LOCKS_PER_LINE: usize = 64;

/// The slot of page `page`'s lock in a table of `slots` (a multiple of [`LOCKS_PER_LINE`]):
/// consecutive pages are a line apart.
#[inline(always)]
fn page_slot(page: usize, slots: usize) -> usize {
    let lines = slots / LOCKS_PER_LINE;
    (page % LOCKS_PER_LINE) * lines + page / LOCKS_PER_LINE
}

/// Waits while `busy` (a page's lock, held by a chunk for a short loop over its records) is
/// taken.
#[cold]
#[inline(never)]
fn wait_page(busy: &AtomicU8) {
    let mut spins = 0u32;
    while busy.load(Ordering::SeqCst) != 0 {
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

impl Rec {
    /// Takes the record's lock and reads its cells; `busy` is its page's lock, if it has one.
    ///
    /// With a page lock: the lock bit is set first, then the page lock read (both sequentially
    /// consistent, against the chunk's taking of the page lock and its reading of the cell:
    /// one of the two sees the other). A chunk holding the page may store over the bit (it
    /// stores cells with plain stores, `Pages::put`), so while one does this lets the record
    /// go and starts over once the page is free; and after reading the page free it checks
    /// that its bit is still there (a chunk that held the page meanwhile stored over it, and
    /// its stores are visible by then).
    #[inline]
    pub(super) fn lock(&self, busy: Option<&AtomicU8>) -> Locked<'_> {
        let mut spins = 0u32;
        let write = loop {
            let v = self.0[0].fetch_or(LOCK, Ordering::SeqCst);
            if v & LOCK != 0 {
                while self.0[0].load(Ordering::Relaxed) & LOCK != 0 {
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
                continue;
            }
            if let Some(b) = busy {
                if !self.settle(v, b) {
                    continue;
                }
            }
            break v;
        };
        Locked { rec: self, write, other: self.0[1].load(Ordering::Acquire) }
    }

    /// Takes the record's lock if it is free, and reads its cells; `None` if another host
    /// thread holds it (a chunk holding its page is waited for, as in [`lock`](Self::lock)).
    #[inline(always)]
    pub(super) fn try_lock(&self, busy: Option<&AtomicU8>) -> Option<Locked<'_>> {
        loop {
            let write = self.0[0].fetch_or(LOCK, Ordering::SeqCst);
            if write & LOCK != 0 {
                return None;
            }
            if let Some(b) = busy {
                if !self.settle(write, b) {
                    continue;
                }
            }
            return Some(Locked { rec: self, write, other: self.0[1].load(Ordering::Acquire) });
        }
    }

    /// After setting the lock bit over write cell `v`: whether the lock is held, against the
    /// chunks that take page lock `busy`. `false` (the bit let go, or stored over by a chunk)
    /// when a chunk holds the page or held it since: the caller starts over.
    #[inline(always)]
    fn settle(&self, v: u64, busy: &AtomicU8) -> bool {
        if busy.load(Ordering::SeqCst) != 0 {
            // Unless the chunk stored over it already (then the cell is not `v | LOCK`).
            let _ = self.0[0].compare_exchange(v | LOCK, v, Ordering::SeqCst, Ordering::Relaxed);
            wait_page(busy);
            return false;
        }
        // The page was free when read: a chunk that held it since the bit was set stored its
        // cells before it let the page go, so they are visible here.
        self.0[0].load(Ordering::SeqCst) == v | LOCK
    }
}

impl Locked<'_> {
    /// The write cell and the other cell.
    #[inline(always)]
    pub(super) fn cells(&mut self) -> (&mut u64, &mut u64) {
        (&mut self.write, &mut self.other)
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

/// Records of a large shadow whose pages' locks are held ([`GlobalRaceShadow::lock_pages`];
/// dropping it unlocks them). No other chunk updates them meanwhile, and a record's lock
/// ([`Rec::lock`]) taken meanwhile is let go and taken again after the pages are free: so a
/// record whose bit is clear when read ([`peek`](Self::peek)) may be updated
/// ([`put`](Self::put)) with plain stores, which may store over a locker's bit that the
/// locker then does not use.
pub(super) struct Pages<'a> {
    locks: [Option<&'a PageLock>; 2],
    records: &'a [Rec],
}

impl Pages<'_> {
    /// The cells of record `k` of the run, or `None` when its lock is held (or being taken).
    #[inline(always)]
    pub(super) fn peek(&self, k: usize) -> Option<(u64, u64)> {
        let rec = &self.records[k];
        // Sequentially consistent, against a locker's setting of the bit then reading of the
        // page lock (`Rec::lock`): one of the two sees the other.
        let w = rec.0[0].load(Ordering::SeqCst);
        (w & LOCK == 0).then(|| (w, rec.0[1].load(Ordering::Relaxed)))
    }

    /// Stores record `k`'s cells `(write, other)`, read as `(w0, _)` by [`peek`](Self::peek).
    #[inline(always)]
    pub(super) fn put(&self, k: usize, w0: u64, write: u64, other: u64) {
        let rec = &self.records[k];
        // Both published by the pages' unlock, which a locker reads (`Rec::settle`) before it
        // uses the cells.
        if write != w0 {
            rec.0[0].store(write, Ordering::Relaxed);
        }
        rec.0[1].store(other, Ordering::Relaxed);
    }
}

impl Drop for Pages<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.locks.iter().flatten().for_each(|b| b.0.store(0, Ordering::Release));
    }
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
    let pool = POOL.lock();
    (HELD.load(Ordering::Relaxed), RESERVED.load(Ordering::Relaxed) - pool.reserved)
}

/// The bytes the pool of mappings keeps reserved (their warm pages), and how many mappings it
/// holds.
pub(crate) fn pooled() -> (usize, usize) {
    let pool = POOL.lock();
    (pool.reserved, pool.maps.len())
}

/// The mapping of a shadow that ended, for a later one of the same size.
struct Mapping {
    /// Its address (page-aligned, from [`map`]) and size.
    ptr: usize,
    bytes: usize,
    /// One bit per page: the OS backs it (a launch touched it), and its bytes are reserved.
    warm: Box<[u64]>,
    /// Bytes reserved against the budget for the warm pages.
    reserved: usize,
}

/// Mappings the pool keeps at most.
const POOL_ENTRIES: usize = 8;

#[derive(Default)]
struct Pool {
    maps: Vec<Mapping>,
    /// The sum of the maps' `reserved`, all of it in [`RESERVED`].
    reserved: usize,
}

static POOL: parking_lot::Mutex<Pool> = parking_lot::Mutex::new(Pool { maps: Vec::new(), reserved: 0 });

/// Unmaps every mapping of the pool, giving its reservations back.
#[cold]
#[inline(never)]
fn drain_pool() {
    let maps = {
        let mut pool = POOL.lock();
        RESERVED.fetch_sub(pool.reserved, Ordering::Relaxed);
        pool.reserved = 0;
        std::mem::take(&mut pool.maps)
    };
    for m in maps {
        // SAFETY: the pool owns its mappings (from `map`, with this size), used by no shadow.
        unsafe { unmap(m.ptr as *mut u8, m.bytes) };
    }
}

/// A pooled mapping of `bytes` bytes, taken out of the pool (its reservation now the
/// caller's), unless the budget is exceeded (then the pool is drained).
fn take_pooled(bytes: usize) -> Option<Mapping> {
    if RESERVED.load(Ordering::Relaxed) > budget().unwrap_or(0) {
        drain_pool();
        return None;
    }
    let mut pool = POOL.lock();
    let i = pool.maps.iter().position(|m| m.bytes == bytes)?;
    let m = pool.maps.swap_remove(i);
    pool.reserved -= m.reserved;
    Some(m)
}

/// Keeps `m` for a later shadow, or unmaps it (the pool is full, or would pass half the
/// budget), giving its reservation back.
fn give_to_pool(m: Mapping) {
    let limit = budget().unwrap_or(0) / 2;
    let m = {
        let mut pool = POOL.lock();
        if pool.maps.len() < POOL_ENTRIES && pool.reserved + m.reserved <= limit {
            pool.reserved += m.reserved;
            pool.maps.push(m);
            return;
        }
        m
    };
    RESERVED.fetch_sub(m.reserved, Ordering::Relaxed);
    // SAFETY: `m` is a mapping from `map` of this size that its shadow gave up.
    unsafe { unmap(m.ptr as *mut u8, m.bytes) };
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
pub(super) fn budget() -> Result<usize, Error> {
    match std::env::var("EMU_RACECHECK_SHADOW") {
        Ok(v) => crate::host::config::parse_bytes(&v).ok_or(Error::InvalidSetting {
            variable: "EMU_RACECHECK_SHADOW",
            value: v,
            valid: "a size in bytes with an optional K, M or G suffix, e.g. `EMU_RACECHECK_SHADOW=4G`",
        }),
        Err(_) => Ok(crate::host::alloc::physical_memory() / 2),
    }
}

const HINT: &str = "run EMU_CHECK=racecheck on a smaller buffer, or raise EMU_RACECHECK_SHADOW";

/// Reserves `bytes` against the budget, or says why not.
fn reserve(bytes: usize, what: impl Fn() -> String) -> Result<(), Error> {
    match try_reserve(bytes, &what) {
        Err(_) if POOL.lock().reserved > 0 => {
            drain_pool();
            try_reserve(bytes, &what)
        }
        r => r,
    }
}

fn try_reserve(bytes: usize, what: &dyn Fn() -> String) -> Result<(), Error> {
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
    /// The release clocks of its atomic locations, by granule, in shards by address (two
    /// workers' atomics on different locations then take different locks).
    syncs: [parking_lot::Mutex<super::clock::HashMap<usize, SyncClock>>; SYNC_SHARDS],
    /// The launch whose records the shadow holds (0: none yet).
    launch: AtomicU64,
    /// Taken to clear the records for a new launch.
    clearing: parking_lot::Mutex<()>,
    /// Bytes reserved against the budget for the records when the shadow was made (a small
    /// shadow's whole allocation), and since, a page at a time (a large one's touched pages).
    reserved: usize,
    touched: AtomicUsize,
    /// A large shadow (`LAZY_MIN` bytes and more) is its own mapping, reserved as it is
    /// touched: one bit per page of it, set at the page's first touch.
    lazy: bool,
    /// A large shadow's pages ready for its launch (reserved, zeroed): one bit per page.
    pages: Box<[AtomicU64]>,
    /// Pages a host thread is getting ready (the others wait for its `pages` bit).
    claims: Box<[AtomicU64]>,
    /// Pages of a mapping from the pool that an earlier launch touched: reserved already, and
    /// zeroed at their first touch (one bit per page; empty for a fresh mapping).
    warm: Box<[u64]>,
    /// The bytes reserved for the warm pages (taken over from the pool).
    inherited: usize,
    /// A large shadow's page locks, one per page (`chunk`).
    busy: Box<[PageLock]>,
    /// Why the shadow could not be made (then it has no records, and the launch must not run:
    /// `__private::global` returns this).
    error: Option<Error>,
}

// SAFETY: the records are atomics, shared by the host threads that run the launch's blocks;
// the pointer is owned by the shadow (freed once, in `Drop`).
unsafe impl Send for GlobalRaceShadow {}
// SAFETY: as above: every access to a record goes through its atomics and its lock bit.
unsafe impl Sync for GlobalRaceShadow {}

/// Shards of a shadow's release clocks.
const SYNC_SHARDS: usize = 16;

impl GlobalRaceShadow {
    /// The release clocks of the shard that holds granule `key`'s.
    pub(super) fn syncs(&self, key: usize) -> parking_lot::MutexGuard<'_, super::clock::HashMap<usize, SyncClock>> {
        self.syncs[key % SYNC_SHARDS].lock()
    }

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
            touched: AtomicUsize::new(0),
            lazy: false,
            pages: Box::new([]),
            claims: Box::new([]),
            warm: Box::new([]),
            inherited: 0,
            busy: Box::new([]),
            error: None,
        };
        if len == 0 {
            return s;
        }
        let bytes = len.saturating_mul(RECORD_BYTES);
        let what = || format!("racecheck's shadow of buffer `{name}` ({len} records of {RECORD_BYTES} bytes)");
        let Some(layout) = Self::layout(len) else {
            s.error = Some(crate::host::alloc::error(what(), bytes, HINT));
            return s;
        };
        let p = if lazy(bytes) {
            let words = bytes.div_ceil(OS_PAGE).div_ceil(64);
            match crate::host::alloc::try_slice(words, || AtomicU64::new(0), what, HINT)
                .and_then(|p| Ok((p, crate::host::alloc::try_slice(words, || AtomicU64::new(0), what, HINT)?)))
            {
                Ok((pages, claims)) => (s.pages, s.claims) = (pages, claims),
                Err(e) => {
                    s.error = Some(e);
                    return s;
                }
            }
            let slots = bytes.div_ceil(OS_PAGE).div_ceil(LOCKS_PER_LINE) * LOCKS_PER_LINE;
            match crate::host::alloc::try_slice(slots, PageLock::default, what, HINT) {
                Ok(busy) => s.busy = busy,
                Err(e) => {
                    s.error = Some(e);
                    return s;
                }
            }
            s.lazy = true;
            match take_pooled(bytes) {
                Some(m) => {
                    (s.warm, s.inherited) = (m.warm, m.reserved);
                    m.ptr as *mut u8
                }
                None => map(bytes),
            }
        } else {
            if let Err(e) = reserve(bytes, what) {
                s.error = Some(e);
                return s;
            }
            s.reserved = bytes;
            crate::host::alloc::alloc_zeroed(layout)
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
        self.side.lock().clear();
        self.syncs.iter().for_each(|m| m.lock().clear());
        self.launch.store(launch, Ordering::Release);
    }

    /// The record `u` (an index the buffer's bounds checks let through); `Err` when its page
    /// is touched first and does not fit the budget.
    #[inline(always)]
    pub(super) fn record(&self, u: usize) -> Result<&Rec, Error> {
        let r = &self.records()[u];
        if self.lazy {
            let page = u / (OS_PAGE / RECORD_BYTES);
            if self.pages[page / 64].load(Ordering::Acquire) & (1u64 << (page % 64)) == 0 {
                self.touch(page)?;
            }
        }
        Ok(r)
    }

    /// Whether the shadow holds launch `launch`'s records (else [`enter_launch`](Self::enter_launch)
    /// has work to do).
    #[inline(always)]
    pub(super) fn holds(&self, launch: u64) -> bool {
        self.launch.load(Ordering::Acquire) == launch
    }

    /// The record `u` when its page is reserved already (`None`: [`record`](Self::record) has
    /// work to do, or `u` is past the end).
    #[inline(always)]
    pub(super) fn reserved_record(&self, u: usize) -> Option<&Rec> {
        let r = self.records().get(u)?;
        if self.lazy {
            let page = u / (OS_PAGE / RECORD_BYTES);
            if self.pages[page / 64].load(Ordering::Acquire) & (1u64 << (page % 64)) == 0 {
                return None;
            }
        }
        Some(r)
    }

    /// The page lock of record `u` (large shadows only).
    #[inline(always)]
    pub(super) fn busy(&self, u: usize) -> Option<&AtomicU8> {
        (!self.busy.is_empty()).then(|| &self.busy[page_slot(u / (OS_PAGE / RECORD_BYTES), self.busy.len())].0)
    }

    /// Takes the locks of the pages of records `u..u + n` (their pages ready:
    /// [`records_run`](Self::records_run)), so that a chunk of a vectorised lane loop updates
    /// them without a locked instruction per record read ([`Pages`]). `None` when the shadow
    /// has no page locks (a small one), or another chunk holds one of the pages.
    #[inline(always)]
    pub(super) fn lock_pages(&self, u: usize, n: usize) -> Option<Pages<'_>> {
        let per = OS_PAGE / RECORD_BYTES;
        if self.busy.is_empty() || n == 0 {
            return None;
        }
        let records = self.records().get(u..u + n)?;
        // At most two pages (a chunk has at most 256 records, a page's worth).
        let (p0, p1) = (u / per, (u + n - 1) / per);
        if p1 > p0 + 1 {
            return None;
        }
        let slot = |p: usize| &self.busy[page_slot(p, self.busy.len())];
        let first = slot(p0);
        if first.0.swap(1, Ordering::SeqCst) != 0 {
            return None;
        }
        let second = (p1 != p0).then(|| slot(p1));
        if let Some(b) = second {
            if b.0.swap(1, Ordering::SeqCst) != 0 {
                first.0.store(0, Ordering::Release);
                return None;
            }
        }
        Some(Pages { locks: [Some(first), second], records })
    }

    /// Records `u..u + n` (indices the buffer's bounds checks let through), their pages
    /// reserved first (as [`record`](Self::record) reserves them); `None` past the end, `Err`
    /// as for `record`.
    #[inline(always)]
    pub(super) fn records_run(&self, u: usize, n: usize) -> Option<Result<&[Rec], Error>> {
        let run = self.records().get(u..u.checked_add(n)?)?;
        if self.lazy && n > 0 {
            let per = OS_PAGE / RECORD_BYTES;
            for page in u / per..=(u + n - 1) / per {
                if self.pages[page / 64].load(Ordering::Acquire) & (1u64 << (page % 64)) == 0 {
                    if let Err(e) = self.touch(page) {
                        return Some(Err(e));
                    }
                }
            }
        }
        Some(Ok(run))
    }

    /// The first touch of a page of a large shadow in its launch: gets it ready (`prepare`),
    /// or waits for the host thread that does.
    #[cold]
    #[inline(never)]
    fn touch(&self, page: usize) -> Result<(), Error> {
        let (i, bit) = (page / 64, 1u64 << (page % 64));
        let mut spins = 0u32;
        loop {
            if self.pages[i].load(Ordering::Acquire) & bit != 0 {
                return Ok(());
            }
            if self.claims[i].fetch_or(bit, Ordering::Acquire) & bit == 0 {
                let r = self.prepare(page);
                match &r {
                    // Publishes the page's zeroed records with it.
                    Ok(()) => self.pages[i].fetch_or(bit, Ordering::Release),
                    Err(_) => self.claims[i].fetch_and(!bit, Ordering::Release),
                };
                return r;
            }
            // Another host thread gets it ready (or fails to, and drops its claim).
            while self.claims[i].load(Ordering::Acquire) & bit != 0 && self.pages[i].load(Ordering::Acquire) & bit == 0
            {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    /// A page's first touch in the launch by a chunk that writes every record of it: when
    /// records `u..u + n` are exactly page `u / 256` of a large shadow, and the page is not
    /// ready yet, claims it (reserving it when the OS has not backed it yet), stores
    /// `cells(k)` (write cell, other cell) into record `u + k` for every `k < n` (what the
    /// page held before is not read: the records start empty for the launch), and publishes
    /// the page. False (nothing done) otherwise: the page is ready, another host thread is
    /// getting it ready, or its reservation failed (then `record` reports that).
    #[inline(always)]
    pub(super) fn fill_page(&self, u: usize, n: usize, cells: impl Fn(usize) -> (u64, u64)) -> bool {
        let per = OS_PAGE / RECORD_BYTES;
        if !self.lazy || n != per || u % per != 0 || u + n > self.len {
            return false;
        }
        let page = u / per;
        let (i, bit) = (page / 64, 1u64 << (page % 64));
        if self.pages[i].load(Ordering::Acquire) & bit != 0
            || self.claims[i].fetch_or(bit, Ordering::Acquire) & bit != 0
        {
            return false;
        }
        let warm = self.warm.get(i).is_some_and(|w| w & bit != 0);
        if !warm {
            if reserve(OS_PAGE, String::new).is_err() {
                self.claims[i].fetch_and(!bit, Ordering::Release);
                return false;
            }
            self.touched.fetch_add(OS_PAGE, Ordering::Relaxed);
        }
        for (k, rec) in self.records()[u..u + n].iter().enumerate() {
            let (w, o) = cells(k);
            rec.0[0].store(w, Ordering::Relaxed);
            rec.0[1].store(o, Ordering::Relaxed);
        }
        // Publishes the records with the page (`touch`'s waiters and `record` read it with
        // acquire ordering).
        self.pages[i].fetch_or(bit, Ordering::Release);
        true
    }

    /// Gets page `page` of a large shadow ready, claimed by the caller: a warm page (from the
    /// pool) is zeroed; a fresh one is reserved against the budget and faulted in.
    fn prepare(&self, page: usize) -> Result<(), Error> {
        let per = OS_PAGE / RECORD_BYTES;
        let (first, end) = (page * per, ((page + 1) * per).min(self.len));
        if self.warm.get(page / 64).is_some_and(|w| w & (1u64 << (page % 64)) != 0) {
            // SAFETY: records `first..end` lie in the mapping, and no other host thread reads
            // or writes them until the page's `pages` bit is set (`touch`, with release
            // ordering), which no access passes before: the claim is exclusive.
            unsafe { std::ptr::write_bytes(self.records.add(first), 0, end - first) };
            return Ok(());
        }
        let what = || {
            format!(
                "racecheck's shadow of buffer `{}` (a page of its {} records of {RECORD_BYTES} bytes, {} bytes touched so far)",
                self.name,
                self.len,
                self.touched.load(Ordering::Relaxed)
            )
        };
        reserve(OS_PAGE, what)?;
        self.touched.fetch_add(OS_PAGE, Ordering::Relaxed);
        // Fault the page in for writing: a record's lock reads its cell before its
        // compare-and-swap, and a read first maps the shared zero page, which the write then
        // copies (two faults per page; the copies took a fifth of saxpy's time under
        // racecheck). A compare-and-swap of 0 with 0 writes nothing that matters: it leaves
        // any cell as it is.
        if let Some(r) = self.records().get(first) {
            let _ = r.0[0].compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Bytes of the records' memory that are resident (the whole allocation when it is not a
    /// mapping).
    fn resident(&self) -> usize {
        let Some(layout) = Self::layout(self.len).filter(|l| l.size() > 0) else { return 0 };
        if !self.lazy {
            return layout.size();
        }
        // A warm page this launch did not touch is the pool's.
        let bit = |words: &[u64], p: usize| words.get(p / 64).is_some_and(|w| w & (1u64 << (p % 64)) != 0);
        let ready: Vec<u64> = self.pages.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        resident(self.records.cast(), layout.size(), &|p| bit(&ready, p) || !bit(&self.warm, p))
    }
}

impl SideTable for GlobalRaceShadow {
    type Guard<'a> = parking_lot::MutexGuard<'a, Side>;
    fn get(&self) -> Self::Guard<'_> {
        self.side.lock()
    }
    fn grow(&self, bytes: usize) -> Result<(), Error> {
        reserve(bytes, || self.what())
    }
    fn what(&self) -> String {
        format!("racecheck's out-of-line records of buffer `{}`", self.name)
    }
}

/// Shadows of at least this many bytes are mappings reserved against the budget a page at a
/// time, as they are touched (on Unix; elsewhere every shadow is reserved in full).
const LAZY_MIN: usize = 1 << 20;
/// The page the OS maps at a time (at least; the accounting reserves this much per page).
const OS_PAGE: usize = 4096;

fn lazy(bytes: usize) -> bool {
    cfg!(unix) && bytes >= LAZY_MIN
}

/// `bytes` of zeroed memory mapped from the OS without reserving swap for it (the budget does
/// that, page by page), or null.
#[cfg(unix)]
fn map(bytes: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

#[cfg(not(unix))]
fn map(_: usize) -> *mut u8 {
    std::ptr::null_mut()
}

/// Unmaps what [`map`] returned.
///
/// # Safety
///
/// `p` must come from [`map`] with this size, and not be used afterwards.
#[cfg(unix)]
unsafe fn unmap(p: *mut u8, bytes: usize) {
    // SAFETY: the caller's contract: `p` is a mapping of `bytes` bytes.
    unsafe { libc::munmap(p.cast(), bytes) };
}

/// # Safety
///
/// Never called: [`map`] maps nothing here.
#[cfg(not(unix))]
unsafe fn unmap(_: *mut u8, _: usize) {}

/// Resident bytes of the mapping of `size` bytes at `p` (page-aligned), in the pages of
/// [`OS_PAGE`] bytes that `count` picks.
#[cfg(unix)]
fn resident(p: *mut u8, size: usize, count: &dyn Fn(usize) -> bool) -> usize {
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
    v.iter().enumerate().filter(|&(i, &b)| b & 1 != 0 && count(i * page / OS_PAGE)).count() * page
}

#[cfg(not(unix))]
fn resident(_: *mut u8, size: usize, _: &dyn Fn(usize) -> bool) -> usize {
    size
}

impl Drop for GlobalRaceShadow {
    fn drop(&mut self) {
        let (entries, side_reserved) = {
            let side = self.side.get_mut();
            (side.bytes(), side.reserved)
        };
        if ACCOUNTING.load(Ordering::Relaxed) {
            HELD.fetch_add(self.resident() + entries, Ordering::Relaxed);
        }
        RESERVED.fetch_sub(self.reserved + side_reserved, Ordering::Relaxed);
        let mapping = self.inherited + *self.touched.get_mut();
        if self.len > 0 {
            if let Some(layout) = Self::layout(self.len) {
                if self.lazy {
                    // The warm pages: the pool's before, and those this launch touched.
                    let mut warm = std::mem::take(&mut self.warm).into_vec();
                    warm.resize(self.pages.len(), 0);
                    warm.iter_mut().zip(self.pages.iter()).for_each(|(w, p)| *w |= p.load(Ordering::Relaxed));
                    give_to_pool(Mapping {
                        ptr: self.records as usize,
                        bytes: layout.size(),
                        warm: warm.into_boxed_slice(),
                        reserved: mapping,
                    });
                } else {
                    // SAFETY: allocated in `new` with this layout by `alloc_zeroed`; not used
                    // after.
                    unsafe { crate::host::alloc::dealloc(self.records.cast(), layout) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::config::parse_bytes;

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

    /// Chunks that hold the page and store with plain stores (`Pages::put`), against lockers of
    /// single records (`Rec::lock`, `Rec::try_lock`) on other host threads: every update of
    /// either kind lands, none is lost. Each update adds one to both cells, so a lost update
    /// leaves a cell short of the count of updates made.
    #[test]
    fn page_chunks_and_record_lockers_lose_no_update() {
        use std::sync::atomic::AtomicU64 as Count;
        const RECORDS: usize = 8;
        const ROUNDS: u64 = 20_000;
        let records: Vec<Rec> = (0..RECORDS).map(|_| Rec::default()).collect();
        let page = PageLock::default();
        let applied = Count::new(0);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for _ in 0..ROUNDS {
                        if page.0.swap(1, Ordering::SeqCst) != 0 {
                            continue;
                        }
                        let pages = Pages { locks: [Some(&page), None], records: &records };
                        for k in 0..RECORDS {
                            if let Some((w, o)) = pages.peek(k) {
                                pages.put(k, w, w + 1, o + 1);
                                applied.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        drop(pages);
                    }
                });
            }
            for t in 0..2 {
                let (records, page, applied) = (&records, &page, &applied);
                s.spawn(move || {
                    for r in 0..ROUNDS {
                        let k = (r as usize * 3 + t) % RECORDS;
                        let locked = if r % 2 == 0 {
                            Some(records[k].lock(Some(&page.0)))
                        } else {
                            records[k].try_lock(Some(&page.0))
                        };
                        if let Some(mut l) = locked {
                            let (w, o) = l.cells();
                            *w += 1;
                            *o += 1;
                            applied.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let (mut writes, mut others) = (0, 0);
        for r in &records {
            let (w, o) = (r.0[0].load(Ordering::Relaxed), r.0[1].load(Ordering::Relaxed));
            assert_eq!(w & LOCK, 0, "a record is left locked");
            assert_eq!(w, o, "a record's cells disagree: an update was lost");
            writes += w;
            others += o;
        }
        assert_eq!(writes, applied.load(Ordering::Relaxed));
        assert_eq!(others, writes);
    }
}
