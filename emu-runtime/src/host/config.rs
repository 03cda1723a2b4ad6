//! Settings: from environment variables, or from code through [`Config`].
//!
//! Precedence, highest first: [`with_config`] on the launching host thread, [`set_config`] for
//! the process, then the `EMU_*` environment variables. The environment is read once, at the
//! first launch or call that needs a setting (as the CUDA driver reads `CUDA_LAUNCH_BLOCKING`
//! once, when it starts): a launch then costs no `getenv` calls, and a program that changes
//! its environment while it runs changes nothing. To change settings in a running program, use
//! [`set_config`] or [`with_config`]; [`Config::from_env`] still reads the variables afresh.
//!
//! | variable         | values                                   | default    |
//! |------------------|------------------------------------------|------------|
//! | `EMU_BLOCKS`     | `parallel`, `serial`                     | `parallel` |
//! | `EMU_SEED`       | an unsigned integer, or `none`           | unset (threads start and resume in index order) |
//! | `EMU_CHECK`      | comma list of `memcheck`, `racecheck`, `initcheck`, `synccheck`, or `all`, `none` | `memcheck,synccheck` |
//! | `EMU_STACK_SIZE` | bytes, with optional `K`/`M` suffix      | `256K`     |
//! | `EMU_WARP_SIZE`  | `32`, `1`                                | `32`       |
//! | `EMU_TARGET`     | `auto`, `emulator`, `gpu` (with the `gpu` feature) | `auto`: the GPU with the feature when a driver and device are found, else `emulator` |
//! | `EMU_SCHEDULE`   | `fibers`, `threads` (one OS thread per GPU thread) | `fibers` |
//! | `EMU_PRINT_LIMIT` | how many findings a report prints in full; `0`: all | `20` |
//! | `EMU_PATH`       | `auto` (barrier regions or lane loops where `#[kernel]` made them), `general` (per-thread fibers and state machines) | `auto` |
//! | `EMU_VERBOSE`    | `0`, `1` (print the path each launch takes to stderr) | `0` |
//! | `EMU_CHECK_ACTION` | `error` (racecheck and initcheck findings fail the launch, 719), `report` (printed, the launch returns `Ok`) | `error` |
//! | `EMU_STICKY_ERRORS` | `0`, `1`: a fault with one of CUDA's sticky codes (700, 702, 710, 714-719) is returned by every later call | `0` |
//! | `EMU_LAUNCH_BLOCKING` | `0`, `1`: every launch waits for its kernel and returns its fault, as `CUDA_LAUNCH_BLOCKING=1` | `0` |
//! | `EMU_DEVICE_RUNTIME` | `cdp2` (sm_90: no device-side `device_synchronize`), `cdp1` (the legacy device runtime, with it and a 24-level nesting limit) | `cdp2` |
//! | `EMU_PENDING_LAUNCH_LIMIT` | device-side launches that may be pending (`cudaLimitDevRuntimePendingLaunchCount`) | `2048` |
//! | `EMU_TIMEOUT`    | seconds without progress before the watchdog stops a launch (702); `0`: off | `60` |
//! | `EMU_LAUNCH_TIMEOUT` | seconds a launch may run in all before it is stopped (702), busy or not; `0`: off | `86400` (a day) |
//! | `EMU_DEFAULT_STREAM` | `legacy`, `per-thread` (each host thread gets its own default stream, as nvcc's `--default-stream per-thread`) | `legacy` |
//!
//! Process-wide, read from the environment only (see `report.rs`): `EMU_LOG_FILE`,
//! `EMU_REPORT`, `EMU_ERROR_EXITCODE`; and `EMU_DEVICES` (how many devices, `host/devices.rs`).

use std::cell::RefCell;
use std::sync::{OnceLock, RwLock};

use crate::host::report::error::Error;

/// How the blocks of a grid are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlockOrder {
    /// Blocks run in parallel on all cores (rayon).
    #[default]
    Parallel,
    /// Blocks run one after another, in linear order, on the launching thread.
    Serial,
}

/// What a block's GPU threads run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Fibers (stackful coroutines) and state machines on the worker's host thread: fast.
    #[default]
    Fibers,
    /// One named OS thread per GPU thread (`b<block>t<thread>`, linear indices), as the old
    /// `-deviceemu` did: slow, but `info threads` in gdb lists every live GPU thread with its
    /// stack. Still one thread runs at a time, in the same order as with fibers.
    Threads,
}

