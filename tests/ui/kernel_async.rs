use deviceemu::prelude::*;

#[kernel]
async fn fill(y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = 1.0;
}

fn main() {}
