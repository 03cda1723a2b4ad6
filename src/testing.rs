//! Test kernels under every setting: loom's `model(|| ...)` for deviceemu.
//!
//! [`model`] runs a closure once per combination of the settings a correct kernel must not
//! depend on, and on failure prints the `EMU_*` line that replays the failing combination:
//!
//! | dimension    | default values                          | pinned by        |
//! |--------------|-----------------------------------------|------------------|
//! | block order  | `parallel`, `serial`                    | `EMU_BLOCKS`     |
//! | thread order | index order, seed 1, seed 7             | `EMU_SEED`       |
//! | warp size    | 32, 1 ([`Model::warp_size_32_only`] for kernels that need 32); runs with warps of 1 stay in the emulator, also under `EMU_TARGET=gpu` | `EMU_WARP_SIZE` |
//! | schedule     | fibers, threads (threads under the first block order and seed only: it is slow) | `EMU_SCHEDULE` |
//! | checkers     | all of them                             | `EMU_CHECK`      |
//! | host path    | the fast form with the checkers above; then once the fast form with none, and once `verify` with none and once with each checker set | `EMU_PATH` |
//!
//! The fast forms (`#[kernel]`'s loop fission) run without the per-access checkers: the
//! runs with every checker take the general path for most kernels, so the matrix adds one run of
//! the fast form as a plain `cargo test` or `cargo run` takes it (no optional checker), and
//! two `EMU_PATH=verify` runs, which compare the fast form with the general path
//! ([`ExecPath::Verify`]). These extra runs take the first block order, seed, warp size and
//! schedule.
//!
//! A variable that is set pins its dimension to its value (for warp size and schedule,
//! when the test allows that value; else a note is printed), so the replay line printed on
//! failure (`EMU_SEED=7 EMU_BLOCKS=serial EMU_WARP_SIZE=1 EMU_SCHEDULE=fibers EMU_CHECK=all EMU_PATH=auto
//! cargo test ...`) runs exactly the failing combination. Every other setting (stack size,
//! `EMU_PRINT_LIMIT`, `EMU_CHECK_ACTION`, ...) comes from the environment as usual.
//!
//! The closure runs under [`with_config`], so launches it makes on its
//! own host thread see the combination; a `with_config` inside the closure replaces it. Runs
//! are [`quietly`]: reports of launches a test expects to fail are not
//! printed. When a run fails, it is run once more with reports on, so the report of the
//! failing combination is shown, then the replay line, then the original panic.
//!
//! ```
//! use deviceemu::prelude::*;
//! use deviceemu::testing::model;
//!
//! #[kernel]
//! pub fn double(x: &mut [u32]) {
//!     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
//!     if i < x.len() {
//!         x[i] *= 2;
//!     }
//! }
//!
//! model(|| {
//!     let mut x = DeviceBuffer::from_slice(&[1u32, 2, 3, 4, 5]).unwrap();
//!     launch!(double<<<2, 4>>>(&mut x)).unwrap();
//!     assert_eq!(x.to_vec().unwrap(), [2, 4, 6, 8, 10]);
//! });
//! ```
//!
//! For property tests, [`Model::proptest`] draws one combination per case (proptest shrinks
//! it along with the input), keeps reports quiet while it shrinks, and shows the minimal
//! case's report. [`strategies`] has launch shapes and buffers with special floats.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestError, TestRunner};

use crate::{quietly, with_config, BlockOrder, Checks, Config, ExecPath, Schedule, Target};

/// Runs `f` under every default combination of settings ([`Model::new`]); see the module
/// docs.
///
/// # Panics
///
/// With `f`'s panic, after printing the settings that replay it; also when an `EMU_*`
/// variable has an invalid value.
pub fn model(f: impl FnMut()) {
    Model::new().check(f)
}

/// A matrix of settings to run a test under. Build with [`Model::new`], narrow it with the
/// builder methods, run with [`Model::check`], [`Model::check_with`] or [`Model::proptest`].
#[derive(Clone, Debug)]
pub struct Model {
    base: Config,
    blocks: Vec<BlockOrder>,
    seeds: Vec<Option<u64>>,
    warp_sizes: Vec<u32>,
    schedules: Vec<Schedule>,
    checks: Vec<Checks>,
    paths: bool,
    cases: Option<u32>,
    persist: bool,
}

