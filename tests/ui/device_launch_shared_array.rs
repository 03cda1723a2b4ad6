// A device-side launch cannot pass shared memory to a child kernel (undefined in CUDA).
use deviceemu::prelude::*;

#[kernel]
fn child(data: &[u32]) {
    let _ = data[0];
}

#[kernel]
fn parent() {
    let tile = shared_array![u32; 32];
    let _ = launch!(child<<<1, 1>>>(tile));
}

fn main() {}
