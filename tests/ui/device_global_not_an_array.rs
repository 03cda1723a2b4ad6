use deviceemu::prelude::*;

#[device_global]
static COUNTER: u32 = 0;

fn main() {}
