//! racecheck: hazards in shared and global memory, two threads touching the same location with
//! nothing ordering them, at least one of them writing.
//!
//! # Definition
//!
//! Threads of a block may only communicate through memory across a `sync_threads` (or, within a
//! warp, a `sync_warp`); threads of different blocks of one launch not at all, except through
//! atomics. A write by one thread and a read or write of the same location by another, with no
//! such barrier between them, is a data race: on a GPU its outcome depends on timing.
//! compute-sanitizer's racecheck reports it, for shared memory, as `Race reported between
//! Write access at ... and Read access at ...`; deviceemu also watches global memory.
//!
//! # Algorithm
//!
//! Barrier epochs, after the shadow-memory checkers of compute-sanitizer and of
//! GPUVerify-style tools: every access is stamped with its block, the block's barrier
//! generation (the number of `sync_threads` it completed) and its warp's `sync_warp` count.
//! Two accesses are ordered when they come from the same thread, or from one block and
//! different generations, or from one warp with a `sync_warp` between them; otherwise they are
//! concurrent (accesses of different blocks always are).
//!
//! Each byte of the block's shared memory, and each element of a global buffer (for the
//! launch: a fresh shadow per launch; a `#[device_global]` static keeps one, whose records
//! from other launches count as empty; behind a lock per element since blocks run in
//! parallel), keeps its last write and up to two reads by different threads since that write. A read is checked against the write, a write against
//! the write and the reads; a concurrent pair is a hazard. Hazards are reported once per block
//! and pair of lines, with a count. Since the verdict compares epochs, not the order the
//! emulator happened to run the threads in, it is the same for every `EMU_SEED` (the report
//! may name the pair in either order).
//!
//! # Limits
//!
//! * Atomics are neither checked nor recorded, and fences do not order anything here: a flag
//!   protocol between blocks through plain loads and stores is reported.
//! * A global buffer's shadow takes about 130 bytes per element during a checked launch; a
//!   shadow the host cannot allocate (or larger than its memory) makes the launch return error 2
//!   before it runs.
//! * Which pair of threads a cross-block race names depends on the order blocks ran in (the
//!   race is found either way).
//! * A `sync_warp` orders all lanes of its warp, whatever its mask; a reader beyond the third
//!   thread since the last write is forgotten (a write racing with only that one is missed).

use std::cell::RefCell;
use std::panic::Location;

use crate::device::{View, ViewKind};
use crate::host::check::Site;
use crate::host::report::{Access, Finding, SourceLocation};

/// One access, stamped.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    /// Which block run of the worker made it (older shared-memory stamps are from earlier
    /// blocks).
    block_serial: u64,
    /// The launch that made it (the shadow of a `#[device_global]` outlives launches).
    launch: u64,
    /// The block's linear index.
    block: u64,
    thread: u32,
    generation: u32,
    warp_epoch: u32,
    at: &'static Location<'static>,
}

/// The shadow of one byte of shared memory.
#[derive(Clone, Copy, Debug, Default)]
struct Byte {
    write: Option<Stamp>,
    reads: [Option<Stamp>; 2],
}

/// racecheck's shadow of a worker's shared memory, one record per byte. Records from earlier
/// blocks are recognised by their serial and count as empty, so nothing is cleared between
/// blocks.
#[derive(Debug, Default)]
pub(crate) struct SharedRaceShadow {
    bytes: RefCell<Vec<Byte>>,
}

/// Whether `a` and `b` may happen at the same time (different threads, no barrier between).
fn concurrent(a: &Stamp, b: &Stamp, warp_size: u32) -> bool {
    a.block != b.block
        || (a.thread != b.thread
            && a.generation == b.generation
            && !(a.thread / warp_size == b.thread / warp_size && a.warp_epoch != b.warp_epoch))
}

/// The shadow of a global buffer during one checked launch: one record per alignment unit of
/// its element type (per element for scalars).
#[derive(Debug)]
pub(crate) struct GlobalRaceShadow {
    elements: Box<[parking_lot::Mutex<Byte>]>,
    /// Why the records could not be allocated (then there are none, and the launch must not
    /// run: `__private::global` returns this).
    error: Option<crate::host::report::error::Error>,
}

impl GlobalRaceShadow {
    /// Records for `len` elements of the buffer `name`, none accessed yet; out of memory
    /// leaves none and an error for the launcher ([`GlobalRaceShadow::error`]).
    pub(crate) fn new(len: usize, name: &str) -> Self {
        match crate::host::alloc::try_slice(
            len,
            || parking_lot::Mutex::new(Byte::default()),
            || format!("racecheck's shadow of buffer `{name}` ({len} records)"),
            "run EMU_CHECK=racecheck on a smaller buffer (it keeps about 130 bytes per element)",
        ) {
            Ok(elements) => GlobalRaceShadow { elements, error: None },
            Err(e) => GlobalRaceShadow { elements: Box::new([]), error: Some(e) },
        }
    }

    /// Why the shadow could not be allocated, if it could not.
    pub(crate) fn error(&self) -> Option<&crate::host::report::error::Error> {
        self.error.as_ref()
    }
}

