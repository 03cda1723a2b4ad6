//! Error paths: every failing launch is checked on its CUDA error code *and* on its report
//! (`err.to_string()`): the compute-sanitizer phrase, the thread and block, the kernel's name
//! and the exact `tests/it/api/errors.rs:LINE:COLUMN` of the offending expression.
//!
//! Source positions are not hard-coded: the offending lines carry a `// @marker` comment, and
//! [`at`] finds the marker's line in this file's own text and the column of the expression.
//!
//! Also covered: no false alarms (early `return` before a barrier, correct reductions), invalid
//! launch configurations (code 9, nothing runs), shared-memory limits (701), stack overflow,
//! kernel panics, recovery after each failure, `get_last_error`/`peek_at_last_error`,
//! `copy_from_slice` length mismatch, and invalid `EMU_*` settings (in a child process, so
//! that the environment of the other tests is never touched).

use crate::common::{assert_has, assert_lacks, marked_line, on_new_thread};
use crate::kernels::block_sum;
use deviceemu::prelude::*;
use deviceemu::testing::Model;
use deviceemu::{get_last_error, peek_at_last_error, with_config, BlockOrder, Checks, Config, Error, Finding};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const SRC: &str = include_str!("errors.rs");
const FILE: &str = "tests/it/api/errors.rs";

/// The 1-based line of this file that ends with the comment `// @<marker>`.
fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

/// `tests/it/api/errors.rs:LINE:COL` of the first `token` on the line marked `marker`.
fn at(marker: &str, token: &str) -> String {
    let line = line_of(marker);
    let text = SRC.lines().nth(line - 1).unwrap();
    let col = text.find(token).unwrap_or_else(|| panic!("{token:?} not on line {line}: {text}")) + 1;
    format!("{FILE}:{line}:{col}")
}

/// Runs `f` with the default settings whatever the `EMU_*` variables say: threads start in
/// index order and warps have 32 threads, which the expected thread in some reports relies on.
fn pinned<R>(f: impl FnOnce() -> R) -> R {
    with_config(Config::default(), f)
}

/// A kernel that always works, to check that the emulator recovers after a failure.
#[kernel]
fn fill(v: u32, out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = v + i as u32;
    }
}

#[track_caller]
fn assert_next_launch_works() {
    let mut out = DeviceBuffer::<u32>::zeroed(1000).unwrap();
    launch!(fill<<<4, 256>>>(7, &mut out)).expect("a correct launch after a failed one must succeed");
    assert_eq!(out.to_vec().unwrap(), (7..1007).collect::<Vec<u32>>());
}

// ---------------------------------------------------------------------------------------------
// memcheck: out-of-bounds accesses (700)
// ---------------------------------------------------------------------------------------------

#[kernel]
fn oob_read(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] * 2.0; // @oob-read
    }
}

#[test]
fn global_out_of_bounds_read() {
    let x = DeviceBuffer::from_slice(&vec![1.0f32; 1000]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(1024).unwrap();
    let err = pinned(|| launch!(oob_read<<<4, 256>>>(&x, &mut y))).unwrap_err();
    assert_eq!(err.code(), 700);
    assert_eq!(err.name(), "cudaErrorIllegalAddress");
    let text = err.to_string();
    assert_has(&text, "kernel `oob_read` failed (cudaErrorIllegalAddress, code 700)");
    assert_has(&text, "========= Invalid __global__ read of size 4 bytes");
    assert_has(&text, &format!("at oob_read in {}", at("oob-read", "x[i]")));
    // Thread 232 of block 3 is the first with i = 1000; threads 232..255 all fault, and each
    // counts one error, as under compute-sanitizer.
    assert_has(&text, "by thread (232,0,0) in block (3,0,0)");
    assert_has(&text, "by thread (251,0,0) in block (3,0,0)");
    assert_lacks(&text, "by thread (252,0,0)");
    assert_has(&text, "index 1000 is past the end of `x`, which has 1000 elements (4000 bytes at 0x");
    assert_has(&text, "is out of bounds");
    assert_has(&text, "... 4 more error(s) not shown");
    assert!(text.trim_end().ends_with("ERROR SUMMARY: 24 errors"), "{text}");

    let report = err.report().expect("a launch failure carries its report");
    assert_eq!(report.kernel(), "oob_read");
    assert_eq!(report.error_count(), 24);
    // Stored up to the print limit (20), the lowest threads first.
    assert_eq!(report.findings().len(), 20);
    let f = &report.findings()[0];
    assert_eq!((f.thread(), f.block()), (Dim3::new(232, 0, 0), Dim3::new(3, 0, 0)));
    assert!(matches!(f, Finding::OutOfBounds { index: 1000, len: 1000, size: 4, .. }), "{f:?}");
    // A fault stops only its own thread: every in-bounds element was written.
    assert_eq!(y.to_vec().unwrap()[..1000], vec![2.0f32; 1000][..]);
    assert_next_launch_works();
}

#[kernel]
fn oob_write(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let v = x[i] + 1.0;
        y[i] = v; // @oob-write
    }
}

