//! Helpers shared by the test crates that check reports, hangs and schedules (`errors.rs`,
//! `state_machines.rs`, `warps.rs`). Not a test file itself: `build.rs` only builds PTX for `tests/*.rs`.

#![allow(dead_code)] // each test crate uses a subset

use std::sync::mpsc;
use std::time::Duration;

use deviceemu::{BlockOrder, Config};

/// The settings a race-free kernel's results must not depend on: parallel and serial blocks,
/// and three thread orders (`EMU_SEED`).
pub(crate) fn configs() -> Vec<Config> {
    let mut v = vec![Config::default(), Config::default().blocks(BlockOrder::Serial)];
    v.extend([1u64, 7, 0xDEAD_BEEF].map(|s| Config::default().seed(s)));
    v
}

#[track_caller]
pub(crate) fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in the report:\n{text}");
}

#[track_caller]
pub(crate) fn assert_lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "did not expect {needle:?} in the report:\n{text}");
}

/// Runs `f` on a new host thread and fails if it does not finish within `secs` seconds (a
/// hang). A fresh thread also starts with no last error.
pub(crate) fn on_new_thread<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => {
            h.join().unwrap();
            v
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the launch did not finish within {secs} s: it hangs"),
        Err(mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(h.join().expect_err("no value and no panic")),
    }
}
