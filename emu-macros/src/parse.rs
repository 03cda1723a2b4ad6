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
    /// `cluster(X[, Y[, Z]])`: thread block clusters of that shape (CUDA's `__cluster_dims__`).
    pub(crate) cluster: Option<(u32, u32, u32)>,
}

const KERNEL_USAGE: &str = "`#[kernel]` takes `host_only`, CUDA's `__launch_bounds__` and `__cluster_dims__`: \
                            `#[kernel(launch_bounds(256))]`, `#[kernel(launch_bounds(256, 8))]`, \
                            `#[kernel(cluster(2, 1, 1))]`, `#[kernel(host_only)]` or \
                            `#[kernel(host_only, launch_bounds(256))]`";

const CLUSTER_USAGE: &str = "cluster takes one to three block counts, each at least 1, at most 8 blocks in all \
                             (the portable cluster size): `cluster(2)`, `cluster(2, 2)`, `cluster(2, 2, 2)`";

const BOUNDS_RANGE: &str =
    "launch_bounds takes the most threads per block (1 to 1024) and, optionally, the fewest blocks per multiprocessor";

/// Parses the item a `#[kernel]` or `#[device]` is on (`what` names the attribute).
pub(crate) fn item(item: TokenStream, what: &str) -> Result<ItemFn, syn::Error> {
    syn::parse2(item).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            format!("`#[{what}]` applies to a function: `#[{what}] fn name(params) {{ body }}`"),
        )
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
            Meta::List(list) if list.path.is_ident("cluster") && out.cluster.is_none() => {
                out.cluster = Some(cluster(list)?)
            }
            Meta::List(list) if list.path.is_ident("cluster") => {
                return Err(syn::Error::new_spanned(&list.path, "`cluster` is given twice: write it once"))
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

/// `cluster(X[, Y[, Z]])`.
fn cluster(list: &syn::MetaList) -> Result<(u32, u32, u32), syn::Error> {
    let nums = list
        .parse_args_with(Punctuated::<syn::LitInt, Token![,]>::parse_terminated)
        .map_err(|_| syn::Error::new_spanned(&list.tokens, CLUSTER_USAGE))?;
    let vals: Vec<u32> = nums.iter().map(|n| n.base10_parse::<u32>()).collect::<Result<_, _>>()?;
    let dims = match vals.as_slice() {
        [x] => (*x, 1, 1),
        [x, y] => (*x, *y, 1),
        [x, y, z] => (*x, *y, *z),
        _ => return Err(syn::Error::new_spanned(&list.tokens, CLUSTER_USAGE)),
    };
    let (x, y, z) = dims;
    if x == 0 || y == 0 || z == 0 || u64::from(x) * u64::from(y) * u64::from(z) > 8 {
        return Err(syn::Error::new_spanned(&list.tokens, CLUSTER_USAGE));
    }
    Ok(dims)
}

/// Checks that `#[device]` has no arguments.
pub(crate) fn device_attr(attr: &TokenStream) -> Result<(), syn::Error> {
    match attr.is_empty() {
        true => Ok(()),
        false => Err(syn::Error::new_spanned(attr, "`#[device]` takes no arguments: write `#[device]`")),
    }
}
