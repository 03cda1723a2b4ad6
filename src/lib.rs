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
//! See the README for settings (`EMU_*` variables), the barrier rule and what is not emulated
//! yet.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use emu_macros::{device, kernel};
pub use emu_runtime::device::{
    active_mask, all_sync, any_sync, ballot_sync, block_dim, block_idx, dynamic_shared, grid_dim, lane_id,
    shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, sync_threads, sync_threads_and, sync_threads_count,
    sync_threads_or, sync_warp, thread_fence, thread_fence_block, thread_idx, warp_size, AtomicAdd, AtomicBitwise,
    AtomicCas, AtomicExch, AtomicIncDec, AtomicLoadStore, AtomicMinMax, AtomicSub, DeviceCopy, Dim3, Global, GlobalMut,
    Scope, Shared, Space, View, WarpShuffle, FULL_MASK,
};
pub use emu_runtime::device::{intrinsics, math};
pub use emu_runtime::{kprint, kprintln, shared_array};

/// The GPU side of launches (the `gpu` feature): `available()`, `last_kernel_ms()`.
#[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
pub use emu_runtime::gpu;
#[cfg(not(target_arch = "nvptx64"))]
pub use emu_runtime::{
    get_last_error, peek_at_last_error, quietly, set_config, with_config, Access, BlockOrder, CheckAction, Checks, Config,
    DeviceBuffer, ExecPath, Schedule, Target, Error, Finding, KernelInfo, LaunchConfig, LaunchReport, SourceLocation,
};

#[cfg(all(feature = "testing", not(target_arch = "nvptx64")))]
pub mod testing;

/// Launches a kernel and waits for it: `launch!(kernel<<<grid, block>>>(args))` or
/// `launch!(kernel<<<grid, block, shared_bytes>>>(args))`.
///
/// `grid` and `block` take `u32`, `(u32, u32)`, `(u32, u32, u32)` or [`Dim3`];
/// `shared_bytes` is the dynamic shared memory per block, a `usize`. Pass `&buf` for a `&[T]`
/// parameter and `&mut buf` for a `&mut [T]`. Returns `Result<(), deviceemu::Error>` once every
/// thread has finished.
#[cfg(not(target_arch = "nvptx64"))]
#[macro_export]
macro_rules! launch {
    ($($tokens:tt)*) => {
        $crate::__private::launch_impl!($crate; $($tokens)*)
    };
}

/// Everything a kernel file needs: `use deviceemu::prelude::*;`.
pub mod prelude {
    pub use crate::{
        active_mask, all_sync, any_sync, ballot_sync, block_dim, block_idx, device, dynamic_shared, grid_dim, kernel,
        kprint, kprintln, lane_id, shared_array, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync,
        sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, thread_fence,
        thread_fence_block, thread_idx, warp_size, DeviceCopy, Dim3, Global, GlobalMut, Scope, Shared, WarpShuffle,
        FULL_MASK,
    };
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{launch, DeviceBuffer};
    pub use crate::intrinsics::*;
}

#[doc(hidden)]
pub mod __private {
    #[cfg(not(target_arch = "nvptx64"))]
    pub use emu_macros::launch_impl;
    pub use emu_runtime::__private::*;
}
