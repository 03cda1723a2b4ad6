//! Loop fission, part 3c: lane loops vectorised row by row. A barrier-free kernel of a 2-D (or
//! 3-D) block whose thread code is
//!
//! ```text
//! let j = ..; let i = ..;        // recomputed from the indices
//! if cond { body }               // or the body alone
//! ```
//!
//! with `body` straight-line arithmetic over accesses whose indices are *affine in the lane*
//! (`(i - 1) * N + (j + 1)`: the row's own values plus `thread_idx().x` once, added) or
//! *row-uniform* (read only), runs each row of the block (`thread_idx().y`, `.z` fixed) as a
//! chunk of lanes (`Regions::each_row_chunk`), like a vectorised lane loop: each access form
//! (a view and an index expression) is staged in a lane buffer, loaded before the lanes run
//! and stored after them. PolyBench's 2-D convolution, Jacobi step and gemm take it; the 1-D forms
//! (`fission/tiers.rs`, `LaneVector`) need one index `base + tid` over the whole block.
//!
//! What a chunk does, and why it is the lanes' own code run one by one:
//!
//! * it evaluates the leading `let`s and `cond` for each lane, as written (a panic there, an
//!   overflow, is raised before the chunk has any effect, and the runtime runs the row again
//!   lane by lane, where the lane that raises it reports it);
//! * the lanes that pass must be one run `lo..hi`; otherwise the row runs lane by lane;
//! * each form's index is evaluated at lanes `lo` and `hi - 1`, again as written. The region's
//!   range proof (`ranges.rs`, in the guard) showed every index of the lanes that pass in
//!   bounds with no overflow, so each index is an affine function `c * x + r` of the lane's
//!   `x` with exact integer arithmetic; the chunk checks that the two ends are `hi - 1 - lo`
//!   apart, so `c = 1` and lane `lo + k`'s index is the first one's plus `k`. (A cast that
//!   wraps only lowers an index, so ends that far apart show none did.)
//! * on a view the body writes, two different forms must have disjoint ranges, and no
//!   row-uniform load may read it: no lane reads what another lane writes, so staging the
//!   loads first and the stores last changes nothing any lane sees;
//! * every store is made on every lane (none under a short-circuit operand), so the staged
//!   buffers are initialised before they are written back.
//!
//! **Loops.** The body may hold `for k in a..b { .. }` loops at its top level, `a` and `b` the
//! same for the row, whose bodies are straight-line too: the textbook matrix product's dot
//! product, PolyBench's gemm. Each such loop runs its passes once for the row with the lanes
//! inside each pass (`for k { for lanes }`): each lane still does its own operations in its own
//! order. The forms whose index reads `k` (`b[k * n + j]`) are loaded again at each pass, with
//! the same check of their ends, and must be of views the body does not write; the forms that
//! do not (`c[i * n + j]`, the accumulator) are staged once for the row. The body's top-level
//! `let`s become lane buffers (`let mut sum = 0.0` is one value per lane across the loop), and
//! a form stored only inside a loop, which may run no pass, must be loaded first. The
//! compound assignment's `let __emu_view = v; let __emu_index = i;` (`rewrite.rs`) are read
//! through: the view the first names, the value of the second.
//!
//! **Windows.** Read-only forms of one view whose indices differ by constants (a stencil's
//! `A[i * n + j - 1]`, `A[i * n + j]` and `A[i * n + j + 1]`; `constant_apart` reads the
//! index as a sum of terms and a constant) share one copy: the row loads `n` plus the largest
//! difference elements from the smallest form's first index, and each form reads it from its
//! own offset (`LaneBuf::at`). The grouping is only a guess: before it uses the window, the
//! chunk checks on the values that each form's first index is the smallest one's plus its
//! offset (the range proof already rules out the wrapping that could break that), and runs
//! the row lane by lane otherwise. PolyBench's conv2d loads three copies a row instead of
//! nine. The window's buffer is rounded up to 16 more elements than a chunk's, whatever the
//! difference, so that the buffers after it keep their alignment on the stack (a buffer of
//! 258 `f32`s made jacobi2D's row 7% slower).
//!
//! The body has no branch, call (but pure float methods), exit or wait. Only unchecked
//! launches take the form, as every vectorised one (the checkers see each access on the
//! scalar form).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::uniform::{idents_of, is_assign};
use super::{
    is_thread_x, lane_k, local_name, path_name, pure_expr, rt, strip_parens, Gen, Lives, Program, FLOAT_METHODS,
};
use crate::abi::Access;

/// How an index expression depends on the lane.
#[derive(Clone, Copy, PartialEq)]
enum Lin {
    /// The same for every lane of a row.
    Row,
    /// Affine in the lane's `thread_idx().x`, which it reads once.
    Lane,
}

/// One staged access form: a view and an index expression affine in the lane (written with
/// the index locals it reads substituted, so that it can be evaluated where the leading `let`s
/// are in scope).
struct Staged {
    view: Ident,
    index: Expr,
    key: String,
    buf: Ident,
    loaded: bool,
    stored: bool,
    /// The body's loop whose variable its index reads (counted from 0 in order): loaded again
    /// for each pass of that loop.
    inner: Option<usize>,
    /// Stored outside the body's loops (on every lane once the body has run).
    stored_top: bool,
}

