//! The nvptx side of device-side launches: `name::__launch_device` on the GPU, which a
//! `launch!(name<<<..>>>(args))` in another kernel's body calls (`launch.rs`).
//!
//! It lowers the launch to the CUDA device runtime's ABI as `nvcc -rdc=true` emits it
//! (`emu-runtime/src/device/devrt.rs`): `cudaGetParameterBufferV2(entry, grid, block,
//! shared)`, the parameters stored with the layout of the kernel's `.entry` (the one
//! `ptx.rs` emits: a slice as its pointer then a `usize` length, a scalar as it is), then
//! `cudaLaunchDeviceV2(buffer, stream)`. The entry's address is taken from the function
//! itself, which LLVM writes as `mov.u64 %rd, name;`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::rt;
use crate::lower::Lowered;
use crate::validate::{Param, ParamKind};

/// `__launch_device`'s parameter for `p`: a view of the parent's global memory for a buffer.
fn param(p: &Param) -> TokenStream {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        ParamKind::Buffer { elem, writable: false } => quote!(#name: impl #rt::DeviceArg<'__emu_l, #elem>),
        ParamKind::Buffer { elem, writable: true } => quote!(#name: impl #rt::DeviceArgMut<'__emu_l, #elem>),
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(#name: #ty)
        }
    }
}

/// The stores of `p` into the parameter buffer `__emu_b`, as the entry takes it.
fn push(p: &Param) -> TokenStream {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        ParamKind::Buffer { elem, writable } => {
            let (tr, ptr) = match writable {
                false => (quote!(DeviceArg), quote!(*const #elem)),
                true => (quote!(DeviceArgMut), quote!(*mut #elem)),
            };
            quote! {
                let #name = <_ as #rt::#tr<'__emu_l, #elem>>::into_view(#name);
                __emu_b.push::<#ptr>(#name.as_ptr() as #ptr);
                __emu_b.push::<usize>(#name.len());
            }
        }
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(__emu_b.push::<#ty>(#name);)
        }
    }
}

/// Emits the kernel's nvptx launcher type and its `__launch_device`.
pub(super) fn emit(l: &Lowered) -> TokenStream {
    let rt = rt();
    let f = &l.item;
    let (vis, name) = (&f.vis, &f.sig.ident);
    let entry = format_ident!("__emu_entry_{}", name);
    let params = l.params.iter().map(param);
    let pushes = l.params.iter().map(push);
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #[cfg(target_arch = "nvptx64")]
        impl #name {
            /// A device-side launch on the GPU, through the CUDA device runtime.
            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __launch_device<'__emu_l>(
                __emu_grid: #rt::Dim3,
                __emu_block: #rt::Dim3,
                __emu_shared: usize,
                __emu_stream: ::core::option::Option<&#rt::DeviceStream>,
                #(#params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                // SAFETY: `#entry` is this kernel's `.entry` in this module, and the pushes
                // store its parameters in order, with their types (`ptx.rs`'s entry).
                unsafe {
                    let mut __emu_b = #rt::ParamBuffer::get(#entry as *const (), __emu_grid, __emu_block, __emu_shared)?;
                    #(#pushes)*
                    __emu_b.launch(__emu_stream)
                }
            }
        }
    }
}
