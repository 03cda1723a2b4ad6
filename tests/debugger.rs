//! The debugger promise, tested for real: gdb and lldb stop at a kernel line in one chosen GPU
//! thread, show the kernel's locals, step in that same GPU thread over barriers, warp
//! collectives and helper calls, and the deviceemu helpers name the thread and its block and
//! list what the block's other threads do, all without calling a function in the program (gdb
//! runs every session with `set may-call-functions off`; the lldb script evaluates no
//! expression).
//!
//! The debuggee is this test binary itself, run as `debugger --debuggee NAME`. It is a
//! `harness = false` target: its runner (`debugger/harness.rs`) puts every debugger session
//! under a time limit, and reports a test that found no usable debugger as SKIPPED.
//!
//! Breakpoints name `tests/debugger.rs`: a bare `debugger.rs` also matches the runtime's
//! `host/sched/debugger.rs`.

#[path = "it/common/mod.rs"]
mod common;
#[path = "debugger/harness.rs"]
mod harness;
#[path = "debugger/transcripts.rs"]
mod transcripts;

use deviceemu::prelude::*;
use harness::{Debugger, Skip};

fn main() {
    harness::main(TESTS, DEBUGGEES);
}

/// The tests, started in this order.
const TESTS: &[(&str, harness::TestFn)] = &[
    (
        "sessions_past_their_limit_are_killed_with_their_program",
        sessions_past_their_limit_are_killed_with_their_program,
    ),
    (
        "broken_debuggers_make_their_tests_skip_or_fail_when_required",
        broken_debuggers_make_their_tests_skip_or_fail_when_required,
    ),
    ("gdb_stops_in_the_chosen_gpu_thread", gdb_stops_in_the_chosen_gpu_thread),
    (
        "gdb_plain_break_if_on_emu_ctx_stops_in_the_chosen_gpu_thread",
        gdb_plain_break_if_on_emu_ctx_stops_in_the_chosen_gpu_thread,
    ),
    ("gdb_emu_break_matches_all_three_dimensions", gdb_emu_break_matches_all_three_dimensions),
    ("gdb_emu_break_in_a_device_helper", gdb_emu_break_in_a_device_helper),
    ("gdb_emu_break_is_enabled_only_while_its_block_runs", gdb_emu_break_is_enabled_only_while_its_block_runs),
    ("gdb_shows_lanes_waiting_in_warp_collectives", gdb_shows_lanes_waiting_in_warp_collectives),
    (
        "gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread",
        gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread,
    ),
    (
        "gdb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil",
        gdb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil,
    ),
    (
        "gdb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads",
        gdb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads,
    ),
    ("gdb_emu_next_keeps_the_gpu_thread_in_a_histogram", gdb_emu_next_keeps_the_gpu_thread_in_a_histogram),
    ("gdb_emu_next_in_a_histogram_with_emu_schedule_threads", gdb_emu_next_in_a_histogram_with_emu_schedule_threads),
    ("gdb_emu_next_keeps_the_gpu_thread_in_a_3d_block", gdb_emu_next_keeps_the_gpu_thread_in_a_3d_block),
    ("gdb_emu_next_in_a_3d_block_with_emu_schedule_threads", gdb_emu_next_in_a_3d_block_with_emu_schedule_threads),
    ("gdb_emu_next_over_a_warp_collective", gdb_emu_next_over_a_warp_collective),
    (
        "gdb_emu_next_over_a_warp_collective_with_emu_schedule_threads",
        gdb_emu_next_over_a_warp_collective_with_emu_schedule_threads,
    ),
    (
        "gdb_emu_next_at_the_end_stops_where_the_gpu_thread_exits",
        gdb_emu_next_at_the_end_stops_where_the_gpu_thread_exits,
    ),
    (
        "gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads",
        gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads,
    ),
    ("gdb_emu_focus_with_fibers_says_why_not", gdb_emu_focus_with_fibers_says_why_not),
    (
        "gdb_emu_focus_reaches_a_gpu_thread_on_another_host_thread",
        gdb_emu_focus_reaches_a_gpu_thread_on_another_host_thread,
    ),
    ("gdb_emu_focus_with_emu_schedule_threads", gdb_emu_focus_with_emu_schedule_threads),
    ("lldb_stops_in_the_chosen_gpu_thread", lldb_stops_in_the_chosen_gpu_thread),
    ("lldb_emu_break_matches_all_three_dimensions", lldb_emu_break_matches_all_three_dimensions),
    ("lldb_emu_break_in_a_device_helper", lldb_emu_break_in_a_device_helper),
    ("lldb_emu_break_is_enabled_only_while_its_block_runs", lldb_emu_break_is_enabled_only_while_its_block_runs),
    ("lldb_shows_lanes_waiting_in_warp_collectives", lldb_shows_lanes_waiting_in_warp_collectives),
    (
        "lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread",
        lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread,
    ),
    (
        "lldb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil",
        lldb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil,
    ),
    (
        "lldb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads",
        lldb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads,
    ),
    ("lldb_emu_next_keeps_the_gpu_thread_in_a_histogram", lldb_emu_next_keeps_the_gpu_thread_in_a_histogram),
    ("lldb_emu_next_in_a_histogram_with_emu_schedule_threads", lldb_emu_next_in_a_histogram_with_emu_schedule_threads),
    ("lldb_emu_next_keeps_the_gpu_thread_in_a_3d_block", lldb_emu_next_keeps_the_gpu_thread_in_a_3d_block),
    ("lldb_emu_next_in_a_3d_block_with_emu_schedule_threads", lldb_emu_next_in_a_3d_block_with_emu_schedule_threads),
    ("lldb_emu_next_over_a_warp_collective", lldb_emu_next_over_a_warp_collective),
    (
        "lldb_emu_next_over_a_warp_collective_with_emu_schedule_threads",
        lldb_emu_next_over_a_warp_collective_with_emu_schedule_threads,
    ),
    ("lldb_emu_focus_with_fibers_says_why_not", lldb_emu_focus_with_fibers_says_why_not),
    (
        "lldb_emu_focus_reaches_a_gpu_thread_on_another_host_thread",
        lldb_emu_focus_reaches_a_gpu_thread_on_another_host_thread,
    ),
    ("lldb_emu_focus_with_emu_schedule_threads", lldb_emu_focus_with_emu_schedule_threads),
    (
        "transcripts_are_compared_less_what_changes_between_builds",
        transcripts_are_compared_less_what_changes_between_builds,
    ),
    ("transcripts_of_the_guide_match_a_fresh_run", transcripts_of_the_guide_match_a_fresh_run),
    ("transcripts_of_debugging_md_match_a_fresh_run", transcripts_of_debugging_md_match_a_fresh_run),
];

/// The programs the debuggers run (`--debuggee NAME`).
const DEBUGGEES: &[(&str, fn())] = &[
    ("probe", probe_debuggee),
    ("mirror", mirror_debuggee),
    ("grid_2d", grid_2d_debuggee),
    ("stencil", stencil_debuggee),
    ("histogram", histogram_debuggee),
    ("block_3d", block_3d_debuggee),
    ("warp_ops", warp_ops_debuggee),
    ("two_host_threads", two_host_threads_debuggee),
];

