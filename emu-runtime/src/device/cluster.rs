//! Thread block clusters and distributed shared memory (sm_90): `this_cluster()`, for kernels
//! declared with `#[kernel(cluster(X, Y, Z))]` (CUDA's `__cluster_dims__`).
//!
//! The blocks of a cluster run together: `cluster.sync()` waits until every thread of every
//! block of the cluster has reached it, and `map_shared_rank(&array, rank)` gives a view of the
//! same shared array in another block of the cluster (distributed shared memory, DSMEM). A
//! kernel without a cluster shape runs in clusters of one block, as in CUDA.
//!
//! * **Emulated**, the blocks of one cluster are driven together on one host thread, each until
//!   all its threads wait at a cluster sync (`host/sched/launch.rs::run_group`); clusters run in
//!   parallel. A DSMEM view is bounds-checked like any view, and an access past its end is
//!   reported naming the array and the block it belongs to. A cluster sync that blocks of the
//!   cluster which ended never reach is reported, never a hang.
//! * **On the GPU** `sync()` is `barrier.cluster.arrive` and `.wait`, and the shape comes from
//!   `%cluster_nctaid`; launching a clustered kernel on the GPU and DSMEM views there are not
//!   implemented yet (the launch says so; see the README).

use super::backend;
use super::dim::Dim3;
use super::{DeviceCopy, Shared};

/// The cluster of blocks the calling thread's block belongs to
/// (`cooperative_groups::cluster_group`).
#[derive(Clone, Copy, Debug)]
pub struct ClusterGroup {
    _private: (),
}

/// The calling thread's cluster (`cooperative_groups::this_cluster()`).
#[inline(always)]
pub fn this_cluster() -> ClusterGroup {
    ClusterGroup { _private: () }
}

impl ClusterGroup {
    /// Waits until every thread of every block of the cluster has reached this call
    /// (`cluster.sync()`); shared and global memory writes before it are visible after it,
    /// distributed shared memory included.
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        backend::cluster_sync();
    }

    /// The cluster's shape in blocks (`cluster.dim_blocks()`).
    #[inline(always)]
    pub fn dim_blocks(&self) -> Dim3 {
        backend::cluster_dim()
    }

    /// The number of blocks in the cluster (`cluster.num_blocks()`).
    #[inline(always)]
    pub fn num_blocks(&self) -> u32 {
        let d = backend::cluster_dim();
        d.x * d.y * d.z
    }

    /// The calling block's index inside its cluster (`cluster.block_index()`).
    #[inline(always)]
    pub fn block_index(&self) -> Dim3 {
        let (b, d) = (backend::block_idx(), backend::cluster_dim());
        Dim3::new(b.x % d.x, b.y % d.y, b.z % d.z)
    }

    /// The calling block's rank in its cluster, `0..num_blocks()`, x fastest
    /// (`cluster.block_rank()`).
    #[inline(always)]
    pub fn block_rank(&self) -> u32 {
        let (i, d) = (self.block_index(), backend::cluster_dim());
        (i.z * d.y + i.y) * d.x + i.x
    }

    /// The number of threads in the cluster (`cluster.num_threads()`).
    #[inline(always)]
    pub fn num_threads(&self) -> u32 {
        let b = backend::block_dim();
        self.num_blocks() * b.x * b.y * b.z
    }

    /// The calling thread's rank in the cluster (`cluster.thread_rank()`).
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        let (t, b) = (backend::thread_idx(), backend::block_dim());
        self.block_rank() * (b.x * b.y * b.z) + (t.z * b.y + t.y) * b.x + t.x
    }

    /// The view of `array`, a shared array (or part of one) of the calling block, in the block
    /// of rank `rank` of the cluster (`cluster.map_shared_rank(ptr, rank)`): distributed shared
    /// memory. Every block of the cluster is resident while it runs, so the view stays valid
    /// until the block's threads end; sync the cluster before a block ends if others still
    /// read its memory.
    ///
    /// A `rank` outside the cluster is reported as an error of the calling thread.
    #[inline(always)]
    #[track_caller]
    pub fn map_shared_rank<'a, T: DeviceCopy>(&self, array: &Shared<'a, T>, rank: u32) -> Shared<'a, T> {
        backend::map_shared_rank(array, rank)
    }
}
