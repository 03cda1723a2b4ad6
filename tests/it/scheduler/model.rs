//! `deviceemu::testing`: `model` runs a closure under the matrix of settings, `EMU_*` pins a
//! dimension, a failure prints the line that replays it, `Model::proptest` keeps reports
//! quiet while it shrinks, and the strategies make the shapes and floats they promise.
//!
//! Runs that need a clean or a particular environment are child processes of this test
//! binary (`#[ignore]`d `child_*` tests, run with `--ignored --exact`).

use std::collections::HashSet;
use std::process::{Command, Output};
use std::sync::Mutex;

use deviceemu::prelude::*;
use deviceemu::testing::strategies::{block_dim, f32_buffer, grid_dim, shape_1d, special_f32};
use deviceemu::testing::{model, replay_line, Model};
use deviceemu::{BlockOrder, Checks, Config, ExecPath, Schedule};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// Writes how many threads its warp has.
#[kernel]
fn warp_widths(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = warp_size();
    }
}

/// Writes `i` to `out[i]`, and past the end when `out` has 100 elements or more.
#[kernel]
fn iota_bug(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let extra = if out.len() >= 100 { 1 } else { 0 };
    if i < out.len() + extra {
        out[i] = i as u32;
    }
}

fn child(name: &str, vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), name)).args([
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("EMU_") || k == "PROPTEST_CASES" {
            cmd.env_remove(k);
        }
    }
    cmd.envs(vars.iter().copied());
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn key(c: &Config) -> (BlockOrder, Option<u64>, u32, Schedule, bool, ExecPath) {
    (c.get_blocks(), c.get_seed(), c.get_warp_size(), c.get_schedule(), c.get_checks() == Checks::all(), c.get_path())
}

/// The warp-size test of the children: fails under warp size 1 only.
fn all_warps_have_32() {
    model(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(40).unwrap();
        launch!(warp_widths<<<1, 40>>>(&mut out)).unwrap();
        assert!(out.to_vec().unwrap().iter().all(|&w| w == 32), "a warp of fewer than 32 threads");
    });
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_configs() {
    for c in Model::new().configs() {
        eprintln!("CONFIG {:?}", key(&c));
    }
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_warp_size() {
    all_warps_have_32();
}

#[test]
#[ignore = "run by the tests below, in a child process"]
fn child_proptest() {
    Model::new().fibers_only().cases(64).no_persistence().proptest(1usize..300, |n| {
        let mut out = DeviceBuffer::<u32>::zeroed(n).unwrap();
        launch!(iota_bug<<<(n as u32).div_ceil(64), 64>>>(&mut out))?;
        prop_assert_eq!(out.to_vec().unwrap(), (0..n as u32).collect::<Vec<_>>());
        Ok(())
    });
}

#[test]
fn the_default_matrix_covers_every_dimension() {
    let o = child("child_configs", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<String> = stderr(&o).lines().filter(|l| l.starts_with("CONFIG")).map(str::to_owned).collect();
    let set: HashSet<&String> = got.iter().collect();
    assert_eq!(set.len(), got.len(), "no combination twice: {got:#?}");
    // Fibers: 2 block orders x 3 thread orders x 2 warp sizes; threads: 2 warp sizes; all with
    // every checker, on the fast form where there is one. Then the host paths: the fast form
    // with no checker, and verify with none and with all.
    assert_eq!(got.len(), 17, "{got:#?}");
    for needle in ["Parallel", "Serial", "None", "Some(1)", "Some(7)", " 32,", " 1,", "Fibers", "Threads"] {
        assert!(got.iter().any(|l| l.contains(needle)), "{needle} missing from {got:#?}");
    }
    assert!(got[..14].iter().all(|l| l.ends_with("true, Auto)")), "every checker on: {got:#?}");
    assert_eq!(
        got[14..],
        [
            "CONFIG (Parallel, None, 32, Fibers, false, Auto)",
            "CONFIG (Parallel, None, 32, Fibers, false, Verify)",
            "CONFIG (Parallel, None, 32, Fibers, true, Verify)",
        ]
    );
}

#[test]
fn a_set_variable_pins_its_dimension() {
    let o = child("child_configs", &[("EMU_SEED", "5"), ("EMU_BLOCKS", "serial"), ("EMU_WARP_SIZE", "1")]);
    let got: Vec<String> = stderr(&o).lines().filter(|l| l.starts_with("CONFIG")).map(str::to_owned).collect();
    assert_eq!(
        got,
        [
            "CONFIG (Serial, Some(5), 1, Fibers, true, Auto)",
            "CONFIG (Serial, Some(5), 1, Threads, true, Auto)",
            "CONFIG (Serial, Some(5), 1, Fibers, false, Auto)",
            "CONFIG (Serial, Some(5), 1, Fibers, false, Verify)",
            "CONFIG (Serial, Some(5), 1, Fibers, true, Verify)",
        ]
    );
    let o = child("child_configs", &[("EMU_SCHEDULE", "threads"), ("EMU_CHECK", "racecheck")]);
    let got: Vec<String> = stderr(&o).lines().filter(|l| l.starts_with("CONFIG")).map(str::to_owned).collect();
    assert_eq!(got.len(), 13, "threads alone get the whole matrix, and one verify run: {got:#?}");
    assert!(got.iter().all(|l| l.contains("Threads") && l.contains("false")), "{got:#?}");
    assert!(got[12].ends_with("Verify)"), "{got:#?}");
    let o = child("child_configs", &[("EMU_PATH", "general")]);
    let got: Vec<String> = stderr(&o).lines().filter(|l| l.starts_with("CONFIG")).map(str::to_owned).collect();
    assert_eq!(got.len(), 14, "a pinned path: no extra runs: {got:#?}");
    assert!(got.iter().all(|l| l.ends_with("General)")), "{got:#?}");
}

#[test]
fn a_failure_prints_the_line_that_replays_it_and_the_line_does() {
    let o = child("child_warp_size", &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.trim_start().starts_with("EMU_SEED="))
        .unwrap_or_else(|| panic!("no replay line in {err}"))
        .trim()
        .to_owned();
    assert!(
        line.starts_with("EMU_SEED=none EMU_BLOCKS=parallel EMU_WARP_SIZE=1 EMU_SCHEDULE=fibers EMU_CHECK=all EMU_PATH=auto cargo test --test it scheduler::model::child_warp_size -- --exact"),
        "{line}"
    );
    assert!(err.contains("a warp of fewer than 32 threads"), "{err}");
    // Run the printed settings: they select one combination, which fails again; the same
    // settings with warps of 32 pass.
    let vars: Vec<(&str, &str)> =
        line.split(' ').take_while(|w| w.starts_with("EMU_")).map(|w| w.split_once('=').unwrap()).collect();
    assert_eq!(vars.len(), 6);
    let again = child("child_warp_size", &vars);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("run 1 of 1 failed"), "{}", stderr(&again));
    let fixed: Vec<(&str, &str)> =
        vars.iter().map(|&(k, v)| if k == "EMU_WARP_SIZE" { (k, "32") } else { (k, v) }).collect();
    assert!(child("child_warp_size", &fixed).status.success());
}

#[test]
fn proptest_is_quiet_while_shrinking_and_shows_the_minimal_case() {
    let o = child("child_proptest", &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("minimal failing input: 100\n"), "shrunk to 100 elements: {err}");
    // Many failing cases ran while proptest shrank; only the minimal one's report is printed.
    assert_eq!(err.matches("Invalid __global__ write of size 4 bytes").count(), 1, "{err}");
    assert!(err.contains("EMU_SEED="), "{err}");
}

#[test]
fn model_runs_the_closure_once_per_combination_under_it() {
    let seen = Mutex::new(Vec::new());
    let m = Model::new().fibers_only();
    m.check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(40).unwrap();
        launch!(warp_widths<<<1, 40>>>(&mut out)).unwrap();
        assert!(out.to_vec().unwrap().iter().all(|&w| w == config.get_warp_size()));
        seen.lock().unwrap().push(key(config));
    });
    let expected: Vec<_> = m.configs().iter().map(key).collect();
    assert_eq!(*seen.lock().unwrap(), expected);
}

