//! racecheck: shared-memory hazards between threads of a block with no barrier between them,
//! reported in compute-sanitizer's words; and no report for kernels whose barriers order
//! every pair, whatever the schedule.

use crate::common::{assert_has, marked_line, model};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};

/// `config` with racecheck on.
fn checked(config: Config) -> Config {
    config.checks(Checks { racecheck: true, ..Checks::default() })
}

/// The line of this file that ends with `marker`.
fn line_of(marker: &str) -> usize {
    marked_line(include_str!("racecheck.rs"), marker)
}

/// A block reduction; without `sync`, the tree's steps are not separated by barriers.
#[kernel]
fn tree(x: &[u32], out: &mut [u32], sync: bool) {
    let tile = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = x[block_idx().x as usize * 64 + tid];
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s]; // TREE STEP
        }
        if sync {
            sync_threads();
        }
        s /= 2;
    }
    if tid == 0 {
        out[block_idx().x as usize] = tile[0];
    }
}

#[test]
fn a_tree_without_barriers_is_a_race_and_with_them_is_not() {
    let x = DeviceBuffer::from_slice(&(0..128u32).collect::<Vec<_>>()).unwrap();
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
        with_config(checked(config.clone()), || launch!(tree<<<2, 64>>>(&x, &mut out, true)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), vec![(0..64).sum::<u32>(), (64..128).sum::<u32>()]);

        let err = with_config(checked(config.clone()), || launch!(tree<<<2, 64>>>(&x, &mut out, false))).unwrap_err();
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        let line = format!("tests/it/checkers/racecheck.rs:{}", line_of("// TREE STEP"));
        assert_has(&text, "Race reported between");
        assert_has(&text, &format!("access at {line}"));
        assert_has(&text, "with no sync_threads (or sync_warp) between them");
        assert_has(&text, "in block (0,0,0)");
        assert_has(&text, "in block (1,0,0)");
        assert_has(&text, "on `tile[");
        assert_has(&text, "__shared__ array declared at tests/it/checkers/racecheck.rs:");
    });
}

/// Every thread writes its index to `tile[0]`.
#[kernel]
fn all_write_one(out: &mut [u32]) {
    let tile = shared_array![u32; 1];
    tile[0] = thread_idx().x; // ALL WRITE
    sync_threads();
    out[thread_idx().x as usize] = tile[0];
}

#[test]
fn two_writes_of_one_element_are_a_write_write_race() {
    let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
    let err = with_config(checked(Config::default()), || launch!(all_write_one<<<1, 8>>>(&mut out))).unwrap_err();
    let text = err.to_string();
    let line = format!("tests/it/checkers/racecheck.rs:{}", line_of("// ALL WRITE"));
    assert_has(&text, &format!("Race reported between Write access at {line}"));
    assert_has(&text, &format!("and Write access at {line}"));
    assert_has(&text, "by thread (0,0,0) and thread (1,0,0) in block (0,0,0)");
    assert_has(&text, "7 such hazards in this block between these lines");
    assert_has(&text, "ERROR SUMMARY: 1 error");
}

#[test]
fn without_racecheck_nothing_is_reported() {
    let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
    with_config(Config::default(), || launch!(all_write_one<<<1, 8>>>(&mut out))).unwrap();
}

/// A warp-synchronous tree over 32 lanes: each step reads what other lanes wrote in the step
/// before, ordered by `sync_warp` when `sync` is set, by nothing otherwise.
#[kernel]
fn warp_tree(out: &mut [u32], sync: bool) {
    let tile = shared_array![u32; 64];
    let lane = thread_idx().x as usize;
    tile[lane] = lane as u32;
    tile[lane + 32] = 0;
    if sync {
        sync_warp(FULL_MASK);
    }
    let mut s = 16;
    while s > 0 {
        let v = tile[lane] + tile[lane + s];
        if sync {
            sync_warp(FULL_MASK);
        }
        tile[lane] = v;
        if sync {
            sync_warp(FULL_MASK);
        }
        s /= 2;
    }
    if lane == 0 {
        out[0] = tile[0];
    }
}

