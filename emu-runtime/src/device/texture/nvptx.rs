//! NVPTX backend of the texture reads: one `tex` instruction each, on the object's handle in a
//! 64-bit register (unified texture mode, as nvcc emits for `cudaTextureObject_t`).

use core::arch::asm;

#[inline(always)]
pub(super) fn fetch_1d(handle: u64, _channels: usize, i: i32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: a texture read: it reads texture memory only, through the handle the host
    // created; an invalid handle is a launch error, not undefined behaviour of this thread.
    unsafe {
        asm!(
            "tex.1d.v4.f32.s32 {{{a}, {b}, {c}, {d}}}, [{t}, {{{i}}}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            t = in(reg64) handle, i = in(reg32) i,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
    [a, b, c, d]
}

#[inline(always)]
pub(super) fn sample_1d(handle: u64, _channels: usize, x: f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: as in `fetch_1d`.
    unsafe {
        asm!(
            "tex.1d.v4.f32.f32 {{{a}, {b}, {c}, {d}}}, [{t}, {{{x}}}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            t = in(reg64) handle, x = in(reg32) x,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
    [a, b, c, d]
}

#[inline(always)]
pub(super) fn sample_2d(handle: u64, _channels: usize, x: f32, y: f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: as in `fetch_1d`.
    unsafe {
        asm!(
            "tex.2d.v4.f32.f32 {{{a}, {b}, {c}, {d}}}, [{t}, {{{x}, {y}}}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            t = in(reg64) handle, x = in(reg32) x, y = in(reg32) y,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
    [a, b, c, d]
}
