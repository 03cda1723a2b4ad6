//! The memory API of real CUDA code, emulated, each against a CPU reference: slices of buffers
//! as kernel arguments (`d_data + offset`) and partial copies, `View::cast` (a byte array
//! cleared as `u32`, `atomic_inc` through a cast view) and its misalignment report,
//! `#[constant]` statics with `copy_to_symbol`/`copy_from_symbol`, and `#[device_global]`
//! statics that kernels read and write (with racecheck).

use crate::common::{assert_has, marked_line, model};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config};

/// A run of the model whose errors fail it.
fn ok(mut f: impl FnMut() -> Result<(), deviceemu::Error>) -> impl FnMut() {
    move || f().unwrap()
}

fn line_of(marker: &str) -> usize {
    marked_line(include_str!("memory_api.rs"), marker)
}

// ---------------------------------------------------------------------------------------------
// Slices
// ---------------------------------------------------------------------------------------------

/// `y[i] += a * x[i]` over the whole of each argument, which may be slices.
#[kernel]
pub fn axpy_part(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] += a * x[i];
    }
}

/// Writes each element's index into a slice: where it lands shows the offset.
#[kernel]
pub fn iota(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = i as u32 + 1000;
    }
}

#[test]
fn slices_are_kernel_arguments_at_their_offset() {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    model().check(ok(|| {
        let xb = DeviceBuffer::from_slice(&x)?;
        let mut yb = DeviceBuffer::from_slice(&y)?;
        // y[300..700] += 2 * x[100..500]: CUDA's `axpy<<<..>>>(2, d_x + 100, d_y + 300)`.
        launch!(axpy_part<<<4, 128>>>(2.0, xb.slice(100..500), yb.slice_mut(300..700)))?;
        let mut want = y.clone();
        for i in 0..400 {
            want[300 + i] += 2.0 * x[100 + i];
        }
        assert_eq!(yb.to_vec()?, want);
        // A sub-slice of a slice (elements 15..35 of the buffer).
        let mut ib = DeviceBuffer::<u32>::zeroed(100)?;
        let mut part = ib.slice_mut(10..);
        launch!(iota<<<1, 64>>>(part.slice_mut(5..25)))?;
        assert_eq!(ib.slice(15..35).to_vec()?, (1000..1020).collect::<Vec<u32>>());
        assert_eq!(ib.slice(0..15).to_vec()?, vec![0; 15]);
        assert_eq!(ib.slice(35..).to_vec()?, vec![0; 65]);
        // A writable buffer passed where `&[T]` is asked.
        let mut out = DeviceBuffer::<u32>::zeroed(100)?;
        launch!(copy_all<<<1, 128>>>(&mut ib, &mut out))?;
        assert_eq!(out.to_vec()?, ib.to_vec()?);
        Ok(())
    }));
}

#[test]
fn slices_are_written_where_they_start() {
    model().check(ok(|| {
        let mut b = DeviceBuffer::<u32>::zeroed(100)?;
        launch!(iota<<<1, 32>>>(b.slice_mut(40..50)))?;
        let v = b.to_vec()?;
        for (i, &e) in v.iter().enumerate() {
            let want = if (40..50).contains(&i) { (i - 40) as u32 + 1000 } else { 0 };
            assert_eq!(e, want, "element {i}");
        }
        Ok(())
    }));
}

#[test]
fn partial_copies_host_and_device_to_device() {
    let mut a = DeviceBuffer::from_slice(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut b = DeviceBuffer::<u32>::zeroed(32).unwrap();
    // cudaMemcpy(d_b + 8, d_a + 40, 16 * 4, cudaMemcpyDeviceToDevice)
    b.slice_mut(8..24).copy_from_device(a.slice(40..56)).unwrap();
    let mut want = vec![0u32; 32];
    for i in 0..16 {
        want[8 + i] = 40 + i as u32;
    }
    assert_eq!(b.to_vec().unwrap(), want);
    a.slice_mut(60..).copy_from_slice(&[7, 7, 7, 7]).unwrap();
    let mut out = [0u32; 6];
    a.slice(58..).copy_to_slice(&mut out).unwrap();
    assert_eq!(out, [58, 59, 7, 7, 7, 7]);
    let whole = DeviceBuffer::from_slice(&[9u32; 32]).unwrap();
    b.copy_from_device(whole.slice(..)).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![9; 32]);
    assert_eq!(b.slice_mut(0..3).copy_from_slice(&[1]).unwrap_err().code(), 1);
}

/// Reads every element of `x` into `out`.
#[kernel]
pub fn copy_all(x: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = x[i];
    }
}