#[test]
fn sync_warp_orders_the_lanes_of_a_warp() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        with_config(checked(config.clone()), || launch!(warp_tree<<<1, 32>>>(&mut out, true)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), vec![(0..32).sum::<u32>()]);
        let err = with_config(checked(config.clone()), || launch!(warp_tree<<<1, 32>>>(&mut out, false))).unwrap_err();
        assert_has(&err.to_string(), "Race reported between");
    });
}

/// Thread `t` writes byte `t` of a byte array, then reads bytes of others after a barrier; and
/// counts into a shared histogram with atomics.
#[kernel]
fn bytes_and_atomics(out: &mut [u32]) {
    let bytes = shared_array![u8; 64];
    let hist = shared_array![u32; 4];
    let t = thread_idx().x as usize;
    if t < 4 {
        hist[t] = 0;
    }
    bytes[t] = t as u8;
    sync_threads();
    hist.atomic_add(t % 4, 1u32);
    let x = bytes[(t + 1) % 64] as u32;
    sync_threads();
    out[t] = x + hist[t % 4];
}

#[test]
fn neighbouring_bytes_and_atomics_are_not_races() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        with_config(checked(config.clone()), || launch!(bytes_and_atomics<<<1, 64>>>(&mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let want: Vec<u32> = (0..64u32).map(|t| (t + 1) % 64 + 16).collect();
        assert_eq!(out.to_vec().unwrap(), want, "{config:?}");
    });
}

/// Two blocks on one worker (serially): block 1's reads of what it wrote itself before a
/// barrier are not confused with block 0's writes to the same arena.
#[test]
fn blocks_do_not_race_with_each_other_in_shared_memory() {
    let x = DeviceBuffer::from_slice(&(0..256u32).collect::<Vec<_>>()).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
    let config = Config::default().blocks(deviceemu::BlockOrder::Serial);
    with_config(checked(config), || launch!(tree<<<4, 64>>>(&x, &mut out, true))).unwrap();
}

// ---- global memory ----

/// Every block's thread 0 writes its block index to `out[0]`.
#[kernel]
fn blocks_write_one(out: &mut [u32]) {
    if thread_idx().x == 0 {
        out[0] = block_idx().x; // BLOCKS WRITE
    }
}

#[test]
fn blocks_writing_one_global_element_race() {
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let config = Config::default().blocks(deviceemu::BlockOrder::Serial);
    let err = with_config(checked(config), || launch!(blocks_write_one<<<3, 32>>>(&mut out))).unwrap_err();
    let text = err.to_string();
    let line = format!("tests/it/checkers/racecheck.rs:{}", line_of("// BLOCKS WRITE"));
    assert_has(&text, &format!("Race reported between Write access at {line}"));
    assert_has(&text, "on `out[0]` of `out`");
    assert_has(
        &text,
        "by thread (0,0,0) in block (0,0,0) and thread (0,0,0) in block (1,0,0): blocks of one launch are not ordered",
    );
    assert_has(&text, "ERROR SUMMARY: 2 errors");
}

/// Thread `t` writes `y[t]`, then reads `y[t + 1]`, with or without a barrier between.
#[kernel]
fn shift_in_place(y: &mut [u32], sync: bool) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    y[t] = t as u32; // SHIFT WRITE
    if sync {
        sync_threads();
    }
    let next = if thread_idx().x + 1 < block_dim().x { y[t + 1] } else { 0 }; // SHIFT READ
    if sync {
        sync_threads();
    }
    y[t] += next;
}

