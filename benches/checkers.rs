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

/// cuda-samples' `Samples/0_Introduction/simpleAtomicIntrinsics`, its kernel as written (see
/// tests/it/checkers/racecheck_atomics.rs, which checks it clean and its results).
#[kernel]
pub fn test_kernel(g_odata: &mut [u32]) {
    let tid = block_dim().x * block_idx().x + thread_idx().x;
    g_odata.atomic_add(0, 10);
    g_odata.atomic_exch(1, tid);
    g_odata.atomic_max(2, tid);
    g_odata.atomic_min(3, tid);
    g_odata.atomic_inc(4, 17);
    g_odata.atomic_dec(5, 137);
    g_odata.atomic_cas(6, tid.wrapping_sub(1), tid);
    g_odata.atomic_and(7, 2 * tid + 7);
    g_odata.atomic_or(8, if tid < 32 { 1 << tid } else { 0 });
    g_odata.atomic_xor(9, tid);
}

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
        g.bench_function(name, |b| {
            b.iter(|| with_config(config.clone(), || launch!(test_kernel<<<BLOCKS, THREADS>>>(&mut data))).unwrap())
        });
        assert_eq!(data.to_vec().unwrap()[2], BLOCKS * THREADS - 1, "{name}: atomicMax");
    }
    g.finish();
    c.final_summary();
}
