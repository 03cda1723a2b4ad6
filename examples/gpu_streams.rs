//! Streams on the GPU, measured as `tools/probes/p6_streams.cu` measures CUDA C++ (runtime
//! API), for BENCHMARKS.md:
//!
//! (a) 10^4 launches of an empty kernel `<<<1, 32>>>` on one stream, then one synchronisation;
//!     5 runs, median (and the same with the synchronous three-argument `launch!`);
//! (b) 8 chunks of 16 MiB: host-to-device copy, a saxpy-like kernel, device-to-host copy, over
//!     pinned `HostBuffer`s, chunks alternating between two streams, against the same work
//!     serial (blocking copies and synchronous launches); 5 runs, median.
//!
//! `cargo run --release --example gpu_streams --features gpu` (on the GPU when one is found,
//! else in the emulator, which is slow for (b)).
//!
//! `gpu_streams --empty N stream` (or `sync`) only makes N empty launches on a stream (or with
//! the synchronous three-argument `launch!`) and exits: the host's cost per launch, counted
//! with `valgrind --tool=callgrind` at two values of N (BENCHMARKS.md).

use std::time::Instant;

use deviceemu::prelude::*;
use deviceemu::Error;

#[kernel]
pub fn empty_kernel(_unused: u32) {}

#[kernel]
pub fn saxpy_like(x: &[f32], y: &mut [f32], a: f32) {
    let n = y.len();
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    while i < n {
        y[i] = a * x[i] + 1.0;
        i += stride;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Error> {
    #[cfg(feature = "gpu")]
    println!("target: {}", if deviceemu::gpu::available() { "GPU" } else { "emulator (no GPU found)" });
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--empty") {
        let n: usize = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(1000);
        let s = Stream::new()?;
        for _ in 0..n {
            if args.get(i + 2).map(String::as_str) == Some("sync") {
                launch!(empty_kernel<<<1, 32>>>(0))?;
            } else {
                launch!(empty_kernel<<<1, 32, 0, &s>>>(0))?;
            }
        }
        return s.synchronize();
    }
    let small = args.iter().any(|a| a == "--small");
    let launches = if small { 1000 } else { 10_000 };
    let s0 = Stream::new()?;
    let s1 = Stream::new()?;
    let (e0, e1) = (Event::new()?, Event::new()?);
    for _ in 0..1000.min(launches) {
        launch!(empty_kernel<<<1, 32, 0, &s0>>>(0))?;
    }
    s0.synchronize()?;
    let (mut ev, mut wall, mut enq) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..5 {
        let t0 = Instant::now();
        e0.record(&s0)?;
        for _ in 0..launches {
            launch!(empty_kernel<<<1, 32, 0, &s0>>>(0))?;
        }
        e1.record(&s0)?;
        let t1 = t0.elapsed().as_secs_f64() * 1e3;
        s0.synchronize()?;
        let t2 = t0.elapsed().as_secs_f64() * 1e3;
        let ms = Event::elapsed_time(&e0, &e1)? as f64;
        println!("streams-a run {r}: {launches} empty launches: events {ms:.3} ms, host wall to sync {t2:.3} ms, enqueue only {t1:.3} ms");
        ev.push(ms);
        wall.push(t2);
        enq.push(t1);
    }
    let n = launches as f64;
    println!(
        "streams-a median: events {:.3} ms = {:.0} launches/s; wall {:.3} ms = {:.0} launches/s; enqueue {:.3} ms = {:.2} us per launch call",
        median(ev.clone()),
        n / median(ev) * 1e3,
        median(wall.clone()),
        n / median(wall) * 1e3,
        median(enq.clone()),
        median(enq) * 1e3 / n
    );
    let mut ws = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        for _ in 0..launches {
            launch!(empty_kernel<<<1, 32>>>(0))?;
        }
        ws.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "streams-a three-argument (synchronous) launch! median: {:.3} ms = {:.0} launches/s ({:.2} us per launch)",
        median(ws.clone()),
        n / median(ws.clone()) * 1e3,
        median(ws) * 1e3 / n
    );

    let chunks = 8usize;
    let cn = if small { 1 << 16 } else { (16usize << 20) / 4 };
    let ss = [&s0, &s1];
    let hx: Vec<HostBuffer<f32>> = (0..chunks)
        .map(|c| HostBuffer::from_slice(&(0..cn).map(|i| ((c * cn + i) % 1000) as f32).collect::<Vec<_>>()))
        .collect::<Result<_, _>>()?;
    let mut hy: Vec<HostBuffer<f32>> = (0..chunks).map(|_| HostBuffer::zeroed(cn)).collect::<Result<_, _>>()?;
    let mut dx: Vec<DeviceBuffer<f32>> = (0..chunks).map(|_| DeviceBuffer::zeroed(cn)).collect::<Result<_, _>>()?;
    let mut dy: Vec<DeviceBuffer<f32>> = (0..chunks).map(|_| DeviceBuffer::zeroed(cn)).collect::<Result<_, _>>()?;
    let (grid, block) = (132u32 * 8, 256u32);
    let wrong = |hy: &[HostBuffer<f32>]| -> usize {
        let mut bad = 0;
        for (c, h) in hy.iter().enumerate() {
            for (i, &v) in h.as_slice().iter().enumerate() {
                if v != 2.0 * ((c * cn + i) % 1000) as f32 + 1.0 {
                    bad += 1;
                }
            }
        }
        bad
    };
    let legacy = Stream::default_stream();
    let (mut pipe, mut serial) = (Vec::new(), Vec::new());
    for r in 0..5 {
        for h in hy.iter_mut() {
            h.as_mut_slice().fill(0.0);
        }
        device_synchronize()?;
        let t0 = Instant::now();
        e0.record(&legacy)?;
        for c in 0..chunks {
            let s = ss[c & 1];
            dx[c].copy_from_host_async(&hx[c], s)?;
            launch!(saxpy_like<<<grid, block, 0, s>>>(&dx[c], &mut dy[c], 2.0))?;
            dy[c].copy_to_host_async(&mut hy[c], s)?;
        }
        e1.record(&legacy)?;
        e1.synchronize()?;
        let pipe_wall = t0.elapsed().as_secs_f64() * 1e3;
        let pipe_ms = Event::elapsed_time(&e0, &e1)? as f64;
        let bad = wrong(&hy);
        for h in hy.iter_mut() {
            h.as_mut_slice().fill(0.0);
        }
        device_synchronize()?;
        let t0 = Instant::now();
        e0.record(&legacy)?;
        for c in 0..chunks {
            dx[c].copy_from_slice(hx[c].as_slice())?;
            launch!(saxpy_like<<<grid, block>>>(&dx[c], &mut dy[c], 2.0))?;
            dy[c].copy_to_slice(hy[c].as_mut_slice())?;
        }
        e1.record(&legacy)?;
        e1.synchronize()?;
        let serial_wall = t0.elapsed().as_secs_f64() * 1e3;
        let serial_ms = Event::elapsed_time(&e0, &e1)? as f64;
        let bad2 = wrong(&hy);
        println!(
            "streams-b run {r}: two-stream pipeline {pipe_ms:.3} ms (wall {pipe_wall:.3}), serial {serial_ms:.3} ms (wall {serial_wall:.3}), wrong values {bad} / {bad2}"
        );
        pipe.push(pipe_ms);
        serial.push(serial_ms);
    }
    println!(
        "streams-b median: {chunks} x {:.2} MiB two-stream pipeline {:.3} ms, serial {:.3} ms, overlap factor serial/pipeline = {:.3}",
        (cn * 4) as f64 / (1u64 << 20) as f64,
        median(pipe.clone()),
        median(serial.clone()),
        median(serial) / median(pipe)
    );
    Ok(())
}
