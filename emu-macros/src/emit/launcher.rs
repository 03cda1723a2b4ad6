//! The launcher of a kernel: `struct name {}` and `name::__launch`, which `launch!` calls.
//!
//! `__launch` takes the launch configuration and the host's arguments (buffers as
//! `impl KernelArg<T>` / `impl KernelArgMut<T>`: `&buf`, `&mut buf` or a slice of one); it
//! runs the launch on the GPU when that is the target, or else makes each buffer's description
//! and view, and hands the host form (checked or plain) to the scheduler. The views borrow the buffers and their descriptions, locals of
//! `__launch`, so they cannot outlive the launch.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::rt;
use crate::lower::{Kernel, Lowered};
use crate::validate::{Param, ParamKind};

/// The host's argument for `p`.
fn launch_param(p: &Param) -> TokenStream {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        // `&buf`, `&mut buf` or a slice (`buf.slice(a..b)`, `buf.slice_mut(a..b)`).
        ParamKind::Buffer { elem, writable: false } => quote!(#name: impl #rt::KernelArg<#elem>),
        ParamKind::Buffer { elem, writable: true } => quote!(mut #name: impl #rt::KernelArgMut<#elem>),
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(#name: #ty)
        }
    }
}

/// A device-side launch's argument for `p` (`__launch_device`): a view of the parent's
/// global memory for a buffer, the value for the others.
fn device_param(p: &Param) -> TokenStream {
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

/// The view a device-side launch makes of a buffer argument.
fn device_view(p: &Param) -> Option<TokenStream> {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        ParamKind::Buffer { elem, writable: false } => {
            Some(quote!(let #name = <_ as #rt::DeviceArg<'__emu_l, #elem>>::into_view(#name);))
        }
        ParamKind::Buffer { elem, writable: true } => {
            Some(quote!(let #name = <_ as #rt::DeviceArgMut<'__emu_l, #elem>>::into_view(#name);))
        }
        ParamKind::Scalar | ParamKind::View => None,
    }
}

/// `__run_views`'s parameter for `p`: buffers as the views the kernel body takes.
fn view_param(p: &Param) -> TokenStream {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        ParamKind::Buffer { elem, writable: false } => quote!(#name: #rt::Global<'_, #elem>),
        ParamKind::Buffer { elem, writable: true } => quote!(#name: #rt::GlobalMut<'_, #elem>),
        ParamKind::Scalar | ParamKind::View => {
            let ty = &p.ty;
            quote!(#name: #ty)
        }
    }
}

/// The GPU launch's argument for `p`.
fn gpu_arg(p: &Param) -> TokenStream {
    let (rt, name) = (rt(), &p.name);
    match &p.kind {
        ParamKind::Buffer { .. } => quote!(#rt::GpuArg::slice(&#name)),
        ParamKind::Scalar | ParamKind::View => quote!(#rt::GpuArg::scalar(&#name)),
    }
}

/// The emulated launch's view of a buffer parameter, made from its description.
fn view_setup(p: &Param) -> Option<TokenStream> {
    let (rt, name) = (rt(), &p.name);
    let ParamKind::Buffer { writable, .. } = &p.kind else { return None };
    let meta = format_ident!("__emu_meta_p{}", name);
    let pstr = name.to_string();
    let make = match writable {
        false => quote!(global(&#name, &#meta)),
        true => quote!(global_mut(&mut #name, &#meta)),
    };
    Some(quote! {
        let #meta = #rt::meta(#pstr, &#name, __emu_checks);
        // SAFETY: `#meta` is what `meta` returned for this buffer, unchanged.
        let #name = unsafe { #rt::#make }?;
    })
}

/// The launch on the GPU, when that is the target: a `host_only` kernel has no PTX, and its
/// launch fails with an error that says so.
fn gpu_launch(l: &Lowered, k: &Kernel, on_stream: bool) -> TokenStream {
    let rt = rt();
    if k.attr.host_only {
        return quote! {
            if let ::core::option::Option::Some(r) = #rt::host_only_on_gpu(__emu_info) {
                return r;
            }
        };
    }
    let ptx = match crate::embedded_ptx() {
        Some(path) => quote!(::core::option::Option::Some(::core::include_str!(#path))),
        None => quote!(::core::option::Option::None),
    };
    let gpu_args = l.params.iter().map(gpu_arg);
    if on_stream {
        return quote! {
            const __EMU_PTX: ::core::option::Option<&'static str> = #ptx;
            if let ::core::option::Option::Some(r) =
                #rt::launch_on_gpu_stream(__emu_info, __EMU_PTX, __emu_stream, __emu_config, &[#(#gpu_args),*])
            {
                return r;
            }
        };
    }
    quote! {
        const __EMU_PTX: ::core::option::Option<&'static str> = #ptx;
        if let ::core::option::Option::Some(r) =
            #rt::launch_on_gpu(__emu_info, __EMU_PTX, __emu_config, &[#(#gpu_args),*])
        {
            return r;
        }
    }
}

/// The queued launch's handle of a buffer parameter (`launch!` with a stream).
fn queue_setup(p: &Param) -> Option<TokenStream> {
    let name = &p.name;
    match &p.kind {
        ParamKind::Buffer { writable: false, .. } => Some(quote!(let #name = __emu_queued.read(#name);)),
        ParamKind::Buffer { writable: true, .. } => Some(quote!(let mut #name = __emu_queued.write(#name);)),
        ParamKind::Scalar | ParamKind::View => None,
    }
}

/// The argument the queued job passes to `__run` for `p`.
fn queued_arg(p: &Param) -> TokenStream {
    let name = &p.name;
    match &p.kind {
        ParamKind::Buffer { writable: false, .. } => quote!(&#name),
        ParamKind::Buffer { writable: true, .. } => quote!(&mut #name),
        ParamKind::Scalar | ParamKind::View => quote!(#name),
    }
}

/// The calls of the host form, checked and plain, in the closures the scheduler runs.
fn host_calls(l: &Lowered, k: &Kernel) -> (TokenStream, TokenStream) {
    let f = &l.item;
    let (name, ctx) = (&f.sig.ident, &k.ctx);
    let args: Vec<_> = l.params.iter().map(|p| &p.name).collect();
    let call_as = |checked: bool| match &f.sig.unsafety {
        Some(_) => quote!(unsafe { #name::#name::<#checked>(#ctx, #(#args),*) }),
        None => quote!(#name::#name::<#checked>(#ctx, #(#args),*)),
    };
    (call_as(true), call_as(false))
}

/// Emits the launcher.
pub(super) fn emit(l: &Lowered, k: &Kernel) -> TokenStream {
    let rt = rt();
    let f = &l.item;
    let (vis, name, ctx, docs) = (&f.vis, &f.sig.ident, &k.ctx, &k.docs);
    let name_str = name.to_string();
    let launcher_doc =
        format!("Launcher of the kernel `{name}`: launch it with `launch!({name}<<<grid, block>>>(args))`.");
    let max_threads = k.attr.launch_bounds.map_or(0, |(t, _)| t);
    let (cx, cy, cz) = k.attr.cluster.unwrap_or((0, 0, 0));
    let end_line = quote_spanned!(f.block.brace_token.span.close()=> ::core::line!());
    let launch_params: Vec<_> = l.params.iter().map(launch_param).collect();
    let arg_names: Vec<_> = l.params.iter().map(|p| &p.name).collect();
    let queue_setups = l.params.iter().filter_map(queue_setup);
    let queued_args = l.params.iter().map(queued_arg);
    let setup = l.params.iter().filter_map(view_setup);
    let gpu = gpu_launch(l, k, false);
    let gpu_stream = gpu_launch(l, k, true);
    let (checked, plain) = host_calls(l, k);
    let device_params: Vec<_> = l.params.iter().map(device_param).collect();
    let device_views = l.params.iter().filter_map(device_view);
    let view_params: Vec<_> = l.params.iter().map(view_param).collect();
    let launch_fn = if k.state_machine { quote!(#rt::launch_tasks) } else { quote!(#rt::launch) };
    let (checked_launch, plain_launch) = match &k.fission {
        Ok(fission) => {
            // Region code that calls `#[device]` helpers: each helper's published answer
            // decides, at compile time, between the region form and the general path.
            let general = |body: &TokenStream| {
                let (body, rt, launch_fn, ctx) = (body.clone(), rt.clone(), launch_fn.clone(), ctx.clone());
                move |why: String| quote!({ #rt::announce_general(__emu_info, #why); #launch_fn(__emu_info, __emu_config, move |#ctx| #body) })
            };
            (
                crate::fission::helpers::choose(
                    &fission.helpers,
                    super::regions::launch_call(l, k, fission, true),
                    general(&checked),
                ),
                crate::fission::helpers::choose(
                    &fission.helpers,
                    super::regions::launch_call(l, k, fission, false),
                    general(&plain),
                ),
            )
        }
        Err(why) => (
            quote!({ #rt::announce_general(__emu_info, #why); #launch_fn(__emu_info, __emu_config, move |#ctx| #checked) }),
            quote!({ #rt::announce_general(__emu_info, #why); #launch_fn(__emu_info, __emu_config, move |#ctx| #plain) }),
        ),
    };
    quote! {
        #(#docs)*
        #[doc = #launcher_doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #[cfg(not(target_arch = "nvptx64"))]
        #vis struct #name {}

        #[cfg(not(target_arch = "nvptx64"))]
        impl #name {
            /// The kernel's name, as reports and the GPU module spell it.
            #[allow(dead_code)]
            pub const NAME: &'static str = #name_str;

            /// The kernel's static facts.
            #[doc(hidden)]
            #[allow(dead_code)]
            #vis fn __info() -> &'static #rt::KernelInfo {
                static __EMU_INFO: #rt::KernelInfo = #rt::KernelInfo {
                    name: #name_str,
                    file: ::core::file!(),
                    line: ::core::line!(),
                    end_line: #end_line,
                    max_threads: #max_threads,
                    cluster: [#cx, #cy, #cz],
                };
                &__EMU_INFO
            }

            /// Launches the kernel on the default stream and waits for it; use `launch!`
            /// rather than calling this directly.
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __launch(
                __emu_config: #rt::LaunchConfig,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                #rt::on_default_stream(move || #name::__run(__emu_config, #(#arg_names),*))
            }

            /// Queues the kernel on a stream (`launch!` with a stream); returns launch-time
            /// errors only. The caller's location (the `launch!` site) names the launch in the
            /// error of a later fault on the GPU.
            #[doc(hidden)]
            #[track_caller]
            #[allow(clippy::too_many_arguments, dead_code, unused_mut)]
            #vis fn __launch_on(
                __emu_stream: &#rt::Stream,
                __emu_config: #rt::LaunchConfig,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                let __emu_info = #name::__info();
                #gpu_stream
                let mut __emu_queued = #rt::Queued::new(__emu_stream, __emu_info, &__emu_config)?;
                #(#queue_setups)*
                __emu_queued.submit(move || #name::__run(__emu_config, #(#queued_args),*))
            }

            /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
            /// kernel as a child of the running block, on the parent's views.
            #[doc(hidden)]
            #[track_caller]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __launch_device<'__emu_l>(
                __emu_config: #rt::LaunchConfig,
                __emu_stream: ::core::option::Option<&#rt::DeviceStream>,
                #(#device_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                let __emu_info = #name::__info();
                #(#device_views)*
                #rt::device_launch(
                    __emu_info,
                    __emu_config,
                    __emu_stream,
                    ::core::panic::Location::caller(),
                    move || #name::__run_views(__emu_config, #rt::launch_checks(), #(#arg_names),*),
                )
            }

            /// Runs the launch now, on this thread, on views of its buffers (`__run`'s, or a
            /// device-side launch's: the parent's), with the checkers `__emu_checks`.
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __run_views(
                __emu_config: #rt::LaunchConfig,
                __emu_checks: #rt::Checks,
                #(#view_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                let __emu_info = #name::__info();
                if #rt::per_access(__emu_checks) {
                    #checked_launch
                } else {
                    #plain_launch
                }
            }

            /// Runs the launch now, on this thread.
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __run(
                __emu_config: #rt::LaunchConfig,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                let __emu_info = #name::__info();
                #gpu
                let __emu_checks = #rt::launch_checks();
                #(#setup)*
                #name::__run_views(__emu_config, __emu_checks, #(#arg_names),*)
            }
        }
    }
}
