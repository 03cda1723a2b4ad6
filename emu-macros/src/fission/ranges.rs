//! Range-proved regions: a barrier kernel's region, run one thread at a time, whose accesses
//! are proved in bounds for every thread once per region run instead of checked one by one.
//!
//! An index qualifies when it is a sum of terms whose smallest and largest values over the
//! region's threads and loop passes are known: block-uniform values (themselves), the
//! thread's indices (`thread_idx().y as usize`: from 0 to `block_dim().y - 1`), immutable
//! locals bound to such sums (recomputed ones included), and the variables of `for j in a..b`
//! loops with uniform bounds (from `a` to `b - 1`), and sums and products of those. A sum is
//! monotone in each term, and a product in each factor while both are at least 0 (which the
//! proof checks of their smallest values), so an index's values lie between its value at the
//! terms' smallest values and at their largest; the proof computes both in the index's own
//! type with checked arithmetic (an overflow fails it) and checks them against the view's length, or for `t[r][c]` the row index against the
//! rows and the column against the row's length. The tiled matrix product's inner loop,
//! `acc += ta[ty][j] * tb[j][tx]`, takes it.
//!
//! Only what the proof covers is rewritten (into `__private::load_in_bounds` and friends, still
//! relaxed accesses): accesses inside closures and macros, or whose index is of another shape,
//! are left checked; if any access of the region is of another shape, the region is left as
//! it is. The region keeps its running order, its running thread and everything else of the
//! scalar form: only checks that cannot fail are left out.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::uniform::idents_of;
use super::{pat_names, path_name, private_call, rt, strip_parens, view_named, Lives, Program};

/// The smallest and largest value of a term, each an `Option<T>` expression (`None`: the
/// range is empty, or it overflowed).
#[derive(Clone)]
struct Range {
    lo: TokenStream,
    hi: TokenStream,
}

/// The rewrite of a region's accesses, with what it must prove.
struct Ranges<'a> {
    ctx: &'a str,
    uniform: &'a dyn Fn(&Expr) -> bool,
    views: &'a HashSet<String>,
    /// The ranges of the names in scope (locals and loop variables).
    env: HashMap<String, Range>,
    view_alias: HashMap<String, Ident>,
    /// The proof's conditions, one per access.
    checks: Vec<TokenStream>,
    /// Whether every access seen was of a shape the proof covers.
    ok: bool,
}

