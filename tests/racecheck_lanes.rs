//! racecheck and initcheck on the vectorised lane loop (`Regions::each_chunk`): a kernel's
//! checked copy keeps the chunked form and checks each access site once per chunk
//! (`__private::lane_check`). Races and reads of unwritten memory are reported as the general
//! path reports them (same text), and a clean kernel decides every lane in the chunk's common
//! case.
//!
//! The tests of this file share process-wide counters (`__private::lane_checks`), so they run
//! one at a time (`serial`).

#[path = "it/common/mod.rs"]
mod common;

use common::{assert_has, assert_lacks, marked_line};
use deviceemu::__private::{lane_checks, last_path};
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Checks, Config, Error, ExecPath};

/// The line of this file that ends with `marker`.
fn line_of(marker: &str) -> usize {
    marked_line(include_str!("racecheck_lanes.rs"), marker)
}

/// One test at a time: the counters are the process's.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn racecheck() -> Checks {
    Checks { racecheck: true, ..Checks::default() }
}

fn initcheck() -> Checks {
    Checks { initcheck: true, ..Checks::default() }
}

/// `y = a * x + y`: each block covers its own elements.
#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i]; // SAXPY
    }
}

/// The same with blocks 128 elements apart: with 256 threads, consecutive blocks both read
/// and write the 128 elements where they overlap.
#[kernel]
fn overlapping(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * 128 + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i]; // OVERLAP
    }
}

/// `out[i] = x[i] + 1`.
#[kernel]
fn add_one(x: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = x[i] + 1.0; // ADD ONE
    }
}

/// Writes the even elements of `x` only (a branch: not a vectorised lane loop).
#[kernel]
fn write_even(x: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() && i % 2 == 0 {
        x[i] = i as f32;
    }
}

/// `out[i] = x[i] / d[i]` on integers: a zero divisor panics in the middle of a chunk.
#[kernel]
fn divide(x: &[u32], d: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = x[i] / d[i]; // DIVIDE
    }
}

/// What one launch gave: the buffer after it, the launch's result, the path it took, and the
/// counters' change (per-chunk checks, lanes handed to the per-access path).
struct Run<T> {
    out: Vec<T>,
    result: Result<(), Error>,
    path: &'static str,
    chunks: u64,
    slow: u64,
}

fn run<T>(config: Config, f: impl FnOnce() -> (Vec<T>, Result<(), Error>)) -> Run<T> {
    let (c0, s0) = lane_checks();
    let ((out, result), path) = with_config(config, || {
        let r = f();
        (r, last_path())
    });
    let (c1, s1) = lane_checks();
    Run { out, result, path, chunks: c1 - c0, slow: s1 - s0 }
}

fn configs(checks: Checks) -> Vec<Config> {
    let c = Config::default().checks(checks);
    vec![c.clone().blocks(BlockOrder::Serial), c.blocks(BlockOrder::Parallel)]
}

/// The report of `r` (empty when it succeeded).
fn report(r: &Result<(), Error>) -> String {
    r.as_ref().err().map(|e| e.to_string()).unwrap_or_default()
}

fn floats(n: usize, k: f32) -> Vec<f32> {
    (0..n).map(|i| (i % 97) as f32 * k).collect()
}

#[test]
fn a_clean_saxpy_is_checked_per_chunk_and_reports_nothing() {
    let _g = serial();
    // 8 blocks of 256 threads, and 300-thread blocks (a chunk of 256 lanes and one of 44).
    for (blocks, threads) in [(8u32, 256u32), (5, 300)] {
        let n = (blocks * threads) as usize;
        let x = DeviceBuffer::from_slice(&floats(n, 1.0)).unwrap();
        for c in configs(Checks::all()) {
            let r = run(c.clone(), || {
                let mut y = DeviceBuffer::from_slice(&floats(n, 0.5)).unwrap();
                let r = launch!(saxpy<<<blocks, threads>>>(2.0, &x, &mut y));
                (y.to_vec().unwrap(), r)
            });
            r.result.as_ref().unwrap_or_else(|e| panic!("{c:?}: {e}"));
            let want: Vec<f32> = (0..n).map(|i| 2.0 * ((i % 97) as f32) + (i % 97) as f32 * 0.5).collect();
            assert_eq!(r.out, want, "{c:?}");
            assert_eq!(r.path, "lanes", "{c:?}");
            // Three access sites (x read, y read, y written) per chunk.
            let chunks_per_block = threads.div_ceil(256) as u64;
            assert_eq!(r.chunks, 3 * chunks_per_block * blocks as u64, "{c:?}");
            if c.get_blocks() == BlockOrder::Serial {
                // No lane left the chunk's common case (with parallel blocks, a record held
                // by another host thread may send a lane to the per-access path).
                assert_eq!(r.slow, 0, "{c:?}");
            }
        }
    }
}

