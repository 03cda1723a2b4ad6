use deviceemu::prelude::*;

#[kernel(host_only, launch_bounds(64), host_only)]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
