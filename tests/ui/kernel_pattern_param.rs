use deviceemu::prelude::*;

#[kernel]
fn axpby((a, b): (f32, f32), x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = a * x[i] + b * y[i];
}

fn main() {}