impl Default for Model {
    fn default() -> Self {
        Model::new()
    }
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.trim().is_empty())
}

/// Narrows `values` to the pinned one, if any (with a note when the test does not allow it).
fn pin<T: PartialEq + Clone + std::fmt::Debug>(variable: &str, pinned: Option<T>, values: &[T]) -> Vec<T> {
    match pinned {
        Some(v) if values.contains(&v) => vec![v],
        Some(v) => {
            eprintln!(
                "deviceemu::testing: {variable} asks for {v:?}, which this test does not allow; running {values:?}"
            );
            values.to_vec()
        }
        None => values.to_vec(),
    }
}

impl Model {
    /// The default matrix (see the module docs), with the other settings from the
    /// environment.
    ///
    /// # Panics
    ///
    /// When an `EMU_*` variable has an invalid value.
    pub fn new() -> Self {
        let base = Config::from_env().unwrap_or_else(|e| panic!("deviceemu::testing: {e}"));
        Model {
            base,
            blocks: vec![BlockOrder::Parallel, BlockOrder::Serial],
            seeds: vec![None, Some(1), Some(7)],
            warp_sizes: vec![32, 1],
            schedules: vec![Schedule::Fibers, Schedule::Threads],
            checks: vec![Checks::all()],
            paths: true,
            cases: None,
            persist: true,
        }
    }
    /// The block orders to try.
    pub fn blocks(mut self, orders: &[BlockOrder]) -> Self {
        self.blocks = orders.to_vec();
        self
    }
    /// The thread orders to try: `None` is index order, `Some(seed)` a shuffle (`EMU_SEED`).
    pub fn seeds(mut self, seeds: &[Option<u64>]) -> Self {
        self.seeds = seeds.to_vec();
        self
    }
    /// The warp sizes to try (32, 1).
    pub fn warp_sizes(mut self, sizes: &[u32]) -> Self {
        assert!(sizes.iter().all(|&w| w == 32 || w == 1), "warp sizes are 32 or 1, not {sizes:?}");
        self.warp_sizes = sizes.to_vec();
        self
    }
    /// For a kernel whose results depend on warps of 32 (it shuffles, or writes
    /// `warp_size()`-sized partial results): no run with warp size 1.
    pub fn warp_size_32_only(self) -> Self {
        self.warp_sizes(&[32])
    }
    /// The schedules to try.
    pub fn schedules(mut self, schedules: &[Schedule]) -> Self {
        self.schedules = schedules.to_vec();
        self
    }
    /// Fibers only: for tests too big for one OS thread per GPU thread.
    pub fn fibers_only(self) -> Self {
        self.schedules(&[Schedule::Fibers])
    }
    /// The checker sets to try (default: [`Checks::all`]).
    pub fn checks(mut self, checks: &[Checks]) -> Self {
        self.checks = checks.to_vec();
        self
    }
    /// Whether the matrix adds the host-path runs (the fast form without checkers, and
    /// `EMU_PATH=verify`, see the module docs); on by default.
    pub fn host_paths(mut self, on: bool) -> Self {
        self.paths = on;
        self
    }
    /// The other settings (stack size, shared memory limit, ...) every run starts from; the
    /// matrix's dimensions are set over them. Default: [`Config::from_env`].
    pub fn base(mut self, config: Config) -> Self {
        self.base = config;
        self
    }
    /// How many cases [`Model::proptest`] runs (default: proptest's, `PROPTEST_CASES`).
    pub fn cases(mut self, cases: u32) -> Self {
        self.cases = Some(cases);
        self
    }

    /// [`Model::proptest`] does not read or write `proptest-regressions` files.
    pub fn no_persistence(mut self) -> Self {
        self.persist = false;
        self
    }

