//! Warp collectives: `shfl*_sync`, the votes, `sync_warp`, `lane_id`/`warp_size`/`active_mask`,
//! under warp sizes 32 and 1 and several schedules; and their misuse (a collective that can
//! never complete, a mask without the calling lane), reported and never hung, with no report
//! for correct kernels.

mod common;
#[path = "../examples/warps.rs"]
#[allow(dead_code)]
mod warps_example;

use common::{assert_has, model, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{with_config, Config};

/// Each warp sums its lanes' values with `shfl_down_sync`; lane 0 writes the warp's sum.
#[kernel]
fn warp_sums(x: &[f32], sums: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut v = if i < x.len() { x[i] } else { 0.0 };
    let mut offset = warp_size() / 2;
    while offset > 0 {
        v += shfl_down_sync(FULL_MASK, v, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        sums[i / warp_size() as usize] = v;
    }
}

/// The CPU version of `warp_sums`: the same tree, in the same order, per warp of `ws`.
fn warp_sums_reference(x: &[f32], threads: usize, ws: usize) -> Vec<f32> {
    (0..threads / ws)
        .map(|w| warps_example::shfl_down_tree((0..ws).map(|l| x.get(w * ws + l).copied().unwrap_or(0.0)).collect()))
        .collect()
}

#[test]
fn shfl_down_warp_sums_match_the_cpu_tree() {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| ((i * 37 % 101) as f32) * 0.173 - 4.0).collect();
    let threads = 1024;
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().warp_sizes(&[32, 1]).check_with(|config| {
        let ws = config.get_warp_size() as usize;
        let mut sums = DeviceBuffer::<f32>::zeroed(threads / ws).unwrap();
        launch!(warp_sums<<<4, 256>>>(&xb, &mut sums)).unwrap();
        let got = sums.to_vec().unwrap();
        let want = warp_sums_reference(&x, threads, ws);
        assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{config:?}");
    });
}

#[test]
fn the_warps_example_block_sums_match_its_reference_for_both_warp_sizes() {
    // The example's block reduction (shuffle tree per warp, then over the warp sums), with a
    // partial last block.
    let x: Vec<f32> = (0..5000).map(|i| ((i * 7919 % 1013) as f32) * 0.01 - 5.0).collect();
    let blocks = x.len().div_ceil(256);
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().warp_sizes(&[32, 1]).fibers_only().check_with(|config| {
        let ws = config.get_warp_size();
        let mut partial = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
        launch!(warps_example::warp_block_sum<<<blocks as u32, 256>>>(&xb, &mut partial)).unwrap();
        let got: Vec<u32> = partial.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
        let want: Vec<u32> = warps_example::block_sums_reference(&x, blocks, ws as usize).iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want, "warp size {ws}");
    });
}

/// Every lane shuffles `lane * 7 + 1` with lane argument `arg + lane % 3` in mode `mode`
/// (0 idx, 1 up, 2 down, 3 xor).
#[kernel]
fn shuffle_table(mode: u32, arg: u32, out: &mut [u32]) {
    let t = thread_idx().x;
    let v = lane_id() * 7 + 1;
    let a = arg.wrapping_add(t % 3);
    out[t as usize] = match mode {
        0 => shfl_sync(FULL_MASK, v, a),
        1 => shfl_up_sync(FULL_MASK, v, a),
        2 => shfl_down_sync(FULL_MASK, v, a),
        _ => shfl_xor_sync(FULL_MASK, v, a),
    };
}

/// PTX `shfl.sync` with CUDA's default width: the low five bits of the argument count, and a
/// source outside the warp gives the lane its own value.
fn shuffle_reference(mode: u32, lane: u32, arg: u32) -> u32 {
    let value = |l: u32| l * 7 + 1;
    let b = arg & 31;
    let src = match mode {
        0 => Some(b),
        1 => lane.checked_sub(b),
        2 => Some(lane + b).filter(|&j| j < 32),
        _ => Some(lane ^ b),
    };
    value(src.unwrap_or(lane))
}

