//! Grid groups: `cooperative_groups::this_grid()` and its `sync()`, for kernels launched with
//! `launch_cooperative!`.
//!
//! A grid sync waits until every thread of every block of the launch has reached it. That can
//! only complete when all the blocks are resident at once, which CUDA guarantees for a
//! cooperative launch (`cudaLaunchCooperativeKernel`) and checks at the launch: a grid that
//! does not fit is `cudaErrorCooperativeLaunchTooLarge` (720).
//!
//! * **Emulated**, the blocks of a cooperative launch are run as suspendable units on one host
//!   thread: each block runs until all its threads wait at the grid sync (or exit), then the
//!   next; once every block waits, all go on (`host/sched/launch.rs`, `run_cooperative`). A grid
//!   sync in a launch that is not cooperative, and one that some blocks never reach because
//!   they exited, are reported with the kernel, block, thread and line, never a hang.
//! * **On the GPU** it is what CUDA's headers do (`cg::details::sync_grids`): a block barrier,
//!   then thread 0 of each block adds to a counter in global memory (block 0 adds
//!   `0x80000000 - (blocks - 1)`, the others 1, so the top bit flips when the last block
//!   arrives), spins until the top bit flips, and a second block barrier releases the block.
//!   The counter is a module global, so no reset is needed between syncs or launches. The
//!   launch goes through `cuLaunchCooperativeKernel`.

use super::backend;
use super::dim::Dim3;

/// The grid of the running cooperative launch (`cooperative_groups::grid_group`).
#[derive(Clone, Copy, Debug)]
pub struct GridGroup {
    _private: (),
}

/// The grid the calling thread belongs to (`cooperative_groups::this_grid()`).
#[inline(always)]
pub fn this_grid() -> GridGroup {
    GridGroup { _private: () }
}

impl GridGroup {
    /// Waits until every thread of the grid has reached this call (`grid.sync()`). Memory
    /// writes made before it are visible to every thread of the grid after it.
    ///
    /// Only valid in a kernel launched with `launch_cooperative!`; elsewhere it is reported.
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        backend::grid_sync();
    }

    /// The number of threads in the grid (`grid.size()`, `num_threads()`).
    #[inline(always)]
    pub fn size(&self) -> u64 {
        let (g, b) = (backend::grid_dim(), backend::block_dim());
        u64::from(g.x * g.y * g.z) * u64::from(b.x * b.y * b.z)
    }

    /// The calling thread's rank in the grid, `0..size()` (`grid.thread_rank()`).
    #[inline(always)]
    pub fn thread_rank(&self) -> u64 {
        let (t, b) = (backend::thread_idx(), backend::block_dim());
        let in_block = u64::from((t.z * b.y + t.y) * b.x + t.x);
        self.block_rank() * u64::from(b.x * b.y * b.z) + in_block
    }

    /// The number of blocks in the grid (`grid.num_blocks()`).
    #[inline(always)]
    pub fn num_blocks(&self) -> u64 {
        let g = backend::grid_dim();
        u64::from(g.x) * u64::from(g.y) * u64::from(g.z)
    }

    /// The calling thread's block's rank in the grid, `0..num_blocks()` (`grid.block_rank()`).
    #[inline(always)]
    pub fn block_rank(&self) -> u64 {
        let (i, g) = (backend::block_idx(), backend::grid_dim());
        (u64::from(i.z) * u64::from(g.y) + u64::from(i.y)) * u64::from(g.x) + u64::from(i.x)
    }

    /// The grid's dimensions in blocks (`grid.dim_blocks()`, `gridDim`).
    #[inline(always)]
    pub fn dim_blocks(&self) -> Dim3 {
        backend::grid_dim()
    }

    /// The calling thread's block index (`grid.block_index()`, `blockIdx`).
    #[inline(always)]
    pub fn block_index(&self) -> Dim3 {
        backend::block_idx()
    }
}
