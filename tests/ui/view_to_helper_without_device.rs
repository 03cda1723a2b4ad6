use deviceemu::prelude::*;

// A plain helper: without `#[device]` its `&[f32]` cannot take a kernel's view.
fn total(x: &[f32]) -> f32 {
    x.iter().sum()
}

#[kernel]
fn sums(x: &[f32], y: &mut [f32]) {
    if thread_idx().x == 0 {
        y[0] = total(x);
    }
}

fn main() {}
