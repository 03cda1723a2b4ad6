//! [`Dim3`], the three-component size or index of CUDA's `dim3`/`uint3`.

use core::fmt;

/// A grid size, block size, block index or thread index, like CUDA's `dim3`.
///
/// `x` varies fastest: the linear index of `(x, y, z)` in a block of size `(dx, dy, dz)` is
/// `x + y * dx + z * dx * dy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Dim3 {
    /// The fastest-varying component.
    pub x: u32,
    /// The middle component.
    pub y: u32,
    /// The slowest-varying component.
    pub z: u32,
}

impl Dim3 {
    /// Builds a `Dim3` from its three components.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// The number of elements `x * y * z`, without overflow.
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The linear index of `idx` inside a box of size `self` (`x` fastest).
    pub const fn linear(&self, idx: Dim3) -> u64 {
        idx.x as u64 + self.x as u64 * (idx.y as u64 + self.y as u64 * idx.z as u64)
    }

    /// The index whose linear index inside a box of size `self` is `linear`.
    pub const fn unlinear(&self, linear: u64) -> Dim3 {
        // A 1-D shape needs no division (two 64-bit divisions cost a block of a barrier-free
        // kernel more than a tenth of its time).
        if self.y == 1 && self.z == 1 && linear < self.x as u64 {
            return Dim3 { x: linear as u32, y: 0, z: 0 };
        }
        let x = (linear % self.x as u64) as u32;
        let rest = linear / self.x as u64;
        let y = (rest % self.y as u64) as u32;
        let z = (rest / self.y as u64) as u32;
        Dim3 { x, y, z }
    }
}

impl Default for Dim3 {
    /// `(1, 1, 1)`, as CUDA's `dim3` defaults its components to 1.
    fn default() -> Self {
        Dim3::new(1, 1, 1)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}

impl fmt::Display for Dim3 {
    /// Formats as compute-sanitizer does: `(31,0,0)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}
