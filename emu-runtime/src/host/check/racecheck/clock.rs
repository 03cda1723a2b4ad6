//! racecheck's happens-before state: what each GPU thread knows of the others' accesses
//! (its vector clock, kept sparse), and what each atomic location publishes (its release
//! clock). The algorithm is described in the parent module.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::device::Scope;

/// Hash maps keyed by indices (block, thread, chain): foldhash, not SipHash, which took 38% of
/// a contended atomic's checks.
pub(super) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

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

    fn clear(&mut self) {
        self.blocks.clear();
        self.threads.clear();
    }

    /// Adds one entry of a release clock's log (a full join).
    fn gain(&mut self, g: Gain) {
        match g {
            Gain::Block(b, generation) => self.add_block(b, generation),
            Gain::Thread(b, t, k) => self.add_thread(b, t, k),
        }
    }

    /// Adds only what one entry says of atomic writes (`join_observed`).
    fn gain_observed(&mut self, g: Gain) {
        if let Gain::Thread(b, t, k) = g {
            self.add_thread(b, t, Known { full: 0, atomic: k.full.max(k.atomic) });
        }
    }

    /// Its entries, as a release clock's log.
    fn gains(&self) -> impl Iterator<Item = Gain> + '_ {
        let blocks = self.blocks.iter().map(|(&b, &g)| Gain::Block(b, g));
        blocks.chain(self.threads.iter().map(|(&(b, t), &k)| Gain::Thread(b, t, k)))
    }
}

/// One entry of what a device-scope release clock gained: a block's barrier generation, or
/// what is known of one thread.
#[derive(Clone, Copy, Debug)]
enum Gain {
    Block(u64, u32),
    Thread(u64, u32, Known),
}

impl Gain {
    fn block(self) -> u64 {
        match self {
            Gain::Block(b, _) | Gain::Thread(b, _, _) => b,
        }
    }

    /// The clock a thread's entry gives (0 for a block's).
    fn clock(self) -> u32 {
        match self {
            Gain::Block(..) => 0,
            Gain::Thread(_, _, k) => k.full.max(k.atomic),
        }
    }
}

/// A location's device-scope release clock, kept as the log of what it gained: the clock at
/// length `n` is the join of the first `n` entries. The log only grows (a store that starts a
/// new release sequence starts a new chain), so an atomic read takes the clock as a chain and
/// a length in O(1) ([`Lazy`]); the checks ask the log (indexed by block and thread) without
/// joining it, and a fence, a barrier or a release joins it. Without this, every
/// read-modify-write of a contended location copied a clock with an entry per thread that
/// ever wrote it: quadratic, 3e3 atomics/s on 2048 threads (issue 26).
#[derive(Debug)]
struct Chain {
    /// Unique in the process (the threads' `seen` tables are keyed by it).
    id: u64,
    /// The largest clock (`full` or `atomic`) of any thread's entry in the log: an atomic write
    /// stamped later than that is not in any prefix of it, which [`Lazy::knows`] answers
    /// without the lock. Stored under the log's write lock, before `len`: a reader that loaded
    /// its prefix's length (`Acquire`) sees this at least as large as that prefix needs.
    top: AtomicU32,
    /// The log's length, stored (`Release`) under its write lock after the entries and `top`:
    /// what an atomic read takes, without the lock that every check of a lazy read takes too.
    len: AtomicUsize,
    log: parking_lot::RwLock<Log>,
}

/// A chain's entries, and per block and per thread the clock's value after each entry that
/// concerns it (the running join, so that one binary search answers "known at length `n`").
#[derive(Debug, Default)]
struct Log {
    entries: Vec<Gain>,
    /// The largest clock of its entries (`Gain::clock`), which `Chain::top` publishes.
    top: u32,
    blocks: HashMap<u64, History<u32>>,
    threads: HashMap<(u64, u32), History<Known>>,
}

/// The values a clock entry took, with the log positions they were taken at: most threads
/// write a location once, so one value is kept without an allocation.
#[derive(Debug)]
enum History<V> {
    One(usize, V),
    Many(Vec<(usize, V)>),
}

impl<V: Copy> History<V> {
    fn last(&self) -> V {
        match self {
            History::One(_, v) => *v,
            History::Many(h) => h[h.len() - 1].1,
        }
    }

    fn push(&mut self, at: usize, v: V) {
        match self {
            History::One(a, old) => *self = History::Many(vec![(*a, *old), (at, v)]),
            History::Many(h) => h.push((at, v)),
        }
    }

