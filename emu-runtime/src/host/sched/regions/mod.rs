//! A block run as *barrier regions*: the fast form `#[kernel]` makes of a kernel whose
//! barriers are structured (`emu-macros/src/fission/`).
//!
//! A *region* is the code between two barriers. The kernel's *region form* is one function
//! per block: each region is a loop over the block's live threads ([`Regions::each`]), each
//! barrier a call of [`Regions::barrier`], and block-uniform code (loop counters such as the
//! reduction's `s`, shared arrays) runs once, between the loops. Values that live across a
//! barrier sit in per-thread [`Lanes`]. No fiber switch, no future, no state dispatch per
//! thread and barrier: the cost of a barrier is one loop's end and another's start.
//!
//! # What stays the same
//!
//! * **Order.** Within a region, threads run in the order the per-thread scheduler would
//!   resume them: index order, or with `EMU_SEED` the seed's start order, then at each barrier
//!   the previous order shuffled with the seed keyed by the new generation (what
//!   `block.rs::resume_waiting` does to the arrival list, which is the previous run order).
//!   Memory interleavings, and with them results and racecheck's findings, are therefore the
//!   same as on the general path.
//! * **Checkers and reports.** Before each thread's part of a region the block's running
//!   thread is set ([`BlockRun::regions_set_current`]), so memcheck, initcheck, racecheck,
//!   panics and `thread_idx()` in helpers see the right thread; the barrier generation moves
//!   on at each barrier as it does on release, so racecheck's epochs are the same.
//! * **synccheck.** Every live thread reaches each barrier by construction (the macro only
//!   makes regions of barriers at statement level, under conditions it proved block-uniform).
//!   Threads that exit in a region are kept with their exit position; at the next barrier,
//!   synccheck's own verdict runs over them (`RegionBarrier`), so a thread that skipped the
//!   barrier is reported exactly as on the general path.
//! * **Failures.** The block runs inside its first thread's call on a runner fiber
//!   (`block::runner`): a panic or an out-of-bounds access unwinds out of the region to the
//!   runner, which records it for the running thread and fails the block; a stack overflow is
//!   caught by the fiber's guard.
//!
//! # When a launch takes it
//!
//! [`launch_regions`] takes the region form unless `EMU_PATH=general`, `EMU_SCHEDULE=threads`
//! or a debugger traces the process (`TracerPid` in `/proc/self/status`, read once), which
//! take the kernel's per-thread state machine (`launch_tasks`), so that stepping works as
//! before. `EMU_VERBOSE=1` prints the path of every launch.

pub(crate) mod fast;
mod slots;
mod vote;

pub(crate) use slots::SlotPool;
pub use slots::{HandOver, Lanes, SlotOf, Slots, TaggedSlots, ZeroSlots};
pub use vote::{vote_new, vote_put, vote_seal, Vote, Voted};

use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::device::Dim3;
use crate::host::check::{synccheck, SharedShadows, Site};
use crate::host::config::{self, Checks, ExecPath, Schedule, Tier};
use crate::host::launch_desc::{KernelInfo, LaunchConfig};
use crate::host::report::error::Error;
use crate::host::report::{last_error, Finding};
use crate::host::sched::block::{self, BlockRun, RunnerFn, Threads};
use crate::host::sched::context;
use crate::host::sched::fiber::Suspender;
use crate::host::sched::launch;
use crate::host::sched::thread::{Exit, ThreadCtx};
use crate::host::sched::verify::{self, Lines, Written};

/// Whether a debugger traces this process (Linux: a non-zero `TracerPid`), read once.
fn traced() -> bool {
    static TRACED: OnceLock<bool> = OnceLock::new();
    *TRACED.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .is_some_and(|s| s.lines().find_map(|l| l.strip_prefix("TracerPid:")).is_some_and(|v| v.trim() != "0"))
    })
}

/// The host path a launch takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taken {
    Regions,
    Lanes,
    General(&'static str),
}

thread_local! {
    /// The path the last launch made on this host thread took (for tests).
    static LAST: std::cell::Cell<&'static str> = const { std::cell::Cell::new("none") };
    /// What the last verbose regions launch on this host thread counted ([`Counts`]).
    static LAST_COUNTS: std::cell::Cell<[usize; Count::ALL.len()]> =
        const { std::cell::Cell::new([0; Count::ALL.len()]) };
}

/// What `EMU_VERBOSE` counts of a regions launch: its region runs that took one fast form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// Ran vectorised (`Regions::each_chunk_below`; `fission/vector.rs`, a lane loop's blocks).
    Vectorised,
    /// Had their accesses' bounds proved from their indices' ranges (`fission/ranges.rs`).
    Proved,
    /// Checked their views once (`fission/views.rs`).
    Views,
    /// Skipped the threads past a scaled bound (`Regions::scaled_bound`).
    Scaled,
    /// Ran every `step`-th thread only (`Regions::each_strided`).
    Strided,
    /// Blocks of a lane loop run in a span of consecutive blocks (`Regions::each_span_chunk`).
    Spanned,
    /// Ran vectorised writing shared arrays in place (`Regions::each_chunk_in_place`).
    InPlace,
    /// Ran the threads below a bound only, one at a time (`Regions::each_below` with a bound
    /// below the block's threads: `if tid < s { .. }` and the like, `fission/mod.rs`,
    /// `narrowing`).
    Narrowed,
}

impl Count {
    const ALL: [Count; 8] = [
        Count::Vectorised,
        Count::Proved,
        Count::Views,
        Count::Scaled,
        Count::Strided,
        Count::Spanned,
        Count::InPlace,
        Count::Narrowed,
    ];

    /// What `EMU_VERBOSE` says of `n` such runs, `None` when it says nothing of none.
    fn say(self, n: usize) -> Option<String> {
        let what = match self {
            Count::Vectorised => return Some(format!("{n} region runs were vectorised")),
            Count::Proved => "had their bounds proved from their indices' ranges",
            Count::Views => "checked their views once",
            Count::Scaled => "skipped the threads past a scaled bound",
            Count::Strided => "ran every n-th thread only, the others failing its `tid % n == 0`",
            Count::InPlace => "of those wrote shared memory in place",
            Count::Narrowed => "ran only the threads below a bound, one at a time",
            Count::Spanned => {
                return (n > 0).then(|| format!("{n} blocks ran in spans of consecutive blocks, vectorised together"))
            }
        };
        (n > 0).then(|| format!("{n} region runs {what}"))
    }
}

/// A launch's [`Count`]s, shared by its blocks.
#[derive(Default)]
struct Counts([AtomicUsize; Count::ALL.len()]);

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on took the fast form `c`, for tests.
fn last_count(c: Count) -> usize {
    LAST_COUNTS.with(std::cell::Cell::get)[c as usize]
}

/// The path the last launch made on this host thread took: `"regions"`, `"lanes"` or
/// `"general"` (what `EMU_VERBOSE=1` prints, for tests).
#[doc(hidden)]
pub fn last_path() -> &'static str {
    LAST.with(std::cell::Cell::get)
}

fn set_last(t: Taken) {
    LAST.with(|c| {
        c.set(match t {
            Taken::Regions => "regions",
            Taken::Lanes => "lanes",
            Taken::General(_) => "general",
        })
    });
}

/// Which path a launch of a kernel with a fast form takes, printed with `EMU_VERBOSE=1`.
/// Settings that do not parse take the general path, whose launch reports them.
fn choose(kernel: &KernelInfo, fast: Taken) -> Taken {
    let Ok(c) = config::effective() else {
        set_last(Taken::General("invalid settings"));
        return Taken::General("invalid settings");
    };
    let tier = match fast {
        Taken::Regions => Tier::Regions,
        _ => Tier::Lanes,
    };
    let taken = if c.get_path() == ExecPath::General {
        Taken::General("EMU_PATH=general")
    } else if c.get_schedule() == Schedule::Threads {
        Taken::General("EMU_SCHEDULE=threads")
    } else if traced() {
        Taken::General("a debugger is attached")
    } else if !c.get_tier(tier) {
        Taken::General(if tier == Tier::Regions { "EMU_TIERS_OFF=regions" } else { "EMU_TIERS_OFF=lanes" })
    } else {
        fast
    };
    if c.get_verbose() {
        announce(kernel, taken);
    }
    set_last(taken);
    taken
}

