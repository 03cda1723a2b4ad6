//! Warp collectives on the host: `sync_warp`, the votes, the shuffles and `active_mask`.
//!
//! # Definitions
//!
//! A block's threads form warps of `warp_size` consecutive linear indices (32 by default, 1
//! with `EMU_WARP_SIZE=1`). A collective names its lanes with a mask. Since Volta, every lane
//! named in the mask that has not exited must reach a collective of the same kind with the
//! same mask (not necessarily the same call site), and the calling lane must be named in it;
//! otherwise the result is undefined and the warp may hang. Lanes that do not exist (the
//! tail of a block whose size is not a multiple of 32) count as exited.
//!
//! # Algorithm
//!
//! The block's threads run one at a time (`block.rs`), so a collective is a small barrier
//! among the lanes of its mask:
//!
//! 1. A lane that arrives records its operation, mask, value and argument in its slot
//!    (`State::WarpWaiting`) and in its warp's `gathered` lanes, and checks whether the
//!    collective is complete: every lane of the mask has exited or waits in a collective of
//!    the same kind with the same mask. The lanes not gathered are looked at first, so an
//!    arrival that does not complete the collective usually costs one look at the next lane.
//! 2. If it is, the results of all participants are computed at once from their recorded
//!    inputs; the arriving lane goes on with its result, and the others become
//!    `State::Ready`, to be resumed by the scheduler in lane order (or the seed's order).
//! 3. If not, the lane waits: a collective called in a state-machine kernel's own body is an
//!    `.await` that returns `Pending` to the runner (`WarpAwait`, `task.rs`), one called
//!    elsewhere parks the lane's fiber. A lane that exits re-checks the collectives of its
//!    warp that name it.
//! 4. When no thread of the block can run and some lane still waits in a collective, the
//!    collective can never complete (the lanes it waits for wait at a `sync_threads`, in a
//!    different collective, or with a different mask): the block is stopped and the wait is
//!    reported as `Barrier error detected. Divergent thread(s) in warp`, naming who waits
//!    where ([`deadlock`]). This is exact: the verdict depends only on where threads wait.
//!
//! A collective whose mask names only the calling lane among the lanes that exist (always the
//! case with a warp size of 1) completes at once, without parking.
//!
//! # Limits
//!
//! * `active_mask()` cannot know which lanes the hardware would run together. It returns the
//!   lanes of the warp that call it at the same call site before any thread of the block can go
//!   on ([`arrive_active_mask`]): lanes in one branch of a divergent `if` see each other, lanes
//!   elsewhere or exited are left out, whatever the schedule.
//!
//! # What is reported, and what a shuffle returns (issue 12)
//!
//! CUDA lets a lane read only from a lane that takes part in the same shuffle ("if the target
//! thread is inactive, the retrieved value is undefined"), and asks every non-exited lane named
//! in a mask to reach the collective. Two shapes break this and still complete on the H200, so
//! the emulator reports them as `Barrier error detected. Divergent thread(s) in warp` (once per
//! block, as a skipped `sync_threads` is: the report whose first thread is lowest, recorded
//! when the block ends, so that the same one is chosen under every `EMU_SEED`; the block runs
//! on and the launch returns 719):
//!
//! * **Skipped collective.** A lane named in the mask that takes no part and exits at a source
//!   position *after* the collective's call site (it ran past it: `if lane < 16 { shfl(..) }`
//!   then more code). A lane whose exit lies *before* the call site exited early (`if i >= n
//!   { return; }`), which CUDA allows: not reported. Positions are compared as synccheck does
//!   for `sync_threads`, so only for collectives in the kernel's own body; the verdict depends
//!   on where lanes wait and exit, never on the order they ran in. Lanes named in the mask
//!   that wait at another collective or at a barrier instead deadlock the warp (the H200
//!   hangs: RESULTS.md probe 3, mode 3): reported by [`deadlock`] and the block is stopped.
//! * **Shuffle from a lane that takes no part.** The computed source lane lies in the caller's
//!   `width` segment but did not execute this shuffle with it (exited, not in the mask, or
//!   absent in a partial warp). The lane gets **0**, what the H200 returns (RESULTS.md probe
//!   1: all bits, both halves of a 64-bit value, for idx, up, down and xor alike). NVIDIA's
//!   reduce7 relies on this: it is reported, and gives the H200's (right) sum.
//!
//! Limits of the skip verdict: a lane that leaves a loop through a `return` placed after a
//! collective of the loop body, while the others call it again in the next iteration, is
//! reported although CUDA allows it (exited lanes may be named), as synccheck does for
//! `sync_threads`; and collectives inside `#[device]` helpers or `cg` methods called from a
//! plain function are positioned where the helper's caller is only when every frame between
//! is `#[track_caller]` (otherwise their exits are taken for early ones: no skip report; the
//! shuffle-source report does not depend on positions).
//!
//! A source outside the segment (down past its end, up below its start, xor into a higher
//! segment) gives the caller's own value, as PTX defines; this is not an error.
//!
//! The shuffles take PTX's `c` operand (`((32 - width) << 8) | clamp`, what CUDA's headers
//! pass for `width`) and compute the source lane exactly as `shfl.sync` does ([`source_lane`]).

