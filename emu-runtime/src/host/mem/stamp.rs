//! Stamps that tie a view of shared memory to the block that made it.
//!
//! A shared array lives as long as its block. Rust's lifetimes cannot say so for views made in
//! any function (`dynamic_shared()` may be called from a plain helper), so a view of shared
//! memory carries a *stamp*: the arena it points into and the arena's *epoch* when it was
//! made. Each arena holds a slot in a table of epochs that is never freed; the epoch moves on
//! when a block starts in the arena and when the arena is dropped, and every access through a
//! shared view compares the two ([`live`]) before it touches memory. A view kept past its block
//! (in a `static`, a `thread_local!`, a leaked box) is then reported at its next access as a
//! stale access (error 700), instead of reading or writing the next block's shared memory or,
//! after the launch, freed memory.
//!
//! A stamp is one `u64`: the slot in its top 16 bits, the epoch in the other 48 (2.8e14 blocks
//! per slot before an epoch could repeat). Slot 0 is never handed out and its epoch stays 0, so
//! the stamp 0, which every view of global memory carries, is always live. The check costs one
//! load from a table that stays in cache and one comparison per shared access on the general
//! path, and one per view and region run on the fast paths.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// How many arenas may be alive at once (workers, cooperative blocks, cluster blocks).
const SLOTS: usize = 1 << 16;
const EPOCH_BITS: u32 = 48;
const EPOCH_MASK: u64 = (1 << EPOCH_BITS) - 1;

/// The current epoch of each slot, at [`epoch_at`]. Never freed: a stale view reads its slot's
/// epoch here, and never its arena's memory.
static EPOCHS: Epochs = Epochs([const { AtomicU64::new(0) }; SLOTS]);

/// The table of epochs, aligned to the pair of cache lines that x86's prefetcher fetches
/// together.
#[repr(align(128))]
struct Epochs([AtomicU64; SLOTS]);

/// How many epochs share a line pair of [`Epochs`]: slots handed out one after another (the
/// workers' arenas) are that far apart in the table.
const STRIDE: usize = 128 / std::mem::size_of::<AtomicU64>();

/// Where slot `slot`'s epoch is: consecutive slots in different cache lines. Each worker moves
/// its arena's epoch on at every block it starts; side by side, two workers' epochs shared a
/// line, which went back and forth between their cores at every block (the block reduction on
/// two workers took 9 ms a launch in one build, 6 ms in another where the table happened to
/// straddle a line between slots 1 and 2). A bijection of `0..SLOTS`: `slot = q * (SLOTS /
/// STRIDE) + r` goes to `r * STRIDE + q`.
#[inline(always)]
fn epoch_at(slot: usize) -> &'static AtomicU64 {
    &EPOCHS.0[epoch_index(slot)]
}

/// The index of slot `slot`'s epoch in [`EPOCHS`] ([`epoch_at`]).
#[inline(always)]
const fn epoch_index(slot: usize) -> usize {
    const ROWS: usize = SLOTS / STRIDE;
    (slot % ROWS) * STRIDE + slot / ROWS
}

/// Slots free for new arenas (slot 0 excepted), and the next never-used one.
static FREE: Mutex<(Vec<u16>, u32)> = Mutex::new((Vec::new(), 1));

thread_local! {
    /// The stamp of the block whose barrier regions this host thread runs now ([`Running`]),
    /// or 0 (no shared view's stamp) when it runs none. While a block runs, its arena can
    /// neither move on (the next block starts in it only after this one ends) nor be dropped
    /// (its launch has not ended), so a view carrying this stamp is live without a look at the
    /// table: the check in a region's accesses is one thread-local load and a comparison.
    static RUNNING: Cell<u64> = const { Cell::new(0) };
    /// The bytes `[start, end)` of the arena of the block whose regions this host thread runs
    /// now, when no other host thread can touch them while it runs ([`Running::enter_alone`]),
    /// or an empty range.
    static ALONE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// Whether a view with stamp `stamp` may still be used: the stamp of global memory (0), or that
/// of a shared arena whose block is still the one that made the view.
#[inline(always)]
pub(crate) fn live(stamp: u64) -> bool {
    RUNNING.with(Cell::get) == stamp || epoch_at((stamp >> EPOCH_BITS) as usize).load(Relaxed) == stamp & EPOCH_MASK
}

/// Whether `stamp` is that of the block this host thread runs the barrier regions of now
/// ([`Running`]): a region's guard asks it once per view and region run, and the region's
/// accesses then need no look at the stamp.
#[inline(always)]
pub(crate) fn running(stamp: u64) -> bool {
    RUNNING.with(Cell::get) == stamp
}

/// Whether the element at address `p` is in the arena of the block this host thread runs
/// alone ([`Running::enter_alone`]): no other host thread reads or writes it until the guard
/// drops, so an atomic read-modify-write on it may be a relaxed load and store
/// (`host/mem/atomic.rs`, `rmw!`).
#[inline(always)]
pub(crate) fn alone(p: usize) -> bool {
    let (start, end) = ALONE.with(Cell::get);
    p >= start && p < end
}

/// While alive, this host thread runs a block whose arena's views carry `stamp` (see
/// [`RUNNING`]); the one it ran before (a child grid run inline, say) comes back on drop.
///
/// Made only by the region runner for the block it runs, on the thread that runs it, after
/// the block's arena moved on to it and before the block ends.
pub(crate) struct Running {
    before: u64,
    alone_before: (usize, usize),
}

impl Running {
    pub(crate) fn enter(stamp: u64) -> Running {
        Running { before: RUNNING.with(|r| r.replace(stamp)), alone_before: ALONE.with(|a| a.replace((0, 0))) }
    }

    /// [`Running::enter`], for a block whose arena, the `size` bytes at `base`, no other host
    /// thread touches while the guard lives: the caller runs every thread of the block on this
    /// host thread (barrier regions), and no other block can reach its shared memory (a launch
    /// without clusters, whose blocks cannot map each other's shared memory). A view of it that
    /// escaped to another host thread is stale there once the block ends, and cannot reach it
    /// before: shared views are neither `Send` nor `Sync`.
    pub(crate) fn enter_alone(stamp: u64, base: usize, size: usize) -> Running {
        Running {
            before: RUNNING.with(|r| r.replace(stamp)),
            alone_before: ALONE.with(|a| a.replace((base, base.saturating_add(size)))),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.before));
        ALONE.with(|a| a.set(self.alone_before));
    }
}

