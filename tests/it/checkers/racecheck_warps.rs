//! racecheck: `sync_warp` orders a warp's lanes like a barrier at warp scope, also through
//! atomics. What lanes wrote before a `sync_warp` is published by one lane's release after it;
//! what one lane acquired before a `sync_warp` is known to every lane after it. Without the
//! `sync_warp`, the same kernels race.

use core::sync::atomic::Ordering::{Acquire, Release};

use crate::common::{assert_has, model};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};

fn checked(config: &Config) -> Config {
    config.clone().checks(Checks { racecheck: true, ..config.get_checks() })
}

/// Block 0's warp writes one element per lane, then (with `sync`) syncs the warp; lane 0
/// releases the flag. Block 1's thread 0 acquires it and reads every lane's element.
#[kernel]
fn publish(data: &mut [u32], flag: &mut [u32], out: &mut [u32], sync: bool) {
    let lane = thread_idx().x as usize;
    if block_idx().x == 0 {
        data[lane] = lane as u32 + 1; // LANE WRITE
        if sync {
            sync_warp(FULL_MASK);
        }
        if lane == 0 {
            flag.atomic_store(0, 1, Release);
        }
    } else if lane == 0 {
        while flag.atomic_load(0, Acquire) == 0 {}
        let mut sum = 0;
        let mut l = 0;
        while l < 32 {
            sum += data[l]; // REMOTE READ
            l += 1;
        }
        out[0] = sum;
    }
}

/// Block 0 writes the data (every thread, then a barrier) and thread 0 releases the flag.
/// Block 1's lane 0 acquires it; then (with `sync`) the warp syncs, and every lane reads.
#[kernel]
fn subscribe(data: &mut [u32], flag: &mut [u32], out: &mut [u32], sync: bool) {
    let lane = thread_idx().x as usize;
    if block_idx().x == 0 {
        data[lane] = lane as u32 + 1;
        sync_threads();
        if lane == 0 {
            flag.atomic_store(0, 1, Release);
        }
    } else {
        if lane == 0 {
            while flag.atomic_load(0, Acquire) == 0 {}
        }
        if sync {
            sync_warp(FULL_MASK);
        }
        out[lane] = data[lane]; // LANE READ
    }
}

fn run_publish(config: &Config, sync: bool) -> Result<(), deviceemu::Error> {
    let mut data = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    with_config(checked(config), || launch!(publish<<<2, 32>>>(&mut data, &mut flag, &mut out, sync)))?;
    assert_eq!(out.to_vec().unwrap(), vec![(1..=32).sum::<u32>()]);
    Ok(())
}

fn run_subscribe(config: &Config, sync: bool) -> Result<(), deviceemu::Error> {
    let mut data = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
    with_config(checked(config), || launch!(subscribe<<<2, 32>>>(&mut data, &mut flag, &mut out, sync)))?;
    assert_eq!(out.to_vec().unwrap(), (1..=32).collect::<Vec<u32>>());
    Ok(())
}

#[test]
fn lanes_writes_before_a_sync_warp_are_published_by_one_lanes_release() {
    model().check_with(|config| {
        run_publish(config, true).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let err = run_publish(config, false).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        assert_has(&text, "Race reported between Write access at");
        assert_has(&text, "of `data`");
    });
}

#[test]
fn what_one_lane_acquired_before_a_sync_warp_every_lane_knows_after_it() {
    model().check_with(|config| {
        run_subscribe(config, true).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let err = run_subscribe(config, false).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        assert_has(&text, "of `data`");
        // Lane 0 acquired: its own read is ordered; the others' are not.
        assert_has(&text, "Race reported between Write access at");
    });
}
