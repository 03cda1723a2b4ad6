use deviceemu::prelude::*;

// No `#[repr(C)]`: Rust may reorder the fields.
#[derive(Clone, Copy, DeviceCopy)]
struct NoRepr {
    a: f32,
}

// A field that is not `DeviceCopy` (a host reference).
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct HostRef {
    name: &'static str,
}

fn main() {}