/// Which host form of a kernel a launch runs (`EMU_PATH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExecPath {
    /// The fast form where `#[kernel]` made one (barrier regions, `sched/regions.rs`), the
    /// per-thread form otherwise. `EMU_SCHEDULE=threads` always takes the per-thread form.
    #[default]
    Auto,
    /// Always the per-thread form: fibers and state machines, one GPU thread at a time.
    General,
    /// Both, to check the fast forms: a launch of a kernel with a fast form runs on it, then
    /// again on the general path from a copy of the memory it started with (blocks in order,
    /// for both), and the two runs' memory, return codes and findings are compared; a
    /// difference fails the launch with a report that names the kernel and the first differing
    /// element (`sched/regions.rs`, `verify`). The general run's results are kept.
    Verify,
}

/// A fast-path tier of `#[kernel]`'s region forms (`emu-macros/src/fission/`), which
/// `EMU_TIERS_OFF` (or [`Config::tiers_off`]) can turn off one at a time, to find which one is
/// wrong when a kernel's results differ between `EMU_PATH=auto` and `general`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Barrier regions: each stretch of a kernel between barriers runs as a loop over the
    /// block's threads (off: barrier kernels take the general path).
    Regions,
    /// Lane loops: a barrier-free kernel runs as a loop over the block's threads.
    Lanes,
    /// Warp shuffles and votes handed over between regions.
    Shuffles,
    /// Checks hoisted out of a region or lane loop whose indices are proved in bounds for the
    /// whole block.
    Hoisted,
    /// Vectorised regions and lane loops (elements staged in local arrays).
    Vector,
    /// Regions whose accesses are proved in bounds from their indices' ranges.
    Ranges,
    /// Proved straight-line regions run several threads per call, in turn.
    Turn,
    /// Proved loop regions run groups of threads interleaved, reading copies of shared arrays.
    Interleave,
    /// Regions and lane loops whose views are checked live and aligned once per run: each
    /// access checks its index only.
    Views,
    /// Vectorised lane loops run several consecutive blocks at once, where the kernel reads
    /// its position only as its global index.
    Spans,
}

impl Tier {
    /// Every tier, in the order `EMU_TIERS_OFF` lists them.
    pub const ALL: [Tier; 10] = [
        Tier::Regions,
        Tier::Lanes,
        Tier::Shuffles,
        Tier::Hoisted,
        Tier::Vector,
        Tier::Ranges,
        Tier::Turn,
        Tier::Interleave,
        Tier::Views,
        Tier::Spans,
    ];

    /// The tier's name in `EMU_TIERS_OFF`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Regions => "regions",
            Tier::Lanes => "lanes",
            Tier::Shuffles => "shuffles",
            Tier::Hoisted => "hoisted",
            Tier::Vector => "vector",
            Tier::Ranges => "ranges",
            Tier::Turn => "turn",
            Tier::Interleave => "interleave",
            Tier::Views => "views",
            Tier::Spans => "spans",
        }
    }

    /// The tier's bit in a set of tiers.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// Where launches run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// On the CPU, in the emulator.
    Emulator,
    /// On the GPU (needs the `gpu` feature and a CUDA driver).
    Gpu,
}

// `Target::default()`, which asks whether a GPU is there, is in `host/devices.rs`: settings
// are a leaf below the GPU driver (emu-runtime/tests/layering.rs).

/// Which stream the default stream is (`EMU_DEFAULT_STREAM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DefaultStream {
    /// One legacy default stream per device, which synchronises with every blocking stream.
    #[default]
    Legacy,
    /// Each host thread has its own default stream, which synchronises with no other stream
    /// (nvcc's `--default-stream per-thread`).
    PerThread,
}

/// Which device runtime (dynamic parallelism) kernels see (`EMU_DEVICE_RUNTIME`); see
/// ARCHITECTURE.md, *The device runtime*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceRuntime {
    /// CUDA 12+ on sm_90 (CDP2): tail-launch and fire-and-forget streams, no device-side
    /// `device_synchronize()` (a reported error), no nesting-depth limit (the H200 ran depth
    /// 200, tools/probes/RESULTS.md p7).
    #[default]
    Cdp2,
    /// The legacy device runtime (CDP1): device-side `device_synchronize()` waits for the work
    /// the calling block launched so far; launches deeper than 24 levels fail with 65.
    Cdp1,
}

/// What racecheck and initcheck findings do to a launch (`EMU_CHECK_ACTION`).
///
/// Out-of-bounds accesses, panics and barrier errors always fail the launch: the kernel could
/// not run as written. Races and uninitialised reads are reported, and by default fail it too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CheckAction {
    /// The launch returns the error (719), as with compute-sanitizer's default.
    #[default]
    Error,
    /// The report is printed (and counted for `EMU_ERROR_EXITCODE`, `EMU_REPORT`), but the
    /// launch returns `Ok` when races and uninitialised reads are all it found.
    Report,
}

