//! racecheck's happens-before state: what each GPU thread knows of the others' accesses
//! (its vector clock, kept sparse), and what each atomic location publishes (its release
//! clock). The algorithm is described in the parent module.

use std::collections::BTreeMap;

use crate::device::Scope;

/// Whether `scope` reaches threads of other blocks (device or system scope).
pub(super) fn wide(scope: Scope) -> bool {
    !matches!(scope, Scope::Block)
}

/// The narrower of two scopes.
pub(super) fn narrower(a: Scope, b: Scope) -> Scope {
    if !wide(a) || !wide(b) {
        Scope::Block
    } else if matches!(a, Scope::System) && matches!(b, Scope::System) {
        Scope::System
    } else {
        Scope::Device
    }
}

/// What one thread knows of a thread: every access of it stamped with a clock up to `full`
/// happens before; and every *atomic write* of it up to `atomic` precedes in causality order
/// (it was observed through an atomic read, PTX's "observation order").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Known {
    pub(super) full: u32,
    pub(super) atomic: u32,
}

/// A sparse vector clock, beyond what barriers give: per block, the barrier generation below
/// which all its accesses happen before; per thread, a [`Known`].
///
/// The accesses of the knowing thread's own block before its last barrier, and of its own
/// warp before its last `sync_warp`, are not listed: the stamps' generations and warp epochs
/// say that (see `ordered` in the parent module).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Knowledge {
    blocks: BTreeMap<u64, u32>,
    threads: BTreeMap<(u64, u32), Known>,
}

impl Knowledge {
    pub(super) fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.threads.is_empty()
    }

    /// Whether an access by thread `thread` of block `block`, made at barrier generation
    /// `generation` with clock `clock`, is known (`atomic_write`: it is an atomic write,
    /// which observation also orders).
    #[inline]
    pub(super) fn knows(&self, block: u64, thread: u32, generation: u32, clock: u32, atomic_write: bool) -> bool {
        if self.is_empty() {
            return false;
        }
        if self.blocks.get(&block).is_some_and(|&g| generation < g) {
            return true;
        }
        match self.threads.get(&(block, thread)) {
            Some(k) => clock <= k.full || (atomic_write && clock <= k.atomic),
            None => false,
        }
    }

    /// Adds that every access of `block` before barrier generation `generation` is known.
    pub(super) fn add_block(&mut self, block: u64, generation: u32) {
        if generation == 0 {
            return;
        }
        let g = self.blocks.entry(block).or_insert(0);
        *g = (*g).max(generation);
    }

    /// Adds what is known of one thread.
    pub(super) fn add_thread(&mut self, block: u64, thread: u32, k: Known) {
        let e = self.threads.entry((block, thread)).or_default();
        e.full = e.full.max(k.full);
        e.atomic = e.atomic.max(k.atomic);
    }

    /// Joins `other` into `self` (the pointwise maximum).
    pub(super) fn join(&mut self, other: &Knowledge) {
        for (&b, &g) in &other.blocks {
            self.add_block(b, g);
        }
        for (&(b, t), &k) in &other.threads {
            self.add_thread(b, t, k);
        }
    }

    /// Joins only what `other` says of atomic writes (observation without synchronisation):
    /// each thread's `full` clock becomes an `atomic` one.
    pub(super) fn join_observed(&mut self, other: &Knowledge) {
        for (&(b, t), &k) in &other.threads {
            self.add_thread(b, t, Known { full: 0, atomic: k.full.max(k.atomic) });
        }
    }

    /// Joins the part of `other` about block `block` only.
    fn join_block_part(&mut self, other: &Knowledge, block: u64) {
        if let Some(&g) = other.blocks.get(&block) {
            self.add_block(block, g);
        }
        for (&(b, t), &k) in other.threads.range((block, 0)..=(block, u32::MAX)) {
            self.add_thread(b, t, k);
        }
    }

    fn clear(&mut self) {
        self.blocks.clear();
        self.threads.clear();
    }
}

/// Which blocks released into a location's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Releasers {
    /// None yet.
    #[default]
    None,
    /// Only this block.
    One(u64),
    /// Several blocks.
    Many,
}

impl Releasers {
    fn add(&mut self, block: u64) {
        *self = match *self {
            Releasers::None => Releasers::One(block),
            Releasers::One(b) if b == block => Releasers::One(b),
            _ => Releasers::Many,
        }
    }
}

