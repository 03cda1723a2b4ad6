use deviceemu::prelude::*;

#[kernel]
fn saxpy(a: &f32, x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = *a * x[i] + y[i];
}

fn main() {}
