//! racecheck: shared-memory hazards, two threads of a block touching the same byte with no
//! barrier between them, at least one of them writing.
//!
//! # Definition
//!
//! Threads of a block may only communicate through shared memory across a `sync_threads` (or,
//! within a warp, a `sync_warp`). A write by one thread and a read or write of the same byte
//! by another, with no such barrier between them, is a data race: on a GPU its outcome depends
//! on timing. compute-sanitizer's racecheck reports it as `Race reported between Write access
//! at ... and Read access at ...`.
//!
//! # Algorithm
//!
//! Barrier epochs, after the shadow-memory checkers of compute-sanitizer and of
//! GPUVerify-style tools: every access is stamped with the block's barrier generation (the
//! number of `sync_threads` it completed) and its warp's `sync_warp` count. Two accesses are
//! ordered when they come from the same thread, from different generations, or from one warp
//! with a `sync_warp` between them; otherwise they are concurrent.
//!
//! Each byte of the block's shared memory keeps its last write and up to two reads by
//! different threads since that write. A read is checked against the write, a write against
//! the write and the reads; a concurrent pair is a hazard. Hazards are reported once per block
//! and pair of lines, with a count. Since the verdict compares epochs, not the order the
//! emulator happened to run the threads in, it is the same for every `EMU_SEED` (the report
//! may name the pair in either order).
//!
//! # Limits
//!
//! * Shared memory only, like compute-sanitizer's racecheck; races on global memory are not
//!   reported.
//! * Atomics are neither checked nor recorded.
//! * A `sync_warp` orders all lanes of its warp, whatever its mask; a reader beyond the third
//!   thread since the last write is forgotten (a write racing with only that one is missed).

use std::cell::RefCell;
use std::panic::Location;

use crate::device::{View, ViewKind};
use crate::host::block::BlockRun;
use crate::host::report::{Access, Finding, SourceLocation};

/// One access, stamped.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    /// Which block run of the worker made it (older stamps are from earlier blocks).
    block_serial: u64,
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
    a.thread != b.thread
        && a.generation == b.generation
        && !(a.thread / warp_size == b.thread / warp_size && a.warp_epoch != b.warp_epoch)
}

/// Records an access by the running thread to `size` bytes at `start` of the block's shared
/// memory (byte offsets in the arena), and reports the hazards it completes.
fn access(block: &BlockRun<'_>, start: usize, size: usize, write: bool, at: &'static Location<'static>, what: impl Fn() -> (String, usize)) {
    let shadow = block.arena().race_shadow();
    let mut bytes = shadow.bytes.borrow_mut();
    if bytes.len() < start + size {
        bytes.resize(block.arena().size().max(start + size), Byte::default());
    }
    let ws = block.launch().config.get_warp_size().max(1);
    let thread = block.current();
    let me = Stamp {
        block_serial: block.serial(),
        thread,
        generation: block.generation.get(),
        warp_epoch: block.warp_epoch(thread),
        at,
    };
    let live = |s: &Option<Stamp>| s.filter(|s| s.block_serial == me.block_serial);
    let mut hazard: Option<(Stamp, Access)> = None;
    for b in &mut bytes[start..start + size] {
        if let Some(w) = live(&b.write) {
            if concurrent(&w, &me, ws) {
                hazard.get_or_insert((w, Access::Write));
            }
        }
        if write {
            for r in b.reads.iter().filter_map(live) {
                if concurrent(&r, &me, ws) {
                    hazard.get_or_insert((r, Access::Read));
                }
            }
            *b = Byte { write: Some(me), reads: [None, None] };
        } else {
            // Keep one read per thread, and at most two threads.
            let r0 = live(&b.reads[0]);
            if r0.is_none_or(|r| r.thread == thread) {
                b.reads[0] = Some(me);
            } else {
                b.reads[1] = Some(me);
            }
        }
    }
    drop(bytes);
    if let Some((first, kind)) = hazard {
        let (name, index) = what();
        block.note(Finding::Race {
            first: kind,
            first_at: SourceLocation::from(first.at),
            first_thread: block.launch().thread_index(first.thread),
            second: if write { Access::Write } else { Access::Read },
            second_at: SourceLocation::from(at),
            thread: block.thread(),
            block: block.block_idx(),
            name,
            index,
            count: 1,
        });
    }
}

/// A load (`write` false) or store of element `i` of the shared view `view` by the running
/// thread.
pub(crate) fn on_shared<T, K: ViewKind>(block: &BlockRun<'_>, view: &View<T, K>, i: usize, write: bool, at: &'static Location<'static>) {
    let size = core::mem::size_of::<T>();
    let start = view.raw_ptr() as usize + i * size - block.arena().base();
    access(block, start, size, write, at, || {
        // SAFETY: shared views point to descriptions kept by the block's arena.
        let meta = unsafe { view.meta().as_ref() };
        (meta.map_or_else(|| "shared memory".to_owned(), crate::host::memory::describe), i)
    });
}
