//! The memory API's kernels for `gpu_vs_emu`: `#[constant]` and `#[device_global]` statics,
//! slices of buffers as kernel arguments and partial copies, and `View::cast`. Each `*_row`
//! function runs its kernels under the current target and returns what they computed, as bits.

use deviceemu::prelude::*;
use deviceemu::Error;

/// The taps of a 5-point filter in constant memory (its initial value is read by the first
/// launch, before any copy).
#[constant]
static TAPS: [f32; 5] = [0.0, 0.0, 1.0, 0.0, 0.0];

/// A scale and offset, a struct in constant memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Affine {
    /// Multiplies the filtered value.
    scale: f32,
    /// Added after.
    offset: f32,
}
// SAFETY: two `f32`s, no padding, zero is valid.
unsafe impl DeviceCopy for Affine {}

#[constant]
static AFFINE: Affine = Affine { scale: 1.0, offset: 0.5 };

/// `y[i] = scale * sum_k TAPS[k] * x[i + k - 2] + offset` (zero outside `x`).
#[kernel]
pub fn filter5(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < 5 {
            let j = i + k;
            if j >= 2 && j - 2 < x.len() {
                acc += TAPS[k] * x[j - 2];
            }
            k += 1;
        }
        y[i] = AFFINE.scale * acc + AFFINE.offset;
    }
}

/// Per-class counts of a `__device__ unsigned hits[4]`.
#[device_global]
static HITS: [u32; 4] = [0; 4];

/// A running total kept across launches, with an initial value.
#[device_global]
static TOTAL: [u64; 1] = [7];

/// Counts the classes of `x` into `HITS` (atomics) and adds `x` into `TOTAL` (thread 0 of
/// block 0, plain accesses).
#[kernel]
pub fn classify(x: &[u32]) {
    let hits = HITS.view();
    let total = TOTAL.view();
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        hits.atomic_add(x[i] as usize % 4, 1);
    }
    if block_idx().x == 0 && thread_idx().x == 0 {
        let mut k = 0;
        while k < x.len() {
            total[0] += x[k] as u64;
            k += 1;
        }
    }
}

/// `y[i] += a * x[i]` over the whole of each argument (slices at their offsets).
#[kernel]
pub fn axpy_part(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] += a * x[i];
    }
}

/// In place: `data[i] = 2 data[i] + 1`.
#[kernel]
pub fn twice_plus_one(data: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < data.len() {
        data[i] = 2.0 * data[i] + 1.0;
    }
}

/// A byte array in shared memory cleared as `u32` words, counted with `atomic_inc` through
/// the `u32` view, read back as words and as bytes.
#[kernel]
pub fn byte_counts(data: &[u32], out: &mut [u32]) {
    let bytes = shared_array![u8; 1024];
    let words = bytes.cast::<u32>();
    let t = thread_idx().x as usize;
    if t < words.len() {
        words[t] = 0;
    }
    sync_threads();
    let i = (block_idx().x * block_dim().x) as usize + t;
    if i < data.len() {
        words.atomic_inc(data[i] as usize % 256, 999);
    }
    sync_threads();
    if t < words.len() {
        out[block_idx().x as usize * 256 + t] = words[t];
        out[(grid_dim().x as usize + block_idx().x as usize) * 256 + t] = bytes[4 * t + 1] as u32;
    }
}

/// Sums the `u32` words of a byte buffer (a cast of a `&[u8]` parameter), and writes each
/// word's bytes reversed through a cast of the output.
#[kernel]
pub fn words_of_bytes(bytes: &[u8], sum: &mut [u32], out: &mut [u8]) {
    let words = bytes.cast::<u32>();
    let outw = out.cast::<u32>();
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if t < words.len() {
        sum.atomic_add(0, words[t]);
        outw[t] = words[t].swap_bytes();
    }
}

/// `constant`: the filter with the initial taps, then with copied taps and scale, and the
/// copies read back.
pub(crate) fn constant_row(x: &[f32]) -> Result<Vec<u32>, Error> {
    let xb = DeviceBuffer::from_slice(x)?;
    let mut yb = DeviceBuffer::<f32>::zeroed(x.len())?;
    copy_to_symbol(&AFFINE, &Affine { scale: 1.0, offset: 0.5 })?;
    launch!(filter5<<<(x.len() as u32).div_ceil(128), 128>>>(&xb, &mut yb))?;
    let mut out: Vec<u32> = yb.to_vec()?.iter().map(|v| v.to_bits()).collect();
    copy_to_symbol(&TAPS, &[0.1, 0.2, 0.4, 0.2, 0.1])?;
    copy_to_symbol(&AFFINE, &Affine { scale: 2.0, offset: -1.0 })?;
    launch!(filter5<<<(x.len() as u32).div_ceil(128), 128>>>(&xb, &mut yb))?;
    out.extend(yb.to_vec()?.iter().map(|v| v.to_bits()));
    let mut taps = [0.0f32; 5];
    copy_from_symbol(&mut taps, &TAPS)?;
    let mut a = Affine { scale: 0.0, offset: 0.0 };
    copy_from_symbol(&mut a, &AFFINE)?;
    out.extend(taps.iter().chain([a.scale, a.offset].iter()).map(|v| v.to_bits()));
    // Back to the initial taps for the next run.
    copy_to_symbol(&TAPS, &[0.0, 0.0, 1.0, 0.0, 0.0])?;
    Ok(out)
}

