use deviceemu::prelude::*;

// CUDA's `struct { char flag; float x; double t; }` as written: padding after `flag` (3 bytes)
// and after `x` (4 bytes).
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Particle {
    flag: u8,
    x: f32,
    t: f64,
}

// Padding at the end: 8-byte alignment rounds 12 bytes up to 16.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Tail {
    t: f64,
    n: u32,
}

fn main() {}
