//! Cooperative groups (`deviceemu::cg`): the thread block, tiles of 1 to 32 threads, coalesced
//! groups and their partitions, `cg::reduce` and the scans, each against a CPU reference at
//! warp size 32 (and 1 where it means something); and their misuse (a tile collective with a
//! lane missing, tiles that disagree), reported.

use crate::common;

use crate::common::{assert_has, marked_line, model};
use deviceemu::prelude::*;
use deviceemu::{cg, quietly, with_config, Config};

const SRC: &str = include_str!("cg.rs");

fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

// ---- the thread block ----

/// Each thread records its block facts, then the block sums its ranks through shared memory
/// with `block.sync()`.
#[kernel]
fn block_facts(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let s = shared_array![u32; 64];
    let r = b.thread_rank();
    s[r as usize] = r;
    b.sync();
    let mut sum = 0;
    let mut k = 0;
    while k < b.size() {
        sum += s[k as usize];
        k += 1;
    }
    let g = b.group_index();
    let t = b.thread_index();
    let base = (g.x * b.size() + r) as usize * 6;
    out[base] = r;
    out[base + 1] = b.size();
    out[base + 2] = g.x;
    out[base + 3] = t.x + 10 * t.y + 100 * t.z;
    out[base + 4] = sum;
    out[base + 5] = b.num_threads() + b.dim_threads().y;
}

