// A stream is the fourth launch argument, after the dynamic shared bytes.
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
    launch!(fill<<<1, 4, &s>>>(&mut y))?;
    Ok(())
}
