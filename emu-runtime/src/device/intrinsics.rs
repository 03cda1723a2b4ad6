//! Float intrinsics with the device's exact rounding (CUDA's `__fadd_rn` and friends).
//!
//! Being written for the floating-point issue; nothing is exported yet.