#[test]
fn shuffles_follow_ptx_lane_arithmetic() {
    for mode in 0..4u32 {
        for arg in (0..40u32).chain([63, 64, 0xffff_fffe, u32::MAX]) {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(shuffle_table<<<1, 64>>>(mode, arg, &mut out)).unwrap();
            let want: Vec<u32> = (0..64u32).map(|t| shuffle_reference(mode, t % 32, arg.wrapping_add(t % 3))).collect();
            assert_eq!(out.to_vec().unwrap(), want, "mode {mode}, arg {arg}");
        }
    }
}

/// Rotates values of every shuffle type by one lane, bit for bit.
#[kernel]
fn rotate_types(a: &[u64], out64: &mut [u64], out32: &mut [u32], outf: &mut [f64], outi: &mut [i64], outs: &mut [f32], outj: &mut [i32]) {
    let t = thread_idx().x as usize;
    let src = (lane_id() + 1) % 32;
    out64[t] = shfl_sync(FULL_MASK, a[t], src);
    out32[t] = shfl_sync(FULL_MASK, a[t] as u32, src);
    outf[t] = shfl_sync(FULL_MASK, f64::from_bits(a[t]), src);
    outi[t] = shfl_sync(FULL_MASK, a[t] as i64, src);
    outs[t] = shfl_sync(FULL_MASK, f32::from_bits(a[t] as u32), src);
    outj[t] = shfl_sync(FULL_MASK, (a[t] >> 32) as i32, src);
}

#[test]
fn every_shuffle_type_moves_bits_unchanged() {
    // Includes NaNs with payloads, signed zeros and subnormals: a shuffle moves bits, it does
    // not compute.
    let specials = [0x7ff4_0000_dead_beefu64, 0x8000_0000_0000_0000, 0x0000_0000_7fc0_1234, 0x0000_0000_0000_0001];
    let a: Vec<u64> = (0..64u64).map(|i| if i < 4 { specials[i as usize] } else { i.wrapping_mul(0x9E37_79B9_7F4A_7C15) }).collect();
    let ab = DeviceBuffer::from_slice(&a).unwrap();
    let (mut o64, mut o32) = (DeviceBuffer::<u64>::zeroed(64).unwrap(), DeviceBuffer::<u32>::zeroed(64).unwrap());
    let (mut of, mut oi) = (DeviceBuffer::<f64>::zeroed(64).unwrap(), DeviceBuffer::<i64>::zeroed(64).unwrap());
    let (mut os, mut oj) = (DeviceBuffer::<f32>::zeroed(64).unwrap(), DeviceBuffer::<i32>::zeroed(64).unwrap());
    launch!(rotate_types<<<1, 64>>>(&ab, &mut o64, &mut o32, &mut of, &mut oi, &mut os, &mut oj)).unwrap();
    let src = |t: usize| (t / 32) * 32 + (t % 32 + 1) % 32;
    let (o64, o32, of, oi, os, oj) =
        (o64.to_vec().unwrap(), o32.to_vec().unwrap(), of.to_vec().unwrap(), oi.to_vec().unwrap(), os.to_vec().unwrap(), oj.to_vec().unwrap());
    for t in 0..64 {
        let v = a[src(t)];
        assert_eq!(o64[t], v);
        assert_eq!(o32[t], v as u32);
        assert_eq!(of[t].to_bits(), v);
        assert_eq!(oi[t], v as i64);
        assert_eq!(os[t].to_bits(), v as u32);
        assert_eq!(oj[t], (v >> 32) as i32);
    }
}

/// Votes over the whole warp and over the lower half only (called by that half alone).
#[kernel]
fn votes(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    let p = lane % 3 == 0;
    out[t * 4] = ballot_sync(FULL_MASK, p);
    out[t * 4 + 1] = all_sync(FULL_MASK, lane < 40) as u32 + 2 * any_sync(FULL_MASK, lane == 5) as u32;
    if lane < 16 {
        out[t * 4 + 2] = ballot_sync(0x0000_ffff, lane % 2 == 1);
        out[t * 4 + 3] = all_sync(0x0000_ffff, p) as u32 + 2 * any_sync(0x0000_ffff, p) as u32;
    }
}