#[test]
fn the_thread_block_knows_its_ranks_and_syncs() {
    model().warp_sizes(&[32, 1]).check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(2 * 24 * 6).unwrap();
        with_config(config.clone(), || launch!(block_facts<<<2, (4, 3, 2)>>>(&mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for g in 0..2u32 {
            for r in 0..24u32 {
                let (x, y, z) = (r % 4, r / 4 % 3, r / 12);
                let base = (g * 24 + r) as usize * 6;
                assert_eq!(
                    &out[base..base + 6],
                    &[r, 24, g, x + 10 * y + 100 * z, 276, 27],
                    "block {g} rank {r} {config:?}"
                );
            }
        }
    });
}

// ---- tiles ----

/// Outputs per thread of `tiles`.
const TILE_OUT: usize = 17;

/// Every tile query and collective for one tile size.
fn tile_row<const N: u32>(v: u32, a: u32) -> [u32; TILE_OUT] {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<N>(&b);
    let p = v % 3 == 0;
    let f = v as f32 * 0.37 - 3.0;
    [
        t.thread_rank(),
        t.meta_group_rank(),
        t.meta_group_size(),
        t.size(),
        t.shfl(v, a),
        t.shfl_up(v, a),
        t.shfl_down(v, a),
        // A lane mask of N or more would read another tile's lanes (reported): stay inside.
        t.shfl_xor(v, a & (N - 1)),
        t.any(p) as u32 | (t.all(p) as u32) << 1,
        t.ballot(p),
        cg::reduce(&t, v, cg::plus()),
        cg::inclusive_scan(&t, v, cg::plus()),
        cg::exclusive_scan(&t, v, cg::plus()),
        cg::reduce(&t, f, cg::plus()).to_bits(),
        cg::inclusive_scan(&t, f, cg::plus()).to_bits(),
        cg::exclusive_scan(&t, f, cg::plus()).to_bits(),
        t.match_any(v % 4),
    ]
}

/// `tile_row` for the tile size `n`; `tile.sync()` first.
#[kernel]
fn tiles(n: u32, x: &[u32], a: u32, out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let row = match n {
        1 => tile_row::<1>(v, a),
        2 => tile_row::<2>(v, a),
        4 => tile_row::<4>(v, a),
        8 => tile_row::<8>(v, a),
        16 => tile_row::<16>(v, a),
        _ => tile_row::<32>(v, a),
    };
    for (k, r) in row.iter().enumerate() {
        out[t * TILE_OUT + k] = *r;
    }
}

/// What CUDA defines for one tile of `n` threads holding `vals`, at rank `r`, shuffle
/// argument `a`: the width rules of the shuffles, and for the floats the order of CUDA's headers (a `shfl_xor` butterfly for reduce, a
/// `shfl_up` ladder for the scans).
fn tile_reference(all: &[u32], t: usize, n: usize, a: usize) -> [u32; TILE_OUT] {
    let base = t / n * n;
    let vals = &all[base..base + n];
    let r = t - base;
    let v = vals[r];
    let p = |x: u32| x % 3 == 0;
    let xor_v = vals[r ^ (a % n)];
    let f: Vec<f32> = vals.iter().map(|&x| x as f32 * 0.37 - 3.0).collect();
    // Butterfly: every rank at once, offsets n/2 .. 1.
    let mut bf = f.clone();
    let mut m = n / 2;
    while m > 0 {
        let before = bf.clone();
        for (k, x) in bf.iter_mut().enumerate() {
            *x += before[k ^ m];
        }
        m /= 2;
    }
    // Ladder: offsets 1, 2, 4 ..; rank k adds rank k - m's value when k >= m.
    let mut ld = f.clone();
    let mut m = 1;
    while m < n {
        let before = ld.clone();
        for k in m..n {
            ld[k] = before[k] + before[k - m];
        }
        m *= 2;
    }
    let incl: u32 = vals[..=r].iter().fold(0u32, |s, &x| s.wrapping_add(x));
    [
        r as u32,
        (t / n) as u32,
        (64 / n) as u32,
        n as u32,
        vals[a % n],
        if r < a { v } else { vals[r - a] },
        if r + a >= n { v } else { vals[r + a] },
        xor_v,
        vals.iter().any(|&x| p(x)) as u32 | (vals.iter().all(|&x| p(x)) as u32) << 1,
        vals.iter().enumerate().filter(|(_, &x)| p(x)).fold(0, |m, (k, _)| m | 1 << k),
        vals.iter().fold(0u32, |s, &x| s.wrapping_add(x)),
        incl,
        incl.wrapping_sub(v),
        bf[r].to_bits(),
        ld[r].to_bits(),
        if r == 0 { 0 } else { ld[r - 1].to_bits() },
        vals.iter().enumerate().filter(|(_, &x)| x % 4 == v % 4).fold(0, |m, (k, _)| m | 1 << k),
    ]
}

#[test]
fn tiles_of_every_size_match_the_cpu() {
    let x: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().fibers_only().check_with(|config| {
        for n in [1usize, 2, 4, 8, 16, 32] {
            for a in [0usize, 1, 3, 5] {
                let mut out = DeviceBuffer::<u32>::zeroed(64 * TILE_OUT).unwrap();
                with_config(config.clone(), || launch!(tiles<<<1, 64>>>(n as u32, &xb, a as u32, &mut out)))
                    .unwrap_or_else(|e| panic!("tile {n} arg {a} {config:?}: {e}"));
                let out = out.to_vec().unwrap();
                for t in 0..64 {
                    let want = tile_reference(&x, t, n, a);
                    assert_eq!(&out[t * TILE_OUT..(t + 1) * TILE_OUT], &want, "tile {n} arg {a} thread {t} {config:?}");
                }
            }
        }
    });
}

#[test]
fn tiles_of_one_thread_work_with_warps_of_one() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let x: Vec<u32> = (0..8u32).map(|i| i * 7 + 1).collect();
        let xb = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(8 * TILE_OUT).unwrap();
        with_config(Config::default().warp_size(1), || launch!(tiles<<<1, 8>>>(1, &xb, 0, &mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for t in 0..8 {
            let mut want = tile_reference(&x, t, 1, 0);
            want[2] = 8; // meta_group_size: 8 tiles in a block of 8
            assert_eq!(&out[t * TILE_OUT..(t + 1) * TILE_OUT], &want, "thread {t}");
        }
    })
}

#[test]
fn a_tile_larger_than_a_one_lane_warp_is_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let x = DeviceBuffer::from_slice(&[1u32; 8]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(8 * TILE_OUT).unwrap();
        let err =
            quietly(|| with_config(Config::default().warp_size(1), || launch!(tiles<<<1, 8>>>(4, &x, 0, &mut out))))
                .unwrap_err();
        assert_has(
            &err.to_string(),
            "cg::tiled_partition::<4> needs warps of at least 4 threads: it cannot run with EMU_WARP_SIZE=1",
        );
    })
}