    /// The value after the entries before position `len`, if one of them set it.
    fn before(&self, len: usize) -> Option<V> {
        match self {
            History::One(at, v) => (*at < len).then_some(*v),
            History::Many(h) => {
                let i = h.partition_point(|&(at, _)| at < len);
                (i > 0).then(|| h[i - 1].1)
            }
        }
    }
}

impl Log {
    fn push(&mut self, g: Gain) {
        let at = self.entries.len();
        self.entries.push(g);
        self.top = self.top.max(g.clock());
        match g {
            Gain::Block(b, generation) => match self.blocks.entry(b) {
                Entry::Occupied(mut e) => {
                    let g = e.get().last().max(generation);
                    e.get_mut().push(at, g);
                }
                Entry::Vacant(e) => {
                    e.insert(History::One(at, generation));
                }
            },
            Gain::Thread(b, t, k) => match self.threads.entry((b, t)) {
                Entry::Occupied(mut e) => {
                    let old = e.get().last();
                    e.get_mut().push(at, Known { full: old.full.max(k.full), atomic: old.atomic.max(k.atomic) });
                }
                Entry::Vacant(e) => {
                    e.insert(History::One(at, k));
                }
            },
        }
    }

    /// What the first `len` entries say of thread `t` of block `b`, and of block `b`'s
    /// barrier generations.
    fn known(&self, len: usize, b: u64, t: u32) -> (Option<Known>, u32) {
        let thread = self.threads.get(&(b, t)).and_then(|h| h.before(len));
        let block = if self.blocks.is_empty() { None } else { self.blocks.get(&b).and_then(|h| h.before(len)) };
        (thread, block.unwrap_or(0))
    }
}

impl Chain {
    fn new(gains: impl Iterator<Item = Gain>) -> Arc<Chain> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let mut log = Log::default();
        gains.for_each(|g| log.push(g));
        Arc::new(Chain {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            top: AtomicU32::new(log.top),
            len: AtomicUsize::new(log.entries.len()),
            log: parking_lot::RwLock::new(log),
        })
    }
}

/// A log longer than this is folded into one entry per block and thread when it has doubled
/// since it was last folded and has at least twice as many entries as blocks and threads (the
/// log of a location written in a loop would grow without end).
const FOLD_AT: usize = 4096;

/// Which of the reading thread's clocks a release clock read goes to: its block's releases
/// or other blocks' (a fence of block scope makes only the first known), and whether the
/// read acquires (else it makes known only the atomic writes it observed until a fence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Dest {
    Acquire,
    Local,
    Remote,
}

/// A release clock read but not joined yet: `chain`'s first `len` entries, those of block
/// `only` when it is set (a block-scope read of a device-scope clock).
#[derive(Clone, Debug)]
struct Lazy {
    chain: Arc<Chain>,
    len: usize,
    only: Option<u64>,
    into: Dest,
}

impl Lazy {
    /// Whether this read, were it joined, would make the access `(block, t, generation,
    /// clock)` known to the reader (as `Knowledge::knows` after the joins of `materialise`:
    /// an acquire joins everything; a relaxed read only the atomic writes into `own`).
    fn knows(&self, block: u64, t: u32, generation: u32, clock: u32, atomic_write: bool) -> bool {
        if self.only.is_some_and(|b| b != block) || (self.into != Dest::Acquire && !atomic_write) {
            return false;
        }
        // A relaxed read knows a write by its clock alone: none later than the log's last.
        if self.into != Dest::Acquire && clock > self.chain.top.load(Ordering::Relaxed) {
            return false;
        }
        let (k, g) = self.chain.log.read().known(self.len, block, t);
        match self.into {
            Dest::Acquire => {
                generation < g || k.is_some_and(|k| clock <= k.full || (atomic_write && clock <= k.atomic))
            }
            Dest::Local | Dest::Remote => atomic_write && k.is_some_and(|k| clock <= k.full.max(k.atomic)),
        }
    }
}