use std::cell::{Cell, RefCell};
use std::panic::Location;

use crate::device::backend::{ReduxKind, ShflMode, TileOp, VoteOp};
use crate::host::report::{thread_ranges, Finding, SourceLocation};
use crate::host::sched::block::{BlockRun, State};
use crate::host::sched::context;

/// A warp collective, as recorded while its lanes gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpOp {
    /// `active_mask`: not a collective over a mask, but resolved when no thread of the block
    /// can run (see [`resolve_active_masks`]).
    ActiveMask,
    /// `sync_warp`.
    Sync,
    /// `all_sync`, `any_sync`, `ballot_sync`.
    Vote(VoteOp),
    /// The shuffles.
    Shfl(ShflMode),
    /// The sm_80 reductions (`redux.sync`).
    Redux(ReduxOp),
    /// `match_any_sync`.
    MatchAny,
    /// `match_all_sync`: the result is the mask, or 0 (its predicate is `result != 0`).
    MatchAll,
    /// A collective of a multi-warp tile (`cg::tiled_partition::<64>` and up): every lane of
    /// each of the tile's warps arrives with the mask `0xffffffff`; [`Arrival::arg`] holds the
    /// tile's warp count (from bit 16) and, for a shuffle, the source rank (low 16 bits).
    Tile(TileOp),
}

/// A warp reduction (`redux.sync`): the operation and, for min and max, the signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    /// `__reduce_add_sync` (wrapping).
    Add,
    /// `__reduce_min_sync` on `u32` / `i32`.
    MinU,
    MinS,
    /// `__reduce_max_sync` on `u32` / `i32`.
    MaxU,
    MaxS,
    /// `__reduce_and_sync`, `__reduce_or_sync`, `__reduce_xor_sync`.
    And,
    Or,
    Xor,
}

impl WarpOp {
    /// The device API's name for it, for reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            WarpOp::ActiveMask => "active_mask",
            WarpOp::Sync => "sync_warp",
            WarpOp::Vote(VoteOp::All) => "all_sync",
            WarpOp::Vote(VoteOp::Any) => "any_sync",
            WarpOp::Vote(VoteOp::Ballot) => "ballot_sync",
            WarpOp::Shfl(ShflMode::Idx) => "shfl_sync",
            WarpOp::Shfl(ShflMode::Up) => "shfl_up_sync",
            WarpOp::Shfl(ShflMode::Down) => "shfl_down_sync",
            WarpOp::Shfl(ShflMode::Bfly) => "shfl_xor_sync",
            WarpOp::Redux(ReduxOp::Add) => "reduce_add_sync",
            WarpOp::Redux(ReduxOp::MinU | ReduxOp::MinS) => "reduce_min_sync",
            WarpOp::Redux(ReduxOp::MaxU | ReduxOp::MaxS) => "reduce_max_sync",
            WarpOp::Redux(ReduxOp::And) => "reduce_and_sync",
            WarpOp::Redux(ReduxOp::Or) => "reduce_or_sync",
            WarpOp::Redux(ReduxOp::Xor) => "reduce_xor_sync",
            WarpOp::MatchAny => "match_any_sync",
            WarpOp::MatchAll => "match_all_sync",
            WarpOp::Tile(TileOp::Sync) => "thread_block_tile::sync",
            WarpOp::Tile(TileOp::Shfl) => "thread_block_tile::shfl",
            WarpOp::Tile(TileOp::Any) => "thread_block_tile::any",
            WarpOp::Tile(TileOp::All) => "thread_block_tile::all",
        }
    }
}

/// One lane's part in a collective: what it asked for and, once complete, its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub(crate) op: WarpOp,
    pub(crate) mask: u32,
    /// The lane's value (a predicate is 0 or 1); replaced by its result on completion.
    pub(crate) value: u64,
    /// A shuffle's operands, packed by [`shfl_arg`]: its lane, delta or lane mask (`b`, low
    /// five bits) and PTX's `c` (width and clamp, from bit 16).
    pub(crate) arg: u32,
}

impl Arrival {
    pub(crate) const NONE: Arrival = Arrival { op: WarpOp::Sync, mask: 0, value: 0, arg: 0 };
}

/// PTX's `c` operand of `shfl.sync` for CUDA's `width` argument: `((32 - width) << 8)`, with
/// the clamp 0 for `up` and 31 for the other modes (what CUDA's `__shfl_*_sync` pass).
#[inline(always)]
pub(crate) fn shfl_c(mode: ShflMode, width: u32) -> u32 {
    let clamp = if mode == ShflMode::Up { 0 } else { 0x1f };
    (32u32.wrapping_sub(width) << 8 | clamp) & 0x1f1f
}

/// A shuffle's operands packed into [`Arrival::arg`]: `b` (only its low five bits count, as in
/// PTX) and the `c` of [`shfl_c`].
#[inline(always)]
pub(crate) fn shfl_arg(mode: ShflMode, b: u32, width: u32) -> u32 {
    (b & 0x1f) | shfl_c(mode, width) << 16
}

