//! The emulator: everything that runs on the host only.
//!
//! | module        | job |
//! |---------------|-----|
//! | `launch`      | validate a launch, run its blocks (rayon or in order), collect the verdict |
//! | `block`       | run one block: its threads as fibers, barriers as scheduling points |
//! | `task`        | threads of kernels with barriers in their body, as futures polled at barriers |
//! | `fiber`       | fiber stacks (guarded, staggered, pooled per host thread) |
//! | `os_fiber`    | fibers on OS threads of their own (`EMU_SCHEDULE=threads`) |
//! | `context`     | thread-locals naming the GPU thread that is running |
//! | `debugger`    | functions gdb/lldb call to name the GPU thread at a breakpoint |
//! | `memory`      | relaxed atomic element accesses, bounds reports, `atomic_add` |
//! | `atomic`      | the other atomics (sub, min/max, exch, and/or/xor, cas, inc/dec) |
//! | `shared_mem`  | per-block shared-memory arenas |
//! | `checkers`    | the hook every checked access goes through |
//! | `initcheck`   | shadow bits: reads of memory nothing wrote |
//! | `racecheck`   | barrier epochs: races in shared and global memory |
//! | `synccheck`   | the barrier rule: divergent and skipped barriers |
//! | `warp`        | warp collectives: votes, shuffles, `sync_warp`, and their deadlocks |
//! | `overflow`    | turning a fiber's stack overflow into a report |
//! | `panics`      | capturing kernel panics for reports |
//! | `progress`    | progress points in loops (spinning threads yield) and the watchdog |
//! | `report`      | findings and their compute-sanitizer-shaped rendering |
//! | `error`       | the public error type |
//! | `config`      | settings from the environment or from code |
//! | `buffer`      | `DeviceBuffer` |
//! | `last_error`  | `get_last_error` / `peek_at_last_error` |

pub(crate) mod atomic;
pub(crate) mod block;
pub(crate) mod buffer;
pub(crate) mod checkers;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod debugger;
pub(crate) mod error;
pub(crate) mod fiber;
pub(crate) mod initcheck;
pub(crate) mod last_error;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod os_fiber;
pub(crate) mod overflow;
pub(crate) mod panics;
pub(crate) mod progress;
pub(crate) mod racecheck;
pub(crate) mod report;
pub(crate) mod shared_mem;
pub(crate) mod synccheck;
pub(crate) mod task;
pub(crate) mod warp;