// ---------------------------------------------------------------------------------------------
// The kernels the debuggers stop in

/// The kernel of the probe that tells whether a debugger works here (`harness::ready`).
#[kernel]
fn probe_kernel(out: &mut [u32]) {
    let t = thread_idx().x;
    let probe_local = t + 7;
    let doubled = probe_local * 2; // PROBE LINE
    out[t as usize] = doubled;
}

fn probe_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
    launch!(probe_kernel<<<1, 2>>>(&mut out)).unwrap();
}

/// Each thread of a 1-D block writes a shared cell, and after the barrier reads its mirror.
#[kernel]
fn mirror(out: &mut [u32]) {
    let mut tile = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let gid = block_idx().x as usize * 64 + tid;
    tile[tid] = gid as u32;
    sync_threads(); // MIRROR BARRIER
    let mirrored = tile[63 - tid]; // BREAK HERE
    out[gid] = mirrored; // MIRROR STORE
} // MIRROR END

fn mirror_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(256).unwrap();
    launch!(mirror<<<4, 64>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap()[64 + 3], 64 + 60);
}

/// A 2-D launch: blocks of 4x4 threads on a 2x2 grid (8x8 cells). Thread (1,2,0) of block
/// (1,1,0) is at gx = 5, gy = 6 and writes cell 53.
#[kernel]
fn probe_2d(out: &mut [u32]) {
    let x = thread_idx().x;
    let y = thread_idx().y;
    let width = block_dim().x * grid_dim().x;
    let gx = block_idx().x * block_dim().x + x;
    let gy = block_idx().y * block_dim().y + y;
    let cell = gy * width + gx; // 2D BREAK
    out[cell as usize] = x * 100 + y;
}

fn grid_2d_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    launch!(probe_2d<<<(2, 2), (4, 4)>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap()[(4 + 2) * 8 + 4 + 1], 102);
}

/// The stencil's weights: the centre and its four neighbours.
#[device]
fn five_point(c: f32, n: f32, s: f32, w: f32, e: f32) -> f32 {
    let around = n + s + w + e; // HELPER FIRST
    0.5 * c + 0.125 * around // HELPER LAST
}

/// A 5-point stencil on a 32x32 image: 8x8 threads a block on a 4x4 grid, each block's cells
/// and a one-cell halo (loaded by the edge threads) in a shared 10x10 tile.
#[kernel]
fn stencil_2d(input: &[f32], output: &mut [f32], width: u32) {
    let mut tile = shared_array![f32; 100];
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let gx = block_idx().x * 8 + tx;
    let gy = block_idx().y * 8 + ty;
    let cell = ((ty + 1) * 10 + tx + 1) as usize; // STENCIL CELL
    tile[cell] = input[(gy * width + gx) as usize];
    if tx == 0 {
        tile[cell - 1] = if gx > 0 { input[(gy * width + gx - 1) as usize] } else { 0.0 };
    }
    if tx == 7 {
        tile[cell + 1] = if gx + 1 < width { input[(gy * width + gx + 1) as usize] } else { 0.0 };
    }
    if ty == 0 {
        tile[cell - 10] = if gy > 0 { input[((gy - 1) * width + gx) as usize] } else { 0.0 };
    }
    if ty == 7 {
        tile[cell + 10] = if gy + 1 < width { input[((gy + 1) * width + gx) as usize] } else { 0.0 };
    }
    sync_threads(); // STENCIL BARRIER
    let c = tile[cell]; // STENCIL AFTER
    let v = five_point(c, tile[cell - 10], tile[cell + 10], tile[cell - 1], tile[cell + 1]); // STENCIL CALL
    output[(gy * width + gx) as usize] = v; // STENCIL STORE
}

fn stencil_debuggee() {
    let w = 32usize;
    let img: Vec<f32> = (0..w * w).map(|i| ((i * 37) % 101) as f32).collect();
    let input = DeviceBuffer::from_slice(&img).unwrap();
    let mut output = DeviceBuffer::<f32>::zeroed(w * w).unwrap();
    launch!(stencil_2d<<<(4, 4), (8, 8)>>>(&input, &mut output, w as u32)).unwrap();
    let got = output.to_vec().unwrap();
    let at = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= w as i64 || y >= w as i64 {
            0.0
        } else {
            img[y as usize * w + x as usize]
        }
    };
    for y in 0..w as i64 {
        for x in 0..w as i64 {
            let want = 0.5 * at(x, y) + 0.125 * (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y));
            assert_eq!(got[y as usize * w + x as usize], want, "cell ({x},{y})");
        }
    }
}

/// A 16-bin histogram: each block counts into shared bins with shared atomics, then adds them
/// to the global bins. 4 blocks of 64 threads, 1024 values: four values per thread.
#[kernel]
fn histogram_16(data: &[u32], bins: &mut [u32]) {
    let mut local = shared_array![u32; 16];
    let t = thread_idx().x as usize;
    if t < 16 {
        local[t] = 0;
    }
    sync_threads();
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * 64 + t;
    while i < data.len() {
        let bin = (data[i] % 16) as usize; // HIST BIN
        local.atomic_add(bin, 1u32); // HIST ADD
        i += stride; // HIST STEP
    }
    sync_threads(); // HIST BARRIER
    if t < 16 {
        bins.atomic_add(t, local[t]); // HIST MERGE
    }
}

fn histogram_debuggee() {
    let data: Vec<u32> = (0..1024u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let input = DeviceBuffer::from_slice(&data).unwrap();
    let mut bins = DeviceBuffer::<u32>::zeroed(16).unwrap();
    launch!(histogram_16<<<4, 64>>>(&input, &mut bins)).unwrap();
    let mut want = [0u32; 16];
    data.iter().for_each(|&d| want[(d % 16) as usize] += 1);
    assert_eq!(bins.to_vec().unwrap(), want);
}

/// 3-D blocks of 4x2x4 threads on a 2x1x2 grid: each thread writes its shared cell and after
/// the barrier reads the one mirrored through the block's centre.
#[kernel]
fn mirror_3d(out: &mut [u32]) {
    let mut cells = shared_array![u32; 32];
    let x = thread_idx().x;
    let y = thread_idx().y;
    let z = thread_idx().z;
    let me = (z * 2 + y) * 4 + x; // 3D MINE
    cells[me as usize] = me + 100;
    sync_threads(); // 3D BARRIER
    let other = cells[(31 - me) as usize]; // 3D AFTER
    let b = block_idx().z * 2 + block_idx().x;
    out[(b * 32 + me) as usize] = other; // 3D STORE
}

fn block_3d_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
    launch!(mirror_3d<<<(2, 1, 2), (4, 2, 4)>>>(&mut out)).unwrap();
    let got = out.to_vec().unwrap();
    assert!((0..128).all(|i| got[i] == 131 - (i as u32 % 32)));
}

