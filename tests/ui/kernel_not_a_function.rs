use deviceemu::prelude::*;

#[kernel]
struct K {
    x: f32,
}

fn main() {}
