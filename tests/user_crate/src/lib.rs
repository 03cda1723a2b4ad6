//! Stencils and conversions, tested in the emulator and run on the GPU with `--features gpu`.
use deviceemu::prelude::*;

/// Cells per tile side.
pub const TILE: usize = 16;

pub mod kernels;
pub mod ported;