/// The other operations: less, greater and the bit operations on `i32`, with tiles of 32
/// (one `redux.sync` each on the GPU) and of 8 (a butterfly); scans with `bit_or` and `less`
/// (the exclusive form shifts up and gives rank 0 a 0), and a user operation.
#[kernel]
fn tile_ops(x: &[i32], out: &mut [i32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let b = cg::this_thread_block();
    let w = cg::tiled_partition::<32>(&b);
    let e = cg::tiled_partition::<8>(&b);
    let row = [
        cg::reduce(&w, v, cg::less()),
        cg::reduce(&w, v, cg::greater()),
        cg::reduce(&w, v, cg::bit_and()),
        cg::reduce(&w, v, cg::bit_or()),
        cg::reduce(&w, v, cg::bit_xor()),
        cg::reduce(&e, v, cg::less()),
        cg::reduce(&e, v, cg::greater()),
        cg::reduce(&e, v, cg::bit_xor()),
        cg::inclusive_scan(&w, v, cg::bit_or()),
        cg::exclusive_scan(&w, v, cg::bit_or()),
        cg::exclusive_scan(&e, v, cg::less()),
        cg::reduce(&e, v, cg::op(|a: i32, b: i32| a.wrapping_mul(3) ^ b)),
    ];
    for (k, r) in row.iter().enumerate() {
        out[t * 12 + k] = *r;
    }
}

#[test]
fn reduce_and_scan_operations_match_the_cpu() {
    let x: Vec<i32> = (0..64).map(|i: i32| (i * 7919 % 1013) - 506).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().fibers_only().check_with(|config| {
        let mut out = DeviceBuffer::<i32>::zeroed(64 * 12).unwrap();
        with_config(config.clone(), || launch!(tile_ops<<<1, 64>>>(&xb, &mut out))).unwrap();
        let out = out.to_vec().unwrap();
        for t in 0..64 {
            let w = &x[t / 32 * 32..t / 32 * 32 + 32];
            let e = &x[t / 8 * 8..t / 8 * 8 + 8];
            let (rw, re) = (t % 32, t % 8);
            // The user operation is not commutative: the butterfly's order matters.
            let mut bf = e.to_vec();
            for m in [4, 2, 1] {
                let before = bf.clone();
                for (k, y) in bf.iter_mut().enumerate() {
                    *y = y.wrapping_mul(3) ^ before[k ^ m];
                }
            }
            let want = [
                *w.iter().min().unwrap(),
                *w.iter().max().unwrap(),
                w.iter().fold(-1, |a, &y| a & y),
                w.iter().fold(0, |a, &y| a | y),
                w.iter().fold(0, |a, &y| a ^ y),
                *e.iter().min().unwrap(),
                *e.iter().max().unwrap(),
                e.iter().fold(0, |a, &y| a ^ y),
                w[..=rw].iter().fold(0, |a, &y| a | y),
                w[..rw].iter().fold(0, |a, &y| a | y),
                if re == 0 { 0 } else { *e[..re].iter().min().unwrap() },
                bf[re],
            ];
            assert_eq!(&out[t * 12..t * 12 + 12], &want, "thread {t} {config:?}");
        }
    });
}

// ---- coalesced groups and partitions ----

/// Lanes whose index is a multiple of 3 form a coalesced group (11 lanes, not a power of two,
/// not contiguous); every lane of the warp then splits it by label and by predicate.
#[kernel]
fn coalesced(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let lane = lane_id();
    if lane % 3 == 0 {
        let g = cg::coalesced_threads();
        let f = v as f32 * 0.37 - 3.0;
        let add = cg::op(|a: f32, b: f32| a + b);
        out[t * 12] = g.size();
        out[t * 12 + 1] = g.thread_rank();
        out[t * 12 + 2] = g.shfl(v, 2);
        out[t * 12 + 3] = g.shfl_down(v, 1);
        out[t * 12 + 4] = g.shfl_up(v, 2);
        out[t * 12 + 5] = g.ballot(v % 2 == 0);
        out[t * 12 + 6] = cg::reduce(&g, v, cg::plus());
        out[t * 12 + 7] = cg::reduce(&g, f, add).to_bits();
        out[t * 12 + 8] = cg::inclusive_scan(&g, f, add).to_bits();
        out[t * 12 + 9] = cg::exclusive_scan(&g, v, cg::plus());
    }
    let b = cg::this_thread_block();
    let w = cg::tiled_partition::<32>(&b);
    let by_label = cg::labeled_partition(&w, lane % 4);
    let by_pred = cg::binary_partition(&w, lane < 10);
    out[t * 12 + 10] = by_label.mask() | cg::reduce(&by_label, lane, cg::plus()) << 24;
    out[t * 12 + 11] = by_pred.mask() ^ by_pred.thread_rank() << 27;
}

#[test]
fn coalesced_groups_and_partitions_match_the_cpu() {
    let x: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2_654_435_761) >> 9).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    model().fibers_only().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64 * 12).unwrap();
        with_config(config.clone(), || launch!(coalesced<<<1, 64>>>(&xb, &mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let out = out.to_vec().unwrap();
        for t in 0..64 {
            let (base, lane) = (t / 32 * 32, t % 32);
            if lane % 3 == 0 {
                let lanes: Vec<usize> = (0..32).filter(|l| l % 3 == 0).collect();
                let vals: Vec<u32> = lanes.iter().map(|&l| x[base + l]).collect();
                let n = vals.len();
                let r = lane / 3;
                let f: Vec<f32> = vals.iter().map(|&v| v as f32 * 0.37 - 3.0).collect();
                // CUDA's non-contiguous ladder: rank k adds rank k - i at steps i = 1, 2, 4, 8.
                let mut ld = f.clone();
                let mut i = 1;
                while i < n {
                    let before = ld.clone();
                    for k in i..n {
                        ld[k] = before[k] + before[k - i];
                    }
                    i *= 2;
                }
                let incl: u32 = vals[..=r].iter().fold(0u32, |s, &v| s.wrapping_add(v));
                let want = [
                    n as u32,
                    r as u32,
                    vals[2],
                    if r + 1 < n { vals[r + 1] } else { vals[r] },
                    if r >= 2 { vals[r - 2] } else { vals[r] },
                    vals.iter().enumerate().filter(|(_, &v)| v % 2 == 0).fold(0, |m, (k, _)| m | 1 << k),
                    vals.iter().fold(0u32, |s, &v| s.wrapping_add(v)),
                    ld[n - 1].to_bits(),
                    ld[r].to_bits(),
                    incl.wrapping_sub(vals[r]),
                ];
                assert_eq!(&out[t * 12..t * 12 + 10], &want, "thread {t} {config:?}");
            }
            let label_mask: u32 = (0..32).filter(|l| l % 4 == lane % 4).fold(0, |m, l| m | 1 << l);
            let label_sum: u32 = (0..32u32).filter(|l| l % 4 == lane as u32 % 4).sum();
            assert_eq!(out[t * 12 + 10], label_mask | label_sum << 24, "thread {t} {config:?}");
            let pred_mask: u32 = if lane < 10 { 0x3ff } else { !0x3ff };
            let pred_rank = if lane < 10 { lane } else { lane - 10 } as u32;
            assert_eq!(out[t * 12 + 11], pred_mask ^ pred_rank << 27, "thread {t} {config:?}");
        }
    });
}