/// One warp collective per launch (`op` 0 to 3): lanes 0..=30 wait in it while lane 31 is on
/// the line before.
#[kernel]
fn warp_ops(op: u32, out: &mut [u32]) {
    let lane = lane_id();
    let doubled = lane * 2; // WARP BREAK
    let r = if op == 0 {
        shfl_sync(FULL_MASK, doubled, 1) // WARP SHFL
    } else if op == 1 {
        ballot_sync(FULL_MASK, lane % 2 == 0) // WARP BALLOT
    } else if op == 2 {
        reduce_add_sync(FULL_MASK, doubled) // WARP REDUCE
    } else {
        sync_warp(FULL_MASK); // WARP SYNC
        doubled
    };
    let after = r + 1; // WARP AFTER
    out[thread_idx().x as usize] = after;
}

fn warp_ops_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let want = |op: u32, lane: u32| 1 + [2, 0x5555_5555, 992, lane * 2][op as usize];
    for op in 0..4 {
        launch!(warp_ops<<<1, 64>>>(op, &mut out)).unwrap();
        let got = out.to_vec().unwrap();
        assert!((0..64).all(|t| got[t as usize] == want(op, t % 32)), "op {op}: {got:?}");
    }
}

#[device_global]
static FOCUS_FLAGS: [u32; 2] = [0; 2];

/// Block 1 says it runs (flag 0), then spins until the other kernel's thread passes its
/// breakpoint (flag 1); block 0 only exits.
#[kernel]
fn focus_spinner(out: &mut [u32]) {
    let flags = FOCUS_FLAGS.view();
    if block_idx().x == 1 {
        flags.atomic_exch(0, 1);
        let mut spins = 0u32;
        while flags.atomic_or(1, 0) == 0 {
            spins = spins.wrapping_add(1); // SPINNER LOOP
        }
        out[0] = spins;
    }
}

/// Waits until the spinner runs, stops at its marked line, then lets the spinner go.
#[kernel]
fn focus_stopper(out: &mut [u32]) {
    let flags = FOCUS_FLAGS.view();
    while flags.atomic_or(0, 0) == 0 {}
    let seen = flags.atomic_or(0, 0) + 1; // STOPPER BREAK
    flags.atomic_exch(1, seen);
    out[0] = seen;
}

/// Two launches at once on two host threads (each runs its blocks itself, `EMU_BLOCKS=serial`):
/// when the stopper stops, the spinner's GPU thread runs on the other host thread.
fn two_host_threads_debuggee() {
    let spinner = std::thread::Builder::new()
        .name("spinner".into())
        .spawn(|| {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            launch!(focus_spinner<<<2, 1>>>(&mut out)).unwrap();
        })
        .unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    launch!(focus_stopper<<<1, 1>>>(&mut out)).unwrap();
    spinner.join().unwrap();
    assert_eq!(out.to_vec().unwrap(), [2]);
}

// ---------------------------------------------------------------------------------------------
// Helpers of the tests

fn line(marker: &str) -> usize {
    common::marked_line(include_str!("debugger.rs"), marker)
}

/// `tests/debugger.rs:LINE` of the line marked `marker`.
fn at(marker: &str) -> String {
    format!("tests/debugger.rs:{}", line(marker))
}

fn gdb(debuggee: &str, commands: &[&str], env: &[(&str, &str)]) -> Result<String, Skip> {
    harness::session(Debugger::Gdb, debuggee, commands, env)
}

fn lldb(debuggee: &str, commands: &[&str], env: &[(&str, &str)]) -> Result<String, Skip> {
    harness::session(Debugger::Lldb, debuggee, commands, env)
}

const THREADS: &[(&str, &str)] = &[("EMU_SCHEDULE", "threads")];

/// What each `emu-where` printed: the lines that start with `kernel `.
fn wheres(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("kernel ")).collect()
}

/// Asserts that `emu-where` printed `want`, `n` times and nothing else.
#[track_caller]
fn assert_wheres(text: &str, want: &str, n: usize) {
    let w = wheres(text);
    assert!(
        w.len() == n && w.iter().all(|l| *l == want),
        "expected {n} times {want:?} from emu-where, got {w:?}; output:\n{text}"
    );
}

/// The source lines the debugger said it stopped at, in order (gdb: its `N\tsource` lines;
/// lldb: the stop's `-> N` and emu-next's `... at debugger.rs:N`).
fn stops(text: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| {
            let l2 = l.trim_start_matches("->").trim_start();
            if let Some((n, _)) = l.split_once('\t') {
                if !l.starts_with(' ') && !l.starts_with("->") {
                    return n.trim().parse().ok();
                }
            }
            if l.starts_with("->") {
                return l2.split_whitespace().next()?.parse().ok();
            }
            let (_, n) = l.rsplit_once(" at debugger.rs:")?;
            n.parse().ok()
        })
        .collect()
}