    /// Every combination this model runs, in order, after the `EMU_*` pins.
    pub fn configs(&self) -> Vec<Config> {
        let env = &self.base;
        // Any block order, seed and checker set is allowed: a pin replaces the list.
        let blocks = if env_set("EMU_BLOCKS") { vec![env.get_blocks()] } else { self.blocks.clone() };
        let seeds = if env_set("EMU_SEED") { vec![env.get_seed()] } else { self.seeds.clone() };
        let warps = pin("EMU_WARP_SIZE", env_set("EMU_WARP_SIZE").then(|| env.get_warp_size()), &self.warp_sizes);
        let schedules = pin("EMU_SCHEDULE", env_set("EMU_SCHEDULE").then(|| env.get_schedule()), &self.schedules);
        let checks = if env_set("EMU_CHECK") { vec![env.get_checks()] } else { self.checks.clone() };
        let pinned_path = env_set("EMU_PATH").then(|| env.get_path());
        let mut out = Vec::new();
        for &schedule in &schedules {
            // One OS thread per GPU thread is slow: unless it is all that runs, threads get
            // the first block order and thread order only.
            let reduced = schedule == Schedule::Threads && schedules.len() > 1;
            for &b in if reduced { &blocks[..1] } else { &blocks[..] } {
                for &seed in if reduced { &seeds[..1] } else { &seeds[..] } {
                    for &w in &warps {
                        for &c in &checks {
                            let mut config = self.base.clone().blocks(b).warp_size(w).schedule(schedule).checks(c);
                            config = config.path(pinned_path.unwrap_or(ExecPath::Auto));
                            // Warps of one lane are the legacy emulator's semantics: a GPU's
                            // warps have 32 lanes, so those runs stay in the emulator.
                            if w != 32 {
                                config = config.target(Target::Emulator);
                            }
                            out.push(match seed {
                                Some(s) => config.seed(s),
                                None => config.no_seed(),
                            });
                        }
                    }
                }
            }
        }
        // The host paths: the fast form unchecked, and verify without and with the checkers,
        // under the first combination of the other dimensions.
        if self.paths && pinned_path.is_none() {
            if let Some(first) = out.first().cloned() {
                // The fast form as a plain run takes it (no optional checker), then verify
                // without checkers and with each checker set of the test (with `EMU_CHECK`
                // set, with those only).
                let mut extra = Vec::new();
                if !env_set("EMU_CHECK") {
                    extra.push(first.clone().path(ExecPath::Auto).checks(Checks::none()));
                    extra.push(first.clone().path(ExecPath::Verify).checks(Checks::none()));
                }
                extra.extend(checks.iter().map(|&c| first.clone().path(ExecPath::Verify).checks(c)));
                for e in extra {
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
            }
        }
        out
    }

    /// Runs `f` under every combination; see [`Model::check_with`].
    pub fn check(&self, mut f: impl FnMut()) {
        self.check_with(|_| f())
    }

    /// Runs `f` under every combination, passing it the combination (for results that depend
    /// on it, such as the warp size).
    ///
    /// # Panics
    ///
    /// With the first failing run's panic, after its report (re-run loud) and the line that
    /// replays it.
    pub fn check_with(&self, mut f: impl FnMut(&Config)) {
        let configs = self.configs();
        for (i, config) in configs.iter().enumerate() {
            let mut run = || with_config(config.clone(), || f(config));
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| quietly(&mut run))) {
                eprintln!(
                    "deviceemu::testing: run {} of {} failed ({}); again with reports on:",
                    i + 1,
                    configs.len(),
                    path_words(config)
                );
                let _ = catch_unwind(AssertUnwindSafe(&mut run));
                eprintln!("deviceemu::testing: replay the failing settings with\n    {}", replay_line(config));
                resume_unwind(panic);
            }
        }
    }

    /// A property test: `test` runs on values of `strategy`, each case under one combination
    /// of this model drawn along with the value. Reports stay quiet while proptest searches
    /// and shrinks; the minimal case is then run once more with reports on.
    ///
    /// Prefer `prop_assert!` to `assert!` in `test` (a panic is a failure too, but Rust's
    /// panic hook prints every one while proptest shrinks). A launch's error converts with
    /// `?` into a failure whose message is the full report. Failing cases are persisted as
    /// proptest does, next to the calling test file (`tests/NAME.proptest-regressions`), and
    /// re-run first.
    ///
    /// # Panics
    ///
    /// When a case fails: with the minimal input and the settings that replay it.
    #[track_caller]
    pub fn proptest<S>(&self, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
    where
        S: Strategy,
    {
        let configs = self.configs();
        let mut pc =
            ProptestConfig { source_file: Some(std::panic::Location::caller().file()), ..ProptestConfig::default() };
        if !self.persist {
            pc.failure_persistence = None;
        }
        if let Some(cases) = self.cases {
            pc.cases = cases;
        }
        let mut runner = TestRunner::new(pc);
        let all = (0..configs.len(), strategy);
        let result = quietly(|| runner.run(&all, |(i, value)| with_config(configs[i].clone(), || test(value))));
        match result {
            Ok(()) => {}
            Err(TestError::Abort(why)) => panic!("deviceemu::testing: proptest gave up: {why}"),
            Err(TestError::Fail(why, (i, value))) => {
                let shown = format!("{value:?}");
                eprintln!("deviceemu::testing: minimal failing case, again with reports on:");
                let again = catch_unwind(AssertUnwindSafe(|| with_config(configs[i].clone(), || test(value))));
                let again = match again {
                    Ok(Ok(())) => "passed this time (the failure depends on more than the settings)".to_owned(),
                    Ok(Err(e)) => format!("failed again: {e}"),
                    Err(_) => "panicked again".to_owned(),
                };
                // The reason of a failed launch is its whole report, printed above by the re-run.
                let why = why.to_string();
                let why = why.lines().next().unwrap_or("");
                panic!(
                    "property failed: {why}\n    minimal failing input: {shown}\n    the re-run {}\n    \
                     replay the settings with: {}",
                    again.lines().next().unwrap_or(""),
                    replay_line(&configs[i])
                );
            }
        }
    }
}

