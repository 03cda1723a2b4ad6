use deviceemu::prelude::*;

#[kernel]
extern "C" fn k(n: u32) {
    let _ = n;
}

fn main() {}
