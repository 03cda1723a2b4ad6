use deviceemu::prelude::*;

#[kernel(bounds(64))]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
