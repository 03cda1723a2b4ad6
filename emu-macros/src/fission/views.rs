//! Regions whose views are checked once: a region or lane loop that no proof covers still
//! checks, at every access, that its view is live (a shared view kept past its block,
//! `mem/stamp.rs`) and aligned (a cast view), before its index. Both are facts of the view,
//! not of the access: the `Views` tier (`tiers.rs`) asks them once per region run of each
//! view the region accesses (`__private::view_aligned`, which the range-proved and vectorised
//! forms ask too) and runs a copy of the thread code whose accesses check their index only
//! (`__private::Valid` as the access mode of `load` and `store`, which calls `load_valid` and `store_valid`; a bad index takes the view's own access, which
//! reports it as before).
//!
//! Only accesses written `v[i]` (the rewrite's `load`/`store` of `v`) whose `v` is a buffer
//! parameter, a shared array or the kernel's one view of the dynamic shared memory (or a
//! `let` alias of one, as compound assignments bind) are rewritten; the rest keep their
//! checks. A region that binds one of those names itself is left as it is, and so is one that
//! accesses no shared view (a global view's liveness costs nothing to ask).

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::{pat_names, path_name, view_named, Program};
use crate::abi::Access;

/// The rewrite of a region's accesses.
struct Views<'a> {
    views: &'a HashSet<String>,
    /// Locals bound to a view (`let __emu_view = out;`).
    alias: HashMap<String, Ident>,
    /// The views accessed, in order of first access.
    used: Vec<Ident>,
    ok: bool,
}

impl Views<'_> {
    /// The view `e` (`&v`) names, directly or through an alias.
    fn view_of(&self, e: &Expr) -> Option<Ident> {
        let Expr::Reference(r) = e else { return None };
        view_named(&r.expr, &self.alias, |n| self.views.contains(n))
    }

    fn binds(&mut self, names: HashSet<String>) {
        if names.iter().any(|n| self.views.contains(n) || self.alias.contains_key(n)) {
            self.ok = false;
        }
    }
}

impl VisitMut for Views<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        match e {
            // Left as they are, checked: closures may run anywhere, macros are tokens.
            Expr::Closure(_) | Expr::Macro(_) => {}
            Expr::ForLoop(f) => {
                self.binds(pat_names(&f.pat));
                syn::visit_mut::visit_expr_for_loop_mut(self, f);
            }
            Expr::Let(l) => {
                self.binds(pat_names(&l.pat));
                syn::visit_mut::visit_expr_let_mut(self, l);
            }
            Expr::Match(m) => {
                for arm in &m.arms {
                    self.binds(pat_names(&arm.pat));
                }
                syn::visit_mut::visit_expr_match_mut(self, m);
            }
            Expr::Call(c) => {
                syn::visit_mut::visit_expr_call_mut(self, c);
                let Some(access) = Access::of(c) else { return };
                let checked = path_name(access.checked).is_some_and(|n| n == "__EMU_CHECKED");
                let Some(view) = self.view_of(access.view).filter(|_| checked) else { return };
                if !self.used.contains(&view) {
                    self.used.push(view.clone());
                }
                // The same call with `Valid` for `__EMU_CHECKED` (`__private::Access`): its
                // spans are kept, so `track_caller` reports a bad index at the access's line,
                // and a type error at the access is the per-thread form's, reported once.
                let span = syn::spanned::Spanned::span(&c.args[0]);
                c.args[0] = syn::parse_quote_spanned!(span=> ::deviceemu::__private::Valid);
                // The view itself for an alias of it (`&__emu_view` of `v[i] += x`): the alias
                // is then dead, and the loop keeps no copy of the view in memory for the cold
                // report path (two 16-byte moves a thread in reduce0's steps).
                let span = syn::spanned::Spanned::span(&c.args[1]);
                c.args[1] = syn::parse_quote_spanned!(span=> &#view);
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let alias = self.alias.clone();
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
        }
        self.alias = alias;
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local(l) => {
                if let Some(init) = &mut l.init {
                    self.visit_expr_mut(&mut init.expr);
                    if let Some((_, d)) = &mut init.diverge {
                        self.visit_expr_mut(d);
                    }
                }
                let names = pat_names(&l.pat);
                // `let __emu_view = v;`: an alias of a view.
                let target = match (&l.pat, &l.init) {
                    // The view's own identifier, with the span it was written with.
                    (Pat::Ident(p), Some(i)) if p.by_ref.is_none() && i.diverge.is_none() => {
                        view_named(&i.expr, &self.alias, |n| self.views.contains(n)).map(|v| (p.ident.to_string(), v))
                    }
                    _ => None,
                };
                match target {
                    Some((name, v)) if !self.views.contains(&name) => {
                        self.alias.insert(name, v);
                    }
                    _ => self.binds(names),
                }
            }
            Stmt::Expr(e, _) => self.visit_expr_mut(e),
            Stmt::Macro(_) | Stmt::Item(_) => {}
        }
    }
}

impl Program {
    /// A region's thread code with its accesses through known views checking their index
    /// only, and the guard that lets it run: every view it accesses that way is live and
    /// aligned. `None` when it has no such access or binds a view's name.
    pub(super) fn views_region(&self, thread: &[Stmt]) -> Option<(TokenStream, Vec<Stmt>)> {
        let shared = self.shared_arrays();
        let mut views = self.buffers.clone();
        views.extend(shared.iter().cloned());
        let mut v = Views { views: &views, alias: HashMap::new(), used: Vec::new(), ok: true };
        let mut stmts = thread.to_vec();
        for s in &mut stmts {
            v.visit_stmt_mut(s);
        }
        // Only a shared view's check costs a lookup (its stamp); a region of global views
        // keeps its code, which the compiler already treats well.
        if !v.ok || !v.used.iter().any(|u| shared.contains(&u.to_string())) {
            return None;
        }
        let guard = v.used.iter().map(|view| quote!(::deviceemu::__private::view_aligned(&#view)));
        Some((quote!(#(#guard)&&*), stmts))
    }
}