/// Which bug checkers are on.
///
/// Bounds checks (memcheck) and barrier checks (synccheck) are always performed, whatever is
/// asked: the emulator's memory safety rests on the bounds checks, and the scheduler needs the
/// barrier verdict to release a barrier. Their fields are therefore always `true` in the
/// checks a [`Config`] holds ([`Config::checks`] sets them). initcheck and racecheck are the
/// optional checkers: they run when asked (and cost nothing when off: kernels are compiled
/// with and without them). `EMU_CHECK=none` means "no optional checker".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checks {
    /// Out-of-bounds accesses. Always on (see above).
    pub memcheck: bool,
    /// Data races on shared memory between threads of a block, and on global memory between
    /// any threads of a launch.
    pub racecheck: bool,
    /// Reads of memory nothing has written: global memory from `DeviceBuffer::uninit`, and a
    /// block's shared memory.
    pub initcheck: bool,
    /// Barrier misuse. Always on (see above).
    pub synccheck: bool,
}

impl Checks {
    /// Every checker.
    pub const fn all() -> Self {
        Checks { memcheck: true, racecheck: true, initcheck: true, synccheck: true }
    }
    /// No optional checker: memcheck and synccheck only, which are always on.
    pub const fn none() -> Self {
        Checks { memcheck: true, racecheck: false, initcheck: false, synccheck: true }
    }
}

impl Default for Checks {
    fn default() -> Self {
        Checks::none()
    }
}

/// All settings of the emulator. Build one with [`Config::default`] or [`Config::from_env`]
/// and its builder methods, then apply it with [`set_config`] or [`with_config`].
///
/// ```
/// use emu_runtime::{BlockOrder, Config};
/// let config = Config::default().blocks(BlockOrder::Serial).seed(7);
/// assert_eq!(config.get_seed(), Some(7));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    blocks: BlockOrder,
    seed: Option<u64>,
    checks: Checks,
    stack_size: usize,
    warp_size: u32,
    max_shared_bytes: usize,
    /// Where launches run, or `None` when it is left to `auto` (`EMU_TARGET=auto`): then the
    /// question whether a GPU is there is asked when the target is used
    /// ([`Config::get_target`], in `host/devices.rs`), not here. A chosen target
    /// (`Config::target`, `EMU_TARGET=gpu|emulator`) is kept when warps of one lane are asked for.
    target: Option<Target>,
    schedule: Schedule,
    /// The watchdog's limit (`EMU_TIMEOUT`); zero turns it off.
    timeout: std::time::Duration,
    /// The launches' wall-clock bound (`EMU_LAUNCH_TIMEOUT`); zero turns it off.
    launch_timeout: std::time::Duration,
    print_limit: usize,
    check_action: CheckAction,
    sticky_errors: bool,
    launch_blocking: bool,
    default_stream: DefaultStream,
    path: ExecPath,
    /// The fast-path tiers turned off ([`Tier::bit`]s, `EMU_TIERS_OFF`).
    tiers_off: u32,
    verbose: bool,
    device_runtime: DeviceRuntime,
    pending_launch_limit: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            blocks: BlockOrder::Parallel,
            seed: None,
            checks: Checks::default(),
            stack_size: 256 * 1024,
            warp_size: 32,
            max_shared_bytes: 48 * 1024,
            target: None,
            schedule: Schedule::Fibers,
            timeout: DEFAULT_TIMEOUT,
            launch_timeout: DEFAULT_LAUNCH_TIMEOUT,
            print_limit: 20,
            check_action: CheckAction::Error,
            sticky_errors: false,
            launch_blocking: false,
            default_stream: DefaultStream::Legacy,
            path: ExecPath::Auto,
            tiers_off: 0,
            verbose: false,
            device_runtime: DeviceRuntime::Cdp2,
            pending_launch_limit: 2048,
        }
    }
}

