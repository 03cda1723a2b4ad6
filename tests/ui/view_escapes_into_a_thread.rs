// A kernel may not hand its view to a thread that outlives the launch either.
use deviceemu::prelude::*;

#[kernel]
fn leak(y: &mut [u32]) {
    std::thread::spawn(move || y.store(0, 1));
}

fn main() {}
