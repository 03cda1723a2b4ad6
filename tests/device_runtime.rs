//! The device runtime (dynamic parallelism), emulated: kernels that launch kernels.
//!
//! ARCHITECTURE.md, *The device runtime*, describes the model; tools/probes/RESULTS.md p7 has
//! the H200's answers the limits follow.

mod common;

use common::{assert_has, assert_lacks, marked_line, Rng};
use deviceemu::prelude::*;
use deviceemu::{get_last_error, peek_at_last_error, with_config, BlockOrder, Config, DeviceRuntime, Error};

const SRC: &str = include_str!("device_runtime.rs");
const FILE: &str = "tests/device_runtime.rs";

/// `tests/device_runtime.rs:LINE` of the line that ends with `// @marker`.
fn at(marker: &str) -> String {
    format!("{FILE}:{}", marked_line(SRC, &format!("// @{marker}")))
}

fn cdp1() -> Config {
    Config::default().device_runtime(DeviceRuntime::Cdp1)
}

fn cdp2() -> Config {
    Config::default()
}

fn both_profiles() -> [Config; 2] {
    [cdp2(), cdp1()]
}

// ---------------------------------------------------------------------------------------------
// A child sees the parent's writes; the host sees the children's
// ---------------------------------------------------------------------------------------------

#[kernel]
fn add_one(data: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < data.len() {
        data[i] += 1;
    }
}

#[kernel]
fn fill_then_launch(data: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    data[i] = i as u32 * 10;
    sync_threads();
    if thread_idx().x == 0 {
        let b = block_idx().x;
        // The child covers this block's part only.
        launch!(add_block<<<1, 64>>>(data, b)).unwrap();
    }
}

#[kernel]
fn add_block(data: &mut [u32], b: u32) {
    let i = (b * 64 + thread_idx().x) as usize;
    data[i] += 1;
}

#[test]
fn children_see_the_parents_writes_and_the_host_sees_the_childrens() {
    for config in both_profiles() {
        let mut data = DeviceBuffer::<u32>::zeroed(4 * 64).unwrap();
        with_config(config, || launch!(fill_then_launch<<<4, 64>>>(&mut data))).unwrap();
        let want: Vec<u32> = (0..256).map(|i| i * 10 + 1).collect();
        assert_eq!(data.to_vec().unwrap(), want);
    }
}
