//! Multi-warp tiles (`cg::tiled_partition::<64>` and up): their ranks, `shfl`, `any`, `all`,
//! `cg::reduce` and `sync` against a CPU reference; `sync` is a barrier of exactly the tile's
//! threads (another tile may be busy elsewhere); and their misuse (a thread that skips the
//! tile's sync, a warp that never arrives, a block that is not made of whole tiles), reported.

use crate::common;

use crate::common::{assert_has, emulator_model, in_emulator, marked_line, model};
use core::sync::atomic::Ordering::Relaxed;
use deviceemu::prelude::*;
use deviceemu::{cg, quietly, with_config, BlockOrder, Config};

const SRC: &str = include_str!("cg_multi_warp.rs");

fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

/// Outputs per thread of `big_tiles`.
const OUT: usize = 10;

/// Every multi-warp tile query and collective for one tile size; the tile's threads exchange
/// values through shared memory across `tile.sync()`.
#[device]
fn big_tile_row<const N: u32>(v: u32, a: u32, s: Shared<u32>) -> [u32; OUT] {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<N>(&b);
    let r = b.thread_rank();
    let f = v as f32 * 0.37 - 3.0;
    s[r as usize] = v;
    t.sync();
    // A thread of another warp of the same tile wrote this one.
    let base = r - t.thread_rank();
    let neighbour = s[(base + (t.thread_rank() + 37) % N) as usize];
    t.sync();
    [
        t.thread_rank(),
        t.meta_group_rank() | t.meta_group_size() << 8 | t.size() << 16,
        t.shfl(v, (a + t.meta_group_rank()) % N),
        t.any(v % 97 == a) as u32 | (t.all(v % 97 != a) as u32) << 1,
        t.all(v < 1000) as u32,
        cg::reduce(&t, v, cg::plus()),
        cg::reduce(&t, v, cg::greater()),
        cg::reduce(&t, f, cg::plus()).to_bits(),
        t.shfl(f64::from(f) * 3.0, N - 1 - a % N).to_bits() as u32,
        neighbour,
    ]
}

#[kernel]
fn big_tiles(n: u32, x: &[u32], a: u32, out: &mut [u32]) {
    let s = shared_array![u32; 1024]; // @shared
    let t = thread_idx().x as usize;
    let v = x[t];
    let row = match n {
        64 => big_tile_row::<64>(v, a, s),
        128 => big_tile_row::<128>(v, a, s),
        256 => big_tile_row::<256>(v, a, s),
        512 => big_tile_row::<512>(v, a, s),
        _ => big_tile_row::<1024>(v, a, s),
    };
    let mut k = 0;
    while k < OUT {
        out[t * OUT + k] = row[k];
        k += 1;
    }
}

/// CUDA's order for a float reduction over a multi-warp tile: a butterfly in each warp, then
/// a butterfly over the warps' results.
fn butterfly(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.len();
    let mut m = n / 2;
    while m > 0 {
        let before = v.clone();
        for (k, y) in v.iter_mut().enumerate() {
            *y += before[k ^ m];
        }
        m /= 2;
    }
    v
}

fn reference(x: &[u32], t: usize, n: usize, block: u32, a: u32) -> [u32; OUT] {
    let base = t / n * n;
    let tile = &x[base..base + n];
    let rank = t - base;
    let f = |v: u32| v as f32 * 0.37 - 3.0;
    let warps: Vec<f32> =
        (0..n / 32).map(|w| butterfly(tile[w * 32..w * 32 + 32].iter().map(|&v| f(v)).collect())[0]).collect();
    let fsum = butterfly(warps)[rank / 32];
    let meta = (t / n) as u32;
    [
        rank as u32,
        meta | (block / n as u32) << 8 | (n as u32) << 16,
        tile[((a + meta) % n as u32) as usize],
        tile.iter().any(|v| v % 97 == a) as u32 | (tile.iter().all(|v| v % 97 != a) as u32) << 1,
        tile.iter().all(|&v| v < 1000) as u32,
        tile.iter().fold(0u32, |s, &v| s.wrapping_add(v)),
        *tile.iter().max().unwrap(),
        fsum.to_bits(),
        (f64::from(f(tile[n - 1 - a as usize % n])) * 3.0).to_bits() as u32,
        tile[(rank + 37) % n],
    ]
}

