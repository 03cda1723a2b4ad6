//! Float intrinsics with the device's exact rounding: CUDA's `__fadd_rn` and friends.
//!
//! Names drop CUDA's leading underscores: `__fadd_rz(a, b)` is [`fadd_rz`]`(a, b)`,
//! `__float2half_ru(x)` is [`float2half_ru`]`(x)`. CUDA's `_ru`/`_rd` are PTX's `.rp`/`.rm`.
//!
//! # Exactness
//!
//! Everything here except the emulated fast-math functions (the [`expf_fast`] family and
//! [`fdividef`]) returns the same bits as the device for every input: subnormals (kept, or
//! flushed by the `_ftz` forms), signed zeros, infinities, overflow in each rounding direction,
//! and NaN, which is always the device's canonical NaN (`0x7fffffff` for f32, `0x7fff` for f16
//! and bf16) whatever the input payloads. Float-to-integer conversions saturate and map NaN
//! to 0. FP.md in the repository lists what was checked against an H200, op by op.
//!
//! On the host the implementation is one portable integer engine (exact result, one rounding),
//! written against `core` and `libm` only; `rustc_apfloat` serves as an independent reference in
//! the tests. In a kernel's GPU build (`nvptx64-nvidia-cuda`) each intrinsic is the PTX
//! instruction CUDA uses (`add.rz.f32`, `cvt.rn.bf16.f32`, `ex2.approx.f32`, ...; sm_90), so the
//! fast-math functions are the device's there too.
//!
//! # Plain arithmetic
//!
//! Rust's own f32 `+ - * /`, `sqrt` and `mul_add` are already what the device computes
//! (`add.rn`, `mul.rn`, `div.rn`, `sqrt.rn`, `fma.rn`; rustc does not contract `a * b + c` on
//! either target), so they need no intrinsic: they equal [`fadd_rn`], [`fmul_rn`], [`fdiv_rn`],
//! [`fsqrt_rn`] and [`fmaf_rn`] bit for bit, except that a NaN result keeps an input's payload
//! on the host where the device returns `0x7fffffff`. FP.md gives the evidence.
//!
//! # Example
//!
//! ```
//! # use emu_runtime::device::intrinsics as deviceemu_intrinsics;
//! use deviceemu_intrinsics::*; // `deviceemu::intrinsics::*` in user code
//!
//! let tiny = f32::from_bits(0x33c0_0000); // 1.5 * 2^-24
//! assert_eq!(fadd_rz(1.0, tiny).to_bits(), 0x3f80_0000);
//! assert_eq!(fadd_ru(1.0, tiny).to_bits(), 0x3f80_0001);
//! assert_eq!(float2int_rz(-2.7), -2);
//! assert_eq!(saturatef(f32::NAN), 0.0);
//! ```

mod arith;
mod convert;
mod fast;
mod halfops;
#[cfg(target_arch = "nvptx64")]
mod ptx;
// On the GPU most intrinsics are PTX instructions and only part of the engine is used.
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
pub(crate) mod soft;

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests;

pub use arith::*;
pub use convert::*;
pub use fast::{
    cosf_fast, exp10f_fast, expf_fast, fdividef, log10f_fast, log2f_fast, logf_fast, powf_fast, sinf_fast, tanf_fast,
};
pub use halfops::*;

/// The 16-bit float types of the `half` crate (2.x) that the f16/bf16 intrinsics take and
/// return, re-exported so that kernels can name them (CUDA's `__half` and `__nv_bfloat16`).
pub use half::{bf16, f16};

#[doc(hidden)]
pub mod __oracle {
    //! Internals that the GPU-oracle test needs (not part of the API).

    /// The `rcp.approx` corrections compiled in: `(mantissa index, ulps)`.
    pub const RCP_APPROX_FIXUPS: &[(u16, i8)] = super::fast::RCP_APPROX_FIXUPS;

    /// The emulated `rcp.approx.ftz.f32` (`MUFU.RCP`).
    #[must_use]
    pub fn rcp_approx_ftz(x: f32) -> f32 {
        super::fast::rcp_approx_ftz(x)
    }

    /// The emulated `rcp.approx.f32` (subnormals kept).
    #[must_use]
    pub fn rcp_approx(x: f32) -> f32 {
        super::fast::rcp_approx(x)
    }

    /// The emulated `div.approx.ftz.f32`.
    #[must_use]
    pub fn div_approx_ftz(a: f32, b: f32) -> f32 {
        super::fast::div_approx_ftz(a, b)
    }
}
