//! Warp collectives: `shfl*_sync`, the votes, `sync_warp`, `lane_id`/`warp_size`/`active_mask`,
//! under warp sizes 32 and 1 and several schedules; and their misuse (a collective that can
//! never complete, a mask without the calling lane), reported and never hung, with no report
//! for correct kernels.

use crate::common;
#[path = "../../../examples/warps.rs"]
#[allow(dead_code)]
mod warps_example;

use crate::common::{assert_has, model, on_new_thread};
use deviceemu::prelude::*;
use deviceemu::{quietly, with_config, Config};

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
    // The buffer is made in each run: runs with warps of one lane stay in the emulator.
    model().warp_sizes(&[32, 1]).check_with(|config| {
        let xb = DeviceBuffer::from_slice(&x).unwrap();
        let ws = config.get_warp_size() as usize;
        let mut sums = DeviceBuffer::<f32>::zeroed(threads / ws).unwrap();
        launch!(warp_sums<<<4, 256>>>(&xb, &mut sums)).unwrap();
        let got = sums.to_vec().unwrap();
        let want = warp_sums_reference(&x, threads, ws);
        assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{config:?}"
        );
    });
}

#[test]
fn the_warps_example_block_sums_match_its_reference_for_both_warp_sizes() {
    // The example's block reduction (shuffle tree per warp, then over the warp sums), with a
    // partial last block.
    let x: Vec<f32> = (0..5000).map(|i| ((i * 7919 % 1013) as f32) * 0.01 - 5.0).collect();
    let blocks = x.len().div_ceil(256);
    model().warp_sizes(&[32, 1]).fibers_only().check_with(|config| {
        let xb = DeviceBuffer::from_slice(&x).unwrap();
        let ws = config.get_warp_size();
        let mut partial = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
        launch!(warps_example::warp_block_sum<<<blocks as u32, 256>>>(&xb, &mut partial)).unwrap();
        let got: Vec<u32> = partial.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
        let want: Vec<u32> =
            warps_example::block_sums_reference(&x, blocks, ws as usize).iter().map(|v| v.to_bits()).collect();
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
fn rotate_types(
    a: &[u64],
    out64: &mut [u64],
    out32: &mut [u32],
    outf: &mut [f64],
    outi: &mut [i64],
    outs: &mut [f32],
    outj: &mut [i32],
) {
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
    let a: Vec<u64> =
        (0..64u64).map(|i| if i < 4 { specials[i as usize] } else { i.wrapping_mul(0x9E37_79B9_7F4A_7C15) }).collect();
    let ab = DeviceBuffer::from_slice(&a).unwrap();
    let (mut o64, mut o32) = (DeviceBuffer::<u64>::zeroed(64).unwrap(), DeviceBuffer::<u32>::zeroed(64).unwrap());
    let (mut of, mut oi) = (DeviceBuffer::<f64>::zeroed(64).unwrap(), DeviceBuffer::<i64>::zeroed(64).unwrap());
    let (mut os, mut oj) = (DeviceBuffer::<f32>::zeroed(64).unwrap(), DeviceBuffer::<i32>::zeroed(64).unwrap());
    launch!(rotate_types<<<1, 64>>>(&ab, &mut o64, &mut o32, &mut of, &mut oi, &mut os, &mut oj)).unwrap();
    let src = |t: usize| (t / 32) * 32 + (t % 32 + 1) % 32;
    let (o64, o32, of, oi, os, oj) = (
        o64.to_vec().unwrap(),
        o32.to_vec().unwrap(),
        of.to_vec().unwrap(),
        oi.to_vec().unwrap(),
        os.to_vec().unwrap(),
        oj.to_vec().unwrap(),
    );
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        common::emulator_model().check_with(|config| {
            for cut in [1u32, 5, 20, 31] {
                let mut out = DeviceBuffer::<u32>::zeroed(64 * 3).unwrap();
                let r = quietly(|| with_config(config.clone(), || launch!(vote_after_exits<<<1, 64>>>(cut, &mut out))));
                // When cut is odd, the last live lane shuffles from lane `cut`, which exited: it
                // gets 0 (what the H200 returns) and that is reported; the rest is legal.
                if cut % 2 == 1 {
                    let text = r.unwrap_err().to_string();
                    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
                    assert_has(
                        &text,
                        &format!("thread ({},0,0) read from lane {cut} of the warp, which take no part", cut - 1),
                    );
                    assert_has(&text, &format!("by thread ({},0,0) in block (0,0,0)", cut - 1));
                } else {
                    r.unwrap();
                }
                let out = out.to_vec().unwrap();
                let live = (1u32 << cut) - 1;
                for t in (0..64).filter(|t| (t % 32) < cut as usize) {
                    let lane = (t % 32) as u32;
                    assert_eq!(out[t * 3], live, "cut {cut} thread {t} {config:?}");
                    assert_eq!(out[t * 3 + 1], live, "cut {cut} thread {t} {config:?}");
                    let want = if (lane ^ 1) < cut { lane ^ 1 } else { 0 };
                    assert_eq!(out[t * 3 + 2], want, "cut {cut} thread {t} {config:?}");
                }
            }
        });
    })
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
    let want: Vec<u32> = x
        .iter()
        .scan(0, |s, &v| {
            *s += v;
            Some(*s)
        })
        .collect();
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        // Each thread is a warp of its own: lane 0, a one-bit active mask and ballot, and every
        // shuffle returns the thread's own value.
        let mut out = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
        with_config(Config::default().warp_size(1), || launch!(lane_facts<<<1, 48>>>(&mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for t in 0..48 {
            assert_eq!(&out[t * 5..t * 5 + 5], &[0, 1, 1, (t % 2 == 0) as u32, t as u32], "thread {t}");
        }
    })
}

#[test]
fn warp_size_32_lanes_and_partial_warps() {
    let mut out = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
    launch!(lane_facts<<<1, 48>>>(&mut out)).unwrap();
    let out = out.to_vec().unwrap();
    for t in 0..48 {
        let (lanes, base) = if t < 32 { (32, 0) } else { (16, 32) };
        let existing = if lanes == 32 { u32::MAX } else { 0xffff };
        assert_eq!(
            &out[t * 5..t * 5 + 5],
            &[(t % 32) as u32, 32, existing, 0x5555_5555 & existing, base as u32],
            "thread {t}"
        );
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let err = common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(half_warp_shuffles<<<2, 64>>>(&mut out)).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
        assert_has(&text, "at half_warp_shuffles in tests/it/scheduler/warps.rs:");
        assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
        assert_has(&text, "threads (0,0,0) to (15,0,0), (32,0,0) to (47,0,0) wait in shfl_sync with mask 0xffffffff at tests/it/scheduler/warps.rs:");
        assert_has(&text, "threads (16,0,0) to (31,0,0), (48,0,0) to (63,0,0) wait at the barrier");
        assert_has(&text, "wait at the barrier at tests/it/scheduler/warps.rs:");
        assert_has(&text, "ERROR SUMMARY: 2 errors");
    })
}

/// The two halves of each warp call different collectives with the same mask.
#[kernel]
fn mixed_collectives(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = if lane_id() < 16 { ballot_sync(FULL_MASK, true) } else { shfl_sync(FULL_MASK, 1u32, 0) };
}

#[test]
fn different_collectives_under_one_mask_are_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let err = common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(mixed_collectives<<<1, 32>>>(&mut out)).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Divergent thread(s) in warp");
        assert_has(&text, "threads (0,0,0) to (15,0,0) wait in ballot_sync with mask 0xffffffff");
        assert_has(&text, "threads (16,0,0) to (31,0,0) wait in shfl_sync with mask 0xffffffff");
    })
}

