use deviceemu::prelude::*;

#[kernel]
fn k(n: u32, y: &mut [f32]) {
    let t = shared_array![f32; n as usize];
    let i = thread_idx().x as usize;
    t[i] = 1.0;
    y[i] = t[i];
}

fn main() {}
