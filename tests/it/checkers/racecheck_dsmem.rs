//! racecheck through distributed shared memory: an access through a `map_shared_rank` view is
//! checked against the shadow of the block whose shared array it reaches, and
//! `this_cluster().sync()` orders the accesses of the cluster's blocks.

use core::sync::atomic::Ordering::Relaxed;

use crate::common::assert_has;
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Checks, Config};

const BINS: usize = 64;

fn configs() -> Vec<Config> {
    let race = Checks { racecheck: true, ..Checks::default() };
    vec![
        Config::default().checks(race),
        Config::default().checks(race).blocks(BlockOrder::Serial),
        Config::default().checks(race).seed(7),
    ]
}

/// The cluster histogram of tests/it/scheduler/clusters.rs: each block of a cluster of four owns 16 bins in
/// its shared memory, which it zeroes; every thread adds to the owning block's bin through
/// distributed shared memory; each block then adds its bins to the global histogram. Without
/// `first_sync`, the additions race with the owners' zeroing.
#[kernel(cluster(4, 1, 1))]
fn histogram(data: &[u32], hist: &mut [u32], first_sync: bool) {
    let cluster = this_cluster();
    let part = shared_array![u32; 16];
    let t = thread_idx().x as usize;
    if t < 16 {
        part[t] = 0; // ZERO
    }
    if first_sync {
        cluster.sync();
    }
    let i = (block_idx().x * block_dim().x) as usize + t;
    if i < data.len() {
        let bin = data[i] as usize % 64;
        let owner = cluster.map_shared_rank(&part, (bin / 16) as u32);
        owner.atomic_add(bin % 16, 1); // REMOTE ADD
    }
    cluster.sync();
    if t < 16 {
        hist.atomic_add(cluster.block_rank() as usize * 16 + t, part[t]);
    }
}

/// Thread 0 of each block of a pair writes its shared value; (with `sync`) the cluster syncs;
/// thread 0 reads the other block's value through distributed shared memory.
#[kernel(cluster(2, 1, 1))]
fn neighbour(out: &mut [u32], sync: bool) {
    let cluster = this_cluster();
    let mine = shared_array![u32; 1];
    let b = block_idx().x;
    if thread_idx().x == 0 {
        mine[0] = 100 + b; // OWN WRITE
    }
    if sync {
        cluster.sync();
    }
    if thread_idx().x == 0 {
        let theirs = cluster.map_shared_rank(&mine, cluster.block_rank() ^ 1);
        out[b as usize] = theirs.atomic_load(0, Relaxed); // REMOTE READ
    }
    cluster.sync();
}

#[test]
fn a_cluster_histogram_is_clean_and_without_its_first_sync_is_a_race() {
    let data: Vec<u32> = (0..4096u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut want = vec![0u32; BINS];
    for &d in &data {
        want[d as usize % BINS] += 1;
    }
    let dd = DeviceBuffer::from_slice(&data).unwrap();
    for config in configs() {
        let mut hist = DeviceBuffer::<u32>::zeroed(BINS).unwrap();
        with_config(config.clone(), || launch!(histogram<<<16, 256>>>(&dd, &mut hist, true)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(hist.to_vec().unwrap(), want, "{config:?}");

        let err = with_config(config.clone(), || launch!(histogram<<<16, 256>>>(&dd, &mut hist, false))).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        assert_has(&text, "Race reported between");
        assert_has(&text, "Atomic access at");
        assert_has(&text, "Write access at");
        assert_has(&text, "(`part`)");
    }
}

#[test]
fn a_read_of_a_neighbours_shared_memory_is_ordered_by_the_cluster_sync() {
    for config in configs() {
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        with_config(config.clone(), || launch!(neighbour<<<4, 32>>>(&mut out, true)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), vec![101, 100, 103, 102], "{config:?}");

        let err = with_config(config.clone(), || launch!(neighbour<<<4, 32>>>(&mut out, false))).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        assert_has(&text, "Race reported between");
        assert_has(&text, "(`mine`)");
    }
}
