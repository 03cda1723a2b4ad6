//! The debugger promise, tested for real: gdb and lldb stop at a kernel line in one chosen GPU thread,
//! shows the kernel's locals, and the deviceemu helpers name the thread and its block.
//!
//! The debuggee is this test binary itself, run as `debugger --debuggee NAME`. It is a
//! `harness = false` target: its runner (`debugger/harness.rs`) puts every debugger session
//! under a time limit, and reports a test that found no usable debugger as SKIPPED.

mod common;
#[path = "debugger/harness.rs"]
mod harness;

use deviceemu::prelude::*;
use harness::{session, Debugger, Skip};

fn main() {
    harness::main(TESTS, DEBUGGEES);
}

/// The tests, run in this order.
const TESTS: &[(&str, harness::TestFn)] = &[
    ("sessions_past_their_limit_are_killed_with_their_program", sessions_past_their_limit_are_killed_with_their_program),
    ("gdb_stops_in_the_chosen_gpu_thread", gdb_stops_in_the_chosen_gpu_thread),
    ("gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads", gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads),
    ("gdb_shows_lanes_waiting_in_a_warp_collective", gdb_shows_lanes_waiting_in_a_warp_collective),
    ("gdb_emu_break_matches_all_three_dimensions", gdb_emu_break_matches_all_three_dimensions),
    ("gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread", gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread),
    ("gdb_emu_next_over_the_barrier_with_emu_schedule_threads", gdb_emu_next_over_the_barrier_with_emu_schedule_threads),
    ("lldb_emu_break_matches_all_three_dimensions", lldb_emu_break_matches_all_three_dimensions),
    ("lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread", lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread),
    ("lldb_stops_in_the_chosen_gpu_thread", lldb_stops_in_the_chosen_gpu_thread),
];

/// The programs the debuggers run (`--debuggee NAME`).
const DEBUGGEES: &[(&str, fn())] = &[
    ("probe", probe_debuggee),
    ("debuggee", debuggee),
    ("warp_debuggee", warp_debuggee),
    ("debuggee_2d", debuggee_2d),
];

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

/// The time limit holds: a session that would wait forever (here gdb runs a shell that
/// sleeps, with the program stopped at a breakpoint) is killed at its limit, and so are the
/// program it debugs and the shell.
fn sessions_past_their_limit_are_killed_with_their_program() -> Result<(), Skip> {
    harness::ready(Debugger::Gdb)?;
    let line = marker_line("// PROBE LINE");
    let brk = format!("break tests/debugger.rs:{line}");
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

#[kernel]
fn probe(out: &mut [u32]) {
    let mut tile = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let gid = block_idx().x as usize * 64 + tid;
    tile[tid] = gid as u32;
    sync_threads();
    let mirrored = tile[63 - tid]; // BREAK HERE
    out[gid] = mirrored;
}

fn debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(256).unwrap();
    launch!(probe<<<4, 64>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap()[64 + 3], 64 + 60);
}

/// Lanes 0..=30 of each warp wait in the shuffle while lane 31 is before it.
#[kernel]
fn warp_probe(out: &mut [u32]) {
    let lane = lane_id();
    let doubled = lane * 2; // WARP BREAK
    out[thread_idx().x as usize] = shfl_sync(FULL_MASK, doubled, 0);
}

fn warp_debuggee() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    launch!(warp_probe<<<1, 64>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![0; 64]);
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

fn debuggee_2d() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    launch!(probe_2d<<<(2, 2), (4, 4)>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap()[(4 + 2) * 8 + 4 + 1], 102);
}

fn break_line() -> usize {
    marker_line("// BREAK HERE")
}

fn marker_line(marker: &str) -> usize {
    common::marked_line(include_str!("debugger.rs"), marker)
}

