//! Launching a kernel: validate the configuration, run every block, report what was found.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::device::Dim3;
use crate::host::config::{self, BlockOrder, Config};
use crate::host::launch_desc::{GpuArg, KernelInfo, LaunchConfig};
use crate::host::report::error::Error;
use crate::host::report::last_error;
use crate::host::report::{self, Finding, LaunchFindings};
use crate::host::sched::block::{self, BlockRun, RunnerFn, Threads};
use crate::host::sched::fiber::Suspender;
use crate::host::sched::progress::LaunchProgress;
use crate::host::sched::task::Tasks;
use crate::host::sched::thread::{Exit, ThreadCtx};
use crate::host::sched::{overflow, panics};

/// The launch of a `#[kernel(host_only)]` kernel when its target is the GPU: an error that
/// names the kernel (it has no PTX); `None` when the target is the emulator (or the settings
/// are invalid, which the emulated launch then reports).
pub fn host_only_on_gpu(kernel: &'static KernelInfo) -> Option<Result<(), crate::Error>> {
    let config = config::effective().ok()?;
    if config.get_target() != config::Target::Gpu {
        return None;
    }
    let e = crate::Error::NotSupported {
        message: format!(
            "kernel `{}` is `#[kernel(host_only)]`: it has no PTX and runs on the emulator only; \
             launch it with the emulator as the target (EMU_TARGET=emulator), or remove `host_only`",
            kernel.name
        ),
    };
    crate::host::report::last_error::record(&e);
    Some(Err(e))
}

