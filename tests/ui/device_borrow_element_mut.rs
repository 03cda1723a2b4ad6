use deviceemu::prelude::*;

#[device]
fn bump(y: GlobalMut<f32>, i: usize) {
    let r = &mut y[i];
    *r += 1.0;
}

fn main() {}
