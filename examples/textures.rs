//! Textures: a kernel reads a `Texture<T>` with `fetch` (`tex1Dfetch`), `sample_1d` (`tex1D`)
//! or `sample_2d` (`tex2D`); the host makes it with `TextureObject`. Here a 2-D image is
//! upscaled 4× with bilinear filtering (the texture unit's 1.8 fixed-point weights), and a
//! buffer is read through `tex1Dfetch`.
//!
//! `cargo run --example textures` (add `--features gpu` and `EMU_TARGET=gpu` for the GPU).

use deviceemu::prelude::*;

/// `out[i] = t.fetch(first + i)`: `tex1Dfetch` over linear memory.
#[kernel]
pub fn fetch_each(t: Texture<f32>, first: i32, out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.fetch(first + i as i32);
    }
}

/// `out[i] = tex1D(t, xs[i])`.
#[kernel]
pub fn sample_each_1d(t: Texture<f32>, xs: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = tex1d(t, xs[i]);
    }
}

/// `out[i] = tex2D(t, xs[i], ys[i])`.
#[kernel]
pub fn sample_each_2d(t: Texture<f32>, xs: &[f32], ys: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_2d(xs[i], ys[i]);
    }
}

/// `out[i] = tex2D<float4>(t, xs[i], ys[i])`.
#[kernel]
pub fn sample_each_2d_x4(t: Texture<[f32; 4]>, xs: &[f32], ys: &[f32], out: &mut [[f32; 4]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_2d(xs[i], ys[i]);
    }
}

/// `out[i] = tex1D<float2>(t, xs[i])`.
#[kernel]
pub fn sample_each_1d_x2(t: Texture<[f32; 2]>, xs: &[f32], out: &mut [[f32; 2]]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = t.sample_1d(xs[i]);
    }
}

/// Upscales a `w × h` texture by `scale` with normalised coordinates at the output's pixel
/// centres (what a bilinear resize does).
#[kernel]
pub fn upscale(t: Texture<f32>, w: u32, h: u32, out: &mut [f32]) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if x < w && y < h {
        let u = (x as f32 + 0.5) / w as f32;
        let v = (y as f32 + 0.5) / h as f32;
        out[(y * w + x) as usize] = tex2d(t, u, v);
    }
}

fn main() -> Result<(), deviceemu::Error> {
    let (w, h) = (4usize, 3usize);
    let image: Vec<f32> = (0..w * h).map(|i| (i * 10) as f32).collect();
    let desc = TextureDesc::new().address(AddressMode::Clamp).filter(FilterMode::Linear).normalized(true);
    let tex = TextureObject::array_2d(w, h, &image, desc)?;
    let (ow, oh) = (w * 4, h * 4);
    let mut out = DeviceBuffer::<f32>::zeroed(ow * oh)?;
    launch!(upscale<<<(1, 1), (ow as u32, oh as u32)>>>(tex.texture(), ow as u32, oh as u32, &mut out))?;
    for row in out.to_vec()?.chunks(ow) {
        println!("{}", row.iter().map(|v| format!("{v:6.2}")).collect::<Vec<_>>().join(" "));
    }
    let buf = DeviceBuffer::from_slice(&[1.0f32, 2.0, 3.0])?;
    let lin = TextureObject::linear(&buf, TextureDesc::new())?;
    let mut got = DeviceBuffer::<f32>::zeroed(5)?;
    launch!(fetch_each<<<1, 32>>>(lin.texture(), -1, &mut got))?;
    println!("tex1Dfetch at -1..4: {:?}", got.to_vec()?);
    Ok(())
}
