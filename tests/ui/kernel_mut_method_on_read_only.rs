use deviceemu::prelude::*;

#[derive(Clone, Copy, Default)]
#[repr(C)]
pub struct Counter {
    pub n: u32,
}
// SAFETY: one `u32`.
unsafe impl DeviceCopy for Counter {}

impl Counter {
    pub fn bump(&mut self) {
        self.n += 1;
    }
}

#[kernel]
fn bump_all(c: &[Counter]) {
    let i = thread_idx().x as usize;
    c[i].bump();
}

fn main() {}