/// Which host path a run took, for the failure message.
fn path_words(config: &Config) -> &'static str {
    match config.get_path() {
        ExecPath::Auto => "the fast form where the kernel has one",
        ExecPath::General => "the general path",
        ExecPath::Verify => "EMU_PATH=verify: the fast form compared with the general path",
    }
}

/// The environment variables that select `config`'s matrix dimensions, followed by the
/// `cargo test` command for the running test, e.g. `EMU_SEED=7 EMU_BLOCKS=serial
/// EMU_WARP_SIZE=1 EMU_SCHEDULE=fibers EMU_CHECK=all cargo test --test warps votes -- --exact`.
/// `EMU_SEED=none` means index order.
pub fn replay_line(config: &Config) -> String {
    let seed = config.get_seed().map_or("none".to_owned(), |s| s.to_string());
    let blocks = match config.get_blocks() {
        BlockOrder::Parallel => "parallel",
        BlockOrder::Serial => "serial",
    };
    let schedule = match config.get_schedule() {
        Schedule::Fibers => "fibers",
        Schedule::Threads => "threads",
    };
    let c = config.get_checks();
    let checks = if c == Checks::all() {
        "all".to_owned()
    } else if c == Checks::none() {
        "none".to_owned()
    } else {
        let names = [
            (c.memcheck, "memcheck"),
            (c.racecheck, "racecheck"),
            (c.initcheck, "initcheck"),
            (c.synccheck, "synccheck"),
        ];
        names.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect::<Vec<_>>().join(",")
    };
    let mut cmd = String::from("cargo test");
    let exe = std::env::args().next().map(std::path::PathBuf::from);
    let in_deps = exe.as_ref().and_then(|p| p.parent()).is_some_and(|d| d.ends_with("deps"));
    if let (true, Some(stem)) = (in_deps, exe.as_ref().and_then(|p| p.file_stem()).and_then(|s| s.to_str())) {
        let name = stem.rsplit_once('-').map_or(stem, |(n, _)| n);
        cmd.push_str(&format!(" --test {name}"));
    }
    if let Some(test) = std::thread::current().name().filter(|n| *n != "main") {
        cmd.push_str(&format!(" {test} -- --exact"));
    }
    let path = match config.get_path() {
        ExecPath::Auto => "auto",
        ExecPath::General => "general",
        ExecPath::Verify => "verify",
    };
    format!(
        "EMU_SEED={seed} EMU_BLOCKS={blocks} EMU_WARP_SIZE={} EMU_SCHEDULE={schedule} EMU_CHECK={checks} EMU_PATH={path} {cmd}",
        config.get_warp_size()
    )
}

/// proptest strategies for launch shapes and buffers.
pub mod strategies {
    use proptest::prelude::*;

    use crate::Dim3;

