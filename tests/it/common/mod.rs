//! Helpers shared by the test modules that check reports, hangs and schedules (`errors.rs`,
//! `state_machines.rs`, `warps.rs`), and by the separate test crates that include this file.

#![allow(dead_code)] // each test crate uses a subset

use std::sync::mpsc;
use std::time::Duration;

use deviceemu::testing::Model;

/// The texture oracles' dumps (`memory::tex_oracle`, `memory::tex_int_oracle`).
pub(crate) mod dump;

/// The 1-based line of `source` that ends with `marker` (a trailing comment); it must be
/// exactly one.
pub(crate) fn marked_line(source: &str, marker: &str) -> usize {
    let hits: Vec<usize> =
        source.lines().enumerate().filter(|(_, l)| l.trim_end().ends_with(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "marker {marker} must appear on exactly one line");
    hits[0]
}

/// A small deterministic generator (xorshift64*), so inputs are reproducible without a crate.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// A float in [-1, 1) with a full mantissa, so that rounding depends on the order of
    /// operations.
    pub(crate) fn f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub(crate) fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
}

/// The settings a race-free kernel's results must not depend on (`deviceemu::testing`'s
/// model): parallel and serial blocks, index order and two seeds (`EMU_SEED`), fibers and
/// threads, every checker; warps of 32 (these tests' expected values assume it; tests that
/// hold for warp size 1 too add it with `.warp_sizes(&[32, 1])`).
pub(crate) fn model() -> Model {
    Model::new().warp_size_32_only()
}

#[track_caller]
pub(crate) fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in the report:\n{text}");
}

#[track_caller]
pub(crate) fn assert_lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "did not expect {needle:?} in the report:\n{text}");
}

/// Runs `f` on a new host thread and fails if it does not finish within `secs` seconds (a
/// hang). A fresh thread also starts with no last error.
pub(crate) fn on_new_thread<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => {
            h.join().unwrap();
            v
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the launch did not finish within {secs} s: it hangs"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(h.join().expect_err("no value and no panic"))
        }
    }
}

/// The settings of a test of the emulator's own reports on a wrong kernel: the environment's,
/// with the emulator as the target even under `EMU_TARGET=gpu`. On a GPU such kernels trap,
/// which poisons the CUDA context of the whole test process (every later test would fail), or
/// hang, as the reports say; the GPU side of those kernels is covered by `gpu_vs_emu` and the
/// probes in `tools/probes/`.
pub(crate) fn emulator() -> deviceemu::Config {
    deviceemu::Config::from_env().unwrap_or_default().target(deviceemu::Target::Emulator)
}

/// [`model`] over [`emulator`]'s settings.
pub(crate) fn emulator_model() -> Model {
    model().base(emulator())
}

/// Runs `f` under [`emulator`]'s settings.
pub(crate) fn in_emulator<R>(f: impl FnOnce() -> R) -> R {
    deviceemu::with_config(emulator(), f)
}

/// [`on_new_thread`] with `f` under [`emulator`]'s settings on the new thread.
pub(crate) fn on_new_thread_in_emulator<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    on_new_thread(secs, move || in_emulator(f))
}

/// The name of the test `name` of the module `module` (its `module_path!()`) as the test
/// binary's filter spells it (`scheduler::model::name`: the crate's name left out), for the
/// tests that run one test of this binary in a child process with `--exact`.
pub(crate) fn test_name(module: &str, name: &str) -> String {
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}::{name}")
    }
}
