//! Interleaved regions: a range-proved region (`ranges.rs`) whose work is one `for` loop of
//! arithmetic on the thread's own locals, reading views the region does not write, runs
//! [`GROUP`] threads at a time with the loop outside and the threads inside (`for j { for
//! lanes }`), so that the threads' dependent chains (a dot product's additions) overlap.
//!
//! Each local of the region becomes an array with one element per thread of the group. Each
//! thread still does its own operations in its own order, so its values are bit for bit what
//! it computes alone; the region's only memory accesses are loads of memory nobody writes in
//! it, so no thread can tell the order apart. Values of earlier regions are copied out of
//! their per-thread slots, and the values kept in slots are put back only at the group's end,
//! so a group that panics (an integer overflow in a debug build) has had no effect: it runs
//! again one thread at a time (`Regions::each_group`), and the report names the thread.
//!
//! The threads of a group are consecutive threads of one row of the block (`x0 + i`, the same
//! `y` and `z`; a row's threads past its last full group run alone), so the compiler sees
//! what they share and what they index consecutively. Loads of shared arrays read a copy of
//! the array taken when the region starts (`__private::Snapshot`): nobody writes the array
//! while the region runs, so the copy holds what the array does, and plain loads of it can be
//! merged across the group (the row `ta[ty][j]` its threads share) and vectorised (the
//! consecutive `tb[j][tx]`), where relaxed loads of the array cannot.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::{path_name, Program, FLOAT_METHODS};
use crate::abi::Rt;

/// Threads per group.
pub(super) const GROUP: usize = 8;

/// The per-thread locals of an interleaved region, and what it restores and saves.
pub(super) struct Interleave<'a> {
    /// Recomputed locals it restores, in binding order: the name and its binding's value.
    pub(super) recomputed: Vec<(&'a Ident, &'a Expr)>,
    /// Per-thread slots it reads (`Lanes::get`): the local and its slots.
    pub(super) taken: Vec<(&'a Ident, Ident)>,
    /// Per-thread slots it writes at the end: the local and its slots.
    pub(super) saved: Vec<(&'a Ident, Ident)>,
}

/// Renames each per-thread local `x` to `x[__emu_i]`, and the context to the lane's.
struct Lanes<'a> {
    names: &'a HashSet<String>,
    ctx: &'a str,
}

fn lane_index() -> Ident {
    Ident::new("__emu_i", Span::mixed_site())
}

