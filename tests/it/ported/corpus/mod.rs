//! A corpus of kernels ported from public CUDA suites, as written, each with a serial Rust
//! reference of the same algorithm: the measure of the emulator on code nobody here wrote
//! (issue 26). `tests/it/ported/mod.rs` runs each kernel on the default path and on the general path
//! and compares it with its reference; `benches/corpus.rs` times both (BENCHMARKS.md, "Corpus
//! of ported kernels").
//!
//! # How the ports are written
//!
//! Each kernel keeps its original's block shape, shared arrays, barrier placement, loop forms,
//! helper functions, constants and names (in snake case), so that the path it takes measures
//! the optimiser on real code, not on code arranged for it. The translation rules:
//!
//! - `__device__` functions are `#[device]` functions; `#define`d constants and template
//!   arguments are `const`s, at the top of the module when the original's are file-level and
//!   inside the kernel body where the original declares them there; `#define`d expressions
//!   taking arguments are `macro_rules!`.
//! - C's `for (i = a; i < b; i++)` is `for i in a..b`, with a stride `(a..b).step_by(s)`, and
//!   a downward or multiplicative `for` (`s >>= 1`, `size <<= 1`) or one with another condition
//!   (`i < 4 && address < n`) is the `while` loop it means; `while` stays `while`.
//! - `int` is `i32`, `unsigned`/`uint` is `u32`, and indices keep their type (deviceemu takes
//!   any integer index). `uint4`, `uint2`, `float4`, `uchar4` are the structs of [`vec`].
//! - A declaration without an initialiser (`uint4 key;`, `float a;`) is `let key: Uint4;` where
//!   the whole value is assigned before any use, and `Uint4::default()` where the original
//!   assigns it field by field (Rust has no partly initialised values); a chained assignment
//!   (`sdata[tid] = mySum = mySum + x`) is two statements; a parameter the body assigns is
//!   rebound `let mut n = n;`; `__shared__ T x;` is `shared_array![T; 1]`, used as `x[0]`.
//! - `extern __shared__` arrays are `dynamic_shared::<T>()` with the launch's shared bytes;
//!   `volatile` shared pointers are plain views (every access of a view is a memory access).
//! - What deviceemu cannot express is written the closest legal way, with a comment marked
//!   `deviceemu:` at the place (pointer arithmetic on a view, for example, becomes an offset
//!   added to each index). Warp-synchronous code (a warp's lanes updating shared memory with
//!   no barrier between steps) is illegal since Volta; it is written as the CUDA Programming
//!   Guide's corrected form (a value in a register, `__syncwarp()` between each read and
//!   write), marked `Volta:`.
//!
//! Each kernel's module cites its source: repository, commit and file.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::all,
    non_snake_case,
    unused_parens,
    unused_assignments,
    unused_mut,
    unused_variables,
    non_upper_case_globals
)]

pub mod cub;
pub mod parboil;
pub mod polybench;
pub mod samples;
pub mod shoc;
pub mod vec;

/// How large a case's inputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Small enough for `cargo test` in a debug build, on both paths.
    Test,
    /// About 1 to 50 ms per launch on the default path in a release build (2 cores).
    Bench,
}

/// One ported kernel on its inputs.
pub trait Case {
    /// Launches the kernel once on the case's inputs, resetting what an earlier launch wrote
    /// where the kernel accumulates into it, and waits for it.
    fn launch(&mut self);
    /// Runs the serial reference once on the same inputs.
    fn serial(&mut self);
    /// Compares the last launch's output with the last serial run's.
    fn check(&mut self) -> Result<(), String>;
}

/// A corpus entry: its name, where it comes from, and how to make it.
pub struct Entry {
    /// The kernel's name in the corpus (`suite_kernel`).
    pub name: &'static str,
    /// `SHOC`, `Parboil`, `cuda-samples`, `CUB`, `PolyBench/GPU`.
    pub suite: &'static str,
    /// The original kernel's name.
    pub original: &'static str,
    /// Whether the original kernel has a barrier (`__syncthreads`, `cg::sync`, `CTA_SYNC`).
    pub barriers: bool,
    /// Builds the case's inputs.
    pub make: fn(Size) -> Box<dyn Case>,
}

/// Every kernel of the corpus, in table order.
pub fn all() -> Vec<Entry> {
    let mut v = Vec::new();
    v.extend(shoc::entries());
    v.extend(parboil::entries());
    v.extend(samples::entries());
    v.extend(cub::entries());
    v.extend(polybench::entries());
    v
}

/// Compares two float slices bit for bit.
pub fn same_f32(what: &str, got: &[f32], want: &[f32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i].to_bits() != want[i].to_bits()).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{what}: {} of {} elements differ; first at {i}: {} against {}",
            bad.len(),
            got.len(),
            got[i],
            want[i]
        )),
    }
}

/// Compares two slices of integers (or anything `PartialEq` and `Debug`) exactly.
pub fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{what}: {} of {} elements differ; first at {i}: {:?} against {:?}",
            bad.len(),
            got.len(),
            got[i],
            want[i]
        )),
    }
}

/// A small deterministic generator (xorshift64*), so that inputs are reproducible.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// A float in [-1, 1) with a full mantissa, so that rounding depends on the order of
    /// operations.
    pub fn f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    /// `n` floats in [-1, 1).
    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
    /// `n` integers in `0..below`.
    pub fn u32s(&mut self, n: usize, below: u32) -> Vec<u32> {
        (0..n).map(|_| self.below(below as u64) as u32).collect()
    }
}