/// Every lane passes a mask that names lane 0 only.
#[kernel]
fn mask_without_caller(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = ballot_sync(1, true);
}

#[test]
fn a_mask_without_the_calling_lane_is_invalid() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let err = common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(mask_without_caller<<<1, 32>>>(&mut out)).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Barrier error detected. Invalid arguments");
        assert_has(&text, "ballot_sync was called with mask 0x00000001, which does not name the calling lane 1");
        assert_has(&text, "by thread (1,0,0) in block (0,0,0)");
        assert_has(&text, "at mask_without_caller in tests/it/scheduler/warps.rs:");
    })
}

#[test]
fn a_failed_launch_leaves_the_next_one_working() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            assert!(launch!(half_warp_shuffles<<<2, 64>>>(&mut out)).is_err());
            let mut facts = DeviceBuffer::<u32>::zeroed(48 * 5).unwrap();
            launch!(lane_facts<<<1, 48>>>(&mut facts)).unwrap();
            assert_eq!(facts.to_vec().unwrap()[3], 0x5555_5555);
        });
    })
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let err = common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(panic_while_lanes_wait<<<1, 32>>>(&mut out)).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Kernel panic: lane 20 gives up");
        assert_has(&text, "by thread (20,0,0) in block (0,0,0)");
        assert_has(&text, "ERROR SUMMARY: 1 error");
    })
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
            with_config(config.clone(), || launch!(exit_after_a_collective<<<1, 64>>>(&mut out)))
                .unwrap_or_else(|e| panic!("{config:?}: {e}"));
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
                with_config(config.clone(), || launch!(mixed_forms<<<1, 96>>>(&mut out)))
                    .unwrap_or_else(|e| panic!("{config:?}: {e}"));
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let err = common::on_new_thread_in_emulator(20, || {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(half_warp_shuffles_in_a_helper<<<1, 64>>>(&mut out)).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
        assert_has(&text, "threads (0,0,0) to (15,0,0), (32,0,0) to (47,0,0) wait in shfl_sync with mask 0xffffffff");
        assert_has(&text, "threads (16,0,0) to (31,0,0), (48,0,0) to (63,0,0) wait at the barrier");
        assert_has(&text, "ERROR SUMMARY: 1 error");
    })
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
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let run = |config: Config| {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            with_config(config, || launch!(tickets_after_a_shuffle<<<1, 32>>>(&mut out))).unwrap();
            out.to_vec().unwrap()
        };
        let plain = run(common::emulator());
        // Without a seed: lane 31 completes the shuffle and takes ticket 0; the others resume in
        // lane order.
        assert_eq!(plain[31], 0);
        assert_eq!(&plain[..31], &(1..32).collect::<Vec<u32>>()[..]);
        let orders: Vec<Vec<u32>> = [1u64, 2, 3].iter().map(|&s| run(common::emulator().seed(s))).collect();
        for (s, o) in [1u64, 2, 3].iter().zip(&orders) {
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..32).collect::<Vec<u32>>(), "seed {s}: every ticket once");
            assert_eq!(&run(common::emulator().seed(*s)), o, "seed {s} replays");
        }
        // The lane that completed the shuffle takes ticket 0; without the seed's shuffle of the
        // resumed lanes, the others would take theirs in lane order.
        let in_lane_order = |o: &Vec<u32>| o.iter().filter(|&&x| x != 0).is_sorted();
        assert!(in_lane_order(&plain));
        assert!(!orders.iter().all(in_lane_order), "no seed changed the order lanes resume in");
    })
}

