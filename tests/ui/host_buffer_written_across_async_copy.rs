// The host cannot write a pinned buffer through a slice it holds while a queued copy reads
// the buffer.
use deviceemu::prelude::*;

fn main() -> Result<(), deviceemu::Error> {
    let s = Stream::new()?;
    let mut d = DeviceBuffer::<u32>::zeroed(4)?;
    let mut h = HostBuffer::<u32>::zeroed(4)?;
    let w = h.as_mut_slice();
    d.copy_from_host_async(&h, &s)?;
    w[0] = 1;
    Ok(())
}
