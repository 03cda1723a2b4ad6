//! Progress points: a counter at the head of every loop body of a host form that may spin, so
//! that a thread that spins makes room for the others and the watchdog can stop it
//! (emu-runtime's `host/sched/progress.rs` has the algorithm).
//!
//! `while c { body }` becomes
//! `{ let mut n = 0u32; while c { if progress_due(&mut n) { progress_point(); } body } }`, and
//! the same for `loop` and `for`; in the body of a state-machine kernel the slow path is
//! `progress_await().await`.
//!
//! Every `while` and `loop` gets one, and every `for` whose trip count is not bounded by a
//! *block-uniform or literal range*: `for _ in 0u64..` spins as well as a `loop` does (it
//! finishes on a GPU when another thread sets what it waits for), and so may a `for` over an
//! iterator or over a range a thread computes (`start[t]..end[t]`). Left alone are `for` loops
//! over `a..b` / `a..=b` (also with `.step_by(k)`, `.rev()`, `.skip(k)`, or any range with
//! `.take(k)`) whose bounds are [`Bounded`]: literals, constants, the kernel's immutable
//! scalar parameters, `block_dim()`, `grid_dim()`, `block_idx()`, the length of a view, pure
//! arithmetic of those, and immutable locals (and loop variables) bound to them. Such a loop
//! ends on its own, and the general path's hot loops (a tile's `for k in 0..TILE`) stay free of
//! the counter. Nested items are left alone, and so are loops whose body awaits a barrier or
//! warp collective: each iteration returns to the scheduler there, which watches such loops
//! itself (passing barriers with nothing written is not progress, `host/sched/progress.rs`).
//! The point is spanned like the loop, so a timeout report names the loop's line.

use proc_macro2::Span;
use quote::quote_spanned;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use syn::{Block, Expr, Ident};

/// Puts a progress point in every `while` and `loop` of `block`, and in every `for` whose
/// trip count is not bounded by a block-uniform or literal range; with `awaits`, those outside
/// closures and nested `async` blocks await theirs. `scalars` are the function's immutable
/// scalar parameters (block-uniform in a kernel; in a helper, whatever its caller passed, which
/// bounds its loops as well).
pub(crate) fn instrument_loops(block: &mut Block, awaits: bool, scalars: &[String]) {
    let bounded = Bounded::of(block, scalars);
    Loops { awaits, closure_depth: 0, bounded }.visit_block_mut(block);
}

struct Loops {
    awaits: bool,
    closure_depth: usize,
    bounded: Bounded,
}