#[test]
fn votes_over_full_and_partial_masks() {
    // 80 threads: two full warps and one of 16 lanes (the missing lanes count as exited).
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(80 * 4).unwrap();
        with_config(config.clone(), || launch!(votes<<<1, 80>>>(&mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for t in 0..80 {
            let lane = t % 32;
            let lanes = if t >= 64 { 16 } else { 32 };
            let ballot = (0..lanes).filter(|l| l % 3 == 0).fold(0u32, |m, l| m | 1 << l);
            assert_eq!(out[t * 4], ballot, "thread {t} {config:?}");
            assert_eq!(out[t * 4 + 1], 1 + 2, "thread {t} {config:?}");
            if lane < 16 {
                assert_eq!(out[t * 4 + 2], 0xaaaa, "thread {t}");
                // lanes 0, 3, .., 15 have p: not all, but some
                assert_eq!(out[t * 4 + 3], 2, "thread {t}");
            } else {
                assert_eq!(out[t * 4 + 2], 0, "thread {t}");
            }
        }
    });
}

/// Lanes from `cut` on exit first; the others then vote and shuffle: exited lanes count as
/// arrived, whichever order the lanes ran in.
#[kernel]
fn vote_after_exits(cut: u32, out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if lane_id() >= cut {
        return;
    }
    out[t * 3] = ballot_sync(FULL_MASK, true);
    out[t * 3 + 1] = active_mask();
    out[t * 3 + 2] = shfl_xor_sync(FULL_MASK, lane_id(), 1);
}

#[test]
fn exited_lanes_count_as_arrived() {
    model().check_with(|config| {
        for cut in [1u32, 5, 20, 31] {
            let mut out = DeviceBuffer::<u32>::zeroed(64 * 3).unwrap();
            with_config(config.clone(), || launch!(vote_after_exits<<<1, 64>>>(cut, &mut out))).unwrap();
            let out = out.to_vec().unwrap();
            let live = (1u32 << cut) - 1;
            for t in (0..64).filter(|t| (t % 32) < cut as usize) {
                let lane = (t % 32) as u32;
                assert_eq!(out[t * 3], live, "cut {cut} thread {t} {config:?}");
                assert_eq!(out[t * 3 + 1], live, "cut {cut} thread {t} {config:?}");
                // lane ^ 1 exited for the last lane when cut is odd: own value.
                let want = if (lane ^ 1) < cut { lane ^ 1 } else { lane };
                assert_eq!(out[t * 3 + 2], want, "cut {cut} thread {t} {config:?}");
            }
        }
    });
}

/// Lanes pass values through shared memory, ordered by `sync_warp`, in every warp; then a
/// block-wide scan of the warp totals uses `sync_threads` (a state-machine kernel with
/// warp collectives inside).
#[kernel]
fn warp_scan(x: &[u32], out: &mut [u32], totals: &mut [u32]) {
    let buf = shared_array![u32; 256];
    let warp_total = shared_array![u32; 8];
    let t = thread_idx().x as usize;
    let lane = lane_id();
    let mut v = x[t];
    // Inclusive scan within the warp with shfl_up.
    let mut d = 1;
    while d < 32 {
        let up = shfl_up_sync(FULL_MASK, v, d);
        if lane >= d {
            v += up;
        }
        d *= 2;
    }
    buf[t] = v;
    sync_warp(FULL_MASK);
    if lane == 31 {
        warp_total[t / 32] = buf[t];
    }
    sync_threads();
    let mut before = 0;
    for w in 0..t / 32 {
        before += warp_total[w];
    }
    out[t] = v + before;
    if t == 255 {
        totals[0] = out[t];
    }
}

#[test]
fn warp_scan_with_block_barriers_matches_the_cpu() {
    let x: Vec<u32> = (0..256u32).map(|i| i * 3 % 17).collect();
    let want: Vec<u32> = x.iter().scan(0, |s, &v| {
        *s += v;
        Some(*s)
    }).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(256).unwrap();
        let mut totals = DeviceBuffer::<u32>::zeroed(1).unwrap();
        with_config(config.clone(), || launch!(warp_scan<<<1, 256>>>(&xb, &mut out, &mut totals))).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{config:?}");
        assert_eq!(totals.to_vec().unwrap(), vec![want[255]]);
    });
}