/// An arena's slot in the table of epochs: the stamp its views carry.
#[derive(Debug)]
pub(crate) struct Slot {
    slot: u16,
}

impl Slot {
    /// A free slot, its epoch moved on (views of its earlier arenas stay stale); `None` when
    /// `SLOTS - 1` arenas are alive.
    pub(crate) fn new() -> Option<Self> {
        let slot = {
            let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
            match free.0.pop() {
                Some(s) => s,
                None if (free.1 as usize) < SLOTS => {
                    free.1 += 1;
                    (free.1 - 1) as u16
                }
                None => return None,
            }
        };
        let s = Slot { slot };
        s.next_epoch();
        Some(s)
    }

    /// The stamp of views made now.
    #[inline(always)]
    pub(crate) fn stamp(&self) -> u64 {
        (self.slot as u64) << EPOCH_BITS | epoch_at(self.slot as usize).load(Relaxed)
    }

    /// A new block starts in the arena: the views of the one before are stale.
    #[inline]
    pub(crate) fn next_epoch(&self) {
        let e = epoch_at(self.slot as usize);
        // Never 0 (a fresh slot's value), so that no stamp of a live arena looks like a view of
        // an arena that was never made; wraps after 2^48 blocks.
        let next = (e.load(Relaxed) + 1) & EPOCH_MASK;
        e.store(next.max(1), Relaxed);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // The arena's memory goes: every view of it is stale from now on.
        self.next_epoch();
        FREE.lock().unwrap_or_else(|e| e.into_inner()).0.push(self.slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slot has its own epoch, and slots handed out one after another are at least a
    /// pair of cache lines apart.
    #[test]
    fn epochs_are_one_a_slot_and_neighbours_a_line_pair_apart() {
        // Under miri (CI runs this module there), a sample: the arithmetic is the same.
        let step = if cfg!(miri) { 1021 } else { 1 };
        if !cfg!(miri) {
            let mut seen = vec![false; SLOTS];
            for slot in 0..SLOTS {
                let i = epoch_index(slot);
                assert!(!std::mem::replace(&mut seen[i], true), "slot {slot} shares its epoch");
            }
        }
        let at = |slot: usize| epoch_at(slot) as *const AtomicU64 as usize;
        assert_eq!(at(0) % 128, 0);
        for slot in (0..SLOTS / STRIDE - 1).step_by(step) {
            assert!(at(slot + 1).abs_diff(at(slot)) >= 128, "slots {slot} and {} share a line pair", slot + 1);
        }
    }

    #[test]
    fn a_stamp_is_live_until_its_arena_moves_on() {
        assert!(live(0), "global memory's stamp is always live");
        let a = Slot::new().unwrap();
        let s = a.stamp();
        assert!(live(s));
        a.next_epoch();
        assert!(!live(s), "a view of the block before is stale");
        let s2 = a.stamp();
        assert!(live(s2));
        drop(a);
        assert!(!live(s2), "a view of a dropped arena is stale");
        // A new arena in the same slot does not bring the old views back.
        let b = Slot::new().unwrap();
        assert!(!live(s) && !live(s2));
        assert!(live(b.stamp()));
    }

    #[test]
    fn the_running_block_is_live_and_only_while_it_runs() {
        let a = Slot::new().unwrap();
        let s = a.stamp();
        {
            let _r = Running::enter(s);
            assert!(live(s) && running(s));
            // Nested (a child grid run inline): the inner block's stamp, then the outer's again.
            let b = Slot::new().unwrap();
            {
                let _inner = Running::enter(b.stamp());
                assert!(live(b.stamp()) && live(s));
                assert!(running(b.stamp()) && !running(s), "only the inner block runs");
            }
            assert_eq!(RUNNING.with(Cell::get), s);
        }
        assert_eq!(RUNNING.with(Cell::get), 0, "nothing runs after the guard");
        assert!(!alone(8), "no arena is this thread's alone outside a guard");
        assert!(!running(s));
        a.next_epoch();
        assert!(!live(s), "the table still decides once the block is over");
    }

    #[test]
    fn an_arena_is_its_threads_alone_only_inside_its_guard() {
        let a = Slot::new().unwrap();
        assert!(!alone(0x1000));
        {
            let _r = Running::enter_alone(a.stamp(), 0x1000, 0x100);
            assert!(alone(0x1000) && alone(0x10ff));
            assert!(!alone(0xfff) && !alone(0x1100), "only the arena's own bytes");
            {
                // A child grid's block run inline, whose arena is not alone: nothing is.
                let _inner = Running::enter(a.stamp());
                assert!(!alone(0x1000));
            }
            assert!(alone(0x1000), "the outer block's arena again");
        }
        assert!(!alone(0x1000), "nothing after the guard");
    }
}