#[test]
fn replay_line_names_every_dimension() {
    let c = Config::default().seed(5).blocks(BlockOrder::Serial).warp_size(1).checks(Checks::all());
    let line = replay_line(&c);
    assert!(
        line.starts_with(
            "EMU_SEED=5 EMU_BLOCKS=serial EMU_WARP_SIZE=1 EMU_SCHEDULE=fibers EMU_CHECK=all EMU_PATH=auto cargo test"
        ),
        "{line}"
    );
    let c = Config::default().checks(Checks { racecheck: true, ..Checks::default() }).schedule(Schedule::Threads);
    assert!(replay_line(&c).starts_with("EMU_SEED=none EMU_BLOCKS=parallel EMU_WARP_SIZE=32 EMU_SCHEDULE=threads EMU_CHECK=memcheck,racecheck,synccheck "));
}

#[test]
fn special_floats_are_generated() {
    let mut runner = TestRunner::deterministic();
    let s = special_f32();
    let values: Vec<f32> = (0..2000).map(|_| s.new_tree(&mut runner).unwrap().current()).collect();
    let nan_payloads: HashSet<u32> = values.iter().filter(|v| v.is_nan()).map(|v| v.to_bits()).collect();
    assert!(nan_payloads.len() > 10, "NaNs with many payloads: {nan_payloads:?}");
    assert!(values.iter().any(|v| v.is_nan() && v.is_sign_negative()));
    assert!(values.contains(&f32::INFINITY) && values.contains(&f32::NEG_INFINITY));
    assert!(values.iter().any(|v| v.is_subnormal()));
    assert!(values.iter().any(|v| v.to_bits() == 0) && values.iter().any(|v| v.to_bits() == 0x8000_0000));
    assert!(values.iter().filter(|v| v.is_normal()).count() > 700);
    let b = f32_buffer(3..5).new_tree(&mut runner).unwrap().current();
    assert!((3..5).contains(&b.len()));
}