impl VisitMut for Lanes<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some(n) = path_name(e) {
            let i = lane_index();
            if self.names.contains(&n) {
                let id = Ident::new(&n, e_span(e));
                *e = syn::parse_quote!(#id[#i]);
                return;
            }
            if n == self.ctx {
                *e = syn::parse_quote!(__emu_ctxs[#i]);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Rewrites each proved load of a shared array (`load_in_bounds(&v, i)`,
/// `load_row_in_bounds(&v, r, c)`) into a load of the array's copy (`__private::Snapshot`),
/// collecting the arrays copied.
struct Snapshots<'a> {
    /// The block's shared arrays.
    arrays: HashSet<String>,
    /// Names the region binds: a shared array's name rebound there is not copied.
    bound: &'a HashSet<String>,
    /// Each array copied and its copy's name.
    taken: Vec<(Ident, Ident)>,
}

impl VisitMut for Snapshots<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let Expr::Call(c) = e else { return };
        let method = match Rt::of(c) {
            Some(Rt::LoadInBounds) => "load",
            Some(Rt::LoadRowInBounds) => "load_row",
            _ => return,
        };
        let Some(Expr::Reference(r)) = c.args.first() else { return };
        let Some(view) = path_name(&r.expr) else { return };
        if !self.arrays.contains(&view) || self.bound.contains(&view) {
            return;
        }
        let snap = Ident::new(&format!("__emu_snap_{view}"), Span::mixed_site());
        if !self.taken.iter().any(|(_, s)| *s == snap) {
            self.taken.push((Ident::new(&view, Span::call_site()), snap.clone()));
        }
        let method = Ident::new(method, Span::call_site());
        let args = c.args.iter().skip(1);
        // The copy has the array's length (the region's proof checked the array aligned), and
        // the proof put the indices in the array's bounds (`Snapshot` checks them again).
        *e = syn::parse_quote!(#snap.#method(#(#args),*));
    }
}

fn e_span(e: &Expr) -> Span {
    syn::spanned::Spanned::span(e)
}

/// Whether `e` is arithmetic on locals and proved loads only: what a thread of a group may
/// do in the loop (no store, no call with effects, no control flow out of the loop).
pub(super) fn pure(e: &Expr, mutable: &HashSet<String>) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => pure(&p.expr, mutable),
        Expr::Group(g) => pure(&g.expr, mutable),
        Expr::Cast(c) => pure(&c.expr, mutable),
        // A field of a local (the thread's indices `ctx.thread_idx.x`).
        Expr::Field(f) => matches!(f.member, syn::Member::Named(_)) && pure(&f.base, mutable),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && pure(&u.expr, mutable),
        Expr::Binary(b) if super::uniform::is_assign(&b.op) => {
            path_name(&b.left).is_some_and(|n| mutable.contains(&n)) && pure(&b.right, mutable)
        }
        Expr::Binary(b) => pure(&b.left, mutable) && pure(&b.right, mutable),
        Expr::Assign(a) => path_name(&a.left).is_some_and(|n| mutable.contains(&n)) && pure(&a.right, mutable),
        Expr::MethodCall(m) => {
            FLOAT_METHODS.iter().any(|f| m.method == f)
                && pure(&m.receiver, mutable)
                && m.args.iter().all(|a| pure(a, mutable))
        }
        // The loads `ranges.rs` proved.
        Expr::Call(c) => proved_load(c) && c.args.iter().all(|a| pure_arg(a, mutable)),
        _ => false,
    }
}

fn proved_load(c: &syn::ExprCall) -> bool {
    matches!(Rt::of(c), Some(Rt::LoadInBounds | Rt::LoadRowInBounds))
}

/// An argument of a proved load: a view reference or an index (possibly `Index::to_index(i)`).
pub(super) fn pure_arg(a: &Expr, mutable: &HashSet<String>) -> bool {
    match a {
        Expr::Reference(r) => matches!(&*r.expr, Expr::Path(_)),
        Expr::Call(c) if Rt::of(c) == Some(Rt::ToIndex) => c.args.iter().all(|x| pure(x, mutable)),
        e => pure(e, mutable),
    }
}

impl Program {
    /// The interleaved form of a range-proved region's thread code `proved` (see the module's
    /// text), as the call of `Regions::each_group` with `scalar` (the region's closure, for
    /// the threads left over and for a group that panics); `None` when the region is not of
    /// that shape.
    pub(super) fn interleaved(
        &self,
        proved: &[Stmt],
        io: &Interleave<'_>,
        scalar: &TokenStream,
        rb: &Ident,
    ) -> Option<TokenStream> {
        // Leading immutable `let`s, then one `for` loop, then nothing.
        let lets = proved.iter().take_while(|s| matches!(s, Stmt::Local(_))).count();
        let [Stmt::Expr(Expr::ForLoop(f), _)] = &proved[lets..] else { return None };
        let Pat::Ident(p) = &*f.pat else { return None };
        if p.mutability.is_some() || p.by_ref.is_some() {
            return None;
        }
        let mut names: HashSet<String> = io.recomputed.iter().map(|(n, _)| n.to_string()).collect();
        names.extend(io.taken.iter().map(|(n, _)| n.to_string()));
        names.extend(io.saved.iter().map(|(n, _)| n.to_string()));
        let mut own = Vec::new();
        for s in &proved[..lets] {
            let Stmt::Local(l) = s else { return None };
            let Pat::Ident(pi) = &l.pat else { return None };
            let init = l.init.as_ref()?;
            if pi.mutability.is_some() || pi.by_ref.is_some() || init.diverge.is_some() {
                return None;
            }
            if !pure(&init.expr, &HashSet::new()) {
                return None;
            }
            own.push((pi.ident.clone(), (*init.expr).clone()));
            names.insert(pi.ident.to_string());
        }
        // The loop's variable is the same for every thread of the group.
        if names.contains(&p.ident.to_string()) {
            return None;
        }
        // The only locals the loop may assign: the per-thread slots' values.
        let mutable: HashSet<String> = io.taken.iter().chain(&io.saved).map(|(n, _)| n.to_string()).collect();
        for s in &f.body.stmts {
            match s {
                Stmt::Expr(e, _) if pure(e, &mutable) => {}
                _ => return None,
            }
        }
        let ctx = self.ctx.to_string();
        let mut lanes = Lanes { names: &names, ctx: &ctx };
        let i = lane_index();
        let k = GROUP;
        // Each per-thread value, in binding order.
        let per_lane = |e: &TokenStream| quote!(::core::array::from_fn(|#i: usize| #e));
        let mut inits = TokenStream::new();
        for (n, e) in io.recomputed.iter().map(|(n, e)| ((*n).clone(), (*e).clone())).chain(own) {
            let mut e = e;
            lanes.visit_expr_mut(&mut e);
            let arr = per_lane(&quote!(#e));
            inits.extend(quote!(let #n: [_; #k] = #arr;));
        }
        for (n, slots) in &io.taken {
            let arr = per_lane(&quote!(#slots.get(__emu_ts[#i])));
            inits.extend(quote!(#[allow(unused_mut)] let mut #n: [_; #k] = #arr;));
        }
        let mut body = f.body.clone();
        lanes.visit_block_mut(&mut body);
        // Loads of shared arrays the region does not rebind read a copy taken at its start.
        let mut snaps = Snapshots { arrays: self.shared_arrays(), bound: &names, taken: Vec::new() };
        snaps.visit_block_mut(&mut body);
        let copies =
            snaps.taken.iter().map(|(view, snap)| quote!(let #snap = ::deviceemu::__private::Snapshot::of(&#view);));
        let (var, range) = (&f.pat, &f.expr);
        let stmts = &body.stmts;
        let puts = io.saved.iter().map(|(n, slots)| quote!(#slots.put(__emu_ts[#i], #n[#i]);));
        Some(quote! {
            #(#copies)*
            #rb.each_group::<#k, _, _>(
                |__emu_ts: &[usize; #k], __emu_ctxs: &[::deviceemu::__private::ThreadCtx; #k]| {
                    #inits
                    for #var in #range {
                        for #i in 0..#k {
                            #(#stmts)*
                        }
                    }
                    for #i in 0..#k {
                        #(#puts)*
                    }
                },
                #scalar,
            );
        })
    }
}