/// Runs the launch on the GPU when the launch's target is the GPU; `None` when it is the
/// emulator (always, without the `gpu` feature).
#[doc(hidden)]
pub fn launch_on_gpu(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    args: &[GpuArg<'_>],
) -> Option<Result<(), Error>> {
    #[cfg(feature = "gpu")]
    let r = {
        let config = match config::effective() {
            Ok(c) => c,
            Err(e) => {
                last_error::record(&e);
                return Some(Err(e));
            }
        };
        if config.get_target() != config::Target::Gpu {
            return None;
        }
        if config.get_warp_size() != 32 {
            let e = Error::InvalidConfiguration {
                kernel: kernel.name,
                message:
                    "warps of one lane (EMU_WARP_SIZE=1) are the emulator's legacy mode; a GPU's warps have 32 lanes: \
                          run it with EMU_TARGET=emulator, or use warps of 32"
                        .into(),
            };
            last_error::record(&e);
            return Some(Err(e));
        }
        // Cooperative and clustered launches: the emulator's checks (720, 912), then
        // cuLaunchCooperativeKernel / cuLaunchKernelEx (`gpu::LaunchKind`).
        let cooperative = COOPERATIVE.with(std::cell::Cell::get);
        let checked = fits_clusters(kernel, &cfg, cooperative).and_then(|()| {
            if cooperative {
                fits_cooperatively(kernel, &cfg)
            } else {
                Ok(())
            }
        });
        if let Err(e) = checked {
            last_error::record(&e);
            return Some(Err(e));
        }
        let kind = crate::gpu::LaunchKind::of(kernel, cooperative);
        crate::gpu::launch(kernel, ptx, cfg, config.get_max_shared_bytes(), args, kind)
    };
    // Without the feature only a `Config` set in code can ask for the GPU (the environment
    // variable is rejected by `Config::from_env`, which the emulated launch reads anyway), so
    // the environment is not read twice per launch.
    #[cfg(not(feature = "gpu"))]
    let r = {
        let _ = (kernel, ptx, cfg, args);
        if config::set_in_code().is_none_or(|c| c.get_target() != config::Target::Gpu) {
            return None;
        }
        Err(Error::NotSupported {
            message: "Config::target(Target::Gpu) needs deviceemu built with its `gpu` feature".into(),
        })
    };
    if let Err(e) = &r {
        last_error::record(e);
    }
    Some(r)
}

/// The limits of the emulated device: an sm_90 (H100/H200) profile.
pub(crate) mod limits {
    use crate::device::Dim3;
    /// Most threads in a block.
    pub(crate) const MAX_THREADS_PER_BLOCK: u64 = 1024;
    /// Largest block dimensions.
    pub(crate) const MAX_BLOCK: Dim3 = Dim3::new(1024, 1024, 64);
    /// Largest grid dimensions.
    pub(crate) const MAX_GRID: Dim3 = Dim3::new(i32::MAX as u32, 65535, 65535);
}

/// Checks a launch configuration against the device's limits (error 9); also called when a
/// launch is queued on a stream (`stream/launch.rs`), where CUDA checks it.
pub(crate) fn validate(kernel: &KernelInfo, cfg: &LaunchConfig, config: &Config) -> Result<(), Error> {
    let bad = |message: String| Err(Error::InvalidConfiguration { kernel: kernel.name, message });
    let (g, b) = (cfg.grid, cfg.block);
    if b.x == 0 || b.y == 0 || b.z == 0 {
        return bad(format!("block {b} has a zero dimension; every block dimension must be at least 1"));
    }
    if g.x == 0 || g.y == 0 || g.z == 0 {
        return bad(format!("grid {g} has a zero dimension; every grid dimension must be at least 1"));
    }
    let mb = limits::MAX_BLOCK;
    if b.x > mb.x || b.y > mb.y || b.z > mb.z {
        return bad(format!("block {b} exceeds the largest block the device allows, {mb}"));
    }
    if b.count() > limits::MAX_THREADS_PER_BLOCK {
        return bad(format!(
            "block {b} has {} threads, but the device allows at most {} threads per block; \
             use fewer threads per block and more blocks",
            b.count(),
            limits::MAX_THREADS_PER_BLOCK
        ));
    }
    if kernel.max_threads != 0 && b.count() > kernel.max_threads as u64 {
        return bad(format!(
            "block {b} has {} threads, but the kernel is declared with launch_bounds({}); launch at \
             most that many threads per block or raise the bound",
            b.count(),
            kernel.max_threads
        ));
    }
    let mg = limits::MAX_GRID;
    if g.x > mg.x || g.y > mg.y || g.z > mg.z {
        return bad(format!("grid {g} exceeds the largest grid the device allows, {mg}"));
    }
    let limit = config.get_max_shared_bytes();
    if cfg.shared_bytes > limit {
        return bad(format!(
            "the launch asks for {} bytes of dynamic shared memory, but a block may use at most {limit} \
             (48 KiB unless raised with Config::max_shared_bytes)",
            cfg.shared_bytes
        ));
    }
    Ok(())
}

/// How many faulting threads of a launch stop at their fault (by unwinding, about 12 µs each);
/// later ones are only marked faulted and stop at their next wait (`check/memcheck.rs`), so
/// that a launch in which every thread faults stays cheap.
pub(crate) const UNWIND_LIMIT: u64 = 256;

/// What all blocks of one launch share.
pub(crate) struct LaunchShared {
    pub(crate) kernel: &'static KernelInfo,
    /// Tells launches apart (racecheck's records of `#[device_global]` statics outlive one).
    pub(crate) serial: u64,
    pub(crate) grid: Dim3,
    pub(crate) block: Dim3,
    pub(crate) shared_bytes: usize,
    pub(crate) config: Config,
    thread_index: Vec<Dim3>,
    /// Every finding of the launch counted, the lowest ones stored (`report::LaunchFindings`).
    pub(crate) findings: LaunchFindings,
    /// Blocks ended and whether the watchdog stopped the launch (`progress.rs`).
    pub(crate) progress: LaunchProgress,
    /// The first host failure of the launch (memory the host could not allocate): the launch
    /// returns it instead of a report.
    host_error: Mutex<Option<Error>>,
    host_failed: std::sync::atomic::AtomicBool,
    /// Faulting threads stopped at once (unwound) so far; see [`UNWIND_LIMIT`].
    stopped_at_fault: AtomicU64,
    /// Whether this is a cooperative launch (`launch_cooperative!`): its blocks are driven
    /// together, so that they can meet at grid syncs (`run_cooperative`).
    pub(crate) cooperative: bool,
    /// The device runtime's state: the children this grid launched, its streams and events,
    /// and, for a child grid, who launched it (`devrt.rs`).
    pub(crate) devrt: crate::host::sched::devrt::GridRt,
}

impl LaunchShared {
    /// The index of the thread whose linear index in the block is `t`.
    #[inline(always)]
    pub(crate) fn thread_index(&self, t: u32) -> Dim3 {
        self.thread_index[t as usize]
    }

    /// The index of every thread of a block, by linear index.
    #[inline(always)]
    pub(crate) fn thread_indices(&self) -> &[Dim3] {
        &self.thread_index
    }

    pub(crate) fn add_findings(&self, block_linear: u64, found: Vec<(u32, Finding)>) {
        for (t, f) in found {
            self.findings.add(block_linear, t, f);
        }
    }

    /// Whether a thread that just faulted should stop at once: the first [`UNWIND_LIMIT`] of
    /// the launch do (they unwind); later ones run on to their next wait (memcheck).
    pub(crate) fn stop_at_fault(&self) -> bool {
        self.stopped_at_fault.load(Ordering::Relaxed) < UNWIND_LIMIT
            && self.stopped_at_fault.fetch_add(1, Ordering::Relaxed) < UNWIND_LIMIT
    }

    /// Whether a host failure was recorded: the remaining blocks are skipped.
    pub(crate) fn failed_on_host(&self) -> bool {
        self.host_failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records a host failure (the first one wins); the launch returns it.
    pub(crate) fn host_failure(&self, e: Error) {
        let mut h = self.host_error.lock().unwrap_or_else(|e| e.into_inner());
        h.get_or_insert(e);
        self.host_failed.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Fails the running GPU thread's launch with the host failure `e`: records it and unwinds the
/// thread as an abort (the block fails; the launch returns `e`).
#[cold]
#[inline(never)]
pub(crate) fn host_failure_in_kernel(block: &BlockRun<'_>, e: Error) -> ! {
    block.launch().host_failure(e);
    block.unwind(panics::KernelAbort)
}

thread_local! {
    /// Set by `launch_cooperative!` around its `launch!`.
    static COOPERATIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `launch` (one `launch!`) as a cooperative launch: `launch_cooperative!`.
pub(crate) fn cooperative<R>(launch: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            COOPERATIVE.with(|c| c.set(false));
        }
    }
    COOPERATIVE.with(|c| c.set(true));
    let _clear = Clear;
    launch()
}

/// Whether the launch being made is cooperative (and no longer, for the next one).
pub(crate) fn take_cooperative() -> bool {
    COOPERATIVE.with(|c| c.replace(false))
}

/// The most blocks of `threads` threads, each with `shared_bytes` of dynamic shared memory,
/// that the emulated sm_90 device (an H100/H200) keeps resident at once: 132 SMs, each with at
/// most 2048 threads (whole warps), 32 blocks and 228 KiB of shared memory, of which each block
/// takes 1 KiB more than it asks for. On an H200 this gives 16, 8, 4 and 2 blocks per SM at 128,
/// 256, 512 and 1024 threads, and 4, 4, 4 and 2 with 48 KiB of dynamic shared memory, as
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` says (`tools/probes/RESULTS.md`, p8).
/// Registers are not counted (the emulator does not know how many the kernel's GPU build
/// uses), nor are `shared_array!`s, whose sizes are known only when they run.
pub(crate) fn max_resident_blocks(threads: u64, shared_bytes: usize) -> u64 {
    const SMS: u64 = 132;
    const THREADS_PER_SM: u64 = 2048;
    const BLOCKS_PER_SM: u64 = 32;
    const SHARED_PER_SM: u64 = 228 * 1024;
    const RESERVED_PER_BLOCK: u64 = 1024;
    let by_threads = THREADS_PER_SM / (threads.div_ceil(32) * 32).max(32);
    let by_shared = SHARED_PER_SM / (shared_bytes as u64 + RESERVED_PER_BLOCK);
    SMS * by_threads.min(by_shared).min(BLOCKS_PER_SM)
}

/// CUDA's co-residency rule for cooperative launches: error 720 when the grid does not fit.
fn fits_cooperatively(kernel: &KernelInfo, cfg: &LaunchConfig) -> Result<(), Error> {
    let max = max_resident_blocks(cfg.block.count(), cfg.shared_bytes);
    let blocks = cfg.grid.count();
    if blocks > max {
        return Err(Error::CooperativeLaunchTooLarge {
            kernel: kernel.name,
            message: format!(
                "the grid has {blocks} blocks, but at most {max} blocks of {} threads with {} bytes of dynamic \
                 shared memory are resident at once on an sm_90 device (132 SMs); launch at most {max} blocks \
                 (a grid-stride loop covers the rest of the data)",
                cfg.block.count(),
                cfg.shared_bytes
            ),
        });
    }
    Ok(())
}

/// The cluster shape must tile the grid (`cudaErrorInvalidClusterSize`, 912).
fn fits_clusters(kernel: &KernelInfo, cfg: &LaunchConfig, cooperative: bool) -> Result<(), Error> {
    if kernel.cluster[0] == 0 {
        return Ok(());
    }
    let (c, g) = (kernel.cluster_dim(), cfg.grid);
    if g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0 {
        return Err(Error::InvalidClusterSize {
            kernel: kernel.name,
            message: format!(
                "the grid {g} is not a whole number of clusters of {c} blocks (#[kernel(cluster(..))]); make each \
                 grid dimension a multiple of the cluster's"
            ),
        });
    }
    if cooperative {
        return Err(Error::NotSupported {
            message: format!(
                "a cooperative launch of kernel `{}`, which has a cluster shape, is not emulated yet",
                kernel.name
            ),
        });
    }
    Ok(())
}

/// Runs the blocks of a cooperative launch on this host thread as one group (`run_group`).
///
/// One runner per block (`blocks` is at most a few thousand: `max_resident_blocks`).
fn run_cooperative<'t>(
    shared: &LaunchShared,
    threads: &(dyn Fn(usize) -> Threads<'t> + Sync),
    per_block: usize,
    blocks: u64,
) {
    let mut runs = Vec::with_capacity(blocks as usize);
    for _ in 0..blocks {
        match BlockRun::new(shared, threads(per_block)) {
            Ok(r) => runs.push(r),
            Err(e) => return shared.host_failure(e),
        }
    }
    let members: Vec<u64> = (0..blocks).collect();
    run_group(shared, &runs, &members, "grid");
}

/// Runs the launch's clusters (`#[kernel(cluster(..))]`), each as a group (`run_group`), the
/// clusters in parallel: one set of runners per worker, reused from cluster to cluster.
fn run_clusters<'t>(shared: &LaunchShared, threads: &(dyn Fn(usize) -> Threads<'t> + Sync), per_block: usize) {
    let c = shared.kernel.cluster_dim();
    let g = shared.grid;
    let shape = Dim3::new(g.x / c.x, g.y / c.y, g.z / c.z);
    let clusters = shape.count();
    let size = c.count() as usize;
    let make = || -> Result<Vec<Box<BlockRun<'_>>>, Error> {
        (0..size).map(|_| BlockRun::new(shared, threads(per_block))).collect()
    };
    let run_one = |runs: &mut Result<Vec<Box<BlockRun<'_>>>, Error>, k: u64| {
        let runs = match runs {
            Ok(r) => r,
            Err(e) => return shared.host_failure(e.clone()),
        };
        if shared.failed_on_host() || shared.progress.timed_out() {
            return;
        }
        let at = shape.unlinear(k);
        // The cluster's blocks in rank order (x fastest).
        let members: Vec<u64> = (0..size as u64)
            .map(|r| {
                let o = c.unlinear(r);
                g.linear(Dim3::new(at.x * c.x + o.x, at.y * c.y + o.y, at.z * c.z + o.z))
            })
            .collect();
        run_group(shared, runs, &members, "cluster");
    };
    match shared.config.get_blocks() {
        BlockOrder::Serial => {
            let mut runs = make();
            (0..clusters).for_each(|k| run_one(&mut runs, k));
        }
        BlockOrder::Parallel => (0..clusters).into_par_iter().for_each_init(make, run_one),
    }
}