// ---- the shuffles' width, the sm_80 reductions and the sm_70 matches (issue 15) ----

const SRC: &str = include_str!("warps.rs");

fn line_of(marker: &str) -> usize {
    common::marked_line(SRC, &format!("// @{marker}"))
}

/// Every lane shuffles `1000 + lane` with the full mask, in segments of `width` lanes.
#[kernel]
fn width_table(mode: u32, arg: u32, width: u32, out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = 1000 + lane_id();
    out[t] = match mode {
        0 => shfl_sync_width(FULL_MASK, v, arg, width),
        1 => shfl_up_sync_width(FULL_MASK, v, arg, width),
        2 => shfl_down_sync_width(FULL_MASK, v, arg, width),
        _ => shfl_xor_sync_width(FULL_MASK, v, arg, width),
    };
}

/// CUDA's definitions (programming guide, "Warp Shuffle Functions"), with the H200's answer
/// for xor into a lower segment (RESULTS.md probe 1: it is read).
fn width_reference(mode: u32, lane: u32, arg: u32, w: u32) -> u32 {
    let base = lane & !(w - 1);
    let src = match mode {
        0 => base + arg % w,
        1 if lane % w < arg => lane,
        1 => lane - arg,
        2 if lane % w + arg >= w => lane,
        2 => lane + arg,
        _ if (lane ^ arg) >= base + w => lane,
        _ => lane ^ arg,
    };
    1000 + src
}

