use deviceemu::prelude::*;

#[kernel]
fn k(n: impl Copy) {
    let _ = n;
}

fn main() {}