/// What an atomic location publishes to the atomic reads that read it: the release sequence's
/// clock (C++'s and PTX's), split by scope.
#[derive(Clone, Debug, Default)]
pub(crate) struct SyncClock {
    /// Released at device (or system) scope, and which blocks did.
    device: Knowledge,
    device_from: Releasers,
    /// Released at block scope, by this block (an earlier block's is dropped: it could only
    /// synchronise with its own threads).
    block: Option<(u64, Knowledge)>,
}

/// One GPU thread's clocks.
#[derive(Clone, Debug)]
struct ThreadClock {
    /// The thread's own clock: stamped on its accesses, advanced after each release (a fence,
    /// a release store, an atomic write).
    clock: u32,
    /// What it acquired since the block's last barrier (at a barrier it goes to the block's).
    own: Knowledge,
    /// What its relaxed atomic reads read since then, which a later fence (or barrier) makes
    /// known: released by its own block (a block fence suffices) or by others.
    pending_local: Knowledge,
    pending_remote: Knowledge,
    /// Its last fence, which makes its next atomic write a release: the fence's scope and what
    /// the thread knew then.
    fence: Option<(Scope, Knowledge)>,
    /// Its clock at its warp's last `sync_warp` (0: none in this block): its accesses up to
    /// that clock happen before what its warp's lanes do after the sync, and so before what
    /// they release.
    synced: u32,
    /// Its warp's `sync_warp` count, as the clocks last brought it up to date.
    warp_epoch: u32,
    /// How many `this_cluster().sync()`s it called in this block.
    cluster: u32,
}

impl Default for ThreadClock {
    /// A thread that has done nothing: its clock starts at 1, since a [`Known`] clock of 0
    /// means "nothing known".
    fn default() -> Self {
        ThreadClock {
            clock: 1,
            own: Knowledge::default(),
            pending_local: Knowledge::default(),
            pending_remote: Knowledge::default(),
            fence: None,
            synced: 0,
            warp_epoch: 0,
            cluster: 0,
        }
    }
}

/// The clocks of the threads of the block a worker runs.
#[derive(Debug, Default)]
pub(crate) struct BlockClocks {
    serial: u64,
    block: u64,
    generation: u32,
    /// What every thread of the block knows since the last barrier: the join, at that barrier,
    /// of what each had acquired.
    shared: Knowledge,
    threads: Vec<ThreadClock>,
    /// Whether some thread acquired something since the last barrier.
    dirty: bool,
    /// Whether any thread's clocks changed in this block (else a new block has nothing to
    /// reset).
    touched: bool,
    /// Lanes per warp, and per warp the `sync_warp` count last joined.
    warp_size: u32,
    warps: Vec<u32>,
    /// The block's `sync_warp`s in all when `warps` was last brought up to date.
    warp_syncs: u32,
    /// The worker's cache of interned access states (kept from block to block).
    pub(super) states: super::states::StateCache,
}

/// The running access, as far as the clocks go.
#[derive(Clone, Copy, Debug)]
pub(super) struct Me {
    pub(super) block: u64,
    pub(super) thread: u32,
    pub(super) generation: u32,
    /// Its warp's `sync_warp` count.
    pub(super) warp_epoch: u32,
}