/// The rewrite of a row's body into its vectorised form.
struct Rewrite<'a> {
    ctx: &'a str,
    views: &'a HashSet<String>,
    uniform: &'a dyn Fn(&Expr) -> bool,
    /// Recomputed locals the same for every lane of a row.
    row: HashSet<String>,
    /// Recomputed locals affine in the lane.
    lane: HashSet<String>,
    /// Locals the body binds.
    own: HashSet<String>,
    /// The leading `let`s' names, which the lanes' code binds again in each of its loops
    /// (normalisation renames a name bound twice; a body that still rebinds one is refused).
    lead: HashSet<String>,
    /// Immutable locals the body binds to a view (`let __emu_view = v;`, the compound
    /// assignment's).
    alias: HashMap<String, Ident>,
    /// Immutable locals the body binds to an index expression of the leading `let`s and
    /// uniform values (`let __emu_index = i * n + j;`): their values.
    defs: HashMap<String, Expr>,
    /// The variable of the loop the visit is in (row-uniform there).
    loop_var: Option<String>,
    /// How many of the body's loops the visit has entered.
    loops: usize,
    /// The body's top-level `let`s when it has a loop: per-lane values kept in lane buffers
    /// across the loop (`lane locals`), each with its buffer.
    lane_locals: HashMap<String, Ident>,
    /// Each lane local's buffer and type (`_` where its `let` names none), in binding order.
    lane_local_tys: Vec<(Ident, TokenStream)>,
    /// Whether the body's top-level `let`s become lane locals.
    segmented: bool,
    staged: Vec<Staged>,
    /// Row-uniform loads, read per lane: each view.
    row_loads: Vec<Ident>,
    /// How many short-circuit operands the visit is inside.
    conditional: u32,
    ok: bool,
}