// ---- misuse ----

/// Rank 5 of each tile of 16 skips the tile's shuffle and runs on to the end of the kernel.
#[kernel]
fn tile_lane_missing(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let b = cg::this_thread_block();
    let tile = cg::tiled_partition::<16>(&b);
    let mut v = t as u32;
    if tile.thread_rank() != 5 {
        v = tile.shfl_down(v, 1); // @missing-shfl
    }
    out[t] = v;
} // @missing-end

#[test]
fn a_tile_collective_with_a_lane_missing_is_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        common::emulator_model().check_with(|config| {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            let err = quietly(|| with_config(config.clone(), || launch!(tile_lane_missing<<<1, 32>>>(&mut out))))
                .unwrap_err();
            assert_eq!(err.code(), 719);
            let text = err.to_string();
            let at = format!("tests/it/scheduler/cg.rs:{}", line_of("missing-shfl"));
            assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
            assert_has(&text, &format!("at tile_lane_missing in {at}"));
            assert_has(&text, "by thread (4,0,0) in block (0,0,0)");
            assert_has(&text, &format!("with mask 0x0000ffff at {at}"));
            assert_has(
                &text,
                &format!(
                    "thread (5,0,0) are named in the mask, skipped it and exited at tests/it/scheduler/cg.rs:{}:1",
                    line_of("missing-end")
                ),
            );
            assert_has(&text, "thread (4,0,0) read from lane 5 of the warp, which take no part");
            // The H200's values: rank 4 read the missing lane's 0; the others as defined.
            let out = out.to_vec().unwrap();
            for t in 0..32u32 {
                let r = t % 16;
                let want = match r {
                    5 => t,
                    4 => 0,
                    15 => t,
                    _ => t + 1,
                };
                assert_eq!(out[t as usize], want, "thread {t} {config:?}");
            }
        });
    })
}

