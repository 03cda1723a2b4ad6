//! racecheck: data races in shared and global memory, judged by the PTX memory model's
//! happens-before (causality) order.
//!
//! # Definition
//!
//! Two accesses of the same location by different threads *conflict* when at least one writes.
//! After PTX's memory consistency model (PTX ISA, "Memory Consistency Model": *morally strong*
//! operations, *causality order*), two conflicting accesses are a data race unless
//!
//! * both are atomic (`atomic_*` read-modify-writes, `atomic_load`/`atomic_store` and their
//!   `_scoped` forms, `volatile_load`/`volatile_store`) with scopes that each include the
//!   other thread (block scope only reaches the threads of the block), or
//! * one happens before the other: program order, `sync_threads` (any of its forms) within a
//!   block, `sync_warp` within a warp, and synchronisation through atomics (below).
//!
//! A plain access that races with an atomic one is reported, naming both (`Race reported
//! between Atomic access at ... and Read access at ...`). An access through a
//! `map_shared_rank` view (distributed shared memory) is checked against the shadow of the
//! block whose shared array it reaches, and `this_cluster().sync()` orders the accesses of the
//! cluster's threads there: each stamp carries how many cluster syncs its thread called, and an
//! access of another block made before fewer of them happens before. compute-sanitizer's racecheck reports
//! shared memory only; deviceemu also watches global memory, across blocks.
//!
//! # Synchronisation through atomics
//!
//! * **Release**: `atomic_store(.., Release)` (or `SeqCst`); or a relaxed atomic write (a
//!   store, or any `atomic_*` read-modify-write) after a `thread_fence()` /
//!   `thread_fence_block()` of the same thread (PTX's release pattern `fence; st.relaxed`): it
//!   publishes what the thread knew at the release (at the fence).
//! * **Acquire**: `atomic_load(.., Acquire)` (or `SeqCst`); or a relaxed atomic read (a load or
//!   a read-modify-write) followed by a fence, or by a `sync_threads`, in the same thread (the
//!   acquire pattern `ld.relaxed; fence`): it learns what the releases it read from published.
//!   A barrier then passes that on to the whole block, as CUDA's `threadFenceReduction` sample
//!   relies on (strictly, PTX asks for a device-scope fence there: a barrier is a block-scope
//!   fence; deviceemu follows the CUDA programming guide's pattern).
//! * **Release sequences**: a read-modify-write continues the release sequence of the location
//!   (what earlier releases published stays published); a store starts a new one.
//! * **Observation**: an atomic read orders the atomic writes it read from (through the chain of
//!   read-modify-writes) before everything after it (PTX's *observation order*, part of
//!   causality order); so the last block of `threadFenceReduction` may reset the ticket counter
//!   with a plain store. It does not order the writer's *plain* accesses: that takes a release.
//! * **Scopes**: a block-scope release or acquire (`Scope::Block`, `thread_fence_block()`)
//!   synchronises only threads of one block; device and system scope reach every block. A fence
//!   narrows the release of the atomic after it to its own scope.
//!
//! # Algorithm
//!
//! Vector clocks with epochs, after FastTrack (C. Flanagan and S. N. Freund, "FastTrack:
//! Efficient and Precise Dynamic Race Detection", PLDI 2009), ThreadSanitizer v2 (shadow words
//! holding epochs) and miri's `src/concurrency/data_race.rs` (release/acquire and fence clocks,
//! release sequences), adapted to the GPU's hierarchy so that the common case is O(1):
//!
//! * **Epochs.** Every access is stamped with its thread (block, thread), the block's barrier
//!   generation (how many `sync_threads` it completed), its warp's `sync_warp` count, and the
//!   thread's own clock, advanced after each release (a fence, a release store, any atomic
//!   write).
//! * **Barriers are implicit in the clocks.** An access of the same block and an earlier
//!   generation happens before (every thread of a block passes every barrier), as does one of the
//!   same warp and an earlier warp epoch: no vector is joined per barrier.
//! * **Sparse vector clocks for the rest** (`clock.rs`): what a thread acquired through
//!   atomics, as per-block generation floors and per-thread clocks. A barrier joins what each
//!   thread of the block acquired into what all know (lazily, at the block's next checked
//!   access, and only when some thread acquired something). A location's release clock
//!   (`SyncClock`) is kept only for the atomic locations, in a side table of the buffer's (or the
//!   block's shared memory's) shadow. Its device-scope part is an append-only log indexed by
//!   block and thread: an atomic read takes it as a length (O(1)), the checks ask the log, and
//!   a fence, barrier or release joins it, so a location that thousands of threads update
//!   costs each of them O(1), not a copy of every writer's clock (`clock.rs`, `Chain`).
//! * **Shadow records.** Each byte of the block's shared memory (a `View::cast` may make views
//!   of one array overlap in any way) and each alignment unit of a global buffer's element type
//!   (each element, for scalars) keeps its last plain write, up to two plain
//!   reads and up to two atomic accesses by different threads that no later access has ordered.
//!   An access is checked against the ones it conflicts with; the pair that races is reported
//!   once per block and pair of lines, with a count.
//! * **16 bytes per record** (`cells.rs`, `global.rs`, `states.rs`). A stamp is one 64-bit
//!   cell: its thread (block modulo 2^25, thread), its kind, and a 24-bit index into a
//!   process-wide table of the thread-independent rest (generation, warp epoch, clock, scope,
//!   source line: the same for every thread that makes the same access between the same
//!   barriers), as ThreadSanitizer keeps source lines out of its shadow. A record is two cells:
//!   the last write (whose top bit is the record's lock in global memory, where blocks run on
//!   several host threads), and the one read or atomic access that remains, or an out-of-line
//!   entry of four cells when several concurrent ones do (FastTrack's read-shared state). The
//!   common cases (an empty record, the thread's own accesses, accesses a barrier ordered) are
//!   decided on the cells; the rest reads the record back as stamps. A global buffer's records
//!   are one lazily mapped allocation (the OS allocates a page of 256 records on first touch,
//!   so untouched memory costs nothing), reserved against a budget (`EMU_RACECHECK_SHADOW`,
//!   half the machine's memory by default) page by page as it is touched: a launch that
//!   touches more than fits is error 2. Shared memory's cells are per worker, two per byte of the arena,
//!   cleared for each block as far as the previous block touched them.
//! * **The common case first** (`fast_plain`): a plain access of a one-unit element by a thread
//!   whose clocks are up to date (the same block run, barrier generation and count of
//!   `sync_warp`s — one counter for the block, `Site::warp_syncs` — as at the block's last
//!   checked access), whose state is in the worker's cache (a slot per source line), to a
//!   record that is set up (the shared arena entered for the block, the global page reserved)
//!   and whose accesses it supersedes (`cells::fast`, reading a state's generation from a flat
//!   table in one load). It is decided with the record's cells alone: no clock update, no
//!   interning, and in global memory no waiting for a record another host thread holds.
//!   Anything else takes the general path, which applies the same rules.
//! * **A lane loop's chunks** (`on_lanes`). A kernel's checked copy runs a vectorised lane
//!   loop (`Regions::each_chunk`) as the unchecked copy does, and checks each access site of
//!   its body once per chunk of up to 256 lanes (`__private::lane_check`, after the chunk's
//!   arithmetic, in program order). `fast_lanes` decides `fast_plain`'s common case for the
//!   chunk's lanes together: the block's clocks looked at once, one state for all lanes (a
//!   lane loop has no barrier, fence or atomic), the records' pages reserved once, and, in a
//!   large shadow, the records updated under their page's lock without a locked instruction
//!   per record (`global.rs`). A lane it does not decide goes through the per-access path
//!   with that lane as the running thread. The lanes of a site touch distinct records, so the
//!   order changes no verdict; with blocks run serially the reports are those of the general
//!   path, word for word (`tests/racecheck_lanes.rs`).
//!
//! # Warp-synchronous hazards
//!
//! Volatile accesses are atomics (PTX's `ld.volatile`/`st.volatile` are relaxed at system
//! scope), so two of them never race. Pre-Volta code went further and relied on a warp's lanes
//! running in lockstep: the last warp of a reduction through a volatile pointer, each step
//! reading another lane's cell while that lane writes it, with no `__syncwarp`. Since Volta the
//! lanes need not run together, and compute-sanitizer's racecheck reports such pairs as
//! `Warning: (Warp Level Programming) Potential RAW/WAR hazard` (tools/probes/RESULTS.md, probe
//! 16). Here: two volatile accesses to one location by lanes of one warp of one block, at least
//! one a write, that no barrier, `sync_warp` or acquired release orders, are a *warp hazard*,
//! unless the write synchronises (its thread called `thread_fence*()` before it, or it is a
//! release): the flag of a message-passing idiom. They are judged in the order the run made
//! them, which is what tells a spin-wait from a lockstep assumption:
//!
//! * a read after another lane's write has read it (the emulator's reads see the latest
//!   write): nothing to report;
//! * a write after another lane's read is *pending*: if that lane reads the location again
//!   (a spin that retries until it sees the write), the hazard is dropped; if not, it is
//!   reported when the block ends (`on_block_end`);
//! * two writes are reported at once.
//!
//! So the reduction is reported (in index order, lane 0 reads lane 16's cell before lane 16
//! writes it, and never reads it again), and a lane spinning on another lane's flag, in either
//! order, is not. A report is a `Finding::Race` with `warp_synchronous` set; it fails the launch
//! as a race does unless `EMU_CHECK_ACTION=report` (compute-sanitizer's `--error-exitcode` counts
//! its warnings too). Limits: the verdict depends on the order the lanes ran in (a seed that runs
//! every reader after the writer it depends on sees no hazard); a lane that reads another lane's
//! cell once, after that lane wrote it, is taken for one that synchronised.
//!
//! Writes of the same value (`found[0] = 1` by many threads) are races like any others: PTX's
//! model makes them one, and the shadow keeps no values to tell them apart. compute-sanitizer
//! drops them in shared memory (probe 16), and so does OpenCL's Oclgrind by default; here an
//! atomic store (`atomic_store(.., Relaxed)`, or `volatile_store`) is the race-free way to
//! write such a flag.
//!
//! # The same verdict for every `EMU_SEED`
//!
//! The checker judges the happens-before order, not the interleaving the emulator happened to
//! run: a pair of accesses is reported when neither is ordered before the other, whichever ran
//! first. Barriers, warp syncs and program order do not depend on the seed, so neither does the
//! verdict of a kernel that synchronises with them. With atomics, which release an acquire read
//! from may depend on the schedule; a correct protocol (the reader waits until it sees the
//! flag, or the last block is the one that saw every ticket) orders the same pairs in every
//! schedule. A racy flag (no wait) is judged as the run went, since which write the acquire
//! read is part of the run: `if flag.atomic_load(0, Acquire) == 1 { read data }` is clean in
//! every run (the read happens only after seeing the release); a plain read of the data made
//! whatever the flag says is ordered in the runs where the acquire saw the release and reported
//! in the runs where it did not (with `EMU_BLOCKS=serial` and the writer in an earlier block,
//! never); with `Relaxed` and no fences it is reported in every run that reads it. The thread a report names is the lowest of
//! the threads found racing at that pair of lines (see `report::collect`).
//!
//! # Limits
//!
//! * Forgetting: a record keeps two reads and two atomic accesses that are concurrent with each
//!   other, those of the lowest threads; a third concurrent reader's read is forgotten, so a
//!   write racing with only that one is missed (a write racing with any read is found, since
//!   the lowest are kept). After two writes race, the record keeps the lower thread's.
//! * The pair a report names is the lowest found at that pair of lines; for a race among many
//!   threads at one line it is the lowest two, whatever the schedule, but in general it depends
//!   on which pairs met in the shadow.
//! * `sync_warp` orders all lanes of its warp, whatever its mask. Through atomics it acts as a
//!   barrier at warp scope: what a lane acquired before it every lane knows after it, and a
//!   lane's release after it publishes what every lane of the warp did before it.
//! * A block-scope acquire takes, from a device-scope release clock, only what concerns its own
//!   block.
//! * A barrier is not a release fence: a relaxed atomic write after `sync_threads` publishes
//!   only itself (write `thread_fence_block()` before it).
//! * Global memory is shadowed per alignment unit of the buffer's element type: a byte written
//!   through a `u8` cast of a `u32` buffer is checked against every access of its word, and two
//!   threads writing different bytes of one word through casts are reported although they do
//!   not race (shared memory, shadowed byte by byte, tells them apart).
//! * Memory: 16 bytes per touched record of a global buffer (per element for scalars); 36 bytes
//!   more for each record whose concurrent reads or atomics go out of line (an element read by
//!   several threads with no barrier between them), and about 40 bytes per interned state,
//!   once per process. Shared memory costs 16 bytes per byte of the arena, per worker.
//! * A cell keeps the block's linear index modulo 2^25, read back as the block nearest the
//!   running one: blocks 2^24 or more apart are taken for one another; a thread index needs 10
//!   bits (at most 1024 threads per block, as CUDA allows). The table of states holds 2^24
//!   states; a launch that needs more fails with error 2.
//! * `this_cluster().sync()` orders the cluster's blocks only in shared memory (distributed
//!   shared memory, whose records only the cluster's threads reach); in global memory it is a
//!   barrier of each block, so blocks of a cluster that hand data to each other through global
//!   memory with plain accesses and a cluster sync are reported.
//! * Clocks are 32-bit and saturate: a thread making more than 2^32 releases stops being told
//!   apart from its earlier self.
//! * A location's release clock may grow with every block that releases into it (a ticket
//!   counter of a grid of N blocks holds N entries), and each relaxed read of it copies it.