impl Rewrite<'_> {
    /// Whether `e` names a local of the body that varies by lane (not an index local).
    fn lane_own(&self, e: &Expr) -> bool {
        idents_of(e).iter().any(|n| self.own.contains(n) && !self.defs.contains_key(n))
    }

    /// Whether `e` is the same for every lane of a row.
    fn row_uniform(&self, e: &Expr) -> bool {
        if self.lane_own(e) {
            return false;
        }
        if let Some(n) = path_name(e) {
            if let Some(d) = self.defs.get(&n) {
                return self.row_uniform(d);
            }
            if self.loop_var.as_ref() == Some(&n) {
                return true;
            }
        }
        if !idents_of(e).iter().any(|n| self.defs.contains_key(n)) && (self.uniform)(e) {
            return true;
        }
        match strip_parens(e) {
            Expr::Lit(_) => true,
            Expr::Path(_) => path_name(e).is_some_and(|n| self.row.contains(&n)),
            Expr::Field(f) => {
                matches!(&f.member, syn::Member::Named(m) if m == "y" || m == "z")
                    && matches!(&*f.base, Expr::Field(inner) if matches!(&inner.member, syn::Member::Named(m) if m == "thread_idx")
                        && matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(self.ctx)))
            }
            Expr::Binary(b) => {
                !is_assign(&b.op)
                    && !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                    && self.row_uniform(&b.left)
                    && self.row_uniform(&b.right)
            }
            Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && self.row_uniform(&u.expr),
            Expr::Cast(c) => self.row_uniform(&c.expr),
            _ => false,
        }
    }

    /// How index `e` depends on the lane, if it is affine in it.
    fn lin(&self, e: &Expr) -> Option<Lin> {
        if self.row_uniform(e) {
            return Some(Lin::Row);
        }
        if is_thread_x(e, self.ctx) {
            return Some(Lin::Lane);
        }
        let e = strip_parens(e);
        if let Some(n) = path_name(e) {
            if let Some(d) = self.defs.get(&n) {
                return self.lin(d);
            }
            if self.lane.contains(&n) && !self.own.contains(&n) {
                return Some(Lin::Lane);
            }
        }
        match e {
            Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|t| INTEGERS.contains(&t.to_string().as_str()))) => {
                self.lin(&c.expr)
            }
            Expr::Binary(b) => {
                let (l, r) = (self.lin(&b.left)?, self.lin(&b.right)?);
                match (b.op, l, r) {
                    (syn::BinOp::Add(_) | syn::BinOp::Mul(_), Lin::Lane, Lin::Row)
                    | (syn::BinOp::Add(_) | syn::BinOp::Mul(_), Lin::Row, Lin::Lane)
                    | (syn::BinOp::Sub(_), Lin::Lane, Lin::Row) => Some(Lin::Lane),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `e` with the index locals it reads replaced by their values.
    fn substituted(&self, e: &Expr) -> Expr {
        struct Subst<'a>(&'a HashMap<String, Expr>);
        impl VisitMut for Subst<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Some(d) = path_name(e).and_then(|n| self.0.get(&n)) {
                    let mut d = d.clone();
                    self.visit_expr_mut(&mut d);
                    *e = syn::parse_quote!((#d));
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut e = e.clone();
        Subst(&self.defs).visit_expr_mut(&mut e);
        e
    }

    fn view_of(&self, e: &Expr) -> Option<Ident> {
        let Expr::Path(p) = e else { return None };
        let id = p.path.get_ident()?;
        let n = id.to_string();
        if let Some(v) = self.alias.get(&n) {
            return Some(v.clone());
        }
        (self.views.contains(&n) && !self.own.contains(&n)).then(|| id.clone())
    }

    fn stage(&mut self, view: &Ident, index: &Expr) -> usize {
        let index = self.substituted(index);
        let inner = self.loop_var.as_ref().is_some_and(|v| idents_of(&index).contains(v)).then(|| self.loops - 1);
        let key = format!("{view} {} {inner:?}", quote!(#index));
        if let Some(k) = self.staged.iter().position(|s| s.key == key) {
            return k;
        }
        let buf = format_ident!("__emu_rw_{}_{}", view, self.staged.len(), span = Span::mixed_site());
        let (loaded, stored, stored_top) = (false, false, false);
        self.staged.push(Staged { view: view.clone(), index, key, buf, loaded, stored, inner, stored_top });
        self.staged.len() - 1
    }

    /// The buffer of lane local `e`, if it is one.
    fn lane_local(&self, e: &Expr) -> Option<Ident> {
        path_name(e).and_then(|n| self.lane_locals.get(&n)).cloned()
    }

    /// A statement at the body's top level (`top`) or inside a block or loop.
    fn statement(&mut self, s: &mut Stmt, top: bool) {
        if !self.ok {
            return;
        }
        match s {
            Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_none()) => {
                let (p, ty) = match &l.pat {
                    Pat::Ident(p) => (p, None),
                    Pat::Type(t) => match &*t.pat {
                        Pat::Ident(p) => (p, Some(&t.ty)),
                        _ => return self.ok = false,
                    },
                    _ => return self.ok = false,
                };
                let (name, ident, mutable) = (p.ident.to_string(), p.ident.clone(), p.mutability.is_some());
                let ty = ty.map_or_else(|| quote!(_), |t| quote!(#t));
                if p.by_ref.is_some()
                    || p.subpat.is_some()
                    || self.views.contains(&name)
                    || self.lead.contains(&name)
                    || self.loop_var.as_ref() == Some(&name)
                    || self.lane_locals.contains_key(&name)
                {
                    return self.ok = false;
                }
                let init = &mut l.init.as_mut().expect("checked above").expr;
                if !mutable {
                    if let Some(v) = self.view_of(init) {
                        self.alias.insert(name, v);
                        return;
                    }
                }
                self.alias.remove(&name);
                self.defs.remove(&name);
                // (A value that reads its own name's earlier binding is not substituted.)
                let def =
                    (!mutable && pure_expr(init) && self.lin(init).is_some() && !idents_of(&**init).contains(&name))
                        .then(|| (**init).clone());
                self.expr(init);
                self.own.insert(name.clone());
                if let Some(d) = def {
                    self.defs.insert(name.clone(), d);
                }
                if top && self.segmented {
                    // A lane local: set per lane, read back in later segments.
                    let buf = format_ident!("__emu_ll_{}", ident, span = Span::mixed_site());
                    self.lane_local_tys.push((buf.clone(), ty));
                    let init = &l.init.as_ref().expect("checked above").expr;
                    let k = lane_k();
                    *s = syn::parse_quote!(#buf.set(#k, #init););
                    self.lane_locals.insert(name.clone(), buf);
                    self.defs.remove(&name);
                }
            }
            Stmt::Expr(Expr::ForLoop(f), _) if top && self.segmented && self.loop_var.is_none() => {
                let Pat::Ident(p) = &*f.pat else { return self.ok = false };
                let Expr::Range(r) = &*f.expr else { return self.ok = false };
                let ends_ok =
                    [&r.start, &r.end].iter().all(|e| e.as_ref().is_some_and(|e| pure_expr(e) && self.row_uniform(e)));
                let name = p.ident.to_string();
                let bound =
                    self.lead.contains(&name) || self.own.contains(&name) || self.lane_locals.contains_key(&name);
                if !ends_ok || bound || f.label.is_some() || p.by_ref.is_some() || p.subpat.is_some() {
                    return self.ok = false;
                }
                self.loop_var = Some(p.ident.to_string());
                self.loops += 1;
                for s in &mut f.body.stmts {
                    self.statement(s, false);
                }
                self.loop_var = None;
            }
            Stmt::Expr(e, _) => self.expr(e),
            _ => self.ok = false,
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        if let Some(buf) = self.lane_local(e) {
            let k = lane_k();
            *e = syn::parse_quote!(unsafe { #buf.get(#k) });
            return;
        }
        match e {
            Expr::Lit(_) => {}
            Expr::Path(_) => {
                // A view named as a value is passed somewhere this pass cannot follow.
                if self.view_of(e).is_some() {
                    self.ok = false;
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                self.expr(&mut b.left);
                self.conditional += 1;
                self.expr(&mut b.right);
                self.conditional -= 1;
            }
            Expr::Binary(b) if !is_assign(&b.op) => {
                self.expr(&mut b.left);
                self.expr(&mut b.right);
            }
            Expr::Binary(b) if self.lane_local(&b.left).is_some() => {
                // `x op= v` on a lane local: `x = x op v`, the same for the primitive types a
                // kernel's values have.
                let buf = self.lane_local(&b.left).expect("matched above");
                let Some(op) = plain_op(&b.op) else { return self.ok = false };
                self.expr(&mut b.right);
                let (k, v) = (lane_k(), &b.right);
                *e = syn::parse_quote!(#buf.set(#k, unsafe { #buf.get(#k) } #op (#v)));
            }
            Expr::Binary(b)
                if path_name(&b.left).is_some_and(|n| self.own.contains(&n) && !self.defs.contains_key(&n)) =>
            {
                self.expr(&mut b.right)
            }
            Expr::Assign(a) if self.lane_local(&a.left).is_some() => {
                let buf = self.lane_local(&a.left).expect("matched above");
                self.expr(&mut a.right);
                let (k, v) = (lane_k(), &a.right);
                *e = syn::parse_quote!(#buf.set(#k, #v));
            }
            Expr::Assign(a)
                if path_name(&a.left).is_some_and(|n| self.own.contains(&n) && !self.defs.contains_key(&n)) =>
            {
                self.expr(&mut a.right)
            }
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => self.expr(&mut u.expr),
            Expr::Cast(c) => self.expr(&mut c.expr),
            Expr::Paren(p) => self.expr(&mut p.expr),
            Expr::Group(g) => self.expr(&mut g.expr),
            Expr::Block(b) if b.label.is_none() => {
                // The block's own names end with it.
                let (alias, defs, own) = (self.alias.clone(), self.defs.clone(), self.own.clone());
                for s in &mut b.block.stmts {
                    self.statement(s, false);
                }
                (self.alias, self.defs, self.own) = (alias, defs, own);
            }
            Expr::MethodCall(m) if FLOAT_METHODS.iter().any(|f| m.method == f) => {
                self.expr(&mut m.receiver);
                for a in &mut m.args {
                    self.expr(a);
                }
            }
            Expr::Call(_) => self.access(e),
            _ => self.ok = false,
        }
    }

    /// `__private::load(checked, &v, i)` and `__private::store(checked, &v, i, x)`.
    fn access(&mut self, e: &mut Expr) {
        let Expr::Call(c) = e else { return };
        let Some(store) = Access::of(c).map(|a| a.is_store()) else { return self.ok = false };
        let Some(Expr::Reference(r)) = c.args.iter().nth(1) else { return self.ok = false };
        let Some(view) = self.view_of(&r.expr) else { return self.ok = false };
        let index = c.args[2].clone();
        let span = c.span();
        match self.lin(&index) {
            Some(Lin::Row) if !store => {
                // Read per lane; the region's proof showed it in bounds, the accessor checks
                // it again.
                self.row_loads.push(view.clone());
                let index = self.substituted(&index);
                *e = syn::parse_quote_spanned!(span=>
                    ::deviceemu::__private::load_in_bounds(&#view, ::deviceemu::__private::Index::to_index(#index))
                );
            }
            Some(Lin::Lane) => {
                let k = self.stage(&view, &index);
                let (buf, lane) = (self.staged[k].buf.clone(), lane_k());
                if store {
                    // A store on some lanes only would leave its buffer partly unset.
                    if self.conditional > 0 {
                        return self.ok = false;
                    }
                    let mut x = c.args[3].clone();
                    self.expr(&mut x);
                    self.staged[k].stored = true;
                    self.staged[k].stored_top |= self.loop_var.is_none();
                    *e = syn::parse_quote_spanned!(span=> #buf.set(#lane, #x));
                } else {
                    self.staged[k].loaded = true;
                    // SAFETY: the chunk loaded this form's elements `0..n` before its lanes
                    // ran, and the lane `k < n`.
                    *e = syn::parse_quote_spanned!(span=> unsafe { #buf.get(#lane) });
                }
            }
            _ => self.ok = false,
        }
    }
}

/// The operator of a compound assignment's plain form (`+=`: `+`).
fn plain_op(op: &syn::BinOp) -> Option<TokenStream> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => quote!(+),
        SubAssign(_) => quote!(-),
        MulAssign(_) => quote!(*),
        DivAssign(_) => quote!(/),
        RemAssign(_) => quote!(%),
        BitAndAssign(_) => quote!(&),
        BitOrAssign(_) => quote!(|),
        BitXorAssign(_) => quote!(^),
        ShlAssign(_) => quote!(<<),
        ShrAssign(_) => quote!(>>),
        _ => return None,
    })
}

/// Makes `&&` and `||` evaluate both operands (`&`, `|` on their `bool`s).
struct Eager;

impl VisitMut for Eager {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::Binary(b) = e {
            let span = b.op.span();
            match b.op {
                syn::BinOp::And(_) => b.op = syn::BinOp::BitAnd(syn::Token![&](span)),
                syn::BinOp::Or(_) => b.op = syn::BinOp::BitOr(syn::Token![|](span)),
                _ => return,
            }
            let (l, r) = (&b.left, &b.right);
            *b.left = syn::parse_quote!((#l));
            *b.right = syn::parse_quote!((#r));
        }
    }
}

/// The integer types an index may be cast through.
const INTEGERS: [&str; 12] = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "usize", "isize", "u128", "i128"];

impl Program {
    /// The row-by-row form of a lane loop's thread code (see the module's text): the closure
    /// `Regions::each_row_chunk` runs for each chunk of a row, or `None` when the code does not
    /// have the shape.
    pub(super) fn rows_form(&self, thread: &[Stmt], g: &Gen) -> Option<TokenStream> {
        let ctx = self.ctx.to_string();
        let recomputed = |s: &Stmt| matches!(s, Stmt::Local(l) if local_name(&l.pat).is_some_and(|n| self.liveness.kinds.get(&n) == Some(&Lives::Recomputed)));
        let lead = thread.iter().take_while(|s| recomputed(s)).count();
        let (lets, rest) = thread.split_at(lead);
        let (cond, body): (Option<&Expr>, Vec<Stmt>) = match rest {
            [Stmt::Expr(Expr::If(i), _)] if i.else_branch.is_none() => (Some(&*i.cond), i.then_branch.stmts.clone()),
            rest => (None, rest.to_vec()),
        };
        if body.is_empty() || !cond.is_none_or(pure_expr) {
            return None;
        }
        // The lanes have no linear thread index of their own here.
        if thread.iter().any(|s| idents_of(s).contains(&g.t.to_string())) {
            return None;
        }
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names = self.names(&self.uniformity.names, &locals, &ctx);
        let varying = self.thread_varying();
        let uniform = |e: &Expr| idents_of(e).is_disjoint(&varying) && names.uniform(e);
        let views = self.view_names();
        let segmented = body.iter().any(|s| matches!(s, Stmt::Expr(Expr::ForLoop(_), _)));
        let mut rw = Rewrite {
            ctx: &ctx,
            views: &views,
            uniform: &uniform,
            row: HashSet::new(),
            lane: HashSet::new(),
            own: HashSet::new(),
            lead: lets.iter().filter_map(|s| if let Stmt::Local(l) = s { local_name(&l.pat) } else { None }).collect(),
            alias: HashMap::new(),
            defs: HashMap::new(),
            loop_var: None,
            loops: 0,
            lane_locals: HashMap::new(),
            lane_local_tys: Vec::new(),
            segmented,
            staged: Vec::new(),
            row_loads: Vec::new(),
            conditional: 0,
            ok: true,
        };
        // The leading `let`s, in order: each the same for a row, affine in the lane, or
        // neither (a per-lane value no index may use).
        for s in lets {
            let Stmt::Local(l) = s else { return None };
            let (name, init) = (local_name(&l.pat)?, &l.init.as_ref()?.expr);
            if !pure_expr(init) {
                return None;
            }
            match rw.lin(init) {
                Some(Lin::Row) => rw.row.insert(name),
                Some(Lin::Lane) => rw.lane.insert(name),
                None => false,
            };
        }
        let mut body = body;
        for s in &mut body {
            rw.statement(s, true);
        }
        if !rw.ok || rw.staged.is_empty() || !rw.staged.iter().any(|s| s.stored) {
            return None;
        }
        // A store to a read-only parameter is reported once, by the scalar form.
        if rw.staged.iter().any(|s| s.stored && super::is_read_only(&s.view.to_string())) {
            return None;
        }
        // A view the body writes: no row-uniform load of it, and no form read again in each
        // pass of a loop; a form stored only in a loop that may not run is loaded first.
        let written: HashSet<String> = rw.staged.iter().filter(|s| s.stored).map(|s| s.view.to_string()).collect();
        if rw.row_loads.iter().any(|v| written.contains(&v.to_string()))
            || rw.staged.iter().any(|s| s.inner.is_some() && (s.stored || written.contains(&s.view.to_string())))
            || rw.staged.iter().any(|s| s.stored && !s.stored_top && !s.loaded)
        {
            return None;
        }
        let r = rt();
        let (c, k) = (&g.ctx, lane_k());
        let lets_code = super::thread_code(lets);
        // The condition with every operand evaluated: more than the lanes evaluate, which can
        // only raise a panic they would not (the row then runs lane by lane), and no branch in
        // the loop that finds the run.
        let cond = cond.map_or_else(
            || quote!(true),
            |c| {
                let mut c = c.clone();
                Eager.visit_expr_mut(&mut c);
                quote!(#c)
            },
        );
        // The forms read or written across the whole body (`outer`) have their ends and
        // buffers made once per row; a loop's own forms once per pass.
        let outer: Vec<&Staged> = rw.staged.iter().filter(|s| s.inner.is_none()).collect();
        let ends = |forms: &[&Staged], lane: TokenStream, var: Option<&TokenStream>| {
            let indices = forms.iter().map(|s| &s.index);
            let var = var.map(|v| quote!(let #v = #v;));
            quote! {{
                let #c = __emu_cursor.row_lane(__emu_c0 + #lane);
                #lets_code
                #var
                [#(#r::Index::to_index(#indices)),*]
            }}
        };
        // Each form's index at the run's two ends, `s` and `e`: one apart per lane.
        let checked_ends = |forms: &[&Staged], s: &Ident, var: Option<&TokenStream>| {
            let n_forms = forms.len();
            let (first, last) = (ends(forms, quote!(__emu_lo), var), ends(forms, quote!(__emu_hi - 1), var));
            quote! {
                #[allow(unused_variables)]
                let #s: [usize; #n_forms] = #first;
                #[allow(unused_variables)]
                let __emu_e: [usize; #n_forms] = #last;
                for __emu_f in 0..#n_forms {
                    if __emu_e[__emu_f].wrapping_sub(#s[__emu_f]) != __emu_n - 1 {
                        return false;
                    }
                }
            }
        };
        let s_outer = format_ident!("__emu_s");
        let outer_ends = checked_ends(&outer, &s_outer, None);
        // On a view the body writes, two different forms' ranges are disjoint.
        let mut disjoint = Vec::new();
        for (a, sa) in outer.iter().enumerate() {
            if !written.contains(&sa.view.to_string()) {
                continue;
            }
            for (b, _) in outer.iter().enumerate().skip(a + 1).filter(|(_, s)| s.view == sa.view) {
                disjoint
                    .push(quote!(&& (__emu_s[#a] + __emu_n <= __emu_s[#b] || __emu_s[#b] + __emu_n <= __emu_s[#a])));
            }
        }
        // Read-only forms of one view whose indices differ by constants share a window: one
        // copy instead of one per form. Each member's first index is checked against the
        // window's at run time, so the grouping (`constant_apart`) is only a guess.
        let windows = windows(&outer, &written);
        let mut in_window = HashSet::new();
        // Per window: the checks of its members' first indices, its buffer, its load, and
        // each member's view of it.
        let (mut window_checks, mut window_bufs, mut window_loads, mut window_views) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for w in &windows {
            let (buf, span, base) = (&w.buf, w.span, w.base);
            // The capacity past the chunk's a multiple of 16 elements, whatever the span, so
            // that the buffers after it on the stack keep their alignment.
            let cap = span.next_multiple_of(16);
            let v = &outer[base].view;
            window_bufs.push(quote!(let mut #buf = #r::LaneBuf::<_, { #r::LANE_CHUNK + #cap }>::new();));
            window_loads.push(quote!(#r::lane_load(&#v, __emu_s[#base], &mut #buf, __emu_n + #span);));
            for &(a, off) in &w.members {
                in_window.insert(a);
                if a != base {
                    window_checks.push(quote!(&& __emu_s[#a] == __emu_s[#base].wrapping_add(#off)));
                }
                let m = &outer[a].buf;
                window_views.push(quote!(let #m = #buf.at(#off);));
            }
        }
        let unwindowed = outer.iter().enumerate().filter(|(a, _)| !in_window.contains(a)).map(|(_, &s)| s);
        let bufs = unwindowed
            .chain(rw.staged.iter().filter(|s| s.inner.is_some()))
            .map(|s| {
                let buf = &s.buf;
                quote!(let mut #buf = #r::LaneBuf::<_, { #r::LANE_CHUNK }>::new();)
            })
            .collect::<Vec<_>>();
        let locals = rw
            .lane_local_tys
            .iter()
            .map(|(buf, ty)| quote!(let mut #buf = #r::LaneBuf::<#ty, { #r::LANE_CHUNK }>::new();));
        let loads = |forms: &[&Staged], s: &Ident, skip: &HashSet<usize>| -> Vec<TokenStream> {
            forms
                .iter()
                .enumerate()
                .filter(|(a, f)| f.loaded && !skip.contains(a))
                .map(|(a, f)| {
                    let (v, buf) = (&f.view, &f.buf);
                    quote!(#r::lane_load(&#v, #s[#a], &mut #buf, __emu_n);)
                })
                .collect()
        };
        let outer_loads = loads(&outer, &s_outer, &in_window);
        // SAFETY (of the stores): every stored form is loaded first or stored by every lane
        // `0..n` outside the loops (no store is under a short-circuit operand, and the body has
        // no branch), so its elements `0..n` are set.
        let stores = outer.iter().enumerate().filter(|(_, s)| s.stored).map(|(a, s)| {
            let (v, buf) = (&s.view, &s.buf);
            quote!(unsafe { #r::lane_store(&#v, __emu_s[#a], &#buf, __emu_n) };)
        });
        let lanes = |code: TokenStream| {
            quote! {
                #[allow(unused_variables, unused_unsafe)]
                for #k in 0..__emu_n {
                    let #c = __emu_cursor.row_lane(__emu_c0 + __emu_lo + #k);
                    #lets_code
                    #code
                }
            }
        };
        // The body's segments in order: runs of statements, a loop over the lanes each; each
        // loop of the body with the lanes inside its passes (each lane's operations are its
        // own, in its own order, and no lane reads what another writes).
        let mut code = TokenStream::new();
        let mut run: Vec<Stmt> = Vec::new();
        let mut loop_id = 0;
        for st in &body {
            let Stmt::Expr(Expr::ForLoop(f), _) = st else {
                run.push(st.clone());
                continue;
            };
            if !run.is_empty() {
                code.extend(lanes(super::thread_code(&run)));
                run.clear();
            }
            let (pat, range) = (&f.pat, &f.expr);
            // (`statement` took only a plain name, `mut` or not.)
            let Pat::Ident(p) = &**pat else { return None };
            let var = p.ident.clone();
            let var = quote!(#var);
            let mine: Vec<&Staged> = rw.staged.iter().filter(|s| s.inner == Some(loop_id)).collect();
            let s_inner = format_ident!("__emu_si");
            let pass_ends = checked_ends(&mine, &s_inner, Some(&var));
            let pass_loads = loads(&mine, &s_inner, &HashSet::new());
            let pass = lanes(super::thread_code(&f.body.stmts));
            code.extend(quote! {
                // The loop's range is the same for every lane of the row (and pure).
                let __emu_range = {
                    let #c = __emu_cursor.row_lane(__emu_c0 + __emu_lo);
                    #lets_code
                    #range
                };
                for #pat in __emu_range {
                    #pass_ends
                    #(#pass_loads)*
                    #pass
                }
            });
            loop_id += 1;
        }
        if !run.is_empty() {
            code.extend(lanes(super::thread_code(&run)));
        }
        Some(quote! {
            |__emu_cursor: &#r::LaneCursor, __emu_c0: usize, __emu_m: usize| -> bool {
                let __emu_m = ::core::cmp::min(__emu_m, #r::LANE_CHUNK);
                // The lanes that pass the condition, which must be one run `lo..hi`: their
                // count, and the sums of their positions and of their squares (`m <= 256`: each
                // fits a `u32`), which sums vectorise. Of all sets of `n` lanes with a given
                // sum of positions, the run has the least sum of squares, and it alone.
                let (mut __emu_n, mut __emu_s1, mut __emu_s2) = (0u32, 0u32, 0u32);
                #[allow(unused_variables, unused_parens)]
                for #k in 0..__emu_m {
                    let #c = __emu_cursor.row_lane(__emu_c0 + #k);
                    #lets_code
                    let __emu_pass = (#cond) as u32;
                    let __emu_at = #k as u32;
                    __emu_n += __emu_pass;
                    __emu_s1 += __emu_pass * __emu_at;
                    __emu_s2 += __emu_pass * __emu_at * __emu_at;
                }
                let Some((__emu_lo, __emu_hi)) = #r::lane_run(__emu_m, __emu_n, __emu_s1, __emu_s2) else {
                    return false;
                };
                let __emu_n = __emu_hi - __emu_lo;
                if __emu_n == 0 {
                    return true;
                }
                #outer_ends
                if !(true #(#disjoint)* #(#window_checks)*) {
                    return false;
                }
                let __emu_n = ::core::cmp::min(__emu_n, #r::LANE_CHUNK);
                #(#bufs)*
                #(#window_bufs)*
                #(#locals)*
                #(#outer_loads)*
                #(#window_loads)*
                #(#window_views)*
                #code
                #(#stores)*
                true
            }
        })
    }
}

/// A window: read-only forms of one view whose indices differ by constants, staged as one
/// copy (`LaneBuf::at`). `base` is the form with the smallest index (an index into the row's
/// outer forms), `members` each form with its offset from it (the base's own is 0), `span`
/// the largest offset.
struct Window {
    base: usize,
    members: Vec<(usize, usize)>,
    span: usize,
    buf: Ident,
}

/// The largest offset a window takes: beyond it, forms are staged one by one.
const WINDOW_SPAN: i128 = 64;

/// The windows of a row's outer forms: loaded, not stored, of a view the body does not write,
/// grouped by view and by their indices less a constant (`constant_apart`); only groups of
/// two or more whose offsets span at most [`WINDOW_SPAN`].
fn windows(outer: &[&Staged], written: &HashSet<String>) -> Vec<Window> {
    // By view and the indices' part less the constant: each form with its constant.
    type Group = (String, String, Vec<(usize, i128)>);
    let mut groups: Vec<Group> = Vec::new();
    for (a, f) in outer.iter().enumerate() {
        if !f.loaded || f.stored || written.contains(&f.view.to_string()) {
            continue;
        }
        let Some((key, c)) = constant_apart(&f.index) else { continue };
        let view = f.view.to_string();
        match groups.iter_mut().find(|(v, k, _)| *v == view && *k == key) {
            Some((_, _, m)) => m.push((a, c)),
            None => groups.push((view, key, vec![(a, c)])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(_, _, m)| {
            let lo = m.iter().map(|&(_, c)| c).min()?;
            let hi = m.iter().map(|&(_, c)| c).max()?;
            if m.len() < 2 || hi - lo > WINDOW_SPAN {
                return None;
            }
            let base = m.iter().find(|&&(_, c)| c == lo)?.0;
            let members = m.iter().map(|&(a, c)| (a, (c - lo) as usize)).collect();
            let buf = format_ident!("__emu_win_{}", base, span = Span::mixed_site());
            Some(Window { base, members, span: (hi - lo) as usize, buf })
        })
        .collect()
}

/// `e` as a sum of integer multiples of products of names and other terms, less its constant
/// term: `(i - 1) * N + (j + 1)` is `i*N - N + j` and 1. Two indices with the same first part
/// differ by the difference of their constants, if their arithmetic does not wrap: the chunk
/// checks that on the values before it uses it. Casts are read through.
fn constant_apart(e: &Expr) -> Option<(String, i128)> {
    let mut p = poly(e)?;
    let c = p.remove("").unwrap_or(0);
    p.retain(|_, v| *v != 0);
    let key = p.iter().map(|(k, v)| format!("{v}*{k}")).collect::<Vec<_>>().join(" + ");
    Some((key, c))
}

/// What joins the terms of a product in [`poly`]'s keys: a character no term's text has.
const PRODUCT: char = '\u{1f}';

/// `e` as a map from each product of terms (their texts sorted, joined by [`PRODUCT`]; `""`
/// for the constant) to its integer multiple.
fn poly(e: &Expr) -> Option<std::collections::BTreeMap<String, i128>> {
    use std::collections::BTreeMap;
    let e = strip_parens(e);
    let scale = |p: BTreeMap<String, i128>, k: i128| -> Option<BTreeMap<String, i128>> {
        p.into_iter().map(|(m, v)| Some((m, v.checked_mul(k)?))).collect()
    };
    let add = |mut a: BTreeMap<String, i128>, b: BTreeMap<String, i128>| -> Option<BTreeMap<String, i128>> {
        for (m, v) in b {
            let e = a.entry(m).or_insert(0);
            *e = e.checked_add(v)?;
        }
        Some(a)
    };
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => Some([(String::new(), i.base10_parse::<i128>().ok()?)].into()),
            _ => None,
        },
        Expr::Cast(c) => poly(&c.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => scale(poly(&u.expr)?, -1),
        Expr::Binary(b) => match b.op {
            syn::BinOp::Add(_) => add(poly(&b.left)?, poly(&b.right)?),
            syn::BinOp::Sub(_) => add(poly(&b.left)?, scale(poly(&b.right)?, -1)?),
            syn::BinOp::Mul(_) => {
                let (l, r) = (poly(&b.left)?, poly(&b.right)?);
                let mut out = BTreeMap::new();
                for (ml, vl) in &l {
                    for (mr, vr) in &r {
                        let mut names: Vec<&str> =
                            ml.split('*').chain(mr.split('*')).filter(|n| !n.is_empty()).collect();
                        names.sort_unstable();
                        let v = out.entry(names.join(&PRODUCT.to_string())).or_insert(0i128);
                        *v = v.checked_add(vl.checked_mul(*vr)?)?;
                    }
                }
                Some(out)
            }
            _ => Some([(quote!(#e).to_string(), 1)].into()),
        },
        e => Some([(quote!(#e).to_string(), 1)].into()),
    }
}

#[cfg(test)]
mod tests {
    use super::constant_apart;

    fn apart(e: &str) -> (String, i128) {
        constant_apart(&syn::parse_str(e).unwrap()).unwrap()
    }

    #[test]
    fn indices_a_constant_apart_have_one_key() {
        // Jacobi's row: the same key, constants -1, 0 and 1, in any order of the terms.
        let (k, c) = apart("i * N + j");
        assert_eq!(c, 0);
        assert_eq!(apart("i * N + (j - 1)"), (k.clone(), -1));
        assert_eq!(apart("i * N + (1 + j)"), (k.clone(), 1));
        assert_eq!(apart("(j as i32 + 1) + N * i"), (k.clone(), 1));
        // The rows around: `(i - 1) * N` is `i * N - N`, another key.
        let (up, c) = apart("(i - 1) * N + (j - 1)");
        assert_ne!(up, k);
        assert_eq!((apart("(i - 1) * N + (j + 1)").0, c), (up.clone(), -1));
        assert_eq!(apart("(i - 1) * N + j + 2"), (up, 2));
        // Other terms are compared as written: `x / 2` is one term, `2 * x` another.
        assert_ne!(apart("x / 2 + 1").0, apart("2 * x + 1").0);
        assert_eq!(apart("x / 2 + 1"), (apart("x / 2").0, 1));
        // A product of two sums, and terms that cancel.
        assert_eq!(apart("(a + 1) * (b + 2)"), (apart("a * b + 2 * a + b").0, 2));
        assert_eq!(apart("a - a + 3"), (String::new(), 3));
    }
}
