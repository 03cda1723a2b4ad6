//! The debugger promise, tested for real: gdb and lldb stop at a kernel line in one chosen GPU thread,
//! shows the kernel's locals, and the deviceemu helpers name the thread and its block.
//!
//! The debuggee is this test binary itself, running the ignored test `debuggee`.

mod common;

use std::process::Command;

use deviceemu::prelude::*;

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

#[test]
#[ignore = "the process gdb debugs; run by `gdb_stops_in_the_chosen_gpu_thread`"]
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

#[test]
#[ignore = "the process gdb debugs; run by `gdb_shows_lanes_waiting_in_a_warp_collective`"]
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

#[test]
#[ignore = "the process gdb and lldb debug; run by the 2-D debugger tests"]
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

/// Runs gdb on this test binary's ignored test `debuggee` (or another) with the deviceemu script loaded, the
/// breakpoint `emu-break BREAK` set and `commands` run after `run`, with `EMU_BLOCKS=serial`
/// and `env`; returns everything it printed, or `None` (after saying so) without gdb.
fn gdb_session(debuggee: &str, brk: &str, commands: &[&str], env: &[(&str, &str)]) -> Option<String> {
    if Command::new("gdb").arg("--version").output().is_err() {
        skipped("gdb", "gdb is not installed, so the debugger test did not run");
        return None;
    }
    let exe = std::env::current_exe().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gdb/deviceemu.py");
    let mut gdb = Command::new("gdb");
    gdb.args(["-q", "-batch", "-nx"])
        .args(["-ex", "set pagination off"])
        .args(["-ex", &format!("source {script}")])
        .args(["-ex", &format!("emu-break {brk}")])
        .args(["-ex", "run"]);
    for c in commands {
        gdb.args(["-ex", c]);
    }
    gdb.args(["-ex", "kill"])
        .arg("--args")
        .arg(&exe)
        .args([debuggee, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("EMU_BLOCKS", "serial")
        .envs(env.iter().copied());
    let out = gdb.output().expect("gdb runs");
    Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

#[test]
fn gdb_stops_in_the_chosen_gpu_thread() {
    let brk = format!("tests/debugger.rs:{} 3 1", break_line());
    let Some(text) = gdb_session("debuggee", &brk, &["emu-where", "emu-threads", "info locals", "bt 1"], &[]) else { return };
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
}

#[test]
fn gdb_info_threads_lists_gpu_threads_with_emu_schedule_threads() {
    let brk = format!("tests/debugger.rs:{} 3 1", break_line());
    let env = [("EMU_SCHEDULE", "threads")];
    let Some(text) = gdb_session("debuggee", &brk, &["emu-where", "info threads"], &env) else { return };
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "gdb output:\n{text}");
    // Block 1's thread 3 runs, 4..=63 wait at the barrier, each on its own named OS thread;
    // 0..=2 have exited and their threads are gone.
    for live in ["\"b1t3\"", "\"b1t4\"", "\"b1t63\""] {
        assert!(text.contains(live), "{live} missing from gdb output:\n{text}");
    }
    for gone in ["\"b1t0\"", "\"b1t2\"", "\"b0t"] {
        assert!(!text.contains(gone), "{gone} in gdb output:\n{text}");
    }
}

#[test]
fn gdb_shows_lanes_waiting_in_a_warp_collective() {
    let line = marker_line("// WARP BREAK");
    let brk = format!("tests/debugger.rs:{line} 31 0");
    let Some(text) = gdb_session("warp_debuggee", &brk, &["emu-where", "emu-threads"], &[]) else { return };
    assert!(text.contains("kernel warp_probe, block (0,0,0), thread (31,0,0)"), "gdb output:\n{text}");
    // Lanes 0..=30 arrived at the shuffle on the next line and wait for lane 31; the second
    // warp has not started.
    let waiting = format!("threads (0,0,0) to (30,0,0): waiting in shfl_sync at tests/debugger.rs:{}", line + 1);
    assert!(text.contains(&waiting), "gdb output:\n{text}");
    assert!(text.contains("threads (32,0,0) to (63,0,0): not started"), "gdb output:\n{text}");
}

#[test]
fn gdb_emu_break_matches_all_three_dimensions() {
    let line = marker_line("// 2D BREAK");
    let brk = format!("tests/debugger.rs:{line} 1,2 1,1");
    let Some(text) = gdb_session("debuggee_2d", &brk, &["emu-where", "info locals"], &[]) else { return };
    // With only x compared, thread (1,0,0) of block (1,0,0) would stop first.
    assert!(text.contains("kernel probe_2d, block (1,1,0), thread (1,2,0)"), "gdb output:\n{text}");
    assert!(text.contains("x = 1") && text.contains("y = 2"), "gdb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "gdb output:\n{text}");
}

#[test]
fn gdb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() {
    // Stop on the sync_threads() line in thread 3 of block 1, then emu-next over it.
    let barrier = break_line() - 1;
    let brk = format!("tests/debugger.rs:{barrier} 3 1");
    let Some(text) = gdb_session("debuggee", &brk, &["emu-where", "emu-next", "emu-where", "info locals", "emu-next", "emu-where"], &[])
    else {
        return;
    };
    // Stopped in the same GPU thread, on the line after the barrier, then the next one.
    assert_eq!(text.matches("kernel probe, block (1,0,0), thread (3,0,0)").count(), 3, "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    let mirrored = tile[63 - tid]; // BREAK HERE", break_line())), "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    out[gid] = mirrored;", break_line() + 1)), "gdb output:\n{text}");
    // The user's breakpoint on the barrier's line is not hit again where the thread resumes.
    assert_eq!(text.matches("hit Breakpoint 1").count(), 1, "gdb output:\n{text}");
    assert!(!text.contains("task.rs"), "emu-next stopped in the runtime:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
}