impl Ranges<'_> {
    fn range(&self, e: &Expr) -> Option<Range> {
        let r = rt();
        let e = strip_parens(e);
        if let Some(n) = path_name(e) {
            if let Some(range) = self.env.get(&n) {
                return Some(range.clone());
            }
        }
        match e {
            // `thread_idx().y as u32` and the like: a thread index is below 1024, which every
            // integer type of 16 bits or more holds.
            Expr::Cast(c) if self.thread_field(&c.expr).is_some() => {
                let field = self.thread_field(&c.expr)?;
                let ty = &c.ty;
                let syn::Type::Path(p) = &**ty else { return None };
                let wide = p.path.get_ident().is_some_and(|t| {
                    matches!(
                        t.to_string().as_str(),
                        "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "usize" | "isize" | "u128" | "i128"
                    )
                });
                if !wide {
                    return None;
                }
                let ctx = Ident::new(self.ctx, proc_macro2::Span::mixed_site());
                Some(Range {
                    lo: quote!(::core::option::Option::Some(0 as #ty)),
                    hi: quote!(::core::option::Option::Some((#ctx.block_dim.#field - 1) as #ty)),
                })
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
                let (x, y) = (self.range(&b.left)?, self.range(&b.right)?);
                let (xl, xh, yl, yh) = (&x.lo, &x.hi, &y.lo, &y.hi);
                Some(Range { lo: quote!(#r::range_add(#xl, #yl)), hi: quote!(#r::range_add(#xh, #yh)) })
            }
            // A product is monotone in each factor where both are at least 0: `range_mul`
            // gives `None` for a negative smallest value, which fails the proof.
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
                let (x, y) = (self.range(&b.left)?, self.range(&b.right)?);
                let (xl, xh, yl, yh) = (&x.lo, &x.hi, &y.lo, &y.hi);
                Some(Range { lo: quote!(#r::range_mul(#xl, #yl)), hi: quote!(#r::range_mul(#xh, #yh)) })
            }
            // The proof evaluates a uniform term where the kernel may not (under an `if`), so
            // only one whose evaluation cannot panic.
            e if (self.uniform)(e) && panic_free(e) => Some(Range {
                lo: quote!(::core::option::Option::Some(#e)),
                hi: quote!(::core::option::Option::Some(#e)),
            }),
            _ => None,
        }
    }

    /// `x`, `y` or `z` when `e` is `ctx.thread_idx.x` (`.y`, `.z`).
    fn thread_field(&self, e: &Expr) -> Option<Ident> {
        let Expr::Field(f) = strip_parens(e) else { return None };
        let syn::Member::Named(m) = &f.member else { return None };
        let Expr::Field(inner) = &*f.base else { return None };
        let ok = matches!(&inner.member, syn::Member::Named(t) if t == "thread_idx")
            && matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(self.ctx));
        (ok && ["x", "y", "z"].iter().any(|c| m == c)).then(|| m.clone())
    }

    /// The view `e` names (a buffer parameter, a shared array, or an alias of one).
    fn view_of(&self, e: &Expr) -> Option<Ident> {
        view_named(strip_parens(e), &self.view_alias, |n| self.views.contains(n))
    }

    /// The proof that an index of range `range` is below `len`.
    fn below(range: &Range, len: TokenStream) -> TokenStream {
        let r = rt();
        let (lo, hi) = (&range.lo, &range.hi);
        quote! {
            && match (#lo, #hi) {
                (::core::option::Option::Some(__emu_lo), ::core::option::Option::Some(__emu_hi)) => {
                    #r::Index::to_index(__emu_lo) <= #r::Index::to_index(__emu_hi) && #r::Index::to_index(__emu_hi) < #len
                }
                _ => false,
            }
        }
    }

    /// `__private::load(checked, &v, i)`, `store(checked, &v, i, x)`, and the same through
    /// `&__private::row(&t, r)` (`row_write`): rewritten when the proof covers them.
    fn access(&mut self, e: &mut Expr) -> bool {
        let Expr::Call(c) = e else { return false };
        let store = match (private_call(c).as_deref(), c.args.len()) {
            (Some("load"), 3) => false,
            (Some("store"), 4) => true,
            (Some("row" | "row_write"), _) => {
                // A row outside a load or store: not a form the proof covers.
                self.ok = false;
                return true;
            }
            _ => return false,
        };
        let r = rt();
        let span = syn::spanned::Spanned::span(&*c);
        let Some(Expr::Reference(view_ref)) = c.args.iter().nth(1) else {
            self.ok = false;
            return true;
        };
        let index = c.args[2].clone();
        let Some(ir) = self.range(&index) else {
            self.ok = false;
            return true;
        };
        let value = if store {
            let mut x = c.args[3].clone();
            self.visit_expr_mut(&mut x);
            Some(x)
        } else {
            None
        };
        if let Some(v) = self.view_of(&view_ref.expr) {
            let check = Self::below(&ir, quote!(#v.len()));
            self.checks.push(quote!(&& #r::view_aligned(&#v) #check));
            // The region's proof showed every value of this index, for every thread and loop
            // pass, below the view's length; the accessors check it again.
            *e = match value {
                Some(x) => {
                    syn::parse_quote_spanned!(span=> ::deviceemu::__private::store_in_bounds(&#v, #r::Index::to_index(#index), #x))
                }
                None => {
                    syn::parse_quote_spanned!(span=> ::deviceemu::__private::load_in_bounds(&#v, #r::Index::to_index(#index)))
                }
            };
            return true;
        }
        // `&row(&t, r)`.
        let Expr::Call(rc) = strip_parens(&view_ref.expr) else {
            self.ok = false;
            return true;
        };
        let is_row = matches!(private_call(rc).as_deref(), Some("row" | "row_write")) && rc.args.len() == 2;
        let (Some(Expr::Reference(t)), true) = (rc.args.first(), is_row) else {
            self.ok = false;
            return true;
        };
        let (Some(t), row) = (self.view_of(&t.expr), rc.args[1].clone()) else {
            self.ok = false;
            return true;
        };
        let Some(rr) = self.range(&row) else {
            self.ok = false;
            return true;
        };
        let rows = Self::below(&rr, quote!(#t.len()));
        let cols = Self::below(&ir, quote!(#r::row_len(&#t)));
        self.checks.push(quote!(&& #r::view_aligned(&#t) #rows #cols));
        // The proof showed every row index below the rows and every column index below a
        // row's length; the accessors check it again.
        *e = match value {
            Some(x) => syn::parse_quote_spanned!(span=>
                ::deviceemu::__private::store_row_in_bounds(&#t, #r::Index::to_index(#row), #r::Index::to_index(#index), #x)
            ),
            None => syn::parse_quote_spanned!(span=>
                ::deviceemu::__private::load_row_in_bounds(&#t, #r::Index::to_index(#row), #r::Index::to_index(#index))
            ),
        };
        true
    }

    /// A statement `let x = e;`: `x` has `e`'s range if it is immutable and `e` has one, an
    /// alias if `e` is a view; otherwise it shadows whatever `x` was.
    fn local(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, other)) = &mut init.diverge {
                self.visit_expr_mut(other);
            }
        }
        let Pat::Ident(p) = &l.pat else {
            // Names a pattern binds shadow the ranges of the names they reuse.
            for n in pat_names(&l.pat) {
                self.env.remove(&n);
                self.view_alias.remove(&n);
            }
            return;
        };
        let name = p.ident.to_string();
        self.env.remove(&name);
        self.view_alias.remove(&name);
        let Some(init) = &l.init else { return };
        if p.mutability.is_some() || p.by_ref.is_some() || init.diverge.is_some() {
            return;
        }
        if let Some(v) = self.view_of(&init.expr) {
            self.view_alias.insert(name, v);
        } else if let Some(range) = self.range(&init.expr) {
            self.env.insert(name, range);
        }
    }
}

/// Whether evaluating `e` cannot panic (no arithmetic that may overflow, no division but by a
/// non-zero literal, no call but `len()`): what a proof may evaluate ahead of the kernel.
fn panic_free(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => panic_free(&p.expr),
        Expr::Group(g) => panic_free(&g.expr),
        Expr::Cast(c) => panic_free(&c.expr),
        Expr::Field(f) => panic_free(&f.base),
        Expr::MethodCall(m) => m.method == "len" && m.args.is_empty() && panic_free(&m.receiver),
        Expr::Binary(b) => match b.op {
            syn::BinOp::BitAnd(_) | syn::BinOp::BitOr(_) | syn::BinOp::BitXor(_) => {
                panic_free(&b.left) && panic_free(&b.right)
            }
            syn::BinOp::Div(_) | syn::BinOp::Rem(_) => {
                let nonzero = matches!(&*b.right, Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_parse::<u128>().is_ok_and(|v| v > 0));
                nonzero && panic_free(&b.left)
            }
            _ => false,
        },
        _ => false,
    }
}

impl VisitMut for Ranges<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        match e {
            // Left as they are, checked: closures may run anywhere, macros are tokens.
            Expr::Closure(_) | Expr::Macro(_) => {}
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let names = pat_names(&f.pat);
                let saved: Vec<(String, Option<Range>, Option<Ident>)> =
                    names.iter().map(|n| (n.clone(), self.env.remove(n), self.view_alias.remove(n))).collect();
                // `for j in a..b`, `a` and `b` uniform: `j` from `a` to `b - 1`.
                if let (Pat::Ident(p), Expr::Range(r)) = (&*f.pat, strip_parens(&f.expr)) {
                    let half_open = matches!(r.limits, syn::RangeLimits::HalfOpen(_));
                    if let (Some(a), Some(b), true, None, None) =
                        (&r.start, &r.end, half_open, &p.mutability, &p.by_ref)
                    {
                        if (self.uniform)(a) && (self.uniform)(b) && panic_free(a) && panic_free(b) {
                            let hi = quote!(if #a < #b { ::core::option::Option::Some(#b - 1) } else { ::core::option::Option::None });
                            self.env.insert(
                                p.ident.to_string(),
                                Range { lo: quote!(::core::option::Option::Some(#a)), hi },
                            );
                        }
                    }
                }
                for s in &mut f.body.stmts {
                    self.visit_stmt_mut(s);
                }
                for (n, range, alias) in saved {
                    self.env.remove(&n);
                    if let Some(range) = range {
                        self.env.insert(n.clone(), range);
                    }
                    if let Some(alias) = alias {
                        self.view_alias.insert(n, alias);
                    }
                }
            }
            Expr::Block(b) => {
                // A block's `let`s end with it.
                let (env, alias) = (self.env.clone(), self.view_alias.clone());
                for s in &mut b.block.stmts {
                    self.visit_stmt_mut(s);
                }
                (self.env, self.view_alias) = (env, alias);
            }
            e => {
                if !self.access(e) {
                    syn::visit_mut::visit_expr_mut(self, e)
                }
            }
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let (env, alias) = (self.env.clone(), self.view_alias.clone());
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
        }
        (self.env, self.view_alias) = (env, alias);
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local(l) => self.local(l),
            Stmt::Expr(e, _) => self.visit_expr_mut(e),
            Stmt::Macro(_) | Stmt::Item(_) => {}
        }
    }
}

impl Program {
    /// A region's thread code with the accesses the proof covers rewritten unchecked, and the
    /// proof (see the module's text); `None` when the region has no access or one of a shape
    /// the proof does not cover.
    pub(super) fn range_region(&self, thread: &[Stmt]) -> Option<(TokenStream, Vec<Stmt>)> {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names = self.names(&self.uniform, &locals, &ctx);
        let mut varying: HashSet<String> = self
            .locals
            .iter()
            .filter(|l| self.lives.get(&l.name) != Some(&Lives::Uniform))
            .map(|l| l.name.clone())
            .collect();
        // Loop variables inside the region vary too.
        varying.extend(loop_vars(thread));
        let uniform = |e: &Expr| idents_of(e).is_disjoint(&varying) && names.uniform(e);
        let mut views = self.buffers.clone();
        views.extend(self.shared_arrays());
        let mut v = Ranges {
            ctx: &ctx,
            uniform: &uniform,
            views: &views,
            env: HashMap::new(),
            view_alias: HashMap::new(),
            checks: Vec::new(),
            ok: true,
        };
        // The recomputed locals the region restores, in binding order.
        for l in &self.locals {
            if self.lives.get(&l.name) == Some(&Lives::Recomputed) && !l.mutable {
                if let Some(range) = v.range(&l.init) {
                    v.env.insert(l.name.clone(), range);
                }
            }
        }
        let mut stmts = thread.to_vec();
        for s in &mut stmts {
            v.visit_stmt_mut(s);
        }
        if !v.ok || v.checks.is_empty() {
            return None;
        }
        let checks = &v.checks;
        Some((quote!((true #(#checks)*)), stmts))
    }
}

/// The variables of the `for` loops inside `stmts` (which vary in the loop).
fn loop_vars(stmts: &[Stmt]) -> HashSet<String> {
    struct L(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for L {
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.0.extend(pat_names(&f.pat));
            syn::visit::visit_expr_for_loop(self, f);
        }
    }
    let mut l = L(HashSet::new());
    for s in stmts {
        syn::visit::visit_stmt(&mut l, s);
    }
    l.0
}
