//! The region form of a kernel (`fission/`): `fn __regions(rb: &mut Regions, params)`, which
//! runs one whole block as loops over its threads, and the launcher's call of it.
//!
//! It is compiled with and without the per-access checkers, as the host form is, and keeps
//! the user's spans, so reports and a debugger see the kernel's lines. The launcher hands it
//! to `__private::launch_regions` (barriers) or `launch_lanes` (none) together with the
//! per-thread host form, which the general path runs (`EMU_PATH=general`,
//! `EMU_SCHEDULE=threads`, a debugger attached).

use proc_macro2::TokenStream;
use quote::quote;

use super::host::{fn_allows, fn_param, scalar_check};
use super::{launch_lifetime, rt};
use crate::fission::{Fission, Kind};
use crate::lower::{Kernel, Lowered};
use crate::validate::ParamKind;

/// The name of the region form, an associated function of the launcher struct.
fn name() -> syn::Ident {
    syn::Ident::new("__regions", proc_macro2::Span::call_site())
}

/// Emits the region form, if the kernel has one.
pub(super) fn emit(l: &Lowered, k: &Kernel) -> TokenStream {
    let Ok(fission) = &k.fission else { return TokenStream::new() };
    let (rt, lt) = (rt(), launch_lifetime());
    let f = &l.item;
    let (vis, kname) = (&f.vis, &f.sig.ident);
    let params = l.params.iter().map(fn_param);
    let checks = l.params.iter().filter_map(scalar_check);
    let checked = crate::rewrite::checked();
    let allows = fn_allows();
    let rb = syn::Ident::new("__emu_rb", proc_macro2::Span::mixed_site());
    let body = &fission.body;
    let regions = name();
    let doc =
        format!("The kernel `{kname}` for one whole block: its barrier regions as loops over the block's threads.");
    // The lane loop over several consecutive blocks, where the kernel has one (`spans.rs`).
    let span = fission.span.as_ref().map(|span| {
        let name = span_name();
        let params = l.params.iter().map(fn_param);
        let checks = l.params.iter().filter_map(scalar_check);
        quote! {
            #[doc(hidden)]
            #allows
            #[allow(unused_variables, unused_assignments, non_snake_case, clippy::never_loop, clippy::nonminimal_bool)]
            #[inline]
            #vis fn #name<#lt, const #checked: bool>(#rb: &mut #rt::Regions<'_>, #(#params),*) -> bool {
                #(#checks)*
                #span
            }
        }
    });
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        impl #kname {
            #[doc = #doc]
            #[doc(hidden)]
            #allows
            // `clippy::nonminimal_bool`: normalisation writes `if !(c) { rest }` for a `continue`.
            #[allow(unused_variables, unused_assignments, non_snake_case, clippy::never_loop, clippy::nonminimal_bool)]
            #[inline]
            #vis fn #regions<#lt, const #checked: bool>(#rb: &mut #rt::Regions<'_>, #(#params),*) {
                #(#checks)*
                #body
            }
            #span
        }
    }
}

/// The launcher's call for the checked or plain forms (`checked` says which), or `None` when
/// the kernel has no region form.
pub(super) fn launch_call(l: &Lowered, k: &Kernel, fission: &Fission, checked: bool) -> TokenStream {
    let rt = rt();
    let f = &l.item;
    let (name, ctx) = (&f.sig.ident, &k.ctx);
    let rb = syn::Ident::new("__emu_rb", proc_macro2::Span::mixed_site());
    let args: Vec<_> = l.params.iter().map(|p| &p.name).collect();
    let regions = name_ident();
    let per_thread = quote!(#name::#name::<#checked>(#ctx, #(#args),*));
    // A kernel whose barriers fission found only after normalising (`cta.sync()`) has a plain
    // per-thread form, whose barriers block its fiber: the general path polls it as a future
    // that runs the thread at its first poll.
    let per_thread =
        if k.state_machine || fission.kind == Kind::Lanes { per_thread } else { quote!(async move { #per_thread }) };
    let block = quote!(#name::#regions::<#checked>(#rb, #(#args),*));
    // The writable buffers, which `EMU_PATH=verify` compares between the two paths.
    let written = l.params.iter().filter(|p| matches!(p.kind, ParamKind::Buffer { writable: true, .. })).map(|p| {
        let (n, s) = (&p.name, p.name.to_string());
        quote!(#rt::Written::of(#s, &#n))
    });
    let written = quote!(&[#(#written),*]);
    match fission.kind {
        Kind::Regions if fission.warps || fission.written_out || fission.shared_once => {
            let (warps, written_out, shared_once) = (fission.warps, fission.written_out, fission.shared_once);
            let guard = quote!(#rt::Guard { warps: #warps, written_out: #written_out, shared_once: #shared_once });
            quote!(#rt::launch_regions_guarded(__emu_info, __emu_config, #written, #guard, move |#rb| #block, move |#ctx| #per_thread))
        }
        Kind::Regions => {
            quote!(#rt::launch_regions(__emu_info, __emu_config, #written, move |#rb| #block, move |#ctx| #per_thread))
        }
        // The span form runs unchecked launches only: the checkers see each block.
        Kind::Lanes if fission.span.is_some() && !checked => {
            let span = span_name();
            let span = quote!(#name::#span::<#checked>(#rb, #(#args),*));
            quote!(#rt::launch_lanes_spanned(__emu_info, __emu_config, #written, move |#rb| #span, move |#rb| #block, move |#ctx| #per_thread))
        }
        Kind::Lanes => {
            quote!(#rt::launch_lanes(__emu_info, __emu_config, #written, move |#rb| #block, move |#ctx| #per_thread))
        }
    }
}

/// The name of the span form (`fission/spans.rs`).
fn span_name() -> syn::Ident {
    syn::Ident::new("__span", proc_macro2::Span::call_site())
}

fn name_ident() -> syn::Ident {
    name()
}
