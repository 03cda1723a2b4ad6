//! Textures in kernels: `fetch` (`tex1Dfetch`), `sample_1d` (`tex1D`) and `sample_2d`
//! (`tex2D`) through `#[kernel]` launches, against a CPU reference written here from the CUDA
//! programming guide's formulas (not the emulator's sampler): every addressing mode, both
//! filters, normalised and unnormalised coordinates, pitched memory and arrays, 1, 2 and 4
//! channels; and the misuse the emulator reports (a dead handle, a read the object does not
//! allow, a misaligned pitch).
//!
//! Coordinates and texel values are chosen so that the reference's plain f32 arithmetic is
//! exact (dyadic coordinates, small-integer texels), so any difference is a wrong texel or
//! weight, not rounding.

use crate::common;
// examples/textures.rs, loaded once in this binary: by examples/textures_int.rs, which
// `memory::textures_int` loads.
use super::textures_int::textures_int_example::textures_example;

use crate::common::assert_has;
use deviceemu::prelude::*;
use deviceemu::texture::{AddressMode as A, FilterMode as F};
use textures_example::*;

const MODES: [A; 4] = [A::Wrap, A::Clamp, A::Mirror, A::Border];
const BORDER: f32 = -7.0;

/// The guide's addressing of texel index `i` on an axis of `n` (None: the border colour).
/// Wrap and mirror act as clamp with unnormalised coordinates.
fn reference_index(i: i64, n: i64, mode: A, normalized: bool) -> Option<usize> {
    match (mode, normalized) {
        (A::Border, _) => (0 <= i && i < n).then_some(i as usize),
        (A::Wrap, true) => Some(i.rem_euclid(n) as usize),
        (A::Mirror, true) => {
            // Even periods forwards, odd ones backwards.
            let (period, k) = (i.div_euclid(n), i.rem_euclid(n));
            Some(if period % 2 == 0 { k } else { n - 1 - k } as usize)
        }
        _ => Some(i.clamp(0, n - 1) as usize),
    }
}

/// Reference tex1D / tex2D axis: `(i0, i1, weight of i1)` for coordinate `c`.
fn reference_axis(c: f32, n: usize, mode: A, d: &TextureDesc) -> (Option<usize>, Option<usize>, f32) {
    let x = if d.normalized { c * n as f32 } else { c };
    match d.filter {
        F::Point => {
            let i = reference_index(x.floor() as i64, n as i64, mode, d.normalized);
            (i, i, 0.0)
        }
        F::Linear => {
            let xb = x - 0.5;
            let i = xb.floor();
            let alpha = xb - i;
            let i = i as i64;
            (
                reference_index(i, n as i64, mode, d.normalized),
                reference_index(i + 1, n as i64, mode, d.normalized),
                alpha,
            )
        }
    }
}

/// The H200 samples a 1-D texture as a 2-D one of height 1 at `y = 0`: with linear filtering,
/// halfway between row 0 and row -1, which is row 0 again except in border mode, where it is
/// the border colour (measured; the guide's textures chapter).
fn reference_1d(texels: &[f32], d: &TextureDesc, x: f32) -> f32 {
    let get = |i: Option<usize>| i.map_or(d.border[0], |i| texels[i]);
    let (i0, i1, a) = reference_axis(x, texels.len(), d.address[0], d);
    let row0 = (1.0 - a) * get(i0) + a * get(i1);
    match (d.filter, d.address[1]) {
        (F::Linear, A::Border) => 0.5 * d.border[0] + 0.5 * row0,
        _ => row0,
    }
}

fn reference_2d(texels: &[f32], w: usize, h: usize, d: &TextureDesc, x: f32, y: f32) -> f32 {
    let get = |i: Option<usize>, j: Option<usize>| match (i, j) {
        (Some(i), Some(j)) => texels[j * w + i],
        _ => d.border[0],
    };
    let (i0, i1, a) = reference_axis(x, w, d.address[0], d);
    let (j0, j1, b) = reference_axis(y, h, d.address[1], d);
    (1.0 - b) * ((1.0 - a) * get(i0, j0) + a * get(i1, j0)) + b * ((1.0 - a) * get(i0, j1) + a * get(i1, j1))
}

fn all_descs() -> Vec<TextureDesc> {
    let mut v = Vec::new();
    for normalized in [false, true] {
        for filter in [F::Point, F::Linear] {
            for m in MODES {
                v.push(TextureDesc::new().address(m).filter(filter).normalized(normalized).border([BORDER; 4]));
            }
        }
    }
    v
}

/// Coordinates every 1/8 texel over `[-2n, 3n]`, divided by `n` when normalised (n is a power
/// of two, so the division is exact).
fn grid(n: usize, normalized: bool) -> Vec<f32> {
    (-16 * n as i32..=24 * n as i32).map(|k| k as f32 / 8.0 / if normalized { n as f32 } else { 1.0 }).collect()
}

