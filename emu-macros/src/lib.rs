//! Procedural macros of [deviceemu](https://docs.rs/deviceemu).
//!
//! * `#[kernel]` turns a function into a CUDA-style kernel: slice parameters become checked
//!   global-memory views, index expressions on views become checked loads and stores, and a
//!   launcher struct named like the kernel is emitted for `launch!`.
//! * `#[device]` applies the same index rewriting to a helper function that takes views.
//! * `#[constant]` and `#[device_global]` declare module-scope device variables (`symbol`).
//! * `launch_impl!` is the proc-macro half of `launch!` (which `macro_rules!` alone cannot
//!   parse: `256>>>(` reads as a shift).
//!
//! `#[kernel]` and `#[device]` work in four stages, one file (or folder) each:
//!
//! 1. `parse`: the attribute's arguments and the item;
//! 2. `validate`: the signature, into one `validate::Param` per parameter;
//! 3. `lower`: the body rewritten into checked accesses (`rewrite`) and, for a kernel, its
//!    host form (`host_body`), into the form both macros share (`lower::Lowered`);
//! 4. `emit`: the host form, the PTX entry and the launcher (`emit/{host,ptx,launcher}.rs`),
//!    or the helper.
//!
//! Errors point at the user's tokens. An invalid item or kernel signature is emitted as
//! written next to its errors; errors in a helper's signature, the attribute or the body are
//! emitted next to the full expansion; so one mistake does not cascade.

use proc_macro::TokenStream;

mod abi;
mod derive;
mod emit;
mod fission;
mod host_body;
mod launch;
mod local_macros;
mod lower;
mod parse;
mod progress;
mod rewrite;
#[cfg(test)]
mod snapshots;
mod symbol;
mod validate;

/// `#[derive(DeviceCopy)]` for a `#[repr(C)]` struct: implements `DeviceCopy` after checking
/// at compile time that every field is `DeviceCopy` and that the layout has no padding (a
/// CUDA struct's padding is written as a field, `_pad: [u8; 3]`); the error names the fields
/// around the gap.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    derive::expand(item.into()).into()
}

/// Marks a function as a kernel, launched with `launch!(name<<<grid, block>>>(args))`.
///
/// Parameters may be scalars (`f32`, `u32`, `bool`, `#[repr(C)]` plain-data structs), `&[T]`
/// (read-only global memory) or `&mut [T]` (read-write global memory). Inside the body, slices
/// index like slices (`y[i] = a * x[i]`, `t[r][c] += v`) and have `len()`; every access is
/// bounds-checked.
///
/// Arguments: `launch_bounds(MAX_THREADS[, MIN_BLOCKS])`, CUDA's `__launch_bounds__`; and
/// `host_only`, for a kernel that cannot compile for the GPU (it has no PTX entry, and runs on
/// the emulator only).
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel2(attr.into(), item.into()).into()
}

/// Marks a helper function called from kernels: index expressions on its view parameters
/// (`Global<T>`, `GlobalMut<T>`, `Shared<T>`, and `&[T]` / `&mut [T]`, which take the
/// kernel's views as a kernel's do) and on shared arrays it declares are rewritten into checked
/// accesses, as in a `#[kernel]`.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device2(attr.into(), item.into()).into()
}

/// Declares a static in constant memory (CUDA's `__constant__`): kernels read it as its value
/// (`FILTER[i]`, `PARAMS.scale`) and cannot write it; the host writes it with
/// `copy_to_symbol(&FILTER, &value)` and reads it with `copy_from_symbol(&mut value, &FILTER)`.
/// On the GPU it lives in `.const`. Kernels using it must be in the same file.
#[proc_macro_attribute]
pub fn constant(attr: TokenStream, item: TokenStream) -> TokenStream {
    symbol::expand(symbol::Kind::Constant, attr.into(), item.into()).into()
}

/// Declares a static in global memory (CUDA's `__device__` variable), of an array type
/// (`[u32; 1]` for one value): kernels read and write it through `NAME.view()`, a view like a
/// `&mut [T]` parameter's, checked like one; the host copies it with `copy_to_symbol` and
/// `copy_from_symbol`. Kernels using it must be in the same file.
#[proc_macro_attribute]
pub fn device_global(attr: TokenStream, item: TokenStream) -> TokenStream {
    symbol::expand(symbol::Kind::DeviceGlobal, attr.into(), item.into()).into()
}

/// The implementation of `launch!`; use `launch!` instead.
#[doc(hidden)]
#[proc_macro]
pub fn launch_impl(input: TokenStream) -> TokenStream {
    launch::expand(input.into()).into()
}

/// `#[kernel]` on `proc_macro2` tokens: parse, validate, lower, emit.
fn kernel2(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut f = match parse::item(item.clone(), "kernel") {
        Ok(f) => f,
        Err(e) => return emit::fallback(item, None, e),
    };
    // The body's own macros written out, before anything reads the body (`local_macros.rs`).
    local_macros::body(&mut f.block, &f.sig);
    let (attr, attr_error) = match parse::kernel_attr(attr) {
        Ok(a) => (a, None),
        Err(e) => (parse::KernelAttr::default(), Some(e)),
    };
    let params = match validate::kernel(&f.sig) {
        Ok(p) => p,
        Err(mut e) => {
            if let Some(a) = attr_error {
                e.combine(a);
            }
            return emit::fallback(item, Some(&f), e);
        }
    };
    let mut lowered = lower::kernel(f, attr, params);
    lowered.errors.splice(0..0, attr_error);
    emit::emit(&lowered)
}

/// `#[device]` on `proc_macro2` tokens.
fn device2(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut f = match parse::item(item.clone(), "device") {
        Ok(f) => f,
        Err(e) => return emit::fallback(item, None, e),
    };
    local_macros::body(&mut f.block, &f.sig);
    let attr_error = parse::device_attr(&attr).err();
    let (params, errors) = validate::device(&f.sig);
    let mut lowered = lower::device(f, params);
    lowered.errors.splice(0..0, attr_error.into_iter().chain(errors));
    emit::emit(&lowered)
}

/// The PTX file `emu-build` made for the file being compiled, if any: the build script sets
/// `DEVICEEMU_PTX_DIR` and names each file after the source's path relative to the manifest.
fn embedded_ptx() -> Option<String> {
    let dir = std::env::var("DEVICEEMU_PTX_DIR").ok()?;
    let file = proc_macro::Span::call_site().local_file()?;
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").ok()?);
    let abs = if file.is_absolute() { file } else { std::env::current_dir().ok()?.join(file) };
    // A file included with `#[path = "../examples/x.rs"]` from a test is named through the
    // test's folder (`tests/../examples/x.rs`); its PTX is named after the file itself.
    let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
    let manifest = std::fs::canonicalize(&manifest).unwrap_or(manifest);
    let rel = abs.strip_prefix(&manifest).ok()?;
    let name: String = rel.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let path = std::path::Path::new(&dir).join(format!("{name}.ptx"));
    path.exists().then(|| path.to_string_lossy().into_owned())
}