/// Prints the path of a launch of a kernel.
fn announce(kernel: &KernelInfo, taken: Taken) {
    match taken {
        Taken::Regions => {
            eprintln!("deviceemu: `{}` runs as barrier regions (loops over each block's threads)", kernel.name)
        }
        Taken::Lanes => {
            eprintln!("deviceemu: `{}` runs as a lane loop (a loop over each block's threads)", kernel.name)
        }
        Taken::General(why) => {
            eprintln!("deviceemu: `{}` runs on the general path, one GPU thread at a time ({why})", kernel.name)
        }
    }
}

/// A progress point in region code: the head of a `while` that fission runs between barriers
/// (a loop that ends on the thread's own arithmetic, `emu-macros/src/fission/mod.rs`,
/// `local_termination`), every few passes ([`crate::__private::progress_due`]). It never
/// yields (the region runs the block's threads one after another): a thread that faulted
/// stops here, as at a progress point of the general path (a loop on the zero its faulting
/// load gave would not end), and the watchdog looks at the block as at a region barrier, so a
/// loop that never ends is stopped with 702 as on the general path.
#[doc(hidden)]
#[track_caller]
#[inline(never)]
pub fn region_progress_point() {
    let at = Location::caller();
    let Some(block) = crate::host::sched::context::current() else { return };
    crate::host::sched::stuck::beat();
    block.stop_if_faulted();
    crate::host::sched::progress::watch_region_barrier(block, at);
}

/// Prints the path of a launch of a kernel that has only the general form (`EMU_VERBOSE=1`).
#[doc(hidden)]
pub fn announce_general(kernel: &'static KernelInfo, why: &'static str) {
    set_last(Taken::General(why));
    if config::effective().is_ok_and(|c| c.get_verbose()) {
        announce(kernel, Taken::General(why));
    }
}

