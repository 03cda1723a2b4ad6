//! The nvptx side of a kernel: the `.entry` of the PTX module, and the plain form of the
//! kernel function it calls (the body with checked accesses, no host context, no awaits).
//!
//! The entry takes each buffer as a device pointer and a length, and makes the views from
//! them; it first tells the optimiser what the hardware guarantees of the thread indices, and
//! what `launch_bounds` promises of the block size.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::host::{exit, fn_allows, fn_param, scalar_check};
use super::{launch_lifetime, rt};
use crate::lower::{Kernel, Lowered};
use crate::validate::{Param, ParamKind};

/// The entry's parameters for `p`: a scalar as it is, a buffer as a pointer and a length.
fn entry_params(p: &Param) -> TokenStream {
    let name = &p.name;
    match &p.kind {
        ParamKind::Buffer { elem, writable } => {
            let len = format_ident!("{}_len", name);
            let ptr = if *writable { quote!(*mut #elem) } else { quote!(*const #elem) };
            quote!(#name: #ptr, #len: usize)
        }
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(#name: #ty)
        }
    }
}

/// The view the entry makes of a buffer parameter.
fn entry_setup(p: &Param) -> Option<TokenStream> {
    let (rt, name) = (rt(), &p.name);
    let ParamKind::Buffer { elem, writable } = &p.kind else { return None };
    let len = format_ident!("{}_len", name);
    let (view, ptr) = match writable {
        false => (quote!(Global), quote!(#name as *mut #elem)),
        true => (quote!(GlobalMut), quote!(#name)),
    };
    Some(quote! {
        // SAFETY: the host passes a device pointer to `len` elements.
        let #name = unsafe { #rt::#view::<#elem>::from_raw_parts(#ptr, #len, ()) };
    })
}

/// Emits the entry and the plain form.
pub(super) fn emit(l: &Lowered, k: &Kernel) -> TokenStream {
    let rt = rt();
    let f = &l.item;
    let (name, unsafety) = (&f.sig.ident, &f.sig.unsafety);
    let name_str = name.to_string();
    let entry = format_ident!("__emu_entry_{}", name);
    let entry_params = l.params.iter().map(entry_params);
    let setup = l.params.iter().filter_map(entry_setup);
    let args = l.params.iter().map(|p| &p.name);
    let call = match unsafety {
        Some(_) => quote!(unsafe { #name(#(#args),*) }),
        None => quote!(#name(#(#args),*)),
    };
    // `launch_bounds(T)`: the launcher refuses blocks of more than T threads and the PTX says
    // `.maxntid T`, so the entry may tell the optimiser so, as `__launch_bounds__` tells nvcc.
    let assume_bounds = k.attr.launch_bounds.map(|(max_threads, _)| {
        quote! {
            // SAFETY: no block of more than `max_threads` threads runs this entry: `__launch`
            // refuses it (`KernelInfo::max_threads`), and emu-build writes `.maxntid` into the
            // PTX, so that the driver refuses it too.
            unsafe { #rt::assume_launch_bounds(#max_threads) };
        }
    });
    let plain = plain_form(l);
    quote! {
        /// The GPU entry point of the kernel (`.entry` in the PTX module).
        #[cfg(target_arch = "nvptx64")]
        #[export_name = #name_str]
        #[allow(non_snake_case)]
        pub unsafe extern "ptx-kernel" fn #entry(#(#entry_params),*) {
            #rt::assume_index_facts();
            #assume_bounds
            #(#setup)*
            #call;
        }

        #plain
    }
}

/// The kernel function as nvptx compiles it.
fn plain_form(l: &Lowered) -> TokenStream {
    let (rt, lt) = (rt(), launch_lifetime());
    let f = &l.item;
    let (attrs, vis, unsafety, name, block) = (&f.attrs, &f.vis, &f.sig.unsafety, &f.sig.ident, &f.block);
    let params = l.params.iter().map(fn_param);
    let checks = l.params.iter().filter_map(scalar_check);
    let checked = crate::rewrite::checked();
    let (exit, allows) = (exit(l), fn_allows());
    quote! {
        #(#attrs)*
        #[cfg(target_arch = "nvptx64")]
        #allows
        #[inline]
        #vis #unsafety fn #name<#lt>(#(#params),*) -> #rt::Exit {
            #[allow(dead_code)]
            const #checked: bool = false;
            #(#checks)*
            #block;
            #exit
        }
    }
}