mod cells;
mod clock;
mod global;
mod states;

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::Location;

pub(crate) use clock::SyncClock;
use clock::{BlockClocks, Me};
pub(crate) use global::{
    bytes as global_shadow_bytes, pooled as global_shadow_pool, reset_peak as reset_global_shadow_peak,
    states as interned_states, GlobalRaceShadow,
};

use crate::device::{Scope, View, ViewKind};
use crate::host::check::view_meta::{describe, ViewMeta};
use crate::host::check::Site;
use crate::host::report::{Access, Finding, SourceLocation};

/// Attaches a new shadow of the allocation `meta` describes (one record per `granule` bytes).
pub(crate) fn attach(meta: &mut ViewMeta) {
    meta.race = Some(Box::new(GlobalRaceShadow::new(meta.bytes / meta.granule, meta.name)));
}

/// The shadow [`attach`] attached to `meta`, if any ([`attach`] is the one writer of the slot).
#[inline]
pub(crate) fn shadow_of(meta: &ViewMeta) -> Option<&GlobalRaceShadow> {
    meta.race.as_deref().and_then(|r| r.downcast_ref())
}

/// What an access did, for the shadow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// An atomic load.
    AtomicRead,
    /// An atomic store or read-modify-write.
    AtomicWrite,
}

impl Kind {
    fn writes(self) -> bool {
        matches!(self, Kind::Write | Kind::AtomicWrite)
    }
    fn atomic(self) -> bool {
        matches!(self, Kind::AtomicRead | Kind::AtomicWrite)
    }
    fn access(self) -> Access {
        match self {
            Kind::Read => Access::Read,
            Kind::Write => Access::Write,
            Kind::AtomicRead | Kind::AtomicWrite => Access::Atomic,
        }
    }
}