fn run_1d(texels: &[f32], d: TextureDesc, xs: &[f32]) -> Vec<f32> {
    let t = TextureObject::array_1d(texels, d).unwrap();
    let xb = DeviceBuffer::from_slice(xs).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(xs.len()).unwrap();
    launch!(sample_each_1d<<<(xs.len() as u32).div_ceil(128), 128>>>(t.texture(), &xb, &mut out)).unwrap();
    out.to_vec().unwrap()
}

#[test]
fn fetch_reads_the_buffer_and_zero_outside_it() {
    let data: Vec<f32> = (0..100).map(|i| i as f32 * 1.5 - 20.0).collect();
    let buf = DeviceBuffer::from_slice(&data).unwrap();
    let t = TextureObject::linear(&buf, TextureDesc::new()).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(140).unwrap();
    launch!(fetch_each<<<2, 128>>>(t.texture(), -20, &mut out)).unwrap();
    let got = out.to_vec().unwrap();
    for (k, v) in got.iter().enumerate() {
        let i = k as i64 - 20;
        let want = if (0..100).contains(&i) { data[i as usize] } else { 0.0 };
        assert_eq!(*v, want, "fetch({i})");
    }
}

#[test]
fn tex1d_matches_the_reference_in_every_mode_and_filter() {
    let texels: Vec<f32> = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0].to_vec();
    for d in all_descs() {
        let xs = grid(texels.len(), d.normalized);
        let got = run_1d(&texels, d, &xs);
        for (x, g) in xs.iter().zip(&got) {
            assert_eq!(*g, reference_1d(&texels, &d, *x), "{d:?} at x = {x}");
        }
    }
}

#[test]
fn linear_weights_have_eight_fractional_bits() {
    // Texel i holds 256 i, so a sample is 256 i + 256 alpha: alpha's bits, exactly. The
    // coordinate is rounded to 1/256 with ties upwards.
    let texels: Vec<f32> = (0..8).map(|i| 256.0 * i as f32).collect();
    let d = TextureDesc::new().filter(F::Linear);
    let xs: Vec<f32> = (0..4096).map(|k| 2.5 + k as f32 / 4096.0).collect();
    let got = run_1d(&texels, d, &xs);
    for (x, g) in xs.iter().zip(&got) {
        let alpha = ((x - 2.5) * 256.0 + 0.5).floor();
        assert_eq!(*g, 512.0 + alpha, "x = {x}");
    }
}

#[test]
fn tex2d_on_arrays_and_pitched_memory_matches_the_reference() {
    let (w, h) = (4usize, 8usize);
    let texels: Vec<f32> = (0..w * h).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let pitch = deviceemu::pitch_for::<f32>(w);
    assert_eq!(pitch, 8, "rows of 4 f32 are padded to 32 bytes");
    let mut padded = vec![1000.0f32; pitch * h];
    for j in 0..h {
        padded[j * pitch..j * pitch + w].copy_from_slice(&texels[j * w..(j + 1) * w]);
    }
    let buf = DeviceBuffer::from_slice(&padded).unwrap();
    for d in all_descs()
        .into_iter()
        .chain([TextureDesc::new().address_xy(A::Wrap, A::Border).normalized(true).filter(F::Linear)])
    {
        let (gx, gy) = (grid(w, d.normalized), grid(h, d.normalized));
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for (k, x) in gx.iter().enumerate() {
            for y in gy.iter().skip(k % 5).step_by(5) {
                xs.push(*x);
                ys.push(*y);
            }
        }
        let (xb, yb) = (DeviceBuffer::from_slice(&xs).unwrap(), DeviceBuffer::from_slice(&ys).unwrap());
        for pitched in [false, true] {
            let t = if pitched {
                TextureObject::pitch_2d(&buf, w, h, pitch, d).unwrap()
            } else {
                TextureObject::array_2d(w, h, &texels, d).unwrap()
            };
            let mut out = DeviceBuffer::<f32>::zeroed(xs.len()).unwrap();
            launch!(sample_each_2d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out)).unwrap();
            for ((x, y), g) in xs.iter().zip(&ys).zip(out.to_vec().unwrap()) {
                assert_eq!(g, reference_2d(&texels, w, h, &d, *x, *y), "{d:?} pitched {pitched} at ({x}, {y})");
            }
        }
    }
}

