use deviceemu::prelude::*;

#[kernel]
const fn k(n: u32) {
    let _ = n;
}

fn main() {}
