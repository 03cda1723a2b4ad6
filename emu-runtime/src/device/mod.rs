//! The device API: what kernel code calls.
//!
//! Everything here compiles for the host (where it drives the emulator) and is written so that
//! it can compile for `nvptx64-nvidia-cuda` in `no_std`: the public functions are thin and
//! forward to `backend`, the one place where the target is chosen.

pub(crate) mod access;
mod atomic;
pub(crate) mod backend;
mod builtins;
pub mod cg;
mod cluster;
pub(crate) mod copy;
#[cfg(target_arch = "nvptx64")]
pub mod devrt;
mod dim;
mod grid;
mod heap;
pub mod intrinsics;
pub(crate) mod launch_arg;
pub mod math;
#[doc(hidden)]
pub mod part;
pub(crate) mod print;
mod shared;
mod symbol;
pub mod texture;
mod view;
mod warp;

pub(crate) use atomic::Ordered;
pub use atomic::{
    AtomicAdd, AtomicBitwise, AtomicCas, AtomicExch, AtomicIncDec, AtomicLoadStore, AtomicMinMax, AtomicSub, Scope,
};
pub use builtins::{
    block_dim, block_idx, grid_dim, sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, thread_fence,
    thread_fence_block, thread_idx,
};
pub use cluster::{this_cluster, ClusterGroup};
pub use copy::{AnyBitPattern, DeviceCopy};
pub use dim::Dim3;
pub use grid::{this_grid, GridGroup};
pub use heap::{device_free, device_malloc, DevicePtr};
pub use shared::{dynamic_shared, dynamic_shared_parts, SharedParts, SharedScalar};
pub use symbol::{Constant, ConstantIsWritable, DeviceGlobal, SymbolDef};
pub use view::{
    Global, GlobalMut, ReadOnly, ReadWrite, Shared, SharedMem, SliceRange, Space, View, ViewKind, Writable,
};
pub use warp::{
    active_mask, all_sync, any_sync, ballot_sync, lane_id, match_all_sync, match_any_sync, reduce_add_sync,
    reduce_and_sync, reduce_max_sync, reduce_min_sync, reduce_or_sync, reduce_xor_sync, shfl_down_sync,
    shfl_down_sync_width, shfl_sync, shfl_sync_width, shfl_up_sync, shfl_up_sync_width, shfl_xor_sync,
    shfl_xor_sync_width, sync_warp, warp_size, WarpReduce, WarpShuffle, FULL_MASK,
};
