//! The state of a block's barrier (`sync_threads` and its count/and/or forms): who arrived,
//! in which order, where, and what the last release returns.
//!
//! The scheduler (`block.rs`) records arrivals and releases the waiting threads; synccheck
//! judges whether they may go on (`check::synccheck::verdict`, over the thread slots).

use std::cell::Cell;
use std::panic::Location;

/// A block's barrier state, reset for each block.
pub(crate) struct BarrierState {
    /// How many barriers the block completed.
    pub(crate) generation: Cell<u32>,
    /// Whether a skipped barrier was reported in this block (once per block).
    pub(crate) barrier_reported: Cell<bool>,
    /// What the last released barrier returns (`sync_threads_count` and friends).
    pub(crate) barrier_result: Cell<u32>,
    /// The first barrier site waited at in this generation, and whether another site was
    /// waited at too: the fast path of the barrier verdict.
    pub(crate) first_site: Cell<Option<&'static Location<'static>>>,
    pub(crate) mixed_sites: Cell<bool>,
    /// Threads that exited during this generation.
    pub(crate) exits_this_generation: Cell<u32>,
    /// Where the first thread to exit before the first barrier exited. Threads that exit
    /// there before the first barrier leave their slot untouched (`State::NotStarted`), the
    /// common case that keeps barrier-free kernels cheap; `materialize_exits` fills those
    /// slots in when a barrier verdict needs them.
    pub(crate) exit0: Cell<Option<&'static Location<'static>>>,
    /// Threads that arrived at a barrier, in arrival order: two lists, used alternately by
    /// successive generations (`parity`), so that threads arriving at the next barrier while
    /// the waiting ones are being resumed go to the other list.
    pub(crate) arrivals: [Box<[Cell<u32>]>; 2],
    pub(crate) arrival_count: [Cell<usize>; 2],
    pub(crate) parity: Cell<usize>,
    /// The threads being released: `arrivals[parity ^ 1][release_pos..release_len]` are still
    /// to be resumed (`release_len` is 0 outside a release). Runners of state-machine kernels
    /// poll from here themselves.
    pub(crate) release_pos: Cell<usize>,
    pub(crate) release_len: Cell<usize>,
    /// Whether every block of a cooperative launch reached the grid sync the block's threads
    /// wait at: they may go on (`launch.rs::run_cooperative`).
    pub(crate) grid_go: Cell<bool>,
    /// The runners the block is driven with (its cluster, or a cooperative grid) and how many:
    /// set by the group's driver (`BlockRun::set_group`), for distributed shared memory.
    pub(crate) group: Cell<(*const (), usize)>,
}

impl BarrierState {
    /// The barrier of a block of `n` threads.
    pub(crate) fn new(n: usize) -> Self {
        BarrierState {
            generation: Cell::new(0),
            barrier_reported: Cell::new(false),
            barrier_result: Cell::new(0),
            first_site: Cell::new(None),
            mixed_sites: Cell::new(false),
            exits_this_generation: Cell::new(0),
            exit0: Cell::new(None),
            arrivals: [(0..n).map(|_| Cell::new(0)).collect(), (0..n).map(|_| Cell::new(0)).collect()],
            arrival_count: [Cell::new(0), Cell::new(0)],
            parity: Cell::new(0),
            release_pos: Cell::new(0),
            release_len: Cell::new(0),
            grid_go: Cell::new(false),
            group: Cell::new((std::ptr::null(), 0)),
        }
    }

    /// Starts a generation: no site waited at, nobody exited in it.
    pub(crate) fn new_generation(&self) {
        self.first_site.set(None);
        self.mixed_sites.set(false);
        self.exits_this_generation.set(0);
    }

    /// Records that thread `t` waits at the barrier at `at`.
    #[inline(always)]
    pub(crate) fn arrive(&self, t: u32, at: &'static Location<'static>) {
        match self.first_site.get() {
            None => self.first_site.set(Some(at)),
            Some(first) if std::ptr::eq(first, at) => {}
            Some(first) => self.mixed_sites.set(self.mixed_sites.get() || *first != *at),
        }
        let p = self.parity.get();
        let k = self.arrival_count[p].get();
        self.arrivals[p][k].set(t);
        self.arrival_count[p].set(k + 1);
    }
}
