//! A 3x3 box blur of a region of interest (ROI) inside a larger image, with the bug of the
//! seed story in DEBUGGING.md: the input rows are `pitch` floats apart, the output is dense
//! (`width` floats a row), and `blur` mixes the two up.
//!
//! `cargo run --example blur` runs the buggy kernel (the report names the thread and line);
//! `cargo run --example blur -- fixed` runs the fixed one and checks it against the CPU.
use deviceemu::prelude::*;

/// The kernel as first written (DEBUGGING.md finds its bug).
#[kernel]
pub fn blur(input: &[f32], output: &mut [f32], width: u32, height: u32, pitch: u32) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if x >= width || y >= height {
        return;
    }
    let mut sum = 0.0f32;
    let mut count = 0u32;
    for dy in -1i32..=1 {
        for dx in -1i32..=1 {
            let nx = x as i32 + dx;
            let ny = y as i32 + dy;
            if nx >= 0 && nx < width as i32 && ny >= 0 && ny < height as i32 {
                sum += input[(ny as u32 * pitch + nx as u32) as usize];
                count += 1;
            }
        }
    }
    let idx = (y * pitch + x) as usize;
    output[idx] = sum / count as f32;
}

/// The fixed kernel: the input is read with its pitch, the output written with its width.
#[kernel]
pub fn blur_fixed(input: &[f32], output: &mut [f32], width: u32, height: u32, pitch: u32) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if x >= width || y >= height {
        return;
    }
    let mut sum = 0.0f32;
    let mut count = 0u32;
    for dy in -1i32..=1 {
        for dx in -1i32..=1 {
            let nx = x as i32 + dx;
            let ny = y as i32 + dy;
            if nx >= 0 && nx < width as i32 && ny >= 0 && ny < height as i32 {
                sum += input[(ny as u32 * pitch + nx as u32) as usize];
                count += 1;
            }
        }
    }
    let idx = (y * width + x) as usize;
    output[idx] = sum / count as f32;
}

/// The same blur on the CPU.
fn reference(input: &[f32], width: usize, height: usize, pitch: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let (mut sum, mut count) = (0.0f32, 0u32);
            for dy in -1i32..=1 {
                for dx in -1i32..=1 {
                    let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                    if nx >= 0 && nx < width as i32 && ny >= 0 && ny < height as i32 {
                        sum += input[ny as usize * pitch + nx as usize];
                        count += 1;
                    }
                }
            }
            out[y * width + x] = sum / count as f32;
        }
    }
    out
}

fn main() -> Result<(), deviceemu::Error> {
    // A 100 x 60 region whose rows are 128 floats apart in the image it was cut from.
    let (width, height, pitch) = (100u32, 60u32, 128u32);
    let image: Vec<f32> = (0..pitch * height).map(|i| (i % 97) as f32).collect();
    let input = DeviceBuffer::from_slice(&image)?;
    let mut output = DeviceBuffer::<f32>::zeroed((width * height) as usize)?;
    let grid = (width.div_ceil(16), height.div_ceil(16));
    if std::env::args().nth(1).as_deref() == Some("fixed") {
        launch!(blur_fixed<<<grid, (16, 16)>>>(&input, &mut output, width, height, pitch))?;
        assert_eq!(output.to_vec()?, reference(&image, width as usize, height as usize, pitch as usize));
        println!("blur_fixed matches the CPU on {width}x{height}");
    } else {
        launch!(blur<<<grid, (16, 16)>>>(&input, &mut output, width, height, pitch))?;
    }
    Ok(())
}