/// What one thread acquired since its block's last barrier, behind a `RefCell` so that the
/// checks (which see the clocks shared) can join its lazy reads when they first ask.
#[derive(Clone, Debug, Default)]
struct Acquired {
    /// What it acquired since the block's last barrier (at a barrier it goes to the block's).
    own: Knowledge,
    /// What its relaxed atomic reads read since then, which a later fence (or barrier) makes
    /// known: released by its own block (a block fence suffices) or by others.
    pending_local: Knowledge,
    pending_remote: Knowledge,
    /// Release clocks read and not yet joined into the three above.
    lazy: Vec<Lazy>,
    /// The largest clock of a write that a relaxed read in `lazy` may know (its chain's `top`
    /// when read), `u32::MAX` once one of them acquires: a check of a later write passes over
    /// `lazy` without a look at each read.
    lazy_top: u32,
    /// How much of each chain is joined already, per (chain, block filter, destination).
    /// What was joined may since have moved to the block's clock (a barrier) or from
    /// `pending_*` to `own` (a fence): it is still known, so the prefix need not be joined
    /// again.
    seen: HashMap<(u64, Option<u64>, Dest), usize>,
}

impl Acquired {
    /// Whether nothing is known (nor waiting to be joined).
    fn is_empty(&self) -> bool {
        self.own.is_empty() && self.lazy.is_empty()
    }

    /// Takes a read of `chain`'s first `len` entries (O(1): it is joined when asked).
    fn read(&mut self, chain: &Arc<Chain>, len: usize, only: Option<u64>, into: Dest) {
        // Loaded after `len` (`Acquire`), so at least the prefix's largest clock.
        let top = if into == Dest::Acquire { u32::MAX } else { chain.top.load(Ordering::Relaxed) };
        self.lazy_top = self.lazy_top.max(top);
        if let Some(l) = self.lazy.iter_mut().find(|l| l.chain.id == chain.id && l.only == only && l.into == into) {
            l.len = l.len.max(len);
            return;
        }
        self.lazy.push(Lazy { chain: chain.clone(), len, only, into });
        if self.lazy.len() > 32 {
            self.materialise();
        }
    }

    /// Whether a read in `lazy` may know the access stamped `clock` (`atomic_write`: an
    /// atomic write, which a relaxed read can know).
    #[inline]
    fn lazy_may_know(&self, clock: u32, atomic_write: bool) -> bool {
        self.lazy_top == u32::MAX || (atomic_write && clock <= self.lazy_top)
    }