/// The reduction for `kind`, with signed min and max when `signed`.
pub(crate) fn redux_op(kind: ReduxKind, signed: bool) -> ReduxOp {
    match (kind, signed) {
        (ReduxKind::Add, _) => ReduxOp::Add,
        (ReduxKind::Min, false) => ReduxOp::MinU,
        (ReduxKind::Min, true) => ReduxOp::MinS,
        (ReduxKind::Max, false) => ReduxOp::MaxU,
        (ReduxKind::Max, true) => ReduxOp::MaxS,
        (ReduxKind::And, _) => ReduxOp::And,
        (ReduxKind::Or, _) => ReduxOp::Or,
        (ReduxKind::Xor, _) => ReduxOp::Xor,
    }
}

/// `redux.sync`'s result over the words of the lanes that take part (0 for none; all ones
/// for `and`).
pub(crate) fn redux_words(op: ReduxOp, words: impl Iterator<Item = u32>) -> u32 {
    match op {
        ReduxOp::Add => words.fold(0u32, u32::wrapping_add),
        ReduxOp::MinU => words.min().unwrap_or(0),
        ReduxOp::MaxU => words.max().unwrap_or(0),
        ReduxOp::MinS => words.map(|w| w as i32).min().unwrap_or(0) as u32,
        ReduxOp::MaxS => words.map(|w| w as i32).max().unwrap_or(0) as u32,
        ReduxOp::And => words.fold(u32::MAX, |x, w| x & w),
        ReduxOp::Or => words.fold(0, |x, w| x | w),
        ReduxOp::Xor => words.fold(0, |x, w| x ^ w),
    }
}

/// The warp size of the running launch.
#[inline(always)]
fn size_of_warps(block: &BlockRun<'_>) -> u32 {
    block.launch().config.get_warp_size().max(1)
}

/// A block's warp state: the collectives its threads wait in, and the lanes to resume.
pub(crate) struct Warps {
    /// Threads parked in warp collectives that have not completed (`State::WarpWaiting`).
    pub(crate) warp_waiting: Cell<u32>,
    /// Threads whose warp collective completed, to be resumed in this order.
    pub(crate) ready: RefCell<Vec<u32>>,
    /// Threads waiting in `active_mask()`, answered when no thread can run.
    pub(crate) mask_queries: Cell<u32>,
    /// Per warp, the lanes waiting in a collective.
    pub(crate) gathered: Box<[Cell<u32>]>,
    /// Per thread, its part in the warp collective it waits in: operation, mask and value,
    /// then the result. Kept out of `Slot`, which the scheduler's hot loops touch.
    pub(crate) warp_arrivals: Box<[Cell<Arrival>]>,
    /// Per warp, how many `sync_warp`s it completed in this block (racecheck's epochs).
    pub(crate) warp_epochs: Box<[Cell<u32>]>,
    /// How many `sync_warp`s the block's warps completed in all (racecheck sees at a glance
    /// whether any warp synced since its last look).
    pub(crate) warp_syncs: Cell<u32>,
    /// The threads `resume_ready` releases, and whether it is releasing them (then runners
    /// poll from this list instead of the barrier's).
    pub(crate) ready_list: Box<[Cell<u32>]>,
    pub(crate) releasing_ready: Cell<bool>,
    /// How many times `resume_ready` ran in this block (keys its shuffle under a seed).
    pub(crate) ready_rounds: Cell<u32>,
    /// The report of a skipped collective or of a shuffle from a lane that takes no part, for
    /// the lowest thread involved in this block (one per block, as for a skipped
    /// `sync_threads`, and the same for every seed): recorded when the block ends.
    pub(crate) misuse: RefCell<Option<(u32, Finding)>>,
}

impl Warps {
    /// The block's pending warp-misuse finding, taken. Tested first: taking an `Option` of a
    /// finding copies the whole finding (a `memcpy` call at each block's end and reset), and
    /// there is almost never one.
    pub(crate) fn take_misuse(&self) -> Option<(u32, Finding)> {
        if self.misuse.borrow().is_none() {
            return None;
        }
        self.misuse.borrow_mut().take()
    }

    /// The warp state of a block of `n` threads in warps of `warp_size`.
    pub(crate) fn new(n: usize, warp_size: usize) -> Self {
        let warps = n.div_ceil(warp_size);
        Warps {
            warp_waiting: Cell::new(0),
            ready: RefCell::new(Vec::new()),
            mask_queries: Cell::new(0),
            gathered: (0..warps).map(|_| Cell::new(0)).collect(),
            warp_arrivals: (0..n).map(|_| Cell::new(Arrival::NONE)).collect(),
            warp_epochs: (0..warps).map(|_| Cell::new(0)).collect(),
            warp_syncs: Cell::new(0),
            ready_list: (0..n).map(|_| Cell::new(0)).collect(),
            releasing_ready: Cell::new(false),
            ready_rounds: Cell::new(0),
            misuse: RefCell::new(None),
        }
    }
}

pub(crate) fn warp_size() -> u32 {
    size_of_warps(context::block_for("warp_size"))
}

pub(crate) fn lane_id() -> u32 {
    let block = context::block_for("lane_id");
    block.current() & block.warp_mask()
}

/// `active_mask()`, blocking form: see [`arrive_active_mask`].
#[track_caller]
pub(crate) fn active_mask() -> u32 {
    collective(WarpOp::ActiveMask, 0, 0, 0, Location::caller()) as u32
}