/// Runs a kernel that `#[kernel]` lowered into barrier regions: `regions` runs one block
/// ([`Regions`]); `make` is the kernel's state machine, for the general path.
///
/// This is what `launch!` calls for a kernel whose barriers are all structured.
///
/// `written` are the launch's writable buffers, which `EMU_PATH=verify` compares between the
/// region form and the general path (`verify.rs`).
pub fn launch_regions<R, M, F>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    regions: R,
    make: M,
) -> Result<(), Error>
where
    R: Fn(&mut Regions<'_>) + Sync,
    M: Fn(ThreadCtx) -> F + Sync,
    F: std::future::Future<Output = Exit>,
{
    launch_regions_lines(kernel, cfg, written, Lines::Same, regions, make)
}

/// [`launch_regions`], saying whether the region form reports every access at the general
/// path's line (`verify` compares them).
fn launch_regions_lines<R, M, F>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    lines: Lines,
    regions: R,
    make: M,
) -> Result<(), Error>
where
    R: Fn(&mut Regions<'_>) + Sync,
    M: Fn(ThreadCtx) -> F + Sync,
    F: std::future::Future<Output = Exit>,
{
    if choose(kernel, Taken::Regions) != Taken::Regions {
        return launch::launch_tasks(kernel, cfg, make);
    }
    if let Some(c) = verifying() {
        return verify::verify(
            kernel.name,
            "barrier-region",
            &c,
            written,
            lines,
            || run_regions(kernel, cfg, &regions),
            || launch::launch_tasks(kernel, cfg, make),
        );
    }
    run_regions(kernel, cfg, &regions)
}

/// The configuration, when launches run under `EMU_PATH=verify` (child grids, which a
/// device-side launch makes, are not run twice: their parent's launch is what is compared).
fn verifying() -> Option<config::Config> {
    config::effective()
        .ok()
        .filter(|c| c.get_path() == ExecPath::Verify && !crate::host::sched::devrt::launching_child())
}

/// The region form's run of a launch.
fn run_regions(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    regions: &(dyn Fn(&mut Regions<'_>) + Sync),
) -> Result<(), Error> {
    run_counted(kernel, cfg, regions, None)
}

/// Runs every block's `Regions` by `regions`. With `EMU_VERBOSE` it also counts the region
/// runs that ran vectorised (`fission/vector.rs`, and a lane loop's blocks) and those whose
/// bounds were proved (`fission/ranges.rs`) or whose views were checked once
/// (`fission/views.rs`), and says so.
fn run_counted(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    regions: &(dyn Fn(&mut Regions<'_>) + Sync),
    span: Option<&SpanFn<'_>>,
) -> Result<(), Error> {
    let verbose = config::effective().is_ok_and(|c| c.get_verbose());
    let counts = Counts::default();
    // A span of `k` blocks: how many of them it ran (`None` when its guard failed).
    let shared_counts = &counts;
    let spanned = span.map(|span| {
        move |b: &BlockRun<'_>, k: u64| -> Option<u64> {
            let mut r = Regions::new_span(b, k);
            r.counts = verbose.then_some(shared_counts);
            if !span(&mut r) {
                return None;
            }
            let done = r.stopped.unwrap_or(k);
            for c in [Count::Vectorised, Count::Spanned] {
                r.count_n(c, done as usize);
            }
            Some(done)
        }
    });
    let spanned = spanned.as_ref().map(|f| f as &SpanRun<'_>);
    let result = run_blocks(
        kernel,
        cfg,
        &|b: &BlockRun<'_>| {
            let mut r = Regions::new(b);
            r.counts = verbose.then_some(&counts);
            regions(&mut r);
        },
        spanned,
    );
    if verbose {
        let last = counts.0.each_ref().map(|c| c.load(Ordering::Relaxed));
        LAST_COUNTS.with(|c| c.set(last));
        for (c, n) in Count::ALL.into_iter().zip(last) {
            if let Some(line) = c.say(n) {
                eprintln!("deviceemu: `{}`: {line}", kernel.name);
            }
        }
    }
    result
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on ran vectorised (`Regions::each_chunk_below`), for tests.
#[doc(hidden)]
pub fn last_vectorised() -> usize {
    last_count(Count::Vectorised)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on ran vectorised writing shared arrays in place
/// (`Regions::each_chunk_in_place`), for tests.
#[doc(hidden)]
pub fn last_in_place() -> usize {
    last_count(Count::InPlace)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on ran with their bounds proved from their indices' ranges
/// (`fission/ranges.rs`, [`Regions::note_proved`]), for tests.
#[doc(hidden)]
pub fn last_proved() -> usize {
    last_count(Count::Proved)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on checked their views once (`fission/views.rs`, [`Regions::note_views`]),
/// for tests.
#[doc(hidden)]
pub fn last_views() -> usize {
    last_count(Count::Views)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on skipped the threads past a scaled bound ([`Regions::scaled_bound`]), for
/// tests.
#[doc(hidden)]
pub fn last_scaled() -> usize {
    last_count(Count::Scaled)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on ran only the threads below a bound, one at a time
/// ([`Regions::each_below`]), for tests.
#[doc(hidden)]
pub fn last_narrowed() -> usize {
    last_count(Count::Narrowed)
}

/// How many region runs of the last regions launch made on this host thread with
/// `EMU_VERBOSE` on ran every n-th thread only ([`Regions::each_strided`]), for tests.
#[doc(hidden)]
pub fn last_strided() -> usize {
    last_count(Count::Strided)
}

/// How many blocks of the last lane-loop launch made on this host thread with `EMU_VERBOSE`
/// on ran in spans of consecutive blocks ([`Regions::each_span_chunk`]), for tests.
#[doc(hidden)]
pub fn last_spanned() -> usize {
    last_count(Count::Spanned)
}

/// What a region form leans on beyond its barriers, which some launches cannot give it
/// ([`launch_regions_guarded`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Guard {
    /// Warp shuffles lowered into hand-overs between regions ([`Exchange`]).
    pub warps: bool,
    /// Waiting `#[device]` helpers written out in the region form (`fission/inline.rs`),
    /// whose accesses a checker would report at the call's line, not the helper's.
    pub written_out: bool,
    /// Values the block loads once from shared memory where each thread loads them on the
    /// general path (a flag a loop ends on, `fission/mod.rs`, `shared_reads`): a checker
    /// would see one load, not each thread's.
    pub shared_once: bool,
}

/// [`launch_regions`] for a kernel whose region form leans on more than its barriers
/// ([`Guard`]).
///
/// A form with warp shuffles lowered into hand-overs between regions ([`Exchange`]) assumes
/// every lane of every warp reaches each shuffle: it runs only for 1-D blocks of whole warps,
/// with a warp size of 32, without a per-access checker (whose happens-before edges and
/// reports come from the general path's collectives) and without `EMU_SEED` (which shuffles
/// the order lanes resume in after a collective, on the general path). A form with written-out
/// helpers runs without a per-access checker (whose reports name the helper's own lines on the
/// general path). Other launches take the general path.
pub fn launch_regions_guarded<R, M, F>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    guard: Guard,
    regions: R,
    make: M,
) -> Result<(), Error>
where
    R: Fn(&mut Regions<'_>) + Sync,
    M: Fn(ThreadCtx) -> F + Sync,
    F: std::future::Future<Output = Exit>,
{
    if let Ok(c) = config::effective() {
        let b = cfg.block;
        let whole_warps = b.y == 1 && b.z == 1 && b.x % 32 == 0 && c.get_warp_size() == 32;
        let checking = crate::host::check::any(c.get_checks());
        let why = if guard.warps && !whole_warps {
            Some("its warp collectives need 1-D blocks of whole warps of 32 in region form")
        } else if guard.warps && !c.get_tier(Tier::Shuffles) {
            Some("EMU_TIERS_OFF=shuffles")
        } else if guard.warps && c.get_seed().is_some() {
            Some("EMU_SEED shuffles the lanes a warp collective resumes")
        } else if guard.warps && checking {
            Some("its warp collectives run lane by lane under a checker")
        } else if guard.written_out && checking {
            Some("a checker reports a waiting helper's accesses at the helper's lines")
        } else if guard.shared_once && checking {
            Some("a checker sees each thread's load of a flag the region form loads once per block")
        } else {
            None
        };
        if let Some(why) = why {
            announce_general(kernel, why);
            return launch::launch_tasks(kernel, cfg, make);
        }
    }
    // Written out, a helper's accesses report the line of its call in the kernel, where the
    // general path names the helper's own line (`fission/inline.rs`).
    let lines = if guard.written_out { Lines::CallsOfHelpers } else { Lines::Same };
    launch_regions_lines(kernel, cfg, written, lines, regions, make)
}

/// The values a block's threads hand to one warp shuffle or vote of a region kernel
/// ([`launch_regions_guarded`]): `fission` lowers a statement-level full-mask shuffle into a
/// hand-over ([`Exchange::put`]) at the end of one region and a read at the start of the
/// next, so that every lane's value is in place before any lane reads. The source lane is
/// the one the general path computes (`warp::source_lane`, PTX's rule with a width of 32).
pub struct Exchange<T> {
    vals: Vec<std::cell::Cell<Option<T>>>,
    /// The last warp reduction read from these values ([`Exchange::reduced`]): its warp's
    /// first thread, its operation and its result. Every lane of a warp reads the same
    /// result, so the first computes it and the others take it from here; a hand-over
    /// forgets it.
    memo: std::cell::Cell<Option<(usize, crate::host::sched::warp::ReduxOp, u32)>>,
}

impl<T: Copy> Exchange<T> {
    /// An exchange for a block of `threads` threads.
    pub fn new(threads: usize) -> Self {
        Exchange { vals: (0..threads).map(|_| std::cell::Cell::new(None)).collect(), memo: std::cell::Cell::new(None) }
    }

    /// Thread `t` hands over `v`.
    #[inline(always)]
    pub fn put(&self, t: usize, v: T) {
        self.memo.set(None);
        if let Some(c) = self.vals.get(t) {
            c.set(Some(v));
        }
    }

    /// Every live thread below `bound` hands over its value of a local kept per thread
    /// (`slots`): what a region whose only code is that hand-over does, as one copy.
    ///
    /// Inside a warp-aligned `if tid < bound { .. }` of a one-dimensional block (`bound` a
    /// multiple of 32; `usize::MAX` elsewhere) only the threads below `bound` read the values,
    /// each from its own warp, so only those warps are handed over. The other lanes keep what
    /// they held: no thread of this round reads them, and a later round hands over anew.
    #[inline(always)]
    pub fn put_lanes<S: HandOver<T>>(&self, slots: &S, rb: &Regions<'_>, bound: usize) {
        self.memo.set(None);
        let end = bound.div_ceil(32).saturating_mul(32).min(self.vals.len());
        slots.hand_over(&self.vals[..end], rb.live());
    }

    /// Forgets every hand-over (before a region that hands values over): a thread that
    /// stops in it (memcheck) hands nothing over, as it takes no part on the general path.
    #[inline(always)]
    pub fn clear(&self) {
        self.memo.set(None);
        self.vals.iter().for_each(|c| c.set(None));
    }

    /// What thread `t`'s shuffle of kind `mode` with operand `b` reads, or `None` when the
    /// source lane stopped at a fault before handing its value over (the general path then
    /// gives 0 and, for a lane that faulted, no report).
    #[inline(always)]
    pub(crate) fn read(&self, t: usize, mode: crate::device::backend::ShflMode, b: u32) -> Option<T> {
        let lane = (t % 32) as u32;
        let src =
            crate::host::sched::warp::source_lane(mode, lane, crate::host::sched::warp::shfl_arg(mode, b, 32), 32);
        self.vals.get(t - lane as usize + src as usize).and_then(std::cell::Cell::get)
    }
}

impl<T: Copy> Exchange<T> {
    /// The values the lanes of thread `t`'s warp handed over (those that did not stopped at a
    /// fault and take no part).
    #[inline(always)]
    pub(crate) fn warp_values(&self, t: usize) -> impl Iterator<Item = T> + '_ {
        let base = t - t % 32;
        self.vals.iter().skip(base).take(32).filter_map(std::cell::Cell::get)
    }

    /// `op` over the words of the values thread `t`'s warp handed over (`warp::redux_words`),
    /// computed once per warp and hand-over.
    #[inline(always)]
    pub(crate) fn reduced(&self, t: usize, op: crate::host::sched::warp::ReduxOp, word: impl Fn(T) -> u32) -> u32 {
        let base = t - t % 32;
        match self.memo.get() {
            Some((b, o, w)) if b == base && o == op => w,
            _ => {
                let w = crate::host::sched::warp::redux_words(op, self.warp_values(t).map(word));
                self.memo.set(Some((base, op, w)));
                w
            }
        }
    }
}

impl Exchange<bool> {
    /// The predicates of thread `t`'s warp, lane `l` in bit `l` (`ballot_sync`), and the lanes
    /// that handed one over (those that did not stopped at a fault and take no part).
    #[inline(always)]
    pub(crate) fn ballot(&self, t: usize) -> (u32, u32) {
        let base = t - t % 32;
        let (mut bits, mut present) = (0, 0);
        for l in 0..32 {
            if let Some(p) = self.vals.get(base + l).and_then(std::cell::Cell::get) {
                bits |= u32::from(p) << l;
                present |= 1 << l;
            }
        }
        (bits, present)
    }
}

impl<T> std::fmt::Debug for Exchange<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange").field("threads", &self.vals.len()).finish()
    }
}

/// Runs a barrier-free kernel as a lane loop: `lanes` runs one block ([`Regions`], a single
/// region); `body` is the per-thread form, for the general path.
///
/// This is what `launch!` calls for a barrier-free kernel that `#[kernel]` found loop-safe.
pub fn launch_lanes<R, B>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    lanes: R,
    body: B,
) -> Result<(), Error>
where
    R: Fn(&mut Regions<'_>) + Sync,
    B: Fn(ThreadCtx) -> Exit + Sync,
{
    lanes_with(kernel, cfg, written, &lanes, None, body)
}

/// A span form of a lane loop (`fission/spans.rs`): runs the blocks its [`Regions`] covers,
/// `Regions::new_span`, and says whether its guard held.
type SpanFn<'a> = dyn Fn(&mut Regions<'_>) -> bool + Sync + 'a;

/// A span form run over the `k` blocks from a runner's running one (`run_blocks`).
type SpanRun<'a> = dyn Fn(&BlockRun<'_>, u64) -> Option<u64> + Sync + 'a;

/// [`launch_lanes`] for a kernel with a span form too (`fission/spans.rs`): `span` runs
/// several consecutive blocks of a grid row at once where the launch lets it
/// (`BlockRun::regions_span_room`), and says `false` when its guard fails, which runs the
/// blocks one by one.
pub fn launch_lanes_spanned<S, R, B>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    span: S,
    lanes: R,
    body: B,
) -> Result<(), Error>
where
    S: Fn(&mut Regions<'_>) -> bool + Sync,
    R: Fn(&mut Regions<'_>) + Sync,
    B: Fn(ThreadCtx) -> Exit + Sync,
{
    lanes_with(kernel, cfg, written, &lanes, Some(&span), body)
}

fn lanes_with<B>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    written: &[Written<'_>],
    lanes: &(dyn Fn(&mut Regions<'_>) + Sync),
    span: Option<&SpanFn<'_>>,
    body: B,
) -> Result<(), Error>
where
    B: Fn(ThreadCtx) -> Exit + Sync,
{
    if choose(kernel, Taken::Lanes) != Taken::Lanes {
        return launch::launch(kernel, cfg, body);
    }
    let run = || run_counted(kernel, cfg, lanes, span);
    match verifying() {
        Some(c) => verify::verify(kernel.name, "lane-loop", &c, written, Lines::Same, run, || {
            launch::launch(kernel, cfg, body)
        }),
        None => run(),
    }
}

/// Runs every block by `block`, inside the call of its first thread on a runner fiber, so
/// that panics, failures and stack overflows end the block as they do a thread.
///
/// With `spans` (a lane loop's span form), the blocks of a grid row run several at a time
/// where the launch lets them (`BlockRun::regions_span_room`): `spans(b, k)` runs the `k`
/// blocks from the running one and returns how many it ran before a chunk panicked (all of
/// them, usually), or `None` when its guard failed. A failed guard (a partial last block in
/// the span, say) is tried again on half the span, down to two blocks; then, and when a
/// span's first chunk panics, the running block runs alone, by `block`.
fn run_blocks(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    block: &(dyn Fn(&BlockRun<'_>) + Sync),
    spans: Option<&SpanRun<'_>>,
) -> Result<(), Error> {
    let body = |_: ThreadCtx| -> Exit {
        let b = context::block_for("barrier regions");
        // The blocks of the span, one after another on this fiber (`BlockRun::run_span`).
        loop {
            {
                // The block's shared views are live until it ends (`mem/stamp.rs`): the guards
                // of its proved regions ask that once per view (`__private::view_aligned`).
                // Its threads all run on this host thread; without clusters, no other block can
                // map its shared memory, so its atomics there need no locked instruction.
                let _running = match kernel.cluster[0] {
                    0 => crate::host::mem::stamp::Running::enter_alone(
                        b.arena().stamp(),
                        b.arena().base(),
                        b.arena().size(),
                    ),
                    _ => crate::host::mem::stamp::Running::enter(b.arena().stamp()),
                };
                let mut done = 0;
                if let Some(spans) = spans {
                    let mut k = b.regions_span_room();
                    while k > 1 {
                        if let Some(d) = spans(b, k) {
                            done = d;
                            break;
                        }
                        k /= 2;
                    }
                }
                if done > 0 {
                    b.regions_span_done(done);
                } else {
                    block(b);
                }
            }
            if !b.regions_next_block() {
                break;
            }
        }
        Location::caller()
    };
    let runner = |b: &BlockRun<'_>, y: &Suspender<'_>| block::runner(b, &body, y);
    let runner: &RunnerFn<'_> = &runner;
    let result = launch::run_with(kernel, cfg, &|_| Threads::Calls(runner), launch::Spread::Adaptive);
    if let Err(e) = &result {
        last_error::record(e);
    }
    result
}

/// One block being run as barrier regions: its live threads in running order, and those that
/// exited since the last barrier.
pub struct Regions<'r> {
    block: &'r BlockRun<'r>,
    /// Threads in the block.
    n: usize,
    /// The indices every thread of the block shares (`thread_idx` zero).
    ctx: ThreadCtx,
    /// Whether the block is one-dimensional (a thread's `thread_idx.x` is its linear index).
    one_d: bool,
    /// Whether the live threads are exactly `0..n` in index order (no seed, no exit yet):
    /// then `order` is not kept.
    dense: bool,
    /// The live threads, in running order (when not `dense`).
    order: Vec<u32>,
    /// Threads that exited since the last barrier, with where.
    exits: Vec<(u32, Exit)>,
    /// The seed, for the order after each barrier.
    seed: Option<u64>,
    /// The launch's counts of region runs by fast form, when `EMU_VERBOSE` asks for them.
    counts: Option<&'r Counts>,
    /// The fast-path tiers turned off (`EMU_TIERS_OFF`, [`Tier::bit`]s).
    tiers_off: u32,
    /// In a span of blocks (`Regions::new_span`), the blocks its chunks ran before one
    /// panicked (the chunk's blocks and those after it did not run).
    stopped: Option<u64>,
}

impl<'r> Regions<'r> {
    /// Whether the fast-path tier with bit `bit` ([`Tier::bit`], `__private::TIER_*`) is on:
    /// each tier's guard in a region form asks it (`EMU_TIERS_OFF`).
    #[inline(always)]
    pub fn tier(&self, bit: u32) -> bool {
        self.tiers_off & bit == 0
    }

    fn new(block: &'r BlockRun<'r>) -> Self {
        let launch = block.launch();
        let n = launch.block.count() as usize;
        let start = block.regions_take_starts();
        // Block-level code (uniform values) runs as the first thread to start would.
        block.regions_set_current(start.as_ref().and_then(|o| o.first().copied()).unwrap_or(0));
        let b = launch.block;
        Regions {
            block,
            n,
            ctx: ThreadCtx {
                thread_idx: Dim3::new(0, 0, 0),
                block_idx: block.block_idx(),
                block_dim: b,
                grid_dim: launch.grid,
                warp_mask: block.warp_mask(),
            },
            one_d: b.y == 1 && b.z == 1,
            dense: start.is_none(),
            order: start.unwrap_or_default(),
            exits: Vec::new(),
            seed: launch.config.get_seed(),
            tiers_off: launch.config.get_tiers_off(),
            counts: None,
            stopped: None,
        }
    }

    /// The `k` blocks of one grid row from the running one, as one block of `k` times its
    /// threads for a lane loop's span form (`fission/spans.rs`): lane `t` is thread `t %
    /// block_dim().x` of block `t / block_dim().x` after the running one, which a kernel that
    /// reads its position only as its global index cannot tell from thread `t` of the running
    /// block. `BlockRun::regions_span_room` gave `k`: the block is one-dimensional, of at most
    /// [`fast::LANE_CHUNK`] threads, and the launch has no checker, seed or debugger watch.
    fn new_span(block: &'r BlockRun<'r>, k: u64) -> Self {
        let mut r = Regions::new(block);
        r.n *= k as usize;
        r
    }

    /// Adds `n` to the launch's count of fast form `c` (`EMU_VERBOSE`).
    #[inline(always)]
    fn count_n(&self, c: Count, n: usize) {
        if let Some(counts) = self.counts {
            counts.0[c as usize].fetch_add(n, Ordering::Relaxed);
        }
    }

    /// [`Regions::each_chunk`] over a span of blocks ([`Regions::new_span`]), for a lane
    /// loop's span form: each chunk covers whole blocks, so that a chunk that panics leaves its
    /// blocks unstarted. The span then stops there ([`Regions::stopped`]), and its runner
    /// runs that block and the rest one by one, where the panic is raised again and reported
    /// by the lane that raises it.
    #[inline(always)]
    pub fn each_span_chunk<V>(&mut self, mut vector: V)
    where
        V: FnMut(&LaneCursor, usize, usize),
    {
        let cursor = LaneCursor { ctx: self.ctx };
        let dim = self.ctx.block_dim.x as usize;
        // Whole blocks per chunk (`new_span`: a block has at most `LANE_CHUNK` threads, fewer
        // than `SPAN_CHUNK`).
        let chunk = (fast::SPAN_CHUNK / dim.max(1)).max(1) * dim;
        let wide = fast::wide_lanes();
        let mut c0 = 0;
        while c0 < self.n {
            let m = chunk.min(self.n - c0);
            // SAFETY: `wide` is `wide_lanes()`.
            if unsafe { run_chunk(&mut vector, &cursor, c0, m, wide) }.is_err() {
                forget_chunk_panic();
                self.stopped = Some((c0 / dim) as u64);
                return;
            }
            c0 += m;
        }
    }

    /// The indices the block's threads share, `thread_idx` zero: what block-uniform code reads.
    #[inline(always)]
    pub fn block_ctx(&self) -> ThreadCtx {
        self.ctx
    }

    /// How many threads the block has.
    #[inline(always)]
    pub fn threads(&self) -> usize {
        self.n
    }

    /// Whether the next region runs threads `0..threads()` in index order (a 1-D block, no
    /// seed, nobody exited): then a lane loop's index proof over threads 0 and `threads() - 1`
    /// covers every thread it runs.
    #[inline(always)]
    pub fn in_index_order(&self) -> bool {
        self.dense && self.one_d
    }

    /// Whether the next region runs threads `0..threads()` in index order, the block of any
    /// shape (no seed, nobody exited): then [`Regions::each_row_chunk`] may run it row by row.
    #[inline(always)]
    pub fn in_row_order(&self) -> bool {
        self.dense
    }

    /// Runs a lane loop's region row by row (`fission/rows.rs`): for each row `(y, z)` of the
    /// block, in index order, `vector(cursor, x0, m)` for its lanes `x0..x0 + m` (at most
    /// [`fast::LANE_CHUNK`] of them), `cursor.row_lane(x)` giving thread `(x, y, z)`'s indices.
    /// `vector` returns whether it ran those lanes; when it did not (its proof did not hold
    /// for them), or it panicked, which it does before it has any effect (its stores are
    /// staged), the lanes run one by one through `scalar(t, ctx)`, each named as the running
    /// thread, so that a panic is raised and reported by the thread that raises it.
    #[inline(always)]
    pub fn each_row_chunk<V, S>(&mut self, mut vector: V, mut scalar: S)
    where
        V: FnMut(&LaneCursor, usize, usize) -> bool,
        S: FnMut(usize, ThreadCtx),
    {
        debug_assert!(self.in_row_order());
        self.count(Count::Vectorised);
        let dim = self.ctx.block_dim;
        let (dx, dy) = (dim.x as usize, dim.y.max(1) as usize);
        let rows = self.n.checked_div(dx).unwrap_or(0);
        // The block's chunks in index order: row `c / per_row`, lanes from `(c % per_row) *
        // LANE_CHUNK` of it.
        let per_row = dx.div_ceil(fast::LANE_CHUNK);
        let chunks = rows * per_row;
        let base = self.ctx;
        let at = move |c: usize| {
            let row = c / per_row;
            let mut ctx = base;
            // `row < n / dx` and `n = dx * dy * dz`: `y < dy` and `z < dz` fit `u32`.
            ctx.thread_idx = Dim3::new(0, (row % dy) as u32, (row / dy) as u32);
            let x0 = (c % per_row) * fast::LANE_CHUNK;
            (LaneCursor { ctx }, row * dx, x0, fast::LANE_CHUNK.min(dx - x0))
        };
        let wide = fast::wide_lanes();
        // The chunks run one after another under one `catch_unwind` (its cost, and the
        // running thread's, were a tenth of a 32-lane row's), until one declines or panics:
        // that one has had no effect, and runs lane by lane; the rest run on from there.
        let mut next = 0;
        while next < chunks {
            let (_, t0, x0, _) = at(next);
            self.block.regions_set_current((t0 + x0) as u32);
            let reached = std::cell::Cell::new(next);
            let mut batch = || {
                for c in reached.get()..chunks {
                    reached.set(c);
                    let (cursor, _, x0, m) = at(c);
                    if !vector(&cursor, x0, m) {
                        return false;
                    }
                }
                reached.set(chunks);
                true
            };
            // SAFETY: `wide` is `wide_lanes()`.
            let done = match unsafe { run_batch(&mut batch, wide) } {
                Ok(done) => done,
                Err(_) => {
                    forget_chunk_panic();
                    false
                }
            };
            let c = reached.get();
            if done || c >= chunks {
                break;
            }
            let (cursor, t0, x0, m) = at(c);
            for x in x0..x0 + m {
                self.block.regions_set_current((t0 + x) as u32);
                scalar(t0 + x, cursor.row_lane(x));
            }
            next = c + 1;
        }
        if self.n > 0 {
            self.block.regions_set_current((self.n - 1) as u32);
        }
    }

    /// Counts a region run whose accesses' bounds were proved from their indices' ranges
    /// (`EMU_VERBOSE`; `fission/ranges.rs`).
    #[inline(always)]
    pub fn note_proved(&self) {
        self.count(Count::Proved);
    }

    /// Counts a region run that took fast form `c` (`EMU_VERBOSE`).
    #[inline(always)]
    fn count(&self, c: Count) {
        self.count_n(c, 1);
    }

    /// The bound of a region `let i = (k * tid) as T; if (i as U) < bound { .. }`
    /// (`fast::region_bound_scaled`), counting the runs it narrows (`EMU_VERBOSE`).
    #[inline(always)]
    pub fn scaled_bound<K: fast::RegionBound, B: fast::RegionBound>(&self, k: K, bound: B) -> usize {
        let b = fast::region_bound_scaled(k, bound);
        if b != usize::MAX {
            self.count(Count::Scaled);
        }
        b
    }

    /// Counts a region run that checked its views once (`EMU_VERBOSE`; `fission/views.rs`).
    #[inline(always)]
    pub fn note_views(&self) {
        self.count(Count::Views);
    }

    /// The runner's storage for [`Slots`], kept from block to block.
    #[inline(always)]
    pub(crate) fn slot_pool(&self) -> &'r slots::SlotPool {
        self.block.slot_pool()
    }

    /// Per-thread storage for a value that lives across a barrier.
    #[inline(always)]
    pub fn lanes<T>(&self) -> Lanes<T> {
        Lanes::new(self.n)
    }

    /// The index of thread `t`.
    #[inline(always)]
    fn thread_ctx(&self, t: usize) -> ThreadCtx {
        let thread_idx = if self.one_d { Dim3::new(t as u32, 0, 0) } else { self.block.launch().thread_indices()[t] };
        ThreadCtx { thread_idx, ..self.ctx }
    }

    /// Runs one region: `f(t, ctx)` for every live thread `t`, in running order. `f` returns
    /// `Some(exit)` when the thread exited in the region (a `return`) and `None` when it went
    /// on to the region's end.
    #[inline(always)]
    pub fn each<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(&mut self, f: F) {
        self.each_below(usize::MAX, f)
    }

    /// [`Regions::each`] for a region whose whole work is guarded by `thread_idx().x < bound`
    /// (the macro proved it): threads whose `thread_idx().x` is at least `bound` do nothing
    /// in it, and are skipped.
    #[inline(always)]
    pub fn each_below<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(&mut self, bound: usize, f: F) {
        if bound < self.ctx.block_dim.x as usize {
            self.count(Count::Narrowed);
        }
        self.each_span(0, 1, f, |r, f, pos| r.run_from(bound, f, pos))
    }

    /// [`Regions::each`] for a region whose thread code `f` is `if tid % step == 0 { body }`
    /// with `step` block-uniform and `tid` the thread's `thread_idx().x` (the macro proved it;
    /// `fission/mod.rs`, `strided`), and `passed` the body alone: in index order
    /// ([`Regions::in_index_order`]) only threads `0, step, 2 * step, ..` run, through
    /// `passed` (each passes the test), the others doing nothing in the region. In another
    /// order, and for a `step` below 2 (0: the modulo panics in every thread; a negative one,
    /// which `RegionBound` makes 0), every thread runs `f` and the test decides.
    #[inline(always)]
    pub fn each_strided<S, P, F>(&mut self, step: S, passed: P, f: F)
    where
        S: fast::RegionBound,
        P: FnMut(usize, ThreadCtx) -> Option<Exit>,
        F: FnMut(usize, ThreadCtx) -> Option<Exit>,
    {
        let step = step.to_bound();
        if step < 2 || !self.in_index_order() {
            return self.each(f);
        }
        self.count(Count::Strided);
        self.each_span(0, step, passed, |r, f, pos| r.run_strided(step, f, pos))
    }

    /// Runs a region `K` threads at a time, in running order: `group(ts, ctxs)` for each full
    /// group of live threads, `scalar` for the ones left over (`fission/interleave.rs`, for a
    /// region whose threads only read memory nobody writes in it, and whose group has no
    /// effect before its end). A group that panics runs again one thread at a time through
    /// `scalar`, so that the report names the thread.
    #[inline(always)]
    pub fn each_group<const K: usize, G, S>(&mut self, mut group: G, mut scalar: S)
    where
        G: FnMut(&[usize; K], &[ThreadCtx; K]),
        S: FnMut(usize, ThreadCtx) -> Option<Exit>,
    {
        if self.dense {
            // Groups within each row of the block: the lanes of a group are consecutive threads
            // of one row (`x0 + i`, the same `y` and `z`), which lets the compiler see that
            // what they compute from `y` and `z` is shared and what they index by `x` is
            // consecutive. A row's threads past its last full group run one by one.
            let d = self.ctx.block_dim;
            let bx = d.x as usize;
            for r in 0..self.n / bx {
                let (y, z) = ((r % d.y as usize) as u32, (r / d.y as usize) as u32);
                let mut x0 = 0;
                while x0 + K <= bx {
                    // SAFETY: `x0 + K <= bx`, the loop's condition.
                    self.run_group(|| unsafe { self.row_lanes::<K>(r * bx + x0, x0, y, z) }, &mut group, &mut scalar);
                    x0 += K;
                }
                for x in x0..bx {
                    let t = r * bx + x;
                    self.block.regions_set_current(t as u32);
                    let _ = scalar(t, ThreadCtx { thread_idx: Dim3::new(x as u32, y, z), ..self.ctx });
                }
            }
            self.name_last();
            return;
        }
        // Another order (a seed, or threads gone): one thread at a time, in that order.
        for k in 0..self.order.len() {
            let t = self.order[k] as usize;
            self.block.regions_set_current(t as u32);
            let _ = scalar(t, self.thread_ctx(t));
        }
        if let Some(&t) = self.order.last() {
            self.block.regions_set_current(t);
        }
    }

    /// Runs a region `K` threads per call of `group`, each thread's code in turn, in index
    /// order (`fission/sequence.rs`): `group(ts, ctxs, turn)` runs threads `ts` one after
    /// another, calling `turn.enter(t)` before each, so that what it does happens in the
    /// order, and is reported at the thread, that [`Regions::each`] gives. Only for a region
    /// that cannot exit or fault (its code is straight-line, its accesses proved in bounds): a
    /// panic unwinds out of it as out of `each`. The lanes of a group are consecutive threads
    /// of one row of the block; a row's threads past its last full group, and every thread
    /// in another order (a seed, or threads gone), run through `scalar`.
    #[inline(always)]
    pub fn each_in_turn<const K: usize, G, S>(&mut self, mut group: G, scalar: S)
    where
        G: FnMut(&[usize; K], &[ThreadCtx; K], &Turn<'_>),
        S: FnMut(usize, ThreadCtx) -> Option<Exit>,
    {
        if !self.dense {
            return self.each(scalar);
        }
        let mut scalar = scalar;
        let d = self.ctx.block_dim;
        let bx = d.x as usize;
        let turn = Turn { block: self.block };
        for r in 0..self.n / bx {
            let (y, z) = ((r % d.y as usize) as u32, (r / d.y as usize) as u32);
            let mut x0 = 0;
            while x0 + K <= bx {
                // SAFETY: `x0 + K <= bx`, the loop's condition.
                let (ts, ctxs) = unsafe { self.row_lanes::<K>(r * bx + x0, x0, y, z) };
                group(&ts, &ctxs, &turn);
                x0 += K;
            }
            for x in x0..bx {
                let t = r * bx + x;
                self.block.regions_set_current(t as u32);
                let _ = scalar(t, ThreadCtx { thread_idx: Dim3::new(x as u32, y, z), ..self.ctx });
            }
        }
        self.name_last();
    }

    /// After a dense walk: the block's last thread is named as running, as after `each`.
    #[inline(always)]
    fn name_last(&self) {
        if self.n > 0 {
            self.block.regions_set_current((self.n - 1) as u32);
        }
    }

    /// The threads `t0..t0 + K` of a group of a dense walk, at `x0..x0 + K` of row `(y, z)`,
    /// and their indices.
    ///
    /// # Safety
    ///
    /// `x0 + K <= block_dim.x`.
    #[inline(always)]
    unsafe fn row_lanes<const K: usize>(&self, t0: usize, x0: usize, y: u32, z: u32) -> ([usize; K], [ThreadCtx; K]) {
        debug_assert!(x0 + K <= self.ctx.block_dim.x as usize, "a run of lanes past its row");
        let mut ts = [0usize; K];
        let mut ctxs = [self.ctx; K];
        for i in 0..K {
            ts[i] = t0 + i;
            // SAFETY: `x0 + i < x0 + K <= block_dim.x <= u32::MAX` (the caller's contract): the
            // sum does not wrap. Said without wrapping, it lets the compiler see the lanes' `x`
            // as consecutive.
            let x = unsafe { (x0 as u32).unchecked_add(i as u32) };
            ctxs[i].thread_idx = Dim3::new(x, y, z);
        }
        (ts, ctxs)
    }

    /// One group of [`Regions::each_group`], its threads and their indices made by `lanes`
    /// (inside the group's call, where the compiler sees what they are): `group(ts, ctxs)`,
    /// or, should it panic, each of its threads through `scalar`.
    #[inline(always)]
    fn run_group<const K: usize, L, G, S>(&self, lanes: L, group: &mut G, scalar: &mut S)
    where
        L: Fn() -> ([usize; K], [ThreadCtx; K]),
        G: FnMut(&[usize; K], &[ThreadCtx; K]),
        S: FnMut(usize, ThreadCtx) -> Option<Exit>,
    {
        let block = self.block;
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (ts, ctxs) = lanes();
            block.regions_set_current(ts[0] as u32);
            group(&ts, &ctxs)
        }));
        if ran.is_err() {
            // What the hook recorded for the group; the thread's own panic records it again.
            let _ = crate::host::sched::panics::take();
            let (ts, ctxs) = lanes();
            for (&t, &c) in ts.iter().zip(&ctxs) {
                block.regions_set_current(t as u32);
                let _ = scalar(t, c);
            }
        }
    }

    /// Runs the one thread `t` (if the block has it) in a region of its own: a vectorised
    /// region's `if tid == c { .. }` statement after its lanes (`fission/vector.rs`). Only in
    /// index order ([`Regions::in_index_order`]).
    #[inline(always)]
    pub fn one<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(&mut self, t: usize, f: F) {
        debug_assert!(self.in_index_order());
        let bound = t.saturating_add(1);
        self.each_span(t, 1, f, |r, f, pos| r.run_from(bound, f, pos))
    }

    /// Runs region `f` by the loop `run` ([`Regions::run_from`] or [`Regions::run_strided`],
    /// whose threads are `step` positions apart) from position `lo`. Each region instantiates
    /// only the loop it runs.
    #[inline(always)]
    fn each_span<F, R>(&mut self, lo: usize, step: usize, mut f: F, run: R)
    where
        F: FnMut(usize, ThreadCtx) -> Option<Exit>,
        R: Fn(&mut Self, &mut F, &std::cell::Cell<usize>),
    {
        let block = self.block;
        let faults = block.regions_faults();
        // The exits of earlier regions since the last barrier are out of the running order
        // already: only those of this one are dropped from it.
        let before = self.exits.len();
        // A thread that faults stops (memcheck unwinds it, or it panics on what its faulting
        // load gave): the region goes on with the next thread. One `catch_unwind` per region.
        let pos = std::cell::Cell::new(lo);
        loop {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(self, &mut f, &pos)));
            match r {
                Ok(()) => break,
                Err(payload) => {
                    if !block.faulted(block.current()) {
                        std::panic::resume_unwind(payload);
                    }
                    let _ = crate::host::sched::panics::take();
                    pos.set(pos.get().saturating_add(step));
                }
            }
        }
        if self.exits.len() > before {
            self.drop_exited(before);
        }
        if block.regions_faults() != faults {
            self.drop_faulted();
        }
    }

    /// The loop of [`Regions::each_below`], from position `pos` of the running order (which
    /// it keeps up to date, so that a thread's stop can resume it).
    #[inline(always)]
    fn run_from<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(
        &mut self,
        bound: usize,
        f: &mut F,
        pos: &std::cell::Cell<usize>,
    ) {
        if self.dense && self.one_d {
            for t in pos.get()..self.n.min(bound) {
                pos.set(t);
                self.run_one(t, ThreadCtx { thread_idx: Dim3::new(t as u32, 0, 0), ..self.ctx }, f);
            }
        } else if self.dense {
            // Row by row (`y` and `z` fixed, `x` the inner loop): what a thread computes from
            // `y`, `z` and block-uniform values is the same along the row, and the compiler
            // hoists it out of the inner loop. Starts from position `pos` (mid-row after a
            // stop).
            let d = self.ctx.block_dim;
            let bx = d.x as usize;
            let start = pos.get();
            let mut x_lo = start % bx;
            for r in start / bx..self.n / bx {
                let (y, z) = ((r % d.y as usize) as u32, (r / d.y as usize) as u32);
                for x in x_lo..bx.min(bound) {
                    let t = r * bx + x;
                    pos.set(t);
                    self.run_one(t, ThreadCtx { thread_idx: Dim3::new(x as u32, y, z), ..self.ctx }, f);
                }
                x_lo = 0;
            }
        } else {
            for k in pos.get()..self.order.len() {
                pos.set(k);
                let t = self.order[k] as usize;
                let ctx = self.thread_ctx(t);
                if ctx.thread_idx.x as usize >= bound {
                    continue;
                }
                self.run_one(t, ctx, f);
            }
        }
    }

    /// The loop of [`Regions::each_strided`]: threads `pos, pos + step, ..` of the block, in
    /// index order (which `each_strided` made sure of), from position `pos` (kept up to date,
    /// as by [`Regions::run_from`]).
    #[inline(always)]
    fn run_strided<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(
        &mut self,
        step: usize,
        f: &mut F,
        pos: &std::cell::Cell<usize>,
    ) {
        // A step past the block runs its first thread alone, as a step of `n` does; with
        // `t < n` and `step <= n`, far below `usize::MAX / 2` for a block, `t + step` cannot
        // wrap and needs no saturating add.
        let (mut t, n) = (pos.get(), self.n);
        let step = step.min(n);
        while t < n {
            pos.set(t);
            self.run_one(t, ThreadCtx { thread_idx: Dim3::new(t as u32, 0, 0), ..self.ctx }, f);
            t += step;
        }
    }

    /// One thread's turn in a region's loop: thread `t`, with indices `ctx`, is named as
    /// running and runs `f`; an exit in it is recorded.
    #[inline(always)]
    fn run_one<F: FnMut(usize, ThreadCtx) -> Option<Exit>>(&mut self, t: usize, ctx: ThreadCtx, f: &mut F) {
        self.block.regions_set_current(t as u32);
        if let Some(at) = f(t, ctx) {
            self.exits.push((t as u32, at));
        }
    }

    /// A vectorised lane loop: `vector(cursor, c0, m)` for each chunk of at most
    /// [`LANE_CHUNK`](fast::LANE_CHUNK) consecutive threads `c0..c0 + m`, in index
    /// order; `cursor.lane(t)` gives thread `t`'s indices.
    ///
    /// Only for a region that [`Regions::in_index_order`] allows and whose body the macro
    /// proved in bounds and unable to exit or fault (`fission::Program::hoist`), so there is
    /// no stop or exit to catch, and whose chunk has no effect before its end (it stages its
    /// loads and stores in lane buffers). The running thread is not updated lane by lane:
    /// should a chunk panic (an integer division by zero, say), its effects are dropped with
    /// it and the chunk runs again lane by lane through `scalar(t, ctx)`, which names each
    /// lane as the running thread, so that the panic is raised and reported by the lane that
    /// raises it.
    #[inline(always)]
    pub fn each_chunk<V, S>(&mut self, vector: V, scalar: S)
    where
        V: FnMut(&LaneCursor, usize, usize),
        S: FnMut(usize, ThreadCtx),
    {
        self.each_chunk_below(usize::MAX, vector, scalar)
    }

    /// [`Regions::each_chunk`] for a vectorised region of a barrier kernel whose work is
    /// guarded by `thread_idx().x < bound` (`fission/vector.rs` proved it): the chunks cover
    /// threads `0..min(bound, threads())` only. The same contract as `each_chunk`: the region
    /// runs in index order, and its chunks have no effect before their end.
    #[inline(always)]
    pub fn each_chunk_below<V, S>(&mut self, bound: usize, vector: V, scalar: S)
    where
        V: FnMut(&LaneCursor, usize, usize),
        S: FnMut(usize, ThreadCtx),
    {
        self.chunks_below(bound, false, vector, scalar)
    }

    /// [`Regions::each_chunk_below`] for a vectorised region whose chunks write shared arrays
    /// in place (`__private::LaneDst`) and stage nothing they store: a chunk's lanes take
    /// effect as they run, in index order, each lane's code marked by a
    /// [`fast::LaneMark`]. Should a lane panic, the lanes before it have run as they would
    /// one by one, and the panic is the one the lane raises alone: it is reported as that
    /// lane's, the lanes after it not run, as on the scalar form. Only a panic before any lane
    /// ran (a failed proof's check) runs the chunk again lane by lane through `scalar`.
    #[inline(always)]
    pub fn each_chunk_in_place<V, S>(&mut self, bound: usize, vector: V, scalar: S)
    where
        V: FnMut(&LaneCursor, usize, usize),
        S: FnMut(usize, ThreadCtx),
    {
        self.chunks_below(bound, true, vector, scalar)
    }

    #[inline(always)]
    fn chunks_below<V, S>(&mut self, bound: usize, in_place: bool, mut vector: V, mut scalar: S)
    where
        V: FnMut(&LaneCursor, usize, usize),
        S: FnMut(usize, ThreadCtx),
    {
        debug_assert!(self.in_index_order());
        self.count(Count::Vectorised);
        if in_place {
            self.count(Count::InPlace);
        }
        let cursor = LaneCursor { ctx: self.ctx };
        let chunk = fast::LANE_CHUNK;
        let n = self.n.min(bound);
        let wide = fast::wide_lanes();
        let mut c0 = 0;
        while c0 < n {
            let m = chunk.min(n - c0);
            self.block.regions_set_current(c0 as u32);
            // SAFETY: `wide` is `wide_lanes()`.
            if let Err(payload) = unsafe { run_chunk(&mut vector, &cursor, c0, m, wide) } {
                self.chunk_panicked(payload, in_place, c0);
                for t in c0..c0 + m {
                    self.block.regions_set_current(t as u32);
                    scalar(t, cursor.lane(t));
                }
            }
            c0 += m;
        }
        if n > 0 {
            self.block.regions_set_current((n - 1) as u32);
        }
    }

    /// A chunk starting at lane `c0` panicked. Written in place with its panicking lane known:
    /// that lane is the running thread and the panic goes on. Otherwise its effects are gone
    /// (staged, or no lane ran) and the caller runs it again lane by lane.
    #[cold]
    #[inline(never)]
    fn chunk_panicked(&self, payload: Box<dyn std::any::Any + Send>, in_place: bool, c0: usize) {
        match fast::panicked_lane() {
            Some(k) if in_place => {
                self.block.regions_set_current((c0 + k) as u32);
                std::panic::resume_unwind(payload)
            }
            _ => forget_chunk_panic(),
        }
    }

    /// Keeps the running order explicitly (`0..n` until now), so that threads can leave it.
    fn make_sparse(&mut self) {
        if self.dense {
            self.order = (0..self.n as u32).collect();
            self.dense = false;
        }
    }

    /// Removes the threads that faulted in the last region from the running order: a faulting
    /// thread stops, as if it had exited, and is not judged as a skipped barrier (memcheck).
    #[cold]
    #[inline(never)]
    fn drop_faulted(&mut self) {
        self.make_sparse();
        let block = self.block;
        self.order.retain(|&t| !block.faulted(t));
        self.exits.retain(|&(t, _)| !block.faulted(t));
    }

    /// Removes the threads that exited in the last region (`exits[from..]`) from the running
    /// order.
    #[cold]
    #[inline(never)]
    fn drop_exited(&mut self, from: usize) {
        let live = if self.dense { self.n } else { self.order.len() };
        if self.exits.len() - from == live {
            // Every live thread exited (each exits once, and only a live one runs): the block
            // has none left. The common case of a guard that sends most blocks home at once.
            self.dense = false;
            self.order.clear();
            return;
        }
        self.make_sparse();
        let mut gone = vec![false; self.n];
        self.exits[from..].iter().for_each(|&(t, _)| gone[t as usize] = true);
        self.order.retain(|&t| !gone[t as usize]);
    }

    /// The live threads in running order, `None` while they are all of the block's threads
    /// in index order (no seed, none gone).
    #[inline(always)]
    pub(crate) fn live(&self) -> Option<&[u32]> {
        (!self.dense).then_some(&self.order[..])
    }

    /// Whether any thread of the block is still running.
    #[inline(always)]
    pub fn any_live(&self) -> bool {
        self.dense || !self.order.is_empty()
    }

    /// `sync_threads()` at the caller's position: every live thread has arrived (the region
    /// before it ran them all). Threads that exited since the last barrier are judged by
    /// synccheck; then the generation moves on and, with a seed, the order is shuffled as the
    /// release would.
    #[track_caller]
    #[inline(always)]
    pub fn barrier(&mut self) {
        if !self.any_live() {
            // Nobody waits: the block is over, as on the general path (no verdict, no release).
            return;
        }
        if !self.exits.is_empty() {
            self.judge_exits(Location::caller());
        }
        let g = self.block.regions_released(Location::caller());
        if let Some(seed) = self.seed {
            block::shuffle(&mut self.order, seed, self.block.linear_index(), g);
        }
    }

    /// synccheck's verdict at the barrier `at`, over the threads that exited since the last
    /// one.
    #[cold]
    #[inline(never)]
    fn judge_exits(&mut self, at: &'static Location<'static>) {
        let mut state = vec![Wait::Gone; self.n];
        self.order.iter().for_each(|&t| state[t as usize] = Wait::Waiting);
        self.exits.iter().for_each(|&(t, e)| state[t as usize] = Wait::Exited(e));
        let view = RegionBarrier { block: self.block, at, state: &state };
        if let synccheck::Verdict::Skipped(finding) = synccheck::verdict(&view) {
            if !self.block.barrier.barrier_reported.replace(true) {
                self.block.regions_record(finding);
            }
        }
        self.exits.clear();
    }
}

/// What a group of [`Regions::each_in_turn`] calls before each of its threads.
#[derive(Clone, Copy)]
pub struct Turn<'a> {
    block: &'a BlockRun<'a>,
}

impl Turn<'_> {
    /// Thread `t` runs now: it is the block's running thread (for reports).
    #[inline(always)]
    pub fn enter(&self, t: usize) {
        self.block.regions_set_current(t as u32);
    }
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn").finish_non_exhaustive()
    }
}