/// One access, stamped.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    /// The block's linear index, modulo 2^32.
    block: u32,
    thread: u16,
    /// The index of its state (`states.rs`), which its cell holds.
    state: u32,
    generation: u32,
    warp_epoch: u32,
    /// The thread's clock.
    clock: u32,
    /// Cluster syncs the thread called in its block.
    cluster: u32,
    kind: Kind,
    /// For atomics: their scope.
    scope: Scope,
    /// A volatile access that does not synchronise ([`states::State::volatile`]).
    volatile: bool,
    at: &'static Location<'static>,
}

/// What two accesses that nothing orders are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hazard {
    /// A data race.
    Race,
    /// Volatile accesses of lanes of one warp that no `sync_warp`, barrier or fence orders:
    /// warp-synchronous code (a warning, as compute-sanitizer's racecheck gives it).
    Warp,
}

/// The shadow of one byte of shared memory or one element of a global buffer.
#[derive(Clone, Copy, Debug, Default)]
struct Record {
    write: Option<Stamp>,
    reads: [Option<Stamp>; 2],
    atomics: [Option<Stamp>; 2],
}

/// What the running thread knows, for the checks of one access.
struct Judge<'a> {
    clocks: &'a BlockClocks,
    warp_size: u32,
    /// The record is shared memory, which only threads of the owner's cluster reach: their
    /// cluster syncs order them.
    cluster: bool,
}

impl Judge<'_> {
    /// Whether `p` happens before `me` (or is `me`'s own thread's).
    #[inline]
    fn ordered(&self, p: &Stamp, me: &Stamp) -> bool {
        if p.block == me.block {
            if p.thread == me.thread || p.generation < me.generation {
                return true;
            }
            if p.thread as u32 / self.warp_size == me.thread as u32 / self.warp_size && p.warp_epoch < me.warp_epoch {
                return true;
            }
        } else if self.cluster && p.cluster < me.cluster {
            return true;
        }
        !self.clocks.knows_nothing_more(me.thread as u32)
            && self.clocks.knows(
                me.thread as u32,
                p.block as u64,
                p.thread as u32,
                p.generation,
                p.clock,
                p.kind == Kind::AtomicWrite,
            )
    }

    /// Whether `p` and `me` race, or are a warp-synchronous hazard.
    #[inline]
    fn races(&self, p: &Stamp, me: &Stamp) -> Option<Hazard> {
        if !(p.kind.writes() || me.kind.writes()) {
            return None;
        }
        if p.kind.atomic()
            && me.kind.atomic()
            && (p.block == me.block || (clock::wide(p.scope) && clock::wide(me.scope)))
        {
            // Atomics do not race. Volatile accesses are atomics, except between lanes of one
            // warp that count on running in lockstep (pre-Volta warp-synchronous code).
            let lanes = p.volatile
                && me.volatile
                && p.block == me.block
                && p.thread != me.thread
                && p.thread as u32 / self.warp_size == me.thread as u32 / self.warp_size;
            return (lanes && !self.ordered(p, me)).then_some(Hazard::Warp);
        }
        (!self.ordered(p, me)).then_some(Hazard::Race)
    }
}