/// Drives the blocks `members` (runner `i` runs block `members[i]`) as a group on this host
/// thread: each block runs until it ends, all its threads wait at the group's sync (a grid or
/// cluster sync), or only its spinning threads are left (which may wait for another block);
/// then the next block has its turn. Once every block waits at the sync, all are released. A
/// sync that blocks which ended will never reach is reported in each waiting block.
fn run_group(shared: &LaunchShared, runs: &[Box<BlockRun<'_>>], members: &[u64], what: &str) {
    use crate::host::sched::block::Drive;
    for (r, &b) in runs.iter().zip(members) {
        r.begin(b);
        r.set_group(runs);
    }
    let mut state = vec![Drive::Spinning; runs.len()];
    loop {
        for (r, st) in runs.iter().zip(state.iter_mut()) {
            if *st == Drive::Spinning {
                let before = (r.progress().events(), r.started_count());
                *st = r.drive();
                if (r.progress().events(), r.started_count()) != before {
                    shared.progress.grid_turn();
                }
            }
            if shared.failed_on_host() || shared.progress.timed_out() {
                break;
            }
        }
        if shared.failed_on_host() {
            break;
        }
        if shared.progress.timed_out() {
            // The watchdog stopped a block (a spinning one, say) that the blocks waiting at
            // the sync wait for: their sync can never complete.
            let stuck: Vec<String> = (0..runs.len())
                .filter(|&b| state[b] != Drive::GridWait)
                .take(4)
                .map(|b| shared.grid.unlinear(members[b]).to_string())
                .collect();
            for b in (0..runs.len()).filter(|&b| state[b] == Drive::GridWait) {
                runs[b].fail_stuck_group(format!(
                    "the {what} sync can never complete: the watchdog stopped the launch while block(s) {} of the \
                     {what} had not reached it; on a GPU this hangs",
                    stuck.join(", ")
                ));
            }
            break;
        }
        if state.contains(&Drive::Spinning) {
            continue;
        }
        let waiting: Vec<usize> = (0..runs.len()).filter(|&b| state[b] == Drive::GridWait).collect();
        if waiting.is_empty() {
            break;
        }
        let ended: Vec<u64> = (0..runs.len()).filter(|&b| state[b] == Drive::Done).map(|b| members[b]).collect();
        if ended.is_empty() {
            waiting.iter().for_each(|&b| runs[b].release_grid());
        } else {
            let grid = shared.grid;
            let names: Vec<String> = ended.iter().take(4).map(|&b| grid.unlinear(b).to_string()).collect();
            let more = if ended.len() > 4 { format!(" and {} more", ended.len() - 4) } else { String::new() };
            for &b in &waiting {
                runs[b].fail_grid(format!(
                    "the {what} sync can never complete: {} block(s) of the {what} ended without reaching it \
                     (block {}{more}); on a GPU this hangs. Every thread of every block must reach each {what} \
                     sync, or exit only after the last one",
                    ended.len(),
                    names.join(", block ")
                ));
            }
        }
        waiting.iter().for_each(|&b| state[b] = Drive::Spinning);
    }
    // A launch that stopped early (a host failure, the watchdog): abort what is left, so that
    // no block ends with a thread suspended.
    for (r, st) in runs.iter().zip(state.iter_mut()) {
        while *st != Drive::Done {
            r.abort();
            *st = r.drive();
        }
        r.finish();
    }
    runs.iter().for_each(|r| r.set_group(&[]));
}

/// Runs `body` once per GPU thread of the grid `cfg` describes, and waits for all of them.
///
/// This is what `launch!` calls through the launcher `#[kernel]` generates.
pub fn launch<F: Fn(ThreadCtx) -> Exit + Sync>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    body: F,
) -> Result<(), Error> {
    let runner = |b: &BlockRun<'_>, y: &Suspender<'_>| block::runner(b, &body, y);
    let runner: &RunnerFn<'_> = &runner;
    let result = run(kernel, cfg, &|_| Threads::Calls(runner));
    if let Err(e) = &result {
        last_error::record(e);
    }
    result
}

