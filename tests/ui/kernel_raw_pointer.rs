use deviceemu::prelude::*;

#[kernel]
fn fill(y: *mut f32, n: u32) {
    let _ = (y, n);
}

fn main() {}
