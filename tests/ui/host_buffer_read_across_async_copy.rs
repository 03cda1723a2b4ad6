// The host cannot keep reading a pinned buffer while a copy into it is queued: the queued
// copy needs `&mut HostBuffer`, which the slice's borrow excludes.
use deviceemu::prelude::*;

fn main() -> Result<(), deviceemu::Error> {
    let s = Stream::new()?;
    let d = DeviceBuffer::from_slice(&[1u32; 4])?;
    let mut h = HostBuffer::<u32>::zeroed(4)?;
    let seen = h.as_slice();
    d.copy_to_host_async(&mut h, &s)?;
    println!("{}", seen[0]);
    Ok(())
}