#[test]
fn initcheck_sees_what_a_partial_copy_wrote() {
    let config = Config::default().checks(Checks { initcheck: true, ..Checks::default() });
    let mut src = DeviceBuffer::<u32>::uninit(64).unwrap();
    src.slice_mut(0..32).copy_from_slice(&[5; 32]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    // The written half reads clean.
    with_config(config.clone(), || launch!(copy_all<<<1, 32>>>(src.slice(0..32), out.slice_mut(0..32)))).unwrap();
    // The other half was never written: initcheck reports it, naming the parameter.
    let err =
        with_config(config.clone(), || launch!(copy_all<<<1, 32>>>(src.slice(32..), out.slice_mut(32..)))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __global__ memory read");
    assert_has(&text, "`x`");
    // A device-to-device copy carries the source's bits: copied from the unwritten half, the
    // destination is still unwritten.
    let mut dst = DeviceBuffer::<u32>::uninit(64).unwrap();
    dst.slice_mut(0..32).copy_from_device(src.slice(0..32)).unwrap();
    dst.slice_mut(32..).copy_from_device(src.slice(32..)).unwrap();
    with_config(config.clone(), || launch!(copy_all<<<1, 32>>>(dst.slice(0..32), out.slice_mut(0..32)))).unwrap();
    assert!(with_config(config, || launch!(copy_all<<<1, 32>>>(dst.slice(32..), out.slice_mut(32..)))).is_err());
}

#[test]
fn an_index_past_a_slice_is_out_of_bounds() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 100]).unwrap();
    let mut y = DeviceBuffer::from_slice(&[0.0f32; 100]).unwrap();
    // `y` is 20 long but `x` only 10: thread 10 reads past the end of the slice `x`, inside
    // the buffer, which a GPU would not notice; the emulator does.
    let err = launch!(axpy_part<<<1, 32>>>(1.0, x.slice(0..10), y.slice_mut(0..20))).unwrap_err();
    assert_eq!(err.code(), 700);
    assert_has(&err.to_string(), "Invalid __global__ read of size 4 bytes");
    assert_has(&err.to_string(), "by thread (10,0,0) in block (0,0,0)");
}

// ---------------------------------------------------------------------------------------------
// View::cast
// ---------------------------------------------------------------------------------------------

/// A byte histogram in shared memory cleared as `u32` words (a quarter of the stores), then
/// counted with `atomic_inc` through a `u32` view of the same bytes, then read as bytes.
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
        // One counter per word: `data[i] % 256` picks it; each wraps at 1000.
        words.atomic_inc(data[i] as usize % 256, 999);
    }
    sync_threads();
    if t < words.len() {
        out[block_idx().x as usize * 256 + t] = words[t];
        // The low byte of each little-endian word, read through the byte view.
        out[(grid_dim().x as usize + block_idx().x as usize) * 256 + t] = bytes[4 * t] as u32;
    }
}

#[test]
fn a_byte_array_cleared_and_counted_as_u32() {
    let n = 256 * 4;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    model().check(ok(|| {
        let db = DeviceBuffer::from_slice(&data)?;
        let mut out = DeviceBuffer::<u32>::zeroed(2 * 4 * 256)?;
        launch!(byte_counts<<<4, 256>>>(&db, &mut out))?;
        let got = out.to_vec()?;
        for b in 0..4 {
            let mut want = [0u32; 256];
            for &d in &data[b * 256..(b + 1) * 256] {
                want[d as usize % 256] += 1;
            }
            assert_eq!(&got[b * 256..(b + 1) * 256], &want[..], "block {b}");
            let low: Vec<u32> = want.iter().map(|w| w & 0xff).collect();
            assert_eq!(&got[(4 + b) * 256..(5 + b) * 256], &low[..], "block {b}, bytes");
        }
        Ok(())
    }));
}

/// Sums the `u32` words of a byte buffer (a cast of a `&[u8]` parameter).
#[kernel]
pub fn word_sum(bytes: &[u8], out: &mut [u32]) {
    let words = bytes.cast::<u32>();
    let t = thread_idx().x as usize;
    if t < words.len() {
        out.atomic_add(0, words[t]); // @misaligned read
    }
}

