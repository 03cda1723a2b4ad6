//! Thread block clusters and distributed shared memory (`device/cluster.rs`,
//! `host/sched/launch.rs::run_clusters`): a cluster histogram in DSMEM and a ring exchange
//! against CPU references under every schedule, the cluster's ranks and shape, and the misuse
//! reports (DSMEM out of bounds, a rank outside the cluster, a grid that clusters do not tile,
//! a cluster sync some blocks never reach).

use crate::common::{assert_has, in_emulator, marked_line, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, Schedule};

const SOURCE: &str = include_str!("clusters.rs");

fn configs() -> Vec<Config> {
    vec![
        Config::default(),
        Config::default().blocks(BlockOrder::Serial),
        Config::default().seed(21),
        Config::default().seed(22).warp_size(1),
        Config::default().schedule(Schedule::Threads),
    ]
}

const BINS: usize = 64;

/// A histogram whose bins are spread over the cluster's blocks: block `r` of a cluster holds
/// bins `r * 16 .. r * 16 + 16` in its shared memory, every thread adds to the owning block's
/// bin through distributed shared memory, and after a cluster sync each block adds its bins
/// to the global histogram.
#[kernel(cluster(4, 1, 1))]
fn cluster_histogram(data: &[u32], hist: &mut [u32]) {
    let cluster = this_cluster();
    let part = shared_array![u32; 16];
    let t = thread_idx().x as usize;
    if t < 16 {
        part[t] = 0;
    }
    cluster.sync();
    let i = (block_idx().x * block_dim().x) as usize + t;
    if i < data.len() {
        let bin = data[i] as usize % 64;
        let owner = cluster.map_shared_rank(&part, (bin / 16) as u32);
        owner.atomic_add(bin % 16, 1);
    }
    cluster.sync();
    if t < 16 {
        hist.atomic_add(cluster.block_rank() as usize * 16 + t, part[t]);
    }
}