/// Half of each tile of 8 votes while the other half syncs the tile: they never meet.
#[kernel]
fn tiles_disagree(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let tile = cg::this_thread_block().tiled_partition::<8>();
    if tile.thread_rank() < 4 {
        out[t] = tile.ballot(true);
    } else {
        tile.sync();
    }
}

#[test]
fn tile_collectives_that_cannot_meet_are_reported_not_hung() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        let err = common::on_new_thread_in_emulator(20, move || {
            quietly(|| launch!(tiles_disagree<<<1, 32>>>(&mut out))).unwrap_err()
        });
        assert_eq!(err.code(), 719);
        let text = err.to_string();
        assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
        assert_has(&text, "wait in ballot_sync with mask 0x000000ff");
        assert_has(&text, "wait in sync_warp with mask 0x000000ff");
        assert_has(&text, "the block cannot continue");
    })
}

/// A correct tile kernel with `block.sync()` between tile steps gives no report under every
/// checker.
#[kernel]
fn tile_block_sum(x: &[f32], out: &mut [f32]) {
    let s = shared_array![f32; 8];
    let b = cg::this_thread_block();
    let tile = cg::tiled_partition::<32>(&b);
    let i = (b.group_index().x * b.size() + b.thread_rank()) as usize;
    let v = cg::reduce(&tile, if i < x.len() { x[i] } else { 0.0 }, cg::plus());
    if tile.thread_rank() == 0 {
        s[tile.meta_group_rank() as usize] = v;
    }
    b.sync();
    if tile.meta_group_rank() == 0 {
        let w = if tile.thread_rank() < tile.meta_group_size() { s[tile.thread_rank() as usize] } else { 0.0 };
        let total = cg::reduce(&tile, w, cg::plus());
        if b.thread_rank() == 0 {
            out[b.group_index().x as usize] = total;
        }
    }
}

#[test]
fn a_correct_tile_reduction_is_clean_and_matches_the_butterfly() {
    let x: Vec<f32> = (0..1000).map(|i| ((i * 37 % 101) as f32) * 0.173 - 4.0).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    let butterfly = |mut v: Vec<f32>| {
        for m in [16, 8, 4, 2, 1] {
            let before = v.clone();
            for (k, y) in v.iter_mut().enumerate() {
                *y += before[k ^ m];
            }
        }
        v[0]
    };
    model().check_with(|config| {
        let mut out = DeviceBuffer::<f32>::zeroed(4).unwrap();
        with_config(config.clone(), || launch!(tile_block_sum<<<4, 256>>>(&xb, &mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let got = out.to_vec().unwrap();
        for (blk, g) in got.iter().enumerate() {
            let sums: Vec<f32> = (0..8)
                .map(|w| butterfly((0..32).map(|l| x.get(blk * 256 + w * 32 + l).copied().unwrap_or(0.0)).collect()))
                .collect();
            let want = butterfly((0..32).map(|l| if l < 8 { sums[l] } else { 0.0 }).collect());
            assert_eq!(g.to_bits(), want.to_bits(), "block {blk} {config:?}");
        }
    });
}
