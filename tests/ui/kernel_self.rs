use deviceemu::prelude::*;

struct Solver {
    scale: f32,
}

impl Solver {
    #[kernel]
    fn step(&self, y: &mut [f32]) {
        let i = thread_idx().x as usize;
        y[i] *= self.scale;
    }
}

fn main() {}
