//! The syntactic block-uniformity analysis of loop fission.
//!
//! A value is *block-uniform* when every thread of a block computes the same one: literals,
//! constants, scalar parameters, views (the view itself, not what it holds), `block_idx()`,
//! `block_dim()`, `grid_dim()`, shared arrays, and pure arithmetic, casts, comparisons, the
//! integer methods of [`PURE_METHODS`], a view's `cast::<U>()` and `if c { a } else { b }`
//! over uniform values; a load of a read-only buffer parameter (`&[T]`, which no thread of the
//! launch writes) at a uniform index; a closure whose captures are uniform; and a local whose
//! `let` has a
//! uniform value and whose every assignment is a statement of block-level code (never under a
//! thread-varying condition) with a uniform value. Any other memory load is never uniform
//! (another thread may store between two loads), nor is anything that reads `thread_idx()`.
//!
//! The analysis is a fixpoint over the names the kernel binds at statement level
//! (`fission::Program`): it starts from every `let` with a uniform-looking value and removes a
//! name when one of its assignments is not a uniform statement, or when a statement that
//! assigns it must run per thread (`misplaced`), until nothing changes.

use std::collections::{HashMap, HashSet};

use quote::quote;

use syn::visit::Visit;
use syn::{Expr, Member};

use super::footprint::Roots;
use super::{places, stmt_target, Node, Program};
use crate::abi::Rt;

/// Integer and float methods without side effects, uniform when their receiver and
/// arguments are.
pub(super) const PURE_METHODS: [&str; 22] = [
    "len",
    "min",
    "max",
    "pow",
    "abs",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "saturating_add",
    "saturating_sub",
    "div_ceil",
    "next_power_of_two",
    "leading_zeros",
    "trailing_zeros",
    "count_ones",
    "is_power_of_two",
    "ilog2",
    "clamp",
    "rem_euclid",
    "div_euclid",
    "is_empty",
    "trailing_ones",
];

/// What the analysis knows of the names in scope.
pub(super) struct Names<'a> {
    /// Names proved uniform so far (locals).
    pub(super) uniform: &'a HashSet<String>,
    /// Scalar and view parameters (uniform values).
    pub(super) params: &'a HashSet<String>,
    /// Every local the kernel binds at statement level (thread-varying unless in `uniform`).
    pub(super) locals: &'a HashSet<String>,
    /// The context argument's name (`__emu_ctx`).
    pub(super) ctx: &'a str,
    /// Shared views whose loads at uniform indices are uniform in the value being judged: it
    /// is computed right after a barrier, in a run whose thread code writes none of them
    /// ([`shared_reads`]), so every thread would load what the block loads once.
    pub(super) shared: Option<&'a HashSet<String>>,
}