#[test]
fn global_out_of_bounds_write() {
    let x = DeviceBuffer::from_slice(&vec![1.0f32; 1024]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(1000).unwrap();
    let err = pinned(|| launch!(oob_write<<<4, 256>>>(&x, &mut y))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ write of size 4 bytes");
    assert_lacks(&text, "Invalid __global__ read");
    assert_has(&text, &format!("at oob_write in {}", at("oob-write", "y[i]")));
    assert_has(&text, "by thread (232,0,0) in block (3,0,0)");
    assert_has(&text, "index 1000 is past the end of `y`, which has 1000 elements");
    assert_has(&text, "ERROR SUMMARY: 24 errors");
    // The faulting writes did nothing; the other threads' writes all happened.
    assert_eq!(y.to_vec().unwrap(), vec![2.0f32; 1000]);
    assert_next_launch_works();
}

#[kernel]
fn oob_wide(out: &mut [u64], small: &mut [u8]) {
    let i = thread_idx().x as usize;
    if i == 3 {
        out[out.len()] = 1; // @oob-u64
    }
    if i == 5 {
        small[small.len() + 2] = 1;
    }
}

#[test]
fn out_of_bounds_access_sizes_follow_the_element_type() {
    let mut out = DeviceBuffer::<u64>::zeroed(4).unwrap();
    let mut small = DeviceBuffer::<u8>::zeroed(4).unwrap();
    let err = pinned(|| launch!(oob_wide<<<1, 8>>>(&mut out, &mut small))).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.code(), 700);
    // Thread 3 faults first; the fault stops only thread 3, so thread 5 faults too.
    assert_has(&text, "Invalid __global__ write of size 8 bytes");
    assert_has(&text, &format!("at oob_wide in {}", at("oob-u64", "out[out.len()]")));
    assert_has(&text, "by thread (3,0,0) in block (0,0,0)");
    assert_has(&text, "index 4 is past the end of `out`, which has 4 elements (32 bytes at");
    assert_has(&text, "Invalid __global__ write of size 1 bytes");
    assert_has(&text, "by thread (5,0,0) in block (0,0,0)");
    assert_eq!(err.report().unwrap().findings().len(), 2);
}

#[kernel]
fn oob_atomic(hist: &mut [u32]) {
    let i = thread_idx().x as usize;
    hist.atomic_add(i, 1); // @oob-atomic
}

#[test]
fn out_of_bounds_atomic() {
    let mut hist = DeviceBuffer::<u32>::zeroed(10).unwrap();
    let err = pinned(|| launch!(oob_atomic<<<1, 32>>>(&mut hist))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ atomic of size 4 bytes");
    assert_has(&text, &format!("at oob_atomic in {FILE}:{}:", line_of("oob-atomic")));
    assert_has(&text, "by thread (10,0,0) in block (0,0,0)");
    assert_eq!(hist.to_vec().unwrap(), vec![1; 10]);
}

/// Only thread (1,1,1) of block (0,1,2) reads out of bounds.
#[kernel]
fn oob_3d(x: &[f32], out: &mut [f32]) {
    let (t, b) = (thread_idx(), block_idx());
    let culprit = t.x == 1 && t.y == 1 && t.z == 1 && b.x == 0 && b.y == 1 && b.z == 2;
    let i = if culprit { x.len() + 5 } else { 0 };
    out[0] = x[i]; // @oob-3d
}

#[test]
fn out_of_bounds_names_3d_thread_and_block() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = launch!(oob_3d<<<(1, 2, 3), (4, 2, 2)>>>(&x, &mut out)).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ read of size 4 bytes");
    assert_has(&text, "by thread (1,1,1) in block (0,1,2)");
    assert_has(&text, &format!("at oob_3d in {}", at("oob-3d", "x[i]")));
    assert_has(&text, "index 13 is past the end of `x`, which has 8 elements");
}

#[kernel]
fn oob_every_block(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    y[i % y.len()] = x[i];
}

#[test]
fn many_failing_blocks_are_sorted_and_summarised() {
    // x has 64 elements: every thread of blocks 2..32 (30 blocks of 32) faults.
    let x = DeviceBuffer::from_slice(&[0.5f32; 64]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(64).unwrap();
    for order in [BlockOrder::Parallel, BlockOrder::Serial] {
        let err = pinned(|| {
            with_config(
                Config::default().blocks(order).print_limit(40),
                || launch!(oob_every_block<<<32, 32>>>(&x, &mut y)),
            )
        })
        .unwrap_err();
        assert_eq!(err.code(), 700);
        let report = err.report().unwrap();
        assert_eq!(report.error_count(), 960, "one error per faulting thread");
        // The 40 lowest (block, thread) are stored, whatever order the blocks ran in.
        let findings = report.findings();
        assert_eq!(findings.len(), 40);
        for (k, f) in findings.iter().enumerate() {
            let want = (Dim3::new(k as u32 % 32, 0, 0), Dim3::new(k as u32 / 32 + 2, 0, 0));
            assert_eq!((f.thread(), f.block()), want);
        }
        let text = err.to_string();
        assert_eq!(
            text.matches("Invalid __global__ read of size 4 bytes").count(),
            40,
            "40 findings are printed in full"
        );
        assert_has(&text, "... 920 more error(s) not shown");
        assert!(text.trim_end().ends_with("ERROR SUMMARY: 960 errors"), "{text}");
        let first = text.find("in block (2,0,0)").expect("block 2 reported");
        let second = text.find("in block (3,0,0)").expect("block 3 reported");
        assert!(first < second, "findings are sorted by block");
    }
}

#[kernel]
fn shared_oob(out: &mut [f32]) {
    let t = shared_array![f32; 32]; // @shared-decl
    let tid = thread_idx().x as usize;
    t[tid + 1] = 1.0; // @shared-oob
    sync_threads();
    out[tid] = t[0];
}

#[test]
fn shared_out_of_bounds_write() {
    let mut out = DeviceBuffer::<f32>::zeroed(96).unwrap();
    let err = launch!(shared_oob<<<3, 32>>>(&mut out)).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __shared__ write of size 4 bytes");
    assert_has(&text, &format!("at shared_oob in {}", at("shared-oob", "t[tid + 1]")));
    for b in 0..3 {
        assert_has(&text, &format!("by thread (31,0,0) in block ({b},0,0)"));
    }
    assert_has(
        &text,
        &format!("index 32 is past the end of __shared__ array declared at {FILE}:{}", line_of("shared-decl")),
    );
    assert_has(&text, "ERROR SUMMARY: 3 errors");
    assert_next_launch_works();
}

#[kernel]
fn shared_oob_2d(out: &mut [f32]) {
    let t = shared_array![[f32; 4]; 4];
    let tid = thread_idx().x as usize;
    out[tid] = t[tid][0]; // @shared-oob-2d
}

#[test]
fn shared_out_of_bounds_read_of_a_2d_array() {
    let mut out = DeviceBuffer::<f32>::zeroed(8).unwrap();
    let err = pinned(|| launch!(shared_oob_2d<<<1, 8>>>(&mut out))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    // The row index is out of bounds; the access is one f32.
    assert_has(&text, "Invalid __shared__ read of size 4 bytes");
    assert_has(&text, &format!("at shared_oob_2d in {FILE}:{}:", line_of("shared-oob-2d")));
    assert_has(&text, "by thread (4,0,0) in block (0,0,0)");
}

#[test]
fn shared_out_of_bounds_row_reports_the_element_size() {
    let mut out = DeviceBuffer::<f32>::zeroed(8).unwrap();
    let err = pinned(|| launch!(shared_oob_2d<<<1, 8>>>(&mut out))).unwrap_err();
    assert_has(&err.to_string(), "Invalid __shared__ read of size 4 bytes");
}

#[kernel]
fn shared_oob_column(out: &mut [f32]) {
    let t = shared_array![[f32; 4]; 4];
    let tid = thread_idx().x as usize;
    t[tid / 4][tid % 4 + 1] = 1.0; // @shared-oob-col
    sync_threads();
    out[tid] = t[0][0];
}

#[test]
fn shared_out_of_bounds_column_of_a_2d_array() {
    // t[0][4] would alias t[1][0] in C; in Rust (and here) it is out of bounds of the row.
    let mut out = DeviceBuffer::<f32>::zeroed(16).unwrap();
    let err = pinned(|| launch!(shared_oob_column<<<1, 16>>>(&mut out))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __shared__ write of size 4 bytes");
    assert_has(&text, &format!("at shared_oob_column in {}", at("shared-oob-col", "t[tid / 4]")));
    assert_has(&text, "by thread (3,0,0) in block (0,0,0)");
    assert_has(&text, "index 4 is past the end of a row of 4 elements of __shared__ array declared at");
    assert_has(&text, "lies in another row");
}

#[test]
fn bounds_and_barrier_checks_stay_on_with_every_checker_off() {
    let config = Config::default().checks(deviceemu::Checks::none());
    let x = DeviceBuffer::from_slice(&[1.0f32; 10]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(32).unwrap();
    let err = with_config(config.clone(), || launch!(oob_read<<<1, 32>>>(&x, &mut y))).unwrap_err();
    assert_eq!(err.code(), 700);
    assert_has(&err.to_string(), "Invalid __global__ read of size 4 bytes");
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = with_config(config, || launch!(partial_warp_skip<<<1, 64>>>(50, &mut out))).unwrap_err();
    assert_eq!(err.code(), 719);
    assert_has(&err.to_string(), "Barrier error detected");
}

// ---------------------------------------------------------------------------------------------
// Shared memory limits (701)
// ---------------------------------------------------------------------------------------------

#[kernel]
fn too_much_shared(out: &mut [f32]) {
    let big = shared_array![f32; 16 * 1024]; // @too-much-shared
    let tid = thread_idx().x as usize;
    big[tid] = 1.0;
    out[tid] = big[tid];
}

#[test]
fn static_shared_arrays_over_the_limit_are_out_of_resources() {
    let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
    let err = launch!(too_much_shared<<<2, 32>>>(&mut out)).unwrap_err();
    assert_eq!(err.code(), 701);
    let text = err.to_string();
    assert_has(&text, "Too much shared memory requested: 65536 bytes, limit 49152 bytes");
    assert_has(&text, &format!("at too_much_shared in {FILE}:{}:", line_of("too-much-shared")));
    assert_has(&text, "Config::max_shared_bytes");
    assert_eq!(out.to_vec().unwrap(), vec![0.0; 32]);

    // Raising the limit makes the same launch work.
    with_config(Config::default().max_shared_bytes(96 * 1024), || {
        launch!(too_much_shared<<<2, 32>>>(&mut out)).unwrap();
    });
    assert_eq!(out.to_vec().unwrap(), vec![1.0; 32]);
    assert_next_launch_works();
}

#[kernel]
fn dynamic_plus_static(out: &mut [f32]) {
    let s = shared_array![f32; 2048];
    let d = dynamic_shared::<f32>();
    let tid = thread_idx().x as usize;
    s[tid] = 1.0;
    d[tid] = 2.0;
    out[tid] = s[tid] + d[tid];
}

#[test]
fn dynamic_and_static_shared_memory_share_the_limit() {
    let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
    // 8 KiB static + 40 KiB dynamic = 48 KiB: fits exactly.
    launch!(dynamic_plus_static<<<1, 32, 40 * 1024>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![3.0; 32]);
    // 8 KiB + 40 KiB + 16 bytes does not.
    let err = launch!(dynamic_plus_static<<<1, 32, 40 * 1024 + 16>>>(&mut out)).unwrap_err();
    assert_eq!(err.code(), 701);
    assert_has(&err.to_string(), "Too much shared memory requested");
}

// ---------------------------------------------------------------------------------------------
// synccheck: barriers (719)
// ---------------------------------------------------------------------------------------------

/// A reduction whose threads `break` out of the loop that holds the barrier.
#[kernel]
fn reduce_with_break(out: &mut [f32]) {
    let tile = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = 1.0;
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid >= s {
            break;
        }
        tile[tid] += tile[tid + s];
        sync_threads(); // @brk-barrier
        s /= 2;
    }
    if tid == 0 {
        out[0] = tile[0];
    }
} // @brk-end

#[test]
fn divergent_barrier_from_early_break() {
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = on_new_thread(20, move || pinned(|| launch!(reduce_with_break<<<1, 64>>>(&mut out))).unwrap_err());
    assert_eq!(err.code(), 719);
    assert_eq!(err.name(), "cudaErrorLaunchFailure");
    let text = err.to_string();
    let barrier = at("brk-barrier", "sync_threads");
    // Threads 32..63 (whole warp 1) leave first, so the first report is about whole warps.
    assert_has(&text, "Barrier error detected. Divergent thread(s) in block");
    assert_has(&text, &format!("at reduce_with_break in {barrier}"));
    assert_has(&text, "by thread (32,0,0) in block (0,0,0)");
    assert_has(&text, &format!("threads (0,0,0) to (31,0,0) wait at the barrier at {barrier}"));
    assert_has(
        &text,
        &format!("threads (32,0,0) to (63,0,0) skipped it and exited at {FILE}:{}:1", line_of("brk-end")),
    );
    assert_has(&text, "ERROR SUMMARY: 1 error");
}

#[kernel]
fn partial_warp_skip(cut: u32, out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if (tid as u32) < cut {
        sync_threads(); // @skip-barrier
    }
    out[tid] = 1;
} // @skip-end

#[test]
fn barrier_skipped_by_part_of_a_warp() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = pinned(|| launch!(partial_warp_skip<<<1, 64>>>(50, &mut out))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    let barrier = at("skip-barrier", "sync_threads");
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, &format!("at partial_warp_skip in {barrier}"));
    assert_has(&text, "by thread (50,0,0) in block (0,0,0)");
    assert_has(&text, &format!("threads (0,0,0) to (49,0,0) wait at the barrier at {barrier}"));
    assert_has(
        &text,
        &format!("threads (50,0,0) to (63,0,0) skipped it and exited at {FILE}:{}:1", line_of("skip-end")),
    );
    assert_lacks(&text, "cannot continue");
    assert_has(&text, "ERROR SUMMARY: 1 error");
    // Not a deadlock: the block ran on, as the hardware does.
    assert_eq!(out.to_vec().unwrap(), vec![1; 64]);
}

#[test]
fn barrier_skipped_by_whole_warps() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = pinned(|| launch!(partial_warp_skip<<<1, 64>>>(32, &mut out))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in block");
    assert_lacks(&text, "in warp");
    assert_has(&text, "threads (32,0,0) to (63,0,0) skipped it");
    assert_has(&text, &format!("at partial_warp_skip in {}", at("skip-barrier", "sync_threads")));
}

#[test]
fn barrier_skip_with_warp_size_one_is_a_block_divergence() {
    // With one-thread warps no warp is split.
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = with_config(Config::default().warp_size(1), || launch!(partial_warp_skip<<<1, 64>>>(50, &mut out)))
        .unwrap_err();
    assert_eq!(err.code(), 719);
    assert_has(&err.to_string(), "Barrier error detected. Divergent thread(s) in block");
}

#[test]
fn barrier_skip_is_reported_once_per_block() {
    // The default checkers: racecheck also (rightly) reports the races the skipped barrier
    // leaves, which this test does not count.
    let model = Model::new().warp_size_32_only().seeds(&[Some(3), Some(11), Some(12345)]).checks(&[Checks::default()]);
    model.check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let err = launch!(partial_warp_skip<<<2, 64>>>(50, &mut out)).unwrap_err();
        // One finding per block, whatever the schedule, and the same verdict.
        let findings = err.report().unwrap().findings();
        assert_eq!(findings.len(), 2, "{config:?}");
        let text = err.to_string();
        assert_has(&text, "Divergent thread(s) in warp");
        assert_has(&text, "by thread (50,0,0) in block (0,0,0)");
        assert_has(&text, "by thread (50,0,0) in block (1,0,0)");
        assert_has(&text, "threads (50,0,0) to (63,0,0) skipped it");
    });
}

#[kernel]
fn two_barriers(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid % 2 == 0 {
        sync_threads(); // @even-barrier
    } else {
        sync_threads(); // @odd-barrier
    }
    out[tid] = 1;
}

#[test]
fn threads_at_different_barriers_deadlock_is_reported_not_hung() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let (err, out) = on_new_thread(20, move || {
        let err = launch!(two_barriers<<<3, 64>>>(&mut out)).unwrap_err();
        (err, out.to_vec().unwrap())
    });
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    let (even, odd) = (at("even-barrier", "sync_threads"), at("odd-barrier", "sync_threads"));
    assert_has(&text, "Barrier error detected. Divergent thread(s) in");
    assert_has(&text, &format!("wait at the barrier at {even}"));
    assert_has(&text, &format!("wait at the barrier at {odd}"));
    assert_has(&text, "threads (0,0,0), (2,0,0), (4,0,0)");
    assert_has(&text, "threads (1,0,0), (3,0,0), (5,0,0)");
    assert_has(&text, "the block cannot continue (it would hang on a GPU); it was stopped");
    for b in 0..3 {
        assert_has(&text, &format!("in block ({b},0,0)"));
    }
    assert_has(&text, "ERROR SUMMARY: 3 errors");
    // The blocks were stopped at the barriers: nothing after them ran.
    assert_eq!(out, vec![0; 64]);
    on_new_thread(20, assert_next_launch_works);
}

