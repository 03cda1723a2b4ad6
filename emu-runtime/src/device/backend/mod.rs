//! The one place where the device API's implementation is chosen.
//!
//! Each backend implements the same small set of functions: indices, barriers, fences,
//! element loads and stores with bounds checks, atomics and shared memory.

#[cfg(not(target_arch = "nvptx64"))]
#[path = "host.rs"]
mod imp;

#[cfg(target_arch = "nvptx64")]
compile_error!(
    "the nvptx64 backend of deviceemu's device API is not written yet (see the GPU issue); \
     build for the host to emulate kernels"
);

pub(crate) use imp::*;

/// Which block-wide barrier a thread is waiting at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarrierOp {
    /// `__syncthreads()`.
    Sync,
    /// `__syncthreads_count(p)`.
    Count,
    /// `__syncthreads_and(p)`.
    And,
    /// `__syncthreads_or(p)`.
    Or,
}
