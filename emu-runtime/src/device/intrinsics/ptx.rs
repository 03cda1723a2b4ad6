//! The GPU backend of the intrinsics: when the crate is compiled for `nvptx64-nvidia-cuda`, each
//! intrinsic that PTX has an instruction for is that instruction, written as inline assembly
//! (`add.rz.f32`, `cvt.rn.bf16.f32`, `rcp.approx.ftz.f32`, ...), so a kernel's GPU build gets
//! exactly what CUDA C's intrinsic compiles to. The host build runs the integer engine
//! (`soft.rs`) instead, which the oracle checks against the same instructions on an H200.
//!
//! The instructions are written for sm_90, the target that `emu-build` compiles kernels for:
//! the f16 forms need sm_53, `min.NaN` and `fma.rn.bf16` sm_80, and bf16 `add`/`sub`/`mul`/
//! `setp` and the directed `cvt.r{z,m,p}.bf16.f32` sm_90 (PTX ISA 7.8). They are not gated on
//! `target_feature`: `cargo rustc -- -Ctarget-cpu=sm_90` sets the features for the kernel
//! crate only, so a dependency like this one would always see the default CPU's, and ptxas
//! checks the text against the module's real `.target` anyway. `frsqrt_rn` has no single
//! instruction and runs the engine on the GPU too (the same bits).

/// One PTX instruction, `ins d, a[, b[, c]];`, on registers of the given classes. The
/// instructions used are pure arithmetic: no memory, no side effects.
macro_rules! ptx {
    ($ins:expr => $oc:ident $ot:ty; $ic:ident $a:expr) => {{
        let d: $ot;
        // SAFETY: a single arithmetic instruction on registers; it reads and writes no memory.
        unsafe {
            ::core::arch::asm!(concat!($ins, " {d}, {a};"), d = out($oc) d, a = in($ic) $a,
                options(pure, nomem, nostack, preserves_flags))
        };
        d
    }};
    ($ins:expr => $oc:ident $ot:ty; $ic:ident $a:expr, $b:expr) => {{
        let d: $ot;
        // SAFETY: as above.
        unsafe {
            ::core::arch::asm!(concat!($ins, " {d}, {a}, {b};"), d = out($oc) d, a = in($ic) $a,
                b = in($ic) $b, options(pure, nomem, nostack, preserves_flags))
        };
        d
    }};
    ($ins:expr => $oc:ident $ot:ty; $ic:ident $a:expr, $b:expr, $c:expr) => {{
        let d: $ot;
        // SAFETY: as above.
        unsafe {
            ::core::arch::asm!(concat!($ins, " {d}, {a}, {b}, {c};"), d = out($oc) d, a = in($ic) $a,
                b = in($ic) $b, c = in($ic) $c, options(pure, nomem, nostack, preserves_flags))
        };
        d
    }};
}

/// A PTX comparison, `setp.<cmp> p, a, b;`, as a bool.
macro_rules! ptx_setp {
    ($ins:expr; $ic:ident $a:expr, $b:expr) => {{
        let d: u32;
        // SAFETY: a comparison into a predicate declared in the block, and a select.
        unsafe {
            ::core::arch::asm!(
                concat!("{{ .reg .pred %emu_p; ", $ins, " %emu_p, {a}, {b}; selp.u32 {d}, 1, 0, %emu_p; }}"),
                d = out(reg32) d, a = in($ic) $a, b = in($ic) $b,
                options(pure, nomem, nostack, preserves_flags))
        };
        d != 0
    }};
}

pub(crate) use {ptx, ptx_setp};