#[kernel]
fn barrier_vs_count(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid < 40 {
        sync_threads();
    } else {
        let c = sync_threads_count(true);
        out[tid] = c;
    }
}

#[test]
fn sync_threads_and_sync_threads_count_at_different_sites_deadlock() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = on_new_thread(20, move || launch!(barrier_vs_count<<<1, 64>>>(&mut out)).unwrap_err());
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "threads (0,0,0) to (39,0,0) wait at the barrier at");
    assert_has(&text, "threads (40,0,0) to (63,0,0) wait at the barrier at");
    assert_has(&text, "it was stopped");
}

// ---------------------------------------------------------------------------------------------
// No false alarms
// ---------------------------------------------------------------------------------------------

#[kernel]
fn early_return(out: &mut [u32], cut: u32) {
    let tid = thread_idx().x;
    if tid >= cut {
        return;
    }
    let t = shared_array![u32; 64];
    t[tid as usize] = tid;
    sync_threads();
    out[tid as usize] = t[(cut - 1 - tid) as usize];
}

#[test]
fn early_return_before_a_barrier_is_not_an_error() {
    // The default checkers: both blocks write the same values to `out`, a cross-block race
    // racecheck (rightly) reports.
    Model::new().warp_size_32_only().seeds(&[None, Some(9)]).checks(&[Checks::default()]).check_with(|config| {
        for cut in [50u32, 32, 1, 64, 63] {
            let mut out = DeviceBuffer::from_slice(&[u32::MAX; 64]).unwrap();
            let config = config.clone();
            let seed = config.get_seed();
            let r = on_new_thread(20, move || {
                let r = with_config(config, || launch!(early_return<<<2, 64>>>(&mut out, cut)));
                assert!(get_last_error().is_ok(), "no error was recorded");
                r.map(|()| out.to_vec().unwrap())
            });
            let got = r.unwrap_or_else(|e| panic!("false alarm for cut {cut}:\n{e}"));
            let want: Vec<u32> = (0..64).map(|t| if t < cut { cut - 1 - t } else { u32::MAX }).collect();
            assert_eq!(got, want, "cut {cut} seed {seed:?}");
        }
    });
}