/// Like [`launch`], for a kernel whose GPU threads are futures: `make` creates one thread's
/// future, in which each barrier of the kernel's body is an `.await` (`sched/task.rs`).
///
/// This is what `launch!` calls for a kernel with `sync_threads` in its body.
pub fn launch_tasks<M, F>(kernel: &'static KernelInfo, cfg: LaunchConfig, make: M) -> Result<(), Error>
where
    M: Fn(ThreadCtx) -> F + Sync,
    F: std::future::Future<Output = Exit>,
{
    let result = run(kernel, cfg, &|threads| Threads::Tasks(Box::new(Tasks::new(&make, threads))));
    if let Err(e) = &result {
        last_error::record(e);
    }
    result
}

/// Runs a launch whose workers represent a block's threads as `threads(count)` says.
pub(crate) fn run<'t>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    threads: &(dyn Fn(usize) -> Threads<'t> + Sync),
) -> Result<(), Error> {
    run_with(kernel, cfg, threads, Spread::Always)
}

/// How a launch of blocks that run in parallel spreads them over the workers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Spread {
    /// Over every worker from the start.
    Always,
    /// On the calling thread first: its first run of blocks is timed, and the launch goes on
    /// in parallel only when the rest would take longer than waking the workers costs
    /// (`SERIAL_BELOW`). For launches whose blocks never wait for each other (barrier
    /// regions and lane loops: a kernel that may spin takes the general path), and not under
    /// racecheck or initcheck, whose verdicts on blocks that meet through atomics the tests
    /// want to see with blocks on several host threads.
    Adaptive,
}