impl Config {
    /// Reads the `EMU_*` environment variables over the defaults.
    ///
    /// Returns [`Error::InvalidSetting`] naming the variable and the valid values when one has
    /// a value deviceemu does not know.
    pub fn from_env() -> Result<Config, Error> {
        check_process_settings()?;
        let mut c = Config::default();
        let var = env_var;
        if let Some(v) = var("EMU_BLOCKS") {
            c.blocks = match v.trim() {
                "parallel" => BlockOrder::Parallel,
                "serial" => BlockOrder::Serial,
                _ => return Err(invalid("EMU_BLOCKS", v, "`parallel`, `serial`")),
            };
        }
        if let Some(v) = var("EMU_SEED") {
            c.seed = match v.trim() {
                "none" => None,
                t => Some(t.parse().map_err(|_| {
                    invalid("EMU_SEED", v, "an unsigned integer, e.g. `EMU_SEED=42`, or `none` (index order)")
                })?),
            };
        }
        if let Some(v) = var("EMU_CHECK") {
            c.checks = parse_checks(&v)?;
        }
        if let Some(v) = var("EMU_STACK_SIZE") {
            c.stack_size = parse_size(&v).ok_or_else(|| {
                invalid(
                    "EMU_STACK_SIZE",
                    v,
                    "a size in bytes of at least 16K, with an optional K or M suffix, e.g. `512K`, `4M`",
                )
            })?;
        }
        if let Some(v) = var("EMU_WARP_SIZE") {
            c.warp_size = match v.trim() {
                "32" => 32,
                "1" => 1,
                _ => return Err(invalid("EMU_WARP_SIZE", v, "`32`, `1`")),
            };
        }
        if let Some(v) = var("EMU_TARGET") {
            c.target = match v.trim() {
                "emulator" | "emu" => Some(Target::Emulator),
                "auto" => None,
                "gpu" if cfg!(feature = "gpu") => Some(Target::Gpu),
                "gpu" => {
                    return Err(Error::NotSupported {
                        message: "EMU_TARGET=gpu needs deviceemu built with its `gpu` feature (cargo --features gpu)"
                            .into(),
                    })
                }
                _ => return Err(invalid("EMU_TARGET", v, "`auto`, `emulator`, `gpu`")),
            };
        }
        if let Some(v) = var("EMU_TIMEOUT") {
            c.timeout = parse_timeout(&v).ok_or_else(|| {
                invalid("EMU_TIMEOUT", v, "seconds without progress before a launch is stopped, e.g. `EMU_TIMEOUT=10` or `2.5`; `0` turns the watchdog off")
            })?;
        }
        if let Some(v) = var("EMU_LAUNCH_TIMEOUT") {
            c.launch_timeout = parse_timeout(&v).ok_or_else(|| {
                invalid(
                    "EMU_LAUNCH_TIMEOUT",
                    v,
                    "seconds a launch may run in all, e.g. `EMU_LAUNCH_TIMEOUT=3600`; `0` turns the bound off",
                )
            })?;
        }
        if let Some(v) = var("EMU_SCHEDULE") {
            c.schedule = match v.trim() {
                "fibers" => Schedule::Fibers,
                "threads" => Schedule::Threads,
                _ => return Err(invalid("EMU_SCHEDULE", v, "`fibers`, `threads`")),
            };
        }
        if let Some(v) = var("EMU_PRINT_LIMIT") {
            c.print_limit = v
                .trim()
                .parse()
                .map_err(|_| invalid("EMU_PRINT_LIMIT", v, "an unsigned integer (0: print every finding)"))?;
        }
        if let Some(v) = var("EMU_PATH") {
            c.path = match v.trim() {
                "auto" => ExecPath::Auto,
                "general" => ExecPath::General,
                "verify" => ExecPath::Verify,
                _ => return Err(invalid("EMU_PATH", v, "`auto`, `general`, `verify`")),
            };
        }
        if let Some(v) = var("EMU_TIERS_OFF") {
            const VALID: &str =
                "a comma list of `regions`, `lanes`, `shuffles`, `hoisted`, `vector`, `ranges`, `turn`, `interleave`, or `none`";
            let mut off = 0;
            for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match Tier::ALL.iter().find(|t| t.name() == name) {
                    Some(t) => off |= t.bit(),
                    None if name == "none" => {}
                    None => return Err(invalid("EMU_TIERS_OFF", v.clone(), VALID)),
                }
            }
            c.tiers_off = off;
        }
        if let Some(v) = var("EMU_VERBOSE") {
            c.verbose = match v.trim() {
                "0" => false,
                "1" => true,
                _ => return Err(invalid("EMU_VERBOSE", v, "`0`, `1`")),
            };
        }
        if let Some(v) = var("EMU_CHECK_ACTION") {
            c.check_action = match v.trim() {
                "error" => CheckAction::Error,
                "report" => CheckAction::Report,
                _ => return Err(invalid("EMU_CHECK_ACTION", v, "`error`, `report`")),
            };
        }
        let flag = |name: &'static str, v: String| match v.trim() {
            "1" | "true" | "yes" => Ok(true),
            "0" | "false" | "no" => Ok(false),
            _ => Err(invalid(name, v, "`0`, `1`")),
        };
        if let Some(v) = var("EMU_STICKY_ERRORS") {
            c.sticky_errors = flag("EMU_STICKY_ERRORS", v)?;
        }
        if let Some(v) = var("EMU_LAUNCH_BLOCKING") {
            c.launch_blocking = flag("EMU_LAUNCH_BLOCKING", v)?;
        }
        if let Some(v) = var("EMU_DEFAULT_STREAM") {
            c.default_stream = match v.trim() {
                "legacy" => DefaultStream::Legacy,
                "per-thread" | "per_thread" => DefaultStream::PerThread,
                _ => return Err(invalid("EMU_DEFAULT_STREAM", v, "`legacy`, `per-thread`")),
            };
        }
        if let Some(v) = var("EMU_DEVICE_RUNTIME") {
            c.device_runtime = match v.trim() {
                "cdp2" => DeviceRuntime::Cdp2,
                "cdp1" => DeviceRuntime::Cdp1,
                _ => return Err(invalid("EMU_DEVICE_RUNTIME", v, "`cdp2` (sm_90, the default), `cdp1` (legacy)")),
            };
        }
        if let Some(v) = var("EMU_PENDING_LAUNCH_LIMIT") {
            c.pending_launch_limit = v.trim().parse().map_err(|_| {
                invalid("EMU_PENDING_LAUNCH_LIMIT", v, "an unsigned integer, e.g. `2048` (CUDA's default)")
            })?;
        }
        // `EMU_WARP_SIZE=1` is the emulator's mode: with `EMU_TARGET` unset or `auto`, it runs there.
        if c.warp_size != 32 && c.target.is_none() {
            c.target = Some(Target::Emulator);
        }
        Ok(c)
    }

    /// The watchdog's limit: a launch that makes no progress for this long is stopped with
    /// error 702 (`cudaErrorLaunchTimeout`) and a report of where its threads are
    /// (`EMU_TIMEOUT`, in seconds; default 60). `Duration::ZERO` turns the watchdog off.
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The watchdog's limit (zero: off).
    pub fn get_timeout(&self) -> std::time::Duration {
        self.timeout
    }

    /// The wall-clock bound of a launch: one that runs longer is stopped with error 702 at
    /// its next progress point or barrier even though its threads look busy (they write
    /// memory or exit, which is progress for [`timeout`](Self::timeout)'s watchdog)
    /// (`EMU_LAUNCH_TIMEOUT`, in seconds; default 24 hours, which no legitimate emulated launch
    /// is expected to reach). `Duration::ZERO` turns it off.
    pub fn launch_timeout(mut self, limit: std::time::Duration) -> Self {
        self.launch_timeout = limit;
        self
    }

    /// The wall-clock bound of a launch (zero: off).
    pub fn get_launch_timeout(&self) -> std::time::Duration {
        self.launch_timeout
    }

    /// How many findings a report prints in full (the summary counts all); 0 prints all.
    pub fn print_limit(mut self, limit: usize) -> Self {
        self.print_limit = limit;
        self
    }
    /// The print limit (0: no limit).
    pub fn get_print_limit(&self) -> usize {
        self.print_limit
    }
    /// Whether racecheck and initcheck findings fail the launch.
    pub fn check_action(mut self, action: CheckAction) -> Self {
        self.check_action = action;
        self
    }
    /// What racecheck and initcheck findings do.
    pub fn get_check_action(&self) -> CheckAction {
        self.check_action
    }

    /// Makes CUDA's sticky errors sticky (`EMU_STICKY_ERRORS=1`): after a fault with one of
    /// the codes in `STICKY_CODES` (700, 702, 710, 714 to 719) on a device, every later call on
    /// it (launches, copies, allocations, synchronisations, stream creation) returns that
    /// error, as on the GPU. Off by default: the next launch works normally.
    pub fn sticky_errors(mut self, on: bool) -> Self {
        self.sticky_errors = on;
        self
    }
    /// Whether CUDA's sticky errors are sticky ([`Config::sticky_errors`]).
    pub fn get_sticky_errors(&self) -> bool {
        self.sticky_errors
    }
    /// Makes every launch synchronous (`EMU_LAUNCH_BLOCKING=1`, as `CUDA_LAUNCH_BLOCKING=1`):
    /// a launch on a stream waits for its kernel and returns the kernel's fault.
    pub fn launch_blocking(mut self, on: bool) -> Self {
        self.launch_blocking = on;
        self
    }
    /// Whether launches are synchronous ([`Config::launch_blocking`]).
    pub fn get_launch_blocking(&self) -> bool {
        self.launch_blocking
    }
    /// Which stream `Stream::default_stream()` and the three-argument `launch!` use
    /// (`EMU_DEFAULT_STREAM`).
    pub fn default_stream(mut self, which: DefaultStream) -> Self {
        self.default_stream = which;
        self
    }
    /// Which stream the default stream is ([`Config::default_stream`]).
    pub fn get_default_stream(&self) -> DefaultStream {
        self.default_stream
    }
    /// Which device runtime kernels see (`EMU_DEVICE_RUNTIME`): [`DeviceRuntime::Cdp2`]
    /// (sm_90, the default) or the legacy [`DeviceRuntime::Cdp1`].
    pub fn device_runtime(mut self, profile: DeviceRuntime) -> Self {
        self.device_runtime = profile;
        self
    }
    /// Which device runtime kernels see.
    pub fn get_device_runtime(&self) -> DeviceRuntime {
        self.device_runtime
    }
    /// How many device-side launches may be pending (`cudaLimitDevRuntimePendingLaunchCount`,
    /// `EMU_PENDING_LAUNCH_LIMIT`; default 2048); past it a launch fails with 69, by the rules
    /// ARCHITECTURE.md's *The device runtime* gives per stream kind. On the GPU it is set with
    /// `cuCtxSetLimit` before a launch of a kernel that calls the device runtime.
    pub fn pending_launch_limit(mut self, launches: usize) -> Self {
        self.pending_launch_limit = launches;
        self
    }
    /// How many device-side launches may be pending.
    pub fn get_pending_launch_limit(&self) -> usize {
        self.pending_launch_limit
    }
    /// Which host form of kernels launches run (`EMU_PATH`).
    pub fn path(mut self, path: ExecPath) -> Self {
        self.path = path;
        self
    }
    /// Which host form of kernels launches run.
    pub fn get_path(&self) -> ExecPath {
        self.path
    }
    /// Turns the fast-path tier `tier` off (`EMU_TIERS_OFF`), leaving the others on.
    pub fn tier_off(mut self, tier: Tier) -> Self {
        self.tiers_off |= tier.bit();
        self
    }
    /// Sets the fast-path tiers turned off to exactly `tiers`.
    pub fn tiers_off(mut self, tiers: &[Tier]) -> Self {
        self.tiers_off = tiers.iter().fold(0, |m, t| m | t.bit());
        self
    }
    /// Whether the fast-path tier `tier` is on.
    pub fn get_tier(&self, tier: Tier) -> bool {
        self.tiers_off & tier.bit() == 0
    }
    /// The tiers turned off, as a mask of [`Tier::bit`]s (what each block of a regions launch
    /// reads).
    pub(crate) fn get_tiers_off(&self) -> u32 {
        self.tiers_off
    }
    /// Whether each launch prints the path it takes to stderr (`EMU_VERBOSE=1`).
    pub fn verbose(mut self, on: bool) -> Self {
        self.verbose = on;
        self
    }
    /// Whether launches print their path.
    pub fn get_verbose(&self) -> bool {
        self.verbose
    }

    /// Runs blocks in parallel or in order.
    pub fn blocks(mut self, order: BlockOrder) -> Self {
        self.blocks = order;
        self
    }
    /// Shuffles the order in which a block's threads start and resume after each barrier,
    /// deterministically from `seed`. Race-free kernels give the same results for every seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Starts and resumes threads in index order (the default).
    pub fn no_seed(mut self) -> Self {
        self.seed = None;
        self
    }
    /// Chooses the optional checkers (memcheck and synccheck stay on, whatever `checks` says).
    pub fn checks(mut self, checks: Checks) -> Self {
        self.checks = Checks { memcheck: true, synccheck: true, ..checks };
        self
    }
    /// The stack size of each GPU thread's fiber, in bytes (at least 16 KiB).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes.max(16 * 1024);
        self
    }
    /// The warp size: 32 (the hardware's) or 1 (the legacy emulator's).
    ///
    /// Warps of one lane exist only in the emulator: unless a target was chosen
    /// ([`Config::target`], `EMU_TARGET=gpu`), they also make the emulator the target, and a
    /// GPU launch with them is refused (`cudaErrorInvalidConfiguration`), never run with
    /// other semantics.
    ///
    /// # Panics
    ///
    /// If `size` is neither 32 nor 1.
    pub fn warp_size(mut self, size: u32) -> Self {
        assert!(size == 32 || size == 1, "warp size must be 32 or 1, not {size}");
        self.warp_size = size;
        if size != 32 && self.target.is_none() {
            self.target = Some(Target::Emulator);
        }
        self
    }
    /// The most shared memory (static arrays plus dynamic bytes) one block may use, in bytes.
    /// The default, 48 KiB, is what every CUDA device allows without opting in.
    pub fn max_shared_bytes(mut self, bytes: usize) -> Self {
        self.max_shared_bytes = bytes;
        self
    }

    /// Runs launches (and allocates buffers) in the emulator or on the GPU.
    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }
    /// Where launches run, if it was chosen (`Config::target`, `EMU_TARGET=gpu|emulator`, or
    /// warps of one lane with the target left to `auto`); `None` when it is left to `auto`.
    /// [`Config::get_target`] answers `auto` (`host/devices.rs`, which asks the GPU).
    pub(crate) fn chosen_target(&self) -> Option<Target> {
        self.target
    }
    /// Runs a block's GPU threads on fibers (the default) or one OS thread each
    /// (`EMU_SCHEDULE=threads`).
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }
    /// What GPU threads run on.
    pub fn get_schedule(&self) -> Schedule {
        self.schedule
    }
    /// The block order.
    pub fn get_blocks(&self) -> BlockOrder {
        self.blocks
    }
    /// The seed, if threads are shuffled.
    pub fn get_seed(&self) -> Option<u64> {
        self.seed
    }
    /// The checkers.
    pub fn get_checks(&self) -> Checks {
        self.checks
    }
    /// The fiber stack size in bytes.
    pub fn get_stack_size(&self) -> usize {
        self.stack_size
    }
    /// The warp size.
    pub fn get_warp_size(&self) -> u32 {
        self.warp_size
    }
    /// The shared memory limit per block, in bytes.
    pub fn get_max_shared_bytes(&self) -> usize {
        self.max_shared_bytes
    }
}

