//! Regions in turn: a range-proved region (`ranges.rs`) of straight-line code (`let`s of
//! arithmetic and proved loads, proved stores, assignments to its own locals) runs [`TURN`]
//! threads per call (`Regions::each_in_turn`), each thread's code whole, one thread after
//! another, in index order: what it does, and in what order, is what running the threads one
//! at a time does, so every result is the same.
//!
//! What it saves is the per-thread call: the uniform values the region reads (parameters,
//! shared arrays, uniform locals made by a cast or a literal) are copied into the group's own
//! locals once per group, where a thread alone reloads them after each store it makes (a
//! relaxed store may alias them, for all the compiler knows), and the lanes' indices are
//! consecutive along a row, so the compiler shares what they compute from `y`, `z` and the
//! uniform values (the loop over the group's threads is short and the compiler unrolls it).
//! The code cannot exit or fault (no `return`, no call but the proved
//! accesses and pure float methods); a panic (an integer overflow in a debug build) unwinds as
//! it does from one thread, reported at the thread running, which `Turn::enter` names.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, Ident, Pat, Stmt};

use super::interleave::{pure, pure_arg};
use super::uniform::idents_of;
use super::{path_name, strip_parens, Lives, Program};
use crate::abi::Rt;

/// Threads per call.
pub(super) const TURN: usize = 8;

/// Whether `s` is a proved store as `ranges.rs` writes it:
/// `{ let __emu_value = v; store_in_bounds(&view, i.., __emu_value) }`, with `v` and the
/// indices pure.
fn proved_store(e: &Expr, mutable: &HashSet<String>) -> bool {
    let Expr::Block(b) = e else { return false };
    let [Stmt::Local(l), Stmt::Expr(store, _)] = b.block.stmts.as_slice() else { return false };
    let Expr::Call(c) = strip_parens(store) else { return false };
    let Some(init) = &l.init else { return false };
    if init.diverge.is_some() || !pure(&init.expr, mutable) {
        return false;
    }
    if !matches!(Rt::of(c), Some(Rt::StoreInBounds | Rt::StoreRowInBounds)) {
        return false;
    }
    let n = c.args.len();
    c.args.iter().enumerate().all(|(k, a)| match k {
        0 => matches!(a, Expr::Reference(r) if matches!(&*r.expr, Expr::Path(_))),
        k if k + 1 == n => path_name(a).is_some(),
        _ => pure_arg(a, mutable),
    })
}

/// Whether the statements are straight-line code the region may run in turn; `own` collects
/// the locals they bind.
fn straight(stmts: &[Stmt], own: &mut HashSet<String>) -> bool {
    stmts.iter().all(|s| match s {
        Stmt::Local(l) => {
            let Pat::Ident(p) = &l.pat else { return false };
            let ok = p.by_ref.is_none() && l.init.as_ref().is_some_and(|i| i.diverge.is_none() && pure(&i.expr, own));
            own.insert(p.ident.to_string());
            ok
        }
        Stmt::Expr(Expr::Block(b), _) if b.block.stmts.len() != 2 => straight(&b.block.stmts, &mut own.clone()),
        Stmt::Expr(e, _) => proved_store(e, own) || pure(e, own),
        _ => false,
    })
}

impl Program {
    /// The form in turn of a range-proved region's thread code `proved` (see the module's
    /// text), as the call of `Regions::each_in_turn` with `scalar` (the region's closure);
    /// `None` when the region is not straight-line.
    pub(super) fn in_turn(
        &self,
        proved: &[Stmt],
        restores: &TokenStream,
        saves: &TokenStream,
        scalar: &TokenStream,
        g: &super::Gen,
    ) -> Option<TokenStream> {
        let mut own = HashSet::new();
        // Assignments may only go to the region's own locals (and those it restores).
        for l in &self.locals {
            if matches!(self.liveness.kinds.get(&l.name), Some(Lives::Recomputed | Lives::Lanes)) {
                own.insert(l.name.clone());
            }
        }
        if proved.is_empty() || !straight(proved, &mut own) {
            return None;
        }
        // The uniform values to copy once per group.
        let mut mentioned = HashSet::new();
        for s in proved {
            mentioned.extend(idents_of_stmt(s));
        }
        let shared = self.shared_arrays();
        let mut copies = Vec::new();
        let mut names: Vec<&String> = mentioned.iter().collect();
        names.sort();
        for n in names {
            if own.contains(n) {
                continue;
            }
            // A name bound once only, so that the binding found is the one the region sees.
            let bindings = self.locals.iter().filter(|l| l.name == *n).count() + usize::from(self.params.contains(n));
            if bindings != 1 {
                continue;
            }
            let copy = match self.by_name.get(n).map(|&i| &self.locals[i]) {
                Some(l) => {
                    self.liveness.kinds.get(n) == Some(&Lives::Uniform)
                        && !l.mutable
                        && (shared.contains(n) || matches!(strip_parens(&l.init), Expr::Cast(_) | Expr::Lit(_)))
                }
                None => self.params.contains(n),
            };
            if copy {
                let id = Ident::new(n, Span::call_site());
                copies.push(quote!(let #id = #id;));
            }
        }
        let (rb, t, ctx) = (&g.rb, &g.t, &g.ctx);
        let code = super::thread_code(proved);
        let k = TURN;
        // The group's threads one after another, written out (the copies above are the
        // group's own values, never reloaded after a store). Written out, not a loop: the
        // checks of the proved accesses (`__private::load_in_bounds`) kept the compiler from
        // unrolling a loop, and rolled, the lanes' loads of global memory waited for each
        // other; benches/throughput.rs's tiled matmul took 1.75x the CPU time it takes
        // unrolled (perf stat task-clock, EMU_BLOCKS=serial, 2026-12-04).
        let each = (0..k).map(|lane| {
            quote! {
                {
                    let #t: usize = __emu_ts[#lane];
                    #[allow(unused_variables)]
                    let #ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[#lane];
                    __emu_turn.enter(#t);
                    #restores
                    #code
                    #saves
                }
            }
        });
        let lanes = quote! { #(#each)* };
        Some(quote! {
            #rb.each_in_turn::<#k, _, _>(
                |__emu_ts: &[usize; #k], __emu_ctxs: &[::deviceemu::__private::ThreadCtx; #k], __emu_turn: &::deviceemu::__private::Turn<'_>| {
                    #(#copies)*
                    #lanes
                },
                #scalar,
            );
        })
    }
}

/// The identifiers a statement mentions.
fn idents_of_stmt(s: &Stmt) -> HashSet<String> {
    let e: Expr = syn::parse_quote!({ #s });
    idents_of(&e)
}
