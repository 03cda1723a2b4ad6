use deviceemu::prelude::*;

#[kernel]
fn bump(y: &mut [f32]) {
    let i = thread_idx().x as usize;
    let r = &mut y[i];
    *r += 1.0;
}

fn main() {}