/// Runs gdb on the debuggee `debuggee` with the deviceemu script loaded, the breakpoint
/// `emu-break BREAK` set and `commands` run after `run`, with `EMU_BLOCKS=serial` and `env`;
/// returns everything it printed.
fn gdb_session(debuggee: &str, brk: &str, commands: &[&str], env: &[(&str, &str)]) -> Result<String, Skip> {
    let brk = format!("emu-break {brk}");
    let mut all = vec![brk.as_str(), "run"];
    all.extend_from_slice(commands);
    session(Debugger::Gdb, debuggee, &all, env)
}

fn gdb_stops_in_the_chosen_gpu_thread() -> Result<(), Skip> {
    let brk = format!("tests/debugger.rs:{} 3 1", break_line());
    let text = gdb_session("debuggee", &brk, &["emu-where", "emu-threads", "info locals", "bt 1"], &[])?;
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "gdb output:\n{text}");
    // The kernel's own name and locals are visible (gdb names the host form, an associated
    // function of the launcher, `debugger::{impl#N}::probe`).
    assert!(text.contains("::probe::{async_block#0}"), "gdb output:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
    assert!(text.contains("gid = 67"), "gdb output:\n{text}");
    // The other threads of block 1 are listed: 0..=2 ran past the barrier and exited, the rest
    // still wait at the barrier on the line above the breakpoint.
    assert!(text.contains("threads (0,0,0) to (2,0,0): exited"), "gdb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "gdb output:\n{text}");
    assert!(text.contains(&format!("debugger.rs:{}", break_line() - 1)), "gdb output:\n{text}");
    Ok(())
}

fn gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads() -> Result<(), Skip> {
    let brk = format!("tests/debugger.rs:{} 3 1", break_line());
    let env = [("EMU_SCHEDULE", "threads")];
    let text = gdb_session("debuggee", &brk, &["emu-where", "info threads"], &env)?;
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "gdb output:\n{text}");
    // Block 1's thread 3 runs, 4..=63 wait at the barrier, each on its own named OS thread;
    // 0..=2 have exited and their threads are gone.
    for live in ["\"b1t3\"", "\"b1t4\"", "\"b1t63\""] {
        assert!(text.contains(live), "{live} missing from gdb output:\n{text}");
    }
    for gone in ["\"b1t0\"", "\"b1t2\"", "\"b0t"] {
        assert!(!text.contains(gone), "{gone} in gdb output:\n{text}");
    }
    Ok(())
}

