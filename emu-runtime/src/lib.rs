//! Runtime of [deviceemu](https://docs.rs/deviceemu): the device API that kernels call, and the
//! host machinery that runs them.
//!
//! The crate is split by where code runs, and the split is visible in the folder layout:
//!
//! * [`device`] is the API a kernel sees (`thread_idx`, `sync_threads`, shared memory, atomics,
//!   global-memory views). It is `no_std`-compatible: every function forwards to one backend,
//!   chosen in `device/backend/mod.rs` (the host emulator today; NVPTX inline assembly when the
//!   crate is compiled for `nvptx64-nvidia-cuda`).
//! * `host` (only when not compiling for `nvptx64`) is the emulator: the block scheduler, fibers,
//!   shared-memory arenas, the bug checkers, reports, settings and device buffers.
//!
//! Users should depend on the `deviceemu` facade crate, which re-exports what is public here.
//!
//! This crate's docs are for its maintainers, and some of its public items' docs name the
//! private engine they stand on (`host::...`): those links resolve under
//! `cargo doc --document-private-items`, so they are allowed here.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![allow(rustdoc::private_intra_doc_links)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx, asm_experimental_arch))]

pub mod device;

/// The float intrinsics, at the crate's root as the `deviceemu` facade shows them (docs link
/// to `crate::intrinsics::Half2`).
#[doc(hidden)]
pub use device::intrinsics;

#[cfg(not(target_arch = "nvptx64"))]
mod host;

/// The GPU side of launches (the `gpu` feature).
#[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
pub mod gpu;

#[cfg(not(target_arch = "nvptx64"))]
pub use host::{
    config::{set_config, with_config, DefaultStream, DeviceRuntime},
    config::{BlockOrder, CheckAction, Checks, Config, ExecPath, Schedule, Target, Tier},
    devices::{device_count, get_device, set_device, STICKY_CODES},
    launch_desc::{KernelInfo, LaunchConfig},
    mem::buffer::DeviceBuffer,
    mem::heap::{device_heap_leaks, malloc_heap_size, set_malloc_heap_size, HeapLeak},
    mem::slice::{DeviceSlice, DeviceSliceMut, KernelArg, KernelArgMut},
    mem::symbol::{copy_from_symbol, copy_from_symbol_at, copy_to_symbol, copy_to_symbol_at, Symbol},
    report::error::Error,
    report::findings::{quietly, Access, Finding, LaunchReport, SourceLocation},
    report::last_error::{get_last_error, peek_at_last_error},
    sched::devrt::{DeviceArg, DeviceArgMut, DeviceEvent, DeviceStream},
    stream::{device_synchronize, event::Event, host_buffer::HostBuffer, Stream},
    texture::{pitch_for, TextureObject, PITCH_ALIGNMENT},
};

#[doc(hidden)]
pub mod __private;