/// What `lane_id`, `warp_size`, `active_mask` and a ballot give.
#[kernel]
fn lane_facts(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t * 5] = lane_id();
    out[t * 5 + 1] = warp_size();
    out[t * 5 + 2] = active_mask();
    out[t * 5 + 3] = ballot_sync(FULL_MASK, t % 2 == 0);
    out[t * 5 + 4] = shfl_sync(FULL_MASK, t as u32, 0);
}

#[test]
fn warp_size_one_is_the_legacy_emulator() {
    // Each thread is a warp of its own: lane 0, a one-bit active mask and ballot, and every
    // shuffle returns the thread's own value.
    let mut out = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
    with_config(Config::default().warp_size(1), || launch!(lane_facts<<<1, 48>>>(&mut out))).unwrap();
    let out = out.to_vec().unwrap();
    for t in 0..48 {
        assert_eq!(&out[t * 5..t * 5 + 5], &[0, 1, 1, (t % 2 == 0) as u32, t as u32], "thread {t}");
    }
}

#[test]
fn warp_size_32_lanes_and_partial_warps() {
    let mut out = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
    launch!(lane_facts<<<1, 48>>>(&mut out)).unwrap();
    let out = out.to_vec().unwrap();
    for t in 0..48 {
        let (lanes, base) = if t < 32 { (32, 0) } else { (16, 32) };
        let existing = if lanes == 32 { u32::MAX } else { 0xffff };
        assert_eq!(&out[t * 5..t * 5 + 5], &[(t % 32) as u32, 32, existing, 0x5555_5555 & existing, base as u32], "thread {t}");
    }
}

// ---- misuse ----

/// Half the warp shuffles while the other half goes on to a block barrier: on a GPU this
/// hangs.
#[kernel]
fn half_warp_shuffles(out: &mut [u32]) {
    let t = thread_idx().x;
    let mut v = t;
    if lane_id() < 16 {
        v = shfl_sync(FULL_MASK, v, 0);
    }
    sync_threads();
    out[t as usize] = v;
}

#[test]
fn a_collective_that_cannot_complete_is_reported_not_hung() {
    let err = on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(half_warp_shuffles<<<2, 64>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, "at half_warp_shuffles in tests/warps.rs:");
    assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
    assert_has(&text, "threads (0,0,0) to (15,0,0), (32,0,0) to (47,0,0) wait in shfl_sync with mask 0xffffffff at tests/warps.rs:");
    assert_has(&text, "threads (16,0,0) to (31,0,0), (48,0,0) to (63,0,0) wait at the barrier");
    assert_has(&text, "wait at the barrier at tests/warps.rs:");
    assert_has(&text, "ERROR SUMMARY: 2 errors");
}

/// The two halves of each warp call different collectives with the same mask.
#[kernel]
fn mixed_collectives(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = if lane_id() < 16 { ballot_sync(FULL_MASK, true) } else { shfl_sync(FULL_MASK, 1u32, 0) };
}

