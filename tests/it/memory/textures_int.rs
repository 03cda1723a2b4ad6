//! 8- and 16-bit integer textures through `#[kernel]` launches: element-type reads
//! (`Texture<u8>`, `Texture<[u8; 4]>`, ... from `TextureObject::linear` / `array_*` /
//! `pitch_2d` over integer texels) against the texels themselves, normalised-float reads
//! (`TextureObject::*_normalized`, a `Texture<f32>` over `u8` texels) against the H200's
//! conversion and 16-bit integer filter, border colours in both modes, and what CUDA refuses
//! (linear filtering of an element-type read).

use crate::common;
#[path = "../../../examples/textures_int.rs"]
#[allow(dead_code, unreachable_pub)] // the example's items are `pub` for its own `main`
pub(crate) mod textures_int_example;

use crate::common::assert_has;
use deviceemu::prelude::*;
use deviceemu::texture::{AddressMode as A, FilterMode as F, ReadMode};
use textures_int_example::*;

/// The guide's addressing of texel index `i` on an axis of `n` (None: the border colour).
fn index(i: i64, n: i64, mode: A, normalized: bool) -> Option<usize> {
    match (mode, normalized) {
        (A::Border, _) => (0 <= i && i < n).then_some(i as usize),
        (A::Wrap, true) => Some(i.rem_euclid(n) as usize),
        (A::Mirror, true) => {
            let (period, k) = (i.div_euclid(n), i.rem_euclid(n));
            Some(if period % 2 == 0 { k } else { n - 1 - k } as usize)
        }
        _ => Some(i.clamp(0, n - 1) as usize),
    }
}

#[test]
fn element_type_fetches_return_the_integers() {
    let u: Vec<u8> = (0..=255).collect();
    let buf = DeviceBuffer::from_slice(&u).unwrap();
    let t = TextureObject::linear(&buf, TextureDesc::new()).unwrap();
    assert_eq!(t.read_mode(), ReadMode::ElementType);
    let mut out = DeviceBuffer::<u8>::zeroed(260).unwrap();
    launch!(fetch_u8<<<2, 256>>>(t.texture(), -2, &mut out)).unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(&got[..2], &[0, 0], "before the buffer");
    assert_eq!(&got[2..258], &u[..]);
    assert_eq!(&got[258..], &[0, 0], "past the buffer");

    let s: Vec<i16> = (0..1000).map(|k| (k * 67 - 32768) as i16).collect();
    let buf = DeviceBuffer::from_slice(&s).unwrap();
    let t = TextureObject::linear(&buf, TextureDesc::new()).unwrap();
    let mut out = DeviceBuffer::<i16>::zeroed(1000).unwrap();
    launch!(fetch_i16<<<4, 256>>>(t.texture(), 0, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), s);
}

#[test]
fn element_type_samples_address_like_float_textures() {
    // 8 texels: the coordinates (quarter texels, divided by 8 when normalised) are exact.
    let texels: Vec<i8> = vec![-128, -1, 0, 1, 127, 42, -77, 5];
    let n = texels.len();
    for normalized in [false, true] {
        for m in [A::Wrap, A::Clamp, A::Mirror, A::Border] {
            let d = TextureDesc::new().address(m).normalized(normalized).border([0.0; 4]);
            let t = TextureObject::array_1d(&texels, d).unwrap();
            let xs: Vec<f32> = (-2 * n as i32 * 4..3 * n as i32 * 4)
                .map(|k| k as f32 / 4.0 / if normalized { n as f32 } else { 1.0 })
                .collect();
            let xb = DeviceBuffer::from_slice(&xs).unwrap();
            let mut out = DeviceBuffer::<i8>::zeroed(xs.len()).unwrap();
            launch!(sample_1d_i8<<<1, 256>>>(t.texture(), &xb, &mut out)).unwrap();
            for (x, g) in xs.iter().zip(out.to_vec().unwrap()) {
                let i = (if normalized { x * n as f32 } else { *x }).floor() as i64;
                let want = index(i, n as i64, m, normalized).map_or(0, |i| texels[i]);
                assert_eq!(g, want, "{m:?} normalized {normalized} x = {x}");
            }
        }
    }
}