/// Applies `me` to one record; returns the access it races with, if any (a race before a
/// warp hazard, the lowest thread's when several do).
fn update(r: &mut Record, me: Stamp, v: &Judge<'_>) -> Option<(Stamp, Hazard)> {
    let mut hazard: Option<(Stamp, Hazard)> = None;
    let mut consider = |p: Option<Stamp>| {
        if let Some(p) = p {
            if let Some(k) = v.races(&p, &me) {
                let better = hazard.is_none_or(|(h, hk)| {
                    (k == Hazard::Race && hk == Hazard::Warp) || (k == hk && (p.block, p.thread) < (h.block, h.thread))
                });
                if better {
                    hazard = Some((p, k));
                }
            }
        }
    };
    consider(r.write);
    r.reads.iter().for_each(|s| consider(*s));
    r.atomics.iter().for_each(|s| consider(*s));
    // Keep at most two stamps, by different threads, that a later access could race with: one
    // this access supersedes (same thread, or ordered before it: FastTrack's argument, a later
    // access concurrent with the old one is concurrent with this one too) makes room; among
    // concurrent ones, the lowest threads are kept, so that the pairs found, and the lowest of
    // them that a report names, do not depend on the order the threads ran in.
    let key = |s: &Stamp| (s.block, s.thread);
    let stale =
        |s: Option<Stamp>| s.is_none_or(|s| (s.thread == me.thread && s.block == me.block) || v.ordered(&s, &me));
    let keep = |slots: &mut [Option<Stamp>; 2]| {
        if stale(slots[0]) {
            slots[0] = Some(me);
        } else if stale(slots[1]) {
            slots[1] = Some(me);
        } else if let (Some(a), Some(b)) = (slots[0], slots[1]) {
            let high = if key(&a) > key(&b) { 0 } else { 1 };
            if slots[high].is_some_and(|h| key(&me) < key(&h)) {
                slots[high] = Some(me);
            }
        }
    };
    match me.kind {
        // A write racing with a lower thread's write leaves that one (and the reads it raced
        // with) in place; otherwise it supersedes everything.
        Kind::Write => {
            let lower = r.write.is_some_and(|w| !stale(Some(w)) && key(&w) < key(&me));
            if !lower {
                *r = Record { write: Some(me), ..Record::default() };
            }
        }
        Kind::Read => keep(&mut r.reads),
        Kind::AtomicRead | Kind::AtomicWrite => keep(&mut r.atomics),
    }
    hazard
}

/// The per-worker state of racecheck: the shadow of the worker's shared memory (two cells per
/// byte of the arena, of which each access uses those of its alignment units; cleared, as far
/// as the block touched them, when the next block of the arena first accesses them), the
/// clocks of the block's threads, and the release clocks of the block's shared-memory atomics.
#[derive(Debug, Default)]
pub(crate) struct SharedRaceShadow {
    cells: RefCell<Vec<[u64; 2]>>,
    side: RefCell<cells::Side>,
    /// The block run whose accesses the cells hold, and the end of the cells it touched.
    owner: std::cell::Cell<u64>,
    touched: std::cell::Cell<usize>,
    clocks: RefCell<BlockClocks>,
    /// Release clocks of shared locations (by byte offset), for the block run `.0`.
    syncs: RefCell<(u64, clock::HashMap<usize, SyncClock>)>,
    /// The block's warp-synchronous hazards waiting to be confirmed: a volatile write of the
    /// location (address) after the reading lane's unordered volatile read, kept until the
    /// block ends unless that lane reads the location again (a spin that retries: see
    /// [`warp_hazard`]).
    pending: RefCell<HashMap<(usize, u16), Pending>>,
}

/// A warp-synchronous hazard waiting for the block's end ([`SharedRaceShadow::pending`]).
#[derive(Debug)]
struct Pending {
    first: Stamp,
    second: Stamp,
    what: (String, usize, String),
}

impl cells::SideTable for SharedRaceShadow {
    type Guard<'a> = std::cell::RefMut<'a, cells::Side>;
    fn get(&self) -> Self::Guard<'_> {
        self.side.borrow_mut()
    }
    fn grow(&self, _: usize) -> Result<(), crate::host::report::error::Error> {
        Ok(())
    }
    fn what(&self) -> String {
        "racecheck's out-of-line records of shared memory".to_owned()
    }
}

impl SharedRaceShadow {
    /// Makes the cells hold the accesses of block run `serial` (an arena of `size` bytes):
    /// the first access of a new block clears what the last one touched.
    #[inline]
    fn enter(&self, serial: u64, size: usize) -> Result<(), crate::host::report::error::Error> {
        if self.owner.get() != serial {
            self.new_block(serial, size)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn new_block(&self, serial: u64, size: usize) -> Result<(), crate::host::report::error::Error> {
        let mut cells = self.cells.borrow_mut();
        if cells.len() < size {
            // The worker's cells count against racecheck's budget too (they are not reserved:
            // one arena's worth per worker).
            let bytes = size.saturating_mul(16);
            if bytes > global::budget()? {
                return Err(crate::host::alloc::error(
                    format!("racecheck's shadow of {size} bytes of shared memory (16 bytes per byte, past EMU_RACECHECK_SHADOW)"),
                    bytes,
                    "lower Config::max_shared_bytes, or run without EMU_CHECK=racecheck",
                ));
            }
            crate::host::alloc::try_resize(
                &mut cells,
                size,
                [0; 2],
                || format!("racecheck's shadow of {size} bytes of shared memory"),
                "lower Config::max_shared_bytes, or run without EMU_CHECK=racecheck",
            )?;
        }
        let end = self.touched.replace(0);
        cells[..end].iter_mut().for_each(|c| *c = [0; 2]);
        self.side.borrow_mut().clear();
        self.owner.set(serial);
        Ok(())
    }
}

/// An atomic access, as racecheck sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtomicAccess {
    /// It reads (a load, a read-modify-write).
    pub(crate) read: bool,
    /// It writes (a store, a read-modify-write).
    pub(crate) write: bool,
    /// Acquire or SeqCst (reads).
    pub(crate) acquire: bool,
    /// Release or SeqCst (writes).
    pub(crate) release: bool,
    /// SeqCst: a fence of its scope first.
    pub(crate) seq_cst: bool,
    pub(crate) scope: Scope,
    /// A volatile load or store (`volatile_load`, `volatile_store`).
    pub(crate) volatile: bool,
}

impl AtomicAccess {
    /// A read-modify-write (`atomic_add` and friends): relaxed, at device scope.
    pub(crate) const RMW: AtomicAccess = AtomicAccess {
        read: true,
        write: true,
        acquire: false,
        release: false,
        seq_cst: false,
        scope: Scope::Device,
        volatile: false,
    };

