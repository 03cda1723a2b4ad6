//! Loop fission, part 3b: vectorised barrier regions. A region of a barrier kernel whose
//! thread code is straight-line arithmetic over accesses `v[tid]`, `v[tid + u]` and (read
//! only) `v[u]`, with `u` block-uniform, runs in chunks of consecutive threads like a
//! vectorised lane loop (`Regions::each_chunk_below`): each access *form* (a view and the
//! uniform offset of its index) is staged in a lane buffer (`__private::LaneBuf`), loaded
//! before the chunk's lanes run and stored after them, and the lanes are plain arithmetic
//! over those buffers, which LLVM vectorises. A form of a shared array that the region only
//! reads is not copied but read in place (`__private::LaneSrc`, made for each chunk): the
//! block's shared memory is written by nothing but the host thread that runs the block. When
//! every form the region stores is a shared array's, those forms are read and written in
//! place too (`__private::LaneDst`; a tree step `t[tid] += t[tid + s]` copies nothing) and
//! each lane's code is marked (`__private::LaneMark`), so that a lane that panics is reported
//! as itself without running the chunk again (`Regions::each_chunk_in_place`): the lanes
//! before it have run, in index order, as they would one by one. A region that stores to
//! global memory stages all its stores, and a chunk that panics runs again lane by lane, its
//! effects dropped with it.
//!
//! What the staging changes is only *when* each lane's loads and stores happen within the
//! chunk (all loads first, all stores last); the proof the region runs under makes that
//! invisible, and the same proof lets the stores in place land as each lane runs:
//!
//! * the region runs threads `0..hi` in index order (`Regions::in_index_order`), `hi` the
//!   threads below the narrowed bound (`if tid < s`, or all of them);
//! * every form's range `[u, u + hi)` lies in bounds of its view, which is aligned;
//! * on a view the region writes, any two different forms have disjoint ranges, and no form
//!   is uniform, so no lane reads what another lane of the region writes, nor writes what
//!   another writes: every lane sees what it would see running alone, in any order;
//! * every `if` in the code is `x < b` with `x` a form's index and `b` uniform, and holds
//!   for the last lane (hence for all): it is dropped, its `else` never runs.
//!
//! An index need not be written `tid + u`: `linear` reads it as `coef * tid` plus a uniform
//! part through `+`, `-`, products with integer literals and `tid & m` (`m` uniform), and
//! takes it when `coef` is 1 (cuda-samples' scan: `2 * tid - (tid & (size - 1)) + size -
//! offset` is `tid` plus `size - offset`). The proof then also checks that the uniform part,
//! computed exactly (`__private::lin_add` and friends), fits its type, and that each `m` keeps
//! every lane's bits (`__private::lanes_kept`), so that the index as written is that part
//! plus the lane; the lanes still compute such an index as written, so that an overflow in
//! it panics as it would one thread at a time.
//!
//! The code it takes is also unable to exit, fault or wait: it has no `return`, no call but
//! the accesses and pure float methods, no loop. Everything else keeps the scalar forms.
//! Only unchecked launches use it (the checkers see each access on the scalar form).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::uniform::{idents_of, is_assign, Names};
use super::{
    bound_in, is_thread_x, lane_k, lanes_below, path_name, rt, strip_parens, thread_code, view_named, Gen, Lives,
    Program, FLOAT_METHODS,
};
use crate::abi::Access;

/// The index of an access relative to the lane's `thread_idx().x`.
#[derive(Clone)]
enum Form {
    /// `tid + u` (or `tid` alone: `u` is `None`), with `u` uniform.
    Offset(Option<Expr>),
    /// `u`, uniform: every lane reads the same element.
    Uniform(Expr),
}

