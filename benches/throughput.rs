//! Throughput of the emulator against a plain threaded Rust loop doing the same work, at 2^24
//! elements: saxpy, the block reduction (256 threads per block, shared-memory tree), and the
//! same reduction done with warp shuffles.
//!
//! `cargo bench --bench throughput`; results are in elements per second. BENCHMARKS.md records
//! a run. The `racecheck` entries run the same launches with `EMU_CHECK=racecheck`, in the same
//! run as the unchecked ones (`cargo bench --bench throughput -- racecheck` runs only those
//! and the plain loops are skipped then too).
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};
use rayon::prelude::*;

/// The default settings with racecheck on.
fn racecheck() -> Config {
    Config::default().checks(Checks { racecheck: true, ..Checks::default() })
}

/// Elements per benchmark.
const N: usize = 1 << 24;
/// Threads per block, and elements per partial sum of the reduction.
const BLOCK: usize = 256;
/// Elements per rayon task of the plain loops.
const CHUNK: usize = 1 << 16;

/// `y = a * x + y`, one element per GPU thread.
#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// One partial sum per block of 256 threads, by a shared-memory tree.
#[kernel]
pub fn block_sum(input: &[f32], partial: &mut [f32]) {
    let mut tile = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * block_dim().x as usize + tid;
    tile[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}

/// One partial sum per block of 256 threads: each warp sums its lanes with `shfl_down_sync`,
/// then the first warp sums the eight warp sums the same way.
#[kernel]
pub fn warp_block_sum(input: &[f32], partial: &mut [f32]) {
    let sums = shared_array![f32; 8];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * block_dim().x as usize + tid;
    let mut v = if i < input.len() { input[i] } else { 0.0 };
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(FULL_MASK, v, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        sums[tid / 32] = v;
    }
    sync_threads();
    if tid < 32 {
        let mut v = if tid < 8 { sums[tid] } else { 0.0 };
        let mut offset = 16;
        while offset > 0 {
            v += shfl_down_sync(FULL_MASK, v, offset);
            offset /= 2;
        }
        if tid == 0 {
            partial[block_idx().x as usize] = v;
        }
    }
}

/// `shfl_down_sync`'s tree over one warp's 32 values: lane `l` adds lane `l + offset`'s value,
/// or its own when that lane is past the warp; returns lane 0's sum.
fn warp_tree(mut v: [f32; 32]) -> f32 {
    let mut offset = 16;
    while offset > 0 {
        let before = v;
        for (l, x) in v.iter_mut().enumerate() {
            *x += if l + offset < 32 { before[l + offset] } else { before[l] };
        }
        offset /= 2;
    }
    v[0]
}

/// The plain version of `warp_block_sum`, bit-identical; rayon over runs of blocks.
fn plain_warp_block_sum(input: &[f32], partial: &mut [f32]) {
    partial.par_chunks_mut(CHUNK / BLOCK).zip(input.par_chunks(CHUNK)).for_each(|(p, x)| {
        for (p, x) in p.iter_mut().zip(x.chunks(BLOCK)) {
            let mut first = [0.0f32; 32];
            for (w, s) in first.iter_mut().take(BLOCK / 32).enumerate() {
                let mut v = [0.0f32; 32];
                let lanes = x.len().saturating_sub(w * 32).min(32);
                v[..lanes].copy_from_slice(&x[w * 32..w * 32 + lanes]);
                *s = warp_tree(v);
            }
            *p = warp_tree(first);
        }
    });
}

/// The plain saxpy: rayon over chunks of `CHUNK` elements.
fn plain_saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    y.par_chunks_mut(CHUNK).zip(x.par_chunks(CHUNK)).for_each(|(y, x)| {
        for (y, &x) in y.iter_mut().zip(x) {
            *y = a * x + *y;
        }
    });
}

