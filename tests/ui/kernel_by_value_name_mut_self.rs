use deviceemu::prelude::*;

#[derive(Clone, Copy, Default)]
#[repr(C)]
pub struct V {
    pub x: f32,
}
// SAFETY: one `f32`.
unsafe impl DeviceCopy for V {}

impl V {
    /// A `&mut self` method named like a primitive's by-value method.
    pub fn abs(&mut self) {
        self.x = self.x.abs();
    }
}

#[kernel]
fn fold(v: &mut [V]) {
    let i = thread_idx().x as usize;
    v[i].abs();
}

fn main() {}
