use deviceemu::prelude::*;

#[derive(Clone, Copy, Default)]
#[repr(C)]
pub struct P {
    pub x: f32,
    pub y: f32,
}
// SAFETY: two `f32`s.
unsafe impl DeviceCopy for P {}

#[kernel]
fn move_all(p: &[P]) {
    let i = thread_idx().x as usize;
    p[i].x += 1.0;
}

fn main() {}
