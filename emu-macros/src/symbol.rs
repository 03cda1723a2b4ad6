//! `#[constant]` and `#[device_global]`: module-scope device variables (CUDA's `__constant__`
//! and `__device__`).
//!
//! `#[constant] static FILTER: [f32; 5] = INIT;` becomes a marker type
//! `__emu_symbol_FILTER` implementing `SymbolDef` (the static's type, name, PTX variable and
//! PTX module) and `static FILTER: deviceemu::Constant<__emu_symbol_FILTER> =
//! Constant::new(INIT);`. On nvptx the constant's `.const` variable is declared with
//! `global_asm!`, and the static itself (its initial value) is exported as
//! `__emu_cinit_FILTER`, copied into the `.const` variable when the module loads.
//! `#[device_global]` makes a `deviceemu::DeviceGlobal<..>`, exported on nvptx as the
//! `.global` `__emu_global_NAME`. See `emu-runtime/src/device/symbol.rs`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// Which attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Constant,
    DeviceGlobal,
}

impl Kind {
    fn attr(self) -> &'static str {
        match self {
            Kind::Constant => "constant",
            Kind::DeviceGlobal => "device_global",
        }
    }
}

pub(crate) fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let name = kind.attr();
    let s: syn::ItemStatic = match syn::parse2(item.clone()) {
        Ok(s) => s,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                format!("`#[{name}]` goes on a `static`: `#[{name}] static NAME: [f32; 16] = [0.0; 16];`"),
            );
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new(attr.span(), format!("`#[{name}]` takes no arguments")));
    }
    if let syn::StaticMutability::Mut(m) = &s.mutability {
        let what = match kind {
            Kind::Constant => "a `#[constant]` is written by the host only (`copy_to_symbol`): remove `mut`",
            Kind::DeviceGlobal => "kernels write a `#[device_global]` through `NAME.view()`: remove `mut`",
        };
        errors.push(syn::Error::new_spanned(m, what));
    }
    if kind == Kind::DeviceGlobal && !matches!(&*s.ty, syn::Type::Array(_)) {
        let ty = &s.ty;
        errors.push(syn::Error::new_spanned(
            ty,
            format!(
                "a `#[device_global]` is an array, which kernels index through `NAME.view()`: for one value, \
                 write `[{}; 1]` (and its value `[v]`)",
                quote!(#ty)
            ),
        ));
    }
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    let syn::ItemStatic { attrs, vis, ident, ty, expr, .. } = &s;
    let ident_str = ident.to_string();
    let marker = format_ident!("__emu_symbol_{}", ident);
    let (prefix, wrapper) = match kind {
        Kind::Constant => ("__emu_const_", quote!(Constant)),
        Kind::DeviceGlobal => ("__emu_global_", quote!(DeviceGlobal)),
    };
    let ptx_name = format!("{prefix}{ident}");
    let ptx = match crate::embedded_ptx() {
        Some(path) => quote!(::core::option::Option::Some(::core::include_str!(#path))),
        None => quote!(::core::option::Option::None),
    };
    let (export, nvptx_items, device_ptr) = match kind {
        Kind::Constant => {
            let decl = format!(".visible .const .align {{a}} .b8 {ptx_name}[{{n}}];");
            let addr = format!("mov.u64 {{p}}, {ptx_name};\ncvta.const.u64 {{p}}, {{p}};");
            (
                format!("__emu_cinit_{ident}"),
                quote! {
                    #[cfg(target_arch = "nvptx64")]
                    ::core::arch::global_asm!(
                        #decl,
                        a = const ::core::mem::align_of::<#ty>(),
                        n = const ::core::mem::size_of::<#ty>(),
                    );
                },
                quote! {
                    let p: u64;
                    // SAFETY: reads the generic address of the `.const` variable declared
                    // next to the static.
                    unsafe { ::core::arch::asm!(#addr, p = out(reg64) p, options(pure, nomem, nostack)) };
                    p as usize as *const #ty
                },
            )
        }
        Kind::DeviceGlobal => (ptx_name.clone(), quote!(), quote!(::core::ptr::addr_of!(#ident) as *const #ty)),
    };
    quote! {
        #(#errors)*
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #marker;

        impl ::deviceemu::__private::SymbolDef for #marker {
            type Value = #ty;
            const NAME: &'static str = #ident_str;
            const PTX_NAME: &'static str = #ptx_name;
            #[cfg(not(target_arch = "nvptx64"))]
            const PTX: ::core::option::Option<&'static str> = #ptx;
            #[cfg(target_arch = "nvptx64")]
            const PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            fn device_ptr() -> *const #ty {
                #device_ptr
            }
        }

        #(#attrs)*
        #[cfg_attr(target_arch = "nvptx64", export_name = #export)]
        #vis static #ident: ::deviceemu::__private::#wrapper<#marker> = ::deviceemu::__private::#wrapper::new(#expr);

        #nvptx_items
    }
}