/// The calling lane's arrival at `active_mask()` at `at`: the lanes of its warp that are
/// "active" with it are those that call `active_mask` at the same call site before any lane of
/// the block can go on, which models lanes that run together on the GPU and does not depend on
/// the order the emulator runs them in. So the lane waits (`None`) until no thread of the
/// block can run ([`resolve_active_masks`]), unless every other lane of its warp has exited.
pub(crate) fn arrive_active_mask(block: &BlockRun<'_>, at: &'static Location<'static>) -> Option<u32> {
    let t = block.current();
    let warp = Warp::of(block, t);
    let lane = t - warp.base;
    if bits(warp.existing).all(|l| l == lane || block.has_exited(warp.base + l)) {
        return Some(1 << lane);
    }
    let slot = &block.slots[t as usize];
    block.arrival(t).set(Arrival { op: WarpOp::ActiveMask, mask: 0, value: 0, arg: 0 });
    slot.at.set(Some(at));
    slot.state.set(State::WarpWaiting);
    block.mark_dirty();
    block.warps.mask_queries.set(block.warps.mask_queries.get() + 1);
    None
}

/// Answers the `active_mask()` calls of a block in which no thread can run: each waiting lane
/// gets the lanes of its warp that wait in `active_mask` at the same call site, and all of
/// them are queued for resumption in index order.
#[cold]
pub(crate) fn resolve_active_masks(block: &BlockRun<'_>) {
    let waiting = |t: usize| {
        let s = &block.slots[t];
        s.state.get() == State::WarpWaiting && block.arrival(t as u32).get().op == WarpOp::ActiveMask
    };
    for t in (0..block.slots.len()).filter(|&t| waiting(t)) {
        let warp = Warp::of(block, t as u32);
        let at = block.slots[t].at.get();
        let same_site = |l: &u32| {
            let u = (warp.base + l) as usize;
            waiting(u) && block.slots[u].at.get().zip(at).is_some_and(|(a, b)| std::ptr::eq(a, b) || *a == *b)
        };
        let mask = bits(warp.existing).filter(same_site).fold(0, |m, l| m | 1 << l);
        let a = block.arrival(t as u32);
        a.set(Arrival { value: mask as u64, ..a.get() });
    }
    // States change only now, so that every lane saw its group still waiting.
    for t in 0..block.slots.len() {
        if waiting(t) {
            block.slots[t].state.set(State::Ready);
            block.warps.ready.borrow_mut().push(t as u32);
        }
    }
    block.warps.mask_queries.set(0);
}

/// The warp of a thread: its first thread and which of its lanes exist.
#[derive(Clone, Copy)]
struct Warp {
    base: u32,
    existing: u32,
}

impl Warp {
    /// The warp's number in its block.
    fn index(self, block: &BlockRun<'_>) -> usize {
        (self.base >> size_of_warps(block).trailing_zeros()) as usize
    }

    fn of(block: &BlockRun<'_>, t: u32) -> Warp {
        let ws = size_of_warps(block);
        let base = t & !(ws - 1);
        let n = (block.slots.len() as u32 - base).min(ws);
        Warp { base, existing: if n >= 32 { u32::MAX } else { (1u32 << n) - 1 } }
    }
}

/// The set bits of `m`, lowest first.
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros();
            m &= m - 1;
            l
        })
    })
}

/// Runs the calling thread's part of a warp collective and returns its result: the blocking
/// form, which parks the thread's fiber until the collective completes.
#[inline(never)]
pub(crate) fn collective(op: WarpOp, mask: u32, value: u64, arg: u32, at: &'static Location<'static>) -> u64 {
    let block = context::block_for(op.name());
    match arrive(block, op, mask, value, arg, at) {
        Some(result) => result,
        None => {
            block.park();
            finish(block)
        }
    }
}

/// The calling thread's arrival at a warp collective: its result if the collective completed
/// at once, or `None` if the thread must wait (it is then counted in `warp_waiting`, and its
/// result is read with [`finish`] once the scheduler resumes it).
pub(crate) fn arrive(
    block: &BlockRun<'_>,
    op: WarpOp,
    mask: u32,
    value: u64,
    arg: u32,
    at: &'static Location<'static>,
) -> Option<u64> {
    if block.stopping() {
        return Some(alone(block, op, value, arg));
    }
    // A thread that faulted stops here (memcheck).
    block.stop_if_faulted();
    if op == WarpOp::ActiveMask {
        return arrive_active_mask(block, at).map(u64::from);
    }
    let t = block.current();
    let warp = Warp::of(block, t);
    let lane = t - warp.base;
    if mask & (1 << lane) == 0 {
        invalid_mask(block, op, mask, lane, at);
    }
    let arrival = Arrival { op, mask, value, arg };
    if mask & warp.existing == 1 << lane {
        let ws = size_of_warps(block);
        let (r, absent) = result(arrival, lane, 1 << lane, |_| value, ws);
        if let Some(j) = absent.filter(|&j| !block.faulted(warp.base + j)) {
            misuse(block, warp, arrival, at, 1 << lane, (1 << lane, 1 << j), 0);
        }
        return Some(r);
    }
    let slot = &block.slots[t as usize];
    block.arrival(t).set(arrival);
    slot.at.set(Some(at));
    slot.state.set(State::WarpWaiting);
    block.mark_dirty();
    let gathered = &block.warps.gathered[warp.index(block)];
    gathered.set(gathered.get() | 1 << lane);
    if try_complete(block, warp, mask, Some(t)) {
        slot.state.set(State::Running);
        Some(block.arrival(t).get().value)
    } else {
        block.warps.warp_waiting.set(block.warps.warp_waiting.get() + 1);
        None
    }
}

