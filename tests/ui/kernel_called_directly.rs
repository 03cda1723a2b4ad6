use deviceemu::prelude::*;

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i < y.len() {
        y[i] += a * x[i];
    }
}

fn main() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(4).unwrap();
    saxpy(2.0, &x, &mut y);
}
