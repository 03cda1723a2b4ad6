//! The checkers on contended atomics (issue 26, part 5: racecheck and initcheck reach at least
//! 1e6 atomics/s): NVIDIA's simpleAtomicIntrinsics, 64 blocks of 256 threads, ten atomics each
//! on ten locations (163,840 atomics), unchecked (the reference, in the same run), under
//! racecheck and under initcheck.
//!
//! `cargo bench --bench checkers`. BENCHMARKS.md records a run; `RAYON_NUM_THREADS=1` gives
//! the figures of one worker, where the two workers' contention on the ten locations is gone.
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};

/// cuda-samples' `Samples/0_Introduction/simpleAtomicIntrinsics`, its kernel as written, the
/// one the tests check clean and correct.
#[path = "../tests/it/checkers/simple_atomic_intrinsics.rs"]
mod sample;
use sample::simple_atomic_intrinsics;

const BLOCKS: u32 = 64;
const THREADS: u32 = 256;

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("contended_atomics");
    g.throughput(Throughput::Elements(u64::from(BLOCKS * THREADS) * 10))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let variants = [
        ("unchecked", Checks::default()),
        ("racecheck", Checks { racecheck: true, ..Checks::default() }),
        ("initcheck", Checks { initcheck: true, ..Checks::default() }),
    ];
    for (name, checks) in variants {
        let config = Config::default().checks(checks);
        let mut data = DeviceBuffer::<u32>::zeroed(11).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        // One launch checked before the timed ones (which run only when the filter selects
        // this variant).
        with_config(
            config.clone(),
            || launch!(simple_atomic_intrinsics<<<BLOCKS, THREADS>>>(&mut data, &mut out, false)),
        )
        .unwrap();
        assert_eq!(data.to_vec().unwrap()[2], BLOCKS * THREADS - 1, "{name}: atomicMax");
        g.bench_function(name, |b| {
            b.iter(|| {
                with_config(
                    config.clone(),
                    || launch!(simple_atomic_intrinsics<<<BLOCKS, THREADS>>>(&mut data, &mut out, false)),
                )
                .unwrap()
            })
        });
    }
    g.finish();
    c.final_summary();
}