#[test]
fn overlapping_blocks_race_as_on_the_general_path() {
    let _g = serial();
    // Blocks 128 apart, the last covering the last 256 elements, so that every block passes
    // the lane loop's proof and runs in chunks: 7 blocks (a small shadow, one allocation) and
    // 1023 (2 MiB of records per buffer: a mapping with page locks, `GlobalRaceShadow::chunk`).
    for (c, n) in configs(racecheck()).into_iter().flat_map(|c| [(c.clone(), 1024usize), (c, 1 << 17)]) {
        let blocks = (n / 128 - 1) as u32;
        let x = DeviceBuffer::from_slice(&floats(n, 1.0)).unwrap();
        let launch = || {
            let mut y = DeviceBuffer::from_slice(&floats(n, 0.5)).unwrap();
            let r = launch!(overlapping<<<blocks, 256>>>(3.0, &x, &mut y));
            (Vec::<f32>::new(), r)
        };
        let fast = run(c.clone(), launch);
        assert_eq!(fast.path, "lanes", "{c:?}");
        assert_eq!(fast.chunks, 3 * blocks as u64, "{c:?}");
        // Blocks 1..7 meet the 128 elements the block before touched, per access site.
        assert!(fast.slow >= 128 * (blocks as u64 - 1), "{c:?}: {} lanes", fast.slow);
        let err = fast.result.as_ref().expect_err("a race");
        assert_eq!(err.code(), 719);
        let text = report(&fast.result);
        let line = format!("tests/racecheck_lanes.rs:{}", line_of("// OVERLAP"));
        assert_has(&text, "Race reported between");
        assert_has(&text, &format!("access at {line}"));
        assert_has(&text, "in block (1,0,0)");
        assert_has(&text, "`y`");

        let general = run(c.clone().path(ExecPath::General), launch);
        assert_eq!(general.path, "general");
        assert_eq!(general.chunks, 0);
        if c.get_blocks() == BlockOrder::Serial {
            assert_eq!(text, report(&general.result), "{c:?}");
        } else {
            // With blocks in parallel, which of two racing blocks met the other's accesses in
            // the shadow (so the pair a report names, and its count) depends on the run, on
            // either path; the race is found on both.
            let g = report(&general.result);
            assert_has(&g, "Race reported between");
            assert_has(&g, &format!("access at {line}"));
        }
    }
}

#[test]
fn the_race_is_found_with_initcheck_on_too() {
    let _g = serial();
    let (blocks, n) = (3u32, 512usize);
    let x = DeviceBuffer::from_slice(&floats(n, 1.0)).unwrap();
    let launch = || {
        let mut y = DeviceBuffer::from_slice(&floats(n, 0.5)).unwrap();
        let r = launch!(overlapping<<<blocks, 256>>>(3.0, &x, &mut y));
        (Vec::<f32>::new(), r)
    };
    let c = Config::default().checks(Checks::all()).blocks(BlockOrder::Serial);
    let fast = run(c.clone(), launch);
    assert_eq!(fast.path, "lanes");
    assert_eq!(fast.chunks, 3 * blocks as u64);
    let text = report(&fast.result);
    assert_has(&text, "Race reported between");
    assert_lacks(&text, "Uninitialized");
    assert_eq!(text, report(&run(c.path(ExecPath::General), launch).result));
}

#[test]
fn reading_an_uninit_buffer_in_chunks_is_reported() {
    let _g = serial();
    let (blocks, threads) = (4u32, 256u32);
    let n = (blocks * threads) as usize;
    for c in configs(initcheck()) {
        let launch = |x: &DeviceBuffer<f32>| {
            let mut out = DeviceBuffer::<f32>::zeroed(n).unwrap();
            let r = launch!(add_one<<<blocks, threads>>>(x, &mut out));
            (out.to_vec().unwrap(), r)
        };
        // Nothing written.
        let x = DeviceBuffer::<f32>::uninit(n).unwrap();
        let fast = run(c.clone(), || launch(&x));
        assert_eq!(fast.path, "lanes", "{c:?}");
        assert_eq!(fast.chunks, 2 * blocks as u64, "{c:?}");
        assert_eq!(fast.slow, n as u64, "{c:?}");
        let err = fast.result.as_ref().expect_err("uninitialised reads");
        assert_eq!(err.code(), 719);
        let text = report(&fast.result);
        assert_has(&text, "Uninitialized __global__ memory read of size 4 bytes");
        assert_has(&text, &format!("at add_one in tests/racecheck_lanes.rs:{}:", line_of("// ADD ONE")));
        assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
        assert_has(&text, "by thread (0,0,0) in block (3,0,0)");
        assert_has(&text, "256 such accesses by this block at this line");
        assert_has(&text, &format!("ERROR SUMMARY: {blocks} errors"));
        let general = run(c.clone().path(ExecPath::General), || launch(&x));
        assert_eq!(text, report(&general.result), "{c:?}");

        // Half written (the even elements, by a kernel with a branch): the odd ones.
        let mut half = DeviceBuffer::<f32>::uninit(n).unwrap();
        with_config(c.clone(), || launch!(write_even<<<blocks, threads>>>(&mut half))).unwrap();
        let fast = run(c.clone(), || launch(&half));
        assert_eq!(fast.path, "lanes", "{c:?}");
        assert_eq!(fast.slow, n as u64 / 2, "{c:?}");
        let text = report(&fast.result);
        assert_has(&text, "by thread (1,0,0) in block (0,0,0)");
        assert_has(&text, "128 such accesses by this block at this line");
        let general = run(c.clone().path(ExecPath::General), || launch(&half));
        assert_eq!(text, report(&general.result), "{c:?}");

        // Written by a copy, and by the lane loop's own stores: nothing to report.
        let x = DeviceBuffer::from_slice(&floats(n, 1.0)).unwrap();
        let fast = run(c.clone(), || launch(&x));
        fast.result.as_ref().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        assert_eq!(fast.path, "lanes", "{c:?}");
        assert_eq!(fast.slow, 0, "{c:?}");
        let mut y = DeviceBuffer::<f32>::uninit(n).unwrap();
        with_config(c.clone(), || launch!(add_one<<<blocks, threads>>>(&x, &mut y))).unwrap();
        let fast = run(c.clone(), || launch(&y));
        fast.result.as_ref().unwrap_or_else(|e| panic!("{c:?}: a buffer the lane loop wrote: {e}"));
        assert_eq!(fast.slow, 0, "{c:?}");
        assert_eq!(fast.out, floats(n, 1.0).iter().map(|v| v + 2.0).collect::<Vec<_>>());
    }
}

