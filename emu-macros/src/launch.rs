//! `launch!(kernel<<<grid, block[, shared_bytes]>>>(args))`: split the tokens at `<<<` and
//! `>>>` and call the kernel's typed launcher.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

const USAGE: &str = "expected `launch!(kernel<<<grid, block>>>(args))`, `launch!(kernel<<<grid, block, shared_bytes>>>(args))` or `launch!(kernel<<<grid, block, shared_bytes, &stream>>>(args))`";

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

fn find_triple(tokens: &[TokenTree], c: char) -> Option<usize> {
    (0..tokens.len().saturating_sub(2)).find(|&i| (0..3).all(|k| is_punct(&tokens[i + k], c)))
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    match try_expand(input) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn try_expand(input: TokenStream) -> syn::Result<TokenStream> {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    // `$crate ;` first.
    let semi = tokens
        .iter()
        .position(|t| is_punct(t, ';'))
        .ok_or_else(|| syn::Error::new(Span::call_site(), "launch_impl! expects `$crate; ...`"))?;
    let krate: TokenStream = tokens[..semi].iter().cloned().collect();
    let mut rest = &tokens[semi + 1..];
    // `#[kernel]`/`#[device]` mark a `launch!` in their body as a device-side launch.
    let device = matches!(rest, [TokenTree::Ident(i), p, ..] if i == "__emu_device_launch" && is_punct(p, ';'));
    if device {
        rest = &rest[2..];
    }
    let first_span = rest.first().map_or(Span::call_site(), TokenTree::span);

    let open = find_triple(rest, '<').ok_or_else(|| syn::Error::new(first_span, USAGE))?;
    if open == 0 {
        return Err(syn::Error::new(first_span, "launch! needs the kernel's name before `<<<`"));
    }
    let kernel: TokenStream = rest[..open].iter().cloned().collect();
    let after_open = &rest[open + 3..];
    let close = find_triple(after_open, '>')
        .ok_or_else(|| syn::Error::new(rest[open].span(), "unclosed `<<<`: add `>>>` after the block size"))?;
    let config: TokenStream = after_open[..close].iter().cloned().collect();
    let tail = &after_open[close + 3..];
    let args = match tail {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        [] => {
            return Err(syn::Error::new(
                after_open[close].span(),
                "missing kernel arguments after `>>>`: write `(args)`, or `()` for none",
            ))
        }
        other => return Err(syn::Error::new(other[0].span(), USAGE)),
    };

    let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
    let cfg = syn::parse::Parser::parse2(parser, config.clone())?;
    let (grid, block, shared, stream) = match cfg.len() {
        2 => (&cfg[0], &cfg[1], quote!(0usize), None),
        3 => {
            let s = &cfg[2];
            if let Expr::Reference(_) = s {
                return Err(syn::Error::new_spanned(
                    s,
                    "the third launch argument is the dynamic shared bytes; a stream comes fourth: `<<<grid, block, 0, &stream>>>`",
                ));
            }
            (&cfg[0], &cfg[1], quote!(#s), None)
        }
        4 => {
            let s = &cfg[2];
            (&cfg[0], &cfg[1], quote!(#s), Some(&cfg[3]))
        }
        _ => {
            return Err(syn::Error::new_spanned(
                config,
                "the launch configuration is `<<<grid, block>>>`, `<<<grid, block, shared_bytes>>>` or `<<<grid, block, shared_bytes, &stream>>>`",
            ))
        }
    };
    let args = syn::parse::Parser::parse2(parser, args)?;
    if device {
        let args: Vec<&Expr> = args.iter().collect();
        let stream = match stream {
            Some(s) => quote!(::core::option::Option::Some(#s)),
            None => quote!(::core::option::Option::None),
        };
        // On nvptx the child's `__launch_device` (emit/devrt.rs) calls the CUDA device
        // runtime; on the host it queues an emulated child grid.
        return Ok(quote! {{
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_r = #kernel::__launch_device(
                #krate::__private::LaunchConfig::new(#grid, #block, #shared),
                #stream,
                #(#args),*
            );
            #[cfg(target_arch = "nvptx64")]
            let __emu_r = #kernel::__launch_device(
                ::core::convert::Into::<#krate::__private::Dim3>::into(#grid),
                ::core::convert::Into::<#krate::__private::Dim3>::into(#block),
                #shared,
                #stream,
                #(#args),*
            );
            __emu_r
        }});
    }
    if let Some(e) = passed_twice(&args) {
        // Instead of the borrow checker's E0499/E0502, which does not say what to write.
        let e = e.to_compile_error();
        return Ok(quote! {{
            #e
            ::core::result::Result::<(), #krate::Error>::Ok(())
        }});
    }
    let args: Vec<TokenStream> = args.iter().map(host_arg).collect();
    let args = args.iter();
    let uses =
        quote!(#[allow(unused_imports)] use #krate::__private::launch_arg::{ByCopy as _, ByValue as _, Reborrow as _};);
    if let Some(stream) = stream {
        return Ok(quote! {{
            #uses
            #kernel::__launch_on(
                #stream,
                #krate::__private::LaunchConfig::new(#grid, #block, #shared),
                #(#args),*
            )
        }});
    }
    Ok(quote! {{
        #uses
        #kernel::__launch(
            #krate::__private::LaunchConfig::new(#grid, #block, #shared),
            #(#args),*
        )
    }})
}

/// A host launch's argument: one written as a name or a field (`d_data`, `s.buf`) goes
/// through `__emu_arg()` (the facade's `launch_arg`), which reborrows a `&mut DeviceBuffer`
/// instead of moving it into the launcher's generic parameter, so that the same variable can
/// be passed again (a launch in a loop, as CUDA passes a pointer); other expressions as
/// written.
fn host_arg(a: &Expr) -> TokenStream {
    match a {
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => quote!(#a.__emu_arg()),
        Expr::Field(_) => quote!((#a).__emu_arg()),
        _ => quote!(#a),
    }
}

/// The buffer an argument passes, and whether writably: `&b` / `&mut b`, `b.slice(..)` /
/// `b.slice_mut(..)` (`b` as written).
fn buffer_of(e: &Expr) -> Option<(String, bool)> {
    match e {
        Expr::Reference(r) => match &*r.expr {
            inner @ (Expr::Path(_) | Expr::Field(_)) => Some((quote!(#inner).to_string(), r.mutability.is_some())),
            inner => buffer_of(inner).map(|(b, m)| (b, m || r.mutability.is_some())),
        },
        Expr::MethodCall(m) if m.method == "slice" || m.method == "slice_mut" => {
            let recv = &m.receiver;
            Some((quote!(#recv).to_string(), m.method == "slice_mut"))
        }
        Expr::Paren(p) => buffer_of(&p.expr),
        _ => None,
    }
}

/// The error for a buffer passed twice to one launch, once writably (an in-place kernel
/// written with two parameters), spanned on the second argument.
fn passed_twice(args: &Punctuated<Expr, Token![,]>) -> Option<syn::Error> {
    let bufs: Vec<_> = args.iter().map(|a| (a, buffer_of(a))).collect();
    for (k, (arg, b)) in bufs.iter().enumerate() {
        let Some((name, writable)) = b else { continue };
        let earlier = bufs[..k].iter().find_map(|(_, p)| p.as_ref().filter(|(n, _)| n == name));
        if let Some((_, first_writable)) = earlier {
            if *writable || *first_writable {
                return Some(syn::Error::new_spanned(
                    arg,
                    format!(
                        "`{name}` is passed to this launch twice, and the kernel writes it: a buffer a kernel \
                         writes can be passed only once. For an in-place kernel, take it once as a `&mut [T]` \
                         parameter, which the kernel both reads and writes (`fn scale(data: &mut [f32]) {{ data[i] \
                         = 2.0 * data[i]; }}`, launched with `&mut {name}`); for two parts of it, pass it once \
                         and index at an offset"
                    ),
                ));
            }
        }
    }
    None
}