impl Loops {
    fn point(&self, span: Span, counter: &Ident) -> syn::Stmt {
        let rt = quote_spanned!(span=> ::deviceemu::__private);
        if self.awaits && self.closure_depth == 0 {
            syn::parse_quote_spanned!(span=> if #rt::progress_due(&mut #counter) { #rt::progress_await().await; })
        } else {
            syn::parse_quote_spanned!(span=> if #rt::progress_due(&mut #counter) { #rt::progress_point(); })
        }
    }
}

impl VisitMut for Loops {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) | Expr::Async(_) => {
                self.closure_depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.closure_depth -= 1;
            }
            Expr::ForLoop(f) if self.bounded.range(&f.expr) => visit_mut::visit_expr_mut(self, e),
            Expr::While(_) | Expr::Loop(_) | Expr::ForLoop(_) => {
                // Looked at before the nested loops get their own (awaited) points.
                let body = match e {
                    Expr::While(w) => &w.body,
                    Expr::Loop(l) => &l.body,
                    Expr::ForLoop(f) => &f.body,
                    _ => unreachable!(),
                };
                let awaits_a_barrier = self.awaits && self.closure_depth == 0 && awaits_in(body);
                visit_mut::visit_expr_mut(self, e);
                if awaits_a_barrier {
                    return;
                }
                let span = e.span();
                let counter = Ident::new("__emu_spins", Span::mixed_site());
                let point = self.point(span, &counter);
                match e {
                    Expr::While(w) => w.body.stmts.insert(0, point),
                    Expr::Loop(l) => l.body.stmts.insert(0, point),
                    Expr::ForLoop(f) => f.body.stmts.insert(0, point),
                    _ => unreachable!(),
                }
                let inner = e.clone();
                *e = syn::parse_quote_spanned!(span=> {
                    #[allow(unused_mut)]
                    let mut #counter: u32 = 0;
                    #inner
                });
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `body` awaits (a barrier or collective the host body made an `.await`) outside
/// closures and nested `async` blocks.
fn awaits_in(body: &Block) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Await(_) => self.0 = true,
                Expr::Closure(_) | Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_block(&mut f, body);
    f.0
}

/// Which names hold a block-uniform value (or, in a helper, one its caller fixed): the
/// function's immutable scalar parameters, and the locals every binding of which is an
/// immutable `let` of a bounded value or the variable of a `for` over a bounded range (a
/// fixpoint over the function's body). A name bound any other way (a pattern, a closure
/// parameter, `let mut`) is not.
pub(crate) struct Bounded {
    names: HashSet<String>,
}

impl Bounded {
    pub(crate) fn of(block: &Block, scalars: &[String]) -> Bounded {
        let mut found = Bindings::default();
        syn::visit::Visit::visit_block(&mut found, block);
        let mut b = Bounded { names: scalars.iter().filter(|s| !found.other.contains(*s)).cloned().collect() };
        // Shadowing a parameter makes it a local like any other.
        b.names.retain(|n| !found.inits.contains_key(n));
        loop {
            let add: Vec<String> = found
                .inits
                .iter()
                .filter(|(n, inits)| {
                    !b.names.contains(*n) && !found.other.contains(*n) && inits.iter().all(|i| i.holds(&b))
                })
                .map(|(n, _)| n.clone())
                .collect();
            if add.is_empty() {
                return b;
            }
            b.names.extend(add);
        }
    }

    /// Whether a `for` over `e` runs a bounded number of times: a range with both bounds
    /// bounded, through `step_by`, `rev`, `skip`, or any range with a bounded `take`.
    pub(crate) fn range(&self, e: &Expr) -> bool {
        match e {
            Expr::Range(r) => {
                r.start.as_deref().is_none_or(|s| self.value(s)) && r.end.as_deref().is_some_and(|s| self.value(s))
            }
            Expr::Paren(p) => self.range(&p.expr),
            Expr::Group(g) => self.range(&g.expr),
            Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "step_by" | "skip" => self.range(&m.receiver) && m.args.iter().all(|a| self.value(a)),
                "rev" => self.range(&m.receiver),
                "take" => matches!(peel(&m.receiver), Expr::Range(_)) && m.args.iter().all(|a| self.value(a)),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `e` is a bounded value.
    fn value(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => true,
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => {
                    let s = id.to_string();
                    self.names.contains(&s) || constant(&s)
                }
                // `u32::MAX`, `Self::N`.
                None => p.path.segments.last().is_some_and(|s| constant(&s.ident.to_string())),
            },
            // `__emu_ctx.block_dim.x` (a kernel's host form) and `block_dim().x`; never
            // `thread_idx`.
            Expr::Field(f) => match &*f.base {
                Expr::Path(p) if p.path.get_ident().is_some_and(|i| i == "__emu_ctx") => {
                    matches!(&f.member, syn::Member::Named(m) if m != "thread_idx")
                }
                base => self.value(base),
            },
            Expr::Call(c) if c.args.is_empty() => matches!(
                &*c.func,
                Expr::Path(p) if p.path.segments.last().is_some_and(|s| ["block_dim", "grid_dim", "block_idx", "warp_size"].iter().any(|n| s.ident == n))
            ),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                (name == "len" && matches!(peel(&m.receiver), Expr::Path(_)))
                    || (PURE.contains(&name.as_str())
                        && self.value(&m.receiver)
                        && m.args.iter().all(|a| self.value(a)))
            }
            Expr::Binary(b) => !assigns(&b.op) && self.value(&b.left) && self.value(&b.right),
            Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && self.value(&u.expr),
            Expr::Cast(c) => self.value(&c.expr),
            Expr::Paren(p) => self.value(&p.expr),
            Expr::Group(g) => self.value(&g.expr),
            _ => false,
        }
    }
}

/// Integer methods without side effects.
const PURE: [&str; 14] = [
    "min",
    "max",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "saturating_add",
    "saturating_sub",
    "div_ceil",
    "next_power_of_two",
    "pow",
    "clamp",
    "ilog2",
    "rem_euclid",
    "div_euclid",
];

/// A constant's name, by the naming convention (`TILE`, `N2`).
fn constant(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase()) && !s.chars().any(|c| c.is_lowercase())
}

