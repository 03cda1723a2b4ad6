//! Indices, block barriers and memory fences: CUDA's built-in variables and `__syncthreads`.

use super::backend;
use super::dim::Dim3;

/// The index of the calling thread inside its block (`threadIdx`).
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    backend::thread_idx()
}

/// The index of the calling thread's block inside the grid (`blockIdx`).
#[inline(always)]
pub fn block_idx() -> Dim3 {
    backend::block_idx()
}

/// The number of threads per block (`blockDim`).
#[inline(always)]
pub fn block_dim() -> Dim3 {
    backend::block_dim()
}

/// The number of blocks in the grid (`gridDim`).
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    backend::grid_dim()
}

/// Waits until every thread of the block has reached this barrier or exited (`__syncthreads`).
///
/// Shared and global memory writes made before the barrier are visible to the block's threads
/// after it. Every thread of the block that is still running must reach the *same* call; a
/// thread that skips it while others wait is reported as a barrier error (see the README's
/// "Barrier rule"), never a hang.
#[inline(always)]
#[track_caller]
pub fn sync_threads() {
    backend::barrier(backend::BarrierOp::Sync, false);
}

/// Like [`sync_threads`], and returns how many of the block's waiting threads passed `true`
/// (`__syncthreads_count`).
#[inline(always)]
#[track_caller]
pub fn sync_threads_count(predicate: bool) -> u32 {
    backend::barrier(backend::BarrierOp::Count, predicate)
}

/// Like [`sync_threads`], and returns whether every waiting thread passed `true`
/// (`__syncthreads_and`).
#[inline(always)]
#[track_caller]
pub fn sync_threads_and(predicate: bool) -> bool {
    backend::barrier(backend::BarrierOp::And, predicate) != 0
}

/// Like [`sync_threads`], and returns whether any waiting thread passed `true`
/// (`__syncthreads_or`).
#[inline(always)]
#[track_caller]
pub fn sync_threads_or(predicate: bool) -> bool {
    backend::barrier(backend::BarrierOp::Or, predicate) != 0
}

/// Orders the calling thread's memory accesses for all threads of the device
/// (`__threadfence`).
#[inline(always)]
pub fn thread_fence() {
    backend::fence_device();
}

/// Orders the calling thread's memory accesses for the threads of its block
/// (`__threadfence_block`).
#[inline(always)]
pub fn thread_fence_block() {
    backend::fence_block();
}