/// A reduction where threads leave the loop with `return` *before* its barrier: legal.
#[kernel]
fn reduce_with_early_return(out: &mut [f32]) {
    let tile = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = (tid + 1) as f32;
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid >= s {
            return;
        }
        tile[tid] += tile[tid + s];
        sync_threads();
        s /= 2;
    }
    out[block_idx().x as usize] = tile[0];
}

#[test]
fn early_return_inside_a_reduction_loop_is_not_an_error() {
    let mut out = DeviceBuffer::<f32>::zeroed(4).unwrap();
    launch!(reduce_with_early_return<<<4, 64>>>(&mut out)).unwrap_or_else(|e| panic!("false alarm:\n{e}"));
    assert_eq!(out.to_vec().unwrap(), vec![(64 * 65 / 2) as f32; 4]);
}

#[kernel]
fn return_between_barriers(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let t = shared_array![u32; 64];
    t[tid] = 1 + tid as u32;
    sync_threads();
    if tid >= 32 {
        return;
    }
    let v = t[tid + 32];
    sync_threads();
    out[tid] = v;
}

#[test]
fn early_return_between_two_barriers_is_not_an_error() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    launch!(return_between_barriers<<<2, 64>>>(&mut out)).unwrap_or_else(|e| panic!("false alarm:\n{e}"));
    let want: Vec<u32> = (0..64).map(|t| if t < 32 { t + 33 } else { 0 }).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