#[test]
fn threads_of_a_block_race_in_global_memory_without_a_barrier() {
    model().check_with(|config| {
        let mut y = DeviceBuffer::<u32>::zeroed(128).unwrap();
        with_config(checked(config.clone()), || launch!(shift_in_place<<<2, 64>>>(&mut y, true)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let err =
            with_config(checked(config.clone()), || launch!(shift_in_place<<<2, 64>>>(&mut y, false))).unwrap_err();
        let text = err.to_string();
        let (w, r) = (line_of("// SHIFT WRITE"), line_of("// SHIFT READ"));
        // Either order, depending on which thread ran first.
        assert!(
            text.contains(&format!("tests/it/checkers/racecheck.rs:{w}"))
                && text.contains(&format!("tests/it/checkers/racecheck.rs:{r}")),
            "{config:?}: {text}"
        );
        assert_has(&text, "of `y`");
    });
}

/// saxpy, a broadcast read of `a[0]`, and per-block partial sums: no thread touches what
/// another writes.
#[kernel]
fn race_free(a: &[f32], x: &[f32], y: &mut [f32], partial: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    y[i] = a[0] * x[i] + y[i];
    if thread_idx().x == 0 {
        partial[block_idx().x as usize] = y[i];
    }
}

#[test]
fn race_free_global_kernels_are_not_reported() {
    let a = DeviceBuffer::from_slice(&[2.0f32]).unwrap();
    let x = DeviceBuffer::from_slice(&[1.0f32; 256]).unwrap();
    let mut y = DeviceBuffer::from_slice(&[0.5f32; 256]).unwrap();
    let mut partial = DeviceBuffer::<f32>::zeroed(4).unwrap();
    model().check_with(|config| {
        // Twice: the second launch reads what the first wrote, which a launch boundary orders.
        for _ in 0..2 {
            with_config(checked(config.clone()), || launch!(race_free<<<4, 64>>>(&a, &x, &mut y, &mut partial)))
                .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        }
    });
    // Ten launches, each adding a[0] * x = 2 to every element.
    let launches = 2 * model().configs().len();
    assert_eq!(y.to_vec().unwrap(), vec![0.5 + 2.0 * launches as f32; 256]);
}

/// Thread `t` writes column `t % 4` of row `t / 4` of a 2-D buffer, and one byte of a byte
/// quadruple: neighbouring elements of one array element are different locations.
#[kernel]
fn columns(m: &mut [[f32; 4]], q: &mut [[u8; 4]]) {
    let t = thread_idx().x as usize;
    m[t / 4][t % 4] = t as f32;
    q[t / 4][t % 4] = t as u8;
}

#[test]
fn elements_of_array_elements_are_told_apart() {
    let mut m = DeviceBuffer::<[f32; 4]>::uninit(16).unwrap();
    let mut q = DeviceBuffer::<[u8; 4]>::zeroed(16).unwrap();
    let checks = Checks { racecheck: true, initcheck: true, ..Checks::default() };
    model().check_with(|config| {
        with_config(config.clone().checks(checks), || launch!(columns<<<1, 64>>>(&mut m, &mut q)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
    });
    assert_eq!(m.to_vec().unwrap()[3], [12.0, 13.0, 14.0, 15.0]);
    assert_eq!(q.to_vec().unwrap()[15], [60, 61, 62, 63]);
}

/// The verdict compares barrier epochs, not the order threads ran in: every schedule finds the
/// same hazards (the same pairs of lines, in the same blocks, with the same counts).
#[test]
fn every_schedule_finds_the_same_races() {
    let x = DeviceBuffer::from_slice(&(0..128u32).collect::<Vec<_>>()).unwrap();
    let summary = |config: Config| {
        let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
        let err = with_config(checked(config), || launch!(tree<<<2, 64>>>(&x, &mut out, false))).unwrap_err();
        let report = err.report().expect("a launch failure carries its report");
        let mut found: Vec<(String, String, String, usize)> = report
            .findings()
            .iter()
            .map(|f| match f {
                deviceemu::Finding::Race { first_at, second_at, block, count, .. } => {
                    let mut sites = [first_at.to_string(), second_at.to_string()];
                    sites.sort();
                    (sites[0].clone(), sites[1].clone(), block.to_string(), *count)
                }
                other => panic!("unexpected finding {other:?}"),
            })
            .collect();
        found.sort();
        found
    };
    let reference = summary(Config::default());
    assert!(!reference.is_empty());
    model().check_with(|config| {
        assert_eq!(summary(config.clone()), reference, "{config:?}");
    });
}
