//! # deviceemu
//!
//! CUDA's device-emulation mode, rebuilt for Rust: write a kernel once, run it on the CPU with
//! every GPU thread emulated (debuggable with gdb, testable with `cargo test`, checked for
//! out-of-bounds accesses and barrier misuse), and later on an NVIDIA GPU.
//!
//! ```
//! use deviceemu::prelude::*;
//!
//! #[kernel]
//! pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
//!     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
//!     if i < y.len() {
//!         y[i] = a * x[i] + y[i];
//!     }
//! }
//!
//! # fn main() -> Result<(), deviceemu::Error> {
//! let n = 1000;
//! let x = DeviceBuffer::from_slice(&vec![1.0f32; n])?;
//! let mut y = DeviceBuffer::from_slice(&vec![2.0f32; n])?;
//! launch!(saxpy<<<(n as u32).div_ceil(256), 256>>>(2.0, &x, &mut y))?;
//! assert!(y.to_vec()?.iter().all(|&v| v == 4.0));
//! # Ok(())
//! # }
//! ```
//!
//! # The guide
//!
//! One chapter per topic; every Rust snippet in them is a doctest of this crate.
//!
//! 1. [Kernels](guide::kernels): parameters, built-ins, launches, errors, how a kernel runs
//! 2. [Memory](guide::memory): buffers, slices, casts, constant memory, device globals,
//!    shared memory, atomics, ordered loads, device `malloc`
//! 3. [Warps and barriers](guide::warps)
//! 4. [Progress and the watchdog](guide::progress)
//! 5. [Streams, events and asynchronous errors](guide::streams)
//! 6. [The device runtime](guide::device_runtime): kernels that launch kernels
//! 7. [Cooperative groups, grid sync and clusters](guide::cooperative_groups)
//! 8. [Textures](guide::textures)
//! 9. [Floating point](guide::floating_point)
//! 10. [Settings](guide::settings): every `EMU_*` variable, and which path a kernel takes
//! 11. [Reports and the checkers](guide::reports)
//! 12. [Testing kernels](guide::testing)
//! 13. [Debugging with gdb and lldb](guide::debugging)
//! 14. [On the GPU](guide::gpu)
//! 15. [Troubleshooting and limits](guide::troubleshooting)
//! 16. [Porting from CUDA C++](guide::porting): each CUDA construct and its deviceemu form
#![cfg_attr(target_arch = "nvptx64", no_std)]
// The guide's examples are whole programs a reader pastes, `fn main` and all.
#![allow(clippy::needless_doctest_main)]

pub use emu_macros::{constant, device, device_global, kernel, DeviceCopy};
/// Textures: `Texture<T>` and its reads in kernels, `TextureDesc`, and `sampler`, the texture
/// unit's arithmetic (the emulator's reference); `TextureObject` creates them on the host.
pub use emu_runtime::device::texture;
pub use emu_runtime::device::{
    active_mask, all_sync, any_sync, ballot_sync, block_dim, block_idx, device_free, device_malloc, dynamic_shared,
    dynamic_shared_parts, grid_dim, lane_id, match_all_sync, match_any_sync, reduce_add_sync, reduce_and_sync,
    reduce_max_sync, reduce_min_sync, reduce_or_sync, reduce_xor_sync, shfl_down_sync, shfl_down_sync_width, shfl_sync,
    shfl_sync_width, shfl_up_sync, shfl_up_sync_width, shfl_xor_sync, shfl_xor_sync_width, sync_threads,
    sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, thread_fence, thread_fence_block, thread_idx,
    warp_size, AnyBitPattern, AtomicAdd, AtomicBitwise, AtomicCas, AtomicExch, AtomicIncDec, AtomicLoadStore,
    AtomicMinMax, AtomicSub, Constant, DeviceCopy, DeviceGlobal, DevicePtr, Dim3, Global, GlobalMut, Scope, Shared,
    SharedParts, SharedScalar, Space, View, WarpReduce, WarpShuffle, FULL_MASK,
};
pub use emu_runtime::device::{cg, intrinsics, math};
pub use emu_runtime::device::{this_cluster, this_grid, ClusterGroup, GridGroup};
pub use emu_runtime::{kprint, kprintln, shared_array, shared_scalar};
#[cfg(not(target_arch = "nvptx64"))]
pub use emu_runtime::{pitch_for, TextureObject};