    /// An ordered or volatile load or store.
    pub(crate) fn ordered(a: crate::device::Ordered) -> Self {
        use core::sync::atomic::Ordering::{Acquire, Release, SeqCst};
        AtomicAccess {
            read: !a.write,
            write: a.write,
            acquire: matches!(a.order, Acquire | SeqCst),
            release: matches!(a.order, Release | SeqCst),
            seq_cst: a.order == SeqCst,
            scope: a.scope,
            volatile: a.volatile,
        }
    }
}

/// The running thread, brought up to date.
#[inline(always)]
fn me<S: Site>(block: &S, clocks: &mut BlockClocks) -> Me {
    let thread = block.current();
    let generation = block.generation();
    let warp_epoch = clocks.enter(
        block.serial(),
        generation,
        block.warp_syncs(),
        thread,
        || block.linear_index(),
        || block.warp_size(),
        |w| block.warp_epoch(w * block.warp_size()),
    );
    Me { block: clocks.block(), thread, generation, warp_epoch }
}

/// The running thread's stamp for an access at `at`.
#[inline(always)]
fn stamp(
    me: Me,
    clocks: &BlockClocks,
    kind: Kind,
    scope: Scope,
    volatile: bool,
    at: &'static Location<'static>,
) -> Stamp {
    Stamp {
        block: me.block as u32,
        thread: me.thread as u16,
        state: 0,
        generation: me.generation,
        warp_epoch: me.warp_epoch,
        clock: clocks.clock(me.thread),
        cluster: clocks.cluster(me.thread),
        kind,
        scope,
        volatile,
        at,
    }
}

/// Whether an access is a volatile one that does not synchronise: a volatile load, or a
/// volatile store by a thread that has not fenced (a store after `thread_fence*()` publishes,
/// as the flag of a message-passing idiom does).
#[inline(always)]
fn plain_volatile(atomic: Option<AtomicAccess>, clocks: &BlockClocks, me: Me) -> bool {
    atomic.is_some_and(|a| a.volatile && !(a.write && (a.release || clocks.fenced(me.thread))))
}

/// Reports the race (or warp-synchronous hazard) between `first` and the running thread's
/// access `second`.
#[cold]
#[inline(never)]
fn report<S: Site>(
    block: &S,
    (first, hazard): (Stamp, Hazard),
    second: Stamp,
    (name, index, element): (String, usize, String),
) {
    let warp = hazard == Hazard::Warp;
    // A warp hazard's accesses are volatile loads and stores: named as reads and writes.
    let access = |k: Kind| match k {
        Kind::AtomicRead if warp => Access::Read,
        Kind::AtomicWrite if warp => Access::Write,
        k => k.access(),
    };
    block.note(Finding::Race {
        warp_synchronous: warp,
        first: access(first.kind),
        first_at: SourceLocation::from(first.at),
        first_thread: block.thread_index(first.thread as u32),
        first_block: block.block_of(first.block as u64),
        second: access(second.kind),
        second_at: SourceLocation::from(second.at),
        // The later access's thread (a warp hazard is reported when the block ends).
        thread: block.thread_index(second.thread as u32),
        block: block.block_idx(),
        name,
        index,
        element,
        count: 1,
    });
}

#[cold]
#[inline(never)]
fn states_full() -> crate::host::report::error::Error {
    crate::host::alloc::error(
        format!("racecheck's table of access states (full at {} states)", states::CAPACITY),
        states::CAPACITY * std::mem::size_of::<states::State>(),
        "run EMU_CHECK=racecheck on a smaller launch (fewer barriers, atomics or access sites per thread)",
    )
}

/// Checks and records an access `kind` of element `i` of the global view `view` by the running
/// thread (the launch keeps a race shadow for its buffer); an atomic also synchronises.
#[inline(always)]
fn global<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    kind: Kind,
    atomic: Option<AtomicAccess>,
    at: &'static Location<'static>,
    during: &mut dyn FnMut(),
) {
    // SAFETY: the launch keeps the views' descriptions (and their shadows) alive while its
    // kernel runs.
    let Some(meta) = (unsafe { view.meta().as_ref() }) else { return };
    let Some(shadow) = shadow_of(meta) else { return };
    shadow.enter_launch(block.launch_serial());
    let race = block.shared().race;
    let mut clocks = race.clocks.borrow_mut();
    let me = me(block, &mut clocks);
    let scope = atomic.map_or(Scope::Device, |a| a.scope);
    if let Some(a) = atomic {
        if a.seq_cst {
            clocks.fence(me, a.scope);
        }
    }
    let volatile = plain_volatile(atomic, &clocks, me);
    let mut s = stamp(me, &clocks, kind, scope, volatile, at);
    let state = states::State {
        generation: s.generation,
        warp_epoch: s.warp_epoch,
        clock: s.clock,
        cluster: s.cluster,
        scope,
        volatile: s.volatile,
        at,
    };
    s.state = match clocks.states.intern(state) {
        Some(id) => id,
        None => {
            drop(clocks);
            block.host_failure(states_full())
        }
    };
    let me_cell = cells::cell(&s);
    let size = core::mem::size_of::<T>();
    let address = view.raw_ptr() as usize + i * size;
    let mut hazard: Option<(Stamp, Hazard)> = None;
    let mut failed = None;
    {
        let v = || Judge { clocks: &clocks, warp_size: block.warp_size(), cluster: false };
        for u in meta.granules(address, size) {
            let rec = match shadow.record(u) {
                Ok(r) => r,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let mut l = rec.lock(shadow.busy(u));
            let (write, other) = l.cells();
            if cells::fast(write, other, me_cell, kind, s.generation) {
                continue;
            }
            match cells::slow(shadow, write, other, s, &v()) {
                Ok(h) => hazard = hazard.or(h),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = failed {
        drop(clocks);
        block.host_failure(e);
    }
    if let Some(a) = atomic {
        let key = meta.granules(address, size).start;
        let mut syncs = shadow.syncs(key);
        during();
        if a.read {
            if let Some(sync) = syncs.get(&key) {
                clocks.atomic_read(me, sync, a.scope, a.acquire);
            }
        }
        if a.write {
            clocks.atomic_write(me, syncs.entry(key).or_default(), a.scope, a.release, a.read);
        }
    }
    drop(clocks);
    if s.volatile || hazard.is_some_and(|(_, k)| k == Hazard::Warp) {
        hazard = warp_hazard(block, address, hazard, s, || (describe(meta), i, meta.element(address, size)));
    }
    if let Some(h) = hazard {
        report(block, h, s, (describe(meta), i, meta.element(address, size)));
    }
}

/// The shared memory an access touches: the shadow of the arena it lies in (the running
/// block's, or with distributed shared memory another block's of its cluster), the serial of
/// the block run that arena serves, and the arena's size in bytes.
#[derive(Clone, Copy)]
struct Arena<'a> {
    race: &'a SharedRaceShadow,
    serial: u64,
    size: usize,
}

/// Checks and records an access by the running thread to `size` bytes at `start` of the
/// shared memory of `arena` (byte offsets in the arena), in the records of its `granule`-byte
/// units (the alignment of the element type: the record of a unit is that of its first
/// byte); an atomic also synchronises.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn shared<S: Site>(
    block: &S,
    arena: Arena<'_>,
    start: usize,
    size: usize,
    granule: usize,
    kind: Kind,
    atomic: Option<AtomicAccess>,
    at: &'static Location<'static>,
    during: &mut dyn FnMut(),
    what: impl Fn() -> (String, usize, String),
) {
    let owner = arena.race;
    if let Err(e) = owner.enter(arena.serial, arena.size.max(start + size)) {
        block.host_failure(e);
    }
    let race = block.shared().race;
    let mut clocks = race.clocks.borrow_mut();
    let me = me(block, &mut clocks);
    let scope = atomic.map_or(Scope::Block, |a| a.scope);
    if let Some(a) = atomic {
        if a.seq_cst {
            clocks.fence(me, a.scope);
        }
    }
    let volatile = plain_volatile(atomic, &clocks, me);
    let mut s = stamp(me, &clocks, kind, scope, volatile, at);
    let state = states::State {
        generation: s.generation,
        warp_epoch: s.warp_epoch,
        clock: s.clock,
        cluster: s.cluster,
        scope,
        volatile: s.volatile,
        at,
    };
    s.state = match clocks.states.intern(state) {
        Some(id) => id,
        None => {
            drop(clocks);
            block.host_failure(states_full())
        }
    };
    let me_cell = cells::cell(&s);
    let mut hazard: Option<(Stamp, Hazard)> = None;
    let mut failed = None;
    {
        if owner.touched.get() < start + size {
            owner.touched.set(start + size);
        }
        let v = || Judge { clocks: &clocks, warp_size: block.warp_size(), cluster: true };
        let mut records = owner.cells.borrow_mut();
        let records = &mut records[start..start + size];
        let mut off = 0;
        while off < size {
            let [write, other] = &mut records[off];
            off += granule.max(1);
            if cells::fast(write, other, me_cell, kind, s.generation) {
                continue;
            }
            match cells::slow(owner, write, other, s, &v()) {
                Ok(h) => hazard = hazard.or(h),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = failed {
        drop(clocks);
        block.host_failure(e);
    }
    if let Some(a) = atomic {
        let mut syncs = owner.syncs.borrow_mut();
        if syncs.0 != arena.serial {
            syncs.0 = arena.serial;
            syncs.1.clear();
        }
        during();
        if a.read {
            if let Some(sync) = syncs.1.get(&start) {
                clocks.atomic_read(me, sync, a.scope, a.acquire);
            }
        }
        if a.write {
            clocks.atomic_write(me, syncs.1.entry(start).or_default(), a.scope, a.release, a.read);
        }
    }
    drop(clocks);
    if s.volatile || hazard.is_some_and(|(_, k)| k == Hazard::Warp) {
        // Keyed by the record's address: the arena's, offset.
        hazard = warp_hazard(block, owner as *const SharedRaceShadow as usize ^ (start << 1), hazard, s, &what);
    }
    if let Some(h) = hazard {
        report(block, h, s, what());
    }
}

/// The warp-synchronous part of an access `me` to the location keyed `at` (the module's doc,
/// "Warp-synchronous hazards"): a volatile read confirms that its lane retries (it clears the
/// hazard a write of another lane made pending against its earlier read), and a read after
/// another lane's unordered write has observed it (the emulator's reads see the latest write);
/// a write after another lane's unordered read is kept pending until the block ends. Returns
/// what to report now: a data race, never a warp hazard.
#[cold]
#[inline(never)]
fn warp_hazard<S: Site>(
    block: &S,
    at: usize,
    hazard: Option<(Stamp, Hazard)>,
    me: Stamp,
    what: impl Fn() -> (String, usize, String),
) -> Option<(Stamp, Hazard)> {
    let race = block.shared().race;
    let mut pending = race.pending.borrow_mut();
    if !me.kind.writes() && !pending.is_empty() {
        pending.remove(&(at, me.thread));
    }
    match hazard {
        Some((first, Hazard::Warp)) => {
            if me.kind.writes() && !first.kind.writes() {
                pending.entry((at, first.thread)).or_insert_with(|| Pending { first, second: me, what: what() });
            } else if me.kind.writes() {
                // Two lanes' unordered volatile writes: nothing retries that.
                drop(pending);
                return Some((first, Hazard::Warp));
            }
            None
        }
        h => h,
    }
}

/// The block ends: its warp-synchronous hazards still pending are reported (in the order of
/// their lines).
pub(crate) fn on_block_end<S: Site>(block: &S) {
    let race = block.shared().race;
    let mut pending: Vec<Pending> = race.pending.borrow_mut().drain().map(|(_, p)| p).collect();
    pending.sort_by_key(|p| (p.first.thread, p.second.thread, p.first.at.line(), p.second.at.line()));
    for p in pending {
        report(block, (p.first, Hazard::Warp), p.second, p.what);
    }
}

/// An access of element `i` of `view` by the running thread: a plain load (`write` false) or
/// store, or an atomic (`atomic`).
#[inline(always)]
fn access<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    kind: Kind,
    atomic: Option<AtomicAccess>,
    at: &'static Location<'static>,
    during: &mut dyn FnMut(),
) {
    match K::SPACE {
        crate::device::Space::Global => global(block, view, i, kind, atomic, at, during),
        crate::device::Space::Shared => {
            let size = core::mem::size_of::<T>();
            let own = block.shared();
            let address = view.raw_ptr() as usize + i * size;
            let (arena, start) = if address >= own.base && address + size <= own.base + own.size {
                (Arena { race: own.race, serial: block.serial(), size: own.size }, address - own.base)
            } else {
                // Another block's shared memory (a `map_shared_rank` view): its records.
                match block.shared_at(address) {
                    Some((peer, serial)) => (Arena { race: peer.race, serial, size: peer.size }, address - peer.base),
                    None => return,
                }
            };
            // Byte by byte: a `View::cast` makes views of one array overlap in any way (a
            // byte of a word), and shared memory keeps a record per byte anyway.
            shared(block, arena, start, size, 1, kind, atomic, at, during, || {
                // SAFETY: shared views point to descriptions kept by the block's arena.
                let meta = unsafe { view.meta().as_ref() };
                let address = view.raw_ptr() as usize + i * size;
                match meta {
                    Some(m) => (describe(m), i, m.element(address, size)),
                    None => ("shared memory".to_owned(), i, format!("element {i}")),
                }
            })
        }
    }
}

/// A plain load (`write` false) or store of element `i` of `view` by the running thread.
#[inline(always)]
pub(crate) fn on_plain<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    write: bool,
    at: &'static Location<'static>,
) {
    let kind = if write { Kind::Write } else { Kind::Read };
    if !fast_plain(block, view, i, kind, at) {
        general_plain(block, view, i, kind, at)
    }
}

#[inline(never)]
fn general_plain<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    kind: Kind,
    at: &'static Location<'static>,
) {
    access(block, view, i, kind, None, at, &mut || {})
}

/// The common case of a plain access, decided with no lock but a global record's: an element
/// of one alignment unit, the clocks up to date for the running thread (the same block run,
/// barrier generation and warp syncs as at its block's last checked access), its state in the
/// worker's cache, a record already set up (its shared arena entered for the block, or its
/// global page reserved for the launch), and the record's accesses all superseded by this one
/// (`cells::fast`). Applies the access and returns true, or returns false having changed
/// nothing (then `access` decides, in full).
#[inline(always)]
fn fast_plain<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    kind: Kind,
    at: &'static Location<'static>,
) -> bool {
    let size = core::mem::size_of::<T>();
    // A zero-sized element has no record (the general path touches none); a wider element
    // than its alignment has several.
    if size == 0 || core::mem::align_of::<T>() < size {
        return false;
    }
    let own = block.shared();
    let race = own.race;
    let serial = block.serial();
    let address = view.raw_ptr() as usize + i * size;
    let thread = block.current();
    let generation = block.generation();
    let Ok(mut clocks) = race.clocks.try_borrow_mut() else { return false };
    let Some((clock, cluster, warp_epoch)) = clocks.current(serial, generation, block.warp_syncs(), thread) else {
        return false;
    };
    let linear = clocks.block();
    let scope = if K::SPACE == crate::device::Space::Global { Scope::Device } else { Scope::Block };
    let state = states::State { generation, warp_epoch, clock, cluster, scope, volatile: false, at };
    let Some(id) = clocks.states.intern(state) else { return false };
    let generations = clocks.states.generations();
    drop(clocks);
    let me = cells::cell_of(kind, linear, thread, id);
    match K::SPACE {
        crate::device::Space::Shared => {
            if race.owner.get() != serial || address < own.base || address + size > own.base + own.size {
                return false;
            }
            let start = address - own.base;
            let Ok(mut records) = race.cells.try_borrow_mut() else { return false };
            let Some(bytes) = records.get_mut(start..start + size) else { return false };
            // Each byte's record (see `access`). Usually they are the same (one access of
            // the same type wrote or read them all), and decided once; a record the fast path
            // cannot decide sends the whole access to `access`, which applies it again to
            // those already done (the thread's own access supersedes itself).
            let first = bytes[0];
            if bytes[1..].iter().all(|r| *r == first) {
                let [mut write, mut other] = first;
                if !cells::fast_with(generations, &mut write, &mut other, me, kind, generation) {
                    return false;
                }
                bytes.iter_mut().for_each(|r| *r = [write, other]);
            } else {
                for [write, other] in bytes {
                    if !cells::fast_with(generations, write, other, me, kind, generation) {
                        return false;
                    }
                }
            }
            if race.touched.get() < start + size {
                race.touched.set(start + size);
            }
            true
        }
        crate::device::Space::Global => {
            // SAFETY: the launch keeps the views' descriptions (and their shadows) alive while
            // its kernel runs.
            let Some(meta) = (unsafe { view.meta().as_ref() }) else { return true };
            let Some(shadow) = shadow_of(meta) else { return true };
            if !shadow.holds(block.launch_serial()) {
                return false;
            }
            // One record per element (`size` is a constant: no division).
            if meta.granule != size {
                return false;
            }
            let u = (address - meta.base) / size;
            let Some(rec) = shadow.reserved_record(u) else { return false };
            // A record another host thread holds: `access` waits for it.
            let Some(mut l) = rec.try_lock(shadow.busy(u)) else { return false };
            let (write, other) = l.cells();
            cells::fast_with(generations, write, other, me, kind, generation)
        }
    }
}

/// One access site of a chunk of a vectorised lane loop: lane `k < m`, thread `c0 + k` of the
/// running block, makes a plain read (`write` false) or write of element `start + k` of `view`
/// (in bounds) at `at`. The common case of [`fast_plain`] is decided for the chunk's lanes
/// together (`fast_lanes`: one look at the block's clocks, one state, the records' pages
/// reserved once); each lane it leaves goes through `slow(k)`, the per-access path with lane
/// `k` as the running thread. The lanes touch distinct records (one element each), so the
/// order in which they are checked changes no verdict.
#[allow(clippy::too_many_arguments)]
pub(crate) fn on_lanes<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    start: usize,
    c0: u32,
    m: usize,
    write: bool,
    at: &'static Location<'static>,
    slow: &mut dyn FnMut(usize),
) {
    let kind = if write { Kind::Write } else { Kind::Read };
    let mut k0 = 0;
    while k0 < m {
        let n = (m - k0).min(LANES);
        let done = fast_lanes(block, view, start + k0, c0 + k0 as u32, n, kind, at);
        for (word, bits) in done.iter().enumerate().take(n.div_ceil(64)) {
            // The lanes of this word it left, lowest first.
            let lanes = (n - word * 64).min(64);
            let mut left = !bits & (u64::MAX >> (64 - lanes));
            while left != 0 {
                slow(k0 + word * 64 + left.trailing_zeros() as usize);
                left &= left - 1;
            }
        }
        k0 += n;
    }
}

