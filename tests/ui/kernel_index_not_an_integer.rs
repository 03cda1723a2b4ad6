use deviceemu::prelude::*;

// Indices may be any primitive integer (`u32`, `i32`, `i64`, ...); a float is not one.
#[kernel]
fn scale(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x;
    y[i] = x[i] * 2.0; // u32: fine
    let f = i as f32;
    y[i] = x[f];
}

fn main() {}
