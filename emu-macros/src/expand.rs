//! Stage 3: expand `#[kernel]` and `#[device]`.
//!
//! For `#[kernel] pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) { body }` this emits:
//!
//! ```text
//! pub struct saxpy {}                       // type namespace: the launcher
//! impl saxpy { pub fn __launch(config, a: f32, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) }
//! pub fn saxpy(a: f32, x: Global<f32>, y: GlobalMut<f32>) -> Exit { rewritten body; exit_here() }
//! ```
//!
//! A kernel with barriers in its body gets, on the host, the same function returning a future
//! instead (`async move { body with barriers awaited; exit_here() }`, see `awaits.rs`): each GPU
//! thread is then a state machine the scheduler polls at barriers. The plain form is still the
//! one compiled for nvptx.
//!
//! The function keeps the kernel's name and the user's spans, so a debugger shows `saxpy` and
//! the user's lines. A braced struct only takes the type namespace, so both can share the name;
//! `launch!(saxpy<<<..>>>(..))` resolves `saxpy::__launch` through the struct.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{parse2, ItemFn};

use crate::rewrite::{is_view_type, rewrite_block};
use crate::signature::{self, ParamKind};

fn no_args(attr: &TokenStream, name: &str) -> Option<syn::Error> {
    (!attr.is_empty()).then(|| syn::Error::new_spanned(attr, format!("`#[{name}]` takes no arguments: write `#[{name}]`")))
}

/// `launch_bounds(MAX_THREADS[, MIN_BLOCKS])`, CUDA's `__launch_bounds__`.
fn parse_kernel_args(attr: TokenStream) -> Result<Option<(u32, u32)>, syn::Error> {
    if attr.is_empty() {
        return Ok(None);
    }
    const USAGE: &str = "`#[kernel]` takes one optional argument, CUDA's `__launch_bounds__`: \
                         `#[kernel(launch_bounds(256))]` or `#[kernel(launch_bounds(256, 8))]`";
    let meta: syn::Meta = syn::parse2(attr.clone()).map_err(|_| syn::Error::new_spanned(&attr, USAGE))?;
    let syn::Meta::List(list) = &meta else { return Err(syn::Error::new_spanned(&attr, USAGE)) };
    if !list.path.is_ident("launch_bounds") {
        return Err(syn::Error::new_spanned(&list.path, USAGE));
    }
    let nums = list
        .parse_args_with(syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated)
        .map_err(|_| syn::Error::new_spanned(&list.tokens, USAGE))?;
    let vals: Vec<u32> = nums.iter().map(|n| n.base10_parse::<u32>()).collect::<Result<_, _>>()?;
    match vals.as_slice() {
        [t] if (1..=1024).contains(t) => Ok(Some((*t, 0))),
        [t, b] if (1..=1024).contains(t) => Ok(Some((*t, *b))),
        _ => Err(syn::Error::new_spanned(
            &list.tokens,
            "launch_bounds takes the most threads per block (1 to 1024) and, optionally, the fewest blocks per multiprocessor",
        )),
    }
}