/// The device runtime in a kernel on the GPU (`launch!` in a kernel, device streams and
/// events, the thread's last error), as calls of CUDA's `libcudadevrt`.
#[cfg(target_arch = "nvptx64")]
pub use emu_runtime::device::devrt::{
    device_synchronize, get_last_error, peek_at_last_error, DeviceArg, DeviceArgMut, DeviceEvent, DeviceStream, Error,
};
/// The GPU side of launches (the `gpu` feature): `available()`, `last_kernel_ms()`.
#[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
pub use emu_runtime::gpu;
#[cfg(not(target_arch = "nvptx64"))]
pub use emu_runtime::{
    copy_from_symbol, copy_from_symbol_at, copy_to_symbol, copy_to_symbol_at, device_count, device_heap_leaks,
    device_synchronize, get_device, get_last_error, malloc_heap_size, peek_at_last_error, quietly, set_config,
    set_device, set_malloc_heap_size, with_config, Access, BlockOrder, CheckAction, Checks, Config, DefaultStream,
    DeviceBuffer, DeviceEvent, DeviceRuntime, DeviceSlice, DeviceSliceMut, DeviceStream, Error, Event, ExecPath,
    Finding, HeapLeak, HostBuffer, KernelArg, KernelArgMut, KernelInfo, LaunchConfig, LaunchReport, Schedule,
    SourceLocation, Stream, Symbol, Target, Tier, STICKY_CODES,
};

#[cfg(all(feature = "testing", not(target_arch = "nvptx64")))]
pub mod testing;

/// Link definitions for the guide's chapters, ahead of each chapter's text: a chapter links to
/// another as `[text][guide-settings]`, defined at its end as `settings.md` for readers of the
/// files, and here as the chapter's module for rustdoc (the first definition of a label wins).
#[cfg(not(target_arch = "nvptx64"))]
macro_rules! guide_links {
    () => {
        "[guide-kernels]: crate::guide::kernels\n[guide-memory]: crate::guide::memory\n[guide-warps]: crate::guide::warps\n[guide-progress]: crate::guide::progress\n[guide-streams]: crate::guide::streams\n[guide-device-runtime]: crate::guide::device_runtime\n[guide-cooperative-groups]: crate::guide::cooperative_groups\n[guide-textures]: crate::guide::textures\n[guide-floating-point]: crate::guide::floating_point\n[guide-settings]: crate::guide::settings\n[guide-reports]: crate::guide::reports\n[guide-testing]: crate::guide::testing\n[guide-debugging]: crate::guide::debugging\n[guide-gpu]: crate::guide::gpu\n[guide-troubleshooting]: crate::guide::troubleshooting\n[guide-porting]: crate::guide::porting"
    };
}

