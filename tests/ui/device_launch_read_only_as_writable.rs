// A device-side launch cannot pass a parent's `&[T]` parameter for a child's `&mut [T]`.
use deviceemu::prelude::*;

#[kernel]
fn child(data: &mut [u32]) {
    data[0] = 1;
}

#[kernel]
fn parent(data: &[u32]) {
    let _ = launch!(child<<<1, 1>>>(data));
}

fn main() {}
