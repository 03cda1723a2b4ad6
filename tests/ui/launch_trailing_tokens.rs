use deviceemu::prelude::*;

#[kernel]
fn fill(y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = 1.0;
}

fn main() -> Result<(), deviceemu::Error> {
    let mut y = DeviceBuffer::<f32>::zeroed(32)?;
    launch!(fill<<<1, 32>>>(&mut y) twice)?;
    Ok(())
}