    /// Joins the lazy reads: what `atomic_read` did at once before they were lazy.
    fn materialise(&mut self) {
        self.lazy_top = 0;
        for l in std::mem::take(&mut self.lazy) {
            let from = self.seen.entry((l.chain.id, l.only, l.into)).or_insert(0);
            if *from >= l.len {
                continue;
            }
            let log = l.chain.log.read();
            for &g in &log.entries[*from..l.len] {
                if l.only.is_some_and(|b| g.block() != b) {
                    continue;
                }
                match l.into {
                    Dest::Acquire => self.own.gain(g),
                    Dest::Local => {
                        self.own.gain_observed(g);
                        self.pending_local.gain(g);
                    }
                    Dest::Remote => {
                        self.own.gain_observed(g);
                        self.pending_remote.gain(g);
                    }
                }
            }
            *from = l.len;
        }
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
#[derive(Debug, Default)]
pub(crate) struct SyncClock {
    /// Released at device (or system) scope, as a log ([`Chain`]; `None`: nothing yet), and
    /// which blocks did.
    device: Option<Arc<Chain>>,
    /// The log's length when it was last folded.
    folded: usize,
    device_from: Releasers,
    /// Released at block scope, by this block (an earlier block's is dropped: it could only
    /// synchronise with its own threads).
    block: Option<(u64, Knowledge)>,
}

impl SyncClock {
    /// Adds these entries to what the location releases at device scope.
    fn release_device(&mut self, gains: impl Iterator<Item = Gain>) {
        let chain = self.device.get_or_insert_with(|| Chain::new(std::iter::empty()));
        let mut log = chain.log.write();
        gains.for_each(|g| log.push(g));
        // Stored only when it grows: readers load it on every check of a relaxed read.
        if log.top > chain.top.load(Ordering::Relaxed) {
            chain.top.store(log.top, Ordering::Relaxed);
        }
        chain.len.store(log.entries.len(), Ordering::Release);
        // Folding keeps one entry per block and thread: only worth it when that at least
        // halves the log (one write per thread, as in a contended counter, folds nothing).
        let distinct = log.blocks.len() + log.threads.len();
        if log.entries.len() > FOLD_AT && log.entries.len() > 2 * self.folded && log.entries.len() > 2 * distinct {
            let mut all = Knowledge::default();
            log.entries.iter().for_each(|&g| all.gain(g));
            drop(log);
            // A new chain: readers keep the old one, whose entries never change.
            *chain = Chain::new(all.gains());
            self.folded = chain.len.load(Ordering::Acquire);
        }
    }
}

/// One GPU thread's clocks.
#[derive(Clone, Debug)]
struct ThreadClock {
    /// The thread's own clock: stamped on its accesses, advanced after each release (a fence,
    /// a release store, an atomic write).
    clock: u32,
    /// What it acquired, and its relaxed atomic reads read, since the block's last barrier.
    acquired: RefCell<Acquired>,
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
        ThreadClock { clock: 1, acquired: RefCell::default(), fence: None, synced: 0, warp_epoch: 0, cluster: 0 }
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
    /// How much of each chain (per block filter) `shared` holds already.
    shared_seen: HashMap<(u64, Option<u64>), usize>,
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
                self.shared_seen.clear();
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
                // Every thread's lazy reads go to the block's clock in full, each chain once,
                // as far as the furthest read of it.
                let mut reads: HashMap<(u64, Option<u64>), (Arc<Chain>, usize)> = HashMap::default();
                for t in &mut self.threads {
                    let a = t.acquired.get_mut();
                    shared.join(&a.own);
                    shared.join(&a.pending_local);
                    shared.join(&a.pending_remote);
                    a.own.clear();
                    a.pending_local.clear();
                    a.pending_remote.clear();
                    a.lazy_top = 0;
                    for l in a.lazy.drain(..) {
                        let r = reads.entry((l.chain.id, l.only)).or_insert_with(|| (l.chain.clone(), 0));
                        r.1 = r.1.max(l.len);
                    }
                }
                for ((id, only), (chain, len)) in reads {
                    let from = self.shared_seen.entry((id, only)).or_insert(0);
                    if *from < len {
                        let log = chain.log.read();
                        for &g in log.entries[*from..len].iter().filter(|g| only.is_none_or(|b| g.block() == b)) {
                            shared.gain(g);
                        }
                        *from = len;
                    }
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
        for t in &mut self.threads[lanes.clone()] {
            let a = t.acquired.get_mut();
            a.materialise();
            known.join(&a.own);
            known.join(&a.pending_local);
            known.join(&a.pending_remote);
        }
        if !known.is_empty() {
            self.dirty = true;
        }
        self.touched = true;
        let epoch = self.warps[w];
        for t in &mut self.threads[lanes] {
            t.warp_epoch = epoch;
            let a = t.acquired.get_mut();
            a.own.join(&known);
            a.pending_local.clear();
            a.pending_remote.clear();
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
        self.shared.knows(block, t, generation, clock, atomic_write) || {
            let a = self.threads[thread as usize].acquired.borrow();
            a.own.knows(block, t, generation, clock, atomic_write)
                || (a.lazy_may_know(clock, atomic_write)
                    && a.lazy.iter().any(|l| l.knows(block, t, generation, clock, atomic_write)))
        }
    }

    /// Whether thread `thread` knows nothing beyond barriers (the common case: no lookups).
    #[inline]
    pub(super) fn knows_nothing_more(&self, thread: u32) -> bool {
        self.shared.is_empty() && self.threads[thread as usize].acquired.borrow().is_empty()
    }

    /// Everything the thread knows now, its own accesses so far included (what a release
    /// publishes).
    fn snapshot(&self, me: Me) -> Knowledge {
        let t = &self.threads[me.thread as usize];
        let mut k = self.shared.clone();
        {
            let mut a = t.acquired.borrow_mut();
            a.materialise();
            k.join(&a.own);
        }
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
        let a = self.threads[me.thread as usize].acquired.get_mut();
        a.materialise();
        let local = std::mem::take(&mut a.pending_local);
        a.own.join(&local);
        if wide(scope) {
            let remote = std::mem::take(&mut a.pending_remote);
            a.own.join(&remote);
        }
        if !a.own.is_empty() {
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
        let a = self.threads[me.thread as usize].acquired.get_mut();
        let mut read = false;
        if let Some(chain) = &sync.device {
            let len = chain.len.load(Ordering::Acquire);
            let (only, local) = if wide(scope) {
                (None, matches!(sync.device_from, Releasers::One(b) if b == me.block))
            } else {
                (Some(me.block), true)
            };
            let into = match (acquire, local) {
                (true, _) => Dest::Acquire,
                (false, true) => Dest::Local,
                (false, false) => Dest::Remote,
            };
            if len > 0 && sync.device_from != Releasers::None {
                a.read(chain, len, only, into);
                read = true;
            }
        }
        if let Some((b, k)) = &sync.block {
            if *b == me.block && !k.is_empty() {
                if acquire {
                    a.own.join(k);
                } else {
                    a.own.join_observed(k);
                    a.pending_local.join(k);
                }
                read = true;
            }
        }
        if read {
            self.dirty = true;
            self.touched = true;
        }
    }

    /// An atomic write by the running thread to a location whose release clock is `sync`, at
    /// `scope`: a release (`release`: `Release` or `SeqCst`) publishes what the thread knows;
    /// after a fence, what it knew at the fence; otherwise only the write itself (which a
    /// reader observes). A store (`rmw` false) starts a new release sequence; a
    /// read-modify-write continues it.
    pub(super) fn atomic_write(&mut self, me: Me, sync: &mut SyncClock, scope: Scope, release: bool, rmw: bool) {
        let clock = self.clock(me.thread);
        let only_itself = Gain::Thread(me.block, me.thread, Known { full: 0, atomic: clock });
        // What it publishes besides itself: nothing for the common relaxed write without a
        // fence before it (then no clock is built).
        let (scope, k) = if release {
            (scope, Some(self.snapshot(me)))
        } else if let Some((fs, k)) = &self.threads[me.thread as usize].fence {
            (narrower(*fs, scope), Some(k.clone()))
        } else {
            (scope, None)
        };
        if !rmw {
            *sync = SyncClock::default();
        }
        if wide(scope) {
            sync.release_device(k.iter().flat_map(Knowledge::gains).chain(std::iter::once(only_itself)));
            sync.device_from.add(me.block);
        } else {
            let mut k = k.unwrap_or_default();
            k.gain(only_itself);
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

    /// `n` threads of block 1 each release (a read-modify-write with release semantics) into
    /// one location: a clock of about `2n` entries, two per thread, which folding would not
    /// shorten enough to be done.
    fn released_by(n: u32) -> SyncClock {
        let mut w = BlockClocks::default();
        let mut sync = SyncClock::default();
        for t in 0..n {
            w.enter(1, 0, 0, t, || 1, || 32, |_| 0);
            let me = Me { block: 1, thread: t, generation: 0, warp_epoch: 0 };
            w.atomic_write(me, &mut sync, Scope::Device, true, true);
        }
        sync
    }

    fn reader(block: u64, thread: u32, generation: u32) -> (BlockClocks, Me) {
        let mut r = BlockClocks::default();
        r.enter(1, generation, 0, thread, || block, || 32, |_| 0);
        (r, Me { block, thread, generation, warp_epoch: 0 })
    }

    #[test]
    fn a_relaxed_read_of_a_long_release_clock_is_known_after_a_fence() {
        for n in [3, FOLD_AT as u32 + 1000] {
            let sync = released_by(n);
            let (mut r, you) = reader(2, 0, 0);
            r.atomic_read(you, &sync, Scope::Device, false);
            for t in [0, n / 2, n - 1] {
                // Thread t's accesses before its release were at clock 1: only its atomic
                // write is observed until a fence.
                assert!(r.knows(0, 1, t, 0, 1, true), "n {n}, thread {t}");
                assert!(!r.knows(0, 1, t, 0, 1, false), "n {n}, thread {t}");
                assert!(!r.knows(0, 1, t, 0, 2, true), "n {n}, thread {t}: after its release");
            }
            r.fence(you, Scope::Device);
            for t in [0, n / 2, n - 1] {
                assert!(r.knows(0, 1, t, 0, 1, false), "n {n}, thread {t}");
            }
        }
    }

    #[test]
    fn a_block_fence_does_not_make_another_blocks_release_known() {
        let sync = released_by(4);
        let (mut r, you) = reader(2, 0, 0);
        r.atomic_read(you, &sync, Scope::Device, false);
        r.fence(you, Scope::Block);
        assert!(!r.knows(0, 1, 2, 0, 1, false));
        r.fence(you, Scope::Device);
        assert!(r.knows(0, 1, 2, 0, 1, false));
    }

    #[test]
    fn an_acquire_knows_at_once_and_a_block_scope_read_only_its_own_block() {
        let sync = released_by(FOLD_AT as u32 * 2);
        let (mut r, you) = reader(2, 0, 0);
        r.atomic_read(you, &sync, Scope::Device, true);
        assert!(r.knows(0, 1, 7, 0, 1, false));
        assert!(r.knows(0, 1, 7, 0, 0, false), "everything before a release too");
        let (mut b, me) = reader(2, 1, 0);
        b.atomic_read(me, &sync, Scope::Block, true);
        assert!(
            !b.knows(1, 1, 7, 0, 1, false) && !b.knows(1, 1, 7, 0, 1, true),
            "block 1's release, read at block scope from block 2"
        );
        let (mut own, me) = reader(1, 40, 0);
        own.atomic_read(me, &sync, Scope::Block, true);
        assert!(own.knows(40, 1, 7, 0, 1, false), "block 1's own release, read at block scope");
    }

    #[test]
    fn a_barrier_makes_what_one_thread_read_known_to_all() {
        let sync = released_by(FOLD_AT as u32 + 1);
        let (mut r, you) = reader(2, 0, 0);
        r.enter(1, 0, 0, 5, || 2, || 32, |_| 0);
        r.atomic_read(you, &sync, Scope::Device, false);
        assert!(!r.knows(5, 1, 3, 0, 1, false), "thread 5 read nothing");
        r.enter(1, 1, 0, 5, || 2, || 32, |_| 0);
        assert!(r.knows(5, 1, 3, 0, 1, false), "after the barrier, what thread 0 read");
        assert!(r.knows(5, 1, FOLD_AT as u32, 0, 1, false));
    }

    /// The entries of a location's device-scope log.
    fn log_len(sync: &SyncClock) -> usize {
        sync.device.as_ref().map_or(0, |c| c.log.read().entries.len())
    }

    #[test]
    fn a_log_is_folded_when_that_halves_it_and_not_when_its_threads_are_all_distinct() {
        // One thread of block 1 releases into a location 3 * FOLD_AT times (a loop): folded,
        // so the log stays short, and what the last release published is still known.
        let mut w = BlockClocks::default();
        let mut sync = SyncClock::default();
        let me = Me { block: 1, thread: 3, generation: 0, warp_epoch: 0 };
        w.enter(1, 0, 0, 3, || 1, || 32, |_| 0);
        let writes = 3 * FOLD_AT;
        for _ in 0..writes {
            w.atomic_write(me, &mut sync, Scope::Device, true, true);
        }
        assert!(log_len(&sync) <= 2 * FOLD_AT + 2, "{} entries after {writes} releases", log_len(&sync));
        let last = w.clock(3) - 1;
        let (mut r, you) = reader(2, 0, 0);
        r.atomic_read(you, &sync, Scope::Device, true);
        assert!(r.knows(0, 1, 3, 0, last, false), "the last release, at clock {last}");
        assert!(!r.knows(0, 1, 3, 0, last + 1, false), "nothing after it");
        // FOLD_AT + 1000 distinct threads release once each: every entry is kept (a fold
        // would keep about as many), and each thread's release is known.
        let n = FOLD_AT as u32 + 1000;
        let sync = released_by(n);
        assert!(log_len(&sync) >= n as usize, "{} entries for {n} threads", log_len(&sync));
        let (mut r, you) = reader(2, 0, 0);
        r.atomic_read(you, &sync, Scope::Device, true);
        for t in [0, n / 2, n - 1] {
            assert!(r.knows(0, 1, t, 0, 1, false), "thread {t}");
        }
    }

    #[test]
    fn a_relaxed_read_knows_each_observed_write_up_to_the_logs_last_clock() {
        // Thread 3 of block 1 makes three relaxed read-modify-writes (clocks 1, 2, 3), each
        // publishing only itself; a relaxed read after them observes all three and nothing
        // after (the log's largest clock, 3, bounds what a lookup may find).
        let mut w = BlockClocks::default();
        let mut sync = SyncClock::default();
        let me = Me { block: 1, thread: 3, generation: 0, warp_epoch: 0 };
        w.enter(1, 0, 0, 3, || 1, || 32, |_| 0);
        let (mut r, you) = reader(2, 0, 0);
        for clock in 1..=3 {
            w.atomic_write(me, &mut sync, Scope::Device, false, true);
            r.atomic_read(you, &sync, Scope::Device, false);
            assert!(r.knows(0, 1, 3, 0, clock, true), "the write at clock {clock}");
            assert!(!r.knows(0, 1, 3, 0, clock + 1, true), "nothing after clock {clock}");
            assert!(!r.knows(0, 1, 3, 0, clock, false), "observed, not synchronised");
        }
    }
}