/// What the calling lane of a thread being stopped gets (`block.rs`, "Stopping a thread"): its
/// result of the collective as if the mask named only it, at once and without a report.
#[cold]
fn alone(block: &BlockRun<'_>, op: WarpOp, value: u64, arg: u32) -> u64 {
    let lane = block.current() & (size_of_warps(block) - 1);
    let own = Arrival { op, mask: 1 << lane, value, arg };
    match op {
        WarpOp::ActiveMask => 1 << lane,
        WarpOp::MatchAll => u64::from(own.mask),
        WarpOp::Tile(TileOp::Shfl) => value,
        WarpOp::Tile(TileOp::Sync) => 0,
        WarpOp::Tile(TileOp::Any | TileOp::All) => u64::from(value != 0),
        _ => result(own, lane, 1 << lane, |_| value, size_of_warps(block)).0,
    }
}

/// The running thread's result of the collective it waited in (after the scheduler resumed it).
pub(crate) fn finish(block: &BlockRun<'_>) -> u64 {
    let t = block.current();
    block.slots[t as usize].state.set(State::Running);
    block.arrival(t).get().value
}

#[cold]
#[inline(never)]
fn invalid_mask(block: &BlockRun<'_>, op: WarpOp, mask: u32, lane: u32, at: &'static Location<'static>) -> ! {
    block.fail(Finding::InvalidWarpMask {
        op: op.name(),
        mask,
        lane,
        at: SourceLocation::from(at),
        thread: block.thread(),
        block: block.block_idx(),
    })
}

/// Completes the collective of `warp`'s lanes waiting with `mask` if every lane it names has
/// arrived (with the same kind of operation) or exited: computes every participant's result
/// into its slot, and queues the participants other than `current` for resumption. Named
/// lanes that skipped it, and shuffles that read from a lane taking no part, are reported
/// ([`misuse`]).
///
/// The lanes not gathered yet are looked at first, so an arrival that does not complete the
/// collective usually costs one look at the next lane.
fn try_complete(block: &BlockRun<'_>, warp: Warp, mask: u32, current: Option<u32>) -> bool {
    let named = mask & warp.existing;
    let gathered = &block.warps.gathered[warp.index(block)];
    if bits(named & !gathered.get()).any(|l| !block.has_exited(warp.base + l)) {
        return false;
    }
    let participants = named & gathered.get();
    let mut values = [0u64; 32];
    let mut op = None;
    for lane in bits(participants) {
        let a = block.arrival(warp.base + lane).get();
        if a.mask != mask || op.is_some_and(|o| o != a.op) {
            return false;
        }
        op = Some(a.op);
        values[lane as usize] = a.value;
    }
    if let Some(WarpOp::Tile(kind)) = op {
        let first = block.arrival(warp.base + participants.trailing_zeros().min(31)).get();
        return try_complete_tile(block, warp, kind, first.arg >> 16, current);
    }
    gathered.set(gathered.get() & !participants);
    if op == Some(WarpOp::Sync) {
        block.warp_synced(warp.base);
    }
    let ws = size_of_warps(block);
    let mut readers = 0u32;
    let mut sources = 0u32;
    let mut first = None;
    for lane in bits(participants) {
        let t = warp.base + lane;
        let s = &block.slots[t as usize];
        let a = block.arrival(t).get();
        first.get_or_insert((a, s.at.get()));
        let (r, absent) = result(a, lane, participants, |l| values[l as usize], ws);
        // A source lane stopped by its own fault is that fault's consequence, already reported.
        if let Some(j) = absent.filter(|&j| !block.faulted(warp.base + j)) {
            readers |= 1 << lane;
            sources |= 1 << j;
        }
        block.arrival(t).set(Arrival { value: r, ..a });
        if Some(t) != current {
            s.state.set(State::Ready);
            block.warps.warp_waiting.set(block.warps.warp_waiting.get() - 1);
            block.warps.ready.borrow_mut().push(t);
        }
    }
    if let Some((a, Some(at))) = first {
        let skipped = if named == participants { 0 } else { skipped_lanes(block, warp, named & !participants, at) };
        if readers | skipped != 0 {
            misuse(block, warp, a, at, participants, (readers, sources), skipped);
        }
    }
    true
}