/// Applies an access stamped `me` to one record; returns the access it races with, if any.
fn update(b: &mut Byte, me: Stamp, write: bool, ws: u32, live: impl Fn(&Option<Stamp>) -> Option<Stamp>) -> Option<(Stamp, Access)> {
    let mut hazard = None;
    if let Some(w) = live(&b.write) {
        if concurrent(&w, &me, ws) {
            hazard = Some((w, Access::Write));
        }
    }
    if write {
        for r in b.reads.iter().filter_map(&live) {
            if concurrent(&r, &me, ws) {
                hazard = hazard.or(Some((r, Access::Read)));
            }
        }
        *b = Byte { write: Some(me), reads: [None, None] };
    } else {
        // Keep at most two reads, by different threads, that a later write could race with: a
        // read this one supersedes (same thread, or ordered before it) makes room.
        let stale = |r: Option<Stamp>| r.is_none_or(|r| (r.thread == me.thread && r.block == me.block) || !concurrent(&r, &me, ws));
        if stale(live(&b.reads[0])) {
            b.reads[0] = Some(me);
        } else {
            b.reads[1] = Some(me);
        }
    }
    hazard
}

/// The running thread's stamp for an access at `at`.
fn stamp<S: Site>(block: &S, at: &'static Location<'static>) -> Stamp {
    let thread = block.current();
    Stamp {
        block_serial: block.serial(),
        launch: block.launch_serial(),
        block: block.linear_index(),
        thread,
        generation: block.generation(),
        warp_epoch: block.warp_epoch(thread),
        at,
    }
}

/// Reports the race between `first` and the running thread's access at `at`.
#[cold]
#[inline(never)]
fn report<S: Site>(block: &S, first: (Stamp, Access), write: bool, at: &'static Location<'static>, name: String, index: usize) {
    let (first, kind) = first;
    block.note(Finding::Race {
        first: kind,
        first_at: SourceLocation::from(first.at),
        first_thread: block.thread_index(first.thread),
        first_block: block.block_of(first.block),
        second: if write { Access::Write } else { Access::Read },
        second_at: SourceLocation::from(at),
        thread: block.thread(),
        block: block.block_idx(),
        name,
        index,
        count: 1,
    });
}

/// A load (`write` false) or store of element `i` of the global view `view` by the running
/// thread, when the launch keeps a race shadow for its buffer.
pub(crate) fn on_global<S: Site, T, K: ViewKind>(block: &S, view: &View<T, K>, i: usize, write: bool, at: &'static Location<'static>) {
    // SAFETY: the launch keeps the views' descriptions (and their shadows) alive while its
    // kernel runs.
    let Some(meta) = (unsafe { view.meta().as_ref() }) else { return };
    let Some(shadow) = meta.race.as_deref() else { return };
    let ws = block.warp_size();
    let me = stamp(block, at);
    let size = core::mem::size_of::<T>();
    let mut hazard = None;
    for u in meta.granules(view.raw_ptr() as usize + i * size, size) {
        // Records of earlier launches (a `#[device_global]`'s shadow is kept) count as empty.
        let h = update(&mut shadow.elements[u].lock(), me, write, ws, |s| s.filter(|s| s.launch == me.launch));
        hazard = hazard.or(h);
    }
    if let Some(h) = hazard {
        report(block, h, write, at, crate::host::check::memcheck::describe(meta), i);
    }
}

/// Records an access by the running thread to `size` bytes at `start` of the block's shared
/// memory (byte offsets in the arena), and reports the hazards it completes.
fn access<S: Site>(block: &S, start: usize, size: usize, write: bool, at: &'static Location<'static>, what: impl Fn() -> (String, usize)) {
    let shared = block.shared();
    let mut bytes = shared.race.bytes.borrow_mut();
    if bytes.len() < start + size {
        let len = shared.size.max(start + size);
        if let Err(e) = crate::host::alloc::try_resize(
            &mut bytes,
            len,
            Byte::default(),
            || format!("racecheck's shadow of {len} bytes of shared memory"),
            "lower Config::max_shared_bytes, or run without EMU_CHECK=racecheck",
        ) {
            drop(bytes);
            block.host_failure(e);
        }
    }
    let ws = block.warp_size();
    let me = stamp(block, at);
    let live = |s: &Option<Stamp>| s.filter(|s| s.block_serial == me.block_serial);
    let mut hazard: Option<(Stamp, Access)> = None;
    for b in &mut bytes[start..start + size] {
        let h = update(b, me, write, ws, live);
        hazard = hazard.or(h);
    }
    drop(bytes);
    if let Some(h) = hazard {
        let (name, index) = what();
        report(block, h, write, at, name, index);
    }
}

/// A load (`write` false) or store of element `i` of the shared view `view` by the running
/// thread.
pub(crate) fn on_shared<S: Site, T, K: ViewKind>(block: &S, view: &View<T, K>, i: usize, write: bool, at: &'static Location<'static>) {
    let size = core::mem::size_of::<T>();
    let start = view.raw_ptr() as usize + i * size - block.shared().base;
    access(block, start, size, write, at, || {
        // SAFETY: shared views point to descriptions kept by the block's arena.
        let meta = unsafe { view.meta().as_ref() };
        (meta.map_or_else(|| "shared memory".to_owned(), crate::host::check::memcheck::describe), i)
    });
}
