use deviceemu::prelude::*;

#[kernel(launch_bounds(4096))]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