/// Completes the multi-warp tile collective `kind` of the tile of `warps` warps that `warp`
/// belongs to, if every warp of the tile has gathered in it: the lanes of each warp that have
/// not exited wait in the same tile collective, and each warp's lane 0 among them (CUDA's
/// `details::sync_warps`: a warp's lane 0 arrives for it, with an atomic OR on the tile's
/// barrier word, after a `__syncwarp`; a warp whose lane 0 exited never arrives, and the tile
/// hangs on the GPU, so here it never completes and ends as a deadlock report). Then every
/// participant gets its result and the participants other than `current` are queued. Lanes
/// that skipped it and ran on are reported as for the warp collectives ([`misuse`]).
fn try_complete_tile(block: &BlockRun<'_>, warp: Warp, kind: TileOp, warps: u32, current: Option<u32>) -> bool {
    let ws = size_of_warps(block);
    let warps = warps.max(1);
    let first = warp.index(block) as u32 & !(warps - 1);
    let tile_base = first * ws;
    let same = |t: u32| {
        let a = block.arrival(t).get();
        a.op == WarpOp::Tile(kind) && a.arg >> 16 == warps && block.slots[t as usize].state.get() == State::WarpWaiting
            || Some(t) == current && a.op == WarpOp::Tile(kind)
    };
    for w in first..first + warps {
        let wp = Warp::of(block, w * ws);
        if wp.base as usize >= block.slots.len() {
            return false;
        }
        let g = block.warps.gathered[w as usize].get();
        if bits(wp.existing & !g).any(|l| !block.has_exited(wp.base + l)) {
            return false;
        }
        if g & 1 == 0 || !bits(wp.existing & g).all(|l| same(wp.base + l)) {
            return false;
        }
    }
    // Every warp of the tile is in: the values by tile rank, then the results.
    let n = (warps * ws) as usize;
    let mut values = vec![None::<u64>; n];
    for w in first..first + warps {
        let wp = Warp::of(block, w * ws);
        for l in bits(wp.existing & block.warps.gathered[w as usize].get()) {
            values[(wp.base + l - tile_base) as usize] = Some(block.arrival(wp.base + l).get().value);
        }
    }
    if kind == TileOp::Shfl {
        varying_tile_source(block, first, warps, tile_base);
    }
    for w in first..first + warps {
        let wp = Warp::of(block, w * ws);
        let g = &block.warps.gathered[w as usize];
        let participants = wp.existing & g.get();
        g.set(g.get() & !participants);
        // Each warp's part begins with a `__syncwarp` (racecheck's warp epochs).
        block.warp_synced(wp.base);
        let mut at0 = None;
        for l in bits(participants) {
            let t = wp.base + l;
            let a = block.arrival(t).get();
            let r = match kind {
                TileOp::Sync => 0,
                TileOp::Any => values.iter().any(|v| v.is_some_and(|v| v != 0)) as u64,
                TileOp::All => values.iter().all(|v| v.is_none_or(|v| v != 0)) as u64,
                TileOp::Shfl => values[(a.arg & 0xffff) as usize % n].unwrap_or(0),
            };
            block.arrival(t).set(Arrival { value: r, ..a });
            let s = &block.slots[t as usize];
            at0 = at0.or(s.at.get().map(|at| (a, at)));
            if Some(t) != current {
                s.state.set(State::Ready);
                block.warps.warp_waiting.set(block.warps.warp_waiting.get() - 1);
                block.warps.ready.borrow_mut().push(t);
            }
        }
        if let Some((a, at)) = at0 {
            let absent = wp.existing & !participants;
            let skipped = if absent == 0 { 0 } else { skipped_lanes(block, wp, absent, at) };
            if skipped != 0 {
                misuse(block, wp, a, at, participants, (0, 0), skipped);
            }
        }
    }
    true
}

/// Reports a multi-warp tile's `shfl` whose threads name different source ranks. CUDA's
/// implementation (`__static_size_multi_warp_tile_base::shfl_impl`) broadcasts one value: the
/// source thread writes it to its warp's slot, the other warps read that slot, so a tile whose
/// threads ask for different sources gets wrong values or hangs on the GPU (a warp split between
/// the source path and the reader path never completes the tile's barrier). The block runs on,
/// each thread given the value of the rank it named.
fn varying_tile_source(block: &BlockRun<'_>, first: u32, warps: u32, tile_base: u32) {
    let ws = size_of_warps(block);
    let size = warps * ws;
    let mut by_src: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut at = None;
    for w in first..first + warps {
        let wp = Warp::of(block, w * ws);
        for l in bits(wp.existing & block.warps.gathered[w as usize].get()) {
            let t = wp.base + l;
            let src = (block.arrival(t).get().arg & 0xffff) % size;
            at = at.or(block.slots[t as usize].at.get());
            match by_src.iter_mut().find(|(s, _)| *s == src) {
                Some((_, v)) => v.push(t),
                None => by_src.push((src, vec![t])),
            }
        }
    }
    let (Some(at), true) = (at, by_src.len() > 1) else { return };
    let launch = block.launch();
    let mut groups: Vec<String> = by_src
        .iter()
        .take(4)
        .map(|(src, ts)| format!("{} ask thread_block_tile::shfl for tile rank {src}", thread_ranges(launch.block, ts)))
        .collect();
    if by_src.len() > 4 {
        groups.push(format!("and {} more source ranks", by_src.len() - 4));
    }
    groups.push(format!(
        "a tile of {size} threads spans {warps} warps, and its shfl broadcasts one value (CUDA passes it \
         through one slot per warp): every thread of the tile must name the same source rank; use a \
         shared array and tile.sync() for a general exchange"
    ));
    let t0 = by_src.iter().flat_map(|(_, v)| v.iter().copied()).min().unwrap_or(tile_base);
    block.note(Finding::BarrierDivergence {
        in_warp: false,
        at: SourceLocation::from(at),
        thread: launch.thread_index(t0),
        block: block.block_idx(),
        groups,
        deadlock: false,
    });
}

