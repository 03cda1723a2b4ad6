use deviceemu::prelude::*;

#[kernel(launch_bounds(64), launch_bounds(128))]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