#[test]
fn rgba_images_read_as_bytes_or_as_unit_floats() {
    let (w, h) = (3usize, 2usize);
    let image: Vec<[u8; 4]> = (0..w * h).map(|k| [k as u8 * 40, 255 - k as u8, 0, 255]).collect();
    let xs: Vec<f32> = (0..w * h).map(|k| (k % w) as f32 + 0.5).collect();
    let ys: Vec<f32> = (0..w * h).map(|k| (k / w) as f32 + 0.5).collect();
    let (xb, yb) = (DeviceBuffer::from_slice(&xs).unwrap(), DeviceBuffer::from_slice(&ys).unwrap());
    // As bytes, from an array and from pitched memory (rows of 8 texels: 32 bytes).
    let pitch = deviceemu::pitch_for::<[u8; 4]>(w);
    assert_eq!(pitch, 8);
    let mut padded = vec![[9u8; 4]; pitch * h];
    for j in 0..h {
        padded[j * pitch..j * pitch + w].copy_from_slice(&image[j * w..(j + 1) * w]);
    }
    let pbuf = DeviceBuffer::from_slice(&padded).unwrap();
    for pitched in [false, true] {
        let t = if pitched {
            TextureObject::pitch_2d(&pbuf, w, h, pitch, TextureDesc::new()).unwrap()
        } else {
            TextureObject::array_2d(w, h, &image, TextureDesc::new()).unwrap()
        };
        let mut out = DeviceBuffer::<[u8; 4]>::zeroed(w * h).unwrap();
        launch!(sample_2d_u8x4<<<1, 32>>>(t.texture(), &xb, &yb, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), image, "pitched {pitched}");
    }
    // As floats in [0, 1], the same texels.
    let t = TextureObject::array_2d_normalized(w, h, &image, TextureDesc::new()).unwrap();
    assert_eq!(t.read_mode(), ReadMode::NormalizedFloat);
    let mut out = DeviceBuffer::<[f32; 4]>::zeroed(w * h).unwrap();
    launch!(textures_int_example::textures_example::sample_each_2d_x4<<<1, 32>>>(t.texture(), &xb, &yb, &mut out))
        .unwrap();
    for (g, px) in out.to_vec().unwrap().into_iter().zip(&image) {
        assert_eq!(g, px.map(|c| deviceemu::texture::sampler::normalized(deviceemu::texture::Format::U8, c as f32)));
        assert_eq!(g[3], 1.0);
    }
}

#[test]
fn normalised_reads_span_the_unit_interval() {
    use deviceemu::texture::sampler::normalized;
    use deviceemu::texture::Format;
    // The ends of each format's range.
    assert_eq!((normalized(Format::U8, 0.0), normalized(Format::U8, 255.0)), (0.0, 1.0));
    assert_eq!((normalized(Format::U16, 0.0), normalized(Format::U16, 65535.0)), (0.0, 1.0));
    assert_eq!((normalized(Format::I8, 127.0), normalized(Format::I8, -127.0)), (1.0, -1.0));
    assert_eq!((normalized(Format::I16, 32767.0), normalized(Format::I16, -32767.0)), (1.0, -1.0));
    // The most negative value clamps to -1 (it would be -128/127 otherwise).
    assert_eq!(normalized(Format::I8, -128.0), -1.0);
    assert_eq!(normalized(Format::I16, -32768.0), -1.0);
    // Through a kernel: tex1Dfetch of every u8 value.
    let u: Vec<u8> = (0..=255).collect();
    let buf = DeviceBuffer::from_slice(&u).unwrap();
    let t = TextureObject::linear_normalized(&buf, TextureDesc::new()).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(256).unwrap();
    launch!(textures_int_example::textures_example::fetch_each<<<1, 256>>>(t.texture(), 0, &mut out)).unwrap();
    let got = out.to_vec().unwrap();
    assert!(got.windows(2).all(|p| p[0] < p[1]), "increasing");
    assert_eq!((got[0], got[255]), (0.0, 1.0));
}

#[test]
fn linear_filtering_blends_in_sixteen_bit_integers() {
    // Texels 0 and 255 read as 0.0 and 1.0, but the H200 filters u8 as unorm16 (255 is 65535)
    // and rounds the blend to a 16-bit integer: weight k/256 reads round(65535 k / 256) / 65535,
    // not k/256 (probe 12, `blend1d_u8`: 0.2500038 at k = 64).
    let texels = [0u8, 255, 0];
    let d = TextureDesc::new().filter(F::Linear);
    let t = TextureObject::array_1d_normalized(&texels, d).unwrap();
    let xs: Vec<f32> = (0..256).map(|k| 0.5 + k as f32 / 256.0).collect();
    let xb = DeviceBuffer::from_slice(&xs).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(256).unwrap();
    launch!(textures_int_example::textures_example::sample_each_1d<<<1, 256>>>(t.texture(), &xb, &mut out)).unwrap();
    for (k, g) in out.to_vec().unwrap().into_iter().enumerate() {
        let x = (65535 * k as u64 + 128) / 256;
        assert_eq!(g, (x as f64 / 65535.0) as f32, "weight {k}/256");
    }
    assert_eq!(f32::to_bits(out.to_vec().unwrap()[64]), 0x3e80_0080);
}

