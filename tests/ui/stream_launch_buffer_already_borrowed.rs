// A stream launch borrows its buffers like the synchronous one: it cannot take a buffer that
// is mutably borrowed elsewhere.
use deviceemu::prelude::*;

#[kernel]
fn fill(y: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < y.len() {
        y[i] = 1;
    }
}

fn main() -> Result<(), deviceemu::Error> {
    let s = Stream::new()?;
    let mut y = DeviceBuffer::<u32>::zeroed(4)?;
    let held = &mut y;
    launch!(fill<<<1, 4, 0, &s>>>(&mut y))?;
    held.copy_from_slice(&[0; 4])?;
    Ok(())
}