/// The estimated time of a launch's remaining blocks under which [`Spread::Adaptive`] runs
/// them on the calling thread: about twice what handing a launch to the pool's workers and
/// waiting for them costs on an idle two-core machine, where the two workers' halves of the
/// work must save more than that hand-over. Measured on the corpus's small reductions (two
/// workers, 2026-12-06, each launch alternately on one thread and on both): cuda-samples'
/// reduce1, about 40 µs alone, took 30 µs on both; reduce0, about 25 µs alone, 22 µs; reduce3,
/// about 18 µs alone, 22 µs. 60 µs, the bound until then (a launch of 128 small blocks took
/// 0.058 ms on two workers and 0.030 ms on one on a loaded machine), kept reduce1 on one.
const SERIAL_BELOW: std::time::Duration = std::time::Duration::from_micros(30);

/// How many times more runs than workers [`claim`] aims at for the blocks left, in a grid of
/// at least [`GUIDED_FROM`] blocks.
const GUIDED_RUNS: u64 = 4;

/// The smallest grid whose runs are guided ([`claim`]); smaller grids are handed out in runs
/// of the fixed `min` blocks.
///
/// Measured on a two-core AMD EPYC (loops of one launch, 5 alternating runs, minimum): guided
/// runs made saxpy's 65,536 blocks 1.3x faster (3.14 to 2.45 ms) and SHOC's triad 1.35x, but
/// cuda-samples' transposes (64 blocks) 1.17x slower. From 4,096 blocks the corpus's other
/// kernels were unchanged (geometric mean 0.995); from 256, cuda-samples' mergeHistogram256
/// (256 blocks) ran 1.17x faster and the others within 4% (0.994 against 4,096).
const GUIDED_FROM: u64 = 256;