#[test]
fn linear_filtering_of_an_element_type_read_is_refused() {
    let d = TextureDesc::new().filter(F::Linear);
    // cudaErrorInvalidFilterSetting, as cudaCreateTextureObject answers on the H200.
    let e = TextureObject::array_1d(&[1u8, 2], d).unwrap_err();
    assert_eq!((e.code(), e.name()), (26, "cudaErrorInvalidFilterSetting"));
    assert_has(&e.to_string(), "linear filtering of u8 texels needs a normalised-float read");
    let e = TextureObject::array_2d(1, 2, &[[1i16; 2]; 2], d).unwrap_err();
    assert_has(&e.to_string(), "of i16 texels");
    let buf = DeviceBuffer::from_slice(&[0u16; 64]).unwrap();
    assert_eq!(TextureObject::linear(&buf, d).unwrap_err().code(), 26);
    assert_eq!(TextureObject::pitch_2d(&buf, 16, 4, 16, d).unwrap_err().code(), 26);
    // Point filtering, or a normalised read, is fine; and float texels filter linearly.
    assert!(TextureObject::pitch_2d(&buf, 16, 4, 16, TextureDesc::new()).is_ok());
    assert!(TextureObject::pitch_2d_normalized(&buf, 16, 4, 16, d).is_ok());
    assert!(TextureObject::array_1d(&[1.0f32, 2.0], d).is_ok());
}

#[test]
fn border_colours_are_texels_of_the_format() {
    let d = TextureDesc::new().address(A::Border).border([0.5, 7.25, -1.0, 0.999]);
    let xb = DeviceBuffer::from_slice(&[-1.0f32]).unwrap();
    let yb = DeviceBuffer::from_slice(&[0.5f32]).unwrap();
    // Normalised: clamped, quantised to the format (0.5 on u8 is 127/255, ties toward zero).
    let t = TextureObject::array_2d_normalized(1, 1, &[[9u8; 4]], d).unwrap();
    let mut out = DeviceBuffer::<[f32; 4]>::zeroed(1).unwrap();
    launch!(textures_int_example::textures_example::sample_each_2d_x4<<<1, 1>>>(t.texture(), &xb, &yb, &mut out))
        .unwrap();
    assert_eq!(out.to_vec().unwrap()[0], [127.0 / 255.0, 1.0, 0.0, 1.0]);
    // As integers: the low bits of the colour's f32 bits (0.999 is 0x3f7fbe77).
    let t = TextureObject::array_2d(1, 1, &[[9u16; 4]], d).unwrap();
    let mut out = DeviceBuffer::<[u16; 4]>::zeroed(1).unwrap();
    launch!(sample_2d_u16x4<<<1, 1>>>(t.texture(), &xb, &yb, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap()[0], [0, 0, 0, 0xbe77]);
}

#[test]
fn pitches_count_bytes_of_the_stored_texels() {
    let buf = DeviceBuffer::from_slice(&[0u8; 256]).unwrap();
    // 20 bytes a row is not a multiple of 32; 32 is.
    assert_has(
        &TextureObject::pitch_2d_normalized(&buf, 20, 4, 20, TextureDesc::new()).unwrap_err().to_string(),
        "multiple of 32",
    );
    assert_eq!(deviceemu::pitch_for::<u8>(20), 32);
    assert!(TextureObject::pitch_2d_normalized(&buf, 20, 4, 32, TextureDesc::new()).is_ok());
}

#[test]
fn a_read_of_another_type_fails_the_kernel() {
    // The emulator's check: a handle of a u8 texture read as i8 (through `from_handle`).
    common::in_emulator(|| {
        let t = TextureObject::array_1d(&[1u8, 2], TextureDesc::new()).unwrap();
        let wrong = deviceemu::texture::Texture::<i8>::from_handle(t.texture().handle());
        let xb = DeviceBuffer::from_slice(&[0.5f32]).unwrap();
        let mut out = DeviceBuffer::<i8>::zeroed(1).unwrap();
        let e = deviceemu::quietly(|| launch!(sample_1d_i8<<<1, 1>>>(wrong, &xb, &mut out))).unwrap_err();
        assert_has(&e.to_string(), "does not match its object: the kernel reads a Texture<i8>, the object gives u8");
    });
}