/// The lanes of a vectorised lane loop ([`Regions::each_chunk`]).
#[derive(Clone, Copy)]
pub struct LaneCursor {
    ctx: ThreadCtx,
}

impl LaneCursor {
    /// The indices of thread `t` (of a 1-D block).
    #[inline(always)]
    pub fn lane(&self, t: usize) -> ThreadCtx {
        ThreadCtx { thread_idx: Dim3::new(t as u32, 0, 0), ..self.ctx }
    }

    /// The indices of thread `(x, y, z)` of the row `(y, z)` [`Regions::each_row_chunk`] runs.
    #[inline(always)]
    pub fn row_lane(&self, x: usize) -> ThreadCtx {
        let row = self.ctx.thread_idx;
        ThreadCtx { thread_idx: Dim3::new(x as u32, row.y, row.z), ..self.ctx }
    }
}

impl std::fmt::Debug for LaneCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaneCursor").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Regions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regions")
            .field("threads", &self.n)
            .field("dense", &self.dense)
            .field("live", &self.order.len())
            .finish()
    }
}

/// Runs one chunk of lanes `c0..c0 + m` of a vectorised form, on AVX2 where `wide`: the
/// payload of its panic, if it panicked. What the panic hook recorded is left to the caller,
/// which either reports it (a chunk that writes in place, whose panicking lane is known) or
/// drops it and runs the chunk again lane by lane (a staged chunk, whose effects are dropped
/// with it: it stores nothing before its end).
///
/// # Safety
///
/// `wide` is what [`fast::wide_lanes`] said: the CPU has AVX2.
#[inline(always)]
unsafe fn run_chunk<V>(vector: &mut V, cursor: &LaneCursor, c0: usize, m: usize, wide: bool) -> std::thread::Result<()>
where
    V: FnMut(&LaneCursor, usize, usize),
{
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if wide {
            // SAFETY: the CPU has AVX2 (the caller's contract).
            unsafe { fast::run_wide(vector, cursor, c0, m) }
        } else {
            vector(cursor, c0, m)
        }
    }))
}

