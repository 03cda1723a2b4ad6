//! The costs that do not depend on the path a kernel takes (issue 26, part 5), each against a
//! reference in the same run:
//!
//! * `exit`: a grid of 2^20 threads that all return at their first statement (as most threads
//!   of the elimination kernels of a dynamic-programming benchmark do), per thread; the target
//!   is 2 ns.
//! * `small_launch`: one block of 32 threads with an empty body, against `rayon::scope` with one
//!   spawn; the target is 3x.
//! * `reads`: 2^20 threads reading 16 values each through `tex1Dfetch` (`Texture::fetch`) and
//!   from `#[constant]` memory, against the same reads of a kernel's `&[f32]` and of a plain Rust
//!   loop; the target is 3x a plain slice read.
//!
//! `cargo bench --bench costs`. BENCHMARKS.md records a run.
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use deviceemu::prelude::*;

#[kernel]
pub fn exit_at_once(out: &mut [f32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= n {
        return;
    }
    out[i as usize] = 1.0;
}

#[kernel]
pub fn empty() {}

const LEN: u32 = 64;
const READS: u32 = 16;

#[constant]
static TABLE: [f32; 64] = [0.0; 64];

#[kernel]
pub fn read_texture(t: Texture<f32>, out: &mut [f32]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    let mut s = 0.0f32;
    for k in 0..READS {
        s += t.fetch(((i + k) % LEN) as i32);
    }
    out[i as usize] = s;
}

#[kernel]
pub fn read_constant(out: &mut [f32]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    let mut s = 0.0f32;
    for k in 0..READS {
        s += TABLE[((i + k) % LEN) as usize];
    }
    out[i as usize] = s;
}

#[kernel]
pub fn read_slice(x: &[f32], out: &mut [f32]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    let mut s = 0.0f32;
    for k in 0..READS {
        s += x[((i + k) % LEN) as usize];
    }
    out[i as usize] = s;
}

fn plain(x: &[f32], out: &mut [f32]) {
    for (i, o) in out.iter_mut().enumerate() {
        let mut s = 0.0f32;
        for k in 0..READS as usize {
            s += x[(i + k) % LEN as usize];
        }
        *o = s;
    }
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    elements: u64,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(elements))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let n: u32 = 1 << 20;
    let mut out = DeviceBuffer::<f32>::zeroed(n as usize).unwrap();

    let mut g = group(&mut c, "exit", u64::from(n));
    g.bench_function("emulated", |b| {
        b.iter(|| launch!(exit_at_once<<<n / 256, 256>>>(&mut out, black_box(0))).unwrap())
    });
    g.finish();

    let mut g = group(&mut c, "small_launch", 1);
    g.bench_function("emulated", |b| b.iter(|| launch!(empty<<<1, 32>>>()).unwrap()));
    g.bench_function("rayon_scope", |b| {
        b.iter(|| {
            rayon::scope(|s| {
                s.spawn(|_| {
                    black_box(0);
                })
            })
        })
    });
    g.finish();

    let values: Vec<f32> = (0..LEN).map(|v| v as f32).collect();
    copy_to_symbol(&TABLE, &values.clone().try_into().unwrap()).unwrap();
    let x = DeviceBuffer::from_slice(&values).unwrap();
    let tex = TextureObject::linear(&x, TextureDesc::new()).unwrap();
    let mut want = vec![0.0f32; n as usize];
    plain(&values, &mut want);
    let mut g = group(&mut c, "reads", u64::from(n * READS));
    g.bench_function("texture", |b| {
        b.iter(|| launch!(read_texture<<<n / 256, 256>>>(tex.texture(), &mut out)).unwrap())
    });
    assert_eq!(out.to_vec().unwrap(), want, "texture");
    g.bench_function("constant", |b| b.iter(|| launch!(read_constant<<<n / 256, 256>>>(&mut out)).unwrap()));
    assert_eq!(out.to_vec().unwrap(), want, "constant");
    g.bench_function("slice", |b| b.iter(|| launch!(read_slice<<<n / 256, 256>>>(&x, &mut out)).unwrap()));
    assert_eq!(out.to_vec().unwrap(), want, "slice");
    let mut host = vec![0.0f32; n as usize];
    g.bench_function("plain", |b| b.iter(|| plain(black_box(&values), &mut host)));
    g.finish();
    c.final_summary();
}