fn invalid(variable: &'static str, value: String, valid: &'static str) -> Error {
    Error::InvalidSetting { variable, value, valid }
}

fn parse_checks(v: &str) -> Result<Checks, Error> {
    const VALID: &str =
        "a comma-separated list of `memcheck`, `racecheck`, `initcheck`, `synccheck`, or `all`, or `none`";
    let mut c = Checks::none();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "all" => c = Checks::all(),
            "none" => {}
            "memcheck" => c.memcheck = true,
            "racecheck" => c.racecheck = true,
            "initcheck" => c.initcheck = true,
            "synccheck" => c.synccheck = true,
            _ => return Err(invalid("EMU_CHECK", v.to_owned(), VALID)),
        }
    }
    Ok(c)
}

/// An `EMU_*` variable's value, if set and not blank.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Most emulated devices `EMU_DEVICES` may ask for.
pub(crate) const MAX_DEVICES: u32 = 16;

/// The process-wide settings, which only the environment sets (`EMU_DEVICES`,
/// `EMU_ERROR_EXITCODE`, `EMU_RACECHECK_SHADOW`, `EMU_LOG_FILE`, `EMU_REPORT`), checked once:
/// a bad value is the error of every launch, as a bad value of the other settings is. Their
/// readers (`devices.rs`, `report/findings.rs`, racecheck) parse them with the functions below.
pub(crate) fn process_settings() -> Result<(), Error> {
    static CHECKED: OnceLock<Result<(), Error>> = OnceLock::new();
    CHECKED.get_or_init(check_process_settings).clone()
}

