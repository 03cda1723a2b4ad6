// Issue 9: a kernel that keeps its view in a `static`, so that host code reads the buffer's
// memory after the buffer is dropped. Views carry their launch's lifetime: this must not
// compile.
use std::sync::Mutex;

use deviceemu::prelude::*;

static STASH: Mutex<Option<Global<u64>>> = Mutex::new(None);

#[kernel]
fn stash(x: &[u64]) {
    *STASH.lock().unwrap() = Some(x);
}

fn main() -> Result<(), deviceemu::Error> {
    {
        let x = DeviceBuffer::from_slice(&[1u64; 4])?;
        launch!(stash<<<1, 1>>>(&x))?;
    }
    let v = STASH.lock().unwrap().take().unwrap();
    println!("{}", v.load(0));
    Ok(())
}
