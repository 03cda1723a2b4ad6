//! The one place where the device API's implementation is chosen.
//!
//! Each backend implements the same small set of functions: indices, barriers, fences,
//! element loads and stores with bounds checks, atomics, shared memory and warp collectives.

#[cfg(not(target_arch = "nvptx64"))]
#[path = "host.rs"]
mod imp;

#[cfg(target_arch = "nvptx64")]
#[path = "nvptx.rs"]
mod imp;

#[cfg(not(any(target_arch = "nvptx64", target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("deviceemu emulates kernels on x86-64 and AArch64 hosts, and compiles them for nvptx64");

pub(crate) use imp::*;

#[cfg(target_arch = "nvptx64")]
pub use imp::shared_view;

mod atomics;
pub use atomics::{
    AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl,
    AtomicMinMaxImpl, AtomicSubImpl,
};

/// The kind of a memory access, for reports.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccessKind {
    Read,
    Write,
    Atomic,
}

/// Which block-wide barrier a thread is waiting at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierOp {
    /// `__syncthreads()`.
    Sync,
    /// `__syncthreads_count(p)`.
    Count,
    /// `__syncthreads_and(p)`.
    And,
    /// `__syncthreads_or(p)`.
    Or,
    /// The block's part of `this_grid().sync()`: every thread of the block arrives, then the
    /// block waits for every other block of the (cooperative) launch.
    Grid,
    /// The block's part of `this_cluster().sync()`: likewise, for the blocks of its cluster.
    Cluster,
}

/// The lane a shuffle reads from (PTX `shfl.sync` modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    /// `__shfl_sync`: an absolute lane (`shfl.sync.idx`).
    Idx,
    /// `__shfl_up_sync`: `lane - delta` (`shfl.sync.up`).
    Up,
    /// `__shfl_down_sync`: `lane + delta` (`shfl.sync.down`).
    Down,
    /// `__shfl_xor_sync`: `lane ^ lane_mask` (`shfl.sync.bfly`).
    Bfly,
}

/// What a multi-warp tile's collective computes (`cg::ThreadBlockTile` of 64 threads and up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TileOp {
    /// `tile.sync()`.
    Sync,
    /// `tile.shfl(v, src)`: the value of the tile's thread of rank `src`.
    Shfl,
    /// `tile.any(p)`.
    Any,
    /// `tile.all(p)`.
    All,
}

/// Which warp vote a lane takes part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteOp {
    /// `__all_sync`.
    All,
    /// `__any_sync`.
    Any,
    /// `__ballot_sync`.
    Ballot,
}

/// Which warp reduction (`redux.sync`) a lane takes part in (public only as a hidden detail
/// of `cg`'s value traits).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxKind {
    /// `.add`.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
}
