//! Running a launch: its blocks, their threads (fibers or futures), barriers and warps.
//!
//! | module      | job |
//! |-------------|-----|
//! | `launch`    | validate a launch, run its blocks (rayon or in order), collect the verdict |
//! | `block`     | run one block: its threads as fibers, barriers as scheduling points |
//! | `barrier`   | a block's barrier state: arrivals, generations, the release list |
//! | `task`      | threads of kernels with barriers in their body, as futures polled at barriers |
//! | `fiber`     | fiber stacks (guarded, staggered, pooled per host thread) |
//! | `os_fiber`  | fibers on OS threads of their own (`EMU_SCHEDULE=threads`) |
//! | `context`   | thread-locals naming the GPU thread that is running |
//! | `hooks`     | device-API entry points that hand the running block to the checkers and the shared arena |
//! | `warp`      | warp collectives: votes, shuffles, `sync_warp`, and their deadlocks |
//! | `overflow`  | turning a fiber's stack overflow into a report |
//! | `panics`    | capturing kernel panics for reports |
//! | `regions`   | a block run as barrier regions: each a loop over its threads (`#[kernel]`'s fast form) |
//! | `verify`    | `EMU_PATH=verify`: a launch on its fast form and on the general path, compared |
//! | `progress`  | progress points in loops (spinning threads yield) and the watchdog |
//! | `stuck`     | the monitor that stops a GPU thread blocked in a system call |
//! | `devrt`     | the device runtime: device-side launches, their queues, streams, events and limits |
//! | `debugger`  | what gdb/lldb read to name the GPU thread at a breakpoint: the blocks host threads run |

pub(crate) mod barrier;
pub(crate) mod block;
pub(crate) mod context;
pub(crate) mod debugger;
pub(crate) mod devrt;
pub(crate) mod fiber;
pub(crate) mod hooks;
pub(crate) mod launch;
pub(crate) mod os_fiber;
pub(crate) mod overflow;
pub(crate) mod panics;
pub(crate) mod progress;
pub(crate) mod regions;
pub(crate) mod stuck;
pub(crate) mod task;
pub(crate) mod team;
pub(crate) mod thread;
pub(crate) mod verify;
pub(crate) mod warp;
pub(crate) mod warp_awaits;