#[test]
fn width_shuffles_match_cudas_definition_for_every_mode_and_width() {
    model().fibers_only().check_with(|config| {
        for mode in 0..4 {
            for width in [1u32, 2, 4, 8, 16, 32] {
                for arg in [0u32, 1, 3, 5, 8, 10, 16, 31] {
                    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
                    with_config(config.clone(), || launch!(width_table<<<1, 64>>>(mode, arg, width, &mut out)))
                        .unwrap();
                    let out = out.to_vec().unwrap();
                    for t in 0..64u32 {
                        let want = width_reference(mode, t % 32, arg, width);
                        assert_eq!(out[t as usize], want, "mode {mode} width {width} arg {arg} thread {t} {config:?}");
                    }
                }
            }
        }
    });
}

#[test]
fn width_shuffles_give_the_h200s_answers() {
    // Lines of RESULTS.md probe 1 (p1d), value 1000 + lane, all 32 lanes, full mask.
    let run = |mode: u32, arg: u32, width: u32| {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(width_table<<<1, 32>>>(mode, arg, width, &mut out)).unwrap();
        out.to_vec().unwrap()
    };
    let seq = |r: std::ops::RangeInclusive<u32>| r.collect::<Vec<u32>>();
    let rep = |v: u32, n: usize| vec![v; n];
    // idx(10) width=8: 1002 x8, 1010 x8, 1018 x8, 1026 x8
    assert_eq!(run(0, 10, 8), [rep(1002, 8), rep(1010, 8), rep(1018, 8), rep(1026, 8)].concat());
    // idx(10) width=16: 1010 x16, 1026 x16
    assert_eq!(run(0, 10, 16), [rep(1010, 16), rep(1026, 16)].concat());
    // xor(8) width=8: 1000 ... 1007 1000 ... 1007 1016 ... 1023 1016 ... 1023
    assert_eq!(run(3, 8, 8), [seq(1000..=1007), seq(1000..=1007), seq(1016..=1023), seq(1016..=1023)].concat());
    // xor(16) width=8: 1000 ... 1015 1000 ... 1015
    assert_eq!(run(3, 16, 8), [seq(1000..=1015), seq(1000..=1015)].concat());
    // down(4) width=16: 1004 ... 1015 1012 1013 1014 1015 1020 ... 1031 1028 1029 1030 1031
    assert_eq!(run(2, 4, 16), [seq(1004..=1015), seq(1012..=1015), seq(1020..=1031), seq(1028..=1031)].concat());
    // up(1) width=8: 1000 1000 1001 ... 1006 1008 1008 ...
    let up: Vec<u32> = (0..32).map(|l| if l % 8 == 0 { 1000 + l } else { 999 + l }).collect();
    assert_eq!(run(1, 1, 8), up);
}

#[test]
fn width_shuffles_at_warp_size_one_return_the_callers_value() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let config = Config::default().warp_size(1);
        for mode in 0..4 {
            let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
            with_config(config.clone(), || launch!(width_table<<<1, 8>>>(mode, 1, 8, &mut out))).unwrap();
            assert_eq!(out.to_vec().unwrap(), vec![1000; 8], "mode {mode}");
        }
    })
}

/// Lanes outside `mask` exit first (allowed); the others run every reduction.
#[kernel]
fn reductions(mask: u32, x: &[i32], out: &mut [i32]) {
    let t = thread_idx().x as usize;
    if mask & (1 << lane_id()) == 0 {
        return;
    }
    let v = x[t];
    let u = v as u32;
    out[t * 9] = reduce_add_sync(mask, v);
    out[t * 9 + 1] = reduce_min_sync(mask, v);
    out[t * 9 + 2] = reduce_max_sync(mask, v);
    out[t * 9 + 3] = reduce_add_sync(mask, u) as i32;
    out[t * 9 + 4] = reduce_min_sync(mask, u) as i32;
    out[t * 9 + 5] = reduce_max_sync(mask, u) as i32;
    out[t * 9 + 6] = reduce_and_sync(mask, u) as i32;
    out[t * 9 + 7] = reduce_or_sync(mask, u) as i32;
    out[t * 9 + 8] = helper_reduce_xor(mask, u) as i32;
}