/// Runs `batch`, a run of chunks of a vectorised form, on AVX2 where `wide` (see
/// [`run_chunk`]): what it returned, or the payload of its panic.
///
/// # Safety
///
/// `wide` is what [`fast::wide_lanes`] said: the CPU has AVX2.
#[inline(always)]
unsafe fn run_batch<B: FnMut() -> bool>(batch: &mut B, wide: bool) -> std::thread::Result<bool> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if wide {
            // SAFETY: the CPU has AVX2 (the caller's contract).
            unsafe { fast::run_wide_batch(batch) }
        } else {
            batch()
        }
    }))
}

/// Drops what a chunk's panic left behind (the hook's record, a lane's mark) before the chunk
/// runs again lane by lane, or stops.
#[cold]
fn forget_chunk_panic() {
    let _ = crate::host::sched::panics::take();
    let _ = fast::panicked_lane();
}

/// Where a thread is at a barrier of a block run as regions.
#[derive(Clone, Copy)]
enum Wait {
    Waiting,
    Exited(Exit),
    /// Exited before the last barrier.
    Gone,
}

/// What synccheck sees of a block run as regions at a barrier: every live thread waits there.
struct RegionBarrier<'a> {
    block: &'a BlockRun<'a>,
    at: &'static Location<'static>,
    state: &'a [Wait],
}

