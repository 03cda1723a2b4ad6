use deviceemu::prelude::*;

#[kernel]
fn float_max(best: &mut [f32], x: &[f32]) {
    let i = thread_idx().x as usize;
    best.atomic_max(0, x[i]);
}

#[kernel]
fn signed_ticket(counter: &mut [i32]) {
    counter.atomic_inc(0, 31);
}

#[kernel]
fn add_to_read_only(x: &[u32]) {
    x.atomic_add(0, 1);
}

fn main() {}
