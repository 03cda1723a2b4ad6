//! Range-proved regions: a barrier kernel's region, run one thread at a time, whose accesses
//! are proved in bounds for every thread once per region run instead of checked one by one.
//!
//! An index qualifies when it is a sum of terms whose smallest and largest values over the
//! region's threads and loop passes are known: block-uniform values (themselves), the
//! thread's indices (`thread_idx().y as usize`: from 0 to `block_dim().y - 1`), immutable
//! locals bound to such sums (recomputed ones included), and the variables of `for j in a..b`
//! loops with uniform bounds (from `a` to `b - 1`), and sums, differences and products of
//! those, and casts of integers to integer types. A sum is monotone in each term, a
//! difference in each operand (rising with the left, falling with the right), a product in
//! each factor while both are at least 0 (which the proof checks of their smallest values),
//! and a cast between integer types wherever both ends convert (`range_cast`: `try_from`), so
//! an index's values lie between its value at the terms' smallest values and at their
//! largest; the proof computes both in the index's own type with checked arithmetic (an
//! overflow fails it) and checks them against the view's length, or for `t[r][c]` the row
//! index against the rows and the column against the row's length. The tiled matrix
//! product's inner loop, `acc += ta[ty][j] * tb[j][tx]`, takes it.
//!
//! Inside `if cond { .. }`, each conjunct of `cond` that compares a name of an integer range,
//! or a thread index, with a term of a range (`i >= 1 && i < n - 1`, `thread_idx().y == 0`,
//! `x != c`) narrows its range to the values that pass it: only threads that pass the test
//! run the branch, so its accesses need hold for those values only (a 3-point stencil's
//! `tile[t - 1]` under `t >= 1`). The `else` branch sees what `cond` narrows where it fails
//! (a comparison turned round, each disjunct of `a || b`; `x != c` leaves out an end of
//! `x`'s range that is `c`'s one value, and `x + u == c`, `u` uniform, fails where `x` is not
//! `c - u`). A `bool` local narrows what its definition does, and a local's range is its
//! definition's, computed where it is used: Parboil's stencil reads `sh_A0[sh_id + 2 *
//! block_dim().x]` in the `else` of `if y_h_bound`, `y_h_bound` being `thread_idx().y ==
//! block_dim().y - 1` and `sh_id` a sum of `thread_idx().y`'s multiple.
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
use super::{pat_names, path_name, rt, strip_parens, view_named, Lives, Program};
use crate::abi::Rt;

/// The smallest and largest value of a term, each an `Option<T>` expression (`None`: the
/// range is empty, or it overflowed); `int` when `T` is known to be a primitive integer (a
/// thread's or block's index, an integer literal, a cast to an integer type, or arithmetic
/// with one of those), which casts and guards need of their operand.
#[derive(Clone)]
struct Range {
    lo: TokenStream,
    hi: TokenStream,
    int: bool,
}

/// The primitive integer types.
const INTS: [&str; 12] = ["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"];

/// Whether `t` is a primitive integer type.
fn int_type(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| INTS.contains(&i.to_string().as_str())))
}

/// The key of thread index `field` (`x`, `y`, `z`) in [`Ranges`]'s `env` once a guard
/// narrowed it: not a name a kernel can bind.
fn thread_key(field: &Ident) -> String {
    format!("@thread.{field}")
}

/// The names in scope of [`Ranges`] (`env`, `defs`, `view_alias`), kept to be restored where
/// a block or branch ends.
type Scope = (HashMap<String, Range>, HashMap<String, (Expr, bool)>, HashMap<String, Ident>);

