//! No bad setting is taken silently (issue 25, item 3): every `EMU_*` variable the runtime reads
//! is swept with bad values, each in a child process (the environment is read once per
//! process), and each must be refused by the launch, by `Config::from_env` and, for the
//! process-wide ones, also under a configuration set in code, with error 1 and a message that
//! names the variable, the value and the valid values. Good values of the same variables are
//! accepted. The table must name every variable `config.rs` reads.

use crate::common::assert_has;
use deviceemu::prelude::*;
use deviceemu::{get_last_error, with_config, Config};

const CHILD_VAR: &str = "DEVICEEMU_SETTINGS_CHILD";

/// Every setting, a bad value, and a fragment of the valid values its refusal must list.
const BAD: &[(&str, &str, &str)] = &[
    ("EMU_BLOCKS", "sideways", "`parallel`, `serial`"),
    ("EMU_SEED", "-1", "an unsigned integer"),
    ("EMU_SEED", "abc", "an unsigned integer"),
    ("EMU_CHECK", "memchek", "`racecheck`"),
    ("EMU_STACK_SIZE", "1K", "at least 16K"),
    ("EMU_STACK_SIZE", "12Q", "at least 16K"),
    ("EMU_WARP_SIZE", "16", "`32`, `1`"),
    ("EMU_TARGET", "cpu", "`auto`, `emulator`, `gpu`"),
    ("EMU_SCHEDULE", "coroutines", "`fibers`, `threads`"),
    ("EMU_PRINT_LIMIT", "-3", "an unsigned integer"),
    ("EMU_PATH", "fast", "`auto`, `general`, `verify`"),
    ("EMU_TIERS_OFF", "regoins", "`regions`, `lanes`"),
    ("EMU_VERBOSE", "yes", "`0`, `1`"),
    ("EMU_TIMEOUT", "-1", "seconds without progress"),
    ("EMU_TIMEOUT", "soon", "seconds without progress"),
    ("EMU_LAUNCH_TIMEOUT", "forever", "seconds a launch may run"),
    ("EMU_CHECK_ACTION", "warn", "`error`, `report`"),
    ("EMU_STICKY_ERRORS", "2", "`0`, `1`"),
    ("EMU_LAUNCH_BLOCKING", "maybe", "`0`, `1`"),
    ("EMU_DEFAULT_STREAM", "global", "`legacy`, `per-thread`"),
    ("EMU_DEVICE_RUNTIME", "cdp3", "`cdp2`"),
    ("EMU_PENDING_LAUNCH_LIMIT", "many", "an unsigned integer"),
    ("EMU_DEVICES", "0", "a device count from 1 to 16"),
    ("EMU_DEVICES", "17", "a device count from 1 to 16"),
    ("EMU_DEVICES", "two", "a device count from 1 to 16"),
    ("EMU_ERROR_EXITCODE", "abc", "an exit status from 0 to 255"),
    ("EMU_ERROR_EXITCODE", "256", "an exit status from 0 to 255"),
    ("EMU_ERROR_EXITCODE", "-1", "an exit status from 0 to 255"),
    ("EMU_RACECHECK_SHADOW", "big", "a size in bytes"),
    ("EMU_LOG_FILE", "/nonexistent-deviceemu-dir/log.txt", "a directory that exists"),
    ("EMU_REPORT", "/nonexistent-deviceemu-dir/r.jsonl", "a directory that exists"),
];

/// The settings only the environment sets: refused under a configuration set in code too.
const PROCESS_WIDE: &[&str] =
    &["EMU_DEVICES", "EMU_ERROR_EXITCODE", "EMU_RACECHECK_SHADOW", "EMU_LOG_FILE", "EMU_REPORT"];

/// Good values of the same variables, each accepted.
const GOOD: &[(&str, &str)] = &[
    ("EMU_BLOCKS", "serial"),
    ("EMU_SEED", "42"),
    ("EMU_CHECK", "memcheck,initcheck"),
    ("EMU_STACK_SIZE", "512K"),
    ("EMU_WARP_SIZE", "1"),
    ("EMU_TARGET", "emulator"),
    ("EMU_SCHEDULE", "threads"),
    ("EMU_PRINT_LIMIT", "0"),
    ("EMU_PATH", "general"),
    ("EMU_PATH", "verify"),
    ("EMU_TIERS_OFF", "regions,lanes"),
    ("EMU_VERBOSE", "0"),
    ("EMU_TIMEOUT", "2.5"),
    ("EMU_LAUNCH_TIMEOUT", "0"),
    ("EMU_CHECK_ACTION", "report"),
    ("EMU_STICKY_ERRORS", "1"),
    ("EMU_LAUNCH_BLOCKING", "0"),
    ("EMU_DEFAULT_STREAM", "per-thread"),
    ("EMU_DEVICE_RUNTIME", "cdp1"),
    ("EMU_PENDING_LAUNCH_LIMIT", "64"),
    ("EMU_DEVICES", "16"),
    ("EMU_ERROR_EXITCODE", "0"),
    ("EMU_RACECHECK_SHADOW", "64M"),
];