/// A barrier inside a helper defined *before* the kernel that calls it.
#[device]
fn store_then_sync(t: Shared<u32>, tid: usize) {
    t[tid] = tid as u32;
    sync_threads();
}

#[kernel]
fn early_return_then_helper_barrier(out: &mut [u32], cut: u32) {
    let tid = thread_idx().x as usize;
    if tid as u32 >= cut {
        return;
    }
    let t = shared_array![u32; 64];
    store_then_sync(t, tid);
    out[tid] = t[cut as usize - 1 - tid];
}

#[test]

fn early_return_before_a_barrier_in_a_device_helper_is_not_an_error() {
    let mut out = DeviceBuffer::from_slice(&[u32::MAX; 64]).unwrap();
    launch!(early_return_then_helper_barrier<<<1, 64>>>(&mut out, 40)).unwrap_or_else(|e| panic!("false alarm:\n{e}"));
    let want: Vec<u32> = (0..64).map(|t| if t < 40 { 39 - t } else { u32::MAX }).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

#[kernel]
fn skip_barrier_in_later_helper(out: &mut [u32], cut: u32) {
    let tid = thread_idx().x as usize;
    let t = shared_array![u32; 64];
    if (tid as u32) < cut {
        sync_in_later_helper(t, tid);
    }
    out[tid] = 1;
}

/// A barrier inside a helper defined *after* the kernel that calls it.
#[device]
fn sync_in_later_helper(t: Shared<u32>, tid: usize) {
    t[tid] = tid as u32;
    sync_threads();
}

#[test]

fn barrier_skipped_inside_a_device_helper_is_reported() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err =
        launch!(skip_barrier_in_later_helper<<<1, 64>>>(&mut out, 50)).expect_err("the skipped barrier is reported");
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Barrier error detected. Divergent thread(s) in warp");
    assert_has(&text, "threads (50,0,0) to (63,0,0) skipped it");
}

#[kernel]
fn return_after_barrier_in_loop(out: &mut [f32]) {
    let tile = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = 1.0;
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
        // Every thread leaves through this `return`, placed after the barrier.
        if tid >= s {
            if tid == 0 {
                out[0] = tile[0];
            }
            return;
        }
    }
}

#[test]
#[ignore = "KNOWN LIMITATION (the guide's troubleshooting chapter, synccheck.rs): a `return` placed after the barrier inside a loop, taken by some threads while others go round again, is reported although the hardware completes it"]
fn return_after_the_barrier_inside_a_loop_is_not_an_error() {
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    launch!(return_after_barrier_in_loop<<<1, 64>>>(&mut out)).unwrap_or_else(|e| panic!("false alarm:\n{e}"));
    assert_eq!(out.to_vec().unwrap(), vec![64.0]);
}

#[test]
fn device_builtins_outside_a_kernel_panic_with_a_message() {
    let calls: [(&str, fn()); 3] = [
        ("thread_idx", || {
            let _ = thread_idx();
        }),
        ("block_idx", || {
            let _ = block_idx();
        }),
        ("sync_threads", sync_threads),
    ];
    // `block_idx()` checks only in debug builds (`host/sched/context.rs`: it is read together
    // with `thread_idx()`, which always checks); in release it gives `u32::MAX`s.
    for (name, f) in calls.into_iter().filter(|&(name, _)| cfg!(debug_assertions) || name != "block_idx") {
        let payload = std::panic::catch_unwind(f).expect_err("a device built-in on the host panics");
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        assert_has(&msg, &format!("`{name}()` was called outside a running kernel"));
    }
}

