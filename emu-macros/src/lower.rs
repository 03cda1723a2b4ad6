//! Stage 3: lower a validated function into the form the emitters read ([`Lowered`]).
//!
//! `#[kernel]` and `#[device]` share it: the user's function with its body rewritten into
//! checked accesses (`rewrite.rs`), its parameters as validated (one [`Param`] each), the
//! errors found so far, and what is particular to each: a kernel's attribute, its host body
//! (`host_body.rs`: indices read from the thread's context, barriers awaited) and whether
//! that body is a state machine; a helper's barrier calls and view accesses.

use proc_macro2::Span;
use syn::visit::Visit;
use syn::{Attribute, Block, Ident, ItemFn};

use crate::parse::KernelAttr;
use crate::rewrite::rewrite_block;
use crate::validate::{Param, ParamKind};

/// A function after lowering: what the emitters read.
pub(crate) struct Lowered {
    /// The user's function; its body rewritten (the form compiled for nvptx, and a helper's
    /// only form), a doc line added to an undocumented kernel.
    pub(crate) item: ItemFn,
    /// Its parameters, as validated.
    pub(crate) params: Vec<Param>,
    /// Errors found in the body (emitted next to the expansion).
    pub(crate) errors: Vec<syn::Error>,
    /// Kernel or helper.
    pub(crate) role: Role,
}

/// What is particular to a kernel or a helper.
pub(crate) enum Role {
    /// A `#[kernel]`.
    Kernel(Kernel),
    /// A `#[device]` helper.
    Device(Device),
}

/// What a kernel adds to [`Lowered`].
pub(crate) struct Kernel {
    /// `#[kernel(..)]`'s arguments.
    pub(crate) attr: KernelAttr,
    /// The user's doc comments (the launcher struct gets them too).
    pub(crate) docs: Vec<Attribute>,
    /// The body of the host form: indices read from `ctx`, barriers awaited.
    pub(crate) host_block: Block,
    /// Whether the host form is a state machine (barriers or warp collectives in the body).
    pub(crate) state_machine: bool,
    /// The host form's `ThreadCtx` parameter.
    pub(crate) ctx: Ident,
    /// The region form (`fission/`), or why the kernel has none.
    pub(crate) fission: Result<crate::fission::Fission, String>,
}

/// What a helper adds to [`Lowered`].
pub(crate) struct Device {
    /// Whether the body calls a barrier (the helper is then `#[track_caller]`, so that
    /// synccheck places the barrier at the kernel's call of the helper).
    pub(crate) calls_barrier: bool,
    /// Whether the rewritten body accesses views (it then asks whether accesses are checked).
    pub(crate) accesses: bool,
    /// The macro that says whether it may wait (`fission/helpers.rs`).
    pub(crate) waits: Option<proc_macro2::TokenStream>,
}

/// Lowers a validated kernel.
pub(crate) fn kernel(mut item: ItemFn, attr: KernelAttr, params: Vec<Param>) -> Lowered {
    let name = item.sig.ident.clone();
    let docs: Vec<Attribute> = item.attrs.iter().filter(|a| a.path().is_ident("doc")).cloned().collect();
    if docs.is_empty() {
        let d = format!("The kernel `{name}`, as one GPU thread runs it.");
        item.attrs.push(syn::parse_quote!(#[doc = #d]));
    }
    let device_launches = launches_kernels(&item.block);
    let views = || params.iter().map(|p| (p.name.to_string(), !matches!(p.kind, ParamKind::Scalar))).collect();
    // The region form's copy with the file's waiting helpers written out (`fission/inline.rs`),
    // and those that take a view unless `accessing` is off, rewritten as the body is (its
    // errors are the body's own, reported once, below), with whether a helper that does not
    // wait was written out. `as_written` is the body before that rewrite, which the fallback
    // below may write out again.
    let as_written = item.block.clone();
    let inlined = |accessing: bool| {
        crate::fission::inline::helpers(&as_written, &name.to_string(), accessing).map(|(mut b, quiet)| {
            let _ = rewrite_block(&mut b, views(), true, &name.to_string());
            (b, quiet)
        })
    };
    let with_views = inlined(true);
    let (errors, _) = rewrite_block(&mut item.block, views(), true, &name.to_string());
    // The host form reads its indices from a `ThreadCtx` argument, and barriers in the body
    // itself make it a state machine; `unsafe` kernels keep plain barriers.
    let ctx = Ident::new("__emu_ctx", Span::mixed_site());
    let mut host_block = (*item.block).clone();
    // The region form, from the same body with its barriers as written.
    let fission = if item.sig.unsafety.is_some() {
        Err("an `unsafe` kernel".to_string())
    } else if attr.host_only {
        Err("a `host_only` kernel".to_string())
    } else if device_launches {
        // Each thread's launches are queued in the block's order; keep the per-thread forms.
        Err("a kernel that launches kernels (device runtime)".to_string())
    } else {
        let names: Vec<String> = params.iter().map(|p| p.name.to_string()).collect();
        let buffers: Vec<String> =
            params.iter().filter(|p| matches!(p.kind, ParamKind::Buffer { .. })).map(|p| p.name.to_string()).collect();
        let read_only: Vec<String> = params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Buffer { writable: false, .. }))
            .map(|p| p.name.to_string())
            .collect();
        let region_form = |inlined: Option<Block>| {
            let written_out = inlined.is_some();
            let mut b = inlined.unwrap_or_else(|| host_block.clone());
            // The file's index macros written out (`local_macros.rs`): the region form only.
            crate::local_macros::expand(&mut b, &item.sig);
            crate::host_body::host_body(&mut b, &ctx, false);
            crate::fission::inline::select(&name.to_string());
            crate::fission::lower(&b, &names, &buffers, &read_only, &scalars(&params), &ctx)
                .map(|f| crate::fission::Fission { written_out, ..f })
        };
        // A helper that takes a view, written out, may bring what region code cannot have
        // (a `let` with a struct pattern): then the region form calls it, as before. So does
        // a lane loop (a kernel without barriers), whose checked form would report the
        // written-out accesses at the call's line where the general path names the helper's
        // (a barrier kernel's checked launches take the general path, `Guard::written_out`).
        let views_written = with_views.as_ref().is_some_and(|(_, quiet)| *quiet);
        let waiting_only = || region_form(inlined(false).map(|(b, _)| b));
        match region_form(with_views.map(|(b, _)| b)) {
            Err(_) if views_written => waiting_only(),
            Ok(f) if views_written && f.kind == crate::fission::Kind::Lanes => waiting_only(),
            r => r,
        }
    };
    let state_machine = crate::host_body::host_body(&mut host_block, &ctx, item.sig.unsafety.is_none()) > 0;
    // Loops yield to the block's other threads and answer the watchdog (`progress.rs`).
    crate::progress::instrument_loops(&mut host_block, state_machine, &scalars(&params));
    let role = Role::Kernel(Kernel { attr, docs, host_block, state_machine, ctx, fission });
    Lowered { item, params, errors, role }
}