/// Of the exited lanes `absent` of `warp`, those that exited at a source position after `at`
/// (the collective's call site in the kernel's own body): they ran past the collective
/// instead of exiting before it. The rule synccheck applies to `sync_threads`.
fn skipped_lanes(block: &BlockRun<'_>, warp: Warp, absent: u32, at: &'static Location<'static>) -> u32 {
    let k = block.launch().kernel;
    if at.file() != k.file || !(k.line..=k.end_line).contains(&at.line()) {
        return 0;
    }
    bits(absent)
        .filter(|&l| {
            exit_position(block, warp.base + l)
                .is_some_and(|e| e.file() == at.file() && (e.line(), e.column()) > (at.line(), at.column()))
        })
        .fold(0, |m, l| m | 1 << l)
}

/// Where thread `t`, which exited, exited (if known).
fn exit_position(block: &BlockRun<'_>, t: u32) -> Option<&'static Location<'static>> {
    let s = &block.slots[t as usize];
    match s.state.get() {
        State::Exited => s.at.get(),
        // Exited before the first barrier at the block's first exit position, slot untouched.
        State::NotStarted => block.barrier.exit0.get(),
        _ => None,
    }
}

/// Reports a collective of `warp` at `at` that completed although lanes named in its mask
/// skipped it (`skipped`), or in which shuffling lanes (`readers`) read from lanes that took
/// no part (`sources`; they got 0, as on the H200). The block runs on. One report per block:
/// the one whose first thread is lowest (then the earliest), kept until [`flush_misuse`].
#[cold]
#[inline(never)]
fn misuse(
    block: &BlockRun<'_>,
    warp: Warp,
    a: Arrival,
    at: &'static Location<'static>,
    participants: u32,
    (readers, sources): (u32, u32),
    skipped: u32,
) {
    let first = warp.base + (readers | skipped).trailing_zeros().min(31);
    if block.warps.misuse.borrow().as_ref().is_some_and(|(t, _)| *t <= first) {
        return;
    }
    let launch = block.launch();
    let ts = |m: u32| bits(m).map(|l| warp.base + l).collect::<Vec<u32>>();
    let here = SourceLocation::from(at);
    let mut groups = vec![format!(
        "{} take part in {} with mask {:#010x} at {here}",
        thread_ranges(launch.block, &ts(participants)),
        a.op.name(),
        a.mask
    )];
    let mut exits: Vec<(&'static Location<'static>, Vec<u32>)> = Vec::new();
    for l in bits(skipped) {
        let Some(e) = exit_position(block, warp.base + l) else { continue };
        match exits.iter_mut().find(|(x, _)| *x == e) {
            Some((_, v)) => v.push(warp.base + l),
            None => exits.push((e, vec![warp.base + l])),
        }
    }
    for (e, v) in &exits {
        groups.push(format!(
            "{} are named in the mask, skipped it and exited at {}",
            thread_ranges(launch.block, v),
            SourceLocation::from(*e)
        ));
    }
    if readers != 0 {
        groups.push(format!(
            "{} read from {} of the warp, which take no part in the shuffle (exited, outside the mask or \
             absent): they got 0, as on the H200",
            thread_ranges(launch.block, &ts(readers)),
            lane_ranges(sources),
        ));
    }
    groups.push(
        "every lane named in a collective's mask must reach it (or have exited before it), and a lane may \
         only read from a lane that takes part in the shuffle"
            .to_owned(),
    );
    let finding = Finding::BarrierDivergence {
        in_warp: true,
        at: here,
        thread: launch.thread_index(first),
        block: block.block_idx(),
        groups,
        deadlock: false,
    };
    *block.warps.misuse.borrow_mut() = Some((first, finding));
}

/// `lanes 16 to 23, 30` for a set of lanes.
fn lane_ranges(m: u32) -> String {
    let mut parts = Vec::new();
    let mut rest = m;
    while rest != 0 {
        let a = rest.trailing_zeros();
        let run = (rest >> a).trailing_ones();
        parts.push(if run == 1 { format!("{a}") } else { format!("{a} to {}", a + run - 1) });
        rest &= !(((1u64 << (a + run)) - 1) as u32);
    }
    let noun = if m.count_ones() == 1 { "lane" } else { "lanes" };
    format!("{noun} {}", parts.join(", "))
}

/// Records the block's warp misuse report, if any (when the block ends).
pub(crate) fn flush_misuse(block: &BlockRun<'_>) {
    if let Some((_, f)) = block.warps.take_misuse() {
        block.note(f);
    }
}

