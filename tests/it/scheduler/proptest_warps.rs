//! Property test: warp collectives against a sequential model of one warp, for random block
//! sizes (partial last warps included), random sets of lanes that exit first, random values,
//! predicates and shuffle arguments, and random thread schedules (`seed`).
//!
//! Each live lane records a ballot, `all`/`any`, and one shuffle of each mode. The model
//! computes what PTX defines: exited and missing lanes do not vote, a shuffle's lane argument
//! counts modulo 32, and a source outside the warp gives the lane its own value. A shuffle
//! whose source is a lane that exited or is missing is undefined in CUDA: the H200 returns 0
//! (RESULTS.md probe 1), and the emulator returns 0 and reports it, so the model expects 0
//! and a failed launch (719) exactly when some live lane reads such a source.

use deviceemu::prelude::*;
use deviceemu::testing::Model;
use proptest::prelude::*;

/// Outputs per thread.
const OUT: usize = 7;

/// Lanes with `gone[t] != 0` return at once; the others run every collective.
#[kernel]
fn collectives(gone: &[u32], values: &[u32], args: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if gone[t] != 0 {
        return;
    }
    let v = values[t];
    let a = args[t];
    let p = v % 3 == 0;
    out[t * OUT] = ballot_sync(FULL_MASK, p);
    out[t * OUT + 1] = all_sync(FULL_MASK, p) as u32 | (any_sync(FULL_MASK, p) as u32) << 1;
    out[t * OUT + 2] = shfl_sync(FULL_MASK, v, a);
    out[t * OUT + 3] = shfl_up_sync(FULL_MASK, v, a);
    out[t * OUT + 4] = shfl_down_sync(FULL_MASK, v, a);
    out[t * OUT + 5] = shfl_xor_sync(FULL_MASK, v, a);
    out[t * OUT + 6] = active_mask();
}

/// What lane `t` must record, and whether it reads from a lane that takes no part.
fn model(t: usize, n: usize, gone: &[u32], values: &[u32], args: &[u32]) -> ([u32; OUT], bool) {
    let base = t - t % 32;
    let live = |l: usize| base + l < n && gone[base + l] == 0;
    let lanes: Vec<usize> = (0..32).filter(|&l| live(l)).collect();
    let p = |l: usize| values[base + l] % 3 == 0;
    let ballot = lanes.iter().filter(|&&l| p(l)).fold(0u32, |m, &l| m | 1 << l);
    let all = lanes.iter().all(|&l| p(l));
    let any = lanes.iter().any(|&l| p(l));
    let lane = t % 32;
    let (v, b) = (values[t], (args[t] & 31) as usize);
    let bad = std::cell::Cell::new(false);
    let read = |src: Option<usize>| match src {
        None => v,
        Some(j) if live(j) => values[base + j],
        // An exited or missing source: 0, as on the H200, and reported.
        Some(_) => {
            bad.set(true);
            0
        }
    };
    let out = [
        ballot,
        all as u32 | (any as u32) << 1,
        read(Some(b)),
        read(lane.checked_sub(b)),
        read(Some(lane + b).filter(|&j| j < 32)),
        read(Some(lane ^ b)),
        lanes.iter().fold(0u32, |m, &l| m | 1 << l),
    ];
    (out, bad.get())
}

/// Each case runs under one of `deviceemu::testing`'s settings with warps of 32 (the model is
/// a 32-lane warp): block order, thread order, fibers or threads, every checker.
#[test]
fn collectives_match_the_warp_model() {
    let settings = Model::new().warp_size_32_only().cases(48).seeds(&[
        None,
        Some(1),
        Some(7),
        Some(42),
        Some(0xDEAD_BEEF),
        Some(u64::MAX),
    ]);
    let strategy = (1usize..=200, proptest::collection::vec((any::<u32>(), any::<u32>(), 0u32..8), 200));
    settings.proptest(strategy, |(n, raw)| {
        let values: Vec<u32> = raw[..n].iter().map(|r| r.0).collect();
        let args: Vec<u32> = raw[..n].iter().map(|r| if r.1 % 4 == 0 { r.1 } else { r.1 % 40 }).collect();
        // About one lane in eight exits first.
        let gone: Vec<u32> = raw[..n].iter().map(|r| (r.2 == 0) as u32).collect();
        let (gb, vb, ab) = (
            DeviceBuffer::from_slice(&gone).unwrap(),
            DeviceBuffer::from_slice(&values).unwrap(),
            DeviceBuffer::from_slice(&args).unwrap(),
        );
        let mut out = DeviceBuffer::<u32>::zeroed(n * OUT).unwrap();
        let r = deviceemu::quietly(|| launch!(collectives<<<1, n as u32>>>(&gb, &vb, &ab, &mut out)));
        let out = out.to_vec().unwrap();
        let mut bad = false;
        for t in (0..n).filter(|&t| gone[t] == 0) {
            let (want, b) = model(t, n, &gone, &values, &args);
            bad |= b;
            for (k, w) in want.into_iter().enumerate() {
                prop_assert_eq!(out[t * OUT + k], w, "thread {} output {}", t, k);
            }
        }
        match r {
            Ok(()) => prop_assert!(!bad, "a shuffle from a lane that takes no part was not reported"),
            Err(e) => {
                prop_assert!(bad, "unexpected report: {}", e);
                prop_assert_eq!(e.code(), 719);
                prop_assert!(e.to_string().contains("which take no part in the shuffle"), "{}", e);
            }
        }
        Ok(())
    });
}