#[test]
fn different_collectives_under_one_mask_are_reported() {
    let err = on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(mixed_collectives<<<1, 32>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Divergent thread(s) in warp");
    assert_has(&text, "threads (0,0,0) to (15,0,0) wait in ballot_sync with mask 0xffffffff");
    assert_has(&text, "threads (16,0,0) to (31,0,0) wait in shfl_sync with mask 0xffffffff");
}

/// Every lane passes a mask that names lane 0 only.
#[kernel]
fn mask_without_caller(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = ballot_sync(1, true);
}

#[test]
fn a_mask_without_the_calling_lane_is_invalid() {
    let err = on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(mask_without_caller<<<1, 32>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Invalid arguments");
    assert_has(&text, "ballot_sync was called with mask 0x00000001, which does not name the calling lane 1");
    assert_has(&text, "by thread (1,0,0) in block (0,0,0)");
    assert_has(&text, "at mask_without_caller in tests/warps.rs:");
}

#[test]
fn a_failed_launch_leaves_the_next_one_working() {
    on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        assert!(launch!(half_warp_shuffles<<<2, 64>>>(&mut out)).is_err());
        let mut facts = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
        launch!(lane_facts<<<1, 48>>>(&mut facts)).unwrap();
        assert_eq!(facts.to_vec().unwrap()[3], 0x5555_5555);
    });
}

/// Lane 20 panics while the lanes before it wait in a shuffle.
#[kernel]
fn panic_while_lanes_wait(out: &mut [u32]) {
    let t = thread_idx().x;
    if t == 20 {
        panic!("lane 20 gives up");
    }
    out[t as usize] = shfl_sync(FULL_MASK, t, 31);
}

#[test]
fn a_panic_while_lanes_wait_aborts_them_with_one_report() {
    let err = on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(panic_while_lanes_wait<<<1, 32>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Kernel panic: lane 20 gives up");
    assert_has(&text, "by thread (20,0,0) in block (0,0,0)");
    assert_has(&text, "ERROR SUMMARY: 1 error");
}

/// Every lane shuffles, then the upper half returns and the lower half votes: the lanes that
/// took part in a collective and then exited count as exited for the next one.
#[kernel]
fn exit_after_a_collective(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let first = shfl_sync(FULL_MASK, t as u32, 0);
    if lane_id() >= 16 {
        return;
    }
    out[t] = ballot_sync(FULL_MASK, true) + first;
}

#[test]
fn lanes_that_exit_after_a_collective_count_as_exited() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let config = config.clone();
        on_new_thread(20, move || {
            with_config(config.clone(), || launch!(exit_after_a_collective<<<1, 64>>>(&mut out))).unwrap_or_else(|e| panic!("{config:?}: {e}"));
            let out = out.to_vec().unwrap();
            for t in (0..64).filter(|t| t % 32 < 16) {
                assert_eq!(out[t], 0xffff + (t as u32 / 32) * 32, "thread {t} {config:?}");
            }
        });
    });
}

// ---- collectives the body cannot await (in a helper) mixed with awaited ones ----

/// A shuffle inside a helper: it parks the lane's fiber instead of awaiting.
#[device]
fn helper_shfl(v: u32, src: u32) -> u32 {
    shfl_sync(FULL_MASK, v, src)
}

/// The lower half of each warp shuffles in the body (awaited), the upper half in a helper
/// (blocking): one collective; then the same for a ballot after some lanes exited.
#[kernel]
fn mixed_forms(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    let v = lane * 3 + 1;
    let r = if lane < 16 { shfl_sync(FULL_MASK, v, 31 - lane) } else { helper_shfl(v, 31 - lane) };
    if lane % 4 == 3 {
        return;
    }
    let votes = if lane % 2 == 0 { ballot_sync(FULL_MASK, lane < 8) } else { helper_ballot(lane < 8) };
    out[t * 2] = r;
    out[t * 2 + 1] = votes;
}

#[device]
fn helper_ballot(p: bool) -> u32 {
    ballot_sync(FULL_MASK, p)
}

#[test]
fn awaited_and_blocking_collectives_mix_in_one_warp() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(96 * 2).unwrap();
        on_new_thread(20, {
            let config = config.clone();
            move || {
                with_config(config.clone(), || launch!(mixed_forms<<<1, 96>>>(&mut out))).unwrap_or_else(|e| panic!("{config:?}: {e}"));
                out.to_vec().unwrap()
            }
        })
        .chunks(2)
        .enumerate()
        .filter(|(t, _)| t % 4 != 3)
        .for_each(|(t, o)| {
            let lane = (t % 32) as u32;
            assert_eq!(o[0], (31 - lane) * 3 + 1, "thread {t} {config:?}");
            assert_eq!(o[1], 0b0111_0111, "thread {t} {config:?}");
        });
    });
}

