//! compute-sanitizer's conventions: `EMU_PRINT_LIMIT`, `EMU_CHECK_ACTION`, `EMU_LOG_FILE`,
//! `EMU_REPORT`, `EMU_ERROR_EXITCODE`, the exit `ERROR SUMMARY`, `quietly`, and `Error`'s short
//! `Debug`.
//!
//! Settings read from the environment once per process are tested in a child process: this
//! test binary re-runs itself on one `#[ignore]`d `child_*` test (`--ignored --exact`) with
//! the variables set, and the parent checks the child's exit status, stderr and files.

use std::path::PathBuf;
use std::process::{Command, Output};

use deviceemu::prelude::*;
use deviceemu::{quietly, with_config, CheckAction, Checks, Config, Error};

/// Every thread reads past the end of `x` when `oob` is set (memcheck reports the first
/// out-of-bounds access of each block: launch one thread per block for `n` findings).
#[kernel]
fn reads(x: &[u32], out: &mut [u32], oob: bool) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = if oob { x[x.len() + i] } else { x[i] }; // @READ
    }
}

/// Every thread writes `tile[0]` and thread 0 reads it with no barrier: a race.
#[kernel]
fn racy(out: &mut [u32]) {
    let tile = shared_array![u32; 1];
    tile[0] = thread_idx().x;
    if thread_idx().x == 0 {
        out[0] = tile[0];
    }
}

fn oob_error(n: usize, config: Config) -> Error {
    let x = DeviceBuffer::from_slice(&vec![1u32; n]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(n).unwrap();
    with_config(config, || launch!(reads<<<n as u32, 1>>>(&x, &mut out, true))).unwrap_err()
}

fn clean_launch() {
    let x = DeviceBuffer::from_slice(&[1u32, 2, 3]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(3).unwrap();
    launch!(reads<<<1, 32>>>(&x, &mut out, false)).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1, 2, 3]);
}

