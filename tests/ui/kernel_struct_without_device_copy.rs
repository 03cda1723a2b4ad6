use deviceemu::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
struct Params {
    scale: f32,
    offset: f32,
}

#[kernel]
fn affine(p: Params, y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = p.scale * y[i] + p.offset;
}

fn main() {}
