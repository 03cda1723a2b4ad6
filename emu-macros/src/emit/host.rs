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
    quote!(#[allow(unused_mut, unused_braces, unreachable_code, clippy::needless_return, clippy::too_many_arguments)])
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
        (
            quote!(impl ::core::future::Future<Output = #rt::Exit> + use<#lt, #checked>),
            quote!(async move { #block; #exit }),
        )
    } else {
        (quote!(#rt::Exit), quote!(#block; #exit))
    };
    quote! {
        #(#attrs)*
        #[cfg(not(target_arch = "nvptx64"))]
        #allows
        #[inline]
        #vis #unsafety fn #name<#lt, const #checked: bool>(#ctx: #rt::ThreadCtx, #(#params),*) -> #ret {
            #(#checks)*
            #body
        }
    }
}