/// A reduction in a helper: the blocking form.
#[device]
fn helper_reduce_xor(mask: u32, u: u32) -> u32 {
    reduce_xor_sync(mask, u)
}

#[test]
fn warp_reductions_match_the_cpu() {
    let x: Vec<i32> = (0..64).map(|i: i32| (i * 37 + 11) % 89 - 44).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().fibers_only().check_with(|config| {
        for mask in [FULL_MASK, 0x0000_ffff, 0x5555_5555, 0x8000_0001, 0x0000_0100] {
            let mut out = DeviceBuffer::<i32>::zeroed(64 * 9).unwrap();
            with_config(config.clone(), || launch!(reductions<<<1, 64>>>(mask, &xb, &mut out))).unwrap();
            let out = out.to_vec().unwrap();
            for w in 0..2 {
                let vs: Vec<i32> = (0..32).filter(|l| mask & (1 << l) != 0).map(|l| x[w * 32 + l]).collect();
                let us: Vec<u32> = vs.iter().map(|&v| v as u32).collect();
                let want = [
                    vs.iter().fold(0i32, |a, &v| a.wrapping_add(v)),
                    *vs.iter().min().unwrap(),
                    *vs.iter().max().unwrap(),
                    us.iter().fold(0u32, |a, &v| a.wrapping_add(v)) as i32,
                    *us.iter().min().unwrap() as i32,
                    *us.iter().max().unwrap() as i32,
                    us.iter().fold(!0u32, |a, &v| a & v) as i32,
                    us.iter().fold(0u32, |a, &v| a | v) as i32,
                    us.iter().fold(0u32, |a, &v| a ^ v) as i32,
                ];
                for l in (0..32).filter(|l| mask & (1 << l) != 0) {
                    let t = w * 32 + l;
                    assert_eq!(&out[t * 9..t * 9 + 9], &want, "mask {mask:#x} thread {t} {config:?}");
                }
            }
        }
    });
}

#[test]
fn warp_reductions_at_warp_size_one_are_the_lanes_value() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let x: Vec<i32> = (0..8).map(|i| i * 5 - 17).collect();
        let xb = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<i32>::zeroed(8 * 9).unwrap();
        with_config(Config::default().warp_size(1), || launch!(reductions<<<1, 8>>>(FULL_MASK, &xb, &mut out)))
            .unwrap();
        let out = out.to_vec().unwrap();
        for t in 0..8 {
            let v = x[t];
            assert_eq!(&out[t * 9..t * 9 + 9], &[v; 9], "thread {t}");
        }
    })
}

/// `match_any_sync` and `match_all_sync` on 32- and 64-bit values.
#[kernel]
fn matches(mask: u32, x: &[u64], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if mask & (1 << lane_id()) == 0 {
        return;
    }
    let v = x[t];
    out[t * 6] = match_any_sync(mask, v as u32);
    let (m, p) = match_all_sync(mask, v as u32);
    out[t * 6 + 1] = m;
    out[t * 6 + 2] = p as u32;
    out[t * 6 + 3] = match_any_sync(mask, v);
    let (m, p) = match_all_sync(mask, v as f64);
    out[t * 6 + 4] = m;
    out[t * 6 + 5] = p as u32;
}

#[test]
fn warp_matches_match_the_cpu() {
    let patterns: [Vec<u64>; 3] = [
        (0..64u64).map(|t| (t % 3) | (t % 2) << 32).collect(),
        vec![7; 64],
        (0..64u64).map(|t| if t % 32 == 5 { 1 << 40 } else { 0 }).collect(),
    ];
    model().fibers_only().check_with(|config| {
        for x in &patterns {
            let xb = DeviceBuffer::from_slice(x).unwrap();
            for mask in [FULL_MASK, 0x0000_ffff, 0xaaaa_aaaa] {
                let mut out = DeviceBuffer::<u32>::zeroed(64 * 6).unwrap();
                with_config(config.clone(), || launch!(matches<<<1, 64>>>(mask, &xb, &mut out))).unwrap();
                let out = out.to_vec().unwrap();
                for t in (0..64).filter(|t| mask & (1 << (t % 32)) != 0) {
                    let w = t / 32 * 32;
                    let lanes = || (0..32).filter(|l| mask & (1 << l) != 0);
                    let any32 = lanes().filter(|&l| x[w + l] as u32 == x[t] as u32).fold(0, |m, l| m | 1 << l);
                    let any64 = lanes().filter(|&l| x[w + l] == x[t]).fold(0, |m, l| m | 1 << l);
                    let all32 = lanes().all(|l| x[w + l] as u32 == x[t] as u32);
                    let all_f = lanes().all(|l| x[w + l] as f64 == x[t] as f64);
                    let want = [
                        any32,
                        if all32 { mask } else { 0 },
                        all32 as u32,
                        any64,
                        if all_f { mask } else { 0 },
                        all_f as u32,
                    ];
                    assert_eq!(&out[t * 6..t * 6 + 6], &want, "mask {mask:#x} thread {t} {x:?} {config:?}");
                }
            }
        }
    });
}

