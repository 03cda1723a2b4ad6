use deviceemu::prelude::*;

#[device]
static X: u32 = 0;

fn main() {}
