use deviceemu::prelude::*;

const N: u32 = 64;

#[kernel(launch_bounds(N))]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
