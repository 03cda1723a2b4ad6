use deviceemu::prelude::*;

#[kernel]
fn double_in_place(x: &[f32]) {
    let i = thread_idx().x as usize;
    x[i] = 2.0 * x[i];
}

fn main() {}