// ---- skipped collectives and shuffles from lanes that take no part (issue 12) ----

/// RESULTS.md probe 3, mode 1: lanes 0-15 call a full-mask `shfl_down_sync`; lanes 16-31,
/// named in the mask, write -2 and run on to the end of the kernel.
#[kernel]
fn skipped_shuffle(out: &mut [i32]) {
    let t = thread_idx().x as usize;
    let v = 1000 + t as i32;
    if lane_id() < 16 {
        out[t] = shfl_down_sync(FULL_MASK, v, 1); // @skip-shfl
    } else {
        out[t] = -2;
    }
} // @skip-end

#[test]
fn lanes_that_skip_a_collective_and_run_on_are_reported_and_get_the_h200s_values() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        common::emulator_model().check_with(|config| {
            let mut out = DeviceBuffer::<i32>::zeroed(64).unwrap();
            let err = quietly(|| with_config(config.clone(), || launch!(skipped_shuffle<<<1, 64>>>(&mut out)))).unwrap_err();
            assert_eq!(err.code(), 719);
            let text = err.to_string();
            let shfl = format!("tests/it/scheduler/warps.rs:{}", line_of("skip-shfl"));
            assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
            assert_has(&text, &format!("at skipped_shuffle in {shfl}"));
            assert_has(&text, "by thread (15,0,0) in block (0,0,0)");
            assert_has(&text, &format!("threads (0,0,0) to (15,0,0) take part in shfl_down_sync with mask 0xffffffff at {shfl}"));
            assert_has(
                &text,
                &format!(
                    "threads (16,0,0) to (31,0,0) are named in the mask, skipped it and exited at tests/it/scheduler/warps.rs:{}:1",
                    line_of("skip-end")
                ),
            );
            assert_has(&text, "thread (15,0,0) read from lane 16 of the warp, which take no part in the shuffle");
            assert_has(&text, "ERROR SUMMARY: 1 error");
            // The H200's values: 1001 .. 1015, then 0 (lane 15 read exited lane 16), then -2.
            let out = out.to_vec().unwrap();
            for w in 0..2 {
                for l in 0..32 {
                    let t = w * 32 + l;
                    let want = if l < 15 {
                        1001 + t as i32
                    } else if l == 15 {
                        0
                    } else {
                        -2
                    };
                    assert_eq!(out[t], want, "thread {t} {config:?}");
                }
            }
        });
    })
}

/// Lanes past `n` exit before a full-mask butterfly that stays among the live lanes, and a
/// half-warp shuffle with width 16 stays in its segment: both are correct CUDA.
#[kernel]
fn early_exits_then_shuffles(n: u32, out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if lane_id() >= n {
        return;
    }
    let a = shfl_xor_sync(FULL_MASK, t as u32, 1);
    let b = shfl_down_sync_width(0xffff, t as u32, 1, 16);
    out[t] = a * 1000 + b;
}

#[test]
fn lanes_that_exit_before_a_collective_are_not_reported() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        with_config(config.clone(), || launch!(early_exits_then_shuffles<<<1, 64>>>(16, &mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let out = out.to_vec().unwrap();
        for t in (0..64u32).filter(|t| t % 32 < 16) {
            let b = if t % 32 == 15 { t } else { t + 1 };
            assert_eq!(out[t as usize], (t ^ 1) * 1000 + b, "thread {t} {config:?}");
        }
    });
}