#[test]
fn correct_reduction_is_not_an_error() {
    let n = 10_000usize;
    let blocks = n.div_ceil(256);
    // Fibers only: 10,000 OS threads per run would take seconds (tests/it/scheduler/schedule_threads.rs
    // runs reductions on threads).
    Model::new().fibers_only().check_with(|config| {
        let config = config.clone();
        let (result, no_last_error, p) = on_new_thread(20, move || {
            let input = DeviceBuffer::from_slice(&vec![1.0f32; n]).unwrap();
            let mut partial = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
            let r = with_config(config, || launch!(block_sum<<<blocks as u32, 256>>>(&input, &mut partial)));
            (r, get_last_error().is_ok(), partial.to_vec().unwrap())
        });
        result.unwrap_or_else(|e| panic!("false alarm:\n{e}"));
        assert!(no_last_error, "no error was recorded");
        assert_eq!(&p[..blocks - 1], &vec![256.0f32; blocks - 1][..]);
        assert_eq!(p[blocks - 1], (n - (blocks - 1) * 256) as f32);
    });
}

// ---------------------------------------------------------------------------------------------
// Panics and stack overflow (719)
// ---------------------------------------------------------------------------------------------

#[kernel]
fn panicky(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let v: Option<u32> = if tid == 5 && block_idx().x == 1 { None } else { Some(1) };
    out[block_idx().x as usize * 64 + tid] = v.unwrap(); // @panic-unwrap
}

