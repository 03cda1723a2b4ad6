//! Stage 2: validate a `#[kernel]`'s or a `#[device]` helper's signature, and classify its
//! parameters into the form the later stages share ([`Param`]).
//!
//! Every error is collected (not only the first), each spanned on the user's tokens.

use syn::{FnArg, Pat, Signature, Type};

/// How a parameter is passed.
// A kernel has a handful of parameters: boxing the buffer's `Type` would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum ParamKind {
    /// By value (a kernel's scalar, or a helper's parameter that is not a view).
    Scalar,
    /// A kernel's `&[T]` (read-only global memory) or `&mut [T]` (`writable`).
    Buffer { elem: Type, writable: bool },
    /// A helper's view parameter (`Global<T>`, `GlobalMut<T>`, `Shared<T>`, `View<T, K>`).
    View,
}

/// One validated parameter: what the later stages lower and emit.
pub(crate) struct Param {
    pub(crate) name: syn::Ident,
    pub(crate) mutable: bool,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
}

fn err(tokens: impl quote::ToTokens, msg: &str) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

/// Validates a kernel's `sig` and returns its parameters, or every error found.
pub(crate) fn kernel(sig: &Signature) -> Result<Vec<Param>, syn::Error> {
    let mut errors: Vec<syn::Error> = Vec::new();
    if let Some(a) = &sig.asyncness {
        errors.push(err(a, "a kernel cannot be `async`: remove `async`; kernels run to completion on every thread"));
    }
    if let Some(c) = &sig.constness {
        errors.push(err(c, "a kernel cannot be `const`: remove `const`"));
    }
    if let Some(abi) = &sig.abi {
        errors.push(err(
            abi,
            "a kernel cannot declare an ABI: remove it; `#[kernel]` emits the `ptx-kernel` entry itself",
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(err(v, "a kernel cannot be variadic"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(err(
            &sig.generics,
            "a kernel cannot be generic: write one `#[kernel]` per element type (a `macro_rules!` can stamp them out)",
        ));
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        errors.push(err(
            ty,
            "a kernel returns nothing: remove the return type and write results into a `&mut [T]` parameter",
        ));
    }
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => errors.push(err(
                r,
                "a kernel cannot take `self`: make it a free function outside the `impl` block and pass the data as parameters",
            )),
            FnArg::Typed(pt) => {
                let (name, mutable) = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => (pi.ident.clone(), pi.mutability.is_some()),
                    other => {
                        errors.push(err(
                            other,
                            "kernel parameters must be plain names: write `name: Type` and destructure inside the body",
                        ));
                        continue;
                    }
                };
                match classify(&pt.ty) {
                    Ok(kind) => params.push(Param { name, mutable, ty: (*pt.ty).clone(), kind }),
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    combine(errors, params)
}

fn combine<T>(errors: Vec<syn::Error>, ok: T) -> Result<T, syn::Error> {
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}

/// Validates a `#[device]` helper's `sig` and returns the parameters it binds to names
/// (through tuple patterns too: `(a, b): (Global<f32>, Global<f32>)`), and the errors found:
/// none of them keeps the helper from being lowered.
///
/// A helper may be generic, `const` and return a value; it may not be `async` (its barriers
/// block; they are not `.await`s), and a view must be bound to a name (or `_`), so that the
/// body's accesses to it are found.
pub(crate) fn device(sig: &Signature) -> (Vec<Param>, Vec<syn::Error>) {
    let mut errors = Vec::new();
    if let Some(a) = &sig.asyncness {
        errors.push(err(
            a,
            "a `#[device]` helper cannot be `async`: remove `async`; its barriers block the calling thread",
        ));
    }
    let mut params = Vec::new();
    for arg in &sig.inputs {
        if let FnArg::Typed(pt) = arg {
            if let Err(e) = bind_helper_param(&pt.pat, &pt.ty, &mut params) {
                errors.push(e);
            }
        }
    }
    (params, errors)
}

/// Adds the names `pat` binds, with their types from `ty`, to `out`.
fn bind_helper_param(pat: &Pat, ty: &Type, out: &mut Vec<Param>) -> Result<(), syn::Error> {
    match (pat, ty) {
        (Pat::Ident(pi), _) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            let kind = match (slice_elem(ty), ty) {
                // `&[T]` / `&mut [T]`, as in a kernel: the helper takes a view in its place.
                (Some(elem), Type::Reference(r)) => ParamKind::Buffer { elem: elem.clone(), writable: r.mutability.is_some() },
                _ if crate::rewrite::is_view_type(ty) => ParamKind::View,
                _ => ParamKind::Scalar,
            };
            out.push(Param { name: pi.ident.clone(), mutable: pi.mutability.is_some(), ty: ty.clone(), kind });
            Ok(())
        }
        (Pat::Paren(p), _) => bind_helper_param(&p.pat, ty, out),
        (_, Type::Paren(t)) => bind_helper_param(pat, &t.elem, out),
        (Pat::Tuple(p), Type::Tuple(t)) if p.elems.len() == t.elems.len() => {
            p.elems.iter().zip(&t.elems).try_for_each(|(p, t)| bind_helper_param(p, t, out))
        }
        (Pat::Wild(_), _) => Ok(()),
        _ if contains_view(ty) => Err(err(
            pat,
            "a view parameter of a `#[device]` helper must be bound to a name: write `name: Global<T>` (or a tuple of names)",
        )),
        _ => Ok(()),
    }
}

/// `T` of `&[T]` or `&mut [T]`.
pub(crate) fn slice_elem(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Some(&s.elem),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `ty` is a view or a tuple with a view in it.
fn contains_view(ty: &Type) -> bool {
    match ty {
        Type::Tuple(t) => t.elems.iter().any(contains_view),
        Type::Paren(p) => contains_view(&p.elem),
        t => crate::rewrite::is_view_type(t),
    }
}

fn classify(ty: &Type) -> Result<ParamKind, syn::Error> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => {
                let elem = (*s.elem).clone();
                Ok(ParamKind::Buffer { elem, writable: r.mutability.is_some() })
            }
            _ => Err(syn::Error::new_spanned(
                ty,
                "kernel parameters cannot be references other than slices: pass scalars by value (`x: f32`), \
                 read-only buffers as `&[T]` and writable buffers as `&mut [T]`",
            )),
        },
        Type::Paren(p) => classify(&p.elem),
        Type::Ptr(_) => Err(syn::Error::new_spanned(
            ty,
            "kernel parameters cannot be raw pointers: use `&[T]` or `&mut [T]` for buffers",
        )),
        Type::ImplTrait(_) | Type::TraitObject(_) => Err(syn::Error::new_spanned(
            ty,
            "kernel parameters must have a concrete plain-data type, e.g. `f32`, `u32` or a `#[repr(C)]` struct",
        )),
        _ => Ok(ParamKind::Scalar),
    }
}