/// Claims the next run of blocks from `next` (the lowest block not yet handed out) for a
/// puller, up to `blocks`: `(first, end)`, or `None` when every block is out. `runs` is how
/// many runs to aim at for the blocks left (`workers * GUIDED_RUNS`, or `u64::MAX` for runs
/// of `min` blocks).
///
/// With `runs` finite the runs are guided (OpenMP's `schedule(guided)`): a run takes the
/// blocks left divided by `runs`, at least `min` blocks. Early runs are long, so that each
/// puller goes through a long stretch of consecutive blocks, as a plain loop split over
/// threads does; the last runs are short, so that the pullers end together. Runs of a fixed
/// 64 blocks made two pullers' accesses alternate every 64 blocks, and a streaming kernel
/// (saxpy, 2^24 elements) ran 1.3x slower than with long stretches ([`GUIDED_FROM`]). Every
/// run starts at the lowest block not yet handed out, so blocks still start in increasing
/// order.
fn claim(next: &AtomicU64, blocks: u64, min: u64, runs: u64) -> Option<(u64, u64)> {
    let mut first = next.load(Ordering::Relaxed);
    loop {
        if first >= blocks {
            return None;
        }
        let left = blocks - first;
        let run = (left / runs).max(min).min(left);
        match next.compare_exchange_weak(first, first + run, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some((first, first + run)),
            Err(now) => first = now,
        }
    }
}

/// [`Spread::Adaptive`]'s start: runs the launch's first `chunk` blocks on the calling thread,
/// timed, then the rest too when their estimated time is under [`SERIAL_BELOW`]. Returns the
/// first block it left to the workers (`blocks` when it ran them all). Blocks still start in
/// increasing order, as the parallel pullers start them. What a block took is kept for the
/// kernel's next launch ([`Estimates`]).
fn run_first_here(shared: &LaunchShared, threads: Threads<'_>, chunk: u64, blocks: u64, key: (usize, usize)) -> u64 {
    let w = match BlockRun::new(shared, threads) {
        Ok(w) => w,
        Err(e) => {
            shared.host_failure(e);
            return blocks;
        }
    };
    let start = std::time::Instant::now();
    w.run_span(0, chunk);
    let per_block = start.elapsed() / u32::try_from(chunk).unwrap_or(u32::MAX);
    ESTIMATES.keep(key, per_block);
    let rest = blocks - chunk;
    let estimate = per_block.saturating_mul(u32::try_from(rest).unwrap_or(u32::MAX));
    if estimate >= SERIAL_BELOW {
        return chunk;
    }
    w.run_span(chunk, blocks);
    blocks
}

/// What a block of each kernel took in its last launch on a fast path ([`Spread::Adaptive`]),
/// by kernel and block size.
///
/// A launch that the last one says is long (its blocks' estimate at least twice
/// [`SERIAL_BELOW`]) goes to the workers from its first block, instead of running a first
/// chunk on the calling thread while they wait: with few blocks that chunk is a large share
/// of the launch (Parboil's MRI-Q runs 8 blocks, and its first ran alone, an eighth of the
/// work). Its own time then updates the estimate, so a kernel whose launches became short
/// goes back to the timed start. A launch the last one says is short, or that has no estimate,
/// still starts timed on the calling thread: an estimate can only send a launch to the
/// workers, never keep a long one on one thread.
#[derive(Default)]
struct Estimates(Mutex<HashMap<(usize, usize), std::time::Duration>>);

static ESTIMATES: std::sync::LazyLock<Estimates> = std::sync::LazyLock::new(Estimates::default);

impl Estimates {
    /// The key of `kernel`'s launches of blocks of `per_block` threads.
    fn key(kernel: &'static KernelInfo, per_block: usize) -> (usize, usize) {
        (kernel as *const KernelInfo as usize, per_block)
    }

    /// Whether the last launch of `key` says that `blocks` blocks take long enough to go to
    /// the workers from the first.
    fn long(&self, key: (usize, usize), blocks: u64) -> bool {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&key).is_some_and(|&per_block| {
            per_block.saturating_mul(u32::try_from(blocks).unwrap_or(u32::MAX)) >= 2 * SERIAL_BELOW
        })
    }

    /// Keeps `per_block` as what a block of `key`'s launches takes.
    fn keep(&self, key: (usize, usize), per_block: std::time::Duration) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(key, per_block);
    }
}

