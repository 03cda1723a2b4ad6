//! What a launch whose every thread faults costs, against the same launch without faults, in
//! the same run (issue 10, item 5): the same kernel, one with an offset that puts every write
//! out of bounds.
//!
//! `cargo bench --bench failures`. BENCHMARKS.md records a run. Two grids: 2^20 threads in
//! blocks of 256 (every thread faults), and 2^18 blocks of one thread (every block fails).
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use deviceemu::prelude::*;

/// `out[i + offset] = i` for the first `n` threads: with `offset == n` and `out.len() == n`,
/// every write is out of bounds.
#[kernel]
pub fn offset_writes(out: &mut [u32], n: u32, offset: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        out[i + offset] = i;
    }
}

/// Launches `offset_writes` over `out` and checks the outcome: clean, or one finding per thread.
fn run(out: &mut DeviceBuffer<u32>, blocks: u32, threads: u32, offset: u32) {
    let n = blocks * threads;
    let r = deviceemu::quietly(|| launch!(offset_writes<<<blocks, threads>>>(out, black_box(n), black_box(offset))));
    match (offset, r) {
        (0, Ok(())) => {}
        (_, Err(e)) if offset > 0 => {
            let report = e.report().expect("a report");
            assert_eq!(report.error_count(), u64::from(n), "one error per faulting thread");
        }
        (_, r) => panic!("unexpected outcome {r:?}"),
    }
}

fn bench_grid(c: &mut Criterion, name: &str, blocks: u32, threads: u32) {
    let n = blocks * threads;
    let mut out = DeviceBuffer::<u32>::zeroed(n as usize).unwrap();
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(u64::from(n)))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("clean", |b| b.iter(|| run(&mut out, blocks, threads, 0)));
    g.bench_function("every_thread_faults", |b| b.iter(|| run(&mut out, blocks, threads, n)));
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_grid(&mut c, "faults_256_per_block", 1 << 12, 256);
    bench_grid(&mut c, "faults_1_per_block", 1 << 18, 1);
    c.final_summary();
}