/// Runs `big_tiles` for tiles of `n` in a block of `block` threads under `config`.
fn check_big_tiles(config: &Config, block: u32, n: u32, a: u32) {
    let x: Vec<u32> = (0..block).map(|i| (i * 7919 + 13) % 1009).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(block as usize * OUT).unwrap();
    with_config(config.clone(), || launch!(big_tiles<<<1, block>>>(n, &xb, a, &mut out)))
        .unwrap_or_else(|e| panic!("tile {n} arg {a} {config:?}: {e}"));
    let out = out.to_vec().unwrap();
    for t in 0..block as usize {
        let want = reference(&x, t, n as usize, block, a);
        assert_eq!(&out[t * OUT..(t + 1) * OUT], &want, "tile {n} arg {a} thread {t} {config:?}");
    }
}

#[test]
fn multi_warp_tiles_match_the_cpu() {
    for (n, a) in [(64u32, 0u32), (128, 96)] {
        model().check_with(|config| check_big_tiles(config, 128, n, a));
    }
}

#[test]
fn tiles_of_256_to_1024_threads_match_the_cpu() {
    check_big_tiles(&Config::default(), 256, 64, 5);
    check_big_tiles(&Config::default().checks(deviceemu::Checks::all()), 256, 256, 5);
    for n in [256u32, 512, 1024] {
        check_big_tiles(&Config::default(), 1024, n, 300);
    }
}

/// Tile 1 of 64 threads spins until tile 0 has passed its `sync()` twice: a tile's sync waits
/// for its own threads only (a block barrier here would never complete).
#[kernel]
fn tiles_are_independent(flag: &mut [u32], out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank() as usize;
    if t.meta_group_rank() == 1 {
        while flag.atomic_load(0, Relaxed) == 0 {}
    }
    t.sync();
    t.sync();
    if t.meta_group_rank() == 0 && t.thread_rank() == 0 {
        flag.atomic_store(0, 1, Relaxed);
    }
    out[r] = t.meta_group_rank() + 1;
}

#[test]
fn a_tile_sync_waits_for_its_own_threads_only() {
    model().check_with(|config| {
        let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        with_config(config.clone(), || launch!(tiles_are_independent<<<1, 128>>>(&mut flag, &mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        let out = out.to_vec().unwrap();
        assert!(out.iter().enumerate().all(|(t, &v)| v == t as u32 / 64 + 1), "{out:?} {config:?}");
    });
}

// ---- misuse ----

/// Thread 40 of the first tile of 64 skips the tile's sync and runs on to the end.
#[kernel]
fn sync_skipped(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank();
    if r != 40 {
        t.sync(); // @skipped-sync
    }
    out[r as usize] = r;
} // @skipped-end

#[test]
fn a_thread_that_skips_the_tile_sync_is_reported() {
    emulator_model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let err = quietly(|| with_config(config.clone(), || launch!(sync_skipped<<<1, 128>>>(&mut out)))).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        let at = format!("tests/it/scheduler/cg_multi_warp.rs:{}", line_of("skipped-sync"));
        assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
        assert_has(&text, &format!("at sync_skipped in {at}"));
        assert_has(&text, &format!("take part in thread_block_tile::sync with mask 0xffffffff at {at}"));
        assert_has(
            &text,
            &format!("thread (40,0,0) are named in the mask, skipped it and exited at tests/it/scheduler/cg_multi_warp.rs:{}:1", line_of("skipped-end")),
        );
    });
}

/// A correct kernel with the same shape (every thread syncs) is clean.
#[kernel]
fn sync_kept(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank();
    t.sync();
    out[r as usize] = r;
}

#[test]
fn a_tile_whose_threads_all_sync_is_clean() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        with_config(config.clone(), || launch!(sync_kept<<<1, 128>>>(&mut out)))
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.to_vec().unwrap(), (0..128).collect::<Vec<u32>>());
    });
}

/// The second warp of each tile of 64 returns before the tile's sync: its lane 0 never
/// arrives, so the first warp would wait for ever on the GPU.
#[kernel]
fn warp_never_arrives(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank();
    if t.thread_rank() >= 32 {
        return;
    }
    t.sync(); // @never-arrives
    out[r as usize] = r;
}

