//! The host form of a kernel: the function one emulated GPU thread runs.
//!
//! `fn name<'l, const CHECKED: bool>(ctx: ThreadCtx, params) -> Exit`, or, for a state-machine
//! kernel, `-> impl Future<Output = Exit>` (`async move { body; exit_here() }`). It is compiled
//! twice, with and without the per-access checkers (`CHECKED`), and the launch picks one, so
//! that checkers that are off cost nothing.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{launch_lifetime, rt};
use crate::lower::{Kernel, Lowered};
use crate::validate::{Param, ParamKind};

/// A parameter of the kernel function (host and nvptx forms alike): buffers become views that
/// live as long as the launch.
pub(super) fn fn_param(p: &Param) -> TokenStream {
    let (rt, lt, name) = (rt(), launch_lifetime(), &p.name);
    let mutability = p.mutable.then(|| quote!(mut));
    match &p.kind {
        ParamKind::Buffer { elem, writable: false } => quote!(#mutability #name: #rt::Global<#lt, #elem>),
        ParamKind::Buffer { elem, writable: true } => quote!(#mutability #name: #rt::GlobalMut<#lt, #elem>),
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(#mutability #name: #ty)
        }
    }
}

/// The compile-time check that a scalar parameter's type may be passed to a kernel.
pub(super) fn scalar_check(p: &Param) -> Option<TokenStream> {
    let rt = rt();
    let ty = &p.ty;
    matches!(p.kind, ParamKind::Scalar)
        .then(|| quote_spanned!(ty.span()=> const _: () = #rt::assert_kernel_scalar::<#ty>();))
}

/// Where the thread exits at the end of the body: `exit_here()` spanned on the closing brace.
pub(super) fn exit(l: &Lowered) -> TokenStream {
    let close = l.item.block.brace_token.span.close();
    quote_spanned!(close=> ::deviceemu::__private::exit_here())
}

/// The attributes both forms of the kernel function carry.
pub(super) fn fn_allows() -> TokenStream {
    quote!(#[allow(unused_mut, unused_braces, unreachable_code, clippy::needless_return, clippy::too_many_arguments, clippy::redundant_closure_call, clippy::needless_else, clippy::if_same_then_else)])
}

/// Emits the host form.
pub(super) fn emit(l: &Lowered, k: &Kernel) -> TokenStream {
    let (rt, lt, ctx) = (rt(), launch_lifetime(), &k.ctx);
    let f = &l.item;
    let (attrs, vis, unsafety, name) = (&f.attrs, &f.vis, &f.sig.unsafety, &f.sig.ident);
    let params = l.params.iter().map(fn_param);
    let checks = l.params.iter().filter_map(scalar_check);
    let checked = crate::rewrite::checked();
    let (block, exit, allows) = (&k.host_block, exit(l), fn_allows());
    let (ret, body) = if k.state_machine {
        // `let _ = &ctx;` captures the whole `ThreadCtx` (the body alone would capture only the
        // fields it reads, e.g. `__emu_ctx.thread_idx.x`), so that every frame of the thread's
        // state machine holds all six of its coordinates under one name, `__emu_ctx`, as the
        // plain form's argument does: debuggers read them there (tools/gdb, tools/lldb).
        (
            quote!(impl ::core::future::Future<Output = #rt::Exit> + use<#lt, #checked>),
            quote!(async move { let _ = &#ctx; #block; #exit }),
        )
    } else {
        // The plain form's `ctx` argument, kept readable by debuggers to the end (`keep_ctx`).
        let close = l.item.block.brace_token.span.close();
        let keep = quote_spanned!(close=> #rt::keep_ctx(&#ctx));
        (quote!(#rt::Exit), quote!(#block; #keep; #exit))
    };
    let direct = direct_call(l);
    let doc_form = doc_form(l, k);
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        impl #name {
            #(#attrs)*
            #[doc(hidden)]
            #allows
            #[inline]
            #vis #unsafety fn #name<#lt, const #checked: bool>(#ctx: #rt::ThreadCtx, #(#params),*) -> #ret {
                #(#checks)*
                #body
            }
        }
        #direct
        #doc_form
    }
}

/// What the kernel's name means as a function on the host: a call of it (`saxpy(2.0, &x, &mut
/// y)`) fails with `__private::NotAFunction`'s message, which says to use `launch!`. It takes
/// any arguments, so that their types do not add errors of their own; its bound names a
/// lifetime parameter, so that it is checked at each call and not where it is defined.
fn direct_call(l: &Lowered) -> TokenStream {
    let f = &l.item;
    let (vis, name) = (&f.vis, &f.sig.ident);
    let call_lt = syn::Lifetime::new("'__emu_call", proc_macro2::Span::mixed_site());
    let tys: Vec<_> = (0..l.params.len())
        .map(|i| syn::Ident::new(&format!("__EmuArg{i}"), proc_macro2::Span::mixed_site()))
        .collect();
    quote! {
        #[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
        #[doc(hidden)]
        #[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
        #vis fn #name<#call_lt, #(#tys),*>(#(_: #tys),*) -> !
        where
            #name: ::deviceemu::__private::NotAFunction<#call_lt>,
        {
            ::core::unreachable!()
        }
    }
}

/// What rustdoc shows for the kernel: the function as the user wrote it (signature and doc
/// comments), with a line on how to launch it; the host form and the launcher are hidden.
fn doc_form(l: &Lowered, k: &Kernel) -> TokenStream {
    let f = &l.item;
    let (vis, unsafety, name, inputs, docs) = (&f.vis, &f.sig.unsafety, &f.sig.ident, &f.sig.inputs, &k.docs);
    let how = format!(" A `#[kernel]`: launch it with `launch!({name}<<<grid, block>>>(...))`.");
    let spacer = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
    quote! {
        #[cfg(all(doc, not(target_arch = "nvptx64")))]
        #(#docs)*
        #spacer
        #[doc = #how]
        #[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
        #vis #unsafety fn #name(#inputs) {}
    }
}