#[test]
fn channels_are_sampled_together() {
    let (w, h) = (4usize, 2usize);
    let texels: Vec<[f32; 4]> = (0..w * h).map(|i| [i as f32, -(i as f32), 2.0 * i as f32, 100.0]).collect();
    let d = TextureDesc::new().filter(F::Linear).address(A::Border).border([-1.0, -2.0, -3.0, -4.0]);
    let t = TextureObject::array_2d(w, h, &texels, d).unwrap();
    let xs = [1.0f32, 2.25, -0.5, 3.75];
    let ys = [0.5f32, 1.0, 0.5, 1.5];
    let (xb, yb) = (DeviceBuffer::from_slice(&xs).unwrap(), DeviceBuffer::from_slice(&ys).unwrap());
    let mut out = DeviceBuffer::<[f32; 4]>::zeroed(4).unwrap();
    launch!(sample_each_2d_x4<<<1, 32>>>(t.texture(), &xb, &yb, &mut out)).unwrap();
    for (k, v) in out.to_vec().unwrap().into_iter().enumerate() {
        for c in 0..4 {
            let plane: Vec<f32> = texels.iter().map(|t| t[c]).collect();
            let dc = TextureDesc { border: [d.border[c]; 4], ..d };
            assert_eq!(v[c], reference_2d(&plane, w, h, &dc, xs[k], ys[k]), "sample {k} channel {c}");
        }
    }
    let t2: Vec<[f32; 2]> = vec![[0.0, 10.0], [4.0, 20.0]];
    let tex = TextureObject::array_1d(&t2, TextureDesc::new().filter(F::Linear)).unwrap();
    let xb = DeviceBuffer::from_slice(&[1.0f32, 1.25]).unwrap();
    let mut out = DeviceBuffer::<[f32; 2]>::zeroed(2).unwrap();
    launch!(sample_each_1d_x2<<<1, 2>>>(tex.texture(), &xb, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![[2.0, 15.0], [3.0, 17.5]]);
}

#[test]
fn upscale_example_blends_at_pixel_centres() {
    let image = [0.0f32, 10.0, 20.0, 30.0];
    let d = TextureDesc::new().filter(F::Linear).normalized(true);
    let t = TextureObject::array_2d(2, 2, &image, d).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(16).unwrap();
    launch!(upscale<<<1, (4, 4)>>>(t.texture(), 4, 4, &mut out)).unwrap();
    let got = out.to_vec().unwrap();
    // Output pixel (1, 1) is at texture coordinate (0.375, 0.375) * 2 - 0.5 = 0.25 past texel 0.
    assert_eq!(got[4 + 1], 0.75 * (0.75 * 0.0 + 0.25 * 10.0) + 0.25 * (0.75 * 20.0 + 0.25 * 30.0));
    assert_eq!(got[0], 0.0);
    assert_eq!(got[15], 30.0);
}

#[test]
fn a_dropped_texture_object_fails_the_kernel() {
    // The emulator's check, in the emulator: on the GPU a destroyed texture object's use is
    // undefined (nothing reports it).
    common::in_emulator(|| {
        let t = TextureObject::array_1d(&[1.0f32, 2.0], TextureDesc::new()).unwrap();
        let handle = t.texture();
        drop(t);
        let xb = DeviceBuffer::from_slice(&[0.5f32]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
        let e = deviceemu::quietly(|| launch!(sample_each_1d<<<1, 1>>>(handle, &xb, &mut out))).unwrap_err();
        assert_has(&e.to_string(), "was used after its TextureObject was dropped");
        // A live object still works after another was dropped.
        let live = TextureObject::array_1d(&[5.0f32, 6.0], TextureDesc::new()).unwrap();
        launch!(sample_each_1d<<<1, 1>>>(live.texture(), &xb, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![5.0]);
    });
}

#[test]
fn a_read_the_object_does_not_allow_fails_the_kernel() {
    // The emulator's check, in the emulator: on the GPU, `tex1Dfetch` on an array is undefined.
    common::in_emulator(|| {
        let t = TextureObject::array_1d(&[1.0f32, 2.0], TextureDesc::new()).unwrap();
        let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
        let e = deviceemu::quietly(|| launch!(fetch_each<<<1, 1>>>(t.texture(), 0, &mut out))).unwrap_err();
        assert_has(&e.to_string(), "does not match its object: the object is over a 1-D array");
        assert_has(&e.to_string(), "fetch_each");
    });
}

#[test]
fn bad_shapes_are_invalid_values() {
    let buf = DeviceBuffer::from_slice(&[0.0f32; 64]).unwrap();
    let e = TextureObject::pitch_2d(&buf, 5, 4, 5, TextureDesc::new()).unwrap_err();
    assert_eq!(e.code(), 1);
    assert_has(&e.to_string(), "multiple of 32");
    let e = TextureObject::pitch_2d(&buf, 8, 9, 8, TextureDesc::new()).unwrap_err();
    assert_has(&e.to_string(), "needs 72 elements; the buffer has 64");
    assert!(TextureObject::pitch_2d(&buf, 8, 8, 8, TextureDesc::new()).is_ok());
    assert_eq!(TextureObject::array_2d(3, 3, &[0.0f32; 8], TextureDesc::new()).unwrap_err().code(), 1);
    assert_eq!(TextureObject::<f32>::array_1d(&[], TextureDesc::new()).unwrap_err().code(), 1);
}
