use deviceemu::prelude::*;

#[kernel(max_threads = 256)]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