/// The rewrite of a region's accesses, with what it must prove.
struct Ranges<'a> {
    ctx: &'a str,
    uniform: &'a dyn Fn(&Expr) -> bool,
    views: &'a HashSet<String>,
    /// The ranges of the names in scope (loop variables, names a guard narrowed, locals whose
    /// definitions name a name bound again since) and of the thread's indices a guard narrowed
    /// (`@thread.x`, see [`thread_key`]).
    env: HashMap<String, Range>,
    /// The definitions of the immutable locals in scope, and whether the binding's type is a
    /// primitive integer: a local's range is its definition's, computed where it is used, so
    /// that a guard that narrows a name or a thread index it depends on narrows it too
    /// (`sh_id + 2 * block_dim().x` under `thread_idx().y != block_dim().y - 1`); a `bool`
    /// local's definition is the condition it holds (`if w_region` narrows what `let
    /// w_region = i > 0 && i < nx - 1` compares).
    defs: HashMap<String, (Expr, bool)>,
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
            if let Some((def, typed_int)) = self.defs.get(&n) {
                let range = self.range(def)?;
                return Some(Range { int: range.int || *typed_int, ..range });
            }
        }
        match e {
            // `thread_idx().y as u32` and the like: a thread index is below 1024, which every
            // integer type of 16 bits or more holds (once a guard narrowed it, the cast arm
            // below converts its range).
            Expr::Cast(c) if self.thread_field(&c.expr).is_some_and(|f| !self.env.contains_key(&thread_key(&f))) => {
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
                    int: true,
                })
            }
            // `thread_idx().y` itself, a `u32`.
            e if self.thread_field(e).is_some() => {
                let field = self.thread_field(e)?;
                if let Some(x) = self.env.get(&thread_key(&field)) {
                    return Some(x.clone());
                }
                let ctx = Ident::new(self.ctx, proc_macro2::Span::mixed_site());
                Some(Range {
                    lo: quote!(::core::option::Option::Some(0u32)),
                    hi: quote!(::core::option::Option::Some(#ctx.block_dim.#field - 1)),
                    int: true,
                })
            }
            // A sum is monotone in each term, a difference rises with its left term and falls
            // with its right one, and a product is monotone in each factor where both are at
            // least 0 (`range_mul` gives `None` for a negative smallest value, which fails the
            // proof).
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)) => {
                let (x, y) = (self.range(&b.left)?, self.range(&b.right)?);
                let (f, crossed) = match b.op {
                    syn::BinOp::Add(_) => (quote!(range_add), false),
                    syn::BinOp::Sub(_) => (quote!(range_sub), true),
                    _ => (quote!(range_mul), false),
                };
                let (xl, xh) = (&x.lo, &x.hi);
                let (yl, yh) = if crossed { (&y.hi, &y.lo) } else { (&y.lo, &y.hi) };
                Some(Range { lo: quote!(#r::#f(#xl, #yl)), hi: quote!(#r::#f(#xh, #yh)), int: x.int || y.int })
            }
            // `-x`: from minus `x`'s upper end to minus its lower one, each `None` where the
            // negation overflows.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                let x = self.range(&u.expr)?;
                let (xl, xh) = (&x.lo, &x.hi);
                Some(Range { lo: quote!(#r::range_neg(#xh)), hi: quote!(#r::range_neg(#xl)), int: x.int })
            }
            // The proof evaluates a uniform term where the kernel may not (under an `if`), so
            // only one whose evaluation cannot panic.
            e if (self.uniform)(e) && panic_free(e) => Some(Range {
                lo: quote!(::core::option::Option::Some(#e)),
                hi: quote!(::core::option::Option::Some(#e)),
                int: self.int_expr(e),
            }),
            // A cast of an integer to an integer type: each end converted, which fails the
            // proof where the type does not hold it.
            Expr::Cast(c) if int_type(&c.ty) => {
                let x = self.range(&c.expr).filter(|x| x.int)?;
                let (ty, xl, xh) = (&c.ty, &x.lo, &x.hi);
                Some(Range {
                    lo: quote!(#r::range_cast::<#ty, _>(#xl)),
                    hi: quote!(#r::range_cast::<#ty, _>(#xh)),
                    int: true,
                })
            }
            _ => None,
        }
    }

    /// Whether `e`'s type is known to be a primitive integer from `e` alone: an integer
    /// literal, an index of the thread, block or grid (`ctx.block_idx.x`), or a cast to one.
    fn int_expr(&self, e: &Expr) -> bool {
        match strip_parens(e) {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(_), .. }) => true,
            Expr::Cast(c) => int_type(&c.ty),
            Expr::Field(f) => {
                matches!(&*f.base, Expr::Field(inner) if matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(self.ctx)))
            }
            _ => false,
        }
    }

    /// The ranges `cond` narrows where it holds (the `then` branch of `if cond`): each
    /// conjunct `x < c`, `x <= c`, `x > c`, `x >= c`, `x == c` or `x != c` (either way round)
    /// with `x` a name of an integer range or a thread index, and `c` of a range, narrows
    /// `x`'s range to the values that pass it; a `bool` local narrows what its definition does,
    /// and `!a` what `a` narrows where it fails ([`Ranges::narrowed_not`]).
    fn narrowed(&self, cond: &Expr) -> Vec<(String, Range)> {
        use syn::BinOp as B;
        let cond = strip_parens(cond);
        if let Some(def) = self.condition_of(cond) {
            return self.narrowed(def);
        }
        match cond {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => self.narrowed_not(&u.expr),
            Expr::Binary(b) if matches!(b.op, B::And(_)) => Self::both(self.narrowed(&b.left), self.narrowed(&b.right)),
            Expr::Binary(b) => self.compared(&b.left, b.op, &b.right),
            _ => Vec::new(),
        }
    }

    /// The ranges `cond` narrows where it fails (the `else` branch of `if cond`): each
    /// disjunct of `a || b` where it fails, a comparison turned round (`x < c` fails where `x
    /// >= c` holds, `x == c` where `x != c` does), `!a` where `a` holds.
    fn narrowed_not(&self, cond: &Expr) -> Vec<(String, Range)> {
        use syn::BinOp as B;
        let cond = strip_parens(cond);
        if let Some(def) = self.condition_of(cond) {
            return self.narrowed_not(def);
        }
        let Expr::Binary(b) = cond else {
            return match cond {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => self.narrowed(&u.expr),
                _ => Vec::new(),
            };
        };
        let op = match b.op {
            B::Or(_) => return Self::both(self.narrowed_not(&b.left), self.narrowed_not(&b.right)),
            B::Lt(t) => B::Ge(syn::Token![>=](t.span)),
            B::Le(t) => B::Gt(syn::Token![>](t.spans[0])),
            B::Gt(t) => B::Le(syn::Token![<=](t.span)),
            B::Ge(t) => B::Lt(syn::Token![<](t.spans[0])),
            B::Eq(t) => B::Ne(syn::Token![!=](t.spans)),
            B::Ne(t) => B::Eq(syn::Token![==](t.spans)),
            _ => return Vec::new(),
        };
        self.compared(&b.left, op, &b.right)
    }

    /// The definition of `e` when it names a `bool` local that holds a condition.
    fn condition_of(&self, e: &Expr) -> Option<&Expr> {
        let n = path_name(e)?;
        if self.env.contains_key(&n) {
            return None;
        }
        let (def, _) = self.defs.get(&n)?;
        matches!(strip_parens(def), Expr::Binary(_) | Expr::Unary(_) | Expr::Path(_)).then_some(def)
    }

    /// Two narrowings that both hold: a name both narrow takes the second narrowing of the
    /// first's.
    fn both(mut out: Vec<(String, Range)>, more: Vec<(String, Range)>) -> Vec<(String, Range)> {
        let r = rt();
        for (n, range) in more {
            match out.iter_mut().find(|(m, _)| *m == n) {
                Some((_, first)) => {
                    let (l1, h1, l2, h2) = (&first.lo, &first.hi, &range.lo, &range.hi);
                    *first =
                        Range { lo: quote!(#r::range_max(#l1, #l2)), hi: quote!(#r::range_min(#h1, #h2)), int: true };
                }
                None => out.push((n, range)),
            }
        }
        out
    }

    /// The name (or thread index, [`thread_key`]) of an integer range that `e` is, and that
    /// range.
    fn subject(&self, e: &Expr) -> Option<(String, Range)> {
        let e = strip_parens(e);
        let key = match (path_name(e), self.thread_field(e)) {
            (Some(n), _) => n,
            (None, Some(f)) => thread_key(&f),
            _ => return None,
        };
        self.range(e).filter(|x| x.int).map(|x| (key, x))
    }

    /// What `left op right` narrows where it holds: the range of its subject (a name or a
    /// thread index, on either side) narrowed to the values that pass. For `!=`, also `x + u
    /// != c` with `u` uniform (as `x != c - u`: where `x` is `c - u`, `x + u` is `c`).
    fn compared(&self, left: &Expr, op: syn::BinOp, right: &Expr) -> Vec<(String, Range)> {
        use syn::BinOp as B;
        let r = rt();
        let (subject, op, c) = match (self.subject(left), self.subject(right)) {
            (Some(x), _) => (x, op, self.range(right)),
            (None, Some(x)) => {
                let flipped = match op {
                    B::Lt(t) => B::Gt(syn::Token![>](t.span)),
                    B::Le(t) => B::Ge(syn::Token![>=](t.spans)),
                    B::Gt(t) => B::Lt(syn::Token![<](t.span)),
                    B::Ge(t) => B::Le(syn::Token![<=](t.spans)),
                    op @ (B::Eq(_) | B::Ne(_)) => op,
                    _ => return Vec::new(),
                };
                (x, flipped, self.range(left))
            }
            (None, None) => match (op, strip_parens(left)) {
                (B::Ne(_), Expr::Binary(sum)) if matches!(sum.op, B::Add(_)) => {
                    let (x, u) = match (self.subject(&sum.left), self.subject(&sum.right)) {
                        (Some(x), _) if (self.uniform)(&sum.right) => (x, &*sum.right),
                        (_, Some(x)) if (self.uniform)(&sum.left) => (x, &*sum.left),
                        _ => return Vec::new(),
                    };
                    let (Some(c), Some(u)) = (self.range(right), self.range(u)) else { return Vec::new() };
                    let (cl, ch, ul, uh) = (&c.lo, &c.hi, &u.lo, &u.hi);
                    let c =
                        Range { lo: quote!(#r::range_sub(#cl, #uh)), hi: quote!(#r::range_sub(#ch, #ul)), int: true };
                    (x, op, Some(c))
                }
                _ => return Vec::new(),
            },
        };
        let ((name, x), Some(c)) = (subject, c) else { return Vec::new() };
        let (lo, hi, clo, chi) = (&x.lo, &x.hi, &c.lo, &c.hi);
        let one = quote!(::core::option::Option::Some(1));
        let (lo, hi) = match op {
            // Every value of `x` that passes is below each value `c` takes: below its largest.
            B::Lt(_) => (lo.clone(), quote!(#r::range_min(#hi, #r::range_sub(#chi, #one)))),
            B::Le(_) => (lo.clone(), quote!(#r::range_min(#hi, #chi))),
            B::Gt(_) => (quote!(#r::range_max(#lo, #r::range_add(#clo, #one))), hi.clone()),
            B::Ge(_) => (quote!(#r::range_max(#lo, #clo)), hi.clone()),
            B::Eq(_) => (quote!(#r::range_max(#lo, #clo)), quote!(#r::range_min(#hi, #chi))),
            // An end that is the one value `c` takes is left out.
            B::Ne(_) => (quote!(#r::range_skip_lo(#lo, #clo, #chi, 1)), quote!(#r::range_skip_hi(#hi, #clo, #chi, 1))),
            _ => return Vec::new(),
        };
        vec![(name, Range { lo, hi, int: true })]
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
        let store = match Rt::of(c) {
            Some(Rt::Load) => false,
            Some(Rt::Store) => true,
            Some(Rt::Row | Rt::RowWrite) => {
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
        let is_row = matches!(Rt::of(rc), Some(Rt::Row | Rt::RowWrite));
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

    /// A statement `let x = e;`: `x` has `e`'s definition if it is immutable, or is an alias
    /// if `e` is a view; otherwise it shadows whatever `x` was.
    fn local(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, other)) = &mut init.diverge {
                self.visit_expr_mut(other);
            }
        }
        // `let x: T = e`: `x` as `let x = e` (`T` is `e`'s type), an integer where `T` is one.
        let (pat, typed_int) = match &l.pat {
            Pat::Type(t) => (&*t.pat, int_type(&t.ty)),
            p => (p, false),
        };
        let Pat::Ident(p) = pat else {
            // Names a pattern binds shadow the ranges of the names they reuse.
            for n in pat_names(&l.pat) {
                self.unbind(&n);
            }
            return;
        };
        let name = p.ident.to_string();
        self.unbind(&name);
        let Some(init) = &l.init else { return };
        if p.mutability.is_some() || p.by_ref.is_some() || init.diverge.is_some() {
            return;
        }
        if let Some(v) = self.view_of(&init.expr) {
            self.view_alias.insert(name, v);
        } else if idents_of(&*init.expr).contains(&name) {
            // `let x = x + 1`: its range now, of the `x` it reads.
            if let Some(range) = self.range(&init.expr) {
                self.env.insert(name, Range { int: range.int || typed_int, ..range });
            }
        } else {
            self.defs.insert(name, ((*init.expr).clone(), typed_int));
        }
    }

    /// `name` is bound again: what it named goes, and the definitions that read it take their
    /// ranges as they are now (a condition that compares it, nothing).
    fn unbind(&mut self, name: &str) {
        let readers: Vec<String> =
            self.defs.iter().filter(|(_, (def, _))| idents_of(def).contains(name)).map(|(n, _)| n.clone()).collect();
        for n in readers {
            let range = syn::parse_str::<Expr>(&n).ok().and_then(|e| self.range(&e));
            self.defs.remove(&n);
            if let Some(range) = range {
                self.env.insert(n, range);
            }
        }
        self.env.remove(name);
        self.defs.remove(name);
        self.view_alias.remove(name);
    }

    /// What a block's `let`s bind ends with it: the scope's names as they were.
    fn scope(&self) -> Scope {
        (self.env.clone(), self.defs.clone(), self.view_alias.clone())
    }
}

/// Whether evaluating `e` cannot panic (no arithmetic that may overflow, no division but by a
/// non-zero literal, no call but `len()`): what a proof may evaluate ahead of the kernel.
pub(super) fn panic_free(e: &Expr) -> bool {
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
                let outer = self.scope();
                for n in &names {
                    self.unbind(n);
                }
                // `for j in a..b`, `a` and `b` uniform: `j` from `a` to `b - 1`; `for j in a..=b`:
                // from `a` to `b` (cuda-samples' convolutions, `-KERNEL_RADIUS..=KERNEL_RADIUS`).
                // An empty loop gives no range: the proof fails, and the region runs checked.
                if let (Pat::Ident(p), Expr::Range(range)) = (&*f.pat, strip_parens(&f.expr)) {
                    let half_open = matches!(range.limits, syn::RangeLimits::HalfOpen(_));
                    if let (Some(a), Some(b), None, None) = (&range.start, &range.end, &p.mutability, &p.by_ref) {
                        let bounds = ((self.uniform)(a) && (self.uniform)(b))
                            .then(|| self.range(a).zip(self.range(b)))
                            .flatten();
                        if let Some((start, end)) = bounds {
                            let (r, lo, last) = (rt(), &start.lo, &end.hi);
                            let hi = quote!(#r::range_last(#lo, #last, 1, #half_open));
                            let int = start.int || end.int;
                            self.env.insert(p.ident.to_string(), Range { lo: start.lo, hi, int });
                        }
                    }
                }
                for s in &mut f.body.stmts {
                    self.visit_stmt_mut(s);
                }
                (self.env, self.defs, self.view_alias) = outer;
            }
            // The `then` branch sees the ranges its condition narrows, the `else` branch those
            // it narrows where it fails.
            Expr::If(i) => {
                self.visit_expr_mut(&mut i.cond);
                let (then, otherwise) = (self.narrowed(&i.cond), self.narrowed_not(&i.cond));
                let outer = self.scope();
                self.env.extend(then);
                for s in &mut i.then_branch.stmts {
                    self.visit_stmt_mut(s);
                }
                (self.env, self.defs, self.view_alias) = outer.clone();
                if let Some((_, e)) = &mut i.else_branch {
                    self.env.extend(otherwise);
                    self.visit_expr_mut(e);
                    (self.env, self.defs, self.view_alias) = outer;
                }
            }
            Expr::Block(b) => {
                // A block's `let`s end with it.
                let outer = self.scope();
                for s in &mut b.block.stmts {
                    self.visit_stmt_mut(s);
                }
                (self.env, self.defs, self.view_alias) = outer;
            }
            e => {
                if !self.access(e) {
                    syn::visit_mut::visit_expr_mut(self, e)
                }
            }
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let outer = self.scope();
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
        }
        (self.env, self.defs, self.view_alias) = outer;
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local(l) => self.local(l),
            Stmt::Expr(e, _) => self.visit_expr_mut(e),
            Stmt::Macro(_) | Stmt::Item(_) => {}
        }
    }
}

/// The access-range pass's result for one region ([`Program::range_region`]).
pub(super) struct RangeProof {
    /// The proof, a `bool` expression the region evaluates once per run: every covered
    /// index's smallest and largest values in bounds (see the module's text).
    pub(super) proof: TokenStream,
    /// The region's thread code with the accesses the proof covers rewritten unchecked.
    pub(super) proved: Vec<Stmt>,
}

impl Program {
    /// The access-range pass over a region's thread code; `None` when the region has no
    /// access or one of a shape the proof does not cover.
    pub(super) fn range_region(&self, thread: &[Stmt]) -> Option<RangeProof> {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names = self.names(&self.uniformity.names, &locals, &ctx);
        let mut varying = self.thread_varying();
        // Loop variables inside the region vary too.
        varying.extend(loop_vars(thread));
        let uniform = |e: &Expr| idents_of(e).is_disjoint(&varying) && names.uniform(e);
        let views = self.view_names();
        let mut v = Ranges {
            ctx: &ctx,
            uniform: &uniform,
            views: &views,
            env: HashMap::new(),
            defs: HashMap::new(),
            view_alias: HashMap::new(),
            checks: Vec::new(),
            ok: true,
        };
        // The recomputed locals the region restores, in binding order.
        for l in &self.locals {
            if self.liveness.kinds.get(&l.name) == Some(&Lives::Recomputed) && !l.mutable {
                v.unbind(&l.name);
                v.defs.insert(l.name.clone(), (l.init.clone(), false));
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
        Some(RangeProof { proof: quote!((true #(#checks)*)), proved: stmts })
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