fn check_process_settings() -> Result<(), Error> {
    if let Some(v) = env_var("EMU_DEVICES") {
        parse_devices(&v)
            .ok_or_else(|| invalid("EMU_DEVICES", v, "a device count from 1 to 16, e.g. `EMU_DEVICES=2`"))?;
    }
    if let Some(v) = env_var("EMU_ERROR_EXITCODE") {
        parse_exit_code(&v).ok_or_else(|| {
            invalid(
                "EMU_ERROR_EXITCODE",
                v,
                "an exit status from 0 to 255, e.g. `EMU_ERROR_EXITCODE=1` (a process exits with its low 8 bits only)",
            )
        })?;
    }
    if let Some(v) = env_var("EMU_RACECHECK_SHADOW") {
        parse_bytes(&v).ok_or_else(|| {
            invalid(
                "EMU_RACECHECK_SHADOW",
                v,
                "a size in bytes with an optional K, M or G suffix, e.g. `EMU_RACECHECK_SHADOW=4G`",
            )
        })?;
    }
    for name in ["EMU_LOG_FILE", "EMU_REPORT"] {
        if let Some(v) = env_var(name) {
            if !creatable(&v) {
                return Err(invalid(name, v, "a path to a file in a directory that exists, e.g. `report.txt`"));
            }
        }
    }
    Ok(())
}

