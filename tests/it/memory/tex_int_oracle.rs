//! The integer-texture oracle: `tools/probes/p12_tex_int.cu` sampled 8- and 16-bit integer
//! textures (u8, i8, u16, i16; 1, 2 and 4 channels) on an H200, read as the element type and as
//! normalised floats, in every addressing mode, filter and coordinate normalisation, with
//! border colours of every kind (1-D and 2-D arrays, pitched 2-D memory, `tex1Dfetch` on
//! linear memory), and stored every input and result in `tests/data/tex_int_oracle.bin`; this
//! test replays each sample through the emulator's sampler (`deviceemu::texture::sampler`) and
//! compares the 32-bit lanes. `TEX_INT_ORACLE=file` reads another dump (the probe's
//! `tex_int_full16.bin` holds every u16 and i16 value converted).

use deviceemu::texture::sampler::{self, Texels};
use deviceemu::texture::{FilterMode, Format, TextureDesc};

use crate::common::dump::{mode, Reader};

const FORMATS: [Format; 4] = [Format::U8, Format::I8, Format::U16, Format::I16];

/// Channel values of raw little-endian texel bytes, exactly, as f32.
fn values(format: Format, bytes: &[u8]) -> Vec<f32> {
    match format {
        Format::U8 => bytes.iter().map(|&b| b as f32).collect(),
        Format::I8 => bytes.iter().map(|&b| b as i8 as f32).collect(),
        Format::U16 => bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]) as f32).collect(),
        Format::I16 => bytes.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as f32).collect(),
        Format::F32 => unreachable!("the probe has no float texels"),
    }
}

/// One record of the dump, with the emulator's lanes next to the device's.
struct Record {
    name: String,
    /// i8 texels read as normalised floats with linear filtering: the one path the emulator
    /// does not reproduce bit for bit (within one unit of 1/32767).
    i8_linear: bool,
    coords: Vec<(f32, f32, i32)>,
    channels: usize,
    device: Vec<u32>,
    emulated: Vec<u32>,
}

fn replay(bytes: &[u8]) -> Vec<Record> {
    let mut r = Reader { b: bytes, at: 0 };
    assert_eq!(&bytes[..4], b"TEXI", "not an integer-texture oracle dump");
    r.at = 4;
    assert_eq!(r.u32(), 1, "dump version");
    let count = r.u32();
    let mut out = Vec::new();
    for _ in 0..count {
        let name = String::from_utf8_lossy(&bytes[r.at..r.at + 32]).trim_end_matches('\0').to_string();
        r.at += 32;
        let [kind, format, channels, width, height, pitch, ax, ay, filter, norm, read] =
            std::array::from_fn(|_| r.u32());
        let border = [r.f32(), r.f32(), r.f32(), r.f32()];
        let n_bytes = r.u32() as usize;
        let raw = &bytes[r.at..r.at + n_bytes];
        r.at += n_bytes.div_ceil(4) * 4;
        let format = FORMATS[format as usize];
        let data = values(format, raw);
        let n = r.u32() as usize;
        let coords: Vec<(f32, f32, i32)> = (0..n)
            .map(|_| match kind {
                0 => (0.0, 0.0, r.u32() as i32),
                1 => (r.f32(), 0.0, 0),
                _ => (r.f32(), r.f32(), 0),
            })
            .collect();
        let device: Vec<u32> = (0..n * channels as usize).map(|_| r.u32()).collect();
        let desc = TextureDesc::new()
            .address_xy(mode(ax), mode(ay))
            .filter(if filter == 1 { FilterMode::Linear } else { FilterMode::Point })
            .normalized(norm == 1)
            // An element-type read of integers samples the border colour's low bits.
            .border(if read == 1 { border } else { border.map(|b| sampler::element_border(format, b)) });
        let t = Texels {
            data: &data,
            channels: channels as usize,
            width: width as usize,
            height: height as usize,
            pitch: pitch as usize,
        };
        let mut emulated = Vec::with_capacity(device.len());
        for &(x, y, i) in &coords {
            let v = match (kind, read == 1) {
                (0, false) => sampler::fetch_1d(&t, i),
                (1, false) => sampler::sample_1d(&t, &desc, x),
                (_, false) => sampler::sample_2d(&t, &desc, x, y),
                (0, true) => sampler::fetch_1d_normalized(&t, format, i),
                (1, true) => sampler::sample_1d_normalized(&t, format, &desc, x),
                (_, true) => sampler::sample_2d_normalized(&t, format, &desc, x, y),
            };
            for c in &v[..channels as usize] {
                emulated.push(if read == 1 { c.to_bits() } else { sampler::element_lane(format, *c) });
            }
        }
        let i8_linear = format == Format::I8 && read == 1 && filter == 1;
        out.push(Record { name, i8_linear, coords, channels: channels as usize, device, emulated });
    }
    assert_eq!(r.at, bytes.len(), "trailing bytes in the dump");
    out
}

#[test]
fn integer_textures_match_the_h200_bit_for_bit() {
    let path = std::env::var("TEX_INT_ORACLE")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tex_int_oracle.bin").to_string());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let records = replay(&bytes);
    let (mut total, mut bad) = (0usize, 0usize);
    let (mut i8_total, mut i8_bad) = (0usize, 0usize);
    for rec in &records {
        let c = rec.channels;
        let diffs: Vec<usize> = (0..rec.coords.len())
            .filter(|&k| (0..c).any(|j| rec.device[k * c + j] != rec.emulated[k * c + j]))
            .collect();
        println!("{:<32} {:>6} samples {:>6} differences", rec.name, rec.coords.len(), diffs.len());
        for &k in diffs.iter().take(6) {
            let (x, y, i) = rec.coords[k];
            let show = |v: &[u32]| {
                v.iter().map(|b| format!("{b:#010x} ({:e})", f32::from_bits(*b))).collect::<Vec<_>>().join(", ")
            };
            println!(
                "    x {x:e} y {y:e} i {i}: device [{}] emulator [{}]",
                show(&rec.device[k * c..k * c + c]),
                show(&rec.emulated[k * c..k * c + c])
            );
        }
        if rec.i8_linear {
            // Within one unit of 1/32767 of the device (the 16-bit signed grid it rounds to).
            for (d, e) in rec.device.iter().zip(&rec.emulated) {
                let (d, e) = (f32::from_bits(*d) as f64, f32::from_bits(*e) as f64);
                assert!(((d - e) * 32767.0).abs() < 1.01, "{}: device {d} emulator {e}", rec.name);
            }
            i8_total += rec.coords.len();
            i8_bad += diffs.len();
        } else {
            total += rec.coords.len();
            bad += diffs.len();
        }
    }
    println!("TOTAL {total} samples in {} records, {bad} differences", records.len());
    println!("i8 linear: {i8_total} samples, {i8_bad} off by one unit of 1/32767");
    assert!(total > 10_000, "the dump holds only {total} samples");
    assert_eq!(bad, 0, "the sampler differs from the H200 on {bad} of {total} samples");
    // The known gap (RESULTS.md section 12): at most the 203 of the recorded dump.
    assert!(i8_bad * 100 <= i8_total * 7, "i8 linear: {i8_bad} of {i8_total} samples differ");
}