/// Asserts that `want` appear in this order among the stops (others may come between).
#[track_caller]
fn assert_stops_in_order(text: &str, want: &[usize]) {
    let got = stops(text);
    let mut it = got.iter();
    for w in want {
        assert!(it.any(|g| g == w), "stops {got:?} lack {want:?} in this order; output:\n{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// The runner itself

/// The time limit holds: a session that would wait forever (here gdb runs a shell that
/// sleeps, with the program stopped at a breakpoint) is killed at its limit, and so are the
/// program it debugs and the shell.
fn sessions_past_their_limit_are_killed_with_their_program() -> Result<(), Skip> {
    harness::ready(Debugger::Gdb)?;
    let brk = format!("break {}", at("// PROBE LINE"));
    let cmds = [brk.as_str(), "run", "info inferiors", "shell sleep 600"];
    let cmd = harness::command(Debugger::Gdb, "probe", &cmds, &[], false);
    let t0 = std::time::Instant::now();
    let ran = harness::run_limited(cmd, std::time::Duration::from_secs(10)).unwrap();
    assert!(ran.timed_out, "gdb output:\n{}", ran.text);
    assert!(t0.elapsed().as_secs() < 60, "the kill took {:?}", t0.elapsed());
    let pid: u32 = ran
        .text
        .split("process ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no pid in gdb output:\n{}", ran.text));
    // gdb, the stopped program and the shell (and its sleep) were alive at the limit.
    assert!(ran.killed.contains(&pid), "the program ({pid}) was not among the killed {:?}", ran.killed);
    assert!(ran.killed.len() >= 3, "killed only {:?}", ran.killed);
    for p in &ran.killed {
        assert_eq!(harness::start_time(*p), None, "process {p} is still alive");
    }
    Ok(())
}

/// A debugger that hangs or fails (a fake `gdb` and `lldb` first on `PATH`: one that never
/// answers, one that exits 1 with gdb's error of a machine where it cannot call into the
/// program) makes its tests print `SKIPPED: <reason>` in their lines and the summary, within
/// the time limits, and the run passes; under `DEVICEEMU_REQUIRE` the same tests fail. This
/// binary runs itself with three tests chosen.
fn broken_debuggers_make_their_tests_skip_or_fail_when_required() -> Result<(), Skip> {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = std::env::temp_dir().join(format!("deviceemu-fake-debuggers-{}", std::process::id()));
    let cases = [
        ("hangs", "#!/bin/sh\nexec sleep 1000\n"),
        ("fails", "#!/bin/sh\necho \"Couldn't write extended state status: Bad address.\" >&2\nexit 1\n"),
    ];
    for (case, body) in cases {
        let bin = dir.join(case);
        std::fs::create_dir_all(&bin).unwrap();
        for name in ["gdb", "lldb"] {
            let f = bin.join(name);
            std::fs::write(&f, body).unwrap();
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        for require in ["", "gdb,lldb"] {
            let mut c = std::process::Command::new(std::env::current_exe().unwrap());
            c.arg("stops_in_the_chosen_gpu_thread")
                .env("PATH", &path)
                .env("DEVICEEMU_DEBUGGER_LIMIT", "5")
                .env("DEVICEEMU_REQUIRE", require);
            let t0 = std::time::Instant::now();
            let ran = harness::run_limited(c, std::time::Duration::from_secs(90)).unwrap();
            let took = t0.elapsed();
            let text = &ran.text;
            assert!(!ran.timed_out, "{case}, DEVICEEMU_REQUIRE={require:?}: the run hung; it printed:\n{text}");
            // Each debugger's probe waits at most the limit (5 s), and lldb -P as long.
            assert!(took.as_secs() < 60, "{case}: took {took:?}");
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("test ") && l.contains("stops_in_the_chosen_gpu_thread"))
                .collect();
            assert_eq!(lines.len(), 3, "{case}: three tests chosen; output:\n{text}");
            if require.is_empty() {
                for l in &lines {
                    assert!(l.contains("... SKIPPED: "), "{case}: {l:?} is not a skip; output:\n{text}");
                }
                assert!(text.contains("test result: ok. 0 passed; 0 failed; 3 skipped"), "{case}: output:\n{text}");
                assert!(text.contains("\nskipped:\n"), "{case}: the summary lists no skips; output:\n{text}");
            } else {
                for l in &lines {
                    assert!(l.contains("... FAILED"), "{case}, required: {l:?} did not fail; output:\n{text}");
                }
                assert!(text.contains("test result: FAILED. 0 passed; 3 failed"), "{case}: output:\n{text}");
                assert!(text.contains("DEVICEEMU_REQUIRE=gdb,lldb names gdb"), "{case}: output:\n{text}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// gdb

fn gdb_stops_in_the_chosen_gpu_thread() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = gdb("mirror", &[&brk, "run", "emu-where", "emu-threads", "info locals", "bt 1"], &[])?;
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
    // The kernel's own name and locals are visible (gdb names the host form, an associated
    // function of the launcher, `debugger::{impl#N}::mirror`).
    assert!(text.contains("::mirror::{async_block#0}"), "gdb output:\n{text}");
    assert!(text.contains("tid = 3") && text.contains("gid = 67"), "gdb output:\n{text}");
    // The other threads of block 1 are listed: 0..=2 ran past the barrier and exited, the rest
    // still wait at the barrier on the line above the breakpoint.
    let waiting = format!("threads (4,0,0) to (63,0,0): waiting at the barrier at {}:5", at("// MIRROR BARRIER"));
    for want in [
        "block (1,0,0) of kernel mirror:",
        "threads (0,0,0) to (2,0,0): exited",
        "thread (3,0,0): running (this thread)",
        &waiting,
    ] {
        assert!(text.contains(want), "{want:?} missing from gdb output:\n{text}");
    }
    Ok(())
}

/// Without the script: a plain conditional breakpoint on the kernel frame's `__emu_ctx`, with
/// every component (the state machine holds the whole `ThreadCtx`, not only the fields the
/// kernel reads).
fn gdb_plain_break_if_on_emu_ctx_stops_in_the_chosen_gpu_thread() -> Result<(), Skip> {
    let brk = format!(
        "break {} if __emu_ctx.thread_idx.x == 3 && __emu_ctx.thread_idx.y == 0 && __emu_ctx.thread_idx.z == 0 && __emu_ctx.block_idx.x == 1 && __emu_ctx.block_idx.y == 0 && __emu_ctx.block_idx.z == 0",
        at("// BREAK HERE")
    );
    let text = gdb("mirror", &[&brk, "run", "emu-where", "p __emu_ctx.block_dim", "p tid"], &[])?;
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
    assert!(text.contains("{x: 64, y: 1, z: 1}") && text.contains("= 3"), "gdb output:\n{text}");
    assert!(!text.contains("No symbol"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_break_matches_all_three_dimensions() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,2 1,1", at("// 2D BREAK"));
    let text = gdb("grid_2d", &[&brk, "run", "emu-where", "info locals"], &[])?;
    // With only x compared, thread (1,0,0) of block (1,0,0) would stop first.
    assert_wheres(&text, "kernel probe_2d, block (1,1,0), thread (1,2,0)", 1);
    assert!(text.contains("x = 1") && text.contains("y = 2"), "gdb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "gdb output:\n{text}");
    Ok(())
}

/// A breakpoint in a `#[device]` helper decides from the kernel frame that called it.
fn gdb_emu_break_in_a_device_helper() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// HELPER FIRST"));
    let text =
        gdb("stencil", &[&brk, "run", "emu-where", "bt 2", "up", "p __emu_ctx.thread_idx", "p gx", "p gy"], &[])?;
    assert_wheres(&text, "kernel stencil_2d, block (1,1,0), thread (3,2,0)", 1);
    assert!(text.contains("five_point"), "gdb output:\n{text}");
    // (`tx` and `ty` are not used after the barrier: the state machine does not keep them.)
    assert!(
        text.contains("{x: 3, y: 2, z: 0}") && text.contains("= 11") && text.contains("= 10"),
        "gdb output:\n{text}"
    );
    Ok(())
}

/// As in lldb (`lldb_emu_break_is_enabled_only_while_its_block_runs`): before `run`, emu-break
/// asks the program to report the starts of its blocks and is enabled only while one runs, so
/// gdb does not stop at the 256 hits of the histogram's loop in block 0.
fn gdb_emu_break_is_enabled_only_while_its_block_runs() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let later = format!("emu-break {} 5 2", at("// HIST ADD"));
    let count = "python print('decisions', _GpuThreadBreakpoint.decisions)";
    let text = gdb("histogram", &[&brk, "run", "emu-where", count, "delete 1", &later, "continue", "emu-where"], &[])?;
    let w = wheres(&text);
    assert_eq!(
        w,
        ["kernel histogram_16, block (1,0,0), thread (3,0,0)", "kernel histogram_16, block (2,0,0), thread (5,0,0)"],
        "gdb output:\n{text}"
    );
    assert!(text.contains("(enabled while such a block runs)"), "gdb output:\n{text}");
    let decided: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("decisions "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in gdb output:\n{text}"));
    // Threads 0..=2 of block 1, four turns each, then thread 3's first.
    assert!(decided <= 13, "{decided} hits were decided; gdb output:\n{text}");
    Ok(())
}

/// emu-threads names the collective the lanes wait in, for four kinds of collectives (four
/// launches, one stop each).
fn gdb_shows_lanes_waiting_in_warp_collectives() -> Result<(), Skip> {
    let brk = format!("emu-break {} 31 0", at("// WARP BREAK"));
    let mut cmds = vec![brk.as_str(), "run"];
    for _ in 0..4 {
        cmds.extend(["emu-where", "emu-threads", "continue"]);
    }
    let text = gdb("warp_ops", &cmds, &[])?;
    assert_wheres(&text, "kernel warp_ops, block (0,0,0), thread (31,0,0)", 4);
    check_warp_collectives(&text);
    Ok(())
}

fn check_warp_collectives(text: &str) {
    for (name, marker) in [
        ("shfl_sync", "// WARP SHFL"),
        ("ballot_sync", "// WARP BALLOT"),
        ("reduce_add_sync", "// WARP REDUCE"),
        ("sync_warp", "// WARP SYNC"),
    ] {
        let waiting = format!("threads (0,0,0) to (30,0,0): waiting in {name} at {}:", at(marker));
        assert!(text.contains(&waiting), "{waiting:?} missing from the output:\n{text}");
    }
    assert_eq!(text.matches("threads (32,0,0) to (63,0,0): not started").count(), 4, "output:\n{text}");
}

fn gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() -> Result<(), Skip> {
    // Stop on the sync_threads() line in thread 3 of block 1, then emu-next over it.
    let brk = format!("emu-break {} 3 1", at("// MIRROR BARRIER"));
    let text = gdb(
        "mirror",
        &[&brk, "run", "emu-where", "emu-next", "emu-where", "info locals", "emu-next", "emu-where"],
        &[],
    )?;
    // Stopped in the same GPU thread, on the line after the barrier, then the next one.
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 3);
    assert!(
        text.contains(&format!("{}\t    let mirrored = tile[63 - tid]; // BREAK HERE", line("// BREAK HERE"))),
        "gdb output:\n{text}"
    );
    assert!(
        text.contains(&format!("{}\t    out[gid] = mirrored; // MIRROR STORE", line("// MIRROR STORE"))),
        "gdb output:\n{text}"
    );
    // The user's breakpoint on the barrier's line is not hit again where the thread resumes.
    assert_eq!(
        text.lines().filter(|l| l.contains("Breakpoint 1.") && l.contains(" at ")).count(),
        1,
        "gdb output:\n{text}"
    );
    assert!(!text.contains("task.rs"), "emu-next stopped in the runtime:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
    Ok(())
}

/// The 2-D stencil, thread (3,2,0) of block (1,1,0): emu-next over the halo loads and the
/// barrier, emu-step into the helper and back, all in that GPU thread (lldb's emu-next used
/// to stop before the barrier in thread (4,2,0)).
fn stencil_commands(brk: &str) -> Vec<&str> {
    let mut cmds = vec![brk, "run", "emu-where"];
    // CELL, the load, the four halo `if`s (their bodies skipped), the barrier, AFTER.
    for _ in 0..8 {
        cmds.extend(["emu-next", "emu-where"]);
    }
    cmds.extend(["emu-step", "emu-where", "emu-next", "emu-where", "emu-next", "emu-where", "emu-next", "emu-where"]);
    cmds
}

fn check_stencil(dbg: Debugger, text: &str) {
    let here = "kernel stencil_2d, block (1,1,0), thread (3,2,0)";
    assert_wheres(text, here, 13);
    // Over the barrier to the line after it, into the helper, through it, and back to the
    // kernel's next line.
    assert_stops_in_order(
        text,
        &[
            line("// STENCIL CELL"),
            line("// STENCIL BARRIER"),
            line("// STENCIL AFTER"),
            line("// STENCIL CALL"),
            line("// HELPER FIRST"),
            line("// HELPER LAST"),
            line("// STENCIL STORE"),
        ],
    );
    assert!(!text.contains("task.rs") && !text.contains("block.rs"), "{dbg:?} stopped in the runtime:\n{text}");
}

fn gdb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// STENCIL CELL"));
    let mut cmds = stencil_commands(&brk);
    cmds.push("p __emu_ctx.thread_idx");
    let text = gdb("stencil", &cmds, &[])?;
    check_stencil(Debugger::Gdb, &text);
    assert!(text.contains("{x: 3, y: 2, z: 0}"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// STENCIL CELL"));
    let text = gdb("stencil", &stencil_commands(&brk), THREADS)?;
    check_stencil(Debugger::Gdb, &text);
    // Thread events are silenced: no line per started or ended OS thread.
    assert!(!text.contains("[New Thread"), "gdb output:\n{text}");
    Ok(())
}

/// The histogram, thread 3 of block 1: emu-next through its loop's four turns (the shared
/// atomic included; its `i` is printed at each turn), then out of the loop, over the barrier,
/// to the merge. `print` prints a variable (`VAR`). A turn is BIN, ADD, STEP and, in gdb, the
/// loop's condition (lldb's line table has no separate entry for it after the first turn).
fn histogram_commands(dbg: Debugger, brk: &str, print: &str) -> Vec<String> {
    let turn = if dbg == Debugger::Gdb { 4 } else { 3 };
    let p = print.replace("VAR", "i");
    let mut cmds = vec![brk.to_owned(), "run".into(), "emu-where".into(), p.clone()];
    for _ in 0..3 {
        for _ in 0..turn {
            cmds.extend(["emu-next".into(), "emu-where".into()]);
        }
        cmds.push(p.clone());
    }
    // ADD, STEP, (the condition,) the barrier, the `if`, the merge.
    cmds.extend((0..turn + 2).map(|_| "emu-next".to_owned()));
    cmds.extend(["emu-where".into(), print.replace("VAR", "t")]);
    cmds
}

fn check_histogram(dbg: Debugger, text: &str, i: &str) {
    let turn = if dbg == Debugger::Gdb { 4 } else { 3 };
    assert_wheres(text, "kernel histogram_16, block (1,0,0), thread (3,0,0)", 2 + 3 * turn);
    let (bin, add, step) = (line("// HIST BIN"), line("// HIST ADD"), line("// HIST STEP"));
    assert_stops_in_order(
        text,
        &[
            bin,
            add,
            step,
            bin,
            add,
            step,
            bin,
            add,
            step,
            bin,
            add,
            step,
            line("// HIST BARRIER"),
            line("// HIST MERGE"),
        ],
    );
    // i = 64 + 3 in the first turn, and 256 more in each next one.
    for v in [67, 323, 579, 835] {
        let want = i.replace("N", &v.to_string());
        assert!(text.contains(&want), "{want:?} missing from the output:\n{text}");
    }
}

fn gdb_emu_next_keeps_the_gpu_thread_in_a_histogram() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let cmds = histogram_commands(Debugger::Gdb, &brk, "p VAR");
    let text = gdb("histogram", &cmds.iter().map(String::as_str).collect::<Vec<_>>(), &[])?;
    check_histogram(Debugger::Gdb, &text, "= N\n");
    Ok(())
}

fn gdb_emu_next_in_a_histogram_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let cmds = histogram_commands(Debugger::Gdb, &brk, "p VAR");
    let text = gdb("histogram", &cmds.iter().map(String::as_str).collect::<Vec<_>>(), THREADS)?;
    check_histogram(Debugger::Gdb, &text, "= N\n");
    Ok(())
}

fn block_3d_commands(brk: &str) -> Vec<&str> {
    vec![
        brk,
        "run",
        "emu-where",
        "emu-next",
        "emu-where",
        "emu-next",
        "emu-where",
        "emu-next",
        "emu-where",
        "emu-next",
        "emu-where",
    ]
}

fn check_block_3d(text: &str) {
    assert_wheres(text, "kernel mirror_3d, block (1,0,1), thread (1,1,2)", 5);
    assert_stops_in_order(text, &[line("// 3D MINE"), line("// 3D BARRIER"), line("// 3D AFTER")]);
}

fn gdb_emu_next_keeps_the_gpu_thread_in_a_3d_block() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,1,2 1,0,1", at("// 3D MINE"));
    let mut cmds = block_3d_commands(&brk);
    cmds.push("p me");
    let text = gdb("block_3d", &cmds, &[])?;
    check_block_3d(&text);
    assert!(text.contains("= 21"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_next_in_a_3d_block_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,1,2 1,0,1", at("// 3D MINE"));
    let text = gdb("block_3d", &block_3d_commands(&brk), THREADS)?;
    check_block_3d(&text);
    Ok(())
}

/// Lane 5 steps over a shuffle it must wait in for lanes 6..=31: it stops after it, itself.
fn warp_next_commands(brk: &str) -> Vec<&str> {
    vec![brk, "run", "emu-where", "emu-next", "emu-where", "emu-next", "emu-where", "emu-next", "emu-where"]
}

fn check_warp_next(text: &str) {
    assert_wheres(text, "kernel warp_ops, block (0,0,0), thread (5,0,0)", 4);
    assert_stops_in_order(text, &[line("// WARP BREAK"), line("// WARP SHFL"), line("// WARP AFTER")]);
}

fn gdb_emu_next_over_a_warp_collective() -> Result<(), Skip> {
    let brk = format!("emu-break {} 5 0", at("// WARP BREAK"));
    let mut cmds = warp_next_commands(&brk);
    cmds.push("p r");
    let text = gdb("warp_ops", &cmds, &[])?;
    check_warp_next(&text);
    assert!(text.contains("= 2"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_next_over_a_warp_collective_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 5 0", at("// WARP BREAK"));
    let text = gdb("warp_ops", &warp_next_commands(&brk), THREADS)?;
    check_warp_next(&text);
    Ok(())
}

/// emu-next at the kernel's last statement stops at its closing brace, and from there where
/// the GPU thread's function returned (it exited), not in another GPU thread.
fn gdb_emu_next_at_the_end_stops_where_the_gpu_thread_exits() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// MIRROR STORE"));
    let text = gdb("mirror", &[&brk, "run", "emu-next", "emu-where", "emu-next", "emu-where", "emu-threads"], &[])?;
    assert_stops_in_order(&text, &[line("// MIRROR STORE"), line("// MIRROR END")]);
    assert!(
        text.contains("[GPU thread (3,0,0) of block (1,0,0) returned from its kernel function: it exited]"),
        "gdb output:\n{text}"
    );
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 2);
    Ok(())
}

fn gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = gdb("mirror", &[&brk, "run", "emu-where", "emu-threads", "info threads"], THREADS)?;
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
    assert!(text.contains("thread (3,0,0): running (this thread)"), "gdb output:\n{text}");
    // Block 1's thread 3 runs, 4..=63 wait at the barrier, each on its own named OS thread;
    // 0..=2 have exited and their threads are gone (or idle, unnamed).
    for live in ["\"b1t3\"", "\"b1t4\"", "\"b1t63\""] {
        assert!(text.contains(live), "{live} missing from gdb output:\n{text}");
    }
    for gone in ["\"b1t0\"", "\"b1t2\"", "\"b0t"] {
        assert!(!text.contains(gone), "{gone} in gdb output:\n{text}");
    }
    Ok(())
}

/// With fibers, a waiting GPU thread has no stack gdb can select: emu-focus says so, with its
/// state; the running one is selected; a block nobody runs is named.
fn gdb_emu_focus_with_fibers_says_why_not() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = gdb(
        "mirror",
        &[
            &brk,
            "run",
            "emu-focus (1,0,0) (7,0,0)",
            "emu-focus (2,0,0) (0,0,0)",
            "up 3",
            "emu-focus (1,0,0) (3,0,0)",
            "emu-where",
        ],
        &[],
    )?;
    check_focus_with_fibers(&text);
    Ok(())
}

fn check_focus_with_fibers(text: &str) {
    let waiting = format!(
        "emu-focus: thread (7,0,0) of block (1,0,0) is waiting at the barrier at {}:5, on a fiber no host thread runs now",
        at("// MIRROR BARRIER")
    );
    assert!(text.contains(&waiting), "output:\n{text}");
    assert!(text.contains("EMU_SCHEDULE=threads"), "output:\n{text}");
    assert!(text.contains("emu-focus: block (2,0,0) is not running now"), "output:\n{text}");
    assert!(text.contains("[Focus: kernel mirror, block (1,0,0), thread (3,0,0)]"), "output:\n{text}");
    assert_wheres(text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
}

/// With fibers, a GPU thread that runs on another host thread (another launch, here) is
/// reached: emu-focus selects that host thread and the kernel frame in it.
fn gdb_emu_focus_reaches_a_gpu_thread_on_another_host_thread() -> Result<(), Skip> {
    let brk = format!("emu-break {} 0 0", at("// STOPPER BREAK"));
    let text = gdb(
        "two_host_threads",
        &[&brk, "run", "emu-where", "emu-focus (1,0,0) (0,0,0)", "emu-where", "info locals"],
        &[],
    )?;
    check_focus_other_host_thread(&text);
    assert!(text.contains("spins = "), "gdb output:\n{text}");
    Ok(())
}

fn check_focus_other_host_thread(text: &str) {
    let w = wheres(text);
    assert_eq!(
        w,
        ["kernel focus_stopper, block (0,0,0), thread (0,0,0)", "kernel focus_spinner, block (1,0,0), thread (0,0,0)"],
        "output:\n{text}"
    );
    assert!(text.contains("[Focus: kernel focus_spinner, block (1,0,0), thread (0,0,0)]"), "output:\n{text}");
}

/// With `EMU_SCHEDULE=threads` every live GPU thread has an OS thread: emu-focus selects a
/// waiting one, in its kernel frame, and emu-threads marks it.
fn gdb_emu_focus_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = gdb(
        "mirror",
        &[
            &brk,
            "run",
            "emu-focus (1,0,0) (7,0,0)",
            "emu-where",
            "emu-threads",
            "info locals",
            "emu-focus (1,0,0) (1,0,0)",
        ],
        THREADS,
    )?;
    check_focus_threads(&text);
    assert!(text.contains("tid = 7"), "gdb output:\n{text}");
    Ok(())
}

fn check_focus_threads(text: &str) {
    assert!(text.contains("[Focus: kernel mirror, block (1,0,0), thread (7,0,0)]"), "output:\n{text}");
    assert_wheres(text, "kernel mirror, block (1,0,0), thread (7,0,0)", 1);
    assert!(text.contains("thread (3,0,0): running\n"), "output:\n{text}");
    let me = format!("thread (7,0,0): waiting at the barrier at {}:5 (this thread)", at("// MIRROR BARRIER"));
    assert!(text.contains(&me), "output:\n{text}");
    assert!(text.contains("emu-focus: thread (1,0,0) of block (1,0,0) has exited"), "output:\n{text}");
}

// ---------------------------------------------------------------------------------------------
// lldb

fn lldb_stops_in_the_chosen_gpu_thread() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = lldb("mirror", &[&brk, "run", "emu-where", "emu-threads", "frame variable tid gid"], &[])?;
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
    assert!(text.contains("tid = 3") && text.contains("gid = 67"), "lldb output:\n{text}");
    let waiting = format!("threads (4,0,0) to (63,0,0): waiting at the barrier at {}:5", at("// MIRROR BARRIER"));
    for want in ["threads (0,0,0) to (2,0,0): exited", "thread (3,0,0): running (this thread)", &waiting] {
        assert!(text.contains(want), "{want:?} missing from lldb output:\n{text}");
    }
    Ok(())
}

fn lldb_emu_break_matches_all_three_dimensions() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,2 1,1", at("// 2D BREAK"));
    let text = lldb("grid_2d", &[&brk, "run", "emu-where", "frame variable x y gx gy"], &[])?;
    assert_wheres(&text, "kernel probe_2d, block (1,1,0), thread (1,2,0)", 1);
    assert!(text.contains("x = 1") && text.contains("y = 2"), "lldb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_break_in_a_device_helper() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// HELPER FIRST"));
    let text = lldb("stencil", &[&brk, "run", "emu-where", "up", "frame variable __emu_ctx.thread_idx gx gy"], &[])?;
    assert_wheres(&text, "kernel stencil_2d, block (1,1,0), thread (3,2,0)", 1);
    assert!(text.contains("five_point"), "lldb output:\n{text}");
    assert!(
        text.contains("(x = 3, y = 2, z = 0)") && text.contains("gx = 11") && text.contains("gy = 10"),
        "lldb output:\n{text}"
    );
    Ok(())
}

/// lldb stops at every hit of a breakpoint's line, whatever the condition: before `run`,
/// emu-break asks the program to report when a host thread starts a block of the breakpoint
/// (`DEVICEEMU_WATCH_BLOCKS`), and keeps the breakpoint enabled only while one runs. Block 0's
/// 64 threads pass the histogram's loop 4 times each before block 1 starts: none of those
/// 256 hits stops lldb. An emu-break made while the program runs is not gated, and stops too.
fn lldb_emu_break_is_enabled_only_while_its_block_runs() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let later = format!("emu-break {} 5 2", at("// HIST ADD"));
    let text = lldb(
        "histogram",
        &[&brk, "run", "emu-where", "breakpoint list 1", "breakpoint delete 1", &later, "continue", "emu-where"],
        &[],
    )?;
    let w = wheres(&text);
    assert_eq!(
        w,
        ["kernel histogram_16, block (1,0,0), thread (3,0,0)", "kernel histogram_16, block (2,0,0), thread (5,0,0)"],
        "lldb output:\n{text}"
    );
    assert!(text.contains("enabled while such a block runs"), "lldb output:\n{text}");
    let hits: usize = text
        .lines()
        .find(|l| l.starts_with("1: file = ") && l.contains("hit count = "))
        .and_then(|l| l.rsplit("hit count = ").next()?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no hit count in lldb output:\n{text}"));
    // Threads 0..=2 of block 1, four turns each, then thread 3's first.
    assert!(hits <= 13, "the breakpoint was hit {hits} times; lldb output:\n{text}");
    Ok(())
}

fn lldb_shows_lanes_waiting_in_warp_collectives() -> Result<(), Skip> {
    let brk = format!("emu-break {} 31 0", at("// WARP BREAK"));
    let mut cmds = vec![brk.as_str(), "run"];
    for _ in 0..4 {
        cmds.extend(["emu-where", "emu-threads", "continue"]);
    }
    let text = lldb("warp_ops", &cmds, &[])?;
    assert_wheres(&text, "kernel warp_ops, block (0,0,0), thread (31,0,0)", 4);
    check_warp_collectives(&text);
    Ok(())
}

fn lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// MIRROR BARRIER"));
    let text = lldb("mirror", &[&brk, "run", "emu-next", "emu-where", "emu-threads", "frame variable tid"], &[])?;
    assert!(text.contains(&format!("at debugger.rs:{}", line("// BREAK HERE"))), "lldb output:\n{text}");
    assert_wheres(&text, "kernel mirror, block (1,0,0), thread (3,0,0)", 1);
    assert!(text.contains("tid = 3"), "lldb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_next_and_emu_step_keep_the_gpu_thread_in_a_2d_stencil() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// STENCIL CELL"));
    let mut cmds = stencil_commands(&brk);
    cmds.push("frame variable __emu_ctx.thread_idx");
    let text = lldb("stencil", &cmds, &[])?;
    check_stencil(Debugger::Lldb, &text);
    assert!(text.contains("(x = 3, y = 2, z = 0)"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_next_and_emu_step_in_a_2d_stencil_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3,2 1,1", at("// STENCIL CELL"));
    let text = lldb("stencil", &stencil_commands(&brk), THREADS)?;
    check_stencil(Debugger::Lldb, &text);
    Ok(())
}

fn lldb_emu_next_keeps_the_gpu_thread_in_a_histogram() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let cmds = histogram_commands(Debugger::Lldb, &brk, "frame variable VAR");
    let text = lldb("histogram", &cmds.iter().map(String::as_str).collect::<Vec<_>>(), &[])?;
    check_histogram(Debugger::Lldb, &text, "i = N\n");
    Ok(())
}

fn lldb_emu_next_in_a_histogram_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// HIST BIN"));
    let cmds = histogram_commands(Debugger::Lldb, &brk, "frame variable VAR");
    let text = lldb("histogram", &cmds.iter().map(String::as_str).collect::<Vec<_>>(), THREADS)?;
    check_histogram(Debugger::Lldb, &text, "i = N\n");
    Ok(())
}

fn lldb_emu_next_keeps_the_gpu_thread_in_a_3d_block() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,1,2 1,0,1", at("// 3D MINE"));
    let text = lldb("block_3d", &block_3d_commands(&brk), &[])?;
    check_block_3d(&text);
    Ok(())
}