#[test]
fn a_chunk_that_panics_is_checked_lane_by_lane() {
    let _g = serial();
    let (blocks, threads) = (2u32, 256u32);
    let n = (blocks * threads) as usize;
    let x = DeviceBuffer::from_slice(&(0..n as u32).collect::<Vec<_>>()).unwrap();
    // A zero divisor at element 300 (block 1, lane 44).
    let d =
        DeviceBuffer::from_slice(&(0..n).map(|i| if i == 300 { 0 } else { 1 + (i % 3) as u32 }).collect::<Vec<_>>())
            .unwrap();
    for c in configs(Checks::all()) {
        let launch = || {
            let mut out = DeviceBuffer::<u32>::zeroed(n).unwrap();
            let r = launch!(divide<<<blocks, threads>>>(&x, &d, &mut out));
            (out.to_vec().unwrap(), r)
        };
        let fast = run(c.clone(), launch);
        assert_eq!(fast.path, "lanes", "{c:?}");
        let text = report(&fast.result);
        assert_has(&text, "attempt to divide by zero");
        assert_has(&text, "in block (1,0,0)");
        assert_lacks(&text, "Race reported");
        let general = run(c.clone().path(ExecPath::General), launch);
        assert_eq!(text, report(&general.result), "{c:?}");
        // Block 0 ran in chunks; block 1's chunk ran again lane by lane, checked.
        assert_eq!(fast.chunks, 3, "{c:?}");
    }
}

/// Runs `f` with `EMU_RACECHECK_SHADOW` set to `budget`, then unsets it.
fn with_budget<R>(budget: &str, f: impl FnOnce() -> R) -> R {
    std::env::set_var("EMU_RACECHECK_SHADOW", budget);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::env::remove_var("EMU_RACECHECK_SHADOW");
    r.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

#[test]
fn a_reused_shadow_starts_clean_and_the_budget_still_holds() {
    let _g = serial();
    use deviceemu::__private::race_shadow_pool;
    // 2^18 elements: 4 MiB of records per buffer, a mapping that goes to the pool.
    let n = 1usize << 18;
    let x = DeviceBuffer::from_slice(&floats(n, 1.0)).unwrap();
    let c = Config::default().checks(racecheck()).blocks(BlockOrder::Serial);
    let racy = || {
        let mut y = DeviceBuffer::from_slice(&floats(n, 0.5)).unwrap();
        with_config(c.clone(), || launch!(overlapping<<<(n / 128 - 1) as u32, 256>>>(3.0, &x, &mut y)))
    };
    let clean = || {
        let mut y = DeviceBuffer::from_slice(&floats(n, 0.5)).unwrap();
        with_config(c.clone(), || launch!(saxpy<<<(n / 256) as u32, 256>>>(3.0, &x, &mut y)))
    };
    let first = report(&racy());
    assert_has(&first, "Race reported between");
    let (bytes, maps) = race_shadow_pool();
    // `x`'s and `y`'s mappings, every page touched.
    assert!(maps >= 2 && bytes >= 2 * 16 * n, "{bytes} bytes in {maps} mappings");
    // The same sizes again: the pooled mappings, their records from the racy launch zeroed.
    clean().unwrap_or_else(|e| panic!("stale records of the last launch: {e}"));
    assert_eq!(race_shadow_pool(), (bytes, maps), "the clean launch took the pooled mappings and gave them back");
    assert_eq!(report(&racy()), first);
    // A budget the pool does not fit: drained, and a launch that needs more is error 2.
    with_budget("1M", || {
        let err = clean().unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        assert_has(&err.to_string(), "EMU_RACECHECK_SHADOW");
    });
    assert!(race_shadow_pool().0 <= 1 << 19, "{:?}", race_shadow_pool());
    clean().unwrap();
}
