//! Throughput of the emulator against a plain threaded Rust loop doing the same work, at 2^24
//! elements: saxpy, the block reduction (256 threads per block, shared-memory tree), the same
//! reduction done with warp shuffles, a tiled matrix product, a shared-memory stencil and a
//! block scan.
//!
//! Each group times the launch on the path it takes by default (`emulated`: barrier regions or
//! a lane loop where `#[kernel]` made them, printed before the group) and the plain loop
//! (`plain`); before the group, one launch on the general path (`ExecPath::General`, one GPU
//! thread at a time, what every launch did before loop fission) is timed and printed, in the
//! same run. Every variant's results are checked against the plain loop's, bit for bit.
//!
//! `cargo bench --bench throughput`; results are in elements per second. BENCHMARKS.md records
//! a run. The `racecheck` entries run the same launches with `EMU_CHECK=racecheck`, in the same
//! run as the unchecked ones (`cargo bench --bench throughput -- racecheck` runs only those
//! and the plain loops are skipped then too).
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config, ExecPath};
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

/// A Hillis–Steele inclusive scan of each block's 256 elements in shared memory (16
/// `sync_threads` per thread).
#[kernel]
pub fn block_scan(input: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut off = 1;
    while off < 256 {
        let v = if tid >= off { t[tid - off] } else { 0.0 };
        sync_threads();
        t[tid] += v;
        sync_threads();
        off *= 2;
    }
    if i < out.len() {
        out[i] = t[tid];
    }
}

/// A three-point stencil through shared memory: each block loads its 256 elements and a halo
/// element on each side, then each thread averages its neighbourhood.
#[kernel]
pub fn stencil(input: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 258];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid + 1] = if i < input.len() { input[i] } else { 0.0 };
    if tid == 0 {
        t[0] = if i > 0 { input[i - 1] } else { 0.0 };
    }
    if tid == 255 {
        t[257] = if i + 1 < input.len() { input[i + 1] } else { 0.0 };
    }
    sync_threads();
    if i < out.len() {
        out[i] = 0.25 * t[tid] + 0.5 * t[tid + 1] + 0.25 * t[tid + 2];
    }
}

/// `c = a * b` with 16x16 tiles in shared memory: `a` is `rows x inner`, `b` is `inner x cols`,
/// one GPU thread per element of `c` (blocks of 16x16 threads).
#[kernel]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], inner: u32, cols: u32) {
    let ta = shared_array![[f32; 16]; 16];
    let tb = shared_array![[f32; 16]; 16];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * 16 + ty;
    let col = block_idx().x as usize * 16 + tx;
    let kk = inner as usize;
    let nn = cols as usize;
    let mut acc = 0.0f32;
    for t in 0..kk / 16 {
        ta[ty][tx] = a[row * kk + t * 16 + tx];
        tb[ty][tx] = b[(t * 16 + ty) * nn + col];
        sync_threads();
        for j in 0..16 {
            acc += ta[ty][j] * tb[j][tx];
        }
        sync_threads();
    }
    c[row * nn + col] = acc;
}

/// The plain scan: the same Hillis–Steele steps on a stack copy of each block, bit-identical.
fn plain_block_scan(input: &[f32], out: &mut [f32]) {
    out.par_chunks_mut(CHUNK).zip(input.par_chunks(CHUNK)).for_each(|(o, x)| {
        for (o, x) in o.chunks_mut(BLOCK).zip(x.chunks(BLOCK)) {
            let mut tile = [0.0f32; BLOCK];
            tile[..x.len()].copy_from_slice(x);
            let mut off = 1;
            while off < BLOCK {
                let before = tile;
                for (j, t) in tile.iter_mut().enumerate() {
                    *t += if j >= off { before[j - off] } else { 0.0 };
                }
                off *= 2;
            }
            o.copy_from_slice(&tile[..o.len()]);
        }
    });
}

/// The plain stencil, bit-identical.
fn plain_stencil(input: &[f32], out: &mut [f32]) {
    let n = input.len();
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, o)| {
        for (k, o) in o.iter_mut().enumerate() {
            let i = c * CHUNK + k;
            let l = if i > 0 { input[i - 1] } else { 0.0 };
            let r = if i + 1 < n { input[i + 1] } else { 0.0 };
            *o = 0.25 * l + 0.5 * input[i] + 0.25 * r;
        }
    });
}

