//! Stage 1: parse and validate a kernel's signature.

use syn::{FnArg, Pat, Signature, Type};

/// How a kernel parameter is passed.
pub(crate) enum ParamKind {
    /// By value.
    Scalar,
    /// `&[T]`: read-only global memory.
    Slice { elem: Type },
    /// `&mut [T]`: read-write global memory.
    SliceMut { elem: Type },
}

/// One validated kernel parameter.
pub(crate) struct Param {
    pub(crate) name: syn::Ident,
    pub(crate) mutable: bool,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
}

fn err(tokens: impl quote::ToTokens, msg: &str) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

/// Validates `sig` and returns its parameters, or every error found.
pub(crate) fn parse(sig: &Signature) -> Result<Vec<Param>, syn::Error> {
    let mut errors: Vec<syn::Error> = Vec::new();
    if let Some(a) = &sig.asyncness {
        errors.push(err(a, "a kernel cannot be `async`: remove `async`; kernels run to completion on every thread"));
    }
    if let Some(c) = &sig.constness {
        errors.push(err(c, "a kernel cannot be `const`: remove `const`"));
    }
    if let Some(abi) = &sig.abi {
        errors.push(err(abi, "a kernel cannot declare an ABI: remove it; `#[kernel]` emits the `ptx-kernel` entry itself"));
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
        errors.push(err(ty, "a kernel returns nothing: remove the return type and write results into a `&mut [T]` parameter"));
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
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(params),
    }
}

fn classify(ty: &Type) -> Result<ParamKind, syn::Error> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => {
                let elem = (*s.elem).clone();
                Ok(if r.mutability.is_some() { ParamKind::SliceMut { elem } } else { ParamKind::Slice { elem } })
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
