use deviceemu::prelude::*;

#[kernel]
fn k(n: u32, ...) {
    let _ = n;
}

fn main() {}