impl Site for RegionBarrier<'_> {
    fn current(&self) -> u32 {
        Site::current(self.block)
    }
    fn thread_index(&self, t: u32) -> Dim3 {
        Site::thread_index(self.block, t)
    }
    fn block_idx(&self) -> Dim3 {
        Site::block_idx(self.block)
    }
    fn linear_index(&self) -> u64 {
        Site::linear_index(self.block)
    }
    fn block_of(&self, linear: u64) -> Dim3 {
        Site::block_of(self.block, linear)
    }
    fn serial(&self) -> u64 {
        Site::serial(self.block)
    }
    fn generation(&self) -> u32 {
        Site::generation(self.block)
    }
    fn warp_epoch(&self, t: u32) -> u32 {
        Site::warp_epoch(self.block, t)
    }
    fn warp_syncs(&self) -> u32 {
        Site::warp_syncs(self.block)
    }
    fn warp_size(&self) -> u32 {
        Site::warp_size(self.block)
    }
    fn checks(&self) -> Checks {
        Site::checks(self.block)
    }
    fn shared(&self) -> SharedShadows<'_> {
        Site::shared(self.block)
    }
    fn note(&self, f: Finding) {
        Site::note(self.block, f)
    }
    fn fail(&self, f: Finding) -> ! {
        Site::fail(self.block, f)
    }
    fn launch_serial(&self) -> u64 {
        Site::launch_serial(self.block)
    }
    fn fault(&self) -> crate::host::check::Fault {
        Site::fault(self.block)
    }
    fn keep_fault(&self, f: Finding) {
        Site::keep_fault(self.block, f)
    }
    fn after_fault(&self) {
        Site::after_fault(self.block)
    }
    fn host_failure(&self, e: Error) -> ! {
        Site::host_failure(self.block, e)
    }
}

impl synccheck::Barrier for RegionBarrier<'_> {
    fn threads(&self) -> u32 {
        self.state.len() as u32
    }
    fn block_dim(&self) -> Dim3 {
        self.block.launch().block
    }
    fn waiting_at(&self, t: u32) -> Option<&'static Location<'static>> {
        matches!(self.state[t as usize], Wait::Waiting).then_some(self.at)
    }
    fn exit_of(&self, t: u32) -> Option<(u32, Option<&'static Location<'static>>)> {
        match self.state[t as usize] {
            Wait::Exited(e) => Some((Site::generation(self.block), Some(e))),
            _ => None,
        }
    }
    fn kernel_span(&self) -> (&'static str, u32, u32) {
        synccheck::Barrier::kernel_span(self.block)
    }
}