impl Names<'_> {
    /// The index of `load(checked, &v, i)` (`rewrite.rs`) with `v` one of [`Names::shared`].
    fn shared_load<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        let (view, index) = super::load_of(e)?;
        self.shared?.contains(&view).then_some(index)
    }

    /// Whether `e` is block-uniform.
    pub(super) fn uniform(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => true,
            Expr::Path(p) => {
                if p.qself.is_some() {
                    return false;
                }
                if let Some(id) = p.path.get_ident() {
                    let s = id.to_string();
                    if self.uniform.contains(&s) || self.params.contains(&s) {
                        return true;
                    }
                    if self.locals.contains(&s) || s == self.ctx {
                        return false;
                    }
                    // A constant (by the naming convention); anything else (a local bound
                    // inside a statement, a static) is not known to be uniform.
                    return s.chars().next().is_some_and(|c| c.is_uppercase()) && s.chars().all(|c| !c.is_lowercase());
                }
                // `f32::MAX`, `core::f32::consts::PI`, `Self::N`.
                p.path.segments.last().is_some_and(|s| !s.ident.to_string().chars().any(|c| c.is_lowercase()))
            }
            Expr::Field(f) => {
                // `__emu_ctx.block_idx.x` and friends; `__emu_ctx.thread_idx` is per thread.
                if let Expr::Path(p) = &*f.base {
                    if p.path.is_ident(self.ctx) {
                        return matches!(&f.member, Member::Named(m) if m != "thread_idx");
                    }
                }
                self.uniform(&f.base)
            }
            Expr::Binary(b) => !is_assign(&b.op) && self.uniform(&b.left) && self.uniform(&b.right),
            Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && self.uniform(&u.expr),
            Expr::Cast(c) => self.uniform(&c.expr),
            Expr::Paren(p) => self.uniform(&p.expr),
            Expr::Group(g) => self.uniform(&g.expr),
            // A loop's range (`0..n`, `(0..n).step_by(k)`, `.rev()`).
            Expr::Range(r) => {
                r.start.as_deref().is_none_or(|e| self.uniform(e)) && r.end.as_deref().is_some_and(|e| self.uniform(e))
            }
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "step_by" | "rev" | "skip" | "take") => {
                matches!(&*m.receiver, Expr::Range(_) | Expr::Paren(_) | Expr::MethodCall(_))
                    && self.uniform(&m.receiver)
                    && m.args.iter().all(|a| self.uniform(a))
            }
            // A view of the same memory as another element type (`g_idata.cast::<Float4>()`):
            // pure, misalignment is reported at an access.
            Expr::MethodCall(m) if m.method == "cast" && m.args.is_empty() => self.uniform(&m.receiver),
            Expr::MethodCall(m) => {
                PURE_METHODS.iter().any(|p| m.method == p)
                    && m.turbofish.is_none()
                    && self.uniform(&m.receiver)
                    && m.args.iter().all(|a| self.uniform(a))
            }
            Expr::Call(c) => {
                // An element of a read-only buffer parameter at a uniform index: no thread of
                // the launch writes it, so every thread loads the same value (lavaMD-style
                // `for k in 0..1 + boxes[bx].nn` around barriers).
                if let Some(index) = super::read_only_load(e) {
                    return self.uniform(index);
                }
                if let Some(index) = self.shared_load(e) {
                    return self.uniform(index);
                }
                let Expr::Path(p) = &*c.func else { return false };
                let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                let segs = &p.path.segments;
                // `deviceemu::math`'s functions (`log2f(x)`, `math::sqrtf(x)`) and a primitive
                // type's (`f32::sqrt(x)`, `u32::pow(b, e)`): pure functions of their arguments.
                let math = super::MATH.contains(&last.as_str())
                    && (segs.len() == 1 || segs.len() >= 2 && segs[segs.len() - 2].ident == "math");
                let primitive = segs.len() == 2 && super::PRIMITIVES.iter().any(|t| segs[0].ident == t);
                if p.qself.is_none() && (math || primitive) {
                    return c.args.iter().all(|a| self.uniform(a));
                }
                match last.as_str() {
                    "min" | "max" => c.args.iter().all(|a| self.uniform(a)),
                    // One view per block, whichever thread asks.
                    "dynamic_shared" => c.args.is_empty(),
                    // The launch's warp size (`EMU_WARP_SIZE`).
                    "warp_size" => c.args.is_empty(),
                    // A voting barrier's block-wide vote and its count (`normalise.rs`,
                    // `vote_barriers`): one per block, taken once per barrier.
                    "vote_new" => Rt::of(c) == Some(Rt::VoteNew),
                    "vote_seal" => {
                        Rt::of(c) == Some(Rt::VoteSeal)
                            && matches!(&c.args[0], Expr::Reference(r) if r.mutability.is_none() && self.uniform(&r.expr))
                    }
                    _ => false,
                }
            }
            // `if c { a } else { b }` of uniform values (SHOC's last block takes the rest).
            Expr::If(i) => {
                let value = |b: &syn::Block| matches!(&b.stmts[..], [syn::Stmt::Expr(e, None)] if self.uniform(e));
                self.uniform(&i.cond)
                    && value(&i.then_branch)
                    && i.else_branch.as_ref().is_some_and(|(_, e)| match &**e {
                        Expr::Block(b) => b.label.is_none() && value(&b.block),
                        e @ Expr::If(_) => self.uniform(e),
                        _ => false,
                    })
            }
            // A closure whose captures are all uniform (`let scale = |a: f32| a * k + 1.0;`):
            // the same closure in every thread, which each thread calls with its own
            // arguments. One that reads the thread's indices (`__emu_ctx`) is not.
            Expr::Closure(c) => {
                c.asyncness.is_none()
                    && self.captures(c).is_some_and(|names| {
                        // What it can capture: the kernel's locals, parameters and context
                        // (other names are constants, statics and functions, read when called).
                        // A local must be a uniform one; the context is the thread's.
                        names.iter().all(|n| {
                            self.uniform.contains(n)
                                || self.params.contains(n)
                                || !(self.locals.contains(n) || n == self.ctx)
                        })
                    })
            }
            // `shared_array![T; N]` (as the rewrite leaves it: a block around the macro).
            Expr::Block(_) | Expr::Macro(_) => is_shared_decl(e),
            _ => false,
        }
    }

    /// The names closure `c` may capture: the names its body reads as values that neither its
    /// parameters nor its own `let`s bind, and the called names that are the kernel's locals
    /// (a closure calling a closure). `None` when the body has a macro, whose tokens may name
    /// anything.
    fn captures(&self, c: &syn::ExprClosure) -> Option<HashSet<String>> {
        struct Free<'a> {
            locals: &'a HashSet<String>,
            names: HashSet<String>,
            bound: HashSet<String>,
            opaque: bool,
        }
        impl<'ast> Visit<'ast> for Free<'_> {
            fn visit_expr(&mut self, e: &'ast Expr) {
                match e {
                    Expr::Path(p) if p.qself.is_none() => {
                        if let Some(id) = p.path.get_ident() {
                            self.names.insert(id.to_string());
                        }
                    }
                    // A function's name is no capture; a local closure's is.
                    Expr::Call(c) => {
                        match &*c.func {
                            Expr::Path(p)
                                if p.path.get_ident().is_some_and(|i| !self.locals.contains(&i.to_string())) => {}
                            f => self.visit_expr(f),
                        }
                        c.args.iter().for_each(|a| self.visit_expr(a));
                    }
                    Expr::Macro(_) => self.opaque = true,
                    _ => syn::visit::visit_expr(self, e),
                }
            }
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.bound.insert(p.ident.to_string());
                syn::visit::visit_pat_ident(self, p);
            }
            fn visit_stmt_macro(&mut self, _: &'ast syn::StmtMacro) {
                self.opaque = true;
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut f = Free { locals: self.locals, names: HashSet::new(), bound: HashSet::new(), opaque: false };
        c.inputs.iter().for_each(|p| f.visit_pat(p));
        f.visit_expr(&c.body);
        (!f.opaque).then(|| f.names.into_iter().filter(|n| !f.bound.contains(n)).collect())
    }
}