/// `EMU_DEVICES`: 1 to [`MAX_DEVICES`]; `None` for anything else. Unset is 1.
pub(crate) fn devices_setting() -> u32 {
    env_var("EMU_DEVICES").and_then(|v| parse_devices(&v)).unwrap_or(1)
}

fn parse_devices(v: &str) -> Option<u32> {
    v.trim().parse::<u32>().ok().filter(|n| (1..=MAX_DEVICES).contains(n))
}

/// `EMU_ERROR_EXITCODE`: an exit status, 0 to 255.
pub(crate) fn parse_exit_code(v: &str) -> Option<i32> {
    v.trim().parse::<i32>().ok().filter(|n| (0..=255).contains(n))
}

/// A size in bytes with an optional `K`, `M` or `G` suffix (`EMU_RACECHECK_SHADOW`).
pub(crate) fn parse_bytes(v: &str) -> Option<usize> {
    let v = v.trim();
    let (num, shift) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 10),
        'm' | 'M' => (&v[..v.len() - 1], 20),
        'g' | 'G' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(1 << shift)
}

/// Whether a file could be created at `path`: its directory exists (the file itself is
/// created by the first report).
fn creatable(path: &str) -> bool {
    let p = std::path::Path::new(path.trim());
    if p.is_dir() {
        return false;
    }
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.is_dir(),
        _ => true,
    }
}

