//! Math functions (`sinf`, `expf`, ...) that give the same bits emulated and on the GPU.
//!
//! Being written for the floating-point issue; nothing is exported yet.