/// `device_global`: class counts and a running total over two launches, with the initial
/// total read first and the globals reset by the host.
pub(crate) fn device_global_row(x: &[u32]) -> Result<Vec<u32>, Error> {
    let xb = DeviceBuffer::from_slice(x)?;
    let mut t = [0u64];
    copy_from_symbol(&mut t, &TOTAL)?;
    let mut out = vec![t[0] as u32];
    copy_to_symbol(&HITS, &[0; 4])?;
    launch!(classify<<<(x.len() as u32).div_ceil(256), 256>>>(&xb))?;
    launch!(classify<<<(x.len() as u32).div_ceil(256), 256>>>(xb.slice(..x.len() / 2)))?;
    let mut hits = [0u32; 4];
    copy_from_symbol(&mut hits, &HITS)?;
    copy_from_symbol(&mut t, &TOTAL)?;
    out.extend(hits);
    out.extend([t[0] as u32, (t[0] >> 32) as u32]);
    copy_to_symbol(&TOTAL, &[7])?;
    Ok(out)
}

/// `slices`: slices as kernel arguments (`d_x + 100`), a sub-slice, an in-place kernel on a
/// part, and partial copies host to device, device to device and device to host.
pub(crate) fn slices_row(x: &[f32], y: &[f32]) -> Result<Vec<u32>, Error> {
    let n = x.len();
    let xb = DeviceBuffer::from_slice(x)?;
    let mut yb = DeviceBuffer::from_slice(y)?;
    launch!(axpy_part<<<(n as u32 / 2).div_ceil(256), 256>>>(1.5, xb.slice(100..100 + n / 2), yb.slice_mut(n / 4..n / 4 + n / 2)))?;
    let mut part = yb.slice_mut(1000..);
    launch!(twice_plus_one<<<8, 128>>>(part.slice_mut(17..17 + 1000)))?;
    let mut zb = DeviceBuffer::<f32>::zeroed(n)?;
    zb.slice_mut(5..5 + n / 2).copy_from_device(yb.slice(n / 3..n / 3 + n / 2))?;
    zb.slice_mut(n - 4..).copy_from_slice(&[1.0, 2.0, 3.0, 4.0])?;
    let mut out: Vec<u32> = yb.to_vec()?.iter().map(|v| v.to_bits()).collect();
    out.extend(zb.to_vec()?.iter().map(|v| v.to_bits()));
    out.extend(zb.slice(n / 2..n / 2 + 100).to_vec()?.iter().map(|v| v.to_bits()));
    Ok(out)
}

/// `casts`: the shared byte histogram counted through a `u32` cast, and word sums and byte
/// swaps through casts of byte buffers, one of them a slice at an aligned offset.
pub(crate) fn casts_row(data: &[u32], bytes: &[u8]) -> Result<Vec<u32>, Error> {
    let db = DeviceBuffer::from_slice(data)?;
    let blocks = (data.len() / 256) as u32;
    let mut counts = DeviceBuffer::<u32>::zeroed(2 * blocks as usize * 256)?;
    launch!(byte_counts<<<blocks, 256>>>(&db, &mut counts))?;
    let mut out = counts.to_vec()?;
    let bb = DeviceBuffer::from_slice(bytes)?;
    let mut sum = DeviceBuffer::<u32>::zeroed(1)?;
    let mut swapped = DeviceBuffer::<u8>::zeroed(bytes.len())?;
    launch!(words_of_bytes<<<(bytes.len() as u32 / 4).div_ceil(256), 256>>>(&bb, &mut sum, &mut swapped))?;
    out.extend(sum.to_vec()?);
    out.extend(swapped.to_vec()?.iter().map(|&b| b as u32));
    let mut sum = DeviceBuffer::<u32>::zeroed(1)?;
    let mut swapped = DeviceBuffer::<u8>::zeroed(bytes.len() - 64)?;
    launch!(words_of_bytes<<<(bytes.len() as u32 / 4).div_ceil(256), 256>>>(bb.slice(64..), &mut sum, &mut swapped))?;
    out.extend(sum.to_vec()?);
    out.extend(swapped.to_vec()?.iter().map(|&b| b as u32));
    Ok(out)
}

/// A misaligned cast on both targets (`GPU_VS_EMU_MISALIGNED=1 gpu_vs_emu`, a process of its
/// own: the GPU's error is sticky): `words_of_bytes` on a byte slice from offset 1. Prints
/// each target's error code.
pub(crate) fn misaligned_on_both() -> Result<(), Error> {
    use deviceemu::{with_config, Config, Target};
    for target in [Target::Emulator, Target::Gpu] {
        let r = with_config(Config::default().target(target), || {
            let bb = DeviceBuffer::from_slice(&[7u8; 260])?;
            let mut sum = DeviceBuffer::<u32>::zeroed(1)?;
            let mut out = DeviceBuffer::<u8>::zeroed(256)?;
            launch!(words_of_bytes<<<1, 64>>>(bb.slice(1..257), &mut sum, &mut out))?;
            sum.to_vec().map(|_| ())
        });
        match r {
            Err(e) => println!("misaligned cast, {target:?}: code {} ({})", e.code(), e.name()),
            Ok(()) => println!("misaligned cast, {target:?}: no error"),
        }
    }
    Ok(())
}