/// Lanes [`fast_lanes`] decides at a time.
const LANES: usize = 256;

/// [`fast_plain`] for `n <= LANES` lanes of a lane loop's chunk (thread `c0 + k` accesses
/// element `start + k`): the bits of the lanes it decided (and applied). It takes the lanes of
/// a one-unit element of global memory whose clocks are up to date and alike (a lane loop has
/// no barrier, fence or atomic), the records' pages reserved, each record free and superseded
/// (`cells::fast_with`); the rest is left to the caller.
#[inline(never)]
fn fast_lanes<S: Site, T, K: ViewKind>(
    block: &S,
    view: &View<T, K>,
    start: usize,
    c0: u32,
    n: usize,
    kind: Kind,
    at: &'static Location<'static>,
) -> [u64; LANES / 64] {
    let mut done = [0u64; LANES / 64];
    let size = core::mem::size_of::<T>();
    if n == 0 || K::SPACE != crate::device::Space::Global || size == 0 || core::mem::align_of::<T>() < size {
        return done;
    }
    // SAFETY: the launch keeps the views' descriptions (and their shadows) alive while its
    // kernel runs.
    let Some(meta) = (unsafe { view.meta().as_ref() }) else { return [u64::MAX; LANES / 64] };
    let Some(shadow) = shadow_of(meta) else { return [u64::MAX; LANES / 64] };
    let address = view.raw_ptr() as usize + start * size;
    if meta.granule != size || address < meta.base || (address - meta.base) % size != 0 {
        return done;
    }
    shadow.enter_launch(block.launch_serial());
    let first = (address - meta.base) / size;
    let race = block.shared().race;
    let Ok(mut clocks) = race.clocks.try_borrow_mut() else { return done };
    let (serial, generation, warp_syncs) = (block.serial(), block.generation(), block.warp_syncs());
    // What each lane's first access would do: bring the clocks to the block run, its barrier
    // generation and warp syncs, for threads up to the chunk's last.
    let last = c0 + n as u32 - 1;
    clocks.enter(
        serial,
        generation,
        warp_syncs,
        last,
        || block.linear_index(),
        || block.warp_size(),
        |w| block.warp_epoch(w * block.warp_size()),
    );
    let Some((clock, cluster, warp_epoch)) = clocks.current_lanes(serial, generation, warp_syncs, c0, n) else {
        return done;
    };
    let linear = clocks.block();
    let state = states::State { generation, warp_epoch, clock, cluster, scope: Scope::Device, volatile: false, at };
    let Some(id) = clocks.states.intern(state) else { return done };
    let generations = clocks.states.generations();
    drop(clocks);
    let me0 = cells::cell_of(kind, linear, c0, id);
    // A page's first touch in the launch, by a chunk that covers it whole: every record is
    // empty for the launch, so each lane's access is its only one, written without reading or
    // zeroing what the page held (`GlobalRaceShadow::fill_page`).
    let fresh = |k: usize| {
        let me = me0 + ((k as u64) << cells::THREAD_SHIFT);
        if kind == Kind::Write {
            (me, 0)
        } else {
            (0, me)
        }
    };
    if shadow.fill_page(first, n, fresh) {
        return [u64::MAX; LANES / 64];
    }
    let Some(Ok(records)) = shadow.records_run(first, n) else { return done };
    // Under the pages' locks, with no locked instruction per record read (a large shadow).
    if let Some(pages) = shadow.lock_pages(first, n) {
        for (word, bits) in done.iter_mut().enumerate().take(n.div_ceil(64)) {
            let mut applied = 0u64;
            for k in word * 64..n.min(word * 64 + 64) {
                let Some((w0, o0)) = pages.peek(k) else { continue };
                // Lane `k`'s cell: the thread field plus `k` (no carry: `c0 + k` fits it).
                let me = me0 + ((k as u64) << cells::THREAD_SHIFT);
                let (mut w, mut o) = (w0, o0);
                if cells::fast_with(generations, &mut w, &mut o, me, kind, generation) {
                    pages.put(k, w0, w, o);
                    applied |= 1 << (k % 64);
                }
            }
            *bits = applied;
        }
        return done;
    }
    for (k, rec) in records.iter().enumerate() {
        let me = cells::cell_of(kind, linear, c0 + k as u32, id);
        // A record another host thread holds: the per-access path waits for it.
        let Some(mut l) = rec.try_lock(shadow.busy(first + k)) else { continue };
        let (write, other) = l.cells();
        if cells::fast_with(generations, write, other, me, kind, generation) {
            done[k / 64] |= 1 << (k % 64);
        }
    }
    done
}

