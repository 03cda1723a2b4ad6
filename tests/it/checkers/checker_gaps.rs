//! The checkers' last blind spots (issue 25, item 4): accesses through `View::cast` views of
//! shared memory are tracked byte by byte, as in global memory; a warp-synchronous reduction
//! without `sync_warp` is a hazard; and writes of the same value by many threads are still
//! races.

use crate::common::{assert_has, assert_lacks, marked_line};
use deviceemu::prelude::*;
use deviceemu::{with_config, CheckAction, Checks, Config};

const SOURCE: &str = include_str!("checker_gaps.rs");

fn racecheck() -> Config {
    Config::default().checks(Checks { racecheck: true, ..Checks::default() })
}

fn initcheck() -> Config {
    Config::default().checks(Checks { initcheck: true, ..Checks::default() })
}

/// Every path a checked kernel may take.
fn both_paths(c: Config) -> [Config; 2] {
    [c.clone(), c.path(deviceemu::ExecPath::General)]
}

// ---------------------------------------------------------------------------------------------
// Casts of shared memory
// ---------------------------------------------------------------------------------------------

/// Thread 0 writes byte 1 of word 0 through a `u8` cast of a shared `u32` array while thread 1
/// reads the whole word, with no barrier between.
#[kernel]
fn shared_cast_race(out: &mut [u32]) {
    let words = shared_array![u32; 4];
    let bytes = words.cast::<u8>();
    let t = thread_idx().x as usize;
    if t == 0 {
        words[0] = 0;
        words[1] = 0;
    }
    sync_threads();
    if t == 0 {
        bytes[1] = 7; // @shared-byte-write
    }
    if t == 1 {
        out[0] = words[0]; // @shared-word-read
    }
}

/// The same in global memory.
#[kernel]
fn global_cast_race(words: &mut [u32], out: &mut [u32]) {
    let bytes = words.cast::<u8>();
    let t = thread_idx().x as usize;
    if t == 0 {
        bytes[1] = 7; // @global-byte-write
    }
    if t == 1 {
        out[0] = words[0]; // @global-word-read
    }
}

/// Two threads write different bytes of one word through a cast, and read them back after a
/// barrier: no race (a GPU's byte stores do not tear each other).
#[kernel]
fn shared_cast_bytes_apart(out: &mut [u32]) {
    let words = shared_array![u32; 1];
    let bytes = words.cast::<u8>();
    let t = thread_idx().x as usize;
    if t < 4 {
        bytes[t] = t as u8 + 1;
    }
    sync_threads();
    if t == 0 {
        out[0] = words[0];
    }
}