/// The plain matrix product, rows in parallel, each element summed in the same order.
fn plain_matmul(a: &[f32], b: &[f32], c: &mut [f32], inner: usize, cols: usize) {
    c.par_chunks_mut(cols).enumerate().for_each(|(row, cr)| {
        cr.iter_mut().for_each(|v| *v = 0.0);
        for k in 0..inner {
            let av = a[row * inner + k];
            for (v, &bv) in cr.iter_mut().zip(&b[k * cols..(k + 1) * cols]) {
                *v += av * bv;
            }
        }
    });
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
            *y += a * x;
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

/// Runs `f` on the general path (one GPU thread at a time): the emulator before loop fission.
fn general<R>(f: impl FnOnce() -> R) -> R {
    with_config(Config::default().path(ExecPath::General), f)
}

/// Prints the path the last launch took (the `emulated` variant of the group `name`).
fn announce(name: &str) {
    eprintln!("{name}: `emulated` takes the {} path", deviceemu::__private::last_path());
}

/// Times one launch on the general path (what every launch did before loop fission) and
/// prints it: the general path is too slow on the larger shapes for ten criterion samples.
fn time_general(name: &str, f: impl FnOnce()) {
    let start = Instant::now();
    general(f);
    let t = start.elapsed().as_secs_f64();
    eprintln!("{name}: `general` (one launch): {t:.3} s, {:.3e} elem/s", N as f64 / t);
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
    announce("saxpy");
    let mut py = y.clone();
    plain_saxpy(2.0, &x, &mut py);
    assert!(dy.to_vec().unwrap() == py, "emulated and plain saxpy differ");
    let mut gy = DeviceBuffer::from_slice(&y).unwrap();
    time_general("saxpy", || launch!(saxpy<<<blocks, BLOCK as u32>>>(2.0, &dx, &mut gy)).unwrap());
    assert!(gy.to_vec().unwrap() == py, "general and plain saxpy differ");

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
    outputs: usize,
    emulated: impl Fn(&DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
    plain: fn(&[f32], &mut [f32]),
) {
    let (x, _) = inputs();
    let blocks = outputs;

    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let mut dp = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
    let start = Instant::now();
    emulated(&dx, &mut dp);
    let slowest = start.elapsed();
    announce(name);
    let fast = dp.to_vec().unwrap();
    time_general(name, || emulated(&dx, &mut dp));
    let mut pp = vec![0.0f32; blocks];
    plain(&x, &mut pp);
    let dp_host = dp.to_vec().unwrap();
    assert!(
        dp_host.iter().zip(&pp).all(|(a, b)| a.to_bits() == b.to_bits())
            && fast.iter().zip(&pp).all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: emulated and plain results differ"
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
        N / BLOCK,
        |dx, dp| launch!(block_sum<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_block_sum,
    );
}

fn bench_warp_reduction(c: &mut Criterion) {
    let blocks = (N / BLOCK) as u32;
    bench_partial_sums(
        c,
        "warp_reduction",
        N / BLOCK,
        |dx, dp| launch!(warp_block_sum<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_warp_block_sum,
    );
}

fn bench_scan(c: &mut Criterion) {
    let blocks = (N / BLOCK) as u32;
    bench_partial_sums(
        c,
        "block_scan",
        N,
        |dx, dp| launch!(block_scan<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_block_scan,
    );
}

fn bench_stencil(c: &mut Criterion) {
    let blocks = (N / BLOCK) as u32;
    bench_partial_sums(
        c,
        "stencil",
        N,
        |dx, dp| launch!(stencil<<<blocks, BLOCK as u32>>>(dx, dp)).unwrap(),
        plain_stencil,
    );
}

/// `c = a * b` with `c` of 4096 x 4096 = 2^24 elements and an inner dimension of 64.
fn bench_matmul(c: &mut Criterion) {
    const ROWS: usize = 4096;
    const COLS: usize = 4096;
    const INNER: usize = 64;
    let a: Vec<f32> = (0..ROWS * INNER).map(|i| (i % 13) as f32 * 0.25).collect();
    let b: Vec<f32> = (0..INNER * COLS).map(|i| (i % 7) as f32 * 0.5).collect();
    let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
    let mut dc = DeviceBuffer::<f32>::zeroed(ROWS * COLS).unwrap();
    let grid = ((COLS / 16) as u32, (ROWS / 16) as u32);
    let run = |dc: &mut DeviceBuffer<f32>| {
        launch!(matmul<<<grid, (16, 16)>>>(&da, &db, dc, INNER as u32, COLS as u32)).unwrap()
    };
    let start = Instant::now();
    run(&mut dc);
    let slowest = start.elapsed();
    announce("matmul");
    let fast = dc.to_vec().unwrap();
    time_general("matmul", || run(&mut dc));
    let mut pc = vec![0.0f32; ROWS * COLS];
    plain_matmul(&a, &b, &mut pc, INNER, COLS);
    let same = |v: &[f32]| v.iter().zip(&pc).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same(&fast) && same(&dc.to_vec().unwrap()), "matmul: emulated and plain differ");
    let mut g = c.benchmark_group("matmul");
    configure(&mut g, slowest);
    g.bench_function("emulated", |bch| bch.iter(|| run(&mut dc)));
    g.bench_function("plain", |bch| bch.iter(|| plain_matmul(black_box(&a), &b, &mut pc, INNER, COLS)));
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    // `BENCH_GROUPS=matmul,stencil cargo bench --bench throughput` runs the groups named (all
    // by default).
    let only: Vec<String> =
        std::env::var("BENCH_GROUPS").map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default();
    let on = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if on("saxpy") {
        bench_saxpy(&mut c);
    }
    if on("reduction") {
        bench_reduction(&mut c);
    }
    if on("warp_reduction") {
        bench_warp_reduction(&mut c);
    }
    if on("matmul") {
        bench_matmul(&mut c);
    }
    if on("stencil") {
        bench_stencil(&mut c);
    }
    if on("block_scan") {
        bench_scan(&mut c);
    }
    c.final_summary();
}