/// The user guide (the files of `docs/guide/`), one module per chapter.
#[cfg(not(target_arch = "nvptx64"))]
pub mod guide {
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/kernels.md")]
    pub mod kernels {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/memory.md")]
    pub mod memory {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/warps.md")]
    pub mod warps {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/progress.md")]
    pub mod progress {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/streams.md")]
    pub mod streams {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/device-runtime.md")]
    pub mod device_runtime {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/cooperative-groups.md")]
    pub mod cooperative_groups {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/textures.md")]
    pub mod textures {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/floating-point.md")]
    pub mod floating_point {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/settings.md")]
    pub mod settings {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/reports.md")]
    pub mod reports {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/testing.md")]
    pub mod testing {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/debugging.md")]
    pub mod debugging {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/gpu.md")]
    pub mod gpu {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/troubleshooting.md")]
    pub mod troubleshooting {}
    #[doc = guide_links!()]
    #[doc = include_str!("../docs/guide/porting.md")]
    pub mod porting {}
}

/// The README's snippets, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Launches a kernel and waits for it: `launch!(kernel<<<grid, block>>>(args))` or
/// `launch!(kernel<<<grid, block, shared_bytes>>>(args))`; or queues it on a stream and returns
/// at once: `launch!(kernel<<<grid, block, shared_bytes, &stream>>>(args))`.
///
/// `grid` and `block` take `u32`, `(u32, u32)`, `(u32, u32, u32)` or [`Dim3`];
/// `shared_bytes` is the dynamic shared memory per block, a `usize`. Pass `&buf` for a `&[T]`
/// parameter and `&mut buf` for a `&mut [T]`. Without a stream it returns
/// `Result<(), deviceemu::Error>` once every thread has finished, with the kernel's fault (the
/// launch runs on the default stream, after that stream's earlier work, as if
/// `CUDA_LAUNCH_BLOCKING=1` held for it). With a stream it returns only launch-time errors (an
/// invalid configuration, a sticky error); a fault inside the kernel is returned by the next
/// synchronising call ([`Stream::synchronize`], [`device_synchronize`],
/// [`Event::synchronize`], a blocking copy) and recorded as the last error.
#[macro_export]
macro_rules! launch {
    ($($tokens:tt)*) => {
        $crate::__private::launch_impl!($crate; $($tokens)*)
    };
}

/// Launches a kernel cooperatively and waits for it (`cudaLaunchCooperativeKernel`):
/// `launch_cooperative!(kernel<<<grid, block>>>(args))` or
/// `launch_cooperative!(kernel<<<grid, block, shared_bytes>>>(args))`, with the arguments of
/// [`launch!`].
///
/// Every block of a cooperative launch is resident at once, so its kernel may call
/// [`this_grid()`]`.sync()`. A grid that could not be resident on the emulated sm_90 device
/// (132 SMs; at most 2048 threads, 32 blocks and 228 KiB of shared memory per SM, 1 KiB of it
/// reserved per block) is refused with `cudaErrorCooperativeLaunchTooLarge` (720), as on an
/// H200. The emulator runs the blocks of a cooperative launch one after another on one host
/// thread, each up to its next grid sync.
#[cfg(not(target_arch = "nvptx64"))]
#[macro_export]
macro_rules! launch_cooperative {
    ($($tokens:tt)*) => {
        $crate::__private::cooperative(|| $crate::__private::launch_impl!($crate; $($tokens)*))
    };
}

/// Everything a kernel file needs: `use deviceemu::prelude::*;`.
pub mod prelude {
    pub use crate::intrinsics::*;
    pub use crate::texture::{tex1d, tex1d_fetch, tex2d, AddressMode, FilterMode, Texture, TextureDesc};
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::TextureObject;
    pub use crate::{
        active_mask, all_sync, any_sync, ballot_sync, block_dim, block_idx, constant, device, device_free,
        device_global, device_malloc, dynamic_shared, dynamic_shared_parts, grid_dim, kernel, kprint, kprintln,
        lane_id, match_all_sync, match_any_sync, reduce_add_sync, reduce_and_sync, reduce_max_sync, reduce_min_sync,
        reduce_or_sync, reduce_xor_sync, shared_array, shared_scalar, shfl_down_sync, shfl_down_sync_width, shfl_sync,
        shfl_sync_width, shfl_up_sync, shfl_up_sync_width, shfl_xor_sync, shfl_xor_sync_width, sync_threads,
        sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, this_cluster, this_grid, thread_fence,
        thread_fence_block, thread_idx, warp_size, DeviceCopy, DevicePtr, Dim3, Global, GlobalMut, Scope, Shared,
        SharedScalar, WarpReduce, WarpShuffle, FULL_MASK,
    };
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{
        copy_from_symbol, copy_from_symbol_at, copy_to_symbol, copy_to_symbol_at, device_synchronize, launch,
        launch_cooperative, DeviceBuffer, DeviceEvent, DeviceSlice, DeviceSliceMut, DeviceStream, Event, HostBuffer,
        Stream,
    };
    #[cfg(target_arch = "nvptx64")]
    pub use crate::{device_synchronize, launch, DeviceEvent, DeviceStream};
}

#[doc(hidden)]
pub mod __private {
    pub use emu_macros::launch_impl;
    pub use emu_runtime::__private::*;
    /// What `launch!` calls on an argument written as a name (`src/launch_arg.rs`).
    #[cfg(not(target_arch = "nvptx64"))]
    pub mod launch_arg {
        pub use crate::launch_arg::{ByCopy, ByValue, Reborrow};
    }
}

#[cfg(not(target_arch = "nvptx64"))]
mod launch_arg;