#[test]
fn a_byte_written_through_a_cast_races_with_a_read_of_its_word_in_shared_memory() {
    let write = marked_line(SOURCE, "// @shared-byte-write");
    let read = marked_line(SOURCE, "// @shared-word-read");
    let gw = marked_line(SOURCE, "// @global-byte-write");
    let gr = marked_line(SOURCE, "// @global-word-read");
    for config in both_paths(racecheck()) {
        with_config(config, || {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let e = launch!(shared_cast_race<<<1, 32>>>(&mut out)).unwrap_err().to_string();
            assert_has(&e, "Race reported between Write access at");
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{write}"));
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{read}"));
            let mut words = DeviceBuffer::<u32>::zeroed(4).unwrap();
            let e = launch!(global_cast_race<<<1, 32>>>(&mut words, &mut out)).unwrap_err().to_string();
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{gw}"));
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{gr}"));
            launch!(shared_cast_bytes_apart<<<1, 32>>>(&mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap()[0], 0x0403_0201);
        });
    }
}

/// Only byte 0 of word 0 is written (through a cast), then the whole word is read.
#[kernel]
fn shared_cast_partial_init(out: &mut [u32]) {
    let words = shared_array![u32; 4];
    let bytes = words.cast::<u8>();
    let t = thread_idx().x as usize;
    if t == 0 {
        bytes[0] = 1;
        bytes[4] = 1;
        bytes[5] = 1;
        bytes[6] = 1;
        bytes[7] = 1;
    }
    sync_threads();
    if t == 0 {
        out[1] = words[1]; // every byte written: fine
        out[0] = words[0]; // @partial-read
    }
}

#[test]
fn a_word_read_after_only_its_first_byte_was_written_through_a_cast_is_uninitialised() {
    let line = marked_line(SOURCE, "// @partial-read");
    for config in both_paths(initcheck()) {
        with_config(config, || {
            let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
            let e = launch!(shared_cast_partial_init<<<1, 32>>>(&mut out)).unwrap_err().to_string();
            assert_has(&e, "Uninitialized __shared__ memory read of size 4 bytes");
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{line}"));
            assert_has(&e, "ERROR SUMMARY: 1 error");
        });
    }
}

/// The same in global memory: byte 0 of word 0 of a buffer from `uninit` written through a
/// cast, then the word read; word 1 written byte by byte, then read (fine).
#[kernel]
fn global_cast_partial_init(words: &mut [u32], out: &mut [u32]) {
    let bytes = words.cast::<u8>();
    if thread_idx().x == 0 {
        bytes[0] = 1;
        for b in 4..8 {
            bytes[b] = 1;
        }
        out[1] = words[1];
        out[0] = words[0]; // @global-partial-read
    }
}

#[test]
fn a_global_word_read_after_only_its_first_byte_was_written_through_a_cast_is_uninitialised() {
    let line = marked_line(SOURCE, "// @global-partial-read");
    for config in both_paths(initcheck()) {
        with_config(config, || {
            let mut words = DeviceBuffer::<u32>::uninit(4).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
            let e = launch!(global_cast_partial_init<<<1, 32>>>(&mut words, &mut out)).unwrap_err().to_string();
            assert_has(&e, "Uninitialized __global__ memory read of size 4 bytes");
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{line}"));
            assert_has(&e, "ERROR SUMMARY: 1 error");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Warp-synchronous code
// ---------------------------------------------------------------------------------------------

/// The last warp of the pre-Volta reduction (CUDA's old `warpReduce`), through volatile shared
/// memory and without `sync_warp`: each step reads another lane's cell while that lane writes
/// it.
#[kernel]
fn warp_sync_reduce(input: &[u32], out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    s[tid] = input[tid];
    sync_threads();
    if tid < 32 {
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 32)); // @warp-step
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 16));
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 8));
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 4));
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 2));
        s.volatile_store(tid, s.volatile_load(tid) + s.volatile_load(tid + 1));
    }
    sync_threads();
    if tid == 0 {
        out[0] = s[0];
    }
}

/// The same written for Volta and later: every step reads, syncs the warp, writes, syncs.
#[kernel]
fn warp_synced_reduce(input: &[u32], out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    s[tid] = input[tid];
    sync_threads();
    if tid < 32 {
        let mut d = 32;
        while d > 0 {
            let v = s.volatile_load(tid) + s.volatile_load(tid + d);
            sync_warp(FULL_MASK);
            s.volatile_store(tid, v);
            sync_warp(FULL_MASK);
            d /= 2;
        }
    }
    sync_threads();
    if tid == 0 {
        out[0] = s[0];
    }
}

/// Message passing through a volatile flag: `from` writes data, fences, sets the flag; `to`
/// spins on it, fences, reads the data. With `fence` false there is no data, only the flag.
#[kernel]
fn volatile_flag(from: u32, to: u32, fence: u32, out: &mut [u32]) {
    let flag = shared_array![u32; 1];
    let data = shared_array![u32; 1];
    let t = thread_idx().x;
    if t == 0 {
        flag.volatile_store(0, 0);
        data.volatile_store(0, 0);
    }
    sync_threads();
    if t == from {
        if fence == 1 {
            data.volatile_store(0, 42);
            thread_fence_block();
        }
        flag.volatile_store(0, 1);
    } else if t == to {
        while flag.volatile_load(0) == 0 {}
        if fence == 1 {
            thread_fence_block();
            out[0] = data.volatile_load(0);
        } else {
            out[0] = 42;
        }
    }
}

