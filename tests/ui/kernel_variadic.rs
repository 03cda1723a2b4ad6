use deviceemu::prelude::*;

#[kernel]
fn k(n: u32, _: ...) {
    let _ = n;
}

fn main() {}
