use deviceemu::prelude::*;

#[kernel]
fn scale<T: Copy>(x: &[T], y: &mut [T]) {
    let i = thread_idx().x as usize;
    y[i] = x[i];
}

fn main() {}
