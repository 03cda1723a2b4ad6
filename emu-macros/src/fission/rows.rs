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
//! and stored after them. PolyBench's 2-D convolution and Jacobi step take it; the 1-D forms
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
//! The body has no branch, loop, call (but pure float methods), exit or wait. Only unchecked
//! launches take the form, as every vectorised one (the checkers see each access on the
//! scalar form).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

use super::uniform::{idents_of, is_assign};
use super::{
    is_thread_x, lane_k, local_name, path_name, private_call, pure_expr, rt, strip_parens, Gen, Lives, Program,
    FLOAT_METHODS,
};

/// How an index expression depends on the lane.
#[derive(Clone, Copy, PartialEq)]
enum Lin {
    /// The same for every lane of a row.
    Row,
    /// Affine in the lane's `thread_idx().x`, which it reads once.
    Lane,
}

/// One staged access form: a view and an index expression affine in the lane.
struct Staged {
    view: Ident,
    index: Expr,
    key: String,
    buf: Ident,
    loaded: bool,
    stored: bool,
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
    staged: Vec<Staged>,
    /// Row-uniform loads, read per lane: each view.
    row_loads: Vec<Ident>,
    /// How many short-circuit operands the visit is inside.
    conditional: u32,
    ok: bool,
}

impl Rewrite<'_> {
    /// Whether `e` is the same for every lane of a row.
    fn row_uniform(&self, e: &Expr) -> bool {
        if idents_of(e).iter().any(|n| self.own.contains(n)) {
            return false;
        }
        if (self.uniform)(e) {
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
        if path_name(e).is_some_and(|n| self.lane.contains(&n) && !self.own.contains(&n)) {
            return Some(Lin::Lane);
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

    fn view_of(&self, e: &Expr) -> Option<Ident> {
        let Expr::Path(p) = e else { return None };
        let id = p.path.get_ident()?;
        let n = id.to_string();
        (self.views.contains(&n) && !self.own.contains(&n)).then(|| id.clone())
    }

    fn stage(&mut self, view: &Ident, index: &Expr) -> usize {
        let key = format!("{view} {}", quote!(#index));
        if let Some(k) = self.staged.iter().position(|s| s.key == key) {
            return k;
        }
        let buf = format_ident!("__emu_rw_{}_{}", view, self.staged.len(), span = Span::mixed_site());
        self.staged.push(Staged { view: view.clone(), index: index.clone(), key, buf, loaded: false, stored: false });
        self.staged.len() - 1
    }

    fn statement(&mut self, s: &mut Stmt) {
        if !self.ok {
            return;
        }
        match s {
            Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_none()) => {
                let Pat::Ident(p) = &l.pat else { return self.ok = false };
                let name = p.ident.to_string();
                if p.by_ref.is_some() || p.subpat.is_some() || self.views.contains(&name) {
                    return self.ok = false;
                }
                let init = &mut l.init.as_mut().expect("checked above").expr;
                self.expr(init);
                self.own.insert(name);
            }
            Stmt::Expr(e, _) => self.expr(e),
            _ => self.ok = false,
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if !self.ok {
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
            Expr::Binary(b) if path_name(&b.left).is_some_and(|n| self.own.contains(&n)) => self.expr(&mut b.right),
            Expr::Assign(a) if path_name(&a.left).is_some_and(|n| self.own.contains(&n)) => self.expr(&mut a.right),
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => self.expr(&mut u.expr),
            Expr::Cast(c) => self.expr(&mut c.expr),
            Expr::Paren(p) => self.expr(&mut p.expr),
            Expr::Group(g) => self.expr(&mut g.expr),
            Expr::Block(b) if b.label.is_none() => {
                for s in &mut b.block.stmts {
                    self.statement(s);
                }
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
        let store = match (private_call(c).as_deref(), c.args.len()) {
            (Some("load"), 3) => false,
            (Some("store"), 4) => true,
            _ => return self.ok = false,
        };
        let Some(Expr::Reference(r)) = c.args.iter().nth(1) else { return self.ok = false };
        let Some(view) = self.view_of(&r.expr) else { return self.ok = false };
        let index = c.args[2].clone();
        let span = c.span();
        match self.lin(&index) {
            Some(Lin::Row) if !store => {
                // Read per lane; the region's proof showed it in bounds, the accessor checks
                // it again.
                self.row_loads.push(view.clone());
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

/// The identifiers `s` names.
fn idents_of_stmt(s: &Stmt) -> HashSet<String> {
    struct V(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for V {
        fn visit_ident(&mut self, i: &'ast Ident) {
            self.0.insert(i.to_string());
        }
    }
    let mut v = V(HashSet::new());
    syn::visit::Visit::visit_stmt(&mut v, s);
    v.0
}

/// The integer types an index may be cast through.
const INTEGERS: [&str; 12] = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "usize", "isize", "u128", "i128"];

impl Program {
    /// The row-by-row form of a lane loop's thread code (see the module's text): the closure
    /// `Regions::each_row_chunk` runs for each chunk of a row, or `None` when the code does not
    /// have the shape.
    pub(super) fn rows_form(&self, thread: &[Stmt], g: &Gen) -> Option<TokenStream> {
        let ctx = self.ctx.to_string();
        let recomputed = |s: &Stmt| matches!(s, Stmt::Local(l) if local_name(&l.pat).is_some_and(|n| self.lives.get(&n) == Some(&Lives::Recomputed)));
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
        if thread.iter().any(|s| idents_of_stmt(s).contains(&g.t.to_string())) {
            return None;
        }
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names = self.names(&self.uniform, &locals, &ctx);
        let varying: HashSet<String> = self
            .locals
            .iter()
            .filter(|l| self.lives.get(&l.name) != Some(&Lives::Uniform))
            .map(|l| l.name.clone())
            .collect();
        let uniform = |e: &Expr| idents_of(e).is_disjoint(&varying) && names.uniform(e);
        let mut views = self.buffers.clone();
        views.extend(self.shared_arrays());
        let mut rw = Rewrite {
            ctx: &ctx,
            views: &views,
            uniform: &uniform,
            row: HashSet::new(),
            lane: HashSet::new(),
            own: HashSet::new(),
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
            rw.statement(s);
        }
        if !rw.ok || rw.staged.is_empty() || !rw.staged.iter().any(|s| s.stored) {
            return None;
        }
        // A store to a read-only parameter is reported once, by the scalar form.
        if rw.staged.iter().any(|s| s.stored && super::is_read_only(&s.view.to_string())) {
            return None;
        }
        // A view the body writes: no row-uniform load of it.
        let written: HashSet<String> = rw.staged.iter().filter(|s| s.stored).map(|s| s.view.to_string()).collect();
        if rw.row_loads.iter().any(|v| written.contains(&v.to_string())) {
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
        let indices: Vec<&Expr> = rw.staged.iter().map(|s| &s.index).collect();
        let n_forms = indices.len();
        let ends = |lane: TokenStream| {
            quote! {{
                let #c = __emu_cursor.lane(__emu_c0 + #lane);
                #lets_code
                [#(#r::Index::to_index(#indices)),*]
            }}
        };
        let (first, last) = (ends(quote!(__emu_lo)), ends(quote!(__emu_hi - 1)));
        // On a view the body writes, two different forms' ranges are disjoint.
        let mut disjoint = Vec::new();
        for (a, sa) in rw.staged.iter().enumerate() {
            if !written.contains(&sa.view.to_string()) {
                continue;
            }
            for (b, _) in rw.staged.iter().enumerate().skip(a + 1).filter(|(_, s)| s.view == sa.view) {
                disjoint
                    .push(quote!(&& (__emu_s[#a] + __emu_n <= __emu_s[#b] || __emu_s[#b] + __emu_n <= __emu_s[#a])));
            }
        }
        let bufs = rw.staged.iter().map(|s| {
            let buf = &s.buf;
            quote!(let mut #buf = #r::LaneBuf::<_, { #r::LANE_CHUNK }>::new();)
        });
        let loads = rw.staged.iter().enumerate().filter(|(_, s)| s.loaded).map(|(a, s)| {
            let (v, buf) = (&s.view, &s.buf);
            quote!(#r::lane_load(&#v, __emu_s[#a], &mut #buf, __emu_n);)
        });
        // SAFETY (of the stores): every stored form is stored by every lane `0..n` (no store
        // is under a short-circuit operand, and the body has no branch), so its elements
        // `0..n` are set.
        let stores = rw.staged.iter().enumerate().filter(|(_, s)| s.stored).map(|(a, s)| {
            let (v, buf) = (&s.view, &s.buf);
            quote!(unsafe { #r::lane_store(&#v, __emu_s[#a], &#buf, __emu_n) };)
        });
        let code = super::thread_code(&body);
        Some(quote! {
            |__emu_cursor: &#r::LaneCursor, __emu_c0: usize, __emu_m: usize| -> bool {
                let __emu_m = ::core::cmp::min(__emu_m, #r::LANE_CHUNK);
                // The lanes that pass the condition, which must be one run `lo..hi`.
                // The lanes that pass the condition, which must be one run `lo..hi`: their
                // count, and the sums of their positions and of their squares (`m <= 256`: each
                // fits a `u32`), which sums vectorise. Of all sets of `n` lanes with a given
                // sum of positions, the run has the least sum of squares, and it alone.
                let (mut __emu_n, mut __emu_s1, mut __emu_s2) = (0u32, 0u32, 0u32);
                #[allow(unused_variables, unused_parens)]
                for #k in 0..__emu_m {
                    let #c = __emu_cursor.lane(__emu_c0 + #k);
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
                // Each form's index at the run's two ends: one apart per lane.
                #[allow(unused_variables)]
                let __emu_s: [usize; #n_forms] = #first;
                #[allow(unused_variables)]
                let __emu_e: [usize; #n_forms] = #last;
                for __emu_f in 0..#n_forms {
                    if __emu_e[__emu_f].wrapping_sub(__emu_s[__emu_f]) != __emu_n - 1 {
                        return false;
                    }
                }
                if !(true #(#disjoint)*) {
                    return false;
                }
                let __emu_n = ::core::cmp::min(__emu_n, #r::LANE_CHUNK);
                #(#bufs)*
                #(#loads)*
                #[allow(unused_variables, unused_unsafe)]
                for #k in 0..__emu_n {
                    let #c = __emu_cursor.lane(__emu_c0 + __emu_lo + #k);
                    #lets_code
                    #code
                }
                #(#stores)*
                true
            }
        })
    }
}
