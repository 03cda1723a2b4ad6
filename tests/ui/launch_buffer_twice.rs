use deviceemu::prelude::*;

#[kernel]
fn scale_into(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = 2.0 * x[i];
}

fn main() -> Result<(), deviceemu::Error> {
    let mut data = DeviceBuffer::<f32>::zeroed(32)?;
    launch!(scale_into<<<1, 32>>>(&data, &mut data))?;
    launch!(scale_into<<<1, 32>>>(data.slice(0..16), data.slice_mut(16..32)))?;
    Ok(())
}