thread_local! {
    /// How many runners the last launch made on this host thread used ([`last_runners`]).
    static LAST_RUNNERS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many runners (host threads driving its blocks, the calling thread's own included) the
/// last launch made on this host thread used, for tests of [`Spread::Adaptive`].
#[doc(hidden)]
pub fn last_runners() -> usize {
    LAST_RUNNERS.with(std::cell::Cell::get)
}

/// Runs a launch as [`run`] does, its blocks spread over the workers as `spread` says.
pub(crate) fn run_with<'t>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    threads: &(dyn Fn(usize) -> Threads<'t> + Sync),
    spread: Spread,
) -> Result<(), Error> {
    if crate::host::sched::context::current().is_some() {
        // Entering this launch's blocks would overwrite the running block's thread-locals.
        return Err(Error::NotSupported {
            message: format!(
                "`launch!` of kernel `{}` from inside a running kernel, with host buffers: a launch made by host \
                 code that a kernel calls is not a device-side launch; write the `launch!` in the `#[kernel]` or \
                 `#[device]` function itself and pass the parent's views and scalars (dynamic parallelism, \
                 ARCHITECTURE.md, The device runtime)",
                kernel.name
            ),
        });
    }
    // Taken before anything can fail, so that it never carries over to a later launch.
    let cooperative = take_cooperative();
    let config = config::effective()?;
    validate(kernel, &cfg, &config)?;
    if cooperative {
        fits_cooperatively(kernel, &cfg)?;
    }
    fits_clusters(kernel, &cfg, cooperative)?;
    panics::install();
    overflow::install();
    if !config.get_timeout().is_zero() {
        crate::host::sched::stuck::start_monitor();
    }

    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let shared = LaunchShared {
        kernel,
        serial: SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        grid: cfg.grid,
        block: cfg.block,
        shared_bytes: cfg.shared_bytes,
        thread_index: (0..cfg.block.count()).map(|t| cfg.block.unlinear(t)).collect(),
        findings: LaunchFindings::new(config.get_print_limit()),
        config,
        stopped_at_fault: AtomicU64::new(0),
        cooperative,
        progress: LaunchProgress::new(),
        host_error: Mutex::new(None),
        host_failed: std::sync::atomic::AtomicBool::new(false),
        devrt: crate::host::sched::devrt::GridRt::new(),
    };
    let per_block = cfg.block.count() as usize;
    let blocks = cfg.grid.count();
    match shared.config.get_blocks() {
        _ if cooperative => run_cooperative(&shared, threads, per_block, blocks),
        _ if kernel.cluster[0] != 0 => run_clusters(&shared, threads, per_block),
        BlockOrder::Serial => match BlockRun::new(&shared, threads(per_block)) {
            Ok(w) => {
                w.run_span(0, blocks);
            }
            Err(e) => shared.host_failure(e),
        },
        BlockOrder::Parallel => {
            // Blocks are handed out in increasing order, a run at a time (`claim`), to one
            // puller per worker: every block below a running one has started, so the lowest
            // unfinished block always has every earlier block finished and can progress
            // (spin-waits on earlier blocks, `progress.rs`). The calling thread is one of the
            // pullers, and helper threads the others (`team.rs`); a helper that starts late
            // just takes later runs, or, in a launch that may run on the calling thread alone
            // (`adaptive`), none. `chunk` is the shortest run.
            let workers = rayon::current_num_threads().max(1) as u64;
            let chunk = (blocks / (workers * 16)).clamp(1, 64);
            let adaptive = spread == Spread::Adaptive
                && workers > 1
                && blocks > chunk
                && !crate::host::check::any(shared.config.get_checks());
            let key = adaptive.then(|| Estimates::key(kernel, per_block));
            let timed = key.filter(|&k| ESTIMATES.long(k, blocks)).map(|k| (k, std::time::Instant::now()));
            let first = match key {
                Some(k) if timed.is_none() => run_first_here(&shared, threads(per_block), chunk, blocks, k),
                _ => 0,
            };
            let next = AtomicU64::new(first);
            let runs = if blocks >= GUIDED_FROM { workers * GUIDED_RUNS } else { u64::MAX };
            let pullers = usize::try_from(workers.min((blocks - first).div_ceil(chunk))).unwrap_or(1);
            crate::host::sched::team::run_pullers(pullers, adaptive, &|_| {
                let w = match BlockRun::new(&shared, threads(per_block)) {
                    Ok(w) => w,
                    Err(e) => return shared.host_failure(e),
                };
                while let Some((first, end)) = claim(&next, blocks, chunk, runs) {
                    if shared.failed_on_host() || shared.progress.timed_out() {
                        break;
                    }
                    w.run_span(first, end);
                }
            });
            if let Some((key, start)) = timed {
                // The workers' time for all the blocks, as one block's on one of them.
                let per_block = start.elapsed().saturating_mul(u32::try_from(workers).unwrap_or(u32::MAX))
                    / u32::try_from(blocks).unwrap_or(u32::MAX);
                ESTIMATES.keep(key, per_block);
            }
        }
    }
    // The children the grid launched (device-side `launch!`), after all its blocks.
    LAST_RUNNERS.with(|c| c.set(shared.progress.runners()));
    let children = crate::host::sched::devrt::finish_grid(&shared);
    if let Some(e) = shared.host_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }

    let config = &shared.config;
    let hazards_only_report = config.get_check_action() == crate::host::config::CheckAction::Report;
    let print_limit = config.get_print_limit();
    let (findings, total, only_hazards) = shared.findings.into_parts();
    let name = match &shared.devrt.parent {
        Some(p) if total > 0 => crate::host::sched::devrt::report_name(kernel.name, p),
        _ => kernel.name,
    };
    report::conclude(name, print_limit, hazards_only_report, findings, total, only_hazards).and(children)
}