fn oob_launch() {
    let x = DeviceBuffer::from_slice(&[1u32, 2, 3]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(3).unwrap();
    let e = launch!(reads<<<3, 1>>>(&x, &mut out, true)).unwrap_err();
    assert_eq!(e.code(), 700);
}

/// Runs the `child_*` test `name` of this binary with `vars` set (and the other `EMU_*`
/// variables removed).
fn child(name: &str, vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), name)).args([
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("EMU_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(vars.iter().copied());
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("deviceemu-sanitizer-{}-{name}", std::process::id()))
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

// ---------------------------------------------------------------------------------------------
// In-process: Config equals and Error's formatting
// ---------------------------------------------------------------------------------------------

#[test]
fn print_limit_defaults_to_20_and_0_prints_all() {
    let shown = |e: &Error| count(&e.to_string(), "Invalid __global__ read");
    let e = oob_error(50, Config::default());
    assert_eq!(shown(&e), 20);
    assert!(e.to_string().contains("30 more error(s) not shown"), "{e}");
    assert!(e.to_string().contains("ERROR SUMMARY: 50 errors"), "{e}");
    assert_eq!(shown(&oob_error(50, Config::default().print_limit(5))), 5);
    let all = oob_error(50, Config::default().print_limit(0));
    assert_eq!(shown(&all), 50);
    assert!(!all.to_string().contains("not shown"), "{all}");
    assert_eq!(all.report().unwrap().findings().len(), 50);
}

#[test]
fn debug_is_short_and_display_is_the_full_report() {
    let e = oob_error(50, Config::default().print_limit(0));
    let debug = format!("{e:?}");
    let display = e.to_string();
    assert!(debug.len() < 400, "Debug is {} characters: {debug}", debug.len());
    assert!(!debug.contains('\n'), "{debug}");
    assert!(debug.starts_with("IllegalAddress(LaunchReport {"), "{debug}");
    for needle in [
        "code: 700",
        "errors: 50",
        "Invalid __global__ read of size 4 bytes",
        "tests/it/checkers/sanitizer.rs:",
        "thread: (0,0,0)",
    ] {
        assert!(debug.contains(needle), "{needle:?} not in {debug}");
    }
    assert!(display.len() > 50 * 200, "Display is the full report: {display}");
    assert!(display.contains("by thread (0,0,0) in block (49,0,0)"), "{display}");
}

#[test]
fn check_action_report_lets_races_pass_but_not_out_of_bounds() {
    let racecheck = Config::default().checks(Checks { racecheck: true, ..Checks::default() });
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let e = with_config(racecheck.clone(), || launch!(racy<<<1, 32>>>(&mut out))).unwrap_err();
    assert_eq!(e.code(), 719);
    assert!(e.to_string().contains("Race reported between"), "{e}");
    let report = racecheck.clone().check_action(CheckAction::Report);
    quietly(|| with_config(report.clone(), || launch!(racy<<<1, 32>>>(&mut out)))).unwrap();
    assert_eq!(oob_error(4, report).code(), 700, "out-of-bounds accesses fail the launch under either action");
}

// ---------------------------------------------------------------------------------------------
// Children: each runs with the variables its parent test sets
// ---------------------------------------------------------------------------------------------

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_clean() {
    clean_launch();
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_oob() {
    clean_launch();
    oob_launch();
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_quiet_oob() {
    quietly(oob_launch);
    clean_launch();
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_env_settings() {
    // EMU_PRINT_LIMIT=3 and EMU_CHECK_ACTION=report EMU_CHECK=racecheck, from the environment.
    let x = DeviceBuffer::from_slice(&[0u32; 10]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(10).unwrap();
    let e = launch!(reads<<<10, 1>>>(&x, &mut out, true)).unwrap_err();
    assert_eq!(e.to_string().matches("Invalid __global__ read").count(), 3, "{e}");
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    launch!(racy<<<1, 32>>>(&mut out)).expect("EMU_CHECK_ACTION=report: a race is printed, the launch is Ok");
}

// ---------------------------------------------------------------------------------------------
// Parents
// ---------------------------------------------------------------------------------------------

#[test]
fn error_exitcode_is_the_exit_status_when_errors_were_found() {
    let o = child("child_oob", &[("EMU_ERROR_EXITCODE", "42")]);
    assert_eq!(o.status.code(), Some(42), "{}", stderr(&o));
    assert!(stderr(&o).contains("========= ERROR SUMMARY: 3 errors\n"), "{}", stderr(&o));
    // Without the variable the (passing) child exits 0; without errors it exits 0 too.
    let o = child("child_oob", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = child("child_clean", &[("EMU_ERROR_EXITCODE", "42")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_checked_program_ends_with_an_error_summary() {
    let o = child("child_clean", &[("EMU_CHECK", "all")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).ends_with("========= ERROR SUMMARY: 0 errors\n"), "{}", stderr(&o));
    // Unchecked (no EMU_CHECK, EMU_REPORT or EMU_ERROR_EXITCODE): no summary line.
    let o = child("child_clean", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("ERROR SUMMARY"), "{}", stderr(&o));
}

#[test]
fn log_file_takes_the_reports_instead_of_stderr() {
    let path = temp("log.txt");
    let o = child("child_oob", &[("EMU_LOG_FILE", path.to_str().unwrap()), ("EMU_CHECK", "all")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(log.contains("Invalid __global__ read of size 4 bytes"), "{log}");
    assert!(log.ends_with("========= ERROR SUMMARY: 3 errors\n"), "{log}");
    assert!(!stderr(&o).contains("Invalid __global__"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("ERROR SUMMARY"), "{}", stderr(&o));
}

#[test]
fn report_file_has_one_json_object_per_finding() {
    let path = temp("report.json");
    let o = child("child_oob", &[("EMU_REPORT", path.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "blocks 0..3 read out of bounds: {text}");
    let first = &lines[0];
    let line = include_str!("sanitizer.rs").lines().position(|l| l.ends_with("// @READ")).unwrap() + 1;
    assert_eq!(first["kind"], "out_of_bounds");
    assert_eq!(first["code"], 700);
    assert_eq!(first["kernel"], "reads");
    assert_eq!(first["file"], "tests/it/checkers/sanitizer.rs");
    assert_eq!(first["line"], line);
    assert!(first["column"].as_u64().unwrap() > 1);
    assert_eq!(first["block"], serde_json::json!([0, 0, 0]));
    assert_eq!(first["thread"], serde_json::json!([0, 0, 0]));
    assert!(first["address"].as_u64().unwrap() > 0);
    assert_eq!(first["count"], 1);
    assert_eq!(first["message"], "Invalid __global__ read of size 4 bytes");
    assert_eq!(lines[2]["block"], serde_json::json!([2, 0, 0]));
}

#[test]
fn quiet_launches_print_nothing_and_do_not_count() {
    let o = child("child_quiet_oob", &[("EMU_ERROR_EXITCODE", "42")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("Invalid __global__"), "{}", stderr(&o));
    assert!(stderr(&o).contains("ERROR SUMMARY: 0 errors"), "{}", stderr(&o));
}

#[test]
fn print_limit_and_check_action_come_from_the_environment() {
    let vars =
        [("EMU_PRINT_LIMIT", "3"), ("EMU_CHECK_ACTION", "report"), ("EMU_CHECK", "memcheck,racecheck,synccheck")];
    let o = child("child_env_settings", &vars);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("Race reported between"), "the race is still printed: {}", stderr(&o));
    // The same child fails without them.
    let o = child("child_env_settings", &[("EMU_CHECK", "memcheck,racecheck,synccheck")]);
    assert!(!o.status.success(), "{}", stderr(&o));
}

#[test]
fn invalid_values_are_rejected_with_the_valid_ones() {
    // The environment is read once per process: test it through a child, not this process.
    let o = child("child_clean", &[("EMU_PRINT_LIMIT", "lots")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("EMU_PRINT_LIMIT"), "{}", stderr(&o));
    let o = child("child_clean", &[("EMU_CHECK_ACTION", "warn")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("`error`, `report`"), "{}", stderr(&o));
}
