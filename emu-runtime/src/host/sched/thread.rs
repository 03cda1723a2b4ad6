//! A GPU thread as the scheduler runs it: the indices a kernel function is called with
//! (`ThreadCtx`) and what it returns (`Exit`). The macro ABI re-exports both
//! (`__private::ThreadCtx`, `__private::Exit`).

use core::panic::Location;

use crate::device::Dim3;

/// The indices of the GPU thread a kernel function runs as: `#[kernel]` passes them to the
/// host form of the kernel, and replaces `thread_idx()`, `block_idx()`, `block_dim()` and
/// `grid_dim()` in the kernel's own body by these fields, and `lane_id()` by the thread's
/// linear index masked by `warp_mask`.
#[derive(Clone, Copy, Debug)]
pub struct ThreadCtx {
    /// `threadIdx`.
    pub thread_idx: Dim3,
    /// `blockIdx`.
    pub block_idx: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
    /// The launch's warp size less one (31, or 0 with warps of 1; warp sizes are powers of
    /// two): a thread's lane is its linear index in the block masked by it.
    pub warp_mask: u32,
}

/// Where a GPU thread exited: what a kernel function returns (on the host, the position of
/// the `return` or of the end of the body, for synccheck; nothing on the GPU).
pub type Exit = &'static Location<'static>;