impl BlockClocks {
    /// Brings the clocks up to date for the running thread `thread` of the block run `serial`
    /// (linear index `block`) at barrier generation `generation`, with `warp_syncs` the
    /// `sync_warp`s its warps completed in all (`Site::warp_syncs`): a new block starts empty;
    /// a barrier passed since the last call joins what every thread acquired, and what its
    /// relaxed atomic reads read (a barrier after an atomic acquires), into what all know; a
    /// `sync_warp` completed since is applied to its warp (`warp_synced`), before any of its
    /// lanes does anything more. `warp_epoch(w)` is warp `w`'s `sync_warp` count. Returns the
    /// thread's warp's count.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter(
        &mut self,
        serial: u64,
        generation: u32,
        warp_syncs: u32,
        thread: u32,
        block: impl FnOnce() -> u64,
        warp_size: impl FnOnce() -> u32,
        warp_epoch: impl Fn(u32) -> u32,
    ) -> u32 {
        if serial != self.serial
            || generation != self.generation
            || warp_syncs != self.warp_syncs
            || thread as usize >= self.threads.len()
        {
            self.enter_slow(serial, block(), generation, warp_syncs, thread, warp_size(), &warp_epoch);
        }
        self.threads[thread as usize].warp_epoch
    }

    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn enter_slow(
        &mut self,
        serial: u64,
        block: u64,
        generation: u32,
        warp_syncs: u32,
        thread: u32,
        warp_size: u32,
        warp_epoch: &dyn Fn(u32) -> u32,
    ) {
        if serial != self.serial {
            self.serial = serial;
            self.block = block;
            self.generation = generation;
            self.warps.iter_mut().for_each(|w| *w = 0);
            if self.touched {
                self.shared.clear();
                self.threads.iter_mut().for_each(|t| *t = ThreadClock::default());
                self.dirty = false;
                self.touched = false;
            } else {
                self.threads.iter_mut().for_each(|t| t.warp_epoch = 0);
            }
        } else if generation != self.generation {
            self.generation = generation;
            if self.dirty {
                let mut shared = std::mem::take(&mut self.shared);
                for t in &mut self.threads {
                    shared.join(&t.own);
                    shared.join(&t.pending_local);
                    shared.join(&t.pending_remote);
                    t.own.clear();
                    t.pending_local.clear();
                    t.pending_remote.clear();
                }
                self.shared = shared;
                self.dirty = false;
            }
        }
        self.warp_size = warp_size.max(1);
        let w = (thread / self.warp_size) as usize;
        let lanes = (w + 1) * self.warp_size as usize;
        if self.threads.len() < lanes {
            self.threads.resize(lanes, ThreadClock::default());
        }
        let grew = self.warps.len() <= w;
        if grew {
            self.warps.resize(w + 1, 0);
        }
        // Every warp seen so far whose count moved, when some warp synced or one is seen for
        // the first time (it may have synced before).
        if grew || warp_syncs != self.warp_syncs {
            for w in 0..self.warps.len() {
                let e = warp_epoch(w as u32);
                if self.warps[w] != e {
                    self.warps[w] = e;
                    self.warp_synced(w);
                }
            }
            self.warp_syncs = warp_syncs;
        }
    }

    /// A `sync_warp` of warp `w` completed (found at the first checked access, fence, atomic or
    /// cluster sync of any thread of the block after it, since the block's count of
    /// `sync_warp`s moved: so no lane has done anything since): like a barrier at warp scope, it
    /// makes what each lane acquired, and what its relaxed atomic reads read, known to every
    /// lane; and each lane's clock moves on, so that what a lane releases afterwards includes
    /// every lane's accesses before the sync (`synced`) and none after.
    fn warp_synced(&mut self, w: usize) {
        let ws = self.warp_size as usize;
        let lanes = w * ws..(w + 1) * ws;
        let mut known = Knowledge::default();
        for t in &self.threads[lanes.clone()] {
            known.join(&t.own);
            known.join(&t.pending_local);
            known.join(&t.pending_remote);
        }
        if !known.is_empty() {
            self.dirty = true;
        }
        self.touched = true;
        let epoch = self.warps[w];
        for t in &mut self.threads[lanes] {
            t.warp_epoch = epoch;
            t.own.join(&known);
            t.pending_local.clear();
            t.pending_remote.clear();
            t.synced = t.clock;
            t.clock = t.clock.saturating_add(1);
        }
    }

    /// What the cells' common case needs of the running thread `thread` — its clock, its
    /// cluster syncs and its warp's `sync_warp` count — when [`enter`](Self::enter) would
    /// change nothing (the same block run, generation and warp syncs); else `None`.
    #[inline(always)]
    pub(super) fn current(
        &self,
        serial: u64,
        generation: u32,
        warp_syncs: u32,
        thread: u32,
    ) -> Option<(u32, u32, u32)> {
        if serial != self.serial || generation != self.generation || warp_syncs != self.warp_syncs {
            return None;
        }
        self.threads.get(thread as usize).map(|t| (t.clock, t.cluster, t.warp_epoch))
    }

    /// [`current`](Self::current) for threads `first..first + n` at once, when it is the same
    /// for all of them (as in a lane loop, which has no barrier, fence or atomic); else `None`.
    #[inline(always)]
    pub(super) fn current_lanes(
        &self,
        serial: u64,
        generation: u32,
        warp_syncs: u32,
        first: u32,
        n: usize,
    ) -> Option<(u32, u32, u32)> {
        if serial != self.serial || generation != self.generation || warp_syncs != self.warp_syncs {
            return None;
        }
        let lanes = self.threads.get(first as usize..(first as usize).checked_add(n)?)?;
        let t = lanes.first()?;
        let key = (t.clock, t.cluster, t.warp_epoch);
        // No thread's clocks changed in the block: they are all as they started.
        (!self.touched || lanes.iter().all(|t| (t.clock, t.cluster, t.warp_epoch) == key)).then_some(key)
    }

    /// The running block's linear index.
    #[inline(always)]
    pub(super) fn block(&self) -> u64 {
        self.block
    }

    /// How many cluster syncs thread `thread` called in this block.
    #[inline]
    pub(super) fn cluster(&self, thread: u32) -> u32 {
        self.threads[thread as usize].cluster
    }

    /// The running thread calls `this_cluster().sync()`: its later accesses follow every access
    /// of its cluster's threads made before they called it.
    pub(super) fn cluster_sync(&mut self, thread: u32) {
        self.touched = true;
        self.threads[thread as usize].cluster += 1;
    }

    /// The running thread's clock.
    #[inline]
    pub(super) fn clock(&self, thread: u32) -> u32 {
        self.threads[thread as usize].clock
    }

    /// Whether thread `thread` knows the access `(block, t, generation, clock)` through
    /// synchronisation (beyond its block's barriers and its warp's `sync_warp`s).
    #[inline]
    pub(super) fn knows(
        &self,
        thread: u32,
        block: u64,
        t: u32,
        generation: u32,
        clock: u32,
        atomic_write: bool,
    ) -> bool {
        self.shared.knows(block, t, generation, clock, atomic_write)
            || self.threads[thread as usize].own.knows(block, t, generation, clock, atomic_write)
    }

    /// Whether thread `thread` knows nothing beyond barriers (the common case: no lookups).
    #[inline]
    pub(super) fn knows_nothing_more(&self, thread: u32) -> bool {
        self.shared.is_empty() && self.threads[thread as usize].own.is_empty()
    }

    /// Everything the thread knows now, its own accesses so far included (what a release
    /// publishes).
    fn snapshot(&self, me: Me) -> Knowledge {
        let t = &self.threads[me.thread as usize];
        let mut k = self.shared.clone();
        k.join(&t.own);
        k.add_block(me.block, me.generation);
        k.add_thread(me.block, me.thread, Known { full: t.clock, atomic: t.clock });
        // The lanes of its warp, up to their last `sync_warp`.
        let ws = self.warp_size.max(1);
        let first = me.thread / ws * ws;
        for l in first..(first + ws).min(self.threads.len() as u32) {
            let synced = self.threads[l as usize].synced;
            if l != me.thread && synced > 0 {
                k.add_thread(me.block, l, Known { full: synced, atomic: synced });
            }
        }
        k
    }

    /// Advances the thread's clock past a release.
    fn tick(&mut self, thread: u32) {
        self.touched = true;
        let c = &mut self.threads[thread as usize].clock;
        *c = c.saturating_add(1);
    }

    /// Whether thread `t` has called a fence in this block run (its atomic writes since then
    /// release what it knew at the fence).
    pub(super) fn fenced(&self, t: u32) -> bool {
        self.threads.get(t as usize).is_some_and(|t| t.fence.is_some())
    }

    /// A fence of `scope` by the running thread: what its relaxed atomic reads read becomes
    /// known (from other blocks only for a device fence), and its next atomic write releases
    /// what it knows now.
    pub(super) fn fence(&mut self, me: Me, scope: Scope) {
        let t = &mut self.threads[me.thread as usize];
        let local = std::mem::take(&mut t.pending_local);
        t.own.join(&local);
        if wide(scope) {
            let remote = std::mem::take(&mut t.pending_remote);
            t.own.join(&remote);
        }
        if !t.own.is_empty() {
            self.dirty = true;
        }
        let k = self.snapshot(me);
        self.threads[me.thread as usize].fence = Some((scope, k));
        self.tick(me.thread);
    }

    /// An atomic read of a location whose release clock is `sync`, by the running thread, at
    /// `scope`: an acquire (`Acquire`, `SeqCst`) makes what the location released known; a
    /// relaxed read makes known only the atomic writes it observed, and keeps the rest for a
    /// later fence or barrier.
    pub(super) fn atomic_read(&mut self, me: Me, sync: &SyncClock, scope: Scope, acquire: bool) {
        let t = &mut self.threads[me.thread as usize];
        let mut local = Knowledge::default();
        let mut remote = Knowledge::default();
        if wide(scope) {
            match sync.device_from {
                Releasers::None => {}
                Releasers::One(b) if b == me.block => local.join(&sync.device),
                _ => remote.join(&sync.device),
            }
        } else {
            local.join_block_part(&sync.device, me.block);
        }
        if let Some((b, k)) = &sync.block {
            if *b == me.block {
                local.join(k);
            }
        }
        if local.is_empty() && remote.is_empty() {
            return;
        }
        self.dirty = true;
        self.touched = true;
        if acquire {
            t.own.join(&local);
            t.own.join(&remote);
        } else {
            t.own.join_observed(&local);
            t.own.join_observed(&remote);
            t.pending_local.join(&local);
            t.pending_remote.join(&remote);
        }
    }

    /// An atomic write by the running thread to a location whose release clock is `sync`, at
    /// `scope`: a release (`release`: `Release` or `SeqCst`) publishes what the thread knows;
    /// after a fence, what it knew at the fence; otherwise only the write itself (which a
    /// reader observes). A store (`rmw` false) starts a new release sequence; a
    /// read-modify-write continues it.
    pub(super) fn atomic_write(&mut self, me: Me, sync: &mut SyncClock, scope: Scope, release: bool, rmw: bool) {
        let clock = self.clock(me.thread);
        let (scope, mut k) = if release {
            (scope, self.snapshot(me))
        } else if let Some((fs, k)) = &self.threads[me.thread as usize].fence {
            (narrower(*fs, scope), k.clone())
        } else {
            (scope, Knowledge::default())
        };
        k.add_thread(me.block, me.thread, Known { full: 0, atomic: clock });
        if !rmw {
            *sync = SyncClock::default();
        }
        if wide(scope) {
            sync.device.join(&k);
            sync.device_from.add(me.block);
        } else {
            match &mut sync.block {
                Some((b, old)) if *b == me.block => old.join(&k),
                slot => *slot = Some((me.block, k)),
            }
        }
        self.tick(me.thread);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knowledge_joins_pointwise() {
        let mut a = Knowledge::default();
        a.add_block(1, 3);
        a.add_thread(2, 5, Known { full: 4, atomic: 0 });
        let mut b = Knowledge::default();
        b.add_block(1, 2);
        b.add_thread(2, 5, Known { full: 1, atomic: 9 });
        a.join(&b);
        assert!(a.knows(1, 0, 2, 100, false));
        assert!(!a.knows(1, 0, 3, 0, false));
        assert!(a.knows(2, 5, 7, 4, false));
        assert!(!a.knows(2, 5, 7, 5, false));
        assert!(a.knows(2, 5, 7, 9, true));
        assert!(!a.knows(2, 4, 0, 0, true));
    }

    #[test]
    fn a_relaxed_write_without_a_fence_publishes_only_itself() {
        let mut w = BlockClocks::default();
        let me = Me { block: 0, thread: 0, generation: 0, warp_epoch: 0 };
        w.enter(1, 0, 0, 0, || 0, || 32, |_| 0);
        let mut sync = SyncClock::default();
        w.atomic_write(me, &mut sync, Scope::Device, false, false);
        let mut r = BlockClocks::default();
        let you = Me { block: 1, thread: 0, generation: 0, warp_epoch: 0 };
        r.enter(1, 0, 0, 0, || 1, || 32, |_| 0);
        r.atomic_read(you, &sync, Scope::Device, true);
        // The write (clock 1, a thread's first) is observed; a plain access at clock 1 is not
        // published.
        assert!(r.knows(0, 0, 0, 0, 1, true));
        assert!(!r.knows(0, 0, 0, 0, 1, false));
        assert!(!r.knows(0, 0, 0, 0, 2, true));
    }
}