#[kernel]
fn mark(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    out[i] = 7;
}

/// The child: one launch from the environment's settings, one under a configuration set in
/// code, `Config::from_env`, `device_count`, and the last error, on one line.
#[test]
fn settings_child_process_helper() {
    if std::env::var(CHILD_VAR).is_err() {
        return;
    }
    let launch = || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let r = launch!(mark<<<2, 32>>>(&mut out));
        let ran = out.to_vec().unwrap().iter().all(|&v| v == 7);
        match r {
            Ok(()) => format!("ok ran={ran}"),
            Err(e) => format!("code={} ran={ran} msg={e}", e.code()),
        }
    };
    let env = launch();
    let code = with_config(Config::default(), launch);
    let from_env = Config::from_env().map(|_| ()).map_err(|e| e.code());
    let devices = deviceemu::device_count().map_err(|e| e.code());
    let last = get_last_error().err().map(|e| e.code());
    println!("CHILD-RESULT env: {env} | code: {code} | from_env={from_env:?} devices={devices:?} last={last:?}");
}

/// Re-runs this binary's helper with only the `EMU_*` variables `vars`; its result line.
fn child(vars: &[(&str, &str)]) -> String {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), "settings_child_process_helper")).args([
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("EMU_") {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD_VAR, "1");
    cmd.envs(vars.iter().copied());
    let output = cmd.output().expect("the test binary can be re-run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout.lines().find_map(|l| l.find("CHILD-RESULT").map(|i| l[i..].to_owned())).unwrap_or_else(|| {
        panic!("the child did not run the helper:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr))
    })
}

#[test]
fn every_bad_value_of_every_setting_is_refused_with_the_valid_values() {
    for &(var, value, valid) in BAD {
        let r = child(&[(var, value)]);
        let env = r.split(" | ").next().unwrap();
        assert_has(env, "code=1 ran=false");
        assert_has(env, &format!("invalid setting {var}={value:?}: valid values are"));
        assert_has(env, valid);
        assert_has(&r, "from_env=Err(1)");
        assert_has(&r, "last=Some(1)");
        if PROCESS_WIDE.contains(&var) {
            // Only the environment sets these: a configuration in code does not hide them.
            let code = r.split(" | ").nth(1).unwrap();
            assert_has(code, "code: code=1 ran=false");
            assert_has(code, &format!("invalid setting {var}={value:?}"));
            assert_has(&r, "devices=Err(1)");
        }
    }
}

#[test]
fn good_values_are_accepted() {
    for &(var, value) in GOOD {
        let r = child(&[(var, value)]);
        assert_has(&r, "CHILD-RESULT env: ok ran=true | code: ok ran=true | from_env=Ok(())");
    }
    assert_has(&child(&[("EMU_DEVICES", "3")]), "devices=Ok(3)");
}

#[test]
fn the_table_names_every_setting_the_runtime_reads() {
    let config = include_str!("../../../emu-runtime/src/host/config.rs");
    let mut read: Vec<&str> = Vec::new();
    for pattern in ["var(\"EMU_", "env_var(\"EMU_"] {
        let mut rest = config;
        while let Some(i) = rest.find(pattern) {
            let start = i + pattern.len() - 4;
            let end = start + rest[start..].find('"').unwrap();
            read.push(&rest[start..end]);
            rest = &rest[end..];
        }
    }
    read.sort_unstable();
    read.dedup();
    assert!(read.len() >= 20, "{read:?}");
    for v in read {
        assert!(BAD.iter().any(|&(b, _, _)| b == v), "{v} has no bad value in the table");
        assert!(
            GOOD.iter().any(|&(g, _)| g == v) || ["EMU_LOG_FILE", "EMU_REPORT"].contains(&v),
            "{v} has no good value"
        );
    }
}
