//! `#[derive(DeviceCopy)]`: implements `DeviceCopy` for a `#[repr(C)]` struct after checking,
//! at compile time, what the trait's safety contract asks.
//!
//! `DeviceCopy` values are copied as whole machine words and may be zero bits, so a struct
//! must have no padding (padding bytes are uninitialised, and reading them is undefined
//! behaviour) and fields that are all `DeviceCopy` themselves (which also makes all-zero a
//! valid value and keeps host references out). CUDA structs often have padding (`struct { char
//! c; float x; }`); the port writes it as a field (`_pad: [u8; 3]`), and this derive checks that
//! none is left.
//!
//! In three stages, as the other macros: `parse` (the `syn::DeriveInput`), `validate` (a
//! struct, not generic, `#[repr(C)]`, `#[repr(transparent)]` or packed), `expand` (the impl,
//! and a `const` block that fails to compile, naming the field, where padding is left):
//!
//! ```text
//! const _: () = {
//!     fn f<T: DeviceCopy>() {} ... f::<FieldType>();        // each field is DeviceCopy
//!     assert!(offset_of!(S, b) == offset_of!(S, a) + size_of::<A>(), "padding after `a` ...");
//!     assert!(size_of::<S>() == offset_of!(S, b) + size_of::<B>(), "padding at the end ...");
//! };
//! ```
//!
//! On error, the `compile_error!` comes with the impl, so uses of the type as a `DeviceCopy`
//! do not add errors.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Member};

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let item: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let name = &item.ident;
    let fallback = quote!(unsafe impl ::deviceemu::DeviceCopy for #name {});
    match validate(&item) {
        Ok(fields) => expand_valid(&item, fields),
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #fallback)
        }
    }
}

/// The struct's fields (member, type), or why the derive does not apply.
fn validate(item: &DeriveInput) -> syn::Result<Vec<(Member, syn::Type)>> {
    let name = &item.ident;
    let Data::Struct(s) = &item.data else {
        return Err(syn::Error::new_spanned(
            name,
            "derive(DeviceCopy) is for structs; for an enum, copy a plain integer (a `u32` tag) instead",
        ));
    };
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "derive(DeviceCopy) does not check generic structs; write the struct for each element type, or \
             `unsafe impl DeviceCopy` after checking that every instance has no padding",
        ));
    }
    let reprs: Vec<String> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("repr"))
        .map(|a| a.meta.to_token_stream().to_string().replace(' ', ""))
        .collect();
    let laid_out =
        reprs.iter().any(|r| r.contains("(C") || r.contains(",C") || r.contains("transparent") || r.contains("packed"));
    if !laid_out {
        return Err(syn::Error::new_spanned(
            name,
            "derive(DeviceCopy) needs a fixed layout: add `#[repr(C)]` (CUDA's struct layout) above the struct",
        ));
    }
    let fields = match &s.fields {
        Fields::Named(f) => {
            f.named.iter().map(|f| (Member::Named(f.ident.clone().expect("named")), f.ty.clone())).collect()
        }
        Fields::Unnamed(f) => {
            f.unnamed.iter().enumerate().map(|(i, f)| (Member::Unnamed(syn::Index::from(i)), f.ty.clone())).collect()
        }
        Fields::Unit => Vec::new(),
    };
    Ok(fields)
}

fn member_name(m: &Member) -> String {
    match m {
        Member::Named(i) => i.to_string(),
        Member::Unnamed(i) => i.index.to_string(),
    }
}

fn expand_valid(item: &DeriveInput, fields: Vec<(Member, syn::Type)>) -> TokenStream {
    let name = &item.ident;
    let each_field = fields.iter().map(|(_, ty)| quote_spanned!(ty.span()=> __emu_device_copy::<#ty>();));
    let mut checks = Vec::new();
    for (k, (m, _)) in fields.iter().enumerate().skip(1) {
        let (prev, prev_ty) = &fields[k - 1];
        let msg = format!(
            "`{name}` has padding between fields `{}` and `{}`: write it as a field (`_pad{k}: [u8; N]`, N the \
             bytes between them) or reorder the fields, so that DeviceCopy copies no uninitialised bytes",
            member_name(prev),
            member_name(m)
        );
        checks.push(quote! {
            ::core::assert!(
                ::core::mem::offset_of!(#name, #m) == ::core::mem::offset_of!(#name, #prev) + ::core::mem::size_of::<#prev_ty>(),
                #msg
            );
        });
    }
    if let Some((last, last_ty)) = fields.last() {
        let msg = format!(
            "`{name}` has padding after its last field `{}` (its size is rounded up to its alignment): add a field \
             `_pad: [u8; N]` at the end, N the missing bytes, so that DeviceCopy copies no uninitialised bytes",
            member_name(last)
        );
        checks.push(quote! {
            ::core::assert!(
                ::core::mem::size_of::<#name>() == ::core::mem::offset_of!(#name, #last) + ::core::mem::size_of::<#last_ty>(),
                #msg
            );
        });
    }
    let check_fn = format_ident!("__emu_device_copy");
    quote! {
        // SAFETY: checked below at compile time: `#[repr(C)]`, every field `DeviceCopy` (so
        // valid for all-zero bits and free of host references), and no padding byte.
        unsafe impl ::deviceemu::DeviceCopy for #name {}
        const _: () = {
            #[allow(dead_code)]
            fn #check_fn<T: ::deviceemu::DeviceCopy>() {}
            #[allow(dead_code)]
            fn __emu_fields() {
                #(#each_field)*
            }
            #(#checks)*
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_each_gap_and_the_end() {
        let out = expand(quote! {
            #[repr(C)]
            struct P { c: u8, _pad: [u8; 3], x: f32 }
        })
        .to_string();
        assert!(out.contains("unsafe impl :: deviceemu :: DeviceCopy for P"), "{out}");
        assert!(out.contains("offset_of ! (P , _pad)"), "{out}");
        assert!(out.contains("padding after its last field `x`"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
        let bad = expand(quote!(
            struct Q {
                a: u8,
            }
        ))
        .to_string();
        assert!(bad.contains("compile_error") && bad.contains("repr(C)"), "{bad}");
        let tuple = expand(quote!(
            #[repr(C)]
            struct T(u32, f32);
        ))
        .to_string();
        assert!(tuple.contains("offset_of ! (T , 1)"), "{tuple}");
    }
}
