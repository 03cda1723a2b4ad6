//! Loop fission (`emu-macros/src/fission/`, `sched/regions.rs`): which kernels run as barrier
//! regions or lane loops, and that those paths give the same results and the same reports as
//! the general path (`EMU_PATH=general`) for every checker, seed and block order.

use crate::kernels::{block_sum, saxpy};
use deviceemu::__private::last_path;
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Checks, Config, ExecPath};

// ------------------------------------------------------------------ the corpus

/// Barrier-free with a compound assignment (the lane loop's checks are hoisted per block when
/// the block's indices are proved in bounds).
#[kernel]
fn axpy_offset(a: f32, x: &[f32], y: &mut [f32], offset: u32) {
    let i = offset as usize + (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] += a * x[i];
    }
}

/// A value loaded before a barrier and used after it (a per-thread slot), an early exit
/// before the first barrier (legal), and a rotation through shared memory.
#[kernel]
fn rotate(input: &[u32], out: &mut [u32], n: u32) {
    let t = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let g = block_idx().x as usize * 64 + tid;
    if g >= n as usize {
        return;
    }
    let mine = input[g];
    t[tid] = mine * 3;
    sync_threads();
    // The last block's last live thread has no live neighbour (its slot is unwritten).
    let other = if g + 1 < n as usize { t[(tid + 1) % 64] } else { 0 };
    sync_threads();
    out[g] = other + mine;
}

/// A `for` loop over a uniform range with barriers (the tiled shapes), a 2-D block.
#[kernel]
fn tiled_sum(m: &[f32], out: &mut [f32], tiles: u32) {
    let tile = shared_array![[f32; 8]; 8];
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let row = block_idx().x as usize * 8 + ty;
    let mut acc = 0.0f32;
    for k in 0..tiles as usize {
        tile[ty][tx] = m[row * tiles as usize * 8 + k * 8 + tx];
        sync_threads();
        for j in 0..8 {
            acc += tile[ty][j];
        }
        sync_threads();
    }
    out[row * 8 + tx] = acc;
}

/// An unrolled tree under uniform `if`s on the block size, each holding a barrier.
#[kernel]
fn unrolled(input: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 256];
    let tid = thread_idx().x as usize;
    let n = block_dim().x as usize;
    t[tid] = input[block_idx().x as usize * n + tid];
    sync_threads();
    if n >= 256 {
        if tid < 128 {
            t[tid] += t[tid + 128];
        }
        sync_threads();
    }
    if n >= 128 {
        if tid < 64 {
            t[tid] += t[tid + 64];
        }
        sync_threads();
    } else {
        sync_threads();
    }
    if tid == 0 {
        let mut sum = 0;
        for k in 0..64.min(n) {
            sum += t[k];
        }
        out[block_idx().x as usize] = sum;
    }
}

/// Parameters shadowed by root-level locals (`let (w, h) = (w as usize, h as usize)`), and a
/// swap that cannot be split into two `let`s (general path).
#[kernel]
fn shadows(out: &mut [u32], w: u32, h: u32) {
    let t = shared_array![u32; 64];
    let (w, h) = (w as usize, h as usize);
    let tid = thread_idx().x as usize;
    t[tid] = (tid * w + h) as u32;
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = t[63 - tid];
}

#[kernel]
fn swaps(out: &mut [u32], a: u32, b: u32) {
    let (a, b) = (b, a);
    let tid = thread_idx().x as usize;
    sync_threads();
    out[tid] = a * 100 + b;
}

/// A race after a barrier: thread `t` reads `s[t]` while thread `t - 1` writes it.
#[kernel]
fn racy(out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    s[tid] = tid as u32;
    sync_threads();
    s[(tid + 1) % 64] = s[tid] + 1;
    sync_threads();
    out[tid] = s[tid];
}

/// Half the threads write shared memory; every thread reads its own slot after the barrier
/// (initcheck: the other half read memory nothing wrote).
#[kernel]
fn half_written(out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    if tid < 32 {
        s[tid] = 7;
    }
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = s[tid];
}

/// Thread 7 leaves the loop after the barrier of its second iteration: the others wait at
/// that barrier in the third (a skipped barrier).
#[kernel]
fn skips(out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    s[tid] = 0;
    for k in 0..3u32 {
        sync_threads();
        s[tid] += k;
        if tid == 7 && k == 1 {
            return;
        }
    }
    out[block_idx().x as usize * 64 + tid] = s[tid];
}

/// An out-of-bounds store after a barrier, by one thread.
#[kernel]
fn oob_after_barrier(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let g = block_idx().x as usize * 64 + tid;
    out[g] = 1;
    sync_threads();
    if tid == 5 {
        out[g + 1000] = 2;
    }
}

/// A panic in one thread between barriers.
#[kernel]
fn panics_between(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let g = block_idx().x as usize * 64 + tid;
    out[g] = 1;
    sync_threads();
    if tid == 3 {
        panic!("thread {tid} gives up");
    }
    sync_threads();
    out[g] = 2;
}

/// Barrier-free, with an out-of-bounds store by one thread of every fifth block.
#[kernel]
fn oob_in_some_blocks(out: &mut [u32]) {
    let b = block_idx().x;
    let i = (b * block_dim().x + thread_idx().x) as usize;
    if b % 5 == 3 && thread_idx().x == 7 {
        out[i + 1_000_000] = 1;
    }
    out[i] = b + 1;
}

/// A panic in one thread of every seventh block, between barriers.
#[kernel]
fn panics_in_some_blocks(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let g = block_idx().x as usize * 32 + tid;
    out[g] = 1;
    sync_threads();
    if tid == 3 && block_idx().x % 7 == 2 {
        panic!("block {} gives up", block_idx().x);
    }
    sync_threads();
    out[g] = 2;
}

/// A spin-wait: a `while` in region code keeps the general path (independent progress).
#[kernel]
fn spins(flag: &mut [u32], out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid == 0 {
        sync_threads();
        flag.atomic_store(0, 1, core::sync::atomic::Ordering::Release);
    }
    out[tid] = 1;
}

/// A loop whose condition varies by thread around a barrier keeps the general path.
#[kernel]
fn varying_loop(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let mut k = tid % 2;
    while k < 2 {
        sync_threads();
        k += 1;
    }
    out[tid] = k as u32;
}

/// A narrowed tree whose offset runs one past the tile at the first step: the hoisted
/// region's proof fails there, and the checked region reports the read as the general path
/// does; the later steps (in bounds) run hoisted.
#[kernel]
fn tree_past_the_tile(out: &mut [f32], extra: u32) {
    let tile = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = tid as f32;
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        let off = s + extra as usize;
        if tid < s {
            tile[tid] += tile[tid + off];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx().x as usize] = tile[0];
    }
}

/// Vectorised lane loops (`__private::LaneBuf`) over elements of several sizes: 1 and 2 bytes
/// (16-byte moves, with a byte tail), 8 bytes, and 12 bytes (per element).
#[kernel]
fn widen_u8(x: &[u8], y: &mut [u16], z: &mut [u8]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] as u16 * 3 + y[i];
        z[i] = x[i] / 2;
    }
}

#[kernel]
fn scale_f64(a: f64, x: &[f64], y: &mut [f64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = (a * x[i]).sqrt() + 0.5;
    }
}

/// Float arithmetic whose results a vectorised chunk (eight lanes wide on AVX2 machines,
/// `regions/fast.rs::run_wide`) must give bit for bit as one thread at a time does (NaNs up to
/// their sign and payload, which Rust does not define).
#[kernel]
fn float_edges(x: &[f32], y: &[f32], o: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < o.len() {
        let (a, b) = (x[i], y[i]);
        o[i] = (a * b + a) / b - a.min(b) * a.max(b) + (a * a).sqrt() + a.mul_add(b, 1.5) + (-a).abs();
    }
}

#[kernel]
fn copy_triples(x: &[[u32; 3]], y: &mut [[u32; 3]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i];
    }
}

/// A store under a condition: not vectorised (a chunk would write back what a lane never
/// wrote); the per-thread hoisted loop runs it.
#[kernel]
fn clamp_some(x: &[u32], y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() && x[i] > 100 {
        y[i] = 100;
    }
}

/// An integer division that traps in one lane of a vectorised chunk.
#[kernel]
fn divide(x: &[u32], d: &[u32], y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] / d[i];
    }
}

// ------------------------------------------------------------------ running both paths

/// What a launch left: the output and the report (or `Ok`).
type Outcome = (Vec<u32>, Result<(), String>);

fn run_u32(config: &Config, f: impl Fn() -> (Vec<u32>, Result<(), deviceemu::Error>)) -> Outcome {
    with_config(config.clone().print_limit(0), || {
        deviceemu::quietly(|| {
            let (v, r) = f();
            (v, r.map_err(|e| without_addresses(&e.to_string())))
        })
    })
}

/// A report with its host addresses (`0x7f..`, which differ between runs) blanked.
fn without_addresses(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(k) = rest.find("0x") {
        out.push_str(&rest[..k + 2]);
        rest = rest[k + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
        out.push('_');
    }
    out.push_str(rest);
    out
}

fn configs() -> Vec<Config> {
    let mut out = Vec::new();
    for checks in [Checks::none(), Checks::all()] {
        for seed in [None, Some(3), Some(11)] {
            for blocks in [BlockOrder::Serial, BlockOrder::Parallel] {
                let c = Config::default().checks(checks).blocks(blocks);
                out.push(match seed {
                    Some(s) => c.seed(s),
                    None => c,
                });
            }
        }
    }
    out
}

/// Runs `f` on both paths under every configuration and checks they agree; returns the
/// outcome of the default configuration's fast path, and checks the fast path took `path`.
fn both_paths(path: &str, f: impl Fn() -> (Vec<u32>, Result<(), deviceemu::Error>)) -> Outcome {
    let mut first = None;
    for c in configs() {
        let general = run_u32(&c.clone().path(ExecPath::General), &f);
        let fast = run_u32(&c.clone().path(ExecPath::Auto), || {
            let r = f();
            assert_eq!(last_path(), path, "{c:?}");
            r
        });
        assert_eq!(fast.0, general.0, "results differ: {c:?}");
        if fast.1 != general.1 {
            let (a, b) = (format!("{:?}", fast.1), format!("{:?}", general.1));
            let (a, b): (Vec<&str>, Vec<&str>) = (a.split("\\n").collect(), b.split("\\n").collect());
            let k = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            panic!(
                "reports differ at line {k}: {c:?}\nfast:    {:?}\ngeneral: {:?}\nfast report: {}",
                a.get(k),
                b.get(k),
                a.join("\n")
            );
        }
        first.get_or_insert(fast);
    }
    first.expect("configurations")
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

#[test]
fn the_block_reduction_runs_as_regions_with_the_same_sums() {
    let n: usize = 256 * 37 + 100;
    let input: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.5).collect();
    let (sums, r) = both_paths("regions", || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut p = DeviceBuffer::<f32>::zeroed(n.div_ceil(256)).unwrap();
        let r = launch!(block_sum<<<n.div_ceil(256) as u32, 256>>>(&x, &mut p));
        (bits(p.to_vec().unwrap()), r)
    });
    r.unwrap();
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum::<f32>()).collect();
    let got: Vec<f32> = sums.into_iter().map(f32::from_bits).collect();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-3 * w.abs().max(1.0), "{g} vs {w}");
    }
}

#[test]
fn saxpy_runs_as_a_lane_loop() {
    let n = 1000;
    let (y, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&vec![1.5f32; n]).unwrap();
        let mut y = DeviceBuffer::from_slice(&(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
        let r = launch!(saxpy<<<(n as u32).div_ceil(128), 128>>>(2.0, &x, &mut y));
        (bits(y.to_vec().unwrap()), r)
    });
    r.unwrap();
    assert_eq!(f32::from_bits(y[10]), 13.0);
}

