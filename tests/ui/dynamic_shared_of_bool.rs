// The dynamic shared buffer has no type of its own, and views of two types alias it: a `u8`
// view could write a 2 that a `bool` view reads back, so only types valid for every bit pattern
// (`AnyBitPattern`) may view it.
use deviceemu::prelude::*;

#[kernel]
fn flags(out: &mut [u32]) {
    let bytes = dynamic_shared::<u8>();
    let flags = dynamic_shared::<bool>();
    let t = thread_idx().x as usize;
    bytes[t] = 2;
    sync_threads();
    out[t] = flags[t] as u32;
}

fn main() {}