/// What tells two staged offsets apart: their tokens.
fn offset_key(offset: &Option<Expr>) -> String {
    offset.as_ref().map(|u| quote!(#u).to_string()).unwrap_or_default()
}

/// One staged access form: a view and the uniform offset of its index (`v[tid + u]`; `None`
/// for `v[tid]`), with its lane buffer. Uniform indices are read per lane, not staged.
struct Staged {
    view: Ident,
    offset: Option<Expr>,
    buf: Ident,
    loaded: bool,
    stored: bool,
    /// Stored on every lane (outside short-circuit operands), so that a buffer never
    /// loaded is initialised.
    stored_always: bool,
}

/// The rewrite of a region's thread code into its vectorised form.
struct Rewrite<'a> {
    /// The context argument's name.
    ctx: &'a str,
    /// Views the region may access: buffer parameters and shared arrays.
    views: &'a HashSet<String>,
    /// Whether an expression is block-uniform.
    uniform: &'a dyn Fn(&Expr) -> bool,
    /// The form of a thread-varying local (recomputed, or an alias bound in the region).
    local_forms: HashMap<String, Form>,
    view_alias: HashMap<String, Ident>,
    /// Locals the region's code binds (it may assign them).
    own: HashSet<String>,
    staged: Vec<Staged>,
    /// Conditions dropped: the offset of `x`'s form and the uniform `b` of each `x < b`.
    conditions: Vec<(Option<Expr>, Expr)>,
    /// Uniform loads (`v[u]`, read per lane, not staged): each view and index.
    uniform_loads: Vec<(Ident, Expr)>,
    /// The lane conditions `tid >= u` (`tid > u`) around the visit: the smallest lane each
    /// lets in, as a `usize` expression (`u`, `u + 1`).
    guards: Vec<TokenStream>,
    /// Guarded loads (`v[tid - w]` inside `if tid >= u`, read per lane, not staged): each
    /// view, `w`, and the smallest lane the guard lets in.
    gathers: Vec<(Ident, Expr, TokenStream)>,
    ok: bool,
    /// How many short-circuit operands (`a && b`'s `b`) the visit is inside: code there
    /// may not run on every lane.
    conditional: u32,
    /// What the proof must check for the forms `linear` found: each uniform part fits its
    /// type (`lin_fits`), each mask keeps the lanes' bits (`lanes_kept`).
    lin_checks: RefCell<Vec<TokenStream>>,
    /// Those checks for a recomputed local whose form `linear` found, added when an index
    /// reads the local.
    local_checks: HashMap<String, Vec<TokenStream>>,
    /// The recomputed locals whose forms were found before the visit.
    recomputed: HashSet<String>,
}

/// An index as a linear function of the lane's `tid`: `coef * tid` plus a uniform part (an
/// `Option<T>` expression of `__private::lin_add` and friends, exact or `None`; no part:
/// zero), with the checks its `tid & m` terms need.
struct Lin {
    coef: i64,
    uni: Option<TokenStream>,
    checks: Vec<TokenStream>,
}

impl Rewrite<'_> {
    /// The form of index expression `e`, if it has one: `form_basic`'s, or else a `linear`
    /// one whose `tid` has coefficient 1 (its checks recorded for the proof).
    fn form(&self, e: &Expr) -> Option<Form> {
        self.form_basic(e).or_else(|| self.form_linear(e))
    }

    /// `form`'s `linear` half.
    fn form_linear(&self, e: &Expr) -> Option<Form> {
        let inner = match strip_parens(e) {
            Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("usize")) => &*c.expr,
            e => e,
        };
        let lin = self.linear(inner)?;
        if lin.coef != 1 {
            return None;
        }
        let r = rt();
        let mut checks = lin.checks;
        let offset = lin.uni.map(|u| {
            checks.push(quote!(#r::lin_fits(#u)));
            syn::parse_quote!(#r::lin_value(#u))
        });
        self.lin_checks.borrow_mut().extend(checks);
        Some(Form::Offset(offset))
    }

    /// `e` as `coef * tid + uniform`, read through `+`, `-`, a product with an integer
    /// literal, and `tid & m` with `m` uniform, which is `tid` where `m` keeps the bits of
    /// every lane (cuda-samples' scan: `2 * tid - (tid & (size - 1))`). The value is computed
    /// exactly, not in the index's type: the lanes still compute the index as written
    /// (`access`), so an overflow there panics as it would one thread at a time, and where it
    /// does not, the written index is the exact value. A cast inside is opaque (its operand's
    /// type is not the index's).
    fn linear(&self, e: &Expr) -> Option<Lin> {
        let e = strip_parens(e);
        let r = rt();
        if let Some(n) = path_name(e) {
            if let Some(f) = self.local_forms.get(&n) {
                let checks = self.local_checks.get(&n).cloned().unwrap_or_default();
                let uni = match f {
                    Form::Offset(None) => None,
                    Form::Offset(Some(u)) => Some(quote!(::core::option::Option::Some(#u))),
                    Form::Uniform(_) => return None,
                };
                return Some(Lin { coef: 1, uni, checks });
            }
        }
        if is_thread_x(e, self.ctx) {
            return Some(Lin { coef: 1, uni: None, checks: Vec::new() });
        }
        if (self.uniform)(e) {
            return Some(Lin { coef: 0, uni: Some(quote!(::core::option::Option::Some(#e))), checks: Vec::new() });
        }
        let Expr::Binary(b) = e else { return None };
        let literal = |x: &Expr| match strip_parens(x) {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
                i.base10_parse::<i64>().ok().map(|k| (k, i.clone()))
            }
            _ => None,
        };
        match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) => {
                let (l, rr) = (self.linear(&b.left)?, self.linear(&b.right)?);
                let add = matches!(b.op, syn::BinOp::Add(_));
                let coef = if add { l.coef.checked_add(rr.coef)? } else { l.coef.checked_sub(rr.coef)? };
                let uni = match (l.uni, rr.uni) {
                    (a, None) => a,
                    (None, Some(c)) if add => Some(c),
                    (None, Some(c)) => Some(quote!(#r::lin_neg(#c))),
                    (Some(a), Some(c)) if add => Some(quote!(#r::lin_add(#a, #c))),
                    (Some(a), Some(c)) => Some(quote!(#r::lin_sub(#a, #c))),
                };
                let mut checks = l.checks;
                checks.extend(rr.checks);
                Some(Lin { coef, uni, checks })
            }
            syn::BinOp::Mul(_) => {
                let (k, lit, x) = match (literal(&b.left), literal(&b.right)) {
                    (Some((k, lit)), _) => (k, lit, &*b.right),
                    (_, Some((k, lit))) => (k, lit, &*b.left),
                    _ => return None,
                };
                let x = self.linear(x)?;
                let uni = x.uni.map(|u| quote!(#r::lin_mul(#u, ::core::option::Option::Some(#lit))));
                Some(Lin { coef: x.coef.checked_mul(k)?, uni, checks: x.checks })
            }
            syn::BinOp::BitAnd(_) => {
                let (x, m) = if (self.uniform)(&b.right) { (&*b.left, &*b.right) } else { (&*b.right, &*b.left) };
                if !(self.uniform)(m) {
                    return None;
                }
                let x = self.linear(x)?;
                if x.coef != 1 || x.uni.is_some() {
                    return None;
                }
                let mut checks = x.checks;
                checks.push(quote!(#r::lanes_kept(#m, __emu_hi)));
                Some(Lin { coef: 1, uni: None, checks })
            }
            _ => None,
        }
    }

    /// The form of index expression `e` from its shape alone: the lane's `tid`, `tid + u`,
    /// `u + tid`, a uniform `u`, a recomputed local's form, a cast to `usize` of one.
    fn form_basic(&self, e: &Expr) -> Option<Form> {
        let e = strip_parens(e);
        if let Some(n) = path_name(e) {
            if let Some(f) = self.local_forms.get(&n) {
                if let Some(c) = self.local_checks.get(&n) {
                    self.lin_checks.borrow_mut().extend(c.iter().cloned());
                }
                return Some(f.clone());
            }
        }
        if is_thread_x(e, self.ctx) {
            return Some(Form::Offset(None));
        }
        match e {
            // `x as usize` is the index `Index::to_index(x)` reads, for every integer type the
            // proof's `lane_last` takes (sign-extended, as both do).
            Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("usize")) => {
                match self.form(&c.expr)? {
                    f @ Form::Offset(_) => Some(f),
                    Form::Uniform(_) => (self.uniform)(e).then(|| Form::Uniform(e.clone())),
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
                let (l, r) = (self.form(&b.left), self.form(&b.right));
                match (l, r) {
                    (Some(Form::Offset(None)), _) if (self.uniform)(&b.right) => {
                        Some(Form::Offset(Some((*b.right).clone())))
                    }
                    (_, Some(Form::Offset(None))) if (self.uniform)(&b.left) => {
                        Some(Form::Offset(Some((*b.left).clone())))
                    }
                    _ => (self.uniform)(e).then(|| Form::Uniform(e.clone())),
                }
            }
            e if (self.uniform)(e) => Some(Form::Uniform(e.clone())),
            _ => None,
        }
    }

    /// The view `e` names, directly or through an alias.
    fn view_of(&self, e: &Expr) -> Option<Ident> {
        view_named(e, &self.view_alias, |n| self.views.contains(n) && !self.own.contains(n))
    }

    /// The lane buffer of `view` at `offset`, staged on first use.
    fn stage(&mut self, view: &Ident, offset: &Option<Expr>) -> usize {
        let key = offset_key(offset);
        if let Some(k) = self.staged.iter().position(|s| &s.view == view && offset_key(&s.offset) == key) {
            return k;
        }
        let buf = format_ident!("__emu_vb_{}_{}", view, self.staged.len(), span = Span::mixed_site());
        self.staged.push(Staged {
            view: view.clone(),
            offset: offset.clone(),
            buf,
            loaded: false,
            stored: false,
            stored_always: false,
        });
        self.staged.len() - 1
    }

    fn statement(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_none()) => {
                // `let t = ..` or `let t: T = ..`.
                let pat = match &l.pat {
                    Pat::Type(pt) => &*pt.pat,
                    p => p,
                };
                let Pat::Ident(p) = pat else {
                    self.ok = false;
                    return;
                };
                if p.by_ref.is_some() || p.subpat.is_some() {
                    self.ok = false;
                    return;
                }
                let name = p.ident.to_string();
                let init = &mut l.init.as_mut().expect("checked above").expr;
                // A recomputed local bound after the region's first statements (`pos += size`
                // made `let pos_s0 = pos + size`): its form is known, and its `let` stays.
                if self.recomputed.contains(&name) {
                    return;
                }
                if self.local_forms.contains_key(&name)
                    || self.view_alias.contains_key(&name)
                    || self.views.contains(&name)
                {
                    self.ok = false;
                    return;
                }
                if p.mutability.is_none() {
                    if let Some(v) = self.view_of(init) {
                        self.view_alias.insert(name, v);
                        return;
                    }
                    if let Some(f @ Form::Offset(_)) = self.form(init) {
                        self.local_forms.insert(name.clone(), f);
                        self.own.insert(name);
                        return;
                    }
                }
                self.own.insert(name);
                self.visit_expr_mut(init);
            }
            Stmt::Expr(e, _) => self.visit_expr_mut(e),
            _ => self.ok = false,
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Lit(_) | Expr::Path(_) => {}
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                self.visit_expr_mut(&mut b.left);
                self.conditional += 1;
                self.visit_expr_mut(&mut b.right);
                self.conditional -= 1;
            }
            Expr::Binary(b) if !is_assign(&b.op) => syn::visit_mut::visit_expr_binary_mut(self, b),
            Expr::Binary(b)
                if path_name(&b.left).is_some_and(|n| self.own.contains(&n) && !self.local_forms.contains_key(&n)) =>
            {
                self.visit_expr_mut(&mut b.right)
            }
            Expr::Assign(a)
                if path_name(&a.left).is_some_and(|n| self.own.contains(&n) && !self.local_forms.contains_key(&n)) =>
            {
                self.visit_expr_mut(&mut a.right)
            }
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => syn::visit_mut::visit_expr_unary_mut(self, u),
            Expr::Cast(_) | Expr::Paren(_) | Expr::Group(_) => syn::visit_mut::visit_expr_mut(self, e),
            // Straight-line code: a block's statements run where the block does.
            Expr::Block(b) if b.label.is_none() => {
                for s in &mut b.block.stmts {
                    self.statement(s);
                    if !self.ok {
                        return;
                    }
                }
            }
            Expr::If(i) if self.lane_guard(&i.cond).is_some() => {
                // `if tid >= u { a } else { b }`: a select per lane; `a` may read `v[tid - w]`.
                let lo = self.lane_guard(&i.cond).expect("matched above");
                self.conditional += 1;
                self.guards.push(lo);
                let mut then =
                    Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() });
                self.expr(&mut then);
                self.guards.pop();
                let Expr::Block(then) = then else { unreachable!("a block stays a block") };
                i.then_branch = then.block;
                if let Some((_, other)) = &mut i.else_branch {
                    self.expr(other)
                }
                self.conditional -= 1;
            }
            Expr::If(i) => {
                // `if x < b { .. } else { .. }`, `x` a form's index, `b` uniform: holds for
                // every lane once the proof shows it for the last one.
                let Expr::Binary(c) = strip_parens(&i.cond) else {
                    self.ok = false;
                    return;
                };
                if !matches!(c.op, syn::BinOp::Lt(_)) || !(self.uniform)(&c.right) {
                    self.ok = false;
                    return;
                }
                let Some(Form::Offset(o)) = self.form(&c.left) else {
                    self.ok = false;
                    return;
                };
                self.conditions.push((o, (*c.right).clone()));
                let mut then =
                    Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() });
                self.expr(&mut then);
                *e = then;
            }
            Expr::MethodCall(m) if FLOAT_METHODS.iter().any(|f| m.method == f) => {
                syn::visit_mut::visit_expr_method_call_mut(self, m)
            }
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() && self.view_of(&m.receiver).is_some() => {}
            Expr::Call(_) => self.access(e),
            _ => self.ok = false,
        }
    }

    /// `__private::load(checked, &v, i)` and `__private::store(checked, &v, i, x)`.
    fn access(&mut self, e: &mut Expr) {
        let Expr::Call(c) = e else { return };
        let Some(store) = Access::of(c).map(|a| a.is_store()) else {
            self.ok = false;
            return;
        };
        let Some(Expr::Reference(r)) = c.args.iter().nth(1) else {
            self.ok = false;
            return;
        };
        let Some(view) = self.view_of(&r.expr) else {
            self.ok = false;
            return;
        };
        // A guarded `v[tid - w]` is a gather (below), which needs no proof that `-w` fits.
        let basic = self.form_basic(&c.args[2]);
        let gathered = !store && basic.is_none() && self.gather(&c.args[2]).is_some() && !self.guards.is_empty();
        let linear = basic.is_none();
        let form = match basic {
            Some(f) => Some(f),
            None if gathered => None,
            None => self.form_linear(&c.args[2]),
        };
        let Some(form) = form else {
            // `v[tid - w]` under a guard `tid >= u`: read per lane, in bounds by the proof.
            match (self.gather(&c.args[2]), self.guards.last()) {
                (Some(w), Some(lo)) if !store => {
                    let (v, i, span) = (&c.args[1], c.args[2].clone(), c.span());
                    self.gathers.push((view, w, lo.clone()));
                    // The proof showed `tid - w` in bounds of this view for every lane the
                    // guard lets in; the accessor checks it again.
                    *e = syn::parse_quote_spanned!(span=>
                        ::deviceemu::__private::load_in_bounds(#v, ::deviceemu::__private::Index::to_index(#i))
                    );
                }
                _ => self.ok = false,
            }
            return;
        };
        let span = c.span();
        // An index whose form `linear` found is still computed as written, so that an
        // overflow in it panics as it would one thread at a time (unused otherwise, and gone
        // where overflows wrap).
        let written = match linear {
            false => quote!(),
            true => {
                let i = &c.args[2];
                quote!(let _ = #i;)
            }
        };
        let offset = match form {
            Form::Offset(offset) => offset,
            Form::Uniform(_) if store => {
                self.ok = false;
                return;
            }
            Form::Uniform(u) => {
                let v = &c.args[1];
                self.uniform_loads.push((view, u.clone()));
                // The proof showed `u` in bounds of this view; the accessor checks it again.
                *e = syn::parse_quote_spanned!(span=>
                    ::deviceemu::__private::load_in_bounds(#v, ::deviceemu::__private::Index::to_index(#u))
                );
                return;
            }
        };
        let k = self.stage(&view, &offset);
        let (buf, lane) = (self.staged[k].buf.clone(), lane_k());
        if store {
            let mut x = c.args[3].clone();
            self.visit_expr_mut(&mut x);
            let always = self.conditional == 0;
            let s = &mut self.staged[k];
            s.stored = true;
            s.stored_always |= always;
            // SAFETY (of a store in place, `LaneDst::set`): the chunk made the destination
            // before its lanes ran. The value is computed outside the `unsafe`.
            *e = syn::parse_quote_spanned!(span=> { #written let __emu_set = #x; unsafe { #buf.set(#lane, __emu_set) }; });
        } else {
            self.staged[k].loaded = true;
            // SAFETY: the chunk loaded this form's elements `0..m` before its lanes ran, and
            // the lane `k < m`.
            *e = match written.is_empty() {
                true => syn::parse_quote_spanned!(span=> unsafe { #buf.get(#lane) }),
                false => syn::parse_quote_spanned!(span=> { #written unsafe { #buf.get(#lane) } }),
            };
        }
    }
}

impl Rewrite<'_> {
    /// Whether `e` is the lane's own thread index (`tid`, of the form `v[tid]` indexes by).
    fn is_lane(&self, e: &Expr) -> bool {
        matches!(self.form(e), Some(Form::Offset(None))) && !(self.uniform)(e)
    }

    /// The smallest lane a condition `tid >= u` or `tid > u` (`tid` the lane's own index,
    /// `u` uniform) lets in, as a `usize` expression.
    fn lane_guard(&self, cond: &Expr) -> Option<TokenStream> {
        let Expr::Binary(b) = strip_parens(cond) else { return None };
        if !self.is_lane(&b.left) || !(self.uniform)(&b.right) {
            return None;
        }
        let (r, u) = (rt(), &b.right);
        match b.op {
            syn::BinOp::Ge(_) => Some(quote!(#r::Index::to_index(#u))),
            syn::BinOp::Gt(_) => Some(quote!(#r::Index::to_index(#u).saturating_add(1))),
            _ => None,
        }
    }

    /// The `w` of an index `tid - w` (`tid` the lane's own index, `w` uniform).
    fn gather(&self, index: &Expr) -> Option<Expr> {
        let Expr::Binary(b) = strip_parens(index) else { return None };
        (matches!(b.op, syn::BinOp::Sub(_)) && self.is_lane(&b.left) && (self.uniform)(&b.right))
            .then(|| (*b.right).clone())
    }

    /// The `c` of a statement `if tid == c { .. }` (or `c == tid`), `tid` the thread's x index
    /// and `c` uniform, without `else`.
    fn single(&self, s: &Stmt) -> Option<Expr> {
        let Stmt::Expr(Expr::If(i), _) = s else { return None };
        if i.else_branch.is_some() {
            return None;
        }
        let Expr::Binary(b) = strip_parens(&i.cond) else { return None };
        if !matches!(b.op, syn::BinOp::Eq(_)) {
            return None;
        }
        let lane = |e: &Expr| self.is_lane(e);
        match (lane(&b.left), lane(&b.right)) {
            (true, false) if (self.uniform)(&b.right) => Some((*b.right).clone()),
            (false, true) if (self.uniform)(&b.left) => Some((*b.left).clone()),
            _ => None,
        }
    }
}

/// The accesses `__private::load(_, &v, i)` and `store(_, &v, i, x)` in `s`: each view, index
/// and whether it stores. An access through something other than a view fails the rewrite.
fn accesses(s: &Stmt, rw: &Rewrite<'_>) -> Option<Vec<(Ident, Expr, bool)>> {
    struct A<'a, 'b> {
        rw: &'a Rewrite<'b>,
        out: Vec<(Ident, Expr, bool)>,
        aliases: HashMap<String, Ident>,
        /// Immutable locals of the statement and their values (`let __emu_index = u;`).
        values: HashMap<String, Expr>,
        unknown: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for A<'_, '_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
                if let Some(v) = self.view(&init.expr) {
                    self.aliases.insert(p.ident.to_string(), v);
                } else if p.mutability.is_none() && p.by_ref.is_none() {
                    self.values.insert(p.ident.to_string(), (*init.expr).clone());
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            let store = Access::of(c).map(|a| a.is_store());
            if let (Some(store), Some(Expr::Reference(r))) = (store, c.args.iter().nth(1)) {
                let index = match path_name(&c.args[2]).and_then(|n| self.values.get(&n)) {
                    Some(e) => e.clone(),
                    None => c.args[2].clone(),
                };
                match self.view(&r.expr) {
                    Some(v) => self.out.push((v, index, store)),
                    // Not a view the proof can name.
                    None => self.unknown = true,
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    impl A<'_, '_> {
        fn view(&self, e: &Expr) -> Option<Ident> {
            let n = path_name(e)?;
            self.aliases.get(&n).cloned().or_else(|| self.rw.view_of(e))
        }
    }
    let mut a = A { rw, out: Vec::new(), aliases: HashMap::new(), values: HashMap::new(), unknown: false };
    syn::visit::Visit::visit_stmt(&mut a, s);
    (!a.unknown).then_some(a.out)
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        self.expr(e);
    }
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        self.statement(s)
    }
}

impl Program {
    /// The vectorised form of a region of a barrier kernel, and the proof that lets it run
    /// (see the module's text). `thread` is the region's thread code, `restores` the
    /// values it restores (recomputed, or out of their per-thread slots), `saves` the
    /// values it keeps in per-thread slots, `bound` the
    /// narrowed bound (`Regions::each_below`'s), if any.
    pub(super) fn vector_region(
        &self,
        thread: &[Stmt],
        restores: &Restores<'_>,
        saves: &TokenStream,
        bound: Option<&Expr>,
        g: &Gen,
    ) -> Option<(TokenStream, TokenStream)> {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names: Names<'_> = self.names(&self.uniformity.names, &locals, &ctx);
        let thread_varying = self.thread_varying();
        let uniform = |e: &Expr| idents_of(e).is_disjoint(&thread_varying) && names.uniform(e);
        let views = self.view_names();
        let mut rw = Rewrite {
            ctx: &ctx,
            views: &views,
            uniform: &uniform,
            local_forms: HashMap::new(),
            view_alias: HashMap::new(),
            own: HashSet::new(),
            staged: Vec::new(),
            conditions: Vec::new(),
            uniform_loads: Vec::new(),
            guards: Vec::new(),
            gathers: Vec::new(),
            ok: true,
            conditional: 0,
            lin_checks: RefCell::new(Vec::new()),
            local_checks: HashMap::new(),
            recomputed: HashSet::new(),
        };
        // Recomputed locals, in binding order: their forms (a local naming the thread's x
        // index is the lane itself).
        for l in &self.locals {
            if self.liveness.kinds.get(&l.name) != Some(&Lives::Recomputed) || l.mutable {
                continue;
            }
            let before = rw.lin_checks.borrow().len();
            let f = if is_thread_x(&l.init, &ctx) { Some(Form::Offset(None)) } else { rw.form(&l.init) };
            // The checks its form needs go to the proof where an index reads it.
            let checks: Vec<TokenStream> = rw.lin_checks.borrow_mut().drain(before..).collect();
            if let Some(f @ Form::Offset(_)) = f {
                if !checks.is_empty() {
                    rw.local_checks.insert(l.name.clone(), checks);
                }
                rw.local_forms.insert(l.name.clone(), f);
                rw.recomputed.insert(l.name.clone());
            }
        }
        // Per-thread values kept in slots across barriers are the lane's own, restored as
        // mutable locals: the region may assign them (`my_sum = my_sum + t[tid + s]`).
        for l in &self.locals {
            if self.liveness.kinds.get(&l.name) == Some(&Lives::Lanes) {
                rw.own.insert(l.name.clone());
            }
        }
        // The region's own recomputed `let`s stay as written (pure, from the indices).
        let r = rt();
        let lead = thread
            .iter()
            .take_while(|s| matches!(s, Stmt::Local(l) if super::local_name(&l.pat).is_some_and(|n| self.liveness.kinds.get(&n) == Some(&Lives::Recomputed))))
            .count();
        let mut body: Vec<Stmt> = thread[lead..].to_vec();
        // Trailing `if tid == c { .. }` statements (a halo element loaded by one thread): run
        // after the lanes by thread `c` alone, as written (`Regions::one`), where the proof
        // shows their stores and loads apart from what the lanes access.
        let mut singles: Vec<(Stmt, Expr)> = Vec::new();
        if bound.is_none() {
            while let Some(c) = body.last().and_then(|s| rw.single(s)) {
                singles.insert(0, (body.pop().expect("just seen"), c));
            }
        }
        if body.is_empty() {
            return None;
        }
        let kept = body.len();
        for s in &mut body {
            rw.statement(s);
            if !rw.ok {
                return None;
            }
        }
        // A single statement reads only what its thread computed before the region's lanes
        // ran (recomputed locals, uniform values), and touches a view the lanes write only at
        // uniform indices that the proof shows outside the lanes' ranges.
        let mut apart = Vec::new();
        for (single, _) in &singles {
            let ids = idents_of(single);
            let inner = bound_in(single);
            // (The rewrite's own `__emu_value` and friends are bound before they are read.)
            if ids.iter().any(|n| rw.own.contains(n) && !(inner.contains(n) && n.starts_with("__emu_"))) {
                return None;
            }
            for (view, index, store) in accesses(single, &rw)? {
                let written = rw.staged.iter().any(|s| s.view == view && s.stored);
                if !store && !written {
                    continue;
                }
                if !(rw.uniform)(&index) {
                    return None;
                }
                let at = quote!(#r::Index::to_index(#index));
                for f in rw.staged.iter().filter(|f| f.view == view && (store || f.stored)) {
                    let b = base(&f.offset);
                    apart.push(quote!(&& !(#b <= #at && #at < #b + __emu_hi)));
                }
                if store {
                    for (_, u) in rw.uniform_loads.iter().filter(|(v, _)| *v == view) {
                        apart.push(quote!(&& #r::Index::to_index(#u) != #at));
                    }
                }
            }
        }
        // A region whose stores are all to shared arrays writes them in place
        // (`__private::LaneDst`): nothing but this host thread touches the block's shared
        // memory, and with no staged store a chunk whose lane panics loses nothing (the lanes
        // before it have run as they would alone; `Regions::each_chunk_in_place`).
        let shared = self.shared_arrays();
        let writes_in_place = rw.staged.iter().any(|s| s.stored)
            && rw.staged.iter().filter(|s| s.stored).all(|s| shared.contains(&s.view.to_string()));
        // The per-thread values it takes from earlier regions: a staged chunk that panics
        // runs again lane by lane, so it copies them out of their slots (their type must be
        // `Copy`) and puts back only values it binds itself; a chunk in place runs each lane
        // once, and takes and puts back as the scalar form does.
        let slots = restores.slots;
        let restores = match writes_in_place {
            true => restores.taken,
            false if restores.fresh_saves => restores.copied?,
            false => return None,
        };
        // Each view the region writes: no uniform form, and no two forms that overlap.
        let mut disjoint = Vec::new();
        for (a, sa) in rw.staged.iter().enumerate() {
            // A staged form stored on some lanes only must be loaded first (its buffer starts
            // uninitialised); in place, the array's elements are there.
            if sa.stored && !sa.loaded && !sa.stored_always && !writes_in_place {
                return None;
            }
            let written = rw.staged.iter().any(|s| s.view == sa.view && s.stored);
            if !written {
                continue;
            }
            for sb in rw.staged.iter().skip(a + 1).filter(|s| s.view == sa.view) {
                let (ba, bb) = (base(&sa.offset), base(&sb.offset));
                disjoint.push(quote!(&& (#ba + __emu_hi <= #bb || #bb + __emu_hi <= #ba)));
            }
        }
        // Loads read per lane see memory as it was before the region (stores land at the
        // chunk's end): none of a view the region writes.
        let unstaged = rw.uniform_loads.iter().map(|(v, _)| v).chain(rw.gathers.iter().map(|(v, _, _)| v));
        if unstaged.clone().any(|v| rw.staged.iter().any(|s| &s.view == v && s.stored)) {
            return None;
        }
        // Nor of a view a single statement writes.
        for (single, _) in &singles {
            let written: Vec<Ident> =
                accesses(single, &rw)?.into_iter().filter(|(_, _, store)| *store).map(|(v, _, _)| v).collect();
            if rw.gathers.iter().any(|(v, _, _)| written.contains(v)) {
                return None;
            }
        }
        let rb = &g.rb;
        let bound_expr = match bound {
            Some(b) => quote!(#b),
            None => quote!(usize::MAX),
        };
        let in_bounds = rw.staged.iter().map(|s| {
            let v = &s.view;
            match &s.offset {
                None => quote!(&& #r::view_aligned(&#v) && __emu_hi - 1 < #v.len()),
                Some(u) => {
                    let below = lanes_below(u, quote!(#v.len()));
                    quote!(&& #r::view_aligned(&#v) && #below)
                }
            }
        });
        let uniform_in_bounds = rw
            .uniform_loads
            .iter()
            .map(|(v, u)| quote!(&& #r::view_aligned(&#v) && #r::Index::to_index(#u) < #v.len()));
        // A gather `v[tid - w]` under `tid >= lo`: no lane takes it (`hi - 1 < lo`), or the
        // first lane that does reads at or above 0 and the last one below `v.len()`. A
        // negative `u` or `w` (signed indices) has `to_index` above `isize::MAX`: no proof.
        let gathers = rw.gathers.iter().map(|(v, w, lo)| {
            quote! {
                && #r::view_aligned(&#v)
                && #lo <= isize::MAX as usize
                && (__emu_hi - 1 < #lo || (#r::Index::to_index(#w) <= #lo && __emu_hi - 1 - #r::Index::to_index(#w) < #v.len()))
            }
        });
        let conds = rw.conditions.iter().map(|(o, b)| match o {
            None => quote!(&& __emu_hi - 1 < #r::region_bound(#b)),
            Some(u) => {
                let below = lanes_below(u, quote!(#r::region_bound(#b)));
                quote!(&& #below)
            }
        });
        let hi = quote!(::core::cmp::min(#bound_expr, #rb.threads()));
        // `linear`'s checks, before anything reads the uniform parts they judge.
        let mut lin_checks: Vec<TokenStream> = Vec::new();
        for c in rw.lin_checks.borrow().iter() {
            if !lin_checks.iter().any(|d| d.to_string() == c.to_string()) {
                lin_checks.push(c.clone());
            }
        }
        let fewest = match writes_in_place {
            true => quote!(#r::VECTOR_MIN_IN_PLACE),
            false => quote!(#r::VECTOR_MIN),
        };
        let proof = quote! {{
            let __emu_hi: usize = #hi;
            // Fewer lanes than `VECTOR_MIN` (`VECTOR_MIN_IN_PLACE` with no staged store) cost
            // less one by one than staged (the last steps of a tree); none run nothing either
            // way.
            __emu_hi == 0 || (__emu_hi >= #fewest #(&& #lin_checks)* #(#in_bounds)* #(#uniform_in_bounds)* #(#gathers)* #(#conds)* #(#disjoint)* #(#apart)*)
        }};
        // The code: each staged form's start, its buffer, the chunk's loads, the lanes, the
        // chunk's stores.
        let starts = rw.staged.iter().map(|s| {
            let start = start_of(&s.buf);
            let b = base(&s.offset);
            quote!(let #start: usize = #b;)
        });
        // A form of a shared array that the region only reads is read in place
        // (`__private::LaneSrc`, made for each chunk: nothing but this host thread writes the
        // block's shared memory, and the region's own stores are staged or, when all of them
        // are to shared arrays, made in place through a `__private::LaneDst`); the others are
        // staged.
        let read_in_place = |s: &Staged| s.loaded && !s.stored && shared.contains(&s.view.to_string());
        let written_in_place = |s: &Staged| s.stored && writes_in_place;
        let in_place = |s: &Staged| read_in_place(s) || written_in_place(s);
        let bufs = rw.staged.iter().filter(|s| !in_place(s)).map(|s| {
            let buf = &s.buf;
            quote!(let mut #buf = #r::LaneBuf::<_, { #r::LANE_CHUNK }>::new();)
        });
        // The proof showed each form's range `[start, start + hi)` in bounds of its view; a
        // chunk's lanes `c0..c0 + m` lie below `hi` (`lane_load`, `lane_src` and `lane_store`
        // check it again).
        let loads = rw.staged.iter().filter(|s| s.loaded || written_in_place(s)).map(|s| {
            let (v, buf, start) = (&s.view, &s.buf, start_of(&s.buf));
            if written_in_place(s) {
                quote!(let #buf = #r::lane_dst(&#v, #start + __emu_c0, __emu_m);)
            } else if read_in_place(s) {
                quote!(let #buf = #r::lane_src(&#v, #start + __emu_c0, __emu_m);)
            } else {
                quote!(#r::lane_load(&#v, #start + __emu_c0, &mut #buf, __emu_m);)
            }
        });
        // SAFETY (of the stores): a stored form is loaded first or stored by every lane, so
        // its elements `0..m` are initialised.
        let stores = rw.staged.iter().filter(|s| s.stored && !written_in_place(s)).map(|s| {
            let (v, buf, start) = (&s.view, &s.buf, start_of(&s.buf));
            quote!(unsafe { #r::lane_store(&#v, #start + __emu_c0, &#buf, __emu_m) };)
        });
        let lanes_code = thread_code(&thread[..lead]);
        let code = thread_code(&body);
        // A chunk that panics runs again lane by lane, without the single statements, which
        // run after every chunk.
        let scalar = thread_code(&thread[..lead + kept]);
        let (t, c) = (&g.t, &g.ctx);
        let ones = singles.iter().map(|(single, at)| {
            let code = thread_code(std::slice::from_ref(single));
            quote! {
                #rb.one(#r::region_bound(#at), |#t: usize, #c: ::deviceemu::__private::ThreadCtx| -> ::core::option::Option<::deviceemu::__private::Exit> {
                    #restores
                    #lanes_code
                    #code
                    ::core::option::Option::None
                });
            }
        });
        let k = lane_k();
        // Written in place, each lane's code is marked, so that the lane that panics is known
        // (`__private::LaneMark`: nothing is left of it in code that cannot unwind).
        let (mark, marked, each) = match writes_in_place {
            true => {
                (quote!(let __emu_mark = #r::LaneMark(#k);), quote!(__emu_mark.done();), quote!(each_chunk_in_place))
            }
            false => (quote!(), quote!(), quote!(each_chunk_below)),
        };
        // The per-thread slots the lanes read, take and put back are the chunk's window of them
        // (`Slots::window`): the loop's bound shows their index in range, so the compiler drops
        // the check of each lane's and can vectorise the copies (SHOC's scan steps put the value
        // each lane read into a slot: a bounds check per lane kept that loop scalar).
        let windows: Vec<TokenStream> = slots.iter().map(|l| quote!(let #l = #l.window(__emu_c0, __emu_m);)).collect();
        let fast = quote! {
            #(#starts)*
            #(#bufs)*
            #rb.#each(
                #bound_expr,
                |__emu_cursor: &#r::LaneCursor, __emu_c0: usize, __emu_m: usize| {
                    // What `each_chunk_below` gives already; said here so that the compiler
                    // drops `LaneBuf::set`'s check and vectorises the loop.
                    let __emu_m = ::core::cmp::min(__emu_m, #r::LANE_CHUNK);
                    #(#windows)*
                    #(#loads)*
                    // The indices the dropped conditions and staged accesses read may go
                    // unused; a staged store needs no `unsafe`, one in place does.
                    #[allow(unused_variables, unused_unsafe)]
                    for #k in 0..__emu_m {
                        #mark
                        let #c = __emu_cursor.lane(__emu_c0 + #k);
                        // In index order a lane's position is its thread.
                        let #t = __emu_c0 + #k;
                        #restores
                        #lanes_code
                        #code
                        #saves
                        #marked
                    }
                    #(#stores)*
                },
                |#t: usize, #c: ::deviceemu::__private::ThreadCtx| {
                    #restores
                    #scalar
                    #saves
                },
            );
            #(#ones)*
        };
        Some((proof, fast))
    }
}

/// What a vectorised region restores of earlier regions' per-thread values.
pub(super) struct Restores<'a> {
    /// As the scalar form does: slots taken.
    pub(super) taken: &'a TokenStream,
    /// Slots copied, not taken (`None`: a value is not known to be `Copy`).
    pub(super) copied: Option<&'a TokenStream>,
    /// Whether every value the region puts back is bound in it.
    pub(super) fresh_saves: bool,
    /// The per-thread slots it takes from or puts back into.
    pub(super) slots: &'a [Ident],
}

/// The first index of a staged offset's range, as a `usize` expression.
fn base(offset: &Option<Expr>) -> TokenStream {
    let r = rt();
    match offset {
        None => quote!(0usize),
        Some(u) => quote!(#r::Index::to_index(#u)),
    }
}

/// The local holding a staged form's first index.
fn start_of(buf: &Ident) -> Ident {
    format_ident!("{}_at", buf, span = Span::mixed_site())
}