#[test]
fn a_warp_synchronous_reduction_without_sync_warp_is_a_warning_hazard() {
    let step = marked_line(SOURCE, "// @warp-step");
    let input: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let want: u32 = input.iter().sum();
    let din = DeviceBuffer::from_slice(&input).unwrap();
    for config in both_paths(racecheck()) {
        with_config(config.clone(), || {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let e = launch!(warp_sync_reduce<<<1, 64>>>(&din, &mut out)).unwrap_err();
            assert_eq!(e.code(), 719, "{e}");
            let e = e.to_string();
            assert_has(&e, "Warning: (Warp Level Programming) Potential");
            assert_has(&e, &format!("tests/it/checkers/checker_gaps.rs:{step}"));
            assert_has(&e, "of one warp in block (0,0,0)");
            assert_lacks(&e, "Race reported between");
            // Reported, not hidden: with the action `report` the launch goes on.
            with_config(config.clone().check_action(CheckAction::Report), || {
                launch!(warp_sync_reduce<<<1, 64>>>(&din, &mut out)).unwrap();
            });
            // The Volta-safe form is clean and right.
            launch!(warp_synced_reduce<<<1, 64>>>(&din, &mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap()[0], want);
        });
    }
}

#[test]
fn volatile_flags_that_synchronise_are_not_reported() {
    let mut configs = both_paths(racecheck()).to_vec();
    configs.extend([racecheck().seed(3), racecheck().seed(11), racecheck().schedule(deviceemu::Schedule::Threads)]);
    for config in configs {
        with_config(config, || {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            // Data published with a fence, in one warp (either lane order) and across warps.
            for (from, to) in [(0u32, 1u32), (1, 0), (0, 32), (32, 0)] {
                launch!(volatile_flag<<<1, 64>>>(from, to, 1, &mut out))
                    .unwrap_or_else(|e| panic!("{from}->{to}: {e}"));
                assert_eq!(out.to_vec().unwrap()[0], 42);
            }
            // A bare flag (no fence, no data), across warps (volatile accesses are atomics)
            // and within one, either lane first: a spinner that reads before the write reads
            // again until it sees it.
            for (from, to) in [(0u32, 32u32), (0, 1), (1, 0)] {
                launch!(volatile_flag<<<1, 64>>>(from, to, 0, &mut out))
                    .unwrap_or_else(|e| panic!("{from}->{to}: {e}"));
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Writes of the same value
// ---------------------------------------------------------------------------------------------

/// Every thread sets a shared flag to the same value, with no barrier between the writes (the
/// `found = true` idiom); `atomic` does it with a relaxed atomic store instead.
#[kernel]
fn same_value(atomic: u32, out: &mut [u32]) {
    let flag = shared_array![u32; 1];
    let t = thread_idx().x;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if atomic == 1 {
        flag.atomic_store(0, 1, core::sync::atomic::Ordering::Relaxed);
    } else {
        flag[0] = 1; // @same-value
    }
    sync_threads();
    if t == 0 {
        out[0] = flag[0];
    }
}

#[test]
fn writes_of_the_same_value_are_races_and_an_atomic_store_is_not() {
    let line = marked_line(SOURCE, "// @same-value");
    for config in both_paths(racecheck()) {
        with_config(config, || {
            let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let e = launch!(same_value<<<1, 64>>>(0, &mut out)).unwrap_err().to_string();
            assert_has(&e, &format!("Race reported between Write access at tests/it/checkers/checker_gaps.rs:{line}"));
            assert_lacks(&e, "Warning");
            launch!(same_value<<<1, 64>>>(1, &mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap()[0], 1);
        });
    }
}
