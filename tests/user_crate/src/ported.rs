//! Kernels as a port from CUDA wrote them (issue 30, items 12-14): the module reaches the
//! root's imports with `use crate::*;`, a struct's method sits beside it in an `impl` block,
//! and one kernel calls `f64::exp`, which has no GPU form (`std`), so it is left out of the
//! PTX and its launch on the GPU says why.
use crate::*;

/// A particle, as the CUDA code's `struct P { float x, v; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct P {
    /// Position.
    pub x: f32,
    /// Velocity.
    pub v: f32,
}

// SAFETY: two f32 fields, no padding; any bits are a valid value.
unsafe impl DeviceCopy for P {}

impl P {
    /// One explicit Euler step of length `dt`.
    pub fn bump(&mut self, dt: f32) {
        self.x += self.v * dt;
    }
}

/// Moves every particle one step (`v[i].bump(dt)`, an inherent method).
#[kernel]
pub fn step(v: &mut [P], dt: f32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < v.len() {
        let mut p = v[i];
        p.bump(dt);
        v[i] = p;
    }
}

/// Tiles of the root's `TILE` (reached through `use crate::*`).
#[kernel]
pub fn tile_index(out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = (i / TILE) as u32;
    }
}

/// `exp` in double precision through `std` (`f64::exp`): runs in the emulator, left out of
/// the PTX (`deviceemu::math::exp` is the GPU's).
#[kernel]
pub fn std_exp(x: &[f64], y: &mut [f64]) {
    let i = thread_idx().x as usize;
    if i < y.len() {
        y[i] = x[i].exp();
    }
}