/// Half the warp shuffles in a helper while the other half waits at a block barrier.
#[kernel]
fn half_warp_shuffles_in_a_helper(out: &mut [u32]) {
    let t = thread_idx().x;
    let mut v = t;
    if lane_id() < 16 {
        v = helper_shfl(v, 0);
    }
    sync_threads();
    out[t as usize] = v;
}

#[test]
fn a_blocking_collective_that_cannot_complete_is_reported_not_hung() {
    let err = on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(half_warp_shuffles_in_a_helper<<<1, 64>>>(&mut out)).unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, "threads (0,0,0) to (15,0,0), (32,0,0) to (47,0,0) wait in shfl_sync with mask 0xffffffff");
    assert_has(&text, "threads (16,0,0) to (31,0,0), (48,0,0) to (63,0,0) wait at the barrier");
    assert_has(&text, "ERROR SUMMARY: 1 error");
}

// ---- active_mask ----

#[device]
fn helper_active_mask() -> u32 {
    active_mask()
}

/// Each branch of a divergent `if` asks for the active mask, the lower branch in the body
/// (awaited), the upper one in a helper (blocking); lanes from 28 on have exited.
#[kernel]
fn branch_masks(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    if lane >= 28 {
        return;
    }
    out[t] = if lane < 10 { active_mask() } else { helper_active_mask() };
}

#[test]
fn active_mask_is_the_lanes_at_the_same_call_site_whatever_the_order() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        with_config(config.clone(), || launch!(branch_masks<<<1, 64>>>(&mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for t in (0..64).filter(|t| t % 32 < 28) {
            let want = if t % 32 < 10 { 0x0000_03ff } else { 0x0fff_fc00 };
            assert_eq!(out[t], want, "thread {t} {config:?}");
        }
    });
}

/// After a shuffle, each lane takes a ticket from a shared counter: the tickets show the order
/// the lanes were resumed in.
#[kernel]
fn tickets_after_a_shuffle(out: &mut [u32]) {
    let counter = shared_array![u32; 1];
    let t = thread_idx().x as usize;
    if t == 0 {
        counter[0] = 0;
    }
    sync_threads();
    let v = shfl_sync(FULL_MASK, t as u32, 0);
    out[t] = counter.atomic_add(0, 1) + v;
}

#[test]
fn the_seed_orders_lanes_resumed_after_a_collective_and_replays() {
    let run = |config: Config| {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        with_config(config, || launch!(tickets_after_a_shuffle<<<1, 32>>>(&mut out))).unwrap();
        out.to_vec().unwrap()
    };
    let plain = run(Config::default());
    // Without a seed: lane 31 completes the shuffle and takes ticket 0; the others resume in
    // lane order.
    assert_eq!(plain[31], 0);
    assert_eq!(&plain[..31], &(1..32).collect::<Vec<u32>>()[..]);
    let orders: Vec<Vec<u32>> = [1u64, 2, 3].iter().map(|&s| run(Config::default().seed(s))).collect();
    for (s, o) in [1u64, 2, 3].iter().zip(&orders) {
        let mut sorted = o.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..32).collect::<Vec<u32>>(), "seed {s}: every ticket once");
        assert_eq!(&run(Config::default().seed(*s)), o, "seed {s} replays");
    }
    // The lane that completed the shuffle takes ticket 0; without the seed's shuffle of the
    // resumed lanes, the others would take theirs in lane order.
    let in_lane_order = |o: &Vec<u32>| o.iter().filter(|&&x| x != 0).is_sorted();
    assert!(in_lane_order(&plain));
    assert!(!orders.iter().all(in_lane_order), "no seed changed the order lanes resume in");
}
