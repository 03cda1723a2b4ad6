//! Stage 4: emit the expansion of a [`Lowered`] function.
//!
//! For `#[kernel] pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) { body }` this emits:
//!
//! ```text
//! pub struct saxpy {}                       // type namespace: the launcher (launcher.rs)
//! impl saxpy { pub fn __launch(config, a: f32, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) }
//! // host.rs: the host form, compiled with and without the per-access checkers
//! impl saxpy { pub fn saxpy<'l, const CHECKED: bool>(ctx: ThreadCtx, a: f32, x: Global<'l, f32>, y: GlobalMut<'l, f32>) -> Exit }
//! // host.rs: the name as a function, whose call is an error that says to use `launch!`,
//! // and, for rustdoc only, the kernel as written
//! pub fn saxpy<'c, A0, A1, A2>(_: A0, _: A1, _: A2) -> ! where saxpy: NotAFunction<'c>
//! #[cfg(doc)] pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {}
//! // ptx.rs, for nvptx only: the `.entry` and the plain form it calls
//! pub unsafe extern "ptx-kernel" fn __emu_entry_saxpy(a: f32, x: *const f32, x_len: usize, ..)
//! pub fn saxpy<'l>(a: f32, x: Global<'l, f32>, y: GlobalMut<'l, f32>) -> Exit
//! ```
//!
//! A kernel with barriers in its body gets, on the host, the same function returning a future
//! instead (`async move { body with barriers awaited; exit_here() }`, see `host_body.rs`): each
//! GPU thread is then a state machine the scheduler polls at barriers. The plain form is still
//! the one compiled for nvptx. A `host_only` kernel has neither nvptx form.
//!
//! The kernel function is generic over the launch's lifetime `'l`, which its views carry: a
//! view cannot leave the launch (storing one in a `static` would need `'l: 'static`).
//!
//! The host form keeps the kernel's name and the user's spans, so a debugger shows
//! `saxpy::saxpy<true>` and the user's lines. A braced struct only takes the type namespace,
//! so it shares the name with the value-namespace function; `launch!(saxpy<<<..>>>(..))`
//! resolves `saxpy::__launch` through the struct.
//!
//! A `#[device]` helper is emitted as written, with its body rewritten (`device`).

mod devrt;
mod host;
mod launcher;
mod ptx;
mod regions;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ItemFn;

use crate::lower::{Device, Kernel, Lowered, Role};

/// The path generated code reaches the runtime through.
fn rt() -> TokenStream {
    quote!(::deviceemu::__private)
}

/// The launch's lifetime, which the kernel function is generic over.
fn launch_lifetime() -> syn::Lifetime {
    syn::Lifetime::new("'__emu_launch", Span::mixed_site())
}

/// Emits `lowered`.
pub(crate) fn emit(lowered: &Lowered) -> TokenStream {
    let errors = lowered.errors.iter().map(syn::Error::to_compile_error);
    let body = match &lowered.role {
        Role::Kernel(k) => kernel(lowered, k),
        Role::Device(d) => device(lowered, d),
    };
    quote!(#(#errors)* #body)
}

fn kernel(l: &Lowered, k: &Kernel) -> TokenStream {
    let launcher = launcher::emit(l, k);
    let host = host::emit(l, k);
    let regions = regions::emit(l, k);
    let ptx = (!k.attr.host_only).then(|| ptx::emit(l, k));
    let devrt = (!k.attr.host_only).then(|| devrt::emit(l));
    let helpers = k
        .fission
        .as_ref()
        .map(|f| crate::fission::helpers::fallbacks(&l.item.sig.ident, &f.helpers))
        .unwrap_or_default();
    quote!(#launcher #host #regions #ptx #devrt #helpers)
}

/// A helper: the function with its body rewritten; it asks once per call whether accesses
/// are checked (where it accesses views), and is `#[track_caller]` where it calls a barrier.
fn device(l: &Lowered, d: &Device) -> TokenStream {
    let mut f = l.item.clone();
    // Only after an error (validation rejects `async`), which is enough.
    f.sig.asyncness = None;
    let checked = crate::rewrite::checked();
    if d.accesses {
        f.block.stmts.insert(
            0,
            syn::parse_quote! {
                #[allow(non_snake_case, unused_variables)]
                let #checked: bool = ::deviceemu::__private::helper_checking();
            },
        );
    }
    // The accesses of a helper are closures called on the spot (`rewrite.rs`, `pinned`).
    f.attrs.push(syn::parse_quote!(#[allow(unused_mut, clippy::redundant_closure_call)]));
    // A helper that does not wait is inlined where it is called, as nvcc inlines `__device__`
    // functions unless they are `__noinline__` (`#[inline(never)]` here): into the region
    // loops that call it once per thread (CUB's `LoadDirectStriped`). Not in debug builds,
    // where a breakpoint in a helper keeps one location per helper.
    if !d.calls_barrier && !f.attrs.iter().any(|a| a.path().is_ident("inline")) {
        f.attrs.push(syn::parse_quote!(#[cfg_attr(not(debug_assertions), inline(always))]));
    }
    if d.calls_barrier && !f.attrs.iter().any(|a| a.path().is_ident("track_caller")) {
        f.attrs.push(syn::parse_quote!(#[track_caller]));
    }
    let waits = &d.waits;
    quote!(#waits #f)
}

/// What to emit when the item or the signature is invalid: the errors and the item as
/// written, less what the compiler would reject again (`async`, a variadic `...`), so that its
/// body and callers do not cascade into more errors.
pub(crate) fn fallback(item: TokenStream, f: Option<&ItemFn>, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    match f {
        Some(f) => {
            let mut f = f.clone();
            f.sig.asyncness = None;
            f.sig.variadic = None;
            quote! {
                #errors
                #[allow(dead_code)]
                #f
            }
        }
        None => quote!(#errors #item),
    }
}