/// The plain block reduction: the same tree as `block_sum` on a local copy of each block, so
/// the partial sums are bit-identical; rayon over runs of `CHUNK / BLOCK` blocks.
fn plain_block_sum(input: &[f32], partial: &mut [f32]) {
    partial.par_chunks_mut(CHUNK / BLOCK).zip(input.par_chunks(CHUNK)).for_each(|(p, x)| {
        for (p, x) in p.iter_mut().zip(x.chunks(BLOCK)) {
            let mut tile = [0.0f32; BLOCK];
            tile[..x.len()].copy_from_slice(x);
            let mut s = BLOCK / 2;
            while s > 0 {
                let (lo, hi) = tile.split_at_mut(s);
                for (l, h) in lo.iter_mut().zip(&hi[..s]) {
                    *l += *h;
                }
                s /= 2;
            }
            *p = tile[0];
        }
    });
}

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..N).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y: Vec<f32> = (0..N).map(|i| (i % 7) as f32).collect();
    (x, y)
}

/// Ten samples, flat sampling, and a measurement time of 5 s or what ten runs of the slower
/// variant take (`slowest`, timed on its checking run), whichever is longer.
fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, slowest: Duration) {
    g.throughput(Throughput::Elements(N as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5).max(slowest * 11));
}

fn bench_saxpy(c: &mut Criterion) {
    let (x, y) = inputs();
    let blocks = (N / BLOCK) as u32;

    // Same results first: one step of each from the same inputs.
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let mut dy = DeviceBuffer::from_slice(&y).unwrap();
    let start = Instant::now();
    launch!(saxpy<<<blocks, BLOCK as u32>>>(2.0, &dx, &mut dy)).unwrap();
    let slowest = start.elapsed();
    let mut py = y.clone();
    plain_saxpy(2.0, &x, &mut py);
    assert!(dy.to_vec().unwrap() == py, "emulated and plain saxpy differ");

    let mut g = c.benchmark_group("saxpy");
    configure(&mut g, slowest);
    g.bench_function("emulated", |b| {
        b.iter(|| launch!(saxpy<<<blocks, BLOCK as u32>>>(black_box(2.0), &dx, &mut dy)).unwrap())
    });
    g.bench_function("racecheck", |b| {
        b.iter(|| {
            with_config(racecheck(), || launch!(saxpy<<<blocks, BLOCK as u32>>>(black_box(2.0), &dx, &mut dy))).unwrap()
        })
    });
    g.bench_function("plain", |b| b.iter(|| plain_saxpy(black_box(2.0), &x, &mut py)));
    g.finish();
}

/// A block reduction benchmark: checks that `emulated` (one launch writing a partial sum per
/// block) and `plain` give the same bits, then times both in the group `name`.
fn bench_partial_sums(
    c: &mut Criterion,
    name: &str,
    emulated: impl Fn(&DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
    plain: fn(&[f32], &mut [f32]),
) {
    let (x, _) = inputs();
    let blocks = N / BLOCK;

    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let mut dp = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
    let start = Instant::now();
    emulated(&dx, &mut dp);
    let slowest = start.elapsed();
    let mut pp = vec![0.0f32; blocks];
    plain(&x, &mut pp);
    let dp_host = dp.to_vec().unwrap();
    assert!(
        dp_host.iter().zip(&pp).all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: emulated and plain partial sums differ"
    );

    let mut g = c.benchmark_group(name);
    configure(&mut g, slowest);
    g.bench_function("emulated", |b| b.iter(|| emulated(&dx, &mut dp)));
    g.bench_function("racecheck", |b| b.iter(|| with_config(racecheck(), || emulated(&dx, &mut dp))));
    g.bench_function("plain", |b| b.iter(|| plain(black_box(&x), &mut pp)));
    g.finish();
}

fn bench_reduction(c: &mut Criterion) {
    let blocks = (N / BLOCK) as u32;
    bench_partial_sums(
        c,
        "reduction",
        |dx, dp| launch!(block_sum<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_block_sum,
    );
}

fn bench_warp_reduction(c: &mut Criterion) {
    let blocks = (N / BLOCK) as u32;
    bench_partial_sums(
        c,
        "warp_reduction",
        |dx, dp| launch!(warp_block_sum<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_warp_block_sum,
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_saxpy(&mut c);
    bench_reduction(&mut c);
    bench_warp_reduction(&mut c);
    c.final_summary();
}
