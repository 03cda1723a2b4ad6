//! Stage 1: parse the attribute and the item.
//!
//! `#[kernel]` takes `host_only` and `launch_bounds(MAX_THREADS[, MIN_BLOCKS])` (CUDA's
//! `__launch_bounds__`), in any order; `#[device]` takes nothing. The item must be a function.
//! Errors point at the user's tokens and say what to write instead.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{ItemFn, Meta, Token};

/// What `#[kernel(..)]` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KernelAttr {
    /// `launch_bounds(max_threads, min_blocks)`; `None` without it.
    pub(crate) launch_bounds: Option<(u32, u32)>,
    /// `host_only`: no PTX entry; the kernel runs on the emulator only.
    pub(crate) host_only: bool,
}

const KERNEL_USAGE: &str = "`#[kernel]` takes `host_only` and CUDA's `__launch_bounds__`: \
                            `#[kernel(launch_bounds(256))]`, `#[kernel(launch_bounds(256, 8))]`, \
                            `#[kernel(host_only)]` or `#[kernel(host_only, launch_bounds(256))]`";

const BOUNDS_RANGE: &str =
    "launch_bounds takes the most threads per block (1 to 1024) and, optionally, the fewest blocks per multiprocessor";

/// Parses the item a `#[kernel]` or `#[device]` is on (`what` names the attribute).
pub(crate) fn item(item: TokenStream, what: &str) -> Result<ItemFn, syn::Error> {
    syn::parse2(item).map_err(|_| {
        syn::Error::new(Span::call_site(), format!("`#[{what}]` applies to a function: `#[{what}] fn name(params) {{ body }}`"))
    })
}

/// Parses `#[kernel(..)]`'s arguments.
pub(crate) fn kernel_attr(attr: TokenStream) -> Result<KernelAttr, syn::Error> {
    let mut out = KernelAttr::default();
    if attr.is_empty() {
        return Ok(out);
    }
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated
        .parse2(attr.clone())
        .map_err(|_| syn::Error::new_spanned(&attr, KERNEL_USAGE))?;
    for meta in &metas {
        match meta {
            Meta::Path(p) if p.is_ident("host_only") && !out.host_only => out.host_only = true,
            Meta::Path(p) if p.is_ident("host_only") => {
                return Err(syn::Error::new_spanned(p, "`host_only` is given twice: write it once"))
            }
            Meta::List(list) if list.path.is_ident("launch_bounds") && out.launch_bounds.is_none() => {
                out.launch_bounds = Some(launch_bounds(list)?)
            }
            Meta::List(list) if list.path.is_ident("launch_bounds") => {
                return Err(syn::Error::new_spanned(&list.path, "`launch_bounds` is given twice: write it once"))
            }
            Meta::List(list) => return Err(syn::Error::new_spanned(&list.path, KERNEL_USAGE)),
            other => return Err(syn::Error::new_spanned(other, KERNEL_USAGE)),
        }
    }
    Ok(out)
}

/// `launch_bounds(MAX_THREADS[, MIN_BLOCKS])`.
fn launch_bounds(list: &syn::MetaList) -> Result<(u32, u32), syn::Error> {
    let nums = list
        .parse_args_with(Punctuated::<syn::LitInt, Token![,]>::parse_terminated)
        .map_err(|_| syn::Error::new_spanned(&list.tokens, KERNEL_USAGE))?;
    let vals: Vec<u32> = nums.iter().map(|n| n.base10_parse::<u32>()).collect::<Result<_, _>>()?;
    match vals.as_slice() {
        [t] if (1..=1024).contains(t) => Ok((*t, 0)),
        [t, b] if (1..=1024).contains(t) => Ok((*t, *b)),
        _ => Err(syn::Error::new_spanned(&list.tokens, BOUNDS_RANGE)),
    }
}

/// Checks that `#[device]` has no arguments.
pub(crate) fn device_attr(attr: &TokenStream) -> Result<(), syn::Error> {
    match attr.is_empty() {
        true => Ok(()),
        false => Err(syn::Error::new_spanned(attr, "`#[device]` takes no arguments: write `#[device]`")),
    }
}
