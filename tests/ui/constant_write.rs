use deviceemu::prelude::*;

#[constant]
static SCALE: [f32; 4] = [1.0; 4];

#[kernel]
fn rescale(y: &mut [f32]) {
    let i = thread_idx().x as usize;
    SCALE[0] = 2.0;
    y[i] *= SCALE[i % 4];
}

fn main() {}