/// Whether `op` assigns (`+=` and friends).
pub(super) fn is_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Whether `e` declares a shared array: the macro itself, or the block the rewrite makes of
/// it (a `let` of the macro's value, under `cfg`, then that value).
pub(super) fn is_shared_decl(e: &Expr) -> bool {
    match e {
        Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array"),
        Expr::Block(b) => {
            b.block.stmts.iter().all(|s| matches!(s, syn::Stmt::Local(_) | syn::Stmt::Expr(Expr::Path(_), None)))
                && b.block.stmts.iter().any(|s| match s {
                    syn::Stmt::Local(l) => l.init.as_ref().is_some_and(|i| is_shared_decl(&i.expr)),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// Every identifier `e` mentions, in paths and in macro tokens.
pub(super) fn idents_of(node: &impl ToVisit) -> HashSet<String> {
    let mut v = Idents::default();
    node.visit_with(&mut v);
    v.0
}

/// The names that statements may change: the local at the root of each assigned place
/// (`a = ..`, `a.x += ..`, `a[i].y = ..`, `(a, b) = ..`), of each `&mut` borrow and of each
/// method call's receiver that is not a [`PURE_METHODS`] one, and every name inside a closure
/// or a macro. `None` when a `ref mut` binding may borrow any place.
pub(super) fn written_in(stmts: &[syn::Stmt]) -> Option<HashSet<String>> {
    struct W {
        names: HashSet<String>,
        any: bool,
    }
    fn roots(e: &Expr, out: &mut HashSet<String>) {
        match e {
            Expr::Path(p) => out.extend(p.path.get_ident().map(|i| i.to_string())),
            Expr::Field(f) => roots(&f.base, out),
            Expr::Index(i) => roots(&i.expr, out),
            Expr::Paren(p) => roots(&p.expr, out),
            Expr::Group(g) => roots(&g.expr, out),
            Expr::Tuple(t) => t.elems.iter().for_each(|e| roots(e, out)),
            Expr::Array(a) => a.elems.iter().for_each(|e| roots(e, out)),
            // Through a reference or a pointer: the pointee changes, not the local. Any
            // other place (a call's result, a block) is not a local's.
            _ => {}
        }
    }
    impl<'ast> Visit<'ast> for W {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if is_shared_decl(e) {
                // The names in `shared_array!`'s tokens (the GPU form's `asm!` operands) are
                // not the kernel's locals.
                return;
            }
            match e {
                Expr::Assign(a) => roots(&a.left, &mut self.names),
                Expr::Binary(b) if is_assign(&b.op) => roots(&b.left, &mut self.names),
                Expr::Reference(r) if r.mutability.is_some() => roots(&r.expr, &mut self.names),
                Expr::MethodCall(m) if !PURE_METHODS.iter().any(|p| m.method == p) => {
                    roots(&m.receiver, &mut self.names)
                }
                Expr::Closure(_) | Expr::Macro(_) => self.names.extend(idents_of(e)),
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
            self.names.extend(idents_of(&syn::Stmt::Macro(m.clone())));
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.any |= p.by_ref.is_some() && p.mutability.is_some();
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut w = W { names: HashSet::new(), any: false };
    stmts.iter().for_each(|s| w.visit_stmt(s));
    (!w.any).then_some(w.names)
}

/// What [`idents_of`] can scan.
pub(super) trait ToVisit {
    fn visit_with(&self, v: &mut Idents);
}
impl ToVisit for syn::Stmt {
    fn visit_with(&self, v: &mut Idents) {
        v.visit_stmt(self)
    }
}
impl ToVisit for Expr {
    fn visit_with(&self, v: &mut Idents) {
        v.visit_expr(self)
    }
}

/// The identifiers a node mentions.
#[derive(Default)]
pub(super) struct Idents(HashSet<String>);

impl<'ast> Visit<'ast> for Idents {
    fn visit_expr(&mut self, e: &'ast Expr) {
        // A shared array's declaration names no local (its GPU form's assembly has operand
        // names of its own).
        if !is_shared_decl(e) {
            syn::visit::visit_expr(self, e);
        }
    }
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.0.insert(i.to_string());
    }
    // A field's name names no local: `block_idx().x` reads no local `x`. (A field init's
    // shorthand, `S { x }`, has its value as a path too.)
    fn visit_member(&mut self, _: &'ast syn::Member) {}
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn walk(t: proc_macro2::TokenStream, out: &mut HashSet<String>) {
            for tt in t {
                match tt {
                    proc_macro2::TokenTree::Ident(i) => {
                        out.insert(i.to_string());
                    }
                    proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                    _ => {}
                }
            }
        }
        walk(m.tokens.clone(), &mut self.0);
        syn::visit::visit_macro(self, m);
    }
}

#[cfg(test)]
mod tests {
    use super::{idents_of, written_in};

    #[test]
    fn a_fields_name_is_no_local() {
        let e: syn::Expr = syn::parse_quote!(ctx.block_idx.x * ctx.block_dim.x + p.y + S { z: w }.z + m!(x));
        let mut names: Vec<String> = idents_of(&e).into_iter().collect();
        names.sort();
        // `x` only through the macro's tokens, which may name anything.
        assert_eq!(names, ["S", "ctx", "m", "p", "w", "x"]);
    }

    fn written(code: proc_macro2::TokenStream) -> Option<Vec<String>> {
        let b: syn::Block = syn::parse2(quote::quote!({ #code })).unwrap();
        written_in(&b.stmts).map(|w| {
            let mut w: Vec<String> = w.into_iter().collect();
            w.sort();
            w
        })
    }

    #[test]
    fn the_roots_of_changed_places_are_written_and_reads_are_not() {
        let w = written(quote::quote! {
            a += r;
            b.x[i].y = r;
            (c, d) = (r, r);
            f(&mut e, &r);
            g.push(r);
            let n = h.abs();
            *p = q;
            let k = |v: i32| m = v;
            bump!(s);
        });
        let want = ["a", "b", "bump", "c", "d", "e", "g", "i32", "m", "s", "v"];
        assert_eq!(w, Some(want.iter().map(|s| s.to_string()).collect()));
    }

    #[test]
    fn a_ref_mut_binding_may_change_anything() {
        assert_eq!(written(quote::quote! { match a { ref mut x => *x = 1 } }), None);
        assert_eq!(written(quote::quote! { match a { ref x => b = *x } }), Some(vec!["b".to_string()]));
    }
}

// ---------------------------------------------------------------- the pass

/// The uniformity pass's result ([`solve`]).
#[derive(Default)]
pub(super) struct Uniformity {
    /// The statement-level locals and the loop variables of loops with barriers proved
    /// block-uniform.
    pub(super) names: HashSet<String>,
    /// Whether a uniform value or a loop head loads shared memory ([`SharedReads`]): the
    /// block loads it once, where its statement is placed.
    pub(super) loads_shared: bool,
}

/// The uniformity pass over a kernel's nodes: the fixpoint described at the top of this
/// file, then the requirements on its result. Every loop or `if` head around barriers must be
/// uniform (one the block computes right after a barrier may load shared memory:
/// [`shared_reads`]), and so must a voting barrier's vote and its sealed counts (`normalise.rs`,
/// `vote_barriers`: per thread, the first thread's seal would take the count from the others).
pub(super) fn solve(p: &Program, roots: &Roots, nodes: &[Node]) -> Result<Uniformity, String> {
    let ctx = p.ctx.to_string();
    let locals = p.bound_names();
    let mut uniform = locals.clone();
    // The shared views each local's values and each head may load as uniform values
    // (`shared_reads`).
    let mut reads = SharedReads::default();
    let views = roots.shared_views(&p.buffers);
    let all_views: HashSet<String> = views.iter().map(|(v, _)| v.clone()).collect();
    shared_reads(p, roots, &views, nodes, false, &mut reads);
    loop {
        let before = uniform.len();
        let names = p.names(&uniform, &locals, &ctx);
        let mut keep: HashSet<String> = HashSet::new();
        for l in &p.locals {
            let names = Names { shared: reads.values.get(&l.name).and_then(Option::as_ref), ..names };
            let ok = names.uniform(&l.init)
                && (!p.assigned_inside.contains(&l.name) || l.shared_view())
                && (l.mutable || !p.assigned_top.iter().any(|(n, _)| n == &l.name))
                && p.assigned_top.iter().filter(|(n, _)| n == &l.name).all(|(_, v)| names.uniform(v));
            if ok {
                keep.insert(l.name.clone());
            }
        }
        for v in &p.loop_vars {
            if !p.assigned_inside.contains(v) && !p.assigned_top.iter().any(|(n, _)| n == v) {
                keep.insert(v.clone());
            }
        }
        // Uniform statements in the middle of thread code run per thread.
        let mut out = Vec::new();
        misplaced(p, nodes, &keep, &mut out);
        for m in out {
            keep.remove(&m);
        }
        uniform = keep;
        if uniform.len() == before {
            break;
        }
    }
    // Loop heads around barriers must be uniform; one the block computes right after a
    // barrier may load shared memory (`shared_reads`).
    let names = p.names(&uniform, &locals, &ctx);
    let head_uniform = |h: &Expr| {
        let shared = reads.at_barrier(h).then_some(&all_views);
        Names { shared, ..names }.uniform(h)
    };
    if !p.heads.iter().all(head_uniform) {
        return Err("a loop around a barrier whose condition is not proved block-uniform".into());
    }
    // (Heads that are uniform only by such loads.)
    let heads_load_shared = p.heads.iter().any(|h| reads.at_barrier(h) && !names.uniform(h));
    if p.locals.iter().any(|l| l.name.starts_with("__emu_vote") && !uniform.contains(&l.name)) {
        return Err("a `sync_threads_or`, `_and` or `_count` whose count is not taken once per block".into());
    }
    let loads_shared = uniform.iter().any(|n| reads.values.get(n).is_some_and(Option::is_some)) || heads_load_shared;
    Ok(Uniformity { names: uniform, loads_shared })
}

/// What [`shared_reads`] finds: for each local bound or assigned at statement level,
/// the shared views its values may load as uniform ones (`None`: none); and for each loop or
/// `if` head around barriers (by its text), whether the block computes it where thread code
/// has stored no shared memory since the last barrier (`false` wins between two heads of one
/// text).
#[derive(Default)]
struct SharedReads {
    values: HashMap<String, Option<HashSet<String>>>,
    heads: HashMap<String, bool>,
}

impl SharedReads {
    fn head(&mut self, e: &Expr, after_barrier: bool) {
        let entry = self.heads.entry(quote!(#e).to_string()).or_insert(true);
        *entry &= after_barrier;
    }

    fn at_barrier(&self, e: &Expr) -> bool {
        self.heads.get(&quote!(#e).to_string()).copied().unwrap_or(false)
    }
}

/// For each local bound or assigned at statement level, the shared views (of `views`,
/// with their roots) whose loads at uniform indices its values may read as uniform ones:
/// those whose memory no thread code writes in any run that binds or assigns it with a
/// value naming a shared view, each run directly after a barrier (`None`: such a run
/// elsewhere, or one whose writes are unknown).
/// There, each thread would load what every other thread loads, before any writes it in
/// that barrier interval (a write by one thread there and a load by another would race),
/// so the block's one load, where `place` puts the statement, is each thread's: a flag a
/// loop ends on (`if flag[0] == 0 { break; }` after a barrier). `after_barrier`: whether
/// the thread code that ran last before `nodes`, if any, ended at a barrier (a run that
/// touches no shared memory, such as a step of a local counter, keeps it so); returns the
/// same after them.
fn shared_reads(
    p: &Program,
    roots: &Roots,
    views: &[(String, String)],
    nodes: &[Node],
    after_barrier: bool,
    out: &mut SharedReads,
) -> bool {
    let mut after_barrier = after_barrier;
    for n in nodes {
        after_barrier = match n {
            Node::Run(stmts, _) => {
                let fp = p.footprint(roots, stmts);
                let safe: Option<HashSet<String>> = after_barrier
                    .then(|| views.iter().filter(|(_, r)| !fp.may_write(r)).map(|(v, _)| v.clone()).collect());
                for s in stmts {
                    let Some(name) = stmt_target(s) else { continue };
                    // A value that names no shared view asks nothing of its run.
                    let named = idents_of(s);
                    if !views.iter().any(|(v, _)| named.contains(v)) {
                        continue;
                    }
                    let merged = match (out.values.remove(&name), &safe) {
                        (None, s) => s.clone(),
                        (Some(Some(a)), Some(b)) => Some(a.intersection(b).cloned().collect()),
                        _ => None,
                    };
                    out.values.insert(name, merged);
                }
                fp.writes_nothing() && after_barrier
            }
            Node::Barrier(..) => true,
            Node::While { cond: head, body, .. } | Node::For { expr: head, body, .. } => {
                // A pass starts after what ran before the loop or after the body's end
                // (the pass before); the loop ends there too, or skips its body. A `for`
                // loop's range is taken once, before it.
                let end = shared_reads(p, roots, views, body, false, &mut SharedReads::default());
                let start = after_barrier && end;
                let at = if matches!(n, Node::For { .. }) { after_barrier } else { start };
                out.head(head, at);
                shared_reads(p, roots, views, body, start, out);
                start
            }
            Node::If { cond, then, otherwise, warp, .. } => {
                if !warp {
                    out.head(cond, after_barrier);
                }
                let a = shared_reads(p, roots, views, then, after_barrier, out);
                let b = shared_reads(p, roots, views, otherwise, after_barrier, out);
                a && b
            }
        };
    }
    after_barrier
}

/// The uniform names assigned by a statement that has thread code on both sides in its run
/// and can move to neither end of it (`place`).
fn misplaced(p: &Program, nodes: &[Node], uniform: &HashSet<String>, out: &mut Vec<String>) {
    for n in nodes {
        match n {
            Node::Run(stmts, _) => {
                let is_u: Vec<Option<String>> = stmts.iter().map(|s| p.uniform_stmt(s, uniform)).collect();
                let first_t = is_u.iter().position(Option::is_none);
                let last_t = is_u.iter().rposition(Option::is_none);
                if let (Some(f), Some(l)) = (first_t, last_t) {
                    let places = places(stmts, &is_u, f, l);
                    for k in f..=l {
                        if let (Some(u), None) = (&is_u[k], places[k]) {
                            out.push(u.clone());
                        }
                    }
                }
            }
            Node::Barrier(..) => {}
            Node::While { body, .. } | Node::For { body, .. } => misplaced(p, body, uniform, out),
            Node::If { then, otherwise, .. } => {
                misplaced(p, then, uniform, out);
                misplaced(p, otherwise, uniform, out);
            }
        }
    }
}

#[cfg(test)]
mod pass_tests {
    use quote::quote;

    use crate::fission::tests::decode_body;

    #[test]
    fn the_fixpoint_keeps_what_every_thread_computes_alike() {
        let d = decode_body(quote! {
            let s = shared_array![f32; 256];
            let tid = thread_idx().x as usize;
            let half = block_dim().x / 2;
            let mut step = half;
            let mut t = tid as u32;
            s[tid] = inp[tid];
            sync_threads();
            while step > 0 {
                if (tid as u32) < step {
                    s[tid] += s[tid + step as usize];
                }
                t += 1;
                sync_threads();
                step >>= 1;
            }
            out[tid] = (s[0] + t as f32) as i32;
        })
        .expect("decoded");
        let u = &d.program.uniformity;
        assert!(u.names.contains("half") && u.names.contains("step"), "{:?}", u.names);
        // `t` starts from the thread's index; `tid` is the thread's own.
        assert!(!u.names.contains("t") && !u.names.contains("tid"), "{:?}", u.names);
        assert!(!u.loads_shared);
    }

    #[test]
    fn a_loop_head_that_varies_by_thread_is_refused() {
        let why = decode_body(quote! {
            let mut i = thread_idx().x;
            while i < n {
                sync_threads();
                i += 1;
            }
            out[0] = i as i32;
        })
        .err()
        .expect("refused");
        assert_eq!(why, "a loop around a barrier whose condition is not proved block-uniform");
    }

    #[test]
    fn a_flag_the_block_loads_right_after_a_barrier_is_uniform() {
        // The loop ends on a shared flag read right after a barrier, before any thread can
        // store to it again: the block loads it once.
        let d = decode_body(quote! {
            let flag = shared_array![i32; 1];
            let t = thread_idx().x as usize;
            if t == 0 {
                flag[0] = 1;
            }
            sync_threads();
            let mut more = flag[0];
            while more != 0 {
                sync_threads();
                if t == 0 {
                    flag[0] = 0;
                }
                sync_threads();
                more = flag[0];
            }
            out[t] = more;
        })
        .expect("decoded");
        assert!(d.program.uniformity.names.contains("more"), "{:?}", d.program.uniformity.names);
        assert!(d.program.uniformity.loads_shared);
    }
}