fn lldb_emu_next_in_a_3d_block_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 1,1,2 1,0,1", at("// 3D MINE"));
    let text = lldb("block_3d", &block_3d_commands(&brk), THREADS)?;
    check_block_3d(&text);
    Ok(())
}

fn lldb_emu_next_over_a_warp_collective_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 5 0", at("// WARP BREAK"));
    let text = lldb("warp_ops", &warp_next_commands(&brk), THREADS)?;
    check_warp_next(&text);
    Ok(())
}

fn lldb_emu_next_over_a_warp_collective() -> Result<(), Skip> {
    let brk = format!("emu-break {} 5 0", at("// WARP BREAK"));
    let mut cmds = warp_next_commands(&brk);
    cmds.push("frame variable r");
    let text = lldb("warp_ops", &cmds, &[])?;
    check_warp_next(&text);
    assert!(text.contains("r = 2"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_focus_with_fibers_says_why_not() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = lldb(
        "mirror",
        &[
            &brk,
            "run",
            "emu-focus (1,0,0) (7,0,0)",
            "emu-focus (2,0,0) (0,0,0)",
            "up 3",
            "emu-focus (1,0,0) (3,0,0)",
            "emu-where",
        ],
        &[],
    )?;
    check_focus_with_fibers(&text);
    Ok(())
}

fn lldb_emu_focus_reaches_a_gpu_thread_on_another_host_thread() -> Result<(), Skip> {
    let brk = format!("emu-break {} 0 0", at("// STOPPER BREAK"));
    let text = lldb(
        "two_host_threads",
        &[&brk, "run", "emu-where", "emu-focus (1,0,0) (0,0,0)", "emu-where", "frame variable spins"],
        &[],
    )?;
    check_focus_other_host_thread(&text);
    assert!(text.contains("spins = "), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_focus_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("emu-break {} 3 1", at("// BREAK HERE"));
    let text = lldb(
        "mirror",
        &[
            &brk,
            "run",
            "emu-focus (1,0,0) (7,0,0)",
            "emu-where",
            "emu-threads",
            "frame variable tid",
            "emu-focus (1,0,0) (1,0,0)",
        ],
        THREADS,
    )?;
    check_focus_threads(&text);
    assert!(text.contains("tid = 7"), "lldb output:\n{text}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The documents' transcripts (`debugger/transcripts.rs`)

use transcripts::Session;

const SERIAL: &[(&str, &str)] = &[("EMU_BLOCKS", "serial")];
const SERIAL_THREADS: &[(&str, &str)] = &[("EMU_SCHEDULE", "threads"), ("EMU_BLOCKS", "serial")];

/// docs/guide/debugging.md, the user guide's debugging chapter.
const GUIDE: &[Session] = &[Session {
    id: "guide-gdb",
    debugger: Some(Debugger::Gdb),
    example: "saxpy",
    args: &[],
    env: SERIAL,
    commands: &[
        "set may-call-functions off",
        "source tools/gdb/deviceemu.py",
        "emu-break saxpy.rs:24 3 1",
        "run",
        "emu-where",
        "emu-next",
        "emu-where",
        "p s",
    ],
}];

const DEBUGGING: &[Session] = &[
    Session {
        id: "blur-report",
        debugger: None,
        example: "blur",
        args: &[],
        env: &[("EMU_PRINT_LIMIT", "2")],
        commands: &[],
    },
    Session {
        id: "blur-break",
        debugger: Some(Debugger::Gdb),
        example: "blur",
        args: &[],
        env: SERIAL,
        commands: &[
            "source tools/gdb/deviceemu.py",
            "emu-break blur.rs:29 0,15 0,2",
            "run",
            "emu-threads",
            "p x",
            "p y",
            "emu-next",
            "p idx",
        ],
    },
    Session {
        id: "blur-inspect",
        debugger: Some(Debugger::Gdb),
        example: "blur",
        args: &[],
        env: SERIAL,
        commands: &[
            "source tools/gdb/deviceemu.py",
            "emu-break blur.rs:30 0,15 0,2",
            "run",
            "emu-where",
            "info locals",
            "p width",
            "p pitch",
            "p output.len",
            "p y * pitch + x",
            "p y * width + x",
        ],
    },
    Session { id: "blur-fixed", debugger: None, example: "blur", args: &["fixed"], env: &[], commands: &[] },
    Session {
        id: "quicksort-where",
        debugger: Some(Debugger::Gdb),
        example: "cdp_quicksort",
        args: &["2000"],
        env: SERIAL,
        commands: &["source tools/gdb/deviceemu.py", "break cdp_quicksort.rs:46 if depth == 2", "run", "emu-where"],
    },
    Session {
        id: "gdb-plain",
        debugger: Some(Debugger::Gdb),
        example: "saxpy",
        args: &[],
        env: SERIAL,
        commands: &[
            "set may-call-functions off",
            "break saxpy.rs:24 if __emu_ctx.thread_idx.x == 3 && __emu_ctx.block_idx.x == 1",
            "run",
            "p __emu_ctx.thread_idx",
            "p __emu_ctx.block_idx",
            "p s",
        ],
    },
    Session {
        id: "lldb",
        debugger: Some(Debugger::Lldb),
        example: "saxpy",
        args: &[],
        env: SERIAL,
        commands: &[
            "command script import tools/lldb/deviceemu.py",
            "emu-break saxpy.rs:24 3 1",
            "run",
            "emu-where",
            "emu-next",
            "emu-where",
            "frame variable tid s",
        ],
    },
    Session {
        id: "gdb-threads",
        debugger: Some(Debugger::Gdb),
        example: "saxpy",
        args: &[],
        env: SERIAL_THREADS,
        commands: &[
            "set may-call-functions off",
            "source tools/gdb/deviceemu.py",
            "emu-break saxpy.rs:24 3 1",
            "run",
            "emu-threads",
            "emu-focus (1,0,0) (4,0,0)",
            "emu-where",
            "p tid",
        ],
    },
];

/// Addresses, ids, symbol hashes and breakpoint location numbers are hidden; breakpoint
/// numbers, lines and values are not.
fn transcripts_are_compared_less_what_changes_between_builds() -> Result<(), Skip> {
    use transcripts::normalise as n;
    assert_eq!(n("Breakpoint 1.4, f () at a.rs:22"), n("Breakpoint 1.2, f () at a.rs:22"));
    assert_eq!(n("stop reason = breakpoint 1.4"), n("stop reason = breakpoint 1.12"));
    assert_eq!(
        n("Breakpoint 1 at 0xfd3d6: a.rs:22. (4 locations)"),
        n("Breakpoint 1 at 0x13b646: a.rs:22. (4 locations)")
    );
    assert_eq!(
        n("[Switching to Thread 0x7fffb52066c0 (LWP 18587)]"),
        n("[Switching to Thread 0x7fffb52066c1 (LWP 5154)]")
    );
    assert_ne!(n("Breakpoint 1.4, f () at a.rs:22"), n("Breakpoint 2.4, f () at a.rs:22"));
    assert_ne!(n("Breakpoint 1.4, f () at a.rs:22"), n("Breakpoint 1.4, f () at a.rs:23"));
    assert_ne!(n("$1 = 128"), n("$1 = 64"));
    Ok(())
}

fn transcripts_of_the_guide_match_a_fresh_run() -> Result<(), Skip> {
    transcripts::check("docs/guide/debugging.md", GUIDE)
}

fn transcripts_of_debugging_md_match_a_fresh_run() -> Result<(), Skip> {
    transcripts::check("DEBUGGING.md", DEBUGGING)
}