#[test]
fn a_cast_view_reads_words_and_a_misaligned_one_is_reported() {
    let bytes: Vec<u8> = (0..64u32).map(|i| (i * 7 + 3) as u8).collect();
    let want: u32 = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).fold(0, u32::wrapping_add);
    let b = DeviceBuffer::from_slice(&bytes).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    launch!(word_sum<<<1, 32>>>(&b, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![want]);
    // A slice from byte 4 is aligned: the words from the second one.
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    launch!(word_sum<<<1, 32>>>(b.slice(4..), &mut out)).unwrap();
    let want4: u32 =
        bytes[4..].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).fold(0, u32::wrapping_add);
    assert_eq!(out.to_vec().unwrap(), vec![want4]);
    // From byte 1 it is not: error 716, in compute-sanitizer's words.
    let err = launch!(word_sum<<<1, 32>>>(b.slice(1..), &mut out)).unwrap_err();
    assert_eq!(err.code(), 716);
    assert_eq!(err.name(), "cudaErrorMisalignedAddress");
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ read of size 4 bytes");
    assert_has(&text, &format!("tests/it/memory/memory_api.rs:{}", line_of("// @misaligned read")));
    assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
    assert_has(&text, &format!("Address {:#x} is misaligned", b.as_ptr() as usize + 1));
    assert_has(&text, "a cast view of `bytes`");
}

/// Shared `u32`s seen as `u64`s through an array cast.
#[kernel]
pub fn wide_shared_cast(out: &mut [u64]) {
    let words = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    let wide = words.cast::<[u32; 2]>().cast::<u64>();
    wide[t] = 1;
    sync_threads();
    out[t] = wide[t];
}

#[test]
fn an_aligned_wide_cast_of_shared_memory_works() {
    let mut out = DeviceBuffer::<u64>::zeroed(32).unwrap();
    launch!(wide_shared_cast<<<1, 32>>>(&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1; 32]);
}

// ---------------------------------------------------------------------------------------------
// #[constant]
// ---------------------------------------------------------------------------------------------

/// The taps of a 5-point filter, in constant memory; all zero until the host copies them.
#[constant]
static TAPS: [f32; 5] = [0.0; 5];

/// The scale and offset applied after the filter.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Affine {
    scale: f32,
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

fn filter5_reference(x: &[f32], taps: [f32; 5], a: Affine) -> Vec<f32> {
    (0..x.len())
        .map(|i| {
            let mut acc = 0.0f32;
            for (k, t) in taps.iter().enumerate() {
                let j = i + k;
                if j >= 2 && j - 2 < x.len() {
                    acc += t * x[j - 2];
                }
            }
            a.scale * acc + a.offset
        })
        .collect()
}

#[test]
fn constants_are_copied_to_and_read_by_kernels() {
    let x: Vec<f32> = (0..500).map(|i| (i as f32 * 0.37).sin()).collect();
    model().check(ok(|| {
        let xb = DeviceBuffer::from_slice(&x)?;
        let mut yb = DeviceBuffer::<f32>::zeroed(x.len())?;
        // Before any copy: the initial values (taps all zero, offset 0.5).
        copy_to_symbol(&TAPS, &[0.0; 5])?;
        copy_to_symbol(&AFFINE, &Affine { scale: 1.0, offset: 0.5 })?;
        launch!(filter5<<<4, 128>>>(&xb, &mut yb))?;
        assert_eq!(yb.to_vec()?, vec![0.5; x.len()]);
        let taps = [0.1, 0.2, 0.4, 0.2, 0.1];
        let affine = Affine { scale: 2.0, offset: -1.0 };
        copy_to_symbol(&TAPS, &taps)?;
        copy_to_symbol(&AFFINE, &affine)?;
        launch!(filter5<<<4, 128>>>(&xb, &mut yb))?;
        assert_eq!(yb.to_vec()?, filter5_reference(&x, taps, affine));
        let mut back = [0.0f32; 5];
        copy_from_symbol(&mut back, &TAPS)?;
        assert_eq!(back, taps);
        let mut a = Affine { scale: 0.0, offset: 0.0 };
        copy_from_symbol(&mut a, &AFFINE)?;
        assert_eq!(a, affine);
        Ok(())
    }));
}

// ---------------------------------------------------------------------------------------------
// #[device_global]
// ---------------------------------------------------------------------------------------------

/// How many elements fell in each of four classes: a `__device__ unsigned hits[4]`.
#[device_global]
static HITS: [u32; 4] = [0; 4];

#[kernel]
pub fn classify(x: &[u32]) {
    let hits = HITS.view();
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        hits.atomic_add(x[i] as usize % 4, 1);
    }
}

/// A running total kept in a device global across launches, read and written with plain
/// accesses by one thread.
#[device_global]
static TOTAL: [u64; 1] = [7];

#[kernel]
pub fn add_to_total(x: &[u32]) {
    let total = TOTAL.view();
    if block_idx().x == 0 && thread_idx().x == 0 {
        let mut i = 0;
        while i < x.len() {
            total[0] += x[i] as u64;
            i += 1;
        }
    }
}

