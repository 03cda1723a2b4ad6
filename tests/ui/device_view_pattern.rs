use deviceemu::prelude::*;

// A tuple of views binds each name as a view (this one compiles)...
#[device]
fn sum((a, b): (Global<f32>, Global<f32>), i: usize) -> f32 {
    a[i] + b[i]
}

// ...but a view bound otherwise is not found in the body.
#[device]
fn length(ref x: Global<f32>) -> usize {
    x.len()
}

fn main() {}