/// Lowers a validated `#[device]` helper.
pub(crate) fn device(mut item: ItemFn, params: Vec<Param>) -> Lowered {
    for arg in &mut item.sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            slices_to_views(&mut pt.ty);
        }
    }
    let mut finder = BarrierFinder::default();
    finder.visit_block(&item.block);
    let views = params.iter().map(|p| (p.name.to_string(), !matches!(p.kind, ParamKind::Scalar)));
    let (errors, accesses) = rewrite_block(&mut item.block, views.collect(), false, &item.sig.ident.to_string());
    // Whether it may wait, published for the kernels that call it (`fission/helpers.rs`); not
    // for a method (a `macro_rules!` cannot sit in an `impl`).
    let method = item.sig.inputs.iter().any(|a| matches!(a, syn::FnArg::Receiver(_)));
    let waits = (!method).then(|| {
        // Classified with the file's index macros written out (`local_macros.rs`).
        let mut b = (*item.block).clone();
        crate::local_macros::expand(&mut b, &item.sig);
        crate::fission::inline::select(&item.sig.ident.to_string());
        crate::fission::helpers::classify(&item.sig.ident.to_string(), &b, &scalars(&params))
    });
    // Loops yield to the block's other threads and answer the watchdog (`progress.rs`); a
    // `const fn` cannot call the runtime.
    if item.sig.constness.is_none() {
        crate::progress::instrument_loops(&mut item.block, false, &scalars(&params));
    }
    let role = Role::Device(Device { calls_barrier: finder.found, accesses, waits });
    Lowered { item, params, errors, role }
}

/// The immutable scalar parameters: loops bounded by them need no progress point
/// (`progress.rs`).
fn scalars(params: &[Param]) -> Vec<String> {
    params.iter().filter(|p| !p.mutable && matches!(p.kind, ParamKind::Scalar)).map(|p| p.name.to_string()).collect()
}

/// A helper's `&[T]` / `&mut [T]` parameter types (in tuples too) become the views a kernel
/// passes: `Global<'_, T>` / `GlobalMut<'_, T>` (with the reference's lifetime, if named).
pub(crate) fn slices_to_views(ty: &mut syn::Type) {
    match ty {
        syn::Type::Tuple(t) => t.elems.iter_mut().for_each(slices_to_views),
        syn::Type::Paren(p) => slices_to_views(&mut p.elem),
        syn::Type::Reference(r) => {
            let syn::Type::Slice(s) = &*r.elem else { return };
            let elem = &s.elem;
            let lt = r.lifetime.clone().unwrap_or_else(|| syn::Lifetime::new("'_", r.and_token.span));
            *ty = match r.mutability {
                Some(_) => syn::parse_quote!(::deviceemu::__private::GlobalMut<#lt, #elem>),
                None => syn::parse_quote!(::deviceemu::__private::Global<#lt, #elem>),
            };
        }
        _ => {}
    }
}

/// Whether `block` contains a `launch!` (a device-side launch).
fn launches_kernels(block: &Block) -> bool {
    #[derive(Default)]
    struct F(bool);
    impl<'ast> Visit<'ast> for F {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.0 |= crate::rewrite::is_device_launch(m);
            syn::visit::visit_macro(self, m);
        }
    }
    let mut f = F::default();
    f.visit_block(block);
    f.0
}

/// The block-wide barriers, by the last segment of their path.
const BARRIERS: [&str; 4] = ["sync_threads", "sync_threads_count", "sync_threads_and", "sync_threads_or"];

/// Finds a barrier named in a helper's body: a path (called, or passed as a function) whose
/// last segment is a barrier, or such a name among a macro's tokens (`assert!(..)`).
#[derive(Default)]
struct BarrierFinder {
    found: bool,
}

impl<'ast> Visit<'ast> for BarrierFinder {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.last().is_some_and(|s| BARRIERS.iter().any(|b| s.ident == b)) {
            self.found = true;
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.found |= names_barrier(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

fn names_barrier(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => BARRIERS.iter().any(|b| i == b),
        proc_macro2::TokenTree::Group(g) => names_barrier(g.stream()),
        _ => false,
    })
}
