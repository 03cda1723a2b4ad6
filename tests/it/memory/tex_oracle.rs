//! The texture oracle: `tools/probes/p10_textures.cu` sampled textures on an H200 in every
//! addressing mode, filter and coordinate normalisation (1-D and 2-D CUDA arrays, pitched 2-D
//! memory, `tex1Dfetch` on linear memory, 1, 2 and 4 channels) and stored every input and
//! result in `tests/data/tex_oracle.bin`; this test replays each sample through the emulator's
//! sampler (`deviceemu::texture::sampler`) and compares the bits. `TEX_ORACLE=file` reads
//! another dump.

use deviceemu::texture::sampler::{self, Texels};
use deviceemu::texture::{FilterMode, TextureDesc};

use crate::common::dump::{mode, Reader};

/// One record of the dump, with the emulator's results next to the device's.
struct Record {
    name: String,
    kind: u32,
    desc: TextureDesc,
    channels: usize,
    coords: Vec<(f32, f32, i32)>,
    device: Vec<f32>,
    emulated: Vec<f32>,
}

fn replay(bytes: &[u8]) -> Vec<Record> {
    let mut r = Reader { b: bytes, at: 0 };
    assert_eq!(&bytes[..4], b"TEXO", "not a texture oracle dump");
    r.at = 4;
    assert_eq!(r.u32(), 1, "dump version");
    let count = r.u32();
    let mut out = Vec::new();
    for _ in 0..count {
        let name = String::from_utf8_lossy(&bytes[r.at..r.at + 32]).trim_end_matches('\0').to_string();
        r.at += 32;
        let [kind, channels, width, height, pitch, ax, ay, filter, norm] = std::array::from_fn(|_| r.u32());
        let border = [r.f32(), r.f32(), r.f32(), r.f32()];
        let n_tex = r.u32() as usize;
        let data = r.f32s(n_tex);
        let n = r.u32() as usize;
        let coords: Vec<(f32, f32, i32)> = (0..n)
            .map(|_| match kind {
                0 => (0.0, 0.0, r.u32() as i32),
                1 => (r.f32(), 0.0, 0),
                _ => (r.f32(), r.f32(), 0),
            })
            .collect();
        let device = r.f32s(n * channels as usize);
        let desc = TextureDesc {
            address: [mode(ax), mode(ay)],
            filter: if filter == 1 { FilterMode::Linear } else { FilterMode::Point },
            normalized: norm == 1,
            border,
        };
        let t = Texels {
            data: &data,
            channels: channels as usize,
            width: width as usize,
            height: height as usize,
            pitch: pitch as usize,
        };
        let mut emulated = Vec::with_capacity(device.len());
        for &(x, y, i) in &coords {
            let v = match kind {
                0 => sampler::fetch_1d(&t, i),
                1 => sampler::sample_1d(&t, &desc, x),
                _ => sampler::sample_2d(&t, &desc, x, y),
            };
            emulated.extend_from_slice(&v[..channels as usize]);
        }
        out.push(Record { name, kind, desc, channels: channels as usize, coords, device, emulated });
    }
    assert_eq!(r.at, bytes.len(), "trailing bytes in the dump");
    out
}

#[test]
fn the_sampler_matches_the_h200_bit_for_bit() {
    let path = std::env::var("TEX_ORACLE")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tex_oracle.bin").to_string());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let records = replay(&bytes);
    let (mut total, mut bad) = (0usize, 0usize);
    for rec in &records {
        let c = rec.channels;
        let diffs: Vec<usize> = (0..rec.coords.len())
            .filter(|&k| (0..c).any(|j| rec.device[k * c + j].to_bits() != rec.emulated[k * c + j].to_bits()))
            .collect();
        println!("{:<32} kind {} {:>6} samples {:>6} differences", rec.name, rec.kind, rec.coords.len(), diffs.len());
        for &k in diffs.iter().take(6) {
            let (x, y, i) = rec.coords[k];
            println!(
                "    x {x:e} ({:#010x}) y {y:e} i {i}: device {:?} emulator {:?}  [{:?}]",
                x.to_bits(),
                &rec.device[k * c..k * c + c],
                &rec.emulated[k * c..k * c + c],
                rec.desc.address
            );
        }
        total += rec.coords.len();
        bad += diffs.len();
    }
    println!("TOTAL {total} samples in {} records, {bad} differences", records.len());
    assert!(total > 100_000, "the dump holds only {total} samples");
    assert_eq!(bad, 0, "the sampler differs from the H200 on {bad} of {total} samples");
}
