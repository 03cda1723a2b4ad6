// `shared_scalar!` is one value: a length is an error at the length, which says what to write.
use deviceemu::prelude::*;

#[kernel]
fn pick(out: &mut [u32]) {
    let next = shared_scalar![u32; 4];
    if thread_idx().x == 0 {
        next.store(7);
    }
    sync_threads();
    out[thread_idx().x as usize] = next.load();
}

fn main() {}
