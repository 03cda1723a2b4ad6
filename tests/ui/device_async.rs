use deviceemu::prelude::*;

#[device]
async fn twice(x: Global<f32>, i: usize) -> f32 {
    2.0 * x[i]
}

fn main() {}