#[test]
fn shapes_fit_the_device_and_are_not_always_multiples() {
    let mut runner = TestRunner::deterministic();
    let mut ragged = 0;
    for _ in 0..500 {
        let s = shape_1d(5000, 512).new_tree(&mut runner).unwrap().current();
        assert!((1..=5000).contains(&s.len) && (1..=512).contains(&s.block), "{s:?}");
        assert!(
            s.grid as usize * s.block as usize >= s.len && (s.grid as usize - 1) * (s.block as usize) < s.len,
            "{s:?}"
        );
        ragged += usize::from(s.len % s.block as usize != 0);
        let b = block_dim(256).new_tree(&mut runner).unwrap().current();
        assert!(b.x >= 1 && b.y >= 1 && (1..=64).contains(&b.z) && b.x * b.y * b.z <= 256, "{b:?}");
        let g = grid_dim(20).new_tree(&mut runner).unwrap().current();
        assert!(g.x >= 1 && g.y >= 1 && g.z >= 1 && g.x * g.y * g.z <= 20, "{g:?}");
    }
    assert!(ragged > 300, "{ragged} of 500 lengths are not multiples of the block");
}

#[test]
fn a_launch_over_a_random_shape_covers_every_element() {
    Model::new().fibers_only().cases(24).no_persistence().proptest(shape_1d(3000, 256), |s| {
        let mut out = DeviceBuffer::<u32>::zeroed(s.len).unwrap();
        launch!(warp_widths<<<s.grid, s.block>>>(&mut out))?;
        prop_assert!(out.to_vec().unwrap().iter().all(|&w| w == 32 || w == 1));
        Ok(())
    });
}
