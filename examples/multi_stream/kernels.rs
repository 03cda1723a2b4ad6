//! A multi-stream program for `gpu_vs_emu`: two streams, events that join them
//! (`wait_event`), pinned `HostBuffer`s copied asynchronously, kernels and an asynchronous
//! memset. [`row`] runs it under the current target and returns what it computed, as bits.
//!
//! Four chunks alternate between streams `a` and `b`: each is copied in, squared and marked
//! with an event. Stream `b` then waits for `a`'s chunk events and combines the chunks in pairs
//! (one chunk of each stream per pair), copying the results out; stream `a` waits for `b`'s
//! last event, clears a chunk and copies it out. Only the events order the work across streams,
//! as a CUDA program must (deviceemu would also order it through the buffers).

use deviceemu::prelude::*;
use deviceemu::Error;

/// `x[i] = x[i] * x[i] + 0.5`.
#[kernel]
pub fn ms_square(x: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        x[i] = x[i] * x[i] + 0.5;
    }
}

/// `out[i] = 0.75 * p[i] - q[i]`.
#[kernel]
pub fn ms_combine(p: &[f32], q: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = 0.75 * p[i] - q[i];
    }
}

/// Runs the program on `x` (split in four chunks; its length a multiple of 4) and returns the
/// two combined pairs, then the cleared chunk, as bits.
pub(crate) fn row(x: &[f32]) -> Result<Vec<u32>, Error> {
    const CHUNKS: usize = 4;
    let n = x.len() / CHUNKS;
    let grid = (n as u32).div_ceil(256);
    let streams = [Stream::non_blocking()?, Stream::non_blocking()?];
    let (a, b) = (&streams[0], &streams[1]);
    let input: Vec<HostBuffer<f32>> =
        x.chunks(n).map(HostBuffer::from_slice).collect::<Result<_, _>>()?;
    let mut dev: Vec<DeviceBuffer<f32>> = (0..CHUNKS).map(|_| DeviceBuffer::zeroed(n)).collect::<Result<_, _>>()?;
    let squared: Vec<Event> = (0..CHUNKS).map(|_| Event::without_timing()).collect::<Result<_, _>>()?;
    for c in 0..CHUNKS {
        let s = &streams[c % 2];
        dev[c].copy_from_host_async(&input[c], s)?;
        launch!(ms_square<<<grid, 256, 0, s>>>(&mut dev[c]))?;
        squared[c].record(s)?;
    }
    // Stream b combines chunk 2k (squared on a) with chunk 2k + 1 (its own).
    let mut out: Vec<DeviceBuffer<f32>> = (0..CHUNKS / 2).map(|_| DeviceBuffer::zeroed(n)).collect::<Result<_, _>>()?;
    let mut host_out: Vec<HostBuffer<f32>> = (0..CHUNKS / 2).map(|_| HostBuffer::zeroed(n)).collect::<Result<_, _>>()?;
    for k in 0..CHUNKS / 2 {
        b.wait_event(&squared[2 * k])?;
        launch!(ms_combine<<<grid, 256, 0, b>>>(&dev[2 * k], &dev[2 * k + 1], &mut out[k]))?;
        out[k].copy_to_host_async(&mut host_out[k], b)?;
    }
    let combined = Event::new()?;
    combined.record(b)?;
    // Stream a clears chunk 0 once b has read it, and copies it out.
    a.wait_event(&combined)?;
    dev[0].memset_zero_async(a)?;
    let mut cleared = HostBuffer::<f32>::zeroed(n)?;
    dev[0].copy_to_host_async(&mut cleared, a)?;
    b.synchronize()?;
    a.synchronize()?;
    assert!(combined.query()? && squared.iter().all(|e| e.query().unwrap_or(false)));
    let mut bits: Vec<u32> = host_out.iter().flat_map(|h| h.as_slice().iter().map(|v| v.to_bits())).collect();
    bits.extend(cleared.as_slice().iter().map(|v| v.to_bits()));
    Ok(bits)
}