    /// A one-dimensional launch over `len` elements: `grid` blocks of `block` threads, with
    /// `grid * block >= len` and `len` usually not a multiple of `block`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Shape1d {
        /// Elements.
        pub len: usize,
        /// Threads per block.
        pub block: u32,
        /// Blocks: `len.div_ceil(block)`, at least 1.
        pub grid: u32,
    }

    /// `len` in `1..=max_len`, `block` in `1..=max_block` (at most 1024).
    pub fn shape_1d(max_len: usize, max_block: u32) -> impl Strategy<Value = Shape1d> {
        let max_block = max_block.clamp(1, 1024);
        (1..=max_len.max(1), 1..=max_block).prop_map(|(len, block)| Shape1d {
            len,
            block,
            grid: (len.div_ceil(block as usize) as u32).max(1),
        })
    }

    /// A three-dimensional block within the device's limits (x, y at most 1024, z at most
    /// 64) with at most `max_threads` threads (at most 1024).
    pub fn block_dim(max_threads: u32) -> impl Strategy<Value = Dim3> {
        let max = max_threads.clamp(1, 1024);
        (1..=max, 1..=max, 1..=max.min(64)).prop_map(move |(x, y, z)| {
            // Scale down to the thread limit, keeping each dimension at least 1.
            let y = y.min((max / x).max(1));
            let z = z.min((max / (x * y)).max(1));
            Dim3::new(x, y, z)
        })
    }

    /// A three-dimensional grid of at most `max_blocks` blocks.
    pub fn grid_dim(max_blocks: u32) -> impl Strategy<Value = Dim3> {
        let max = max_blocks.max(1);
        (1..=max, 1..=max, 1..=max).prop_map(move |(x, y, z)| {
            let y = y.min((max / x).max(1));
            let z = z.min((max / (x * y)).max(1));
            Dim3::new(x, y, z)
        })
    }

    /// An `f32` that is often special: NaNs with payloads and either sign, infinities,
    /// subnormals, signed zeros, the extremes; otherwise any finite value.
    pub fn special_f32() -> impl Strategy<Value = f32> {
        prop_oneof![
            4 => any::<f32>().prop_filter("finite", |v| v.is_finite()),
            1 => (any::<bool>(), 1u32..(1 << 23)).prop_map(|(neg, payload)| f32::from_bits(((neg as u32) << 31) | 0x7f80_0000 | payload)),
            1 => prop_oneof![Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
            1 => (any::<bool>(), 1u32..(1 << 23)).prop_map(|(neg, m)| f32::from_bits(((neg as u32) << 31) | m)),
            1 => prop_oneof![Just(0.0f32), Just(-0.0f32)],
            1 => prop_oneof![Just(f32::MAX), Just(f32::MIN), Just(f32::MIN_POSITIVE), Just(-f32::MIN_POSITIVE)],
        ]
    }

    /// An `f64` that is often special, as [`special_f32`].
    pub fn special_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => any::<f64>().prop_filter("finite", |v| v.is_finite()),
            1 => (any::<bool>(), 1u64..(1 << 52)).prop_map(|(neg, p)| f64::from_bits(((neg as u64) << 63) | 0x7ff0_0000_0000_0000 | p)),
            1 => prop_oneof![Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            1 => (any::<bool>(), 1u64..(1 << 52)).prop_map(|(neg, m)| f64::from_bits(((neg as u64) << 63) | m)),
            1 => prop_oneof![Just(0.0f64), Just(-0.0f64)],
            1 => prop_oneof![Just(f64::MAX), Just(f64::MIN), Just(f64::MIN_POSITIVE), Just(-f64::MIN_POSITIVE)],
        ]
    }

    /// A buffer of `len` (a range such as `1..300`) [`special_f32`] values.
    pub fn f32_buffer(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
        prop::collection::vec(special_f32(), len)
    }

    /// A buffer of `len` [`special_f64`] values.
    pub fn f64_buffer(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(special_f64(), len)
    }

    /// A launch shape and a buffer that fits it: `len` special floats.
    pub fn shape_and_f32_buffer(max_len: usize, max_block: u32) -> impl Strategy<Value = (Shape1d, Vec<f32>)> {
        shape_1d(max_len, max_block).prop_flat_map(|s| (Just(s), f32_buffer(s.len)))
    }

    /// Whether two float slices are equal bit for bit (NaN payloads and signed zeros
    /// included), the comparison emulated and GPU results should pass.
    pub fn same_bits(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }
}
