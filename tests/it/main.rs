//! The integration tests, one binary: a folder per topic, each former test crate a module of it
//! (`cargo test --test it -- checkers::racecheck` runs what `--test racecheck` ran).
//!
//! The kernels that several topics launch are defined once, in `kernels.rs`. `common/` holds the
//! helpers for reports, hangs and schedules.
//!
//! Separate test crates, because they cannot share this process: `tests/debugger.rs` (its own
//! runner, gdb and lldb sessions), `tests/racecheck_lanes.rs` and `tests/racecheck_memory.rs`
//! (process-wide counters of racecheck's shadows and lane checks, and `EMU_RACECHECK_SHADOW`
//! set in the process), `tests/user_crate_host.rs` (the user-crate fixture's `use crate::*`
//! needs that crate's root), and the `gpu` feature's `tests/gpu.rs` and `tests/ptx.rs`, which
//! CI builds with `--features gpu` without building all of this binary again.

// `fission::fission` and `streams::streams` keep the names the test crates had.
#![allow(clippy::module_inception)]

mod common;
mod kernels;

mod api;
mod checkers;
mod fission;
mod fp;
mod memory;
mod ported;
mod scheduler;
mod streams;