#[test]
fn a_warp_that_never_arrives_is_a_deadlock_report_not_a_hang() {
    let err = common::on_new_thread(20, move || {
        in_emulator(|| {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            quietly(|| launch!(warp_never_arrives<<<1, 64>>>(&mut out))).unwrap_err()
        })
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(
        &text,
        &format!(
            "wait in thread_block_tile::sync with mask 0xffffffff at tests/it/scheduler/cg_multi_warp.rs:{}",
            line_of("never-arrives")
        ),
    );
    assert_has(&text, "a warp whose lane 0 exited never arrives");
    assert_has(&text, "the block cannot continue");
}

#[test]
fn a_block_that_is_not_made_of_whole_tiles_is_reported() {
    let err = in_emulator(|| {
        let x = DeviceBuffer::from_slice(&[1u32; 96]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(96 * OUT).unwrap();
        quietly(|| launch!(big_tiles<<<1, 96>>>(64, &x, 0, &mut out))).unwrap_err()
    });
    assert_has(
        &err.to_string(),
        "cg::tiled_partition::<64> needs a block whose size is a multiple of 64 (this block has 96 threads)",
    );
}

#[test]
fn a_multi_warp_tile_needs_warps_of_32() {
    let err = with_config(common::emulator().warp_size(1), || {
        let x = DeviceBuffer::from_slice(&[1u32; 64]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(64 * OUT).unwrap();
        quietly(|| launch!(big_tiles<<<1, 64>>>(64, &x, 0, &mut out))).unwrap_err()
    });
    assert_has(
        &err.to_string(),
        "cg::tiled_partition::<64> needs warps of at least 32 threads: it cannot run with EMU_WARP_SIZE=1",
    );
}

/// Threads of one tile of 64 name different source ranks in `shfl`. A multi-warp tile's shfl
/// broadcasts one value in CUDA (one slot per warp), so this kernel hangs or reads wrong values
/// on the GPU; the emulator reports it.
#[kernel]
fn varying_source(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank();
    out[r as usize] = t.shfl(r, 63 - t.thread_rank()); // @varying-src
}

/// The same exchange with one source rank per tile is clean, and a broadcast.
#[kernel]
fn uniform_source(out: &mut [u32]) {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<64>(&b);
    let r = b.thread_rank();
    out[r as usize] = t.shfl(r, 63 - t.meta_group_rank());
}

#[test]
fn a_multi_warp_shfl_with_varying_sources_is_reported() {
    emulator_model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let err = quietly(|| launch!(varying_source<<<1, 128>>>(&mut out))).unwrap_err();
        assert_eq!(err.code(), 719, "{config:?}");
        let text = err.to_string();
        assert_has(
            &text,
            &format!("at varying_source in tests/it/scheduler/cg_multi_warp.rs:{}", line_of("varying-src")),
        );
        assert_has(&text, "thread (0,0,0) ask thread_block_tile::shfl for tile rank 63");
        assert_has(&text, "every thread of the tile must name the same source rank");
    });
}

#[test]
fn a_multi_warp_shfl_with_one_source_per_tile_is_clean() {
    model().check(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        launch!(uniform_source<<<1, 128>>>(&mut out)).unwrap();
        let want: Vec<u32> = (0..128).map(|r| r / 64 * 64 + 63 - r / 64).collect();
        assert_eq!(out.to_vec().unwrap(), want);
    });
}

/// Inclusive and exclusive scans over multi-warp tiles: u32 `plus` and `greater` (exact) and
/// f32 `plus` (whose rounding follows CUDA's order, modelled by `scan_reference`).
/// `launch_bounds(1024)`: without it ptxas gives the kernel 71 registers, more than a block of
/// 1024 threads may have on the H200 (64 K per block), and the GPU refuses the launch.
#[kernel(launch_bounds(1024))]
fn big_scans(n: u32, x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let f = v as f32 * 0.37 - 3.0;
    let r = match n {
        64 => big_scan_row::<64>(v, f),
        256 => big_scan_row::<256>(v, f),
        _ => big_scan_row::<1024>(v, f),
    };
    let mut k = 0;
    while k < 6 {
        out[t * 6 + k] = r[k];
        k += 1;
    }
}

#[device]
fn big_scan_row<const N: u32>(v: u32, f: f32) -> [u32; 6] {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<N>(&b);
    [
        cg::inclusive_scan(&t, v, cg::plus()),
        cg::exclusive_scan(&t, v, cg::plus()),
        cg::inclusive_scan(&t, v, cg::greater()),
        cg::exclusive_scan(&t, v, cg::greater()),
        cg::inclusive_scan(&t, f, cg::plus()).to_bits(),
        cg::exclusive_scan(&t, f, cg::plus()).to_bits(),
    ]
}

/// Hillis-Steele over `v` (lane `i` combines `op(own, lane i - m)`), as one warp's
/// `inclusive_scan_contiguous` does it.
fn hillis_steele<T: Copy>(mut v: Vec<T>, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut m = 1;
    while m < v.len() {
        let before = v.clone();
        for i in m..v.len() {
            v[i] = op(before[i], before[i - m]);
        }
        m <<= 1;
    }
    v
}

/// The f32 scans of one tile, in CUDA's order for multi-warp tiles (see `cg::inclusive_scan`).
fn scan_reference(tile: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let warps: Vec<Vec<f32>> = tile.chunks(32).map(|w| hillis_steele(w.to_vec(), |a, b| a + b)).collect();
    let totals: Vec<f32> = warps.iter().map(|w| w[31]).collect();
    let scanned = hillis_steele(totals, |a, b| a + b);
    let (mut inc, mut exc) = (Vec::new(), Vec::new());
    for (w, ws) in warps.iter().enumerate() {
        let previous = if w == 0 { 0.0 } else { scanned[w - 1] };
        for l in 0..32 {
            inc.push(if w == 0 { ws[l] } else { ws[l] + previous });
            let shifted = ws[l.saturating_sub(1)];
            exc.push(if l == 0 {
                previous
            } else if w == 0 {
                shifted
            } else {
                shifted + previous
            });
        }
    }
    (inc, exc)
}

#[test]
fn multi_warp_scans_match_the_cpu() {
    let x: Vec<u32> = (0..1024u32).map(|i| (i * 7919 + 13) % 1009).collect();
    // Every setting for tiles of 64; one run each for the larger tiles (1024 threads under
    // every checker are slow).
    for (n, block) in [(64usize, 128u32), (256, 512), (1024, 1024)] {
        let m = if n == 64 {
            model()
        } else {
            model().fibers_only().checks(&[deviceemu::Checks::none()]).seeds(&[None]).blocks(&[BlockOrder::Parallel])
        };
        m.check_with(|config| {
            let xb = DeviceBuffer::from_slice(&x[..block as usize]).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(block as usize * 6).unwrap();
            launch!(big_scans<<<1, block>>>(n as u32, &xb, &mut out)).unwrap_or_else(|e| panic!("{config:?}: {e}"));
            let out = out.to_vec().unwrap();
            for tile in 0..block as usize / n {
                let xs = &x[tile * n..(tile + 1) * n];
                let fs: Vec<f32> = xs.iter().map(|&v| v as f32 * 0.37 - 3.0).collect();
                let (finc, fexc) = scan_reference(&fs);
                let (mut sum, mut max) = (0u32, 0u32);
                for r in 0..n {
                    let t = tile * n + r;
                    let got = &out[t * 6..t * 6 + 6];
                    let want = [sum + xs[r], sum, max.max(xs[r]), max, finc[r].to_bits(), fexc[r].to_bits()];
                    assert_eq!(got, want, "tile size {n} thread {t} {config:?}");
                    sum += xs[r];
                    max = max.max(xs[r]);
                }
            }
        });
    }
}

// ---- CUDA C's own multi-warp cg on the H200 (probe p13) ----

#[path = "../../../examples/cg_big/kernels.rs"]
#[allow(unreachable_pub)] // pub for gpu_vs_emu
mod cg_big;

/// The H200's answers (tests/data/p13_cg_big.bin: CUDA 13's `cg::tiled_partition<64..1024>`
/// reduce and scans, 7 results x 1024 threads per tile size, little-endian u32; recorded in
/// session 7, tools/probes/RESULTS.md section 13) against the emulator, bit for bit.
#[test]
fn multi_warp_reduce_and_scans_match_cuda_c_on_the_h200() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/p13_cg_big.bin")).unwrap();
    let want: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(want.len(), cg_big::SIZES.len() * cg_big::OUT * 1024);
    let names = [
        "reduce f32 plus",
        "inclusive f32 plus",
        "exclusive f32 plus",
        "inclusive u32 plus",
        "exclusive u32 plus",
        "exclusive u32 greater",
        "reduce u32 greater",
    ];
    let all = cg_big::run().unwrap();
    for (s, n) in cg_big::SIZES.into_iter().enumerate() {
        let got = &all[s * cg_big::OUT * 1024..][..cg_big::OUT * 1024];
        for (k, name) in names.iter().enumerate() {
            let w = &want[(s * cg_big::OUT + k) * 1024..][..1024];
            let g = &got[k * 1024..][..1024];
            let bad: Vec<usize> = (0..1024).filter(|&t| w[t] != g[t]).collect();
            assert!(
                bad.is_empty(),
                "tile {n}, {name}: {} threads differ from the H200, first {:?}",
                bad.len(),
                bad.first().map(|&t| (t, w[t], g[t]))
            );
        }
    }
}