/// Lane `lane`'s result of the collective `own` among `participants`, whose values
/// `value_of` gives by lane; and, for a shuffle whose source lane is in range but takes no
/// part, that lane (the result is then 0, as on the H200).
fn result(own: Arrival, lane: u32, participants: u32, value_of: impl Fn(u32) -> u64, ws: u32) -> (u64, Option<u32>) {
    let predicates = || bits(participants).map(|l| value_of(l) != 0);
    let words = || bits(participants).map(|l| value_of(l) as u32);
    let r = match own.op {
        // Tile collectives complete in `try_complete_tile` (their tiles span whole warps).
        WarpOp::Sync | WarpOp::Tile(_) => 0,
        WarpOp::ActiveMask => own.value,
        WarpOp::Vote(VoteOp::All) => predicates().all(|p| p) as u64,
        WarpOp::Vote(VoteOp::Any) => predicates().any(|p| p) as u64,
        WarpOp::Vote(VoteOp::Ballot) => bits(participants).filter(|&l| value_of(l) != 0).fold(0, |m, l| m | 1 << l),
        WarpOp::Shfl(mode) => {
            let j = source_lane(mode, lane, own.arg, ws);
            return if j == lane {
                (own.value, None)
            } else if participants & (1 << j) != 0 {
                (value_of(j), None)
            } else {
                (0, Some(j))
            };
        }
        WarpOp::Redux(op) => u64::from(redux_words(op, words())),
        WarpOp::MatchAny => bits(participants).filter(|&l| value_of(l) == own.value).fold(0, |m, l| m | 1 << l),
        WarpOp::MatchAll => {
            if bits(participants).all(|l| value_of(l) == own.value) {
                u64::from(own.mask)
            } else {
                0
            }
        }
    };
    (r, None)
}

/// The lane a shuffle reads from, as PTX's `shfl.sync` computes it from `b` and `c` (packed
/// in `arg` by [`shfl_arg`]); the caller's own lane when the source lies outside its segment
/// (it then keeps its own value). With a warp size of 1 every lane reads itself.
///
/// PTX: `maxLane = (lane & segmask) | (clamp & !segmask)`, `minLane = lane & segmask`; up
/// reads `lane - b` if `>= maxLane`, down `lane + b` and xor `lane ^ b` if `<= maxLane`, idx
/// `minLane | (b & !segmask)` if `<= maxLane`.
pub(crate) fn source_lane(mode: ShflMode, lane: u32, arg: u32, ws: u32) -> u32 {
    if ws == 1 {
        return lane;
    }
    let b = arg & 0x1f;
    let c = arg >> 16;
    let clamp = c & 0x1f;
    let seg = (c >> 8) & 0x1f;
    let max = (lane & seg) | (clamp & !seg);
    let min = lane & seg;
    let (j, ok) = match mode {
        ShflMode::Up => (lane.wrapping_sub(b), lane >= b && lane - b >= max),
        ShflMode::Down => (lane + b, lane + b <= max),
        ShflMode::Bfly => (lane ^ b, lane ^ b <= max),
        ShflMode::Idx => (min | (b & !seg), (min | (b & !seg)) <= max),
    };
    if ok {
        j
    } else {
        lane
    }
}

/// Thread `t` exited: completes the collectives of its warp that were waiting for it.
#[cold]
pub(crate) fn lane_exited(block: &BlockRun<'_>, t: u32) {
    let warp = Warp::of(block, t);
    let lane = t - warp.base;
    let gathered = &block.warps.gathered[warp.index(block)];
    for l in bits(gathered.get()) {
        // Completing one collective clears its lanes from `gathered`.
        if gathered.get() & (1 << l) == 0 {
            continue;
        }
        let mask = block.arrival(warp.base + l).get().mask;
        if mask & (1 << lane) != 0 {
            try_complete(block, warp, mask, None);
        }
    }
}

/// The report for a block in which no thread can run while some lanes wait in warp
/// collectives that cannot complete.
#[cold]
pub(crate) fn deadlock(block: &BlockRun<'_>) -> Finding {
    let launch = block.launch();
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    let mut first = None;
    for (t, s) in block.slots.iter().enumerate() {
        let at = s.at.get().map(SourceLocation::from).map_or_else(|| "?".to_owned(), |l| l.to_string());
        let what = match s.state.get() {
            State::WarpWaiting => {
                let a = block.arrival(t as u32).get();
                first.get_or_insert((t as u32, s.at.get()));
                format!("wait in {} with mask {:#010x} at {at}", a.op.name(), a.mask)
            }
            State::Waiting => format!("wait at the barrier at {at}"),
            _ => continue,
        };
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, ts)) => ts.push(t as u32),
            None => groups.push((what, vec![t as u32])),
        }
    }
    let (t, at) = first.expect("a deadlock in a warp collective has a waiting lane");
    let mut lines: Vec<String> =
        groups.iter().map(|(what, ts)| format!("{} {what}", thread_ranges(launch.block, ts))).collect();
    if groups.iter().any(|(what, _)| what.contains("thread_block_tile::")) {
        lines.push(
            "a multi-warp tile's collective completes when every thread of each of the tile's warps has reached \
             it; a warp whose lane 0 exited never arrives (on the GPU the tile hangs)"
                .to_owned(),
        );
    }
    lines.push(format!(
        "a warp collective completes when every lane named in its mask has reached one of the same \
         kind with the same mask, or exited (warp size {})",
        size_of_warps(block)
    ));
    Finding::BarrierDivergence {
        in_warp: true,
        at: at.map_or_else(|| SourceLocation::from(Location::caller()), SourceLocation::from),
        thread: launch.thread_index(t),
        block: block.block_idx(),
        groups: lines,
        deadlock: true,
    }
}