#[test]
fn device_globals_are_read_and_written_by_kernels_and_copied_by_the_host() {
    let x: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2654435761) >> 3).collect();
    let mut want = [0u32; 4];
    for &v in &x {
        want[v as usize % 4] += 1;
    }
    model().check(ok(|| {
        let xb = DeviceBuffer::from_slice(&x)?;
        copy_to_symbol(&HITS, &[0; 4])?;
        launch!(classify<<<8, 128>>>(&xb))?;
        let mut hits = [0u32; 4];
        copy_from_symbol(&mut hits, &HITS)?;
        assert_eq!(hits, want);
        // The value persists between launches.
        launch!(classify<<<8, 128>>>(&xb))?;
        copy_from_symbol(&mut hits, &HITS)?;
        assert_eq!(hits, want.map(|w| 2 * w));
        Ok(())
    }));
    // The initial value, then two launches adding to it.
    let xb = DeviceBuffer::from_slice(&x[..10]).unwrap();
    let mut t = [0u64];
    copy_from_symbol(&mut t, &TOTAL).unwrap();
    assert_eq!(t, [7]);
    launch!(add_to_total<<<2, 32>>>(&xb)).unwrap();
    launch!(add_to_total<<<2, 32>>>(&xb)).unwrap();
    copy_from_symbol(&mut t, &TOTAL).unwrap();
    assert_eq!(t[0], 7 + 2 * x[..10].iter().map(|&v| v as u64).sum::<u64>());
}

/// Every thread writes the same device-global element: a write-write race.
#[device_global]
static LAST: [u32; 2] = [0; 2];

#[kernel]
pub fn everyone_writes_last(racy: bool, writer_block: u32) {
    let last = LAST.view();
    if racy || (thread_idx().x == 0 && block_idx().x == writer_block) {
        last[0] = thread_idx().x; // @last write
    }
}

#[test]
fn racecheck_sees_device_globals_and_names_them() {
    let config = Config::default().checks(Checks { racecheck: true, ..Checks::default() });
    // One writer per launch, in different blocks of two launches: no race (the records of
    // earlier launches do not count).
    with_config(config.clone(), || launch!(everyone_writes_last<<<2, 32>>>(false, 0))).unwrap();
    with_config(config.clone(), || launch!(everyone_writes_last<<<2, 32>>>(false, 1))).unwrap();
    let err = with_config(config, || launch!(everyone_writes_last<<<1, 32>>>(true, 0))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Race reported between Write access at");
    assert_has(&text, &format!("tests/it/memory/memory_api.rs:{}", line_of("// @last write")));
    assert_has(&text, "`LAST`");
}

/// An index past the end of a device global.
#[kernel]
pub fn past_hits() {
    let hits = HITS.view();
    let t = thread_idx().x as usize;
    hits.atomic_add(t, 0); // @past hits
}

#[test]
fn an_index_past_a_device_global_is_reported_with_its_name() {
    let err = launch!(past_hits<<<1, 8>>>()).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ atomic of size 4 bytes");
    assert_has(&text, "index 4 is past the end of `HITS`, which has 4 elements");
    assert_has(&text, &format!("tests/it/memory/memory_api.rs:{}", line_of("// @past hits")));
}

// ---------------------------------------------------------------------------------------------
// In-place kernels
// ---------------------------------------------------------------------------------------------

/// The in-place form of `y = 2x + 1`: one `&mut [T]` parameter, read and written (passing one
/// buffer as both `&[T]` and `&mut [T]` is a compile error that says so:
/// tests/ui/launch_buffer_twice.rs).
#[kernel]
pub fn twice_plus_one(data: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < data.len() {
        data[i] = 2.0 * data[i] + 1.0;
    }
}

#[test]
fn in_place_kernels_take_one_mutable_slice() {
    let x: Vec<f32> = (0..300).map(|i| i as f32 * 0.25).collect();
    model().check(ok(|| {
        let mut b = DeviceBuffer::from_slice(&x)?;
        launch!(twice_plus_one<<<3, 128>>>(&mut b))?;
        // And on a part only.
        launch!(twice_plus_one<<<1, 128>>>(b.slice_mut(100..200)))?;
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, v)| if (100..200).contains(&i) { 2.0 * (2.0 * v + 1.0) + 1.0 } else { 2.0 * v + 1.0 })
            .collect();
        assert_eq!(b.to_vec()?, want);
        Ok(())
    }));
}

#[test]
fn a_mutable_slice_is_also_a_read_only_argument() {
    let mut b = DeviceBuffer::from_slice(&[3u32; 64]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(16).unwrap();
    let part = b.slice_mut(8..24);
    launch!(copy_all<<<1, 32>>>(&part, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![3; 16]);
}