fn gdb_shows_lanes_waiting_in_a_warp_collective() -> Result<(), Skip> {
    let line = marker_line("// WARP BREAK");
    let brk = format!("tests/debugger.rs:{line} 31 0");
    let text = gdb_session("warp_debuggee", &brk, &["emu-where", "emu-threads"], &[])?;
    assert!(text.contains("kernel warp_probe, block (0,0,0), thread (31,0,0)"), "gdb output:\n{text}");
    // Lanes 0..=30 arrived at the shuffle on the next line and wait for lane 31; the second
    // warp has not started.
    let waiting = format!("threads (0,0,0) to (30,0,0): waiting in shfl_sync at tests/debugger.rs:{}", line + 1);
    assert!(text.contains(&waiting), "gdb output:\n{text}");
    assert!(text.contains("threads (32,0,0) to (63,0,0): not started"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_break_matches_all_three_dimensions() -> Result<(), Skip> {
    let line = marker_line("// 2D BREAK");
    let brk = format!("tests/debugger.rs:{line} 1,2 1,1");
    let text = gdb_session("debuggee_2d", &brk, &["emu-where", "info locals"], &[])?;
    // With only x compared, thread (1,0,0) of block (1,0,0) would stop first.
    assert!(text.contains("kernel probe_2d, block (1,1,0), thread (1,2,0)"), "gdb output:\n{text}");
    assert!(text.contains("x = 1") && text.contains("y = 2"), "gdb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() -> Result<(), Skip> {
    // Stop on the sync_threads() line in thread 3 of block 1, then emu-next over it.
    let barrier = break_line() - 1;
    let brk = format!("tests/debugger.rs:{barrier} 3 1");
    let text = gdb_session("debuggee", &brk, &["emu-where", "emu-next", "emu-where", "info locals", "emu-next", "emu-where"], &[])?;
    // Stopped in the same GPU thread, on the line after the barrier, then the next one.
    assert_eq!(text.matches("kernel probe, block (1,0,0), thread (3,0,0)").count(), 3, "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    let mirrored = tile[63 - tid]; // BREAK HERE", break_line())), "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    out[gid] = mirrored;", break_line() + 1)), "gdb output:\n{text}");
    // The user's breakpoint on the barrier's line is not hit again where the thread resumes.
    assert_eq!(text.lines().filter(|l| l.contains("Breakpoint 1.") && l.contains(" at ")).count(), 1, "gdb output:\n{text}");
    assert!(!text.contains("task.rs"), "emu-next stopped in the runtime:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
    Ok(())
}

fn gdb_emu_next_over_the_barrier_with_emu_schedule_threads() -> Result<(), Skip> {
    let barrier = break_line() - 1;
    let brk = format!("tests/debugger.rs:{barrier} 3 1");
    let env = [("EMU_SCHEDULE", "threads")];
    let text = gdb_session("debuggee", &brk, &["emu-next", "emu-where", "info locals"], &env)?;
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    let mirrored = tile[63 - tid]; // BREAK HERE", break_line())), "gdb output:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
    // Thread events are silenced: no line per started or ended OS thread.
    assert!(!text.contains("[New Thread"), "gdb output:\n{text}");
    Ok(())
}

/// Runs lldb on `debuggee` with tools/lldb/deviceemu.py loaded and `commands` run.
fn lldb_session(debuggee: &str, commands: &[&str]) -> Result<String, Skip> {
    session(Debugger::Lldb, debuggee, commands, &[])
}

fn lldb_emu_break_matches_all_three_dimensions() -> Result<(), Skip> {
    let brk = format!("emu-break debugger.rs:{} 1,2 1,1", marker_line("// 2D BREAK"));
    let text = lldb_session("debuggee_2d", &[&brk, "run", "emu-where", "frame variable x y gx gy"])?;
    assert!(text.contains("kernel probe_2d, block (1,1,0), thread (1,2,0)"), "lldb output:\n{text}");
    assert!(text.contains("x = 1") && text.contains("y = 2"), "lldb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() -> Result<(), Skip> {
    let brk = format!("emu-break debugger.rs:{} 3 1", break_line() - 1);
    let text = lldb_session("debuggee", &[&brk, "run", "emu-next", "emu-where", "emu-threads", "frame variable tid"])?;
    assert!(text.contains(&format!("at debugger.rs:{}", break_line())), "lldb output:\n{text}");
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "lldb output:\n{text}");
    assert!(text.contains("tid = 3"), "lldb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "lldb output:\n{text}");
    Ok(())
}

fn lldb_stops_in_the_chosen_gpu_thread() -> Result<(), Skip> {
    let cond = "DEVICEEMU_THREAD_IDX_X() == 3 && DEVICEEMU_BLOCK_IDX_X() == 1";
    let brk = format!("breakpoint set -f debugger.rs -l {} -c '{cond}'", break_line());
    let cmds = [brk.as_str(), "run", "expr -l c -- (char*)DEVICEEMU_WHERE()", "expr -l c -- (char*)DEVICEEMU_BLOCK_THREADS()", "frame variable tid gid"];
    let text = lldb_session("debuggee", &cmds)?;
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "lldb output:\n{text}");
    assert!(text.contains("debugger::probe"), "lldb output:\n{text}");
    assert!(text.contains("tid = 3"), "lldb output:\n{text}");
    assert!(text.contains("gid = 67"), "lldb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "lldb output:\n{text}");
    Ok(())
}