/// RESULTS.md probe 1 (p1a): `shfl_down_sync(0xff, 1000 + lane, 16)` in a block of 8 threads.
#[kernel]
fn down16_in_a_block_of_8(out: &mut [u32]) {
    out[thread_idx().x as usize] = shfl_down_sync(0xff, 1000 + lane_id(), 16);
}

#[test]
fn a_shuffle_from_an_absent_lane_gives_0_and_is_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(8).unwrap();
        let err = quietly(|| launch!(down16_in_a_block_of_8<<<1, 8>>>(&mut out))).unwrap_err();
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Divergent thread(s) in warp");
        assert_has(&text, "threads (0,0,0) to (7,0,0) read from lanes 16 to 23 of the warp, which take no part");
        assert_has(&text, "ERROR SUMMARY: 1 error");
        assert_eq!(out.to_vec().unwrap(), vec![0; 8]);
    })
}

/// NVIDIA's reduce7 (cuda-samples reduction_kernel.cu, nIsPow2, one element pair per thread
/// per grid stride): the second warp reduction passes `ballot_result` (lanes 0..warps-1) as
/// its mask and shuffles down from lanes outside it. With `fixed`, lanes 0-31 take part with
/// the full mask and lanes past the warp count hold 0 (correct CUDA).
#[kernel]
fn reduce7(input: &[u32], out: &mut [u32], fixed: bool) {
    let sdata = shared_array![u32; 32];
    let tid = thread_idx().x;
    let bs = block_dim().x;
    let grid = bs * 2 * grid_dim().x;
    let n = input.len() as u32;
    let mut i = block_idx().x * bs * 2 + tid;
    let mut sum = 0u32;
    while i < n {
        sum += input[i as usize];
        if i + bs < n {
            sum += input[(i + bs) as usize];
        }
        i += grid;
    }
    let mut offset = 16;
    while offset > 0 {
        sum += shfl_down_sync(FULL_MASK, sum, offset);
        offset /= 2;
    }
    if tid % 32 == 0 {
        sdata[(tid / 32) as usize] = sum;
    }
    sync_threads();
    let warps = bs / 32;
    let ballot = ballot_sync(FULL_MASK, tid < warps);
    if fixed {
        if tid < 32 {
            sum = if tid < warps { sdata[tid as usize] } else { 0 };
            let mut offset = 16;
            while offset > 0 {
                sum += shfl_down_sync(FULL_MASK, sum, offset);
                offset /= 2;
            }
        }
    } else if tid < warps {
        sum = sdata[tid as usize];
        let mut offset = 16;
        while offset > 0 {
            sum += shfl_down_sync(ballot, sum, offset); // @reduce7-second
            offset /= 2;
        }
    }
    if tid == 0 {
        out[block_idx().x as usize] = sum;
    }
}

#[test]
fn reduce7_reads_lanes_outside_its_mask_is_reported_and_sums_right_as_on_the_h200() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let n = 1 << 14;
        let x: Vec<u32> = (0..n).map(|i| (i * 7 + 3) % 13).collect();
        let want: u32 = x.iter().sum();
        let xb = DeviceBuffer::from_slice(&x).unwrap();
        common::emulator_model().fibers_only().check_with(|config| {
            for bs in [64u32, 256] {
                for fixed in [false, true] {
                    let blocks = 8;
                    let mut out = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
                    let r = quietly(|| with_config(config.clone(), || launch!(reduce7<<<blocks as u32, bs>>>(&xb, &mut out, fixed))));
                    let got: u32 = out.to_vec().unwrap().iter().sum();
                    assert_eq!(got, want, "block {bs} fixed {fixed} {config:?}");
                    if fixed {
                        r.unwrap_or_else(|e| panic!("{config:?}: {e}"));
                    } else {
                        let text = r.unwrap_err().to_string();
                        let at = format!("tests/it/scheduler/warps.rs:{}", line_of("reduce7-second"));
                        assert_has(&text, &format!("at reduce7 in {at}"));
                        assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
                        assert_has(
                            &text,
                            "which take no part in the shuffle (exited, outside the mask or absent): they got 0, as on the H200",
                        );
                        assert_has(&text, &format!("ERROR SUMMARY: {blocks} errors"));
                    }
                }
            }
        });
    })
}