#[test]
fn gdb_emu_next_over_the_barrier_with_emu_schedule_threads() {
    let barrier = break_line() - 1;
    let brk = format!("tests/debugger.rs:{barrier} 3 1");
    let env = [("EMU_SCHEDULE", "threads")];
    let Some(text) = gdb_session("debuggee", &brk, &["emu-next", "emu-where", "info locals"], &env) else { return };
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "gdb output:\n{text}");
    assert!(text.contains(&format!("{}\t    let mirrored = tile[63 - tid]; // BREAK HERE", break_line())), "gdb output:\n{text}");
    assert!(text.contains("tid = 3"), "gdb output:\n{text}");
    // Thread events are silenced: no line per started or ended OS thread.
    assert!(!text.contains("[New Thread"), "gdb output:\n{text}");
}

/// Runs lldb on `debuggee` with tools/lldb/deviceemu.py loaded and `commands` run after
/// `run`; `None` (after saying so) without lldb.
fn lldb_session(debuggee: &str, commands: &[&str]) -> Option<String> {
    if Command::new("lldb").arg("--version").output().is_err() {
        skipped("lldb", "lldb is not installed, so the lldb test did not run");
        return None;
    }
    let exe = std::env::current_exe().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/lldb/deviceemu.py");
    let mut lldb = Command::new("lldb");
    if let Some(dir) = lldb_python_dir() {
        lldb.env("PYTHONPATH", dir);
    }
    lldb.arg("-b").args(["-o", &format!("command script import {script}")]);
    for c in commands {
        lldb.args(["-o", c]);
    }
    lldb.args(["-o", "kill"])
        .arg("--")
        .arg(&exe)
        .args([debuggee, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("EMU_BLOCKS", "serial");
    let out = lldb.output().expect("lldb runs");
    Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// Debian's lldb 14 looks for its Python module in the wrong folder (`lldb -P` names
/// /usr/lib/local/...), so `command script import` fails; the module is under
/// /usr/lib/llvm-N/lib/python3.M/dist-packages. `None` when `lldb -P` is right.
fn lldb_python_dir() -> Option<std::path::PathBuf> {
    let said = Command::new("lldb").arg("-P").output().ok()?;
    let said = std::path::PathBuf::from(String::from_utf8_lossy(&said.stdout).trim());
    if said.join("lldb/__init__.py").exists() {
        return None;
    }
    let mut found: Vec<_> = std::fs::read_dir("/usr/lib")
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("llvm-"))
        .flat_map(|e| std::fs::read_dir(e.path().join("lib")).into_iter().flatten().filter_map(Result::ok))
        .map(|e| e.path().join("dist-packages"))
        .filter(|p| p.join("lldb/__init__.py").exists())
        .collect();
    found.sort();
    found.pop()
}

#[test]
fn lldb_emu_break_matches_all_three_dimensions() {
    let brk = format!("emu-break debugger.rs:{} 1,2 1,1", marker_line("// 2D BREAK"));
    let Some(text) = lldb_session("debuggee_2d", &[&brk, "run", "emu-where", "frame variable x y gx gy"]) else { return };
    assert!(text.contains("kernel probe_2d, block (1,1,0), thread (1,2,0)"), "lldb output:\n{text}");
    assert!(text.contains("x = 1") && text.contains("y = 2"), "lldb output:\n{text}");
    assert!(text.contains("gx = 5") && text.contains("gy = 6"), "lldb output:\n{text}");
}

#[test]
fn lldb_emu_next_steps_over_the_barrier_in_the_same_gpu_thread() {
    let brk = format!("emu-break debugger.rs:{} 3 1", break_line() - 1);
    let Some(text) = lldb_session("debuggee", &[&brk, "run", "emu-next", "emu-where", "emu-threads", "frame variable tid"]) else {
        return;
    };
    assert!(text.contains(&format!("at debugger.rs:{}", break_line())), "lldb output:\n{text}");
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "lldb output:\n{text}");
    assert!(text.contains("tid = 3"), "lldb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "lldb output:\n{text}");
}

#[test]
fn lldb_stops_in_the_chosen_gpu_thread() {
    if Command::new("lldb").arg("--version").output().is_err() {
        skipped("lldb", "lldb is not installed, so the lldb test did not run");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let cond = "DEVICEEMU_THREAD_IDX_X() == 3 && DEVICEEMU_BLOCK_IDX_X() == 1";
    let out = Command::new("lldb")
        .arg("-b")
        .args(["-o", &format!("breakpoint set -f debugger.rs -l {} -c '{cond}'", break_line())])
        .args(["-o", "run"])
        .args(["-o", "expr -l c -- (char*)DEVICEEMU_WHERE()"])
        .args(["-o", "expr -l c -- (char*)DEVICEEMU_BLOCK_THREADS()"])
        .args(["-o", "frame variable tid gid"])
        .args(["-o", "kill"])
        .arg("--")
        .arg(&exe)
        .args(["debuggee", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("EMU_BLOCKS", "serial")
        .output()
        .expect("lldb runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("kernel probe, block (1,0,0), thread (3,0,0)"), "lldb output:\n{text}");
    assert!(text.contains("debugger::probe"), "lldb output:\n{text}");
    assert!(text.contains("tid = 3"), "lldb output:\n{text}");
    assert!(text.contains("gid = 67"), "lldb output:\n{text}");
    assert!(text.contains("thread (3,0,0): running (this thread)"), "lldb output:\n{text}");
}

/// Says that a test did not run, on the real stderr (libtest captures `println!`), or fails it
/// when `DEVICEEMU_REQUIRE` (a comma list such as `gdb,lldb,ptxas`, set by `.ci/run`) names
/// `what`: there a skip must not pass.
fn skipped(what: &str, why: &str) {
    use std::io::Write as _;
    let required = std::env::var("DEVICEEMU_REQUIRE").unwrap_or_default();
    if required.split(',').any(|r| r.trim() == what) {
        panic!("DEVICEEMU_REQUIRE={required} names {what}, but {why}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