/// An atomic access `a` of element `i` of `view` by the running thread, `op`: it runs while
/// the location's release clock is locked, so that the order in which atomics of one location
/// read and write that clock is the order of `op`s, the accesses themselves. (Run before or
/// after, with blocks on several host threads, a last block's `atomic_inc` could return the
/// last ticket while its look at the clock had missed another block's increment.) Returns
/// what `op` does.
pub(crate) fn on_atomic<S: Site, T, K: ViewKind, R>(
    block: &S,
    view: &View<T, K>,
    i: usize,
    a: AtomicAccess,
    at: &'static Location<'static>,
    op: impl FnOnce() -> R,
) -> R {
    let kind = if a.write { Kind::AtomicWrite } else { Kind::AtomicRead };
    let mut op = Some(op);
    let mut out = None;
    access(block, view, i, kind, Some(a), at, &mut || {
        if let Some(op) = op.take() {
            out = Some(op());
        }
    });
    // An access with no record (a view with no shadow) did not run it.
    match (out, op) {
        (Some(r), _) => r,
        (None, Some(op)) => op(),
        (None, None) => unreachable!("`op` ran and gave its result"),
    }
}

/// `this_cluster().sync()` by the running thread, before it waits.
pub(crate) fn on_cluster_sync<S: Site>(block: &S) {
    let race = block.shared().race;
    let mut clocks = race.clocks.borrow_mut();
    let me = me(block, &mut clocks);
    clocks.cluster_sync(me.thread);
}

/// `thread_fence()` (device scope) or `thread_fence_block()` by the running thread.
pub(crate) fn on_fence<S: Site>(block: &S, scope: Scope) {
    let race = block.shared().race;
    let mut clocks = race.clocks.borrow_mut();
    let me = me(block, &mut clocks);
    clocks.fence(me, scope);
}