#[cfg(test)]
mod tests {
    //! A launch without fibers: one block of a state-machine kernel whose barriers are all
    //! awaited, started and released by direct runners (`fiber::Fiber::Direct`). It runs under
    //! miri (`cargo +nightly miri test -p emu-runtime --lib host::sched::launch`), which then
    //! checks the scheduler's unsafe code on the launch path: the block runner, the context
    //! pointer, the future table, the shared arena, the findings.
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    use super::{claim, launch_tasks, KernelInfo, LaunchConfig};
    use crate::device::backend::BarrierOp;
    use crate::host::config::{with_config, BlockOrder, Config};
    use crate::host::sched::fiber::DIRECT;
    use crate::host::sched::task::BarrierAwait;

    static TREE: KernelInfo =
        KernelInfo { name: "tree", file: file!(), line: 0, end_line: 0, max_threads: 0, cluster: [0; 3] };

    /// A tree sum over `v` by the block's threads, a barrier after each step, and a
    /// `sync_threads_count`; what each thread saw is written to `seen`.
    fn run_tree(n: u32, v: &[AtomicU32], seen: &[AtomicU32]) -> Result<(), crate::Error> {
        let config = Config::default().blocks(BlockOrder::Serial);
        with_config(config, || {
            launch_tasks(&TREE, LaunchConfig::new(1, n, 0), |ctx| async move {
                let t = ctx.thread_idx.x as usize;
                v[t].store(t as u32 + 1, Relaxed);
                let evens = BarrierAwait::new(BarrierOp::Count, t % 2 == 0).await;
                let mut s = ctx.block_dim.x as usize / 2;
                while s > 0 {
                    if t < s {
                        v[t].fetch_add(v[t + s].load(Relaxed), Relaxed);
                    }
                    BarrierAwait::new(BarrierOp::Sync, false).await;
                    s /= 2;
                }
                seen[t].store(evens * 1000 + v[0].load(Relaxed), Relaxed);
                core::panic::Location::caller()
            })
        })
    }

    #[test]
    fn one_block_of_a_state_machine_kernel_runs_without_fibers() {
        DIRECT.with(|d| d.set(true));
        let n = 16u32;
        let v: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let r = run_tree(n, &v, &seen);
        DIRECT.with(|d| d.set(false));
        r.unwrap();
        // Every thread passed every barrier and saw the finished sum and the count.
        for s in &seen {
            assert_eq!(s.load(Relaxed), (n / 2) * 1000 + n * (n + 1) / 2);
        }
    }

    /// Runs hand out every block once, in increasing order, long runs first and never shorter
    /// than the minimum (but for the last): guided, fixed (`u64::MAX`), and from four pullers
    /// at once.
    #[test]
    fn claims_cover_the_grid_in_increasing_runs_that_shrink() {
        use std::sync::atomic::AtomicU64;
        for (blocks, min, aim) in
            [(65_536, 64, 8), (100, 3, 8), (7, 1, 16), (1, 1, 8), (1000, 64, 4), (1000, 64, u64::MAX)]
        {
            let next = AtomicU64::new(0);
            let mut runs = Vec::new();
            while let Some(run) = claim(&next, blocks, min, aim) {
                runs.push(run);
            }
            assert_eq!(runs.first().map(|r| r.0), Some(0));
            assert_eq!(runs.last().map(|r| r.1), Some(blocks));
            for w in runs.windows(2) {
                assert_eq!(w[0].1, w[1].0, "runs are consecutive: {runs:?}");
                assert!(w[0].1 - w[0].0 >= w[1].1 - w[1].0, "runs shrink: {runs:?}");
            }
            let (last, rest) = runs.split_last().unwrap();
            assert!(rest.iter().all(|r| r.1 - r.0 >= min) && last.1 > last.0, "{runs:?}");
            if blocks == 65_536 {
                assert_eq!(runs[0], (0, 65_536 / 8), "the first run takes an eighth");
                assert!(runs.len() < 100, "{} runs", runs.len());
            }
            if aim == u64::MAX {
                assert_eq!(runs.len() as u64, blocks.div_ceil(min), "fixed runs of `min`: {runs:?}");
            }
        }
        // Four pullers at once: each block handed out exactly once.
        let next = AtomicU64::new(0);
        let seen: Vec<AtomicU64> = (0..1_000).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while let Some((a, b)) = claim(&next, 1_000, 2, 16) {
                        for i in a..b {
                            seen[i as usize].fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        assert!(seen.iter().all(|n| n.load(Relaxed) == 1));
    }
}
