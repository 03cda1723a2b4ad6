//! The guide's example of the memory API (docs/guide/memory.md: slices, casts, constant memory
//! and device globals), as written there, with its results checked.

use deviceemu::prelude::*;

#[constant] // __constant__ float TAPS[5];
static TAPS: [f32; 5] = [0.0; 5];
#[device_global] // __device__ unsigned HITS[4];
static HITS: [u32; 4] = [0; 4];

#[kernel]
pub fn filter(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let hits = HITS.view(); // a view like a `&mut [u32]` parameter's
    if i >= 2 && i + 2 < x.len() && i < y.len() {
        y[i] = TAPS[0] * x[i - 2] + TAPS[1] * x[i - 1] + TAPS[2] * x[i] + TAPS[3] * x[i + 1] + TAPS[4] * x[i + 2];
        hits.atomic_add(0, 1);
    }
}

#[kernel]
pub fn count_bytes(data: &[u8], out: &mut [u32]) {
    let bytes = shared_array![u8; 1024];
    let words = bytes.cast::<u32>(); // the same 1024 bytes as 256 `u32`s
    let t = thread_idx().x as usize;
    if t < 256 {
        words[t] = 0;
    } // cleared as words
    sync_threads();
    words.atomic_inc(data[t] as usize % 256, u32::MAX);
    sync_threads();
    if t < 256 {
        out[t] = words[t];
    }
}

#[test]
fn readme_memory_example() -> Result<(), deviceemu::Error> {
    copy_to_symbol(&TAPS, &[0.1, 0.2, 0.4, 0.2, 0.1])?; // cudaMemcpyToSymbol
    let x = DeviceBuffer::from_slice(&vec![1.0f32; 4096])?;
    let mut y = DeviceBuffer::<f32>::zeroed(4096)?;
    // `filter<<<..>>>(d_x + 1024, d_y + 1024)`: slices are kernel arguments at their offset.
    launch!(filter<<<8, 256>>>(x.slice(1024..3072), y.slice_mut(1024..3072)))?;
    let mut hits = [0u32; 4];
    copy_from_symbol(&mut hits, &HITS)?; // cudaMemcpyFromSymbol
                                         // Partial copies: host to device, device to device, device to host.
    y.slice_mut(0..4).copy_from_slice(&[1.0, 2.0, 3.0, 4.0])?;
    let mut z = DeviceBuffer::<f32>::zeroed(100)?;
    z.slice_mut(10..20).copy_from_device(y.slice(1024..1034))?;
    let part: Vec<f32> = z.slice(10..20).to_vec()?;
    // What the guide does not show: the results.
    // The slice's elements 0 and 1 have no left neighbours: not written.
    let v = 0.1f32 * 1.0 + 0.2 * 1.0 + 0.4 * 1.0 + 0.2 * 1.0 + 0.1 * 1.0;
    assert_eq!(part, [vec![0.0; 2], vec![v; 8]].concat());
    assert_eq!(hits, [2044, 0, 0, 0]);
    let bytes: Vec<u8> = (0..256u32).map(|i| (i * 3) as u8).collect();
    let db = DeviceBuffer::from_slice(&bytes)?;
    let mut counts = DeviceBuffer::<u32>::zeroed(256)?;
    launch!(count_bytes<<<1, 256>>>(&db, &mut counts))?;
    let mut want = vec![0u32; 256];
    for b in &bytes {
        want[*b as usize] += 1;
    }
    assert_eq!(counts.to_vec()?, want);
    Ok(())
}