fn parse_size(v: &str) -> Option<usize> {
    let v = v.trim();
    let (num, mul) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 1024),
        'm' | 'M' => (&v[..v.len() - 1], 1024 * 1024),
        _ => (v, 1),
    };
    let n: usize = num.trim().parse().ok()?;
    let bytes = n.checked_mul(mul)?;
    (bytes >= 16 * 1024).then_some(bytes)
}

static PROCESS: RwLock<Option<Config>> = RwLock::new(None);

thread_local! {
    static THREAD: RefCell<Option<Config>> = const { RefCell::new(None) };
}

/// Sets the configuration of every later launch in this process (overriding the environment).
pub fn set_config(config: Config) {
    *PROCESS.write().unwrap_or_else(|e| e.into_inner()) = Some(config);
}

/// Runs `f` with `config` applied to the launches it makes on this host thread, then restores
/// the previous setting (also if `f` panics).
pub fn with_config<R>(config: Config, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Config>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            THREAD.with(|t| *t.borrow_mut() = prev);
        }
    }
    let prev = THREAD.with(|t| t.borrow_mut().replace(config));
    let _restore = Restore(prev);
    f()
}

/// The configuration in force for a launch from this host thread. The process-wide settings
/// are checked first, also under a configuration set in code.
pub(crate) fn effective() -> Result<Config, Error> {
    process_settings()?;
    match set_in_code() {
        Some(c) => Ok(c),
        None => from_env_once(),
    }
}

/// The environment's settings, read at the first call of the process ([`Config::from_env`]),
/// with its error, if any, returned by every later call too.
fn from_env_once() -> Result<Config, Error> {
    static ENV: OnceLock<Result<Config, Error>> = OnceLock::new();
    ENV.get_or_init(Config::from_env).clone()
}

/// The configuration set in code ([`with_config`], then [`set_config`]), if any.
pub(crate) fn set_in_code() -> Option<Config> {
    THREAD.with(|t| t.borrow().clone()).or_else(|| PROCESS.read().unwrap_or_else(|e| e.into_inner()).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_checks() {
        assert_eq!(parse_size("512K"), Some(512 * 1024));
        assert_eq!(parse_size("4M"), Some(4 << 20));
        assert_eq!(parse_size("262144"), Some(262144));
        assert_eq!(parse_size("1K"), None);
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_checks("all").unwrap(), Checks::all());
        let c = parse_checks("memcheck, racecheck").unwrap();
        assert!(c.memcheck && c.racecheck && !c.initcheck && c.synccheck);
        // memcheck and synccheck cannot be turned off: `none` and the builder keep them on.
        assert_eq!(parse_checks("none").unwrap(), Checks::none());
        assert!(Checks::none().memcheck && Checks::none().synccheck);
        assert!(!Checks::none().initcheck && !Checks::none().racecheck);
        let off = Checks { memcheck: false, racecheck: true, initcheck: false, synccheck: false };
        let c = Config::default().checks(off).get_checks();
        assert!(c.memcheck && c.synccheck && c.racecheck && !c.initcheck);
        let e = parse_checks("memchek").unwrap_err();
        assert_eq!(e.code(), 1);
        assert!(e.to_string().contains("racecheck"), "{e}");
    }

    #[test]
    fn thread_override_is_scoped() {
        let c = Config::default().seed(3);
        with_config(c.clone(), || assert_eq!(effective().unwrap(), c));
        assert!(THREAD.with(|t| t.borrow().is_none()));
    }
}

/// The watchdog's default limit: long enough that legitimate work (which exits threads, passes
/// barriers and ends blocks far more often) never meets it.
pub(crate) const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// The default wall-clock bound of a launch (`EMU_LAUNCH_TIMEOUT`): a day.
pub(crate) const DEFAULT_LAUNCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// `EMU_TIMEOUT` and `EMU_LAUNCH_TIMEOUT`: seconds, fractional allowed; `0` is off.
fn parse_timeout(v: &str) -> Option<std::time::Duration> {
    let secs: f64 = v.trim().trim_end_matches('s').parse().ok()?;
    (secs.is_finite() && (0.0..1e9).contains(&secs)).then(|| std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod timeout_tests {
    use super::parse_timeout;
    use std::time::Duration;

    #[test]
    fn emu_timeout_takes_seconds() {
        assert_eq!(parse_timeout("10"), Some(Duration::from_secs(10)));
        assert_eq!(parse_timeout("2.5s"), Some(Duration::from_millis(2500)));
        assert_eq!(parse_timeout("0"), Some(Duration::ZERO));
        assert_eq!(parse_timeout("-1"), None);
        assert_eq!(parse_timeout("soon"), None);
    }
}