#[test]
fn a_cluster_histogram_in_distributed_shared_memory() {
    let data: Vec<u32> = (0..4096u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut want = vec![0u32; BINS];
    for &d in &data {
        want[d as usize % BINS] += 1;
    }
    let dd = DeviceBuffer::from_slice(&data).unwrap();
    for config in configs() {
        let mut hist = DeviceBuffer::<u32>::zeroed(BINS).unwrap();
        with_config(config.clone(), || launch!(cluster_histogram<<<16, 256>>>(&dd, &mut hist)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(hist.to_vec().unwrap(), want, "{config:?}");
    }
}

/// Each block publishes a value in shared memory and reads its cluster neighbour's; the shape
/// and ranks are written out.
#[kernel(cluster(2, 2, 1))]
fn ring(out: &mut [u32], shape: &mut [u32]) {
    let cluster = this_cluster();
    let mine = shared_array![u32; 1];
    let b = block_idx();
    let linear = b.y * grid_dim().x + b.x;
    if thread_idx().x == 0 {
        mine[0] = 1000 + linear;
    }
    cluster.sync();
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    let theirs = cluster.map_shared_rank(&mine, next);
    if thread_idx().x == 0 {
        out[linear as usize] = theirs.load(0);
        let d = cluster.dim_blocks();
        let k = cluster.block_index();
        let s = linear as usize * 6;
        shape[s] = cluster.block_rank();
        shape[s + 1] = cluster.num_blocks();
        shape[s + 2] = d.x * 100 + d.y * 10 + d.z;
        shape[s + 3] = k.x * 10 + k.y;
        shape[s + 4] = cluster.num_threads();
        shape[s + 5] = cluster.thread_rank();
    }
    cluster.sync(); // nobody leaves while a neighbour may still read its memory
}

#[test]
fn blocks_read_their_cluster_neighbours_shared_memory() {
    let (gx, gy) = (4u32, 2u32);
    for config in configs() {
        let mut out = DeviceBuffer::<u32>::zeroed((gx * gy) as usize).unwrap();
        let mut shape = DeviceBuffer::<u32>::zeroed((gx * gy * 6) as usize).unwrap();
        with_config(config.clone(), || launch!(ring<<<(gx, gy), 32>>>(&mut out, &mut shape)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let (out, shape) = (out.to_vec().unwrap(), shape.to_vec().unwrap());
        for y in 0..gy {
            for x in 0..gx {
                let linear = y * gx + x;
                let (kx, ky) = (x % 2, y % 2);
                let rank = ky * 2 + kx;
                let next = (rank + 1) % 4;
                let (nx, ny) = (x - kx + next % 2, y - ky + next / 2);
                assert_eq!(out[linear as usize], 1000 + ny * gx + nx, "block ({x},{y}) {config:?}");
                let s = &shape[linear as usize * 6..][..6];
                assert_eq!(s, [rank, 4, 221, kx * 10 + ky, 128, rank * 32], "block ({x},{y}) {config:?}");
            }
        }
    }
}

#[kernel(cluster(2))]
fn dsmem_oob(out: &mut [u32]) {
    let cluster = this_cluster();
    let a = shared_array![u32; 8];
    let t = thread_idx().x as usize;
    if t < 8 {
        a[t] = t as u32;
    }
    cluster.sync();
    let other = cluster.map_shared_rank(&a, cluster.block_rank() ^ 1);
    out[(block_idx().x * 8) as usize + t % 8] = other.load(t); // @dsmem-oob
    cluster.sync();
}

#[test]
fn a_distributed_shared_memory_access_out_of_bounds_is_reported() {
    // The emulator's report, in the emulator: on the GPU the view's bounds check traps (719),
    // which would poison the test process's CUDA context.
    in_emulator(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(16).unwrap();
        let err = launch!(dsmem_oob<<<2, 16>>>(&mut out)).unwrap_err();
        assert_eq!(err.code(), 700);
        let text = err.to_string();
        assert_has(&text, "Invalid __shared__ read of size 4 bytes");
        assert_has(&text, &format!("tests/it/scheduler/clusters.rs:{}", marked_line(SOURCE, "// @dsmem-oob")));
        assert_has(&text, "by thread (8,0,0) in block (0,0,0)");
        assert_has(&text, "index 8 is past the end of");
        assert_eq!(err.report().unwrap().error_count(), 16, "threads 8..16 of both blocks");
        // Threads 0..8 read their neighbour's values.
        assert_eq!(out.to_vec().unwrap()[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
    });
}

#[kernel(cluster(2))]
fn bad_rank(out: &mut [u32]) {
    let a = shared_array![u32; 1];
    let other = this_cluster().map_shared_rank(&a, 2); // @bad-rank
    out[0] = other.len() as u32;
}

#[kernel]
fn one_block_clusters(out: &mut [u32]) {
    let cluster = this_cluster();
    let a = shared_array![u32; 1];
    if thread_idx().x == 0 {
        a[0] = 7;
    }
    cluster.sync();
    let me = cluster.map_shared_rank(&a, 0);
    if thread_idx().x == 0 {
        out[block_idx().x as usize] = me.load(0) + cluster.num_blocks() * 10 + cluster.block_rank();
    }
}

#[test]
fn ranks_outside_the_cluster_are_reported_and_kernels_without_a_shape_have_clusters_of_one() {
    // The report, in the emulator (on the GPU the kernel traps: 719, a sticky error).
    in_emulator(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let err = launch!(bad_rank<<<2, 1>>>(&mut out)).unwrap_err();
        assert_eq!(err.code(), 719);
        assert_has(
            &err.to_string(),
            "map_shared_rank: rank 2 is outside the cluster, which has 2 block(s) (shape (2,1,1))",
        );
        assert_has(
            &err.to_string(),
            &format!("tests/it/scheduler/clusters.rs:{}", marked_line(SOURCE, "// @bad-rank")),
        );
    });
    let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
    launch!(one_block_clusters<<<4, 32>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), [17; 4]);
}

#[test]
fn a_grid_that_clusters_do_not_tile_is_refused() {
    let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
    let err = launch!(bad_rank<<<3, 1>>>(&mut out)).unwrap_err();
    assert_eq!(err.code(), 912);
    assert_eq!(err.name(), "cudaErrorInvalidClusterSize");
    assert_has(&err.to_string(), "the grid (3,1,1) is not a whole number of clusters of (2,1,1) blocks");
}

#[kernel(cluster(2))]
fn cluster_leaver(out: &mut [u32]) {
    if block_idx().x % 2 == 1 {
        return;
    }
    this_cluster().sync(); // @cluster-never
    out[0] = 1;
}

#[test]
fn a_cluster_sync_that_an_ended_block_never_reaches_is_reported_not_a_hang() {
    // On a GPU this launch hangs for ever: the emulator's report, in the emulator.
    for config in configs().into_iter().map(|c| c.target(deviceemu::Target::Emulator)) {
        let err = on_new_thread(60, move || {
            with_config(config, || {
                let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
                launch!(cluster_leaver<<<4, 32>>>(&mut out)).unwrap_err()
            })
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(
            &text,
            "the cluster sync can never complete: 1 block(s) of the cluster ended without reaching it (block (1,0,0))",
        );
        assert_has(&text, "(block (3,0,0))");
        assert_has(&text, &format!("tests/it/scheduler/clusters.rs:{}", marked_line(SOURCE, "// @cluster-never")));
    }
}
