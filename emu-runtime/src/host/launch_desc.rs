//! The description of a launch: what `#[kernel]` says about a kernel (`KernelInfo`), the
//! `<<<grid, block, shared>>>` configuration (`LaunchConfig`) and a kernel argument as the GPU
//! entry point takes it (`GpuArg`). A leaf: the scheduler, the streams and `gpu/` all read it,
//! and it names only `device`'s `Dim3` (ARCHITECTURE.md, "The crates and the host engine's
//! folders").

use crate::device::Dim3;

/// Static facts about a kernel, emitted by `#[kernel]`.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel's name.
    pub name: &'static str,
    /// The file that defines it.
    pub file: &'static str,
    /// The line of its `fn`.
    pub line: u32,
    /// The line of the closing brace of its body.
    pub end_line: u32,
    /// The most threads per block from `#[kernel(launch_bounds(N))]`, or 0 for none.
    pub max_threads: u32,
    /// The cluster shape from `#[kernel(cluster(X, Y, Z))]` (CUDA's `__cluster_dims__`), or
    /// zeros for none (a cluster of one block).
    pub cluster: [u32; 3],
}

impl KernelInfo {
    /// The kernel's cluster shape, `(1, 1, 1)` when it has none.
    pub(crate) fn cluster_dim(&self) -> Dim3 {
        match self.cluster {
            [0, _, _] => Dim3::new(1, 1, 1),
            [x, y, z] => Dim3::new(x, y, z),
        }
    }
}

/// Grid and block sizes and dynamic shared bytes of one launch (`<<<grid, block, shared>>>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: usize,
}

impl LaunchConfig {
    /// Builds a configuration; `grid` and `block` take `u32`, `(u32, u32)`, `(u32, u32, u32)`
    /// or [`Dim3`].
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>, shared_bytes: usize) -> Self {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_bytes }
    }
}

/// A kernel argument as the GPU entry point takes it (built by `#[kernel]`'s launcher).
#[doc(hidden)]
#[derive(Debug)]
pub enum GpuArg<'a> {
    /// A scalar: the address of its value.
    Scalar(*const std::ffi::c_void, std::marker::PhantomData<&'a ()>),
    /// A buffer: device address and element count, or `None` for a buffer in emulator memory.
    Buffer(Option<(u64, usize)>),
}

impl<'a> GpuArg<'a> {
    /// A scalar argument.
    pub fn scalar<T>(value: &'a T) -> Self {
        GpuArg::Scalar(value as *const T as *const std::ffi::c_void, std::marker::PhantomData)
    }
}
