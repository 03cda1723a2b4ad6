//! Report details: the access kind, the address and every index of an access are right; shared
//! arrays are named by their `let` binding and declared at their own line, also in `#[device]`
//! helpers; the thread a report names is the lowest, whatever the seed.

use crate::common::{assert_has, marked_line, model};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};

const FILE: &str = "tests/it/checkers/racecheck_reports.rs";

fn line_of(marker: &str) -> usize {
    marked_line(include_str!("racecheck_reports.rs"), marker)
}

/// `config` with racecheck and initcheck on.
fn checked(config: &Config) -> Config {
    config.clone().checks(Checks { racecheck: true, initcheck: true, ..Checks::default() })
}

/// Thread `t` writes `t[8][0]` when `oob`, else every thread writes `t[2][1]`.
#[kernel]
fn grid_tile(out: &mut [f32], oob: bool) {
    let tile = shared_array![[f32; 8]; 8]; // TILE DECL
    let t = thread_idx().x as usize;
    if oob {
        if t == 3 {
            tile[8][0] = 1.0; // TILE OOB
        }
    } else {
        tile[2][1] = t as f32; // TILE RACE
    }
    sync_threads();
    out[t] = tile[2][1];
}

/// A helper that declares its own shared array and races on it.
#[device]
fn helper_race(out: GlobalMut<u32>) {
    let scratch = shared_array![u32; 4]; // HELPER DECL
    scratch[0] = thread_idx().x; // HELPER RACE
    sync_threads();
    out.store(thread_idx().x as usize, scratch[0]);
}

#[kernel]
fn calls_helper(out: &mut [u32]) {
    helper_race(out); // HELPER CALL
}

/// The base address of the allocation a memcheck report describes (`(N bytes at 0x...)`).
fn base_of(text: &str) -> usize {
    let after = text.split(" bytes at 0x").nth(1).expect("the allocation's base");
    let hex: String = after.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    usize::from_str_radix(&hex, 16).unwrap()
}

#[test]
fn a_bad_row_index_of_a_store_is_a_write_at_the_rows_address() {
    let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
    let err = with_config(checked(&Config::default()), || launch!(grid_tile<<<1, 64>>>(&mut out, true))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __shared__ write of size 4 bytes");
    assert_has(&text, &format!("at grid_tile in {FILE}:{}:", line_of("// TILE OOB")));
    assert_has(&text, "by thread (3,0,0) in block (0,0,0)");
    // Row 8 of 8 rows of 32 bytes: 0x100 past the base, just past the array's end.
    let base = base_of(&text);
    assert_has(&text, &format!("Address {:#x} is out of bounds", base + 0x100));
    assert_has(
        &text,
        &format!("index 8 is past the end of __shared__ array declared at {FILE}:{} (`tile`), which has 8 elements (256 bytes", line_of("// TILE DECL")),
    );
}

#[test]
fn a_race_on_a_2d_shared_array_names_every_index_and_the_binding() {
    model().check_with(|config| {
        let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
        let text =
            with_config(checked(config), || launch!(grid_tile<<<1, 64>>>(&mut out, false))).unwrap_err().to_string();
        let race = format!("{FILE}:{}:", line_of("// TILE RACE"));
        assert_has(&text, &format!("Race reported between Write access at {race}"));
        assert_has(&text, &format!("and Write access at {race}"));
        assert_has(
            &text,
            &format!(
                "in grid_tile, on `tile[2][1]` of __shared__ array declared at {FILE}:{} (`tile`)",
                line_of("// TILE DECL")
            ),
        );
        // The lowest two threads, whatever the seed.
        assert_has(&text, "by thread (0,0,0) and thread (1,0,0) in block (0,0,0)");
        assert_has(&text, "63 such hazards");
    });
}

#[test]
fn a_race_in_a_helper_is_reported_at_the_helpers_lines() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let text = with_config(checked(&Config::default()), || launch!(calls_helper<<<1, 64>>>(&mut out)))
        .unwrap_err()
        .to_string();
    let race = format!("{FILE}:{}:", line_of("// HELPER RACE"));
    assert_has(&text, &format!("Race reported between Write access at {race}"));
    assert_has(&text, &format!("and Write access at {race}"));
    assert_has(
        &text,
        &format!("on `scratch[0]` of __shared__ array declared at {FILE}:{} (`scratch`)", line_of("// HELPER DECL")),
    );
    assert!(!text.contains(&format!("{FILE}:{}:", line_of("// HELPER CALL"))), "{text}");
}

/// Blocks 0 and 1 both write `m[1][2]` of a global buffer of rows.
#[kernel]
fn rows_race(m: &mut [[f32; 4]]) {
    if thread_idx().x == 0 {
        m[1][2] = block_idx().x as f32; // ROWS RACE
    }
}

#[test]
fn a_race_on_a_buffer_of_rows_names_both_indices() {
    let mut m = DeviceBuffer::<[f32; 4]>::zeroed(3).unwrap();
    let text =
        with_config(checked(&Config::default()), || launch!(rows_race<<<2, 32>>>(&mut m))).unwrap_err().to_string();
    assert_has(&text, &format!("Race reported between Write access at {FILE}:{}:", line_of("// ROWS RACE")));
    assert_has(&text, "in rows_race, on `m[1][2]` of `m`");
    assert_has(&text, "by thread (0,0,0) in block (0,0,0) and thread (0,0,0) in block (1,0,0)");
}

/// Threads 5 and up write `tile[0]` and read `x[t]` of a buffer nothing wrote.
#[kernel]
fn late_threads(x: &[u32], out: &mut [u32]) {
    let tile = shared_array![u32; 1];
    let t = thread_idx().x as usize;
    if t >= 5 {
        tile[0] = x[t]; // LATE THREADS
    }
    sync_threads();
    out[t] = tile[0];
}

#[test]
fn the_threads_a_report_names_are_the_lowest_for_every_seed() {
    let x = DeviceBuffer::<u32>::uninit(64).unwrap();
    model().check_with(|config| {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        let text =
            with_config(checked(config), || launch!(late_threads<<<2, 64>>>(&x, &mut out))).unwrap_err().to_string();
        let line = format!("{FILE}:{}:", line_of("// LATE THREADS"));
        assert_has(
            &text,
            &format!("Uninitialized __global__ memory read of size 4 bytes\n=========     at late_threads in {line}"),
        );
        assert_has(&text, "by thread (5,0,0) in block (0,0,0)");
        assert_has(&text, "by thread (5,0,0) in block (1,0,0)");
        assert_has(&text, "by thread (5,0,0) and thread (6,0,0) in block (0,0,0)");
        assert_has(&text, "by thread (5,0,0) and thread (6,0,0) in block (1,0,0)");
    });
}