/// `#[kernel]`.
pub(crate) fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut f: ItemFn = match parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(Span::call_site(), "`#[kernel]` applies to a function: `#[kernel] fn name(params) { body }`");
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors: Vec<syn::Error> = Vec::new();
    let bounds = parse_kernel_args(attr).unwrap_or_else(|e| {
        errors.push(e);
        None
    });
    let max_threads = bounds.map_or(0, |(t, _)| t);
    let params = match signature::parse(&f.sig) {
        Ok(p) => p,
        Err(e) => {
            errors.push(e);
            return fallback(&f, errors);
        }
    };

    let name = f.sig.ident.clone();
    let name_str = name.to_string();
    let vis = &f.vis;
    let docs: Vec<_> = f.attrs.iter().filter(|a| a.path().is_ident("doc")).cloned().collect();
    let launcher_doc = format!("Launcher of the kernel `{name}`: launch it with `launch!({name}<<<grid, block>>>(args))`.");
    if docs.is_empty() {
        let d = format!("The kernel `{name}`, as one GPU thread runs it.");
        f.attrs.push(syn::parse_quote!(#[doc = #d]));
    }

    // The body, with views in scope.
    let views = params
        .iter()
        .map(|p| (p.name.to_string(), !matches!(p.kind, ParamKind::Scalar)))
        .collect();
    errors.extend(rewrite_block(&mut f.block, views, true, &name_str));

    let rt = quote!(::deviceemu::__private);
    let mut fn_params = Vec::new();
    let mut launch_params = Vec::new();
    let mut setup = Vec::new();
    let mut args = Vec::new();
    let mut checks = Vec::new();
    let mut ptx_params = Vec::new();
    let mut gpu_args = Vec::new();
    let mut ptx_setup = Vec::new();
    for p in &params {
        let pname = &p.name;
        let mutability = p.mutable.then(|| quote!(mut));
        match &p.kind {
            ParamKind::Scalar => {
                let ty = &p.ty;
                fn_params.push(quote!(#mutability #pname: #ty));
                launch_params.push(quote!(#pname: #ty));
                checks.push(quote_spanned!(ty.span()=> const _: () = #rt::assert_kernel_scalar::<#ty>();));
                ptx_params.push(quote!(#pname: #ty));
                gpu_args.push(quote!(#rt::GpuArg::scalar(&#pname)));
            }
            ParamKind::Slice { elem } => {
                fn_params.push(quote!(#mutability #pname: #rt::Global<#elem>));
                launch_params.push(quote!(#pname: &#rt::DeviceBuffer<#elem>));
                let meta = format_ident!("__emu_meta_{}", pname);
                let pstr = pname.to_string();
                setup.push(quote! {
                    let #meta = #rt::meta(#pstr, #pname, __emu_checks);
                    let #pname = #rt::global(#pname, &#meta)?;
                });
                let len = format_ident!("{}_len", pname);
                gpu_args.push(quote!(#rt::GpuArg::buffer(&*#pname)));
                ptx_params.push(quote!(#pname: *const #elem, #len: usize));
                ptx_setup.push(quote! {
                    // SAFETY: the host passes a device pointer to `len` elements.
                    let #pname = unsafe { #rt::Global::<#elem>::from_raw_parts(#pname as *mut #elem, #len, ()) };
                });
            }
            ParamKind::SliceMut { elem } => {
                fn_params.push(quote!(#mutability #pname: #rt::GlobalMut<#elem>));
                launch_params.push(quote!(#pname: &mut #rt::DeviceBuffer<#elem>));
                let meta = format_ident!("__emu_meta_{}", pname);
                let pstr = pname.to_string();
                setup.push(quote! {
                    let #meta = #rt::meta(#pstr, &*#pname, __emu_checks);
                    let #pname = #rt::global_mut(#pname, &#meta)?;
                });
                let len = format_ident!("{}_len", pname);
                gpu_args.push(quote!(#rt::GpuArg::buffer(&*#pname)));
                ptx_params.push(quote!(#pname: *mut #elem, #len: usize));
                ptx_setup.push(quote! {
                    // SAFETY: the host passes a device pointer to `len` elements.
                    let #pname = unsafe { #rt::GlobalMut::<#elem>::from_raw_parts(#pname, #len, ()) };
                });
            }
        }
        args.push(quote!(#pname));
    }

    // The host form of the body reads its indices from a `ThreadCtx` argument, and barriers
    // in the body itself make it a state machine (`host_body.rs`); `unsafe` kernels keep
    // plain barriers.
    let ctx = syn::Ident::new("__emu_ctx", Span::mixed_site());
    let mut host_block = f.block.clone();
    let awaited = crate::host_body::host_body(&mut host_block, &ctx, f.sig.unsafety.is_none()) > 0;
    // Loops yield to the block's other threads and answer the watchdog (`progress.rs`).
    crate::progress::instrument_loops(&mut host_block, awaited);

    let attrs = &f.attrs;
    let block = &f.block;
    let close = f.block.brace_token.span.close();
    let exit = quote_spanned!(close=> ::deviceemu::__private::exit_here());
    let end_line = quote_spanned!(close=> ::core::line!());
    let unsafety = &f.sig.unsafety;
    let call_with = |leading: Option<&syn::Ident>| {
        let leading = leading.map(|c| quote!(#c,));
        match unsafety {
            Some(_) => quote!(unsafe { #name(#leading #(#args),*) }),
            None => quote!(#name(#leading #(#args),*)),
        }
    };
    let checked = crate::rewrite::checked();
    let call = call_with(None);
    // The host form is compiled twice, with and without the per-access checkers
    // (`__EMU_CHECKED`); the launch picks one, so that checkers that are off cost nothing.
    let host_call_as = |on: bool| {
        let args = &args;
        let c = if on { quote!(true) } else { quote!(false) };
        match unsafety {
            Some(_) => quote!(unsafe { #name::<#c>(#ctx, #(#args),*) }),
            None => quote!(#name::<#c>(#ctx, #(#args),*)),
        }
    };
    let (host_call_checked, host_call_plain) = (host_call_as(true), host_call_as(false));
    let errors = errors.iter().map(syn::Error::to_compile_error);

    // The host form returns where the thread exited, or a future of it.
    let (launch_fn, host_ret, host_body) = if awaited {
        (
            quote!(#rt::launch_tasks),
            quote!(impl ::core::future::Future<Output = #rt::Exit>),
            quote!(async move { #host_block; #exit }),
        )
    } else {
        (quote!(#rt::launch), quote!(#rt::Exit), quote!(#host_block; #exit))
    };
    let host_fn = quote! {
        #(#attrs)*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(unused_mut, unused_braces, unreachable_code, clippy::needless_return, clippy::too_many_arguments)]
        #[inline]
        #vis #unsafety fn #name<const #checked: bool>(#ctx: #rt::ThreadCtx, #(#fn_params),*) -> #host_ret {
            #(#checks)*
            #host_body
        }
    };

    let entry = format_ident!("__emu_entry_{}", name);
    // `launch_bounds(T)`: the launcher refuses blocks of more than T threads and the PTX says
    // `.maxntid T`, so the entry may tell the optimiser so, as `__launch_bounds__` tells nvcc.
    let assume_bounds = (max_threads > 0).then(|| {
        quote! {
            // SAFETY: no block of more than `max_threads` threads runs this entry: `__launch`
            // refuses it (`KernelInfo::max_threads`), and emu-build writes `.maxntid` into the
            // PTX, so that the driver refuses it too.
            unsafe { #rt::assume_launch_bounds(#max_threads) };
        }
    });
    let ptx = match embedded_ptx() {
        Some(path) => quote!(::core::option::Option::Some(::core::include_str!(#path))),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #(#errors)*

        #(#docs)*
        #[doc = #launcher_doc]
        #[allow(non_camel_case_types, dead_code)]
        #[cfg(not(target_arch = "nvptx64"))]
        #vis struct #name {}

        #[cfg(not(target_arch = "nvptx64"))]
        impl #name {
            /// The kernel's name, as reports and the GPU module spell it.
            #[allow(dead_code)]
            pub const NAME: &'static str = #name_str;

            /// Launches the kernel; use `launch!` rather than calling this directly.
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, dead_code)]
            #vis fn __launch(
                __emu_config: #rt::LaunchConfig,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::deviceemu::Error> {
                static __EMU_INFO: #rt::KernelInfo = #rt::KernelInfo {
                    name: #name_str,
                    file: ::core::file!(),
                    line: ::core::line!(),
                    end_line: #end_line,
                    max_threads: #max_threads,
                };
                const __EMU_PTX: ::core::option::Option<&'static str> = #ptx;
                if let ::core::option::Option::Some(r) =
                    #rt::launch_on_gpu(&__EMU_INFO, __EMU_PTX, __emu_config, &[#(#gpu_args),*])
                {
                    return r;
                }
                let __emu_checks = #rt::launch_checks();
                #(#setup)*
                if #rt::per_access(__emu_checks) {
                    #launch_fn(&__EMU_INFO, __emu_config, move |#ctx| #host_call_checked)
                } else {
                    #launch_fn(&__EMU_INFO, __emu_config, move |#ctx| #host_call_plain)
                }
            }
        }

        /// The GPU entry point of the kernel (`.entry` in the PTX module).
        #[cfg(target_arch = "nvptx64")]
        #[export_name = #name_str]
        #[allow(non_snake_case)]
        pub unsafe extern "ptx-kernel" fn #entry(#(#ptx_params),*) {
            #rt::assume_index_facts();
            #assume_bounds
            #(#ptx_setup)*
            #call;
        }

        #host_fn

        #(#attrs)*
        #[cfg(target_arch = "nvptx64")]
        #[allow(unused_mut, unused_braces, unreachable_code, clippy::needless_return, clippy::too_many_arguments)]
        #[inline]
        #vis #unsafety fn #name(#(#fn_params),*) -> #rt::Exit {
            #[allow(dead_code)]
            const #checked: bool = false;
            #(#checks)*
            #block;
            #exit
        }
    }
}


/// What to emit when the signature is invalid: the errors and the function unchanged, so that
/// its body and callers do not cascade into more errors.
fn fallback(f: &ItemFn, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        #(#errors)*
        #[allow(dead_code)]
        #f
    }
}

/// `#[device]`.
pub(crate) fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut f: ItemFn = match parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(Span::call_site(), "`#[device]` applies to a function: `#[device] fn name(params) { body }`");
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors: Vec<syn::Error> = no_args(&attr, "device").into_iter().collect();
    let mut views = Vec::new();
    for arg in &f.sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            if let syn::Pat::Ident(pi) = &*pt.pat {
                views.push((pi.ident.to_string(), is_view_type(&pt.ty)));
            }
        }
    }
    let fname = f.sig.ident.to_string();
    // A helper that calls a barrier reports it at its call site, so that synccheck can place
    // it in the kernel's body.
    let calls_barrier = quote!(#f).to_string().split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| {
        matches!(w, "sync_threads" | "sync_threads_count" | "sync_threads_and" | "sync_threads_or")
    });
    errors.extend(rewrite_block(&mut f.block, views, false, &fname));
    // Loops yield to the block's other threads and answer the watchdog (`progress.rs`); a
    // `const fn` cannot call the runtime.
    if f.sig.constness.is_none() {
        crate::progress::instrument_loops(&mut f.block, false);
    }
    let errors = errors.iter().map(syn::Error::to_compile_error);
    // Whether the launch checks accesses, asked once per call (`__EMU_CHECKED` in the
    // rewritten accesses).
    // Only where the helper accesses views (a `const fn` helper without any keeps compiling).
    let checked = crate::rewrite::checked();
    let block = &f.block;
    if quote!(#block).to_string().contains("__EMU_CHECKED") {
        f.block.stmts.insert(
            0,
            syn::parse_quote! {
                #[allow(non_snake_case, unused_variables)]
                let #checked: bool = ::deviceemu::__private::helper_checking();
            },
        );
    }
    f.attrs.push(syn::parse_quote!(#[allow(unused_mut)]));
    if calls_barrier && !f.attrs.iter().any(|a| a.path().is_ident("track_caller")) {
        f.attrs.push(syn::parse_quote!(#[track_caller]));
    }
    quote!(#(#errors)* #f)
}

/// The PTX file `emu-build` made for the file being compiled, if any: the build script sets
/// `DEVICEEMU_PTX_DIR` and names each file after the source's path relative to the manifest.
fn embedded_ptx() -> Option<String> {
    let dir = std::env::var("DEVICEEMU_PTX_DIR").ok()?;
    let file = proc_macro::Span::call_site().local_file()?;
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").ok()?);
    let abs = if file.is_absolute() { file } else { std::env::current_dir().ok()?.join(file) };
    let rel = abs.strip_prefix(&manifest).ok()?;
    let name: String = rel
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = std::path::Path::new(&dir).join(format!("{name}.ptx"));
    path.exists().then(|| path.to_string_lossy().into_owned())
}
