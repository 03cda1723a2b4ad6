//! The emulator: everything that runs on the host only.
//!
//! The folders are layers; each imports only from the layers above it in this list
//! (ARCHITECTURE.md, "The crates and the host engine's folders"):
//!
//! | folder    | job |
//! |-----------|-----|
//! | `alloc`   | fallible host allocations (error 2 naming what and the setting to lower) |
//! | `report`  | findings and their compute-sanitizer-shaped rendering, the error type, the last-error slot |
//! | `config`  | settings from the environment or from code |
//! | `devices` | the emulated devices (`EMU_DEVICES`, `set_device`), completions of queued work, unreported faults, sticky errors |
//! | `check`   | the bug checkers: initcheck, racecheck, synccheck, and the hook every checked access goes through |
//! | `mem`     | device memory: buffers, relaxed element accesses, atomics, shared-memory arenas |
//! | `sched`   | running a launch: blocks, fibers, futures, warps, the running-thread context |
//! | `stream`  | streams, events, pinned host buffers and queued work, above `sched`: a stream's worker calls the synchronous launch |
//! | `texture` | texture objects (host side) and the emulator's table of live ones |

pub(crate) mod alloc;
pub(crate) mod check;
pub(crate) mod config;
pub(crate) mod devices;
pub(crate) mod launch_desc;
pub(crate) mod mem;
pub(crate) mod report;
pub(crate) mod sched;
pub(crate) mod stream;
pub(crate) mod texture;
