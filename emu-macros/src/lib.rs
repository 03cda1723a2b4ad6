//! Procedural macros of [deviceemu](https://docs.rs/deviceemu).
//!
//! * `#[kernel]` turns a function into a CUDA-style kernel: slice parameters become checked
//!   global-memory views, index expressions on views become checked loads and stores, and a
//!   launcher struct named like the kernel is emitted for `launch!`.
//! * `#[device]` applies the same index rewriting to a helper function that takes views.
//! * `launch_impl!` is the proc-macro half of `launch!` (which `macro_rules!` alone cannot
//!   parse: `256>>>(` reads as a shift).
//!
//! Each macro works in three stages, one file each: parse and validate (`signature`),
//! rewrite the body (`rewrite`), expand (`expand`). Errors point at the user's tokens and are
//! emitted with a fallback expansion so one mistake does not cascade.

use proc_macro::TokenStream;

mod expand;
mod host_body;
mod launch;
mod progress;
mod rewrite;
mod signature;

/// Marks a function as a kernel, launched with `launch!(name<<<grid, block>>>(args))`.
///
/// Parameters may be scalars (`f32`, `u32`, `bool`, `#[repr(C)]` plain-data structs), `&[T]`
/// (read-only global memory) or `&mut [T]` (read-write global memory). Inside the body, slices
/// index like slices (`y[i] = a * x[i]`, `t[r][c] += v`) and have `len()`; every access is
/// bounds-checked.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernel(attr.into(), item.into()).into()
}

/// Marks a helper function called from kernels: index expressions on its view parameters
/// (`Global<T>`, `GlobalMut<T>`, `Shared<T>`) and on shared arrays it declares are rewritten
/// into checked accesses, as in a `#[kernel]`.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::device(attr.into(), item.into()).into()
}

/// The implementation of `launch!`; use `launch!` instead.
#[doc(hidden)]
#[proc_macro]
pub fn launch_impl(input: TokenStream) -> TokenStream {
    launch::expand(input.into()).into()
}