fn assigns(op: &syn::BinOp) -> bool {
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

fn peel(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => peel(&p.expr),
        Expr::Group(g) => peel(&g.expr),
        e => e,
    }
}

/// What a binding of a name gives it.
enum Init {
    /// `let n = value;` (immutable).
    Let(Expr),
    /// `for n in range`.
    For(Expr),
}

impl Init {
    fn holds(&self, b: &Bounded) -> bool {
        match self {
            Init::Let(e) => b.value(e),
            Init::For(e) => b.range(e),
        }
    }
}

/// Every binding of a name in a function body (nested items left out): the immutable `let`s
/// and `for` variables, and the names bound any other way.
#[derive(Default)]
struct Bindings {
    inits: HashMap<String, Vec<Init>>,
    other: HashSet<String>,
}

impl<'a> syn::visit::Visit<'a> for Bindings {
    fn visit_local(&mut self, l: &'a syn::Local) {
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        match (pat, &l.init) {
            (syn::Pat::Ident(i), Some(init))
                if i.mutability.is_none() && i.by_ref.is_none() && i.subpat.is_none() && init.diverge.is_none() =>
            {
                self.inits.entry(i.ident.to_string()).or_default().push(Init::Let((*init.expr).clone()));
                self.visit_expr(&init.expr);
            }
            _ => syn::visit::visit_local(self, l),
        }
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        match &*f.pat {
            syn::Pat::Ident(i) if i.mutability.is_none() && i.by_ref.is_none() && i.subpat.is_none() => {
                self.inits.entry(i.ident.to_string()).or_default().push(Init::For((*f.expr).clone()));
            }
            p => self.visit_pat(p),
        }
        self.visit_expr(&f.expr);
        self.visit_block(&f.body);
    }
    fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
        self.other.insert(i.ident.to_string());
        syn::visit::visit_pat_ident(self, i);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    /// The `for` loops of `body` (in order) that get a progress point.
    fn instrumented(body: &str, scalars: &[&str]) -> Vec<bool> {
        let mut b: syn::Block = syn::parse_str(body).unwrap();
        let scalars: Vec<String> = scalars.iter().map(|s| s.to_string()).collect();
        super::instrument_loops(&mut b, false, &scalars);
        // A loop with a point is wrapped in a block that declares its counter.
        let text = b.to_token_stream().to_string();
        let mut v = Vec::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("for ") {
            let before = &rest[..i];
            v.push(before.trim_end().ends_with("u32 = 0 ;"));
            rest = &rest[i + 4..];
        }
        v
    }

    #[test]
    fn for_loops_bounded_by_uniform_ranges_get_no_point() {
        let body = r#"{
            let tiles = n / TILE;
            let half = block_dim().x / 2;
            for t in 0..tiles { for k in 0..TILE { for j in (0..t).rev() { } } }
            for s in (1..=half).step_by(2) { }
            for i in 0..x.len() { }
            for i in (0u64..).take(n as usize) { }
            for i in 0..__emu_ctx.block_dim.x.min(n) { }
        }"#;
        assert_eq!(instrumented(body, &["n"]), vec![false; 7]);
    }

    #[test]
    fn open_ended_and_per_thread_for_loops_get_a_point() {
        let body = r#"{
            let t = __emu_ctx.thread_idx.x;
            let mut m = 4;
            let n = 8;
            let n = t;
            for _ in 0u64.. { }
            for i in 0..t { }
            for i in 0..m { }
            for i in 0..n { }
            for x in v.iter() { }
            for i in start[0]..end[0] { }
            for i in (0..).step_by(2) { }
            for i in 0..k { }
        }"#;
        // `k` is a mutable parameter (not passed as a scalar).
        assert_eq!(instrumented(body, &[]), vec![true; 8]);
    }
}