#[test]
fn kernel_panic_is_reported_and_the_next_launch_works() {
    let mut out = DeviceBuffer::<u32>::zeroed(3 * 64).unwrap();
    let err = pinned(|| launch!(panicky<<<3, 64>>>(&mut out))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Kernel panic: called `Option::unwrap()` on a `None` value");
    assert_has(&text, &format!("at panicky in {}", at("panic-unwrap", "unwrap")));
    assert_has(&text, "by thread (5,0,0) in block (1,0,0)");
    assert_has(&text, "ERROR SUMMARY: 1 error");
    let f = &err.report().unwrap().findings()[0];
    assert!(matches!(f, Finding::Panic { .. }), "{f:?}");
    // Blocks 0 and 2 completed; block 1 stopped after thread 4.
    let o = out.to_vec().unwrap();
    assert_eq!(&o[..64], &[1; 64][..]);
    assert_eq!(&o[128..], &[1; 64][..]);
    assert_eq!(&o[64..69], &[1; 5][..]);
    assert_next_launch_works();
}

#[kernel]
fn formatted_panic(limit: u32) {
    let tid = thread_idx().x;
    if tid > limit {
        panic!("thread {} is past the limit {}", tid, limit); // @panic-fmt
    }
}

#[test]
fn kernel_panic_message_is_formatted() {
    let err = pinned(|| launch!(formatted_panic<<<1, 16>>>(12))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Kernel panic: thread 13 is past the limit 12");
    assert_has(&text, &format!("at formatted_panic in {FILE}:{}:", line_of("panic-fmt")));
    assert_has(&text, "by thread (13,0,0) in block (0,0,0)");
}

#[device]
fn recurse(n: u64) -> u64 {
    let a = [n; 64];
    if n == 0 {
        0
    } else {
        core::hint::black_box(a)[3] + recurse(n - 1)
    }
}

#[kernel]
fn deep_recursion(depth: u64, out: &mut [u64]) {
    let tid = thread_idx().x as usize;
    out[tid] = recurse(depth);
}

#[test]
fn stack_overflow_is_reported_and_the_next_launch_works() {
    let mut out = DeviceBuffer::<u64>::zeroed(4).unwrap();
    let err = with_config(Config::default(), || launch!(deep_recursion<<<1, 4>>>(10_000_000, &mut out))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    assert_has(&text, "Stack overflow in deep_recursion");
    assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
    assert_has(&text, "its 256 KiB fiber stack");
    assert_has(&text, "EMU_STACK_SIZE");
    assert_has(&text, "ERROR SUMMARY: 1 error");
    assert!(matches!(err.report().unwrap().findings()[0], Finding::StackOverflow { .. }));
    assert_next_launch_works();
}

#[test]
fn stack_overflow_in_many_parallel_blocks() {
    // Every block overflows, on every worker thread at once.
    let mut out = DeviceBuffer::<u64>::zeroed(16 * 4).unwrap();
    let err = on_new_thread(60, move || {
        with_config(
            Config::default().blocks(deviceemu::BlockOrder::Parallel),
            || launch!(deep_recursion<<<16, 4>>>(10_000_000, &mut out)),
        )
        .unwrap_err()
    });
    assert_eq!(err.code(), 719);
    let findings = err.report().unwrap().findings();
    assert_eq!(findings.len(), 16);
    assert!(findings.iter().all(|f| matches!(f, Finding::StackOverflow { .. }) && f.thread() == Dim3::new(0, 0, 0)));
    assert_has(&err.to_string(), "ERROR SUMMARY: 16 errors");
    assert_next_launch_works();
}

#[test]
fn stack_size_setting_is_honoured() {
    // About 1000 frames of at least 512 bytes: too deep for 64 KiB, fine in 16 MiB.
    let mut out = DeviceBuffer::<u64>::zeroed(4).unwrap();
    let err =
        with_config(Config::default().stack_size(64 * 1024), || launch!(deep_recursion<<<1, 4>>>(1000, &mut out)))
            .unwrap_err();
    assert_eq!(err.code(), 719);
    assert_has(&err.to_string(), "its 64 KiB fiber stack");
    with_config(Config::default().stack_size(16 << 20), || launch!(deep_recursion<<<1, 4>>>(1000, &mut out)))
        .unwrap_or_else(|e| panic!("a 16 MiB stack is enough:\n{e}"));
    assert_eq!(out.to_vec().unwrap(), vec![(1..=1000u64).sum::<u64>(); 4]);
}

// ---------------------------------------------------------------------------------------------
// Invalid launch configurations (9): nothing runs
// ---------------------------------------------------------------------------------------------

#[kernel]
fn mark(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = 7;
    }
}

#[track_caller]
fn assert_invalid_config(err: Error, out: &DeviceBuffer<u32>, phrase: &str) {
    assert_eq!(err.code(), 9, "{err}");
    assert_eq!(err.name(), "cudaErrorInvalidConfiguration");
    assert!(err.report().is_none());
    let text = err.to_string();
    assert_has(&text, "invalid configuration for kernel `mark`");
    assert_has(&text, phrase);
    assert_has(&text, "(nothing ran)");
    assert!(out.to_vec().unwrap().iter().all(|&v| v == 0), "a kernel with an invalid configuration ran");
    let last = get_last_error().expect_err("the configuration error is the last error");
    assert_eq!(last.code(), 9);
}

#[test]
fn invalid_launch_configurations_return_9_and_run_nothing() {
    on_new_thread(60, || {
        let mut out = DeviceBuffer::<u32>::zeroed(4096).unwrap();
        let e = launch!(mark<<<1, 2048>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "block (2048,1,1) exceeds the largest block the device allows, (1024,1024,64)");
        let e = launch!(mark<<<1, (32, 32, 2)>>>(&mut out)).unwrap_err();
        assert_invalid_config(
            e,
            &out,
            "block (32,32,2) has 2048 threads, but the device allows at most 1024 threads per block",
        );
        let e = launch!(mark<<<1, (1, 1, 65)>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "block (1,1,65) exceeds the largest block");
        let e = launch!(mark<<<0, 32>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "grid (0,1,1) has a zero dimension");
        let e = launch!(mark<<<(4, 0), 32>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "grid (4,0,1) has a zero dimension");
        let e = launch!(mark<<<4, 0>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "block (0,1,1) has a zero dimension");
        let e = launch!(mark<<<(1, 65536), 32>>>(&mut out)).unwrap_err();
        assert_invalid_config(e, &out, "exceeds the largest grid");
        let e = launch!(mark<<<4, 32, 48 * 1024 + 1>>>(&mut out)).unwrap_err();
        assert_invalid_config(
            e,
            &out,
            "asks for 49153 bytes of dynamic shared memory, but a block may use at most 49152",
        );

        // The limits themselves are fine.
        launch!(mark<<<1, 1024>>>(&mut out)).unwrap();
        launch!(mark<<<1, (1, 1, 64)>>>(&mut out)).unwrap();
        launch!(mark<<<4, 32, 48 * 1024>>>(&mut out)).unwrap();
        assert_eq!(&out.to_vec().unwrap()[..1024], &[7; 1024][..]);
        // A raised limit admits more dynamic shared memory.
        with_config(Config::default().max_shared_bytes(100_000), || launch!(mark<<<1, 32, 64 * 1024>>>(&mut out)))
            .unwrap();
    });
}

// ---------------------------------------------------------------------------------------------
// get_last_error / peek_at_last_error
// ---------------------------------------------------------------------------------------------

#[test]
fn get_last_error_resets_and_peek_does_not() {
    on_new_thread(20, || {
        assert!(peek_at_last_error().is_ok());
        assert!(get_last_error().is_ok());

        let x = DeviceBuffer::from_slice(&[1.0f32; 10]).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(32).unwrap();
        let err = launch!(oob_read<<<1, 32>>>(&x, &mut y)).unwrap_err();
        assert_eq!(err.code(), 700);

        assert_eq!(peek_at_last_error().unwrap_err().code(), 700);
        let peeked = peek_at_last_error().unwrap_err();
        assert_eq!(peeked.code(), 700, "peek does not reset");
        assert_eq!(peeked.to_string(), err.to_string(), "the last error carries the same report");

        // A successful launch does not clear the last error (as in CUDA).
        assert_next_launch_works();
        assert_eq!(get_last_error().unwrap_err().code(), 700);
        assert!(get_last_error().is_ok(), "get resets");
        assert!(peek_at_last_error().is_ok());

        // The last error is the latest one.
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let _ = launch!(mark<<<1, 4096>>>(&mut out)).unwrap_err();
        let _ = launch!(panicky<<<2, 64>>>(&mut DeviceBuffer::<u32>::zeroed(128).unwrap())).unwrap_err();
        assert_eq!(peek_at_last_error().unwrap_err().code(), 719);
        assert_eq!(get_last_error().unwrap_err().code(), 719);
        assert!(get_last_error().is_ok());
    });
}

#[test]
fn last_error_is_per_host_thread() {
    on_new_thread(20, || {
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let _ = launch!(mark<<<1, 4096>>>(&mut out)).unwrap_err();
        assert_eq!(peek_at_last_error().unwrap_err().code(), 9);
        // Another host thread sees no error.
        let other = std::thread::spawn(|| (peek_at_last_error().is_ok(), get_last_error().is_ok())).join().unwrap();
        assert_eq!(other, (true, true));
        // And this thread's error is still there.
        assert_eq!(get_last_error().unwrap_err().code(), 9);
    });
}

// ---------------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------------

#[test]
fn copy_from_slice_length_mismatch_is_invalid_value() {
    let mut b = DeviceBuffer::from_slice(&[1u32, 2, 3, 4, 5]).unwrap();
    let err = b.copy_from_slice(&[9, 9, 9]).unwrap_err();
    assert_eq!(err.code(), 1);
    assert_eq!(err.name(), "cudaErrorInvalidValue");
    let text = err.to_string();
    assert_has(&text, "copy_from_slice");
    assert_has(&text, "3 elements");
    assert_has(&text, "5");
    assert!(err.report().is_none());
    assert_eq!(b.to_vec().unwrap(), vec![1, 2, 3, 4, 5], "the buffer is unchanged");
    let err = b.copy_from_slice(&[0; 6]).unwrap_err();
    assert_eq!(err.code(), 1);
}

// ---------------------------------------------------------------------------------------------
// Invalid EMU_* settings, in a child process
// ---------------------------------------------------------------------------------------------

const CHILD_VAR: &str = "DEVICEEMU_ERRORS_TEST_CHILD";

/// Runs only inside the child process that [`child`] starts: launches `mark` under the
/// environment it was given and prints what happened. In a normal test run it does nothing.
#[kernel]
fn hello(out: &mut [u32]) {
    let (t, b) = (thread_idx(), block_idx());
    if t.x == 3 {
        println!("hello from thread {} of block {}", t.x, b.x);
    }
    out[(b.x * block_dim().x + t.x) as usize] = 1;
}

#[test]
fn env_child_process_helper() {
    match std::env::var(CHILD_VAR).as_deref() {
        Ok("launch") => {}
        Ok("println") => {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(hello<<<2, 32>>>(&mut out)).unwrap();
            println!("CHILD-RESULT printed");
            return;
        }
        _ => return,
    }
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let r = launch!(mark<<<2, 32>>>(&mut out));
    let ran = out.to_vec().unwrap().iter().all(|&v| v == 7);
    let from_env = Config::from_env().map(|_| ()).map_err(|e| e.code());
    let last = get_last_error().err().map(|e| e.code());
    match r {
        Ok(()) => println!("CHILD-RESULT ok ran={ran} from_env={from_env:?} last={last:?}"),
        Err(e) => println!("CHILD-RESULT code={} ran={ran} from_env={from_env:?} last={last:?} msg={e}", e.code()),
    }
}

/// Re-runs this test binary with only [`env_child_process_helper`] and `EMU_*` variables
/// `vars`, and returns the `CHILD-RESULT` line of its launch.
fn child(vars: &[(&str, &str)]) -> String {
    child_output("launch", vars).1
}

/// Runs the helper in `mode` and returns the child's whole stdout and its `CHILD-RESULT` line.
fn child_output(mode: &str, vars: &[(&str, &str)]) -> (String, String) {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), "env_child_process_helper")).args([
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("EMU_") {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD_VAR, mode);
    cmd.envs(vars.iter().copied());
    let output = cmd.output().expect("the test binary can be re-run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    // libtest prints `test NAME ... ` before the helper's own line: take it from the marker.
    let line = stdout
        .lines()
        .find_map(|l| l.find("CHILD-RESULT").map(|i| &l[i..]))
        .unwrap_or_else(|| panic!("the child did not run the helper:\n{stdout}"));
    (stdout.to_string(), line.to_owned())
}

#[test]
fn unknown_emu_blocks_value_is_rejected_with_the_valid_values() {
    let r = child(&[("EMU_BLOCKS", "sideways")]);
    assert_has(&r, "code=1 ran=false from_env=Err(1) last=Some(1)");
    assert_has(&r, "EMU_BLOCKS");
    assert_has(&r, "\"sideways\"");
    assert_has(&r, "`parallel`, `serial`");
}

#[test]
fn valid_emu_settings_are_accepted() {
    let r = child(&[("EMU_BLOCKS", "serial"), ("EMU_SEED", "42"), ("EMU_WARP_SIZE", "1"), ("EMU_STACK_SIZE", "512K")]);
    assert_eq!(r, "CHILD-RESULT ok ran=true from_env=Ok(()) last=None");
    let r = child(&[("EMU_BLOCKS", "parallel"), ("EMU_CHECK", "memcheck,synccheck")]);
    assert_eq!(r, "CHILD-RESULT ok ran=true from_env=Ok(()) last=None");
}

#[test]
fn other_invalid_emu_settings_are_rejected() {
    for (var, value, valid) in [
        ("EMU_SEED", "abc", "unsigned integer"),
        ("EMU_WARP_SIZE", "16", "`32`, `1`"),
        ("EMU_CHECK", "memchek", "racecheck"),
        ("EMU_STACK_SIZE", "1K", "16K"),
    ] {
        let r = child(&[(var, value)]);
        assert_has(&r, "code=1 ran=false");
        assert_has(&r, &format!("invalid setting {var}=\"{value}\""));
        assert_has(&r, valid);
    }
}

#[test]
fn emu_schedule_takes_fibers_or_threads_and_rejects_the_rest() {
    let r = child(&[("EMU_SCHEDULE", "threads")]);
    assert_has(&r, "CHILD-RESULT ok ran=true");
    let r = child(&[("EMU_SCHEDULE", "coroutines")]);
    assert_has(&r, "code=1 ran=false");
    assert_has(&r, "`fibers`, `threads`");
    let r = child(&[("EMU_SCHEDULE", "fibers")]);
    assert_has(&r, "CHILD-RESULT ok ran=true");
}

#[test]
fn println_in_a_kernel_reaches_stdout() {
    let (stdout, line) = child_output("println", &[]);
    assert_eq!(line, "CHILD-RESULT printed");
    for b in 0..2 {
        assert_has(&stdout, &format!("hello from thread 3 of block {b}"));
    }
    assert_eq!(stdout.matches("hello from thread").count(), 2, "{stdout}");
}

#[kernel(launch_bounds(64))]
fn bounded(out: &mut [u32]) {
    out[thread_idx().x as usize] = 1;
}

#[test]
fn launch_bounds_are_enforced_like_on_the_gpu() {
    let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
    launch!(bounded<<<1, 64>>>(&mut out)).unwrap();
    let e = launch!(bounded<<<1, 128>>>(&mut out)).unwrap_err();
    assert_eq!(e.code(), 9, "{e}");
    assert!(e.to_string().contains("launch_bounds(64)"), "{e}");
    assert_eq!(out.to_vec().unwrap()[64..], vec![0; 64], "nothing ran");
}
