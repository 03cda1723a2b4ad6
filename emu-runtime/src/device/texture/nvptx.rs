//! NVPTX backend of the texture reads: one `tex` instruction each, on the object's handle in a
//! 64-bit register (unified texture mode, as nvcc emits for `cudaTextureObject_t`). The result
//! type follows the read: `.f32` for float texels and normalised-float reads, `.s32` / `.u32`
//! for element-type reads of signed / unsigned integer texels (what nvcc emits for
//! `tex1D<char4>` / `tex1D<uchar4>`). Each returns the four 32-bit lanes.

use core::arch::asm;

use super::{Format, Lanes};

/// One `tex` instruction: `$geom` (`1d`/`2d`), the coordinate type and registers, for each
/// result type.
macro_rules! tex {
    ($lanes:expr, $geom:literal, $ctype:literal, $coords:literal, $handle:expr, $($c:ident = $cv:expr),+) => {{
        let (a, b, c, d): (u32, u32, u32, u32);
        match $lanes {
            Lanes::Float => {
                let (fa, fb, fc, fd): (f32, f32, f32, f32);
                // SAFETY: a texture read: it reads texture memory only, through the handle the
                // host created; an invalid handle is a launch error, not undefined behaviour
                // of this thread.
                unsafe {
                    asm!(
                        concat!("tex.", $geom, ".v4.f32.", $ctype, " {{{a}, {b}, {c}, {d}}}, [{t}, ", $coords, "];"),
                        a = out(reg32) fa, b = out(reg32) fb, c = out(reg32) fc, d = out(reg32) fd,
                        t = in(reg64) $handle, $($c = in(reg32) $cv),+,
                        options(pure, readonly, nostack, preserves_flags),
                    )
                };
                (a, b, c, d) = (fa.to_bits(), fb.to_bits(), fc.to_bits(), fd.to_bits());
            }
            Lanes::Signed => {
                // SAFETY: as above.
                unsafe {
                    asm!(
                        concat!("tex.", $geom, ".v4.s32.", $ctype, " {{{a}, {b}, {c}, {d}}}, [{t}, ", $coords, "];"),
                        a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                        t = in(reg64) $handle, $($c = in(reg32) $cv),+,
                        options(pure, readonly, nostack, preserves_flags),
                    )
                };
            }
            Lanes::Unsigned => {
                // SAFETY: as above.
                unsafe {
                    asm!(
                        concat!("tex.", $geom, ".v4.u32.", $ctype, " {{{a}, {b}, {c}, {d}}}, [{t}, ", $coords, "];"),
                        a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                        t = in(reg64) $handle, $($c = in(reg32) $cv),+,
                        options(pure, readonly, nostack, preserves_flags),
                    )
                };
            }
        }
        [a, b, c, d]
    }};
}

#[inline(always)]
pub(super) fn fetch_1d(handle: u64, lanes: Lanes, _format: Format, _channels: usize, i: i32) -> [u32; 4] {
    tex!(lanes, "1d", "s32", "{{{i}}}", handle, i = i)
}

#[inline(always)]
pub(super) fn sample_1d(handle: u64, lanes: Lanes, _format: Format, _channels: usize, x: f32) -> [u32; 4] {
    tex!(lanes, "1d", "f32", "{{{x}}}", handle, x = x)
}

#[inline(always)]
pub(super) fn sample_2d(handle: u64, lanes: Lanes, _format: Format, _channels: usize, x: f32, y: f32) -> [u32; 4] {
    tex!(lanes, "2d", "f32", "{{{x}, {y}}}", handle, x = x, y = y)
}