#[test]
fn hoisted_lane_loops_agree_and_still_report_out_of_bounds_accesses() {
    // Blocks whose indices all pass the guard and fit both views (hoisted), a last block
    // that is partly past `y` (per thread, guarded), and an `x` shorter than `y` (the proof
    // fails; the per-thread loop reports the out-of-bounds read).
    for (nx, ny, offset) in [(1000, 1000, 0u32), (1000, 1000, 37), (600, 1000, 0)] {
        let (y, r) = both_paths("lanes", || {
            let x = DeviceBuffer::from_slice(&(0..nx).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
            let mut y = DeviceBuffer::from_slice(&vec![1.0f32; ny]).unwrap();
            let r = launch!(axpy_offset<<<(ny as u32).div_ceil(64), 64>>>(2.0, &x, &mut y, offset));
            (bits(y.to_vec().unwrap()), r)
        });
        if nx < ny {
            let report = r.unwrap_err();
            assert!(report.contains("index 600 is past the end of `x`"), "{report}");
        } else {
            r.unwrap();
            let o = offset as usize;
            assert_eq!(f32::from_bits(y[o + 5]), 1.0 + 2.0 * (o + 5) as f32);
            // Below the offset nothing is written (and `y[0]` gains `2 * x[0] = 0`).
            assert_eq!(f32::from_bits(y[o.saturating_sub(1)]), 1.0);
        }
    }
}

#[test]
fn values_across_barriers_and_early_exits() {
    let n = 64 * 3 + 20;
    let input: Vec<u32> = (0..n as u32).collect();
    let (out, r) = both_paths("regions", || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(64 * 4).unwrap();
        let r = launch!(rotate<<<4, 64>>>(&x, &mut o, n as u32));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    // The last block's threads past `n` exited before the barrier; the ones before them
    // read a neighbour's slot that an exited thread never wrote (shared memory starts zeroed
    // in a fresh arena, or keeps the previous block's value: the check is on the first blocks).
    for g in 0..64 * 3 {
        let next = (g / 64) * 64 + (g % 64 + 1) % 64;
        assert_eq!(out[g], input[next] * 3 + input[g], "{g}");
    }
}

#[test]
fn a_uniform_for_loop_with_barriers_in_a_2d_block() {
    let tiles = 3u32;
    let rows = 16usize;
    let m: Vec<f32> = (0..rows * 8 * tiles as usize).map(|i| (i % 5) as f32).collect();
    let (out, r) = both_paths("regions", || {
        let x = DeviceBuffer::from_slice(&m).unwrap();
        let mut o = DeviceBuffer::<f32>::zeroed(rows * 8).unwrap();
        let r = launch!(tiled_sum<<<(rows / 8) as u32, (8, 8)>>>(&x, &mut o, tiles));
        (bits(o.to_vec().unwrap()), r)
    });
    r.unwrap();
    for row in 0..rows {
        let want: f32 = m[row * 8 * tiles as usize..(row + 1) * 8 * tiles as usize].iter().sum();
        assert_eq!(f32::from_bits(out[row * 8]), want, "row {row}");
    }
}

#[test]
fn uniform_ifs_with_barriers() {
    for threads in [256usize, 128, 64] {
        let input: Vec<u32> = (0..threads as u32 * 3).collect();
        let (out, r) = both_paths("regions", || {
            let x = DeviceBuffer::from_slice(&input).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(3).unwrap();
            let r = launch!(unrolled<<<3, threads as u32>>>(&x, &mut o));
            (o.to_vec().unwrap(), r)
        });
        r.unwrap();
        for b in 0..3 {
            let want: u32 = input[b * threads..(b + 1) * threads].iter().sum();
            assert_eq!(out[b], want, "{threads} threads, block {b}");
        }
    }
}

#[test]
fn shadowed_parameters() {
    let (out, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(shadows<<<2, 64>>>(&mut o, 3, 5));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    assert_eq!(out[0], 63 * 3 + 5);
    let (out, r) = both_paths("general", || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(swaps<<<1, 64>>>(&mut o, 1, 2));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    assert_eq!(out[7], 201);
}

#[test]
fn racecheck_finds_the_same_race_on_both_paths() {
    let (_, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(racy<<<1, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    // The default configuration has no racecheck; the checked ones were compared above.
    r.unwrap();
    let c = Config::default().checks(Checks::all()).blocks(BlockOrder::Serial);
    let (_, fast) = run_u32(&c, || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(racy<<<1, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = fast.unwrap_err();
    assert!(report.contains("hazard"), "{report}");
}

#[test]
fn initcheck_finds_the_same_reads_on_both_paths() {
    let _ = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(half_written<<<2, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let c = Config::default().checks(Checks::all()).blocks(BlockOrder::Serial);
    let (_, fast) = run_u32(&c, || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(half_written<<<2, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = fast.unwrap_err();
    assert!(
        report.to_lowercase().contains("uninitialized") || report.to_lowercase().contains("uninitialised"),
        "{report}"
    );
}

#[test]
fn synccheck_reports_the_skipped_barrier_on_both_paths() {
    let (_, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(skips<<<2, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = r.unwrap_err();
    assert!(report.contains("skipped it and exited"), "{report}");
}

#[test]
fn failures_name_the_same_thread_on_both_paths() {
    let (_, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(oob_after_barrier<<<2, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = r.unwrap_err();
    assert!(report.contains("thread (5,0,0)"), "{report}");
    let (_, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(panics_between<<<2, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = r.unwrap_err();
    assert!(report.contains("thread 3 gives up"), "{report}");
}

/// Runs of blocks on one fiber (`BlockRun::run_span`: with serial blocks the whole grid, in
/// parallel up to 64 blocks a run): a block that faults or fails is reported as itself, and
/// the blocks after it in the run still run, on both paths.
#[test]
fn blocks_that_fail_in_a_run_of_blocks_are_reported_one_by_one() {
    const BLOCKS: u32 = 1024;
    let (out, r) = both_paths("lanes", || {
        let mut o = DeviceBuffer::<u32>::zeroed(BLOCKS as usize * 32).unwrap();
        let r = launch!(oob_in_some_blocks<<<BLOCKS, 32>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    // The faulting thread stops at its fault (memcheck); every other thread of every block,
    // before and after it in the run, ran to its end.
    let want = |i: u32| if (i / 32) % 5 == 3 && i % 32 == 7 { 0 } else { i / 32 + 1 };
    let wrong: Vec<usize> =
        (0..BLOCKS * 32).filter(|&i| out[i as usize] != want(i)).map(|i| i as usize).take(8).collect();
    assert!(wrong.is_empty(), "elements {wrong:?} are wrong");
    let report = r.unwrap_err();
    let faulty = (0..BLOCKS).filter(|b| b % 5 == 3).count();
    assert!(report.contains(&format!("{faulty} errors")), "{report}");
    assert!(report.contains("thread (7,0,0) in block (3,0,0)"), "{report}");
    let (out, r) = both_paths("regions", || {
        let mut o = DeviceBuffer::<u32>::zeroed(BLOCKS as usize * 32).unwrap();
        let r = launch!(panics_in_some_blocks<<<BLOCKS, 32>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    for b in 0..BLOCKS as usize {
        let want = if b % 7 == 2 { 1 } else { 2 };
        assert!(out[b * 32..b * 32 + 32].iter().all(|&v| v == want), "block {b}");
    }
    let report = r.unwrap_err();
    assert!(report.contains("block 2 gives up"), "{report}");
}

#[test]
fn spins_and_thread_varying_loops_keep_the_general_path() {
    // A barrier under a condition (and a spin-wait shape) and a loop whose condition varies by
    // thread: both on the general path, with its verdicts.
    let (_, r) = both_paths("general", || {
        let mut f = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(spins<<<1, 64>>>(&mut f, &mut o));
        (o.to_vec().unwrap(), r)
    });
    let _ = r;
    let (_, r) = both_paths("general", || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(varying_loop<<<1, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    let _ = r;
}

#[test]
fn emu_schedule_threads_takes_the_general_path() {
    let c = Config::default().schedule(deviceemu::Schedule::Threads).blocks(BlockOrder::Serial);
    with_config(c, || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(racy<<<1, 64>>>(&mut o)).unwrap();
        assert_eq!(last_path(), "general");
    });
}

#[test]
fn vectorised_lane_loops_agree_for_every_element_size() {
    // 300 threads per block: each block is a chunk of 256 lanes and one of 44, whose byte
    // lengths (44, 88) leave tails that 16-byte moves do not cover.
    let n = 300 * 3 + 17;
    let blocks = (n as u32).div_ceil(300);
    let x8: Vec<u8> = (0..n).map(|i| (i % 200) as u8).collect();
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&x8).unwrap();
        let mut y = DeviceBuffer::from_slice(&(0..n).map(|i| i as u16).collect::<Vec<_>>()).unwrap();
        let mut z = DeviceBuffer::<u8>::zeroed(n).unwrap();
        let r = launch!(widen_u8<<<blocks, 300>>>(&x, &mut y, &mut z));
        let mut v: Vec<u32> = y.to_vec().unwrap().into_iter().map(u32::from).collect();
        v.extend(z.to_vec().unwrap().into_iter().map(u32::from));
        (v, r)
    });
    r.unwrap();
    for i in [0, 255, 256, 299, 300, n - 1] {
        assert_eq!(out[i], x8[i] as u32 * 3 + i as u32, "y[{i}]");
        assert_eq!(out[n + i], x8[i] as u32 / 2, "z[{i}]");
    }
    let xs: Vec<f64> = (0..n).map(|i| i as f64 * 0.25).collect();
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&xs).unwrap();
        let mut y = DeviceBuffer::<f64>::zeroed(n).unwrap();
        let r = launch!(scale_f64<<<blocks, 300>>>(3.0, &x, &mut y));
        let v = y.to_vec().unwrap().into_iter().flat_map(|f| {
            let b = f.to_bits();
            [b as u32, (b >> 32) as u32]
        });
        (v.collect(), r)
    });
    r.unwrap();
    let want = (3.0 * xs[777]).sqrt() + 0.5;
    assert_eq!(u64::from(out[2 * 777]) | (u64::from(out[2 * 777 + 1]) << 32), want.to_bits());
    let t: Vec<[u32; 3]> = (0..n as u32).map(|i| [i, i * 2, !i]).collect();
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&t).unwrap();
        let mut y = DeviceBuffer::<[u32; 3]>::zeroed(n).unwrap();
        let r = launch!(copy_triples<<<blocks, 300>>>(&x, &mut y));
        (y.to_vec().unwrap().into_iter().flatten().collect(), r)
    });
    r.unwrap();
    assert_eq!(out, t.iter().flatten().copied().collect::<Vec<_>>());
}

#[test]
fn vectorised_float_chunks_agree_bit_for_bit_with_one_thread_at_a_time() {
    // NaNs with payloads and signs, signed zeros, subnormals, infinities and ordinary values,
    // paired every way over 1100 threads (four full chunks and a tail).
    let edges: [f32; 11] = [
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xffa0_0001),
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(0x0000_8000),
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0e38,
        -3.25,
        0.1,
    ];
    let n = 1100;
    let xs: Vec<f32> = (0..n).map(|i| edges[i % 11]).collect();
    let ys: Vec<f32> = (0..n).map(|i| edges[(i / 11) % 11] * if i % 3 == 0 { 1.0 } else { 0.5 }).collect();
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&xs).unwrap();
        let y = DeviceBuffer::from_slice(&ys).unwrap();
        let mut o = DeviceBuffer::<f32>::zeroed(n).unwrap();
        let r = launch!(float_edges<<<(n as u32).div_ceil(256), 256>>>(&x, &y, &mut o));
        (o.to_vec().unwrap().into_iter().map(bits_up_to_nan).collect(), r)
    });
    r.unwrap();
    // The four full blocks ran as vectorised chunks (the fifth, past the end, fails the lane
    // loop's proof and runs its lanes checked), and every lane gives Rust's own result.
    let run = || {
        let x = DeviceBuffer::from_slice(&xs).unwrap();
        let y = DeviceBuffer::from_slice(&ys).unwrap();
        let mut o = DeviceBuffer::<f32>::zeroed(n).unwrap();
        launch!(float_edges<<<(n as u32).div_ceil(256), 256>>>(&x, &y, &mut o)).unwrap();
    };
    assert_eq!(vectorised_runs(run), 4);
    for i in 0..n {
        let (a, b) = (xs[i], ys[i]);
        let want = (a * b + a) / b - a.min(b) * a.max(b) + (a * a).sqrt() + a.mul_add(b, 1.5) + (-a).abs();
        assert_eq!(out[i], bits_up_to_nan(want), "element {i}: {a:?}, {b:?}");
    }
}

/// A float's bits, every NaN as one: Rust leaves the sign and payload of a NaN that arithmetic
/// makes to the code generator (and the GPU gives its canonical NaN), so two compilations of
/// the same expression may differ there and nowhere else.
fn bits_up_to_nan(f: f32) -> u32 {
    if f.is_nan() {
        f32::NAN.to_bits()
    } else {
        f.to_bits()
    }
}

/// SHOC's triad as written: no guard, an `i32` index with `thread_idx().x` first. Every thread
/// of a block runs the body, so the lane loop is vectorised when the block's indices are all
/// in bounds; a grid past the end fails that proof and runs the checked lanes.
#[kernel]
fn triad_unguarded(a: &[f32], b: &[f32], c: &mut [f32], s: f32) {
    let gid: i32 = (thread_idx().x + (block_idx().x * block_dim().x)) as i32;
    c[gid] = a[gid] + s * b[gid];
}

#[test]
fn an_unguarded_lane_loop_vectorises_where_its_block_is_in_bounds() {
    let n = 128 * 5;
    let (xa, xb): (Vec<f32>, Vec<f32>) = (0..n).map(|i| (i as f32 * 0.5, 1.0 - i as f32)).unzip();
    for blocks in [5u32, 6] {
        let run = || {
            let (a, b) = (DeviceBuffer::from_slice(&xa).unwrap(), DeviceBuffer::from_slice(&xb).unwrap());
            let mut c = DeviceBuffer::<f32>::zeroed(n).unwrap();
            let r = launch!(triad_unguarded<<<blocks, 128>>>(&a, &b, &mut c, 1.75));
            (bits(c.to_vec().unwrap()), r)
        };
        let (out, r) = both_paths("lanes", run);
        let want: Vec<u32> = xa.iter().zip(&xb).map(|(a, b)| (a + 1.75 * b).to_bits()).collect();
        assert_eq!(out, want);
        if blocks == 5 {
            r.unwrap();
        } else {
            // The sixth block's threads index past the buffers: reported, on both paths alike.
            let report = r.unwrap_err();
            assert!(report.contains("block (5,0,0)") && report.contains("out of bounds"), "{report}");
        }
        // The blocks in bounds run as vectorised chunks; the sixth fails the proof.
        assert_eq!(vectorised_runs(|| drop(run())), 5);
    }
}

#[test]
fn a_conditional_store_writes_only_where_the_lane_stores() {
    let n = 512;
    let xs: Vec<u32> = (0..n as u32).map(|i| i * 7 % 300).collect();
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&xs).unwrap();
        let mut y = DeviceBuffer::from_slice(&vec![7u32; n]).unwrap();
        let r = launch!(clamp_some<<<2, 256>>>(&x, &mut y));
        (y.to_vec().unwrap(), r)
    });
    r.unwrap();
    for (i, (&o, &x)) in out.iter().zip(&xs).enumerate() {
        assert_eq!(o, if x > 100 { 100 } else { 7 }, "y[{i}]");
    }
}

#[test]
fn a_panic_in_a_vectorised_chunk_names_its_lane() {
    // Lane 77 of block 1 divides by zero: the chunk is run again lane by lane, so the report
    // names that thread, as the general path does, and the lanes before it wrote their values.
    let n = 512;
    let mut ds = vec![3u32; n];
    ds[256 + 77] = 0;
    let (out, r) = both_paths("lanes", || {
        let x = DeviceBuffer::from_slice(&(0..n as u32).collect::<Vec<_>>()).unwrap();
        let d = DeviceBuffer::from_slice(&ds).unwrap();
        let mut y = DeviceBuffer::<u32>::zeroed(n).unwrap();
        let r = launch!(divide<<<2, 256>>>(&x, &d, &mut y));
        (y.to_vec().unwrap(), r)
    });
    let report = r.unwrap_err();
    assert!(report.contains("thread (77,0,0)") && report.contains("block (1,0,0)"), "{report}");
    assert!(report.contains("divide by zero"), "{report}");
    assert_eq!(out[256 + 76], (256 + 76) / 3);
}

#[test]
fn hoisted_tree_regions_agree_and_a_failed_proof_still_reports() {
    // extra = 0: every step in bounds (hoisted); extra = 1: the first step reads `tile[64]`.
    for extra in [0u32, 1] {
        let (out, r) = both_paths("regions", || {
            let mut o = DeviceBuffer::<f32>::zeroed(3).unwrap();
            let r = launch!(tree_past_the_tile<<<3, 64>>>(&mut o, extra));
            (bits(o.to_vec().unwrap()), r)
        });
        if extra == 0 {
            r.unwrap();
            assert_eq!(f32::from_bits(out[2]), (0..64).sum::<u32>() as f32);
        } else {
            let report = r.unwrap_err();
            assert!(report.contains("tile") && report.contains("64"), "{report}");
        }
    }
}

// ------------------------------------------------------------------ vectorised regions

/// A region's three offset loads of shared memory and a guarded store (vectorised), after a
/// region that stages a global load into shared memory under `if i < len` (vectorised), with
/// 1024 threads: four chunks of lanes per region.
#[kernel]
fn stencil_1024(input: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 1026];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 1024 + tid;
    t[tid + 1] = if i < input.len() { input[i] } else { 0 };
    sync_threads();
    if i < out.len() {
        out[i] = t[tid] + 2 * t[tid + 1] + 3 * t[tid + 2];
    }
}

/// A racy shift: each thread copies its left neighbour's element, which the thread before
/// it has just written. Run in index order (the regions' order without a seed) the first
/// element spreads through the whole block; the region's forms `t[tid]` and `t[tid + 1]`
/// overlap, so it must not be vectorised, while the regions around it are.
#[kernel]
fn shift_racy(out: &mut [u32]) {
    let t = shared_array![u32; 257];
    let tid = thread_idx().x as usize;
    t[tid] = tid as u32 * 3 + 1;
    sync_threads();
    t[tid + 1] = t[tid];
    sync_threads();
    out[tid] = t[tid + 1];
}

/// A narrowed tree whose bound is not a multiple of the chunk (`s` from 300 down), and a
/// division by zero in a vectorised region (lane 77 divides by `t[77] = 0`).
#[kernel]
fn tree_and_divide(out: &mut [u32], divisor_at: u32) {
    let t = shared_array![u32; 600];
    let d = shared_array![u32; 600];
    let tid = thread_idx().x as usize;
    t[tid] = tid as u32;
    t[tid + 300] = 1000 + tid as u32;
    d[tid] = if tid == divisor_at as usize { 0 } else { 1 };
    sync_threads();
    let mut s = 300;
    while s > 0 {
        if tid < s {
            t[tid] += t[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    out[tid] = t[tid] / d[tid];
}

/// Runs `f` with `EMU_VERBOSE` on and returns how many region runs its last regions launch
/// vectorised.
fn vectorised_runs(f: impl FnOnce()) -> usize {
    with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        f();
        deviceemu::__private::last_vectorised()
    })
}

#[test]
fn vectorised_regions_agree_with_the_general_path() {
    let n = 1024 * 3 + 200;
    let input: Vec<u32> = (0..n as u32).map(|v| v.wrapping_mul(2654435761) >> 7).collect();
    let run = || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(n).unwrap();
        let r = launch!(stencil_1024<<<(n as u32).div_ceil(1024), 1024>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let at = |i: isize| if i < 0 || i as usize >= n { 0 } else { input[i as usize] };
    for (i, &o) in out.iter().enumerate() {
        // The halo of each block is zero: only its own elements are staged.
        let b = (i / 1024 * 1024) as isize;
        let (i, l, r) = (i as isize, i as isize - 1, i as isize + 1);
        let left = if l < b { 0 } else { at(l) };
        let right = if r >= b + 1024 { 0 } else { at(r) };
        assert_eq!(o, left + 2 * at(i) + 3 * right, "element {i}");
    }
    // Both regions of the three full blocks ran vectorised; the last block's first region
    // fails the proof (its last lanes are past `input`), its second too.
    assert_eq!(vectorised_runs(|| drop(run())), 6);
}

#[test]
fn overlapping_forms_keep_the_scalar_order() {
    let run = || {
        let mut o = DeviceBuffer::<u32>::zeroed(256).unwrap();
        let r = launch!(shift_racy<<<1, 256>>>(&mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    // In index order thread 0's value reaches every element.
    assert_eq!(out, vec![1; 256]);
    // The first and last regions are vectorised; the shift is not.
    assert_eq!(vectorised_runs(|| drop(run())), 2);
}

/// cuda-samples' `scan1Inclusive` (scan/scan.cu): each thread's slot is
/// `2 * tid - (tid & (size - 1)) + size`, which is `tid + size` when `size` is at least the
/// block's width, so its steps `s[pos] + s[pos - offset]` vectorise under the check that the
/// mask keeps every lane's bits (`lanes_kept`); for a smaller `size` the slots are apart and
/// the steps run one thread at a time. The last read, `s[pos + shift - 1]`, has a uniform
/// part of three terms (`lin_add`, `lin_sub`).
#[kernel]
fn scan_slots(input: &[u32], out: &mut [u32], size: u32, shift: u32) {
    let s = shared_array![u32; 1024];
    let tid: u32 = thread_idx().x;
    let mask: u32 = size - 1;
    let mut pos: u32 = 2 * tid - (tid & mask);
    s[pos] = 0;
    pos += size;
    s[pos] = input[(block_idx().x * block_dim().x + tid) as usize];
    let mut offset: u32 = 1;
    while offset < size {
        sync_threads();
        let t: u32 = s[pos] + s[pos - offset];
        sync_threads();
        s[pos] = t;
        offset <<= 1;
    }
    sync_threads();
    out[(block_idx().x * block_dim().x + tid) as usize] = s[pos + shift - 1] + s[pos];
}

#[test]
fn slots_that_are_the_lanes_after_a_mask_vectorise() {
    let input: Vec<u32> = (0..512u32).map(|v| v.wrapping_mul(2654435761) >> 20).collect();
    let inp = &input;
    let run = |size: u32, shift: u32| {
        move || {
            let x = DeviceBuffer::from_slice(inp).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(512).unwrap();
            let r = launch!(scan_slots<<<2, 256>>>(&x, &mut o, size, shift));
            (o.to_vec().unwrap(), r)
        }
    };
    // A plain loop: each segment of `size` threads scans its own values.
    let want = |size: usize, shift: usize| -> Vec<u32> {
        let mut out = vec![0u32; 512];
        for b in 0..2 {
            let mut s = [0u32; 1024];
            let pos = |t: usize| 2 * t - (t & (size - 1)) + size;
            for t in 0..256 {
                s[pos(t) - size] = 0;
            }
            for t in 0..256 {
                s[pos(t)] = input[b * 256 + t];
            }
            let mut offset = 1;
            while offset < size {
                let t: Vec<u32> = (0..256).map(|t| s[pos(t)] + s[pos(t) - offset]).collect();
                (0..256).for_each(|k| s[pos(k)] = t[k]);
                offset <<= 1;
            }
            for t in 0..256 {
                out[b * 256 + t] = s[pos(t) + shift - 1] + s[pos(t)];
            }
        }
        out
    };
    let (out, r) = both_paths("regions", run(256, 1));
    r.unwrap();
    assert_eq!(out, want(256, 1));
    // Each block: the first region's two stores, the 8 steps' loads and stores, the last
    // region's loads.
    assert_eq!(vectorised_runs(|| drop(run(256, 1)())), 2 * (1 + 2 * 8 + 1));
    // `size` 512: the mask keeps the bits of 256 lanes too; 9 steps.
    let (out, r) = both_paths("regions", run(512, 2));
    r.unwrap();
    assert_eq!(out, want(512, 2));
    assert_eq!(vectorised_runs(|| drop(run(512, 2)())), 2 * (1 + 2 * 9 + 1));
    // `size` 64: `tid & 63` is not `tid`, the slots are apart, and no region that reads them
    // vectorises (all of them do).
    let (out, r) = both_paths("regions", run(64, 1));
    r.unwrap();
    assert_eq!(out, want(64, 1));
    assert_eq!(vectorised_runs(|| drop(run(64, 1)())), 0);
}

/// `linear`'s other shapes on signed indices: a product, a mask that may be negative, and a
/// uniform part `k - 1` that is negative for `k` 0 (lane 0 then reads `s[-1]`, which the
/// proof sees and leaves to the scalar form's report).
#[kernel]
fn signed_lanes(input: &[i32], out: &mut [i32], k: i32, m: i32) {
    let s = shared_array![i32; 256];
    let tid: i32 = thread_idx().x as i32;
    let v = input[(block_idx().x * block_dim().x) as usize + tid as usize];
    s[tid] = v;
    s[tid + 128] = v + 1000;
    sync_threads();
    let j: i32 = 3 * tid - 2 * (tid & m) + k - 1;
    out[(block_idx().x * block_dim().x) as usize + tid as usize] = s[j] * 2 + s[tid];
}

#[test]
fn signed_linear_indices_vectorise_only_where_the_lanes_are_kept() {
    let input: Vec<i32> = (0..256).map(|v| v * 7 - 900).collect();
    let inp = &input;
    let run = |k: i32, m: i32| {
        move || {
            let x = DeviceBuffer::from_slice(inp).unwrap();
            let mut o = DeviceBuffer::<i32>::zeroed(256).unwrap();
            let r = launch!(signed_lanes<<<2, 128>>>(&x, &mut o, k, m));
            let v = o.to_vec().unwrap().into_iter().map(|v| v as u32).collect();
            (v, r)
        }
    };
    let want = |k: i32, m: i32| -> Vec<u32> {
        (0..256)
            .map(|g| {
                let (b, t) = (g / 128 * 128, (g % 128) as i32);
                let j = (3 * t - 2 * (t & m) + k - 1) as usize;
                let sj = if j < 128 { input[b + j] } else { input[b + j - 128] + 1000 };
                (sj * 2 + input[b + t as usize]) as u32
            })
            .collect()
    };
    // `m` -1 keeps every lane's bits: `j` is the lane plus `k - 1`. Both regions of both
    // blocks vectorise.
    for (k, m) in [(1, -1), (1, 127), (1, 255)] {
        let (out, r) = both_paths("regions", run(k, m));
        r.unwrap();
        assert_eq!(out, want(k, m), "k {k}, m {m}");
        assert_eq!(vectorised_runs(|| drop(run(k, m)())), 4, "k {k}, m {m}");
    }
    // `m` 63 does not keep the bits of 128 lanes: the second region runs one thread at a
    // time, with the same results.
    let (out, r) = both_paths("regions", run(1, 63));
    r.unwrap();
    assert_eq!(out, want(1, 63));
    assert_eq!(vectorised_runs(|| drop(run(1, 63)())), 2);
    // `k` 0: lane 0 reads `s[-1]`. The proof fails (the first index is below 0), and the
    // scalar form reports it as the general path does (`both_paths` compares the reports).
    let (_, r) = both_paths("regions", run(0, -1));
    let e = r.unwrap_err();
    assert!(e.contains("thread (0,0,0)") && e.contains("-1"), "{e}");
}

/// cuda-samples' `reduce2` on the dynamic shared memory: its one view (`dynamic_shared()`,
/// bound once) is a shared array to the fast forms, so the tree's narrowed steps vectorise.
#[kernel]
fn dynamic_tree(input: &[u32], out: &mut [u32]) {
    let sdata = dynamic_shared::<u32>();
    let tid = thread_idx().x;
    let i = block_idx().x * block_dim().x + tid;
    sdata[tid] = if (i as usize) < input.len() { input[i] } else { 0 };
    sync_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            sdata[tid] += sdata[tid + s];
        }
        sync_threads();
        s >>= 1;
    }
    if tid == 0 {
        out[block_idx().x] = sdata[0];
    }
}

/// The racy shift of `shift_racy` through two views of the same dynamic shared memory: the
/// region writes `a[tid + 1]` and reads `b[tid]`, the same bytes. Neither view may count as
/// an array of its own (staging `b`'s loads before `a`'s stores would lose the chain).
#[kernel]
fn dynamic_two_views(out: &mut [u32]) {
    let a = dynamic_shared::<u32>();
    let b = dynamic_shared::<u32>();
    let tid = thread_idx().x as usize;
    a[tid] = tid as u32 * 3 + 1;
    sync_threads();
    a[tid + 1] = b[tid];
    sync_threads();
    out[tid] = b[tid + 1];
}

#[test]
fn the_one_view_of_dynamic_shared_memory_vectorises_and_two_do_not() {
    let n = 256 * 3 + 100;
    let input: Vec<u32> = (0..n as u32).map(|v| v.wrapping_mul(2654435761) >> 9).collect();
    let run = || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let r = launch!(dynamic_tree<<<4, 256, 256 * 4>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(out, want);
    // The first region in the three full blocks (the last block's last lanes are past
    // `input`, which fails the proof), and in each block the narrowed steps of at least
    // `VECTOR_MIN_IN_PLACE` threads (s = 128, 64, 32, 16, 8: they write in place); the rest
    // run lane by lane.
    assert_eq!(deviceemu::__private::VECTOR_MIN_IN_PLACE, 8);
    assert_eq!(vectorised_runs(|| drop(run())), 3 + 4 * 5);

    let run = || {
        let mut o = DeviceBuffer::<u32>::zeroed(256).unwrap();
        let r = launch!(dynamic_two_views<<<1, 256, 257 * 4>>>(&mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    // In index order thread 0's value reaches every element.
    assert_eq!(out, vec![1; 256]);
    assert_eq!(vectorised_runs(|| drop(run())), 0);
}

#[test]
fn a_vectorised_region_that_panics_reports_the_lane() {
    for divisor_at in [600u32, 77] {
        let run = || {
            let mut o = DeviceBuffer::<u32>::zeroed(300).unwrap();
            let r = launch!(tree_and_divide<<<1, 300>>>(&mut o, divisor_at));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        // Each step `s` adds `t[tid + s]` for `tid < s`; computed on the host in the same order.
        let mut t: Vec<u32> = (0..300).chain(1000..1300).collect();
        let mut s = 300;
        while s > 0 {
            for k in 0..s {
                t[k] += t[k + s];
            }
            s /= 2;
        }
        if divisor_at == 600 {
            r.unwrap();
            assert_eq!(out, t[..300].to_vec());
            // The tree's steps of 9 threads or more (`VECTOR_MIN_IN_PLACE`, they write in
            // place: 300, 150, 75, 37, 18, 9; the last three run one by one) and the division;
            // the staging region's `if tid == divisor_at` keeps it scalar.
            assert_eq!(vectorised_runs(|| drop(run())), 7);
        } else {
            let report = r.unwrap_err();
            assert!(
                report.contains("divide by zero") && report.contains("by thread (77,0,0) in block (0,0,0)"),
                "{report}"
            );
        }
    }
}

/// The same tree, then a region whose every store is to a shared array, so that it writes in
/// place: each lane adds one to its `d[tid]`, then divides by what it stored less `z`. Lane
/// `z - 1` divides by zero in the middle of its chunk, after the lanes before it stored their
/// quotients and after its own first store: running that chunk again lane by lane would add
/// one twice, divide by one and not panic at all.
#[kernel]
fn tree_divide_in_place(out: &mut [i32], z: i32) {
    let t = shared_array![i32; 600];
    let d = shared_array![i32; 300];
    let tid = thread_idx().x as usize;
    t[tid] = tid as i32;
    t[tid + 300] = 1000 + tid as i32;
    d[tid] = tid as i32;
    sync_threads();
    let mut s = 300;
    while s > 0 {
        if tid < s {
            t[tid] += t[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    d[tid] += 1;
    d[tid] = 1000 / (d[tid] - z) + t[tid];
    sync_threads();
    out[tid] = d[tid];
}

#[test]
fn a_region_that_writes_shared_memory_in_place_reports_the_lane_that_panics() {
    // 300 threads: chunks of lanes 0..256 and 256..300. No zero divisor, then one in each chunk.
    for z in [0i32, 78, 281] {
        let run = || {
            let mut o = DeviceBuffer::<i32>::zeroed(300).unwrap();
            let r = launch!(tree_divide_in_place<<<1, 300>>>(&mut o, z));
            (o.to_vec().unwrap().into_iter().map(|v| v as u32).collect::<Vec<u32>>(), r)
        };
        let (out, r) = both_paths("regions", run);
        if z == 0 {
            r.unwrap();
            let mut t: Vec<i32> = (0..300).chain(1000..1300).collect();
            let mut s = 300;
            while s > 0 {
                for k in 0..s {
                    t[k] += t[k + s];
                }
                s /= 2;
            }
            let want: Vec<u32> = (0..300).map(|k| (1000 / (k as i32 + 1) + t[k]) as u32).collect();
            assert_eq!(out, want);
            let (vectorised, in_place) =
                with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
                    drop(run());
                    (deviceemu::__private::last_vectorised(), deviceemu::__private::last_in_place())
                });
            // The first region, six tree steps of 9 threads or more, the division and the copy
            // out are vectorised; all but the copy out (a store to global memory, staged) write
            // in place.
            assert_eq!((vectorised, in_place), (9, 8));
        } else {
            let report = r.unwrap_err();
            let thread = format!("by thread ({},0,0) in block (0,0,0)", z - 1);
            assert!(report.contains("divide by zero") && report.contains(&thread), "{report}");
            // Nothing ran after the panic: the copy out never happened.
            assert_eq!(out, vec![0; 300]);
        }
    }
}

/// cuda-samples' reduce3 tree: each thread keeps its running sum across the barriers (a
/// per-thread value in a slot) and stores it into the tile at every step, so that the tree's
/// steps take the value from the slot, add, and put it back.
#[kernel]
fn running_sum_tree(input: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    let mut my_sum = if i < input.len() { input[i] } else { 0.0 };
    t[tid] = my_sum;
    sync_threads();
    let mut s = 128;
    while s > 0 {
        if tid < s {
            my_sum += t[tid + s];
            t[tid] = my_sum;
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx().x as usize] = my_sum;
    }
}

#[test]
fn a_region_in_place_takes_and_puts_back_per_thread_values() {
    let n = 256 * 3;
    let input: Vec<f32> = (0..n).map(|v| (v as f32 * 0.37).sin()).collect();
    let run = || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<f32>::zeroed(3).unwrap();
        let r = launch!(running_sum_tree<<<3, 256>>>(&x, &mut o));
        (bits(o.to_vec().unwrap()), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> = input
        .chunks(256)
        .map(|c| {
            let mut t = c.to_vec();
            let mut s = 128;
            while s > 0 {
                for k in 0..s {
                    t[k] += t[k + s];
                }
                s /= 2;
            }
            t[0].to_bits()
        })
        .collect();
    assert_eq!(out, want);
    let (vectorised, in_place) = with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        drop(run());
        (deviceemu::__private::last_vectorised(), deviceemu::__private::last_in_place())
    });
    // In each block the load into the tile and the tree's steps of 8 threads or more (128 to
    // 8), which take `my_sum` from its slot and put it back: in place, they run vectorised.
    assert_eq!((vectorised, in_place), (3 * 6, 3 * 6));
}

/// A Hillis–Steele scan of each block's 256 elements: each step reads its value under a lane
/// condition (`if tid >= off { t[tid - off] }`) into a per-thread slot, which the next region
/// adds and drops.
#[kernel]
fn hillis_steele(input: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid] = if i < input.len() { input[i] } else { 0 };
    sync_threads();
    let mut off = 1;
    while off < 256 {
        let v = if tid >= off { t[tid - off] } else { 0 };
        sync_threads();
        t[tid] += v;
        sync_threads();
        off *= 2;
    }
    if i < out.len() {
        out[i] = t[tid];
    }
}

/// A neighbour read at a signed distance `w` under `tid > k`, with signed indices: in bounds,
/// before the start (`w > k + 1`), or, for a negative `k` and `w`, past the end of the tile for
/// every lane.
#[kernel]
fn left_neighbour(out: &mut [i32], k: i32, w: i32) {
    let t = shared_array![i32; 128];
    let tid = thread_idx().x as i32;
    t[tid] = tid * 3;
    sync_threads();
    let v = if tid > k { t[tid - w] } else { -1 };
    out[block_idx().x as usize * 128 + tid as usize] = v;
}

#[test]
fn a_scan_runs_vectorised_through_lane_conditions_and_per_thread_values() {
    let n = 256 * 3 + 100;
    let input: Vec<u32> = (0..n as u32).map(|v| v.wrapping_mul(2654435761) >> 20).collect();
    let run = || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(n).unwrap();
        let r = launch!(hillis_steele<<<(n as u32).div_ceil(256), 256>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> = input
        .chunks(256)
        .flat_map(|c| {
            c.iter()
                .scan(0, |acc, &v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let wrong = (0..n).find(|&i| out[i] != want[i]);
    assert!(wrong.is_none(), "element {wrong:?} differs");
    // Each full block: its staging region, both regions of each of the eight steps, and the
    // last region; the partial block's first and last regions fail the proof (`i < len`).
    assert_eq!(vectorised_runs(|| drop(run())), 3 * 18 + 16);
}

#[test]
fn a_guarded_read_below_the_lane_is_proved_or_left_to_the_checks() {
    for (k, w, vectorised) in [(2, 3, 2), (0, 2, 1), (-1, -200, 1), (200, 5, 2)] {
        let run = || {
            let mut o = DeviceBuffer::<i32>::zeroed(256).unwrap();
            let r = launch!(left_neighbour<<<2, 128>>>(&mut o, k, w));
            (o.to_vec().unwrap().into_iter().map(|v| v as u32).collect(), r)
        };
        let (out, r) = both_paths("regions", run);
        for (g, &o) in out.iter().enumerate() {
            let tid = (g % 128) as i32;
            let at = tid - w;
            let want = if tid <= k {
                -1
            } else if (0..128).contains(&at) {
                at * 3
            } else {
                0 // the faulting thread stops before its store
            };
            assert_eq!(o as i32, want, "k {k} w {w}: element {g}");
        }
        match (k, w) {
            (0, 2) | (-1, -200) => assert!(r.unwrap_err().contains("out of bounds"), "k {k} w {w}"),
            _ => r.unwrap(),
        }
        // Per block: the tile's region, and the neighbour's where the proof holds.
        assert_eq!(vectorised_runs(|| drop(run())), 2 * vectorised, "k {k} w {w}");
    }
}

/// A tiled matrix product in 2-D blocks of 16x16: 2-D shared tiles, a uniform `for` around
/// two barriers, and an inner `for` over the tiles, all indices sums and products of thread
/// indices, loop variables and uniform values.
#[kernel]
fn tiled_product(a: &[u32], b: &[u32], c: &mut [u32], inner: u32, cols: u32) {
    let ta = shared_array![[u32; 16]; 16];
    let tb = shared_array![[u32; 16]; 16];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * 16 + ty;
    let col = block_idx().x as usize * 16 + tx;
    let kk = inner as usize;
    let nn = cols as usize;
    let mut acc = 0u32;
    for t in 0..kk / 16 {
        ta[ty][tx] = a[row * kk + t * 16 + tx];
        tb[ty][tx] = b[(t * 16 + ty) * nn + col];
        sync_threads();
        for j in 0..16 {
            acc += ta[ty][j] * tb[j][tx];
        }
        sync_threads();
    }
    c[row * nn + col] = acc;
}

/// A tile read back shifted by `s` rows, with signed indices: in bounds for `s == 0` only.
#[kernel]
fn shifted_tile(input: &[u32], out: &mut [u32], s: i32) {
    let t = shared_array![[u32; 16]; 16];
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;
    let g = block_idx().x as i32 * 256 + ty * 16 + tx;
    t[ty][tx] = input[g];
    sync_threads();
    out[g] = t[ty + s][tx];
}

/// A 3-point stencil over a shared tile whose reads `tile[t - 1]` and `x[g - 1]` are in
/// bounds only under the guard (`lo == 1`; with `lo == 0` thread 0 reads `tile[-1]`), with
/// typed `let`s and casts of block-wide sums, as ported CUDA writes them.
#[kernel]
fn guarded_stencil(x: &[u32], out: &mut [u32], n: i32, lo: i32) {
    let tile = shared_array![u32; 64];
    let t: i32 = thread_idx().x as i32;
    let g: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    tile[t] = x[g];
    sync_threads();
    if t >= lo && t < n - 1 && 1 <= g {
        out[g] = tile[t - 1] + tile[t] + tile[t + 1] + x[g - 1];
    }
}

/// A loop whose uniform bound divides by `d` under a uniform `if`: with `go == 0` and `d == 0`
/// the kernel never divides, and neither may a proof of the loop's accesses.
#[kernel]
fn guarded_division(out: &mut [u32], d: u32, go: u32) {
    let t = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    t[tid] = tid as u32;
    sync_threads();
    if go == 1 {
        for j in 0..(64 / d) as usize {
            out[tid] += t[j];
        }
    }
}

/// Each thread's dot product of its tile row and column, in an 8x8 block: a range-proved
/// region of one `for` loop over values kept per thread, which runs eight threads (a row) at a time
/// (`fission/interleave.rs`). An element of `u32::MAX` makes some threads' sums overflow.
#[kernel]
fn dot_rows(m: &[u32], out: &mut [u32]) {
    let t = shared_array![[u32; 8]; 8];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let mut acc = 0u32;
    t[ty][tx] = m[ty * 8 + tx];
    sync_threads();
    for j in 0..8 {
        acc += t[ty][j] * t[j][tx];
    }
    sync_threads();
    out[ty * 8 + tx] = acc;
}

/// Each thread of a 12x4 block adds its input to the cell its predecessor in index order
/// wrote in the same region, and writes the next cell: a race on a GPU, but on the emulator
/// threads run in index order on both paths, so the cells hold prefix sums only if the
/// straight-line region runs its threads in turn (`fission/sequence.rs`), eight at a time
/// with four left over per row. A huge input makes one thread's sum overflow.
#[kernel]
fn chained_cells(input: &[u32], out: &mut [u32]) {
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let g = ty * 12 + tx;
    let p = out[g];
    out[g + 1] = p + input[g];
    sync_threads();
}

#[test]
fn a_region_in_turn_runs_its_threads_in_order_and_names_the_one_that_panics() {
    for big in [false, true] {
        let input: Vec<u32> = (0..48).map(|i| if big && i == 12 + 5 { u32::MAX } else { i as u32 + 1 }).collect();
        let run = || {
            let di = DeviceBuffer::from_slice(&input).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(49).unwrap();
            let r = launch!(chained_cells<<<1, (12, 4)>>>(&di, &mut o));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if big && cfg!(debug_assertions) {
            // Thread (5,1,0), lane 5 of its row's first group, is the first whose sum overflows.
            let report = r.unwrap_err();
            assert!(report.contains("overflow") && report.contains("thread (5,1,0)"), "{report}");
            // The threads before it in index order wrote their cells.
            assert_eq!(out[17], (1..=17).sum::<u32>());
        } else {
            r.unwrap();
            let mut want = 0u32;
            for (k, &o) in out.iter().enumerate() {
                assert_eq!(o, want, "cell {k}");
                want = want.wrapping_add(input.get(k).copied().unwrap_or(0));
            }
        }
    }
    assert_eq!(
        proved_runs(|| {
            let di = DeviceBuffer::from_slice(&[1u32; 48]).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(49).unwrap();
            launch!(chained_cells<<<1, (12, 4)>>>(&di, &mut o)).unwrap();
        }),
        1
    );
}

/// Each thread's sum over a shared 12x4 tile's column, weighted by its own row: an
/// interleaved region (eight threads at a time, four left over per row) reading its tile
/// from a copy taken when the region starts.
#[kernel]
fn weighted_columns(m: &[u32], out: &mut [u32]) {
    let t = shared_array![[u32; 12]; 4];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let mut acc = 0u32;
    t[ty][tx] = m[ty * 12 + tx];
    sync_threads();
    for j in 0..4 {
        acc += t[j][tx] * (t[ty][j] + 1);
    }
    sync_threads();
    out[ty * 12 + tx] = acc;
}

#[test]
fn interleaved_groups_of_a_row_and_its_leftover_threads_agree() {
    let m: Vec<u32> = (0..48).map(|i| (i * 7 % 11) as u32).collect();
    let run = || {
        let dm = DeviceBuffer::from_slice(&m).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(48).unwrap();
        let r = launch!(weighted_columns<<<1, (12, 4)>>>(&dm, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    for (g, &o) in out.iter().enumerate() {
        let (ty, tx) = (g / 12, g % 12);
        let want: u32 = (0..4).map(|j| m[j * 12 + tx] * (m[ty * 12 + j] + 1)).sum();
        assert_eq!(o, want, "element {g}");
    }
}

/// A gather through a permutation read from memory, which no proof covers: each access
/// checks its index only, its views checked live and aligned once per region run.
#[kernel]
fn gather_through(perm: &[u32], x: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 128];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 128 + tid;
    t[tid] = i as u32;
    sync_threads();
    out[i] = t[(tid + 1) % 128] + x[perm[i] as usize];
}

/// Runs `f` with `EMU_VERBOSE` on and returns how many region runs of its last regions launch
/// checked their views once.
fn views_runs(f: impl FnOnce()) -> usize {
    with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        f();
        deviceemu::__private::last_views()
    })
}

#[test]
fn regions_no_proof_covers_check_their_views_once_and_still_report_bad_indices() {
    let n = 128 * 3;
    let x: Vec<u32> = (0..n as u32).map(|v| v * 7 + 1).collect();
    // A bijection of 0..n, then the same with one entry past `x`.
    let good: Vec<u32> = (0..n as u32).map(|v| (v * 97 + 5) % n as u32).collect();
    let mut bad = good.clone();
    bad[128 + 40] = n as u32 + 3;
    for perm in [&good, &bad] {
        let run = || {
            let (dp, dx) = (DeviceBuffer::from_slice(perm).unwrap(), DeviceBuffer::from_slice(&x).unwrap());
            let mut o = DeviceBuffer::<u32>::zeroed(n).unwrap();
            let r = launch!(gather_through<<<3, 128>>>(&dp, &dx, &mut o));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if perm == &good {
            r.unwrap();
            for (i, &o) in out.iter().enumerate() {
                let (b, tid) = (i / 128 * 128, i % 128);
                assert_eq!(o, (b + (tid + 1) % 128) as u32 + x[good[i] as usize], "out[{i}]");
            }
        } else {
            // Reported at the gather's line for thread 40 of block 1, as the general path does
            // (`both_paths` compares the reports).
            let report = r.unwrap_err();
            assert!(report.contains("thread (40,0,0)") && report.contains("block (1,0,0)"), "{report}");
        }
        // The second region of each of the three blocks (the first is range-proved), the bad
        // index's block too: its views are live and aligned, only the index is out of bounds.
        assert_eq!(views_runs(|| drop(run())), 3);
    }
}

/// Runs `f` with `EMU_VERBOSE` on and returns how many region runs of its last regions launch
/// had their bounds proved from their indices' ranges.
fn proved_runs(f: impl FnOnce()) -> usize {
    with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        f();
        deviceemu::__private::last_proved()
    })
}

#[test]
fn a_tiled_product_has_its_bounds_proved_and_agrees() {
    const N: usize = 32;
    const K: usize = 48;
    let a: Vec<u32> = (0..N * K).map(|i| (i % 13) as u32).collect();
    let b: Vec<u32> = (0..K * N).map(|i| (i % 7) as u32).collect();
    let run = || {
        let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
        let mut dc = DeviceBuffer::<u32>::zeroed(N * N).unwrap();
        let r = launch!(tiled_product<<<(2, 2), (16, 16)>>>(&da, &db, &mut dc, K as u32, N as u32));
        (dc.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    for i in 0..N {
        for j in 0..N {
            let want: u32 = (0..K).map(|k| a[i * K + k] * b[k * N + j]).sum();
            assert_eq!(out[i * N + j], want, "c[{i}][{j}]");
        }
    }
    // Per block: both regions of each of the three tiles, and the last store.
    assert_eq!(proved_runs(|| drop(run())), 4 * (3 * 2 + 1));
}

/// A shared tile of a 16x4 block with its halo read from global memory at the tile's edges,
/// as Parboil's stencil does: `bool` locals say where the thread is, and each neighbour comes
/// from the tile in the `else` branch of its edge's flag. The range proof reads the flags:
/// `inside` narrows `x`, and the `else` of `right` (`tx + 1 == edge`) leaves out the last
/// column, so `t[sh + 1]` is in bounds. With `edge` other than the block's width the flag is
/// wrong, `t[sh + 1]` of thread (15,3,0) is past the tile, and the proof must fail.
#[kernel]
fn halo_flags(a: &[u32], out: &mut [u32], n: i32, edge: u32) {
    let t = shared_array![u32; 64];
    let x = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let y = thread_idx().y as i32;
    let sh = (thread_idx().x + thread_idx().y * block_dim().x) as i32;
    let inside: bool = x > 0 && x < n - 1;
    let left: bool = thread_idx().x == 0;
    let right: bool = (thread_idx().x + 1) == edge;
    let top: bool = thread_idx().y == 0;
    t[sh] = a[y * n + x];
    sync_threads();
    if inside {
        let l = if left { a[y * n + x - 1] } else { t[sh - 1] };
        let r = if right { a[y * n + x + 1] } else { t[sh + 1] };
        let up = if top { 0 } else { t[sh - block_dim().x as i32] };
        out[y * n + x] = l + r + up + 2 * t[sh];
    }
}

#[test]
fn halo_flags_and_else_branches_narrow_the_range_proof() {
    const G: usize = 3;
    let n = 16 * G;
    let a: Vec<u32> = (0..4 * n).map(|i| (i * 7 % 23) as u32).collect();
    for edge in [16u32, 4] {
        let run = || {
            let da = DeviceBuffer::from_slice(&a).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(4 * n).unwrap();
            let r = launch!(halo_flags<<<G as u32, (16, 4)>>>(&da, &mut o, n as i32, edge));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if edge == 16 {
            r.unwrap();
            for y in 0..4 {
                for x in 0..n {
                    let want = if x > 0 && x < n - 1 {
                        let up = if y == 0 { 0 } else { a[(y - 1) * n + x] };
                        a[y * n + x - 1] + a[y * n + x + 1] + up + 2 * a[y * n + x]
                    } else {
                        0
                    };
                    assert_eq!(out[y * n + x], want, "out[{y}][{x}]");
                }
            }
            // Both regions of each block.
            assert_eq!(proved_runs(|| drop(run())), 2 * G);
        } else {
            // The tile's last element is its last thread's own; the one after it is past the
            // tile (`both_paths` compares the reports).
            let report = r.unwrap_err();
            assert!(report.contains("thread (15,3,0)"), "{report}");
            // The first region of each block only.
            assert_eq!(proved_runs(|| drop(run())), G);
        }
    }
}

/// A 1-D convolution over a shared tile with a halo of `HALO` on each side, its taps an
/// inclusive loop over `-r..=r` (cuda-samples' `for j in -KERNEL_RADIUS..=KERNEL_RADIUS`): the
/// range proof takes the loop's variable from `-r` to `r`, both ends included. With `r` at
/// most `HALO` every tap is in the tile; with `r = HALO + 1` thread 0's first tap is before it
/// and its last thread's last tap after it, and the proof must fail.
const TAP_HALO: i32 = 4;

#[kernel]
fn inclusive_taps(a: &[u32], out: &mut [u32], r: i32) {
    let t = shared_array![u32; 32 + 2 * TAP_HALO as usize];
    let tid = thread_idx().x as i32;
    let base = (block_idx().x * block_dim().x) as i32;
    t[tid + TAP_HALO] = a[base + tid + TAP_HALO];
    if tid < TAP_HALO {
        t[tid] = a[base + tid];
        t[tid + 32 + TAP_HALO] = a[base + tid + 32 + TAP_HALO];
    }
    sync_threads();
    let mut sum = 0u32;
    for j in -r..=r {
        sum += t[tid + TAP_HALO + j] * (j + 10) as u32;
    }
    out[base + tid] = sum;
}

#[test]
fn an_inclusive_loop_from_a_negated_bound_has_its_range_proved() {
    const G: usize = 3;
    let n = 32 * G;
    let a: Vec<u32> = (0..n + 2 * TAP_HALO as usize).map(|i| (i * 5 % 17) as u32).collect();
    for r in [TAP_HALO, 2, TAP_HALO + 1] {
        let run = || {
            let da = DeviceBuffer::from_slice(&a).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(n).unwrap();
            let res = launch!(inclusive_taps<<<G as u32, 32>>>(&da, &mut o, r));
            (o.to_vec().unwrap(), res)
        };
        let (out, res) = both_paths("regions", run);
        if r <= TAP_HALO {
            res.unwrap();
            for (i, &o) in out.iter().enumerate() {
                let want: u32 = (-r..=r).map(|j| a[(i as i32 + TAP_HALO + j) as usize] * (j + 10) as u32).sum();
                assert_eq!(o, want, "out[{i}] with r = {r}");
            }
            // Both regions of each block.
            assert_eq!(proved_runs(|| drop(run())), 2 * G, "r = {r}");
        } else {
            // The tile's first tap before it, reported as the general path reports it
            // (`both_paths` compares the reports).
            let report = res.unwrap_err();
            assert!(report.contains("thread (0,0,0)"), "{report}");
            // The loads of each block only: no proof covers the taps.
            assert_eq!(proved_runs(|| drop(run())), G);
        }
    }
}

/// Guards the proof must not take at their word: a flag over a value changed after it (`k`),
/// a name bound again after its flag (`t`), and `!=` against a value that differs between
/// threads (`p`: 123 in row 0, 124 in row 1), which leaves out no end of `t`'s range; each
/// in a region of its own, so that each is proved or not alone. The first two keep every access in bounds (a proof that took them would see indices up to 123
/// in a tile of 64); the third reads `s[t - 59]`, past the tile for thread (63,1,0), where `t`
/// is 123 and not `p + 123`: a proof that left 123 out would fail at run time
/// (`proof_failed`), not report the read as the general path does.
#[kernel]
fn flags_that_do_not_narrow(x: &[u32], out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    let mut k = t;
    let small = k < 4;
    k += 60;
    let low = t < 4;
    let t = t + 60;
    let p = thread_idx().y as usize;
    let mut v = 0;
    if small {
        v += s[k];
    }
    sync_threads();
    if low {
        v += s[t];
    }
    sync_threads();
    if t != p + 123 {
        v += s[t - 59];
    } else {
        v += 2 * s[t - 60];
    }
    out[p * 64 + t - 60] = v;
}

#[test]
fn flags_over_changed_or_rebound_values_do_not_narrow_the_proof() {
    let x: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let run = || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(flags_that_do_not_narrow<<<1, (64, 2)>>>(&dx, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    // `both_paths` compared the reports and the memory of both paths.
    let report = r.unwrap_err();
    assert!(report.contains("thread (63,1,0)") && report.contains("index 64 is past the end"), "{report}");
    // Row 0 ran whole: thread 63 takes the `else`, the others read their right neighbour.
    for (t, &o) in out[..64].iter().enumerate() {
        let small = if t < 4 { 2 * x[t + 60] } else { 0 };
        let last = if t == 63 { 2 * x[63] } else { x[t + 1] };
        assert_eq!(o, small + last, "out[0][{t}]");
    }
}

#[test]
fn interleaved_threads_agree_and_a_panicking_group_names_its_thread() {
    for big in [false, true] {
        let m: Vec<u32> = (0..64).map(|i| if big && i == 2 * 8 + 3 { u32::MAX } else { (i % 5) as u32 + 1 }).collect();
        let run = || {
            let dm = DeviceBuffer::from_slice(&m).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
            let r = launch!(dot_rows<<<1, (8, 8)>>>(&dm, &mut o));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if big && cfg!(debug_assertions) {
            // In index order thread (3,0,0) is the first whose sum overflows.
            let report = r.unwrap_err();
            assert!(report.contains("overflow") && report.contains("thread (3,0,0)"), "{report}");
        } else {
            r.unwrap();
            for (g, &o) in out.iter().enumerate() {
                let (ty, tx) = (g / 8, g % 8);
                let want = (0..8).fold(0u32, |a, j| a.wrapping_add(m[ty * 8 + j].wrapping_mul(m[j * 8 + tx])));
                assert_eq!(o, want, "element {g}");
            }
        }
    }
}

#[test]
fn a_range_proof_evaluates_nothing_the_kernel_may_not() {
    for (d, go) in [(0u32, 0u32), (2, 1)] {
        let run = || {
            let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
            let r = launch!(guarded_division<<<1, 64>>>(&mut o, d, go));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        r.unwrap();
        let want = if go == 1 { (0..64 / d).sum() } else { 0 };
        assert!(out.iter().all(|&v| v == want), "d {d} go {go}: {out:?}");
    }
}

#[test]
fn a_range_proof_that_fails_leaves_the_checks_and_their_reports() {
    let input: Vec<u32> = (0..512).map(|v| v * 3 + 1).collect();
    for (s, proved) in [(0, 2), (1, 1), (-1, 1)] {
        let run = || {
            let x = DeviceBuffer::from_slice(&input).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(512).unwrap();
            let r = launch!(shifted_tile<<<2, (16, 16)>>>(&x, &mut o, s));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        for (g, &o) in out.iter().enumerate() {
            let (b, ty, tx) = (g / 256, (g % 256 / 16) as i32, g % 16);
            let row = ty + s;
            let want = if (0..16).contains(&row) { input[b * 256 + row as usize * 16 + tx] } else { 0 };
            assert_eq!(o, want, "s {s}: element {g}");
        }
        if s == 0 {
            r.unwrap();
        } else {
            assert!(r.unwrap_err().contains("out of bounds"), "s {s}");
        }
        // Per block: the first region, and the second where the proof holds.
        assert_eq!(proved_runs(|| drop(run())), 2 * proved, "s {s}");
    }
}

#[test]
fn a_guard_narrows_the_ranges_a_proof_takes() {
    let x: Vec<u32> = (0..128).map(|v| v * 5 + 2).collect();
    for (lo, proved) in [(1, 2), (0, 1)] {
        let run = || {
            let dx = DeviceBuffer::from_slice(&x).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
            let r = launch!(guarded_stencil<<<2, 64>>>(&dx, &mut o, 64, lo));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if lo == 1 {
            r.unwrap();
            for (g, &o) in out.iter().enumerate() {
                let t = g % 64;
                let want = if (1..63).contains(&t) { x[g - 1] + x[g] + x[g + 1] + x[g - 1] } else { 0 };
                assert_eq!(o, want, "element {g}");
            }
        } else {
            // Thread 0 reads `tile[-1]`: the proof of the guarded region fails and its checks
            // report it, as on the general path (`both_paths` compares the reports).
            let report = r.unwrap_err();
            assert!(report.contains("out of bounds") && report.contains("thread (0,0,0)"), "{report}");
        }
        // Per block: the tile's load, and the guarded region where the guard keeps its
        // indices in bounds (`t - 1 >= 0`, `t + 1 < 64`, `g - 1 >= 0`).
        assert_eq!(proved_runs(|| drop(run())), 2 * proved, "lo {lo}");
    }
}

// ------------------------------------------------------------------ lowered warp shuffles

/// A block sum through warp shuffles: each warp's tree with `shfl_down_sync`, the warps' sums
/// through shared memory, and the first warp's butterfly with `shfl_xor_sync` under `if tid <
/// 32` (whole warps), whose `v` and `offset` shadow the outer ones.
#[kernel]
fn warp_sums(input: &[u32], out: &mut [u32]) {
    let sums = shared_array![u32; 8];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    let mut v = if i < input.len() { input[i] } else { 0 };
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(FULL_MASK, v, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        sums[tid / 32] = v;
    }
    sync_threads();
    if tid < 32 {
        let mut v = if tid < 8 { sums[tid] } else { 0 };
        let mut offset = 16;
        while offset > 0 {
            v += shfl_xor_sync(FULL_MASK, v, offset);
            offset /= 2;
        }
        if tid == 0 {
            out[block_idx().x as usize] = v;
        }
    }
}

/// Each shuffle kind once, with a source lane that varies by lane and a delta past the warp
/// (only its low five bits count).
#[kernel]
fn shuffle_kinds(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let v = tid as u32 * 7 + 1;
    let a = shfl_up_sync(FULL_MASK, v, 3);
    let b = shfl_sync(FULL_MASK, v, (tid as u32) ^ 5);
    let c = shfl_down_sync(0xffff_ffff, v, 40);
    let d = shfl_xor_sync(u32::MAX, v, 17);
    out[tid * 4] = a;
    out[tid * 4 + 1] = b;
    out[tid * 4 + 2] = c;
    out[tid * 4 + 3] = d;
}

/// The three votes, with a predicate that varies by lane and one that holds in one lane only.
#[kernel]
fn votes(input: &[u32], out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let p = input[tid] % 3 == 0;
    let b = ballot_sync(FULL_MASK, p);
    let a = all_sync(FULL_MASK, input[tid] < 1000);
    let y = any_sync(!0, p && tid % 32 == 5);
    out[tid * 3] = b;
    out[tid * 3 + 1] = a as u32;
    out[tid * 3 + 2] = y as u32;
}

/// Lane 3 of each warp faults before the shuffle and the ballot: it takes no part, so lane 19
/// reads 0 from it and the ballot leaves its bit clear, on both paths, with no report beyond
/// the fault.
#[kernel]
fn fault_then_collectives(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let off = if t % 32 == 3 { 100 } else { 0 };
    let v = x[t + off];
    let w = shfl_xor_sync(FULL_MASK, v, 16);
    let b = ballot_sync(FULL_MASK, v % 2 == 1);
    out[t * 2] = w;
    out[t * 2 + 1] = b;
}

/// Runs `f` on the general path and on the default one under every configuration: the
/// outputs agree, and the default path takes the regions without a checker or seed, the
/// general path with one (a lowered shuffle has no per-access checks, and the seed shuffles
/// the lanes a collective resumes).
fn warp_paths(f: impl Fn() -> (Vec<u32>, Result<(), deviceemu::Error>)) -> Outcome {
    let mut first = None;
    for c in configs() {
        let general = run_u32(&c.clone().path(ExecPath::General), &f);
        let want = if c.get_checks() == Checks::none() && c.get_seed().is_none() { "regions" } else { "general" };
        let fast = run_u32(&c.clone().path(ExecPath::Auto), || {
            let r = f();
            assert_eq!(last_path(), want, "{c:?}");
            r
        });
        assert_eq!(fast, general, "{c:?}");
        first.get_or_insert(fast);
    }
    first.expect("configurations")
}

#[test]
fn warp_shuffles_run_as_regions_with_the_same_sums() {
    let n: usize = 256 * 9 + 77;
    let input: Vec<u32> = (0..n as u32).map(|v| v.wrapping_mul(2654435761) >> 12).collect();
    let (out, r) = warp_paths(|| {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(n.div_ceil(256)).unwrap();
        let r = launch!(warp_sums<<<n.div_ceil(256) as u32, 256>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    let want: Vec<u32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(out, want);
}

#[test]
fn each_lowered_shuffle_reads_the_lane_the_general_path_reads() {
    let (out, r) = warp_paths(|| {
        let mut o = DeviceBuffer::<u32>::zeroed(64 * 4).unwrap();
        let r = launch!(shuffle_kinds<<<1, 64>>>(&mut o));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    let v = |t: usize| t as u32 * 7 + 1;
    for t in 0..64 {
        let (lane, base) = (t % 32, t - t % 32);
        assert_eq!(out[t * 4], if lane >= 3 { v(t - 3) } else { v(t) }, "up, thread {t}");
        assert_eq!(out[t * 4 + 1], v(base + ((t ^ 5) % 32)), "idx, thread {t}");
        assert_eq!(out[t * 4 + 2], if lane + 8 < 32 { v(t + 8) } else { v(t) }, "down by 40 & 31, thread {t}");
        assert_eq!(out[t * 4 + 3], v(base + (lane ^ 17)), "xor, thread {t}");
    }
}

#[test]
fn lowered_shuffles_need_whole_warps() {
    // 48 threads: the second warp has 16 lanes, so the kernel runs on the general path.
    let c = Config::default().blocks(BlockOrder::Serial);
    with_config(c, || {
        let mut o = DeviceBuffer::<u32>::zeroed(48 * 4).unwrap();
        let _ = deviceemu::quietly(|| launch!(shuffle_kinds<<<1, 48>>>(&mut o)));
        assert_eq!(last_path(), "general");
    });
}

#[test]
fn lowered_votes_agree_with_the_general_path() {
    // Warp 1 has an element of 1000 or more (its `all_sync` is false); lane 5 of warp 0 holds
    // a multiple of 3, that of warp 2 does not.
    let input: Vec<u32> = (0..96u32)
        .map(|t| {
            if t == 40 {
                1234
            } else if t == 69 {
                7
            } else {
                t * 5 + 1
            }
        })
        .collect();
    let (out, r) = warp_paths(|| {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(96 * 3).unwrap();
        let r = launch!(votes<<<1, 96>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    });
    r.unwrap();
    for w in 0..3 {
        let lanes = &input[w * 32..w * 32 + 32];
        let ballot = lanes.iter().enumerate().fold(0u32, |m, (l, v)| m | u32::from(v % 3 == 0) << l);
        let all = lanes.iter().all(|&v| v < 1000);
        let any = lanes[5] % 3 == 0;
        for l in 0..32 {
            let t = w * 32 + l;
            assert_eq!(out[t * 3..t * 3 + 3], [ballot, all as u32, any as u32], "thread {t}");
        }
    }
}

#[test]
fn a_lane_that_faults_before_a_lowered_shuffle_takes_no_part() {
    let (out, r) = warp_paths(|| {
        let x = DeviceBuffer::from_slice(&(0..64u32).collect::<Vec<_>>()).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(128).unwrap();
        let r = launch!(fault_then_collectives<<<1, 64>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    });
    let report = r.unwrap_err();
    assert_eq!(report.matches("Invalid __global__ read").count(), 2, "{report}");
    // Lane 19 of each warp shuffles from lane 3, which faulted.
    assert_eq!(out[19 * 2], 0);
    assert_eq!(out[(32 + 19) * 2], 0);
    assert_eq!(out[18 * 2], 2);
    // Odd values in the odd lanes; lane 3 takes no part: its bit is clear.
    assert_eq!(out[1], 0xaaaa_aaaa & !(1 << 3));
}

/// A shuffle and an atomic: the tickets show the order lanes run in after the shuffle, which
/// the general path's scheduler picks, so the kernel keeps the general path.
#[kernel]
fn shuffle_then_ticket(out: &mut [u32]) {
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
fn warp_collectives_with_atomics_keep_the_general_path() {
    with_config(Config::default().blocks(BlockOrder::Serial), || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(shuffle_then_ticket<<<1, 64>>>(&mut o)).unwrap();
        assert_eq!(last_path(), "general");
        let mut o = DeviceBuffer::<u32>::zeroed(64 * 4).unwrap();
        launch!(shuffle_kinds<<<1, 64>>>(&mut o)).unwrap();
        assert_eq!(last_path(), "regions");
    });
}

/// The stencil's staging region: every thread stages its element, thread 0 and thread 255 the
/// halo elements on either side (`if tid == c`, run after the lanes by that thread alone), and
/// a halo that the lanes' own range covers (`if tid == 1 { t[5] = .. }`: kept scalar).
#[kernel]
fn halo_stencil(input: &[u32], out: &mut [u32], overlap: u32) {
    let t = shared_array![u32; 258];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid + 1] = if i < input.len() { input[i] } else { 0 };
    if tid == 0 {
        t[0] = if i > 0 { input[i - 1] } else { 0 };
    }
    if tid == 255 {
        t[257] = if i + 1 < input.len() { input[i + 1] } else { 0 };
    }
    if tid == 1 {
        t[overlap as usize] += 1000;
    }
    sync_threads();
    if i < out.len() {
        out[i] = t[tid] + 2 * t[tid + 1] + 3 * t[tid + 2];
    }
}

#[test]
fn single_thread_statements_run_after_a_vectorised_region() {
    let n: usize = 256 * 4;
    let input: Vec<u32> = (0..n as u32).map(|v| v * 3 + 1).collect();
    // `overlap` 0 is the halo element thread 0 writes; 300 is past the tile (a fault that thread
    // 1 reports, after its lanes' element); 5 lies in the lanes' range (the region stays scalar).
    for overlap in [0u32, 300, 5] {
        let run = || {
            let x = DeviceBuffer::from_slice(&input).unwrap();
            let mut o = DeviceBuffer::<u32>::zeroed(n).unwrap();
            let r = launch!(halo_stencil<<<4, 256>>>(&x, &mut o, overlap));
            (o.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        let vectorised = vectorised_runs(|| drop(deviceemu::quietly(run)));
        if overlap == 300 {
            assert!(r.unwrap_err().contains("index 300"));
            continue;
        }
        r.unwrap();
        let at = |k: isize| if k < 0 || k as usize >= n { 0 } else { input[k as usize] };
        for (k, &o) in out.iter().enumerate() {
            let tile = |j: isize| at(k as isize / 256 * 256 + j - 1);
            let j = (k % 256) as isize;
            let mut t = [tile(j), tile(j + 1), tile(j + 2)];
            // Thread 1's `+= 1000` on t[0] comes after thread 0's halo store and stays; on t[5]
            // thread 4 overwrites it (index order).
            if overlap == 0 && j == 0 {
                t[0] += 1000;
            }
            assert_eq!(o, t[0] + 2 * t[1] + 3 * t[2], "element {k}, overlap {overlap}");
        }
        // Both regions of the four blocks, unless `t[5]` overlaps the lanes' range.
        assert_eq!(vectorised, if overlap == 5 { 4 } else { 8 }, "overlap {overlap}");
    }
}

/// One shuffle of each kind with the operand a parameter: probe 14's kernels
/// (`tools/probes/p14_shfl_operands.cu`).
#[kernel]
fn p14_down(out: &mut [u32], operand: u32) {
    let t = thread_idx().x as usize;
    let r = shfl_down_sync(FULL_MASK, 7 * t as u32 + 1, operand);
    out[t] = r;
}
#[kernel]
fn p14_up(out: &mut [u32], operand: u32) {
    let t = thread_idx().x as usize;
    let r = shfl_up_sync(FULL_MASK, 7 * t as u32 + 1, operand);
    out[t] = r;
}
#[kernel]
fn p14_xor(out: &mut [u32], operand: u32) {
    let t = thread_idx().x as usize;
    let r = shfl_xor_sync(FULL_MASK, 7 * t as u32 + 1, operand);
    out[t] = r;
}
#[kernel]
fn p14_idx(out: &mut [u32], operand: u32) {
    let t = thread_idx().x as usize;
    let r = shfl_sync(FULL_MASK, 7 * t as u32 + 1, operand);
    out[t] = r;
}

#[test]
fn shuffle_operands_past_the_warp_match_the_h200() {
    // Probe 14 on the H200 (tools/probes/RESULTS.md, section 15): 4 kinds x 16 operands x 64
    // threads, `op operand thread value` per line.
    let data = include_str!("../../data/p14_shfl_operands.txt");
    let mut want: std::collections::BTreeMap<(u32, u32), Vec<u32>> = Default::default();
    for line in data.lines() {
        let f: Vec<u32> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
        want.entry((f[0], f[1])).or_insert_with(|| vec![0; 64])[f[2] as usize] = f[3];
    }
    assert_eq!(want.len(), 64);
    for ((op, operand), w) in &want {
        let (op, operand) = (*op, *operand);
        let (got, r) = warp_paths(|| {
            let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
            let r = match op {
                0 => launch!(p14_down<<<1, 64>>>(&mut o, operand)),
                1 => launch!(p14_up<<<1, 64>>>(&mut o, operand)),
                2 => launch!(p14_xor<<<1, 64>>>(&mut o, operand)),
                _ => launch!(p14_idx<<<1, 64>>>(&mut o, operand)),
            };
            (o.to_vec().unwrap(), r)
        });
        r.unwrap();
        assert_eq!(&got, w, "op {op}, operand {operand}");
    }
}

/// A shadowing `let` in a warp-aligned `if` with a shuffle (fission needs it renamed) whose
/// value a format string names inline (`"{v}"`, which a renaming would leave naming the outer
/// `v`): it is not renamed, and the general path runs the kernel.
#[kernel]
fn shadow_printed(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = t as u32;
    sync_threads();
    if t < 32 {
        let v = v * 2;
        let w = shfl_down_sync(FULL_MASK, v, 1);
        if t == 40 {
            kprintln!("{v}");
        }
        out[t] = w;
    }
}

#[test]
fn a_shadowing_let_named_in_a_format_string_keeps_the_general_path() {
    with_config(Config::default().blocks(BlockOrder::Serial), || {
        let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(shadow_printed<<<1, 64>>>(&mut o)).unwrap();
        assert_eq!(last_path(), "general");
        assert_eq!(o.to_vec().unwrap()[..32], (0..32).map(|t| 2 * (t + u32::from(t < 31))).collect::<Vec<u32>>()[..]);
    });
}

/// Lanes that stop at a fault before a shuffle of a value kept across a barrier hand nothing
/// over: the lanes that read from them get 0, as on the general path, and not what their
/// slots held from an earlier block of the same runner (the odd blocks lose every fourth lane
/// to a read past the end of `input`).
#[kernel]
fn shuffle_past_stopped_lanes(input: &[u32], out: &mut [u32]) {
    let t = thread_idx().x;
    let g = (block_idx().x * block_dim().x + t) as usize;
    let far = if block_idx().x % 2 == 1 && t % 4 == 1 { 1 << 20 } else { 0 };
    let v: u32 = input[g + far] + 1;
    sync_threads();
    let w = shfl_down_sync(FULL_MASK, v, 1);
    out[g] = w;
}

#[test]
fn lanes_that_stopped_hand_nothing_to_a_shuffle_of_a_kept_value() {
    let (blocks, threads) = (4usize, 64usize);
    let input: Vec<u32> = (0..(blocks * threads) as u32).map(|v| v * 7 + 3).collect();
    let (out, r) = warp_paths(|| {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(blocks * threads).unwrap();
        let r = launch!(shuffle_past_stopped_lanes<<<blocks as u32, threads as u32>>>(&x, &mut o));
        (o.to_vec().unwrap(), r)
    });
    assert!(r.is_err(), "the reads past the end are reported");
    let gone = |g: usize| (g / threads) % 2 == 1 && g % 4 == 1;
    for (g, &o) in out.iter().enumerate() {
        let src = if g % 32 < 31 { g + 1 } else { g };
        let want = if gone(g) || gone(src) { 0 } else { input[src] + 1 };
        assert_eq!(o, want, "thread {g}");
    }
}

/// Shapes of lowered shuffles from other people's kernels: a typed `let`, a broadcast of a
/// uniform value, a shuffle of a loaded element, a 64-bit value, and CUDA's shuffle-up scan
/// (`if lane >= d { x += y }`) in a uniform loop.
#[kernel]
fn shuffle_shapes(input: &[u32], wide: &[f64], out: &mut [u32], out_wide: &mut [f64], k: u32) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    let a: u32 = shfl_down_sync(FULL_MASK, input[t], 2);
    let b = shfl_sync(FULL_MASK, k * 3, 7);
    let c = shfl_xor_sync(FULL_MASK, wide[t], 1);
    let mut x = input[t];
    let mut d = 1;
    while d < 32 {
        let y = shfl_up_sync(FULL_MASK, x, d);
        if lane >= d {
            x += y;
        }
        d *= 2;
    }
    out[t * 3] = a;
    out[t * 3 + 1] = b;
    out[t * 3 + 2] = x;
    out_wide[t] = c;
}

#[test]
fn shuffles_in_other_shapes_agree_with_the_general_path() {
    let input: Vec<u32> = (0..128u32).map(|v| v * 13 % 101).collect();
    let wide: Vec<f64> = (0..128).map(|v| v as f64 * 0.37 - 9.0).collect();
    let run = || {
        let x = DeviceBuffer::from_slice(&input).unwrap();
        let w = DeviceBuffer::from_slice(&wide).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(128 * 3).unwrap();
        let mut ow = DeviceBuffer::<f64>::zeroed(128).unwrap();
        let r = launch!(shuffle_shapes<<<1, 128>>>(&x, &w, &mut o, &mut ow, 5));
        let mut v = o.to_vec().unwrap();
        v.extend(ow.to_vec().unwrap().iter().flat_map(|f| [f.to_bits() as u32, (f.to_bits() >> 32) as u32]));
        (v, r)
    };
    let (out, r) = warp_paths(run);
    r.unwrap();
    for t in 0..128 {
        let (lane, base) = (t % 32, t - t % 32);
        assert_eq!(out[t * 3], input[if lane + 2 < 32 { t + 2 } else { t }], "down, thread {t}");
        assert_eq!(out[t * 3 + 1], 15, "broadcast, thread {t}");
        assert_eq!(out[t * 3 + 2], input[base..=t].iter().sum::<u32>(), "scan, thread {t}");
        let c = f64::from_bits(u64::from(out[384 + 2 * t]) | u64::from(out[384 + 2 * t + 1]) << 32);
        assert_eq!(c, wide[base + (lane ^ 1)], "wide xor, thread {t}");
    }
}

/// cuda-samples' reduce1 (interleaved addressing): `index = 2 * s * tid`, and only the
/// threads whose index is below the block run the step. The region runs the threads below
/// `ceil(blockDim.x / (2 * s))` (`Regions::scaled_bound`): every product of the block fits.
#[kernel]
fn interleaved_tree_sum(input: &[u32], out: &mut [u32]) {
    let sdata = shared_array![u32; 256];
    let tid: u32 = thread_idx().x;
    sdata[tid] = input[block_idx().x * block_dim().x + tid];
    sync_threads();
    let mut s: u32 = 1;
    while s < block_dim().x {
        let index: i32 = (2 * s * tid) as i32;
        if (index as u32) < block_dim().x {
            sdata[index] += sdata[index + s as i32];
        }
        sync_threads();
        s *= 2;
    }
    if tid == 0 {
        out[block_idx().x] = sdata[0];
    }
}

/// The same shape with products that pass `i32::MAX`: `(k * tid) as i32` truncates, so
/// threads far past `ceil(n / k)` pass the comparison (every thread whose product is a
/// multiple of 2^32). The bound is then every thread, and the comparison decides.
#[kernel]
fn scaled_past_i32(out: &mut [u32], k: u64, n: u32) {
    let tid = thread_idx().x as u64;
    sync_threads();
    let index = (k * tid) as i32;
    if (index as u32) < n {
        out[tid as usize] += 1;
    }
    sync_threads();
}

/// Runs `f` with `EMU_VERBOSE` on and returns the count `last` gives of its last regions
/// launch (`last_scaled`: region runs that skipped the threads past a scaled bound;
/// `last_strided`: runs of every n-th thread only).
fn verbose_count(last: fn() -> usize, f: impl FnOnce()) -> usize {
    with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        f();
        last()
    })
}

/// SHOC's `scanLocalMem` step as it writes it: `idx` moved by a statement-level `+=` between
/// barriers, and `t` assigned again, both once per thread.
#[kernel]
fn moved_index_scan(input: &[u32], out: &mut [u32]) {
    let s = shared_array![u32; 128];
    let mut idx: i32 = thread_idx().x as i32;
    s[idx] = 0;
    sync_threads();
    idx += block_dim().x as i32;
    s[idx] = input[(block_idx().x * 64 + thread_idx().x) as usize];
    sync_threads();
    let mut t: u32 = s[idx - 1];
    sync_threads();
    s[idx] += t;
    sync_threads();
    t = s[idx - 2];
    sync_threads();
    s[idx] += t;
    sync_threads();
    out[(block_idx().x * 64 + thread_idx().x) as usize] = s[idx];
}

#[test]
fn an_index_moved_by_a_statement_level_assignment_is_recomputed_and_vectorised() {
    let x: Vec<u32> = (0..192).map(|v| v * 3 + 1).collect();
    let run = || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut o = DeviceBuffer::<u32>::zeroed(192).unwrap();
        let r = launch!(moved_index_scan<<<3, 64>>>(&dx, &mut o));
        (o.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    for (g, &o) in out.iter().enumerate() {
        let (b, t) = (g / 64 * 64, g % 64);
        let want: u32 = (t.saturating_sub(3)..=t).map(|u| x[b + u]).sum();
        assert_eq!(o, want, "element {g}");
    }
    // `idx` and its moved value are recomputed, not kept per thread: all seven regions are
    // vectorised, the loads `s[idx - 1]` and `s[idx - 2]` too (the lane plus
    // `block_dim - 1`, `block_dim - 2`: `linear` in `fission/vector.rs`).
    assert_eq!(verbose_count(deviceemu::__private::last_vectorised, || drop(run())), 3 * 7);
}

/// CUB's block reduction's last region (`BlockReduceWarpReductions::ApplyWarpAggregates`, then
/// the example's store): thread 0 adds what the others left in shared memory, a plain `let`
/// passes its total on, and thread 0 stores it. Only thread 0 does anything in that region.
#[kernel]
fn total_from_thread_zero(x: &[i32], out: &mut [i32]) {
    let s = shared_array![i32; 128];
    let linear_tid: i32 = thread_idx().x as i32;
    let mut total: i32 = x[(block_idx().x * block_dim().x) as usize + linear_tid as usize];
    s[linear_tid] = total;
    sync_threads();
    if linear_tid == 0 {
        for k in 1..block_dim().x as i32 {
            total += s[k];
        }
    }
    let aggregate: i32 = total;
    if thread_idx().x == 0 {
        out[block_idx().x] = aggregate;
    }
}

/// The same shape, but the plain `let` before the `if` is read after the next barrier by
/// every thread: no thread may be skipped.
#[kernel]
fn kept_value_beside_thread_zero(x: &[i32], out: &mut [i32]) {
    let s = shared_array![i32; 128];
    let linear_tid: i32 = thread_idx().x as i32;
    let g = (block_idx().x * block_dim().x) as usize + linear_tid as usize;
    let mine: i32 = x[g];
    s[linear_tid] = mine;
    sync_threads();
    let kept: i32 = mine;
    if linear_tid == 0 {
        s[0] = s[block_dim().x as i32 - 1];
    }
    sync_threads();
    out[g] = kept * 1000 + s[0];
}

fn narrowed_runs(f: impl FnOnce()) -> usize {
    verbose_count(deviceemu::__private::last_narrowed, f)
}

#[test]
fn a_region_of_plain_lets_and_thread_zero_ifs_runs_thread_zero_alone() {
    let (blocks, threads) = (3usize, 128usize);
    let x: Vec<i32> = (0..(blocks * threads) as i32).map(|v| v * 7 % 31 - 9).collect();
    let as_u32 = |v: Vec<i32>| v.into_iter().map(|e| e as u32).collect::<Vec<u32>>();
    let run = || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<i32>::zeroed(blocks).unwrap();
        let r = launch!(total_from_thread_zero<<<blocks as u32, threads as u32>>>(&dx, &mut out));
        (as_u32(out.to_vec().unwrap()), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> = as_u32(x.chunks(threads).map(|b| b.iter().sum()).collect());
    assert_eq!(out, want);
    // The region after the barrier runs thread 0 alone in each block.
    assert_eq!(narrowed_runs(|| drop(run())), blocks);

    let run = || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<i32>::zeroed(blocks * threads).unwrap();
        let r = launch!(kept_value_beside_thread_zero<<<blocks as u32, threads as u32>>>(&dx, &mut out));
        (as_u32(out.to_vec().unwrap()), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> =
        as_u32((0..blocks * threads).map(|g| x[g] * 1000 + x[g / threads * threads + threads - 1]).collect());
    assert_eq!(out, want);
    assert_eq!(narrowed_runs(|| drop(run())), 0, "every thread keeps its value: no run is narrowed");
}

fn scaled_runs(f: impl FnOnce()) -> usize {
    verbose_count(deviceemu::__private::last_scaled, f)
}

#[test]
fn a_scaled_index_below_the_block_runs_only_the_threads_it_can_pass() {
    let (blocks, threads) = (3usize, 256usize);
    let x: Vec<u32> = (0..(blocks * threads) as u32).map(|v| v * 7 % 31).collect();
    // The interleaved tree, as the kernel adds: element `i` takes `i + s` for `i` a multiple of
    // `2 * s`.
    let want: Vec<u32> = x
        .chunks(threads)
        .map(|b| {
            let mut t = b.to_vec();
            let mut s = 1;
            while s < threads {
                for i in (0..threads).step_by(2 * s) {
                    t[i] += t[i + s];
                }
                s *= 2;
            }
            t[0]
        })
        .collect();
    let run = || {
        let input = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        let r = launch!(interleaved_tree_sum<<<blocks as u32, threads as u32>>>(&input, &mut out));
        (out.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    assert_eq!(out, want);
    // Eight steps of each of the three blocks skip the threads past their bound.
    assert_eq!(scaled_runs(|| drop(run())), blocks * 8);

    // Products past i32::MAX: no thread is skipped, and those whose truncated product is
    // below `n` (0, 8, 16, .. for k = 2^29) write.
    let run = || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(scaled_past_i32<<<1, 64>>>(&mut out, 1 << 29, 5));
        (out.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    let want: Vec<u32> = (0..64u64).map(|t| u32::from((((t << 29) as i32) as u32) < 5)).collect();
    assert_eq!(out, want);
    assert!(want.iter().filter(|&&w| w == 1).count() > 1, "threads past ceil(n / k) pass");
    assert_eq!(scaled_runs(|| drop(run())), 0, "no run is narrowed");
}

/// cuda-samples' reduce0 (interleaved addressing with a modulo): only the threads whose index
/// is a multiple of `2 * s` run the step, which `Regions::each_strided` runs alone.
#[kernel]
fn modulo_tree_sum(input: &[u32], out: &mut [u32]) {
    let sdata = shared_array![u32; 256];
    let tid: u32 = thread_idx().x;
    sdata[tid] = input[block_idx().x * block_dim().x + tid];
    sync_threads();
    let mut s: u32 = 1;
    while s < block_dim().x {
        if (tid % (2 * s)) == 0 {
            sdata[tid] += sdata[tid + s];
        }
        sync_threads();
        s *= 2;
    }
    if tid == 0 {
        out[block_idx().x] = sdata[0];
    }
}

/// The same test with a step of any sign (below 2, every thread runs), and on a local that
/// `i8` truncates (thread 256 is 0 as `i8`, and passes `% 3 == 0`), which is not the thread's
/// index and runs every thread.
#[kernel]
fn modulo_steps(out: &mut [u32], m: i32) {
    let tid = thread_idx().x as i32;
    let narrow = thread_idx().x as i8;
    sync_threads();
    if 0 == tid % m {
        out[tid as usize] += 1;
    }
    sync_threads();
    if narrow % 3 == 0 {
        out[tid as usize] += 10;
    }
    sync_threads();
}

fn strided_runs(f: impl FnOnce()) -> usize {
    verbose_count(deviceemu::__private::last_strided, f)
}

#[test]
fn a_modulo_step_runs_only_the_threads_it_can_pass() {
    let (blocks, threads) = (3usize, 256usize);
    let x: Vec<u32> = (0..(blocks * threads) as u32).map(|v| v * 11 % 37).collect();
    let want: Vec<u32> = x.chunks(threads).map(|b| b.iter().sum()).collect();
    let run = || {
        let input = DeviceBuffer::from_slice(&x).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        let r = launch!(modulo_tree_sum<<<blocks as u32, threads as u32>>>(&input, &mut out));
        (out.to_vec().unwrap(), r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    assert_eq!(out, want);
    // Eight steps of each block run every (2 * s)-th thread.
    assert_eq!(strided_runs(|| drop(run())), blocks * 8);

    // Steps of the block's size and past it (thread 0 alone passes) test the strided loop's
    // first-and-last step, and i32::MAX its sum, which must not wrap.
    for m in [3, 1, -4, 0, 320, 1000, i32::MAX] {
        let run = || {
            let mut out = DeviceBuffer::<u32>::zeroed(320).unwrap();
            let r = launch!(modulo_steps<<<1, 320>>>(&mut out, m));
            (out.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        if m == 0 {
            // `tid % 0` panics in every thread, on both paths alike (checked above).
            assert!(r.is_err(), "m = 0");
            continue;
        }
        r.unwrap();
        let want: Vec<u32> = (0..320i32).map(|t| u32::from(t % m == 0) + 10 * u32::from((t as i8) % 3 == 0)).collect();
        assert_eq!(out, want, "m = {m}");
        assert_eq!(out[256] / 10, 1, "thread 256 passes `narrow % 3 == 0`");
        assert_eq!(strided_runs(|| drop(run())), usize::from(m >= 2), "m = {m}");
    }
}

// ------------------------------------------------------------------ voting barriers

/// `__syncthreads_or` as a loop's exit: a max filter that runs until nothing changes.
#[kernel]
fn until_nothing_changes(v: &mut [u32], passes: &mut [u32]) {
    let s = shared_array![u32; 128];
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    s[t] = v[b * 128 + t];
    sync_threads();
    let mut changed = true;
    let mut n: u32 = 0;
    while changed {
        let left = if t > 0 { s[t - 1] } else { 0 };
        sync_threads();
        let c = left > s[t];
        if c {
            s[t] = left;
        }
        changed = sync_threads_or(c);
        n += 1;
    }
    v[b * 128 + t] = s[t];
    if t == 0 {
        passes[b] = n;
    }
}

/// `__syncthreads_count` and `__syncthreads_and` bound by `let`, one dropped, after threads
/// exited.
#[kernel]
fn votes_after_exits(out: &mut [u32], live: u32) {
    let t = thread_idx().x;
    if t >= live {
        return;
    }
    let evens = sync_threads_count(t % 2 == 0);
    let all_small: bool = sync_threads_and(t < 40);
    sync_threads_or(t == 3);
    let any_big = sync_threads_or(t > 50);
    let i = (block_idx().x * block_dim().x + t) as usize;
    out[i] = evens * 100 + u32::from(all_small) * 10 + u32::from(any_big);
}

#[test]
fn voting_barriers_take_regions_with_the_counts_of_the_live_threads() {
    let x: Vec<u32> = (0..256u32).map(|i| (i * 7919) % 1000).collect();
    let run = || {
        let mut v = DeviceBuffer::from_slice(&x).unwrap();
        let mut p = DeviceBuffer::<u32>::zeroed(2).unwrap();
        let r = launch!(until_nothing_changes<<<2, 128>>>(&mut v, &mut p));
        let mut out = v.to_vec().unwrap();
        out.extend(p.to_vec().unwrap());
        (out, r)
    };
    let (out, r) = both_paths("regions", run);
    r.unwrap();
    // A running maximum from the left, and the passes that took (the last changes nothing).
    let mut want = Vec::new();
    let mut passes = Vec::new();
    for b in x.chunks(128) {
        let mut s = b.to_vec();
        let mut n = 0;
        loop {
            n += 1;
            let before = s.clone();
            for t in 1..128 {
                s[t] = s[t].max(before[t - 1]);
            }
            if s == before {
                break;
            }
        }
        want.extend(&s);
        passes.push(n);
    }
    want.extend(passes);
    assert_eq!(out, want);
    // What the H200 gives for the same kernel and input (tools/probes/p18_vote_exits.cu,
    // RESULTS.md section 21): 37 passes in each block, last elements 981 and 993.
    assert_eq!((out[256], out[257], out[127], out[255]), (37, 37, 981, 993));

    for live in [64u32, 45, 30] {
        let run = || {
            let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
            let r = launch!(votes_after_exits<<<2, 64>>>(&mut out, live));
            (out.to_vec().unwrap(), r)
        };
        let (out, r) = both_paths("regions", run);
        r.unwrap();
        let evens = live.div_ceil(2);
        let want = evens * 100 + u32::from(live <= 40) * 10 + u32::from(live > 51);
        // The H200 (p18_vote_exits.cu): exited threads do not vote.
        let h200 = match live {
            64 => 3201,
            45 => 2300,
            _ => 1510,
        };
        assert_eq!(want, h200, "live {live}");
        for b in 0..2 {
            for t in 0..64 {
                let got = out[b * 64 + t as usize];
                assert_eq!(got, if t < live { want } else { 0 }, "live {live}, block {b}, thread {t}");
            }
        }
    }
}
