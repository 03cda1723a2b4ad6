//! A kernel body as fission reads it: a sequence of nodes (`Node`), runs of ordinary
//! statements between barriers, the barriers themselves, and the `while`, `for` and `if`
//! statements whose bodies hold barriers, each with its own nodes. `nodes` decodes a
//! normalised body into them once (`decode` in `mod.rs`); the analyses and the emitter read
//! the nodes, never the statements' shape again. The module's docs in `mod.rs` ("Structured")
//! say which bodies decode.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt};

use super::uniform::idents_of;
use super::{split_tuple_lets, waits_in_expr, warp_bound, warp_shuffle, warp_sync_stmt, WARP_SYNCS};

/// A piece of a kernel body, as fission sees it.
pub(super) enum Node {
    /// Statements without barriers.
    Run(Vec<Stmt>, usize),
    /// `sync_threads();`, or (`true`) the hand-over point of a lowered warp shuffle
    /// (`warp_shuffle`): a region boundary that is no barrier.
    Barrier(Span, bool),
    /// `while cond { nodes }` with barriers in the body.
    While { cond: Expr, body: Vec<Node>, span: Span },
    /// `for pat in range { nodes }` with barriers in the body.
    For { pat: Pat, expr: Expr, body: Vec<Node>, span: Span },
    /// `if cond { nodes } else { nodes }` with barriers in a branch; or (`warp`) `if tid < B
    /// { nodes }` with `B` a literal multiple of 32 and only lowered warp shuffles in the
    /// body, whose regions run over the threads below `B`: whole warps.
    If { cond: Expr, then: Vec<Node>, otherwise: Vec<Node>, span: Span, warp: bool },
}

pub(super) fn contains_barrier_node(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| !matches!(n, Node::Run(..)))
}

pub(super) const BARRIERS: [&str; 4] = ["sync_threads", "sync_threads_count", "sync_threads_and", "sync_threads_or"];
pub(super) const WARP: [&str; 15] = [
    "active_mask",
    "reduce_add_sync",
    "reduce_min_sync",
    "reduce_max_sync",
    "reduce_and_sync",
    "reduce_or_sync",
    "reduce_xor_sync",
    "sync_warp",
    "all_sync",
    "any_sync",
    "ballot_sync",
    "shfl_sync",
    "shfl_up_sync",
    "shfl_down_sync",
    "shfl_xor_sync",
];

/// Whether `s` is `sync_threads();` (or `sync_threads()` last in its block).
pub(super) fn barrier_stmt(s: &Stmt) -> Option<Span> {
    let Stmt::Expr(Expr::Call(c), _) = s else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?;
    (p.qself.is_none() && last.ident == "sync_threads" && last.arguments.is_none() && c.args.is_empty())
        .then(|| c.span())
}

/// Whether a barrier or warp collective is named anywhere in `node` (paths and macro tokens).
#[derive(Default)]
pub(super) struct Waits {
    pub(super) barrier: bool,
    pub(super) warp: bool,
}

impl<'ast> Visit<'ast> for Waits {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(s) = p.segments.last() {
            self.barrier |= BARRIERS.iter().any(|b| s.ident == b);
            self.warp |= WARP.iter().any(|b| s.ident == b);
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let ids = idents_of(&Expr::Macro(syn::ExprMacro { attrs: vec![], mac: m.clone() }));
        self.barrier |= BARRIERS.iter().any(|b| ids.contains(*b));
        self.warp |= WARP.iter().any(|b| ids.contains(*b));
        syn::visit::visit_macro(self, m);
    }
}

pub(super) fn waits_in_stmt(s: &Stmt) -> Waits {
    let mut w = Waits::default();
    w.visit_stmt(s);
    w
}

/// The nodes of a statement list.
pub(super) fn nodes(stmts: &[Stmt]) -> Result<Vec<Node>, String> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    let mut runs = 0usize;
    let flush = |run: &mut Vec<Stmt>, out: &mut Vec<Node>| {
        if !run.is_empty() {
            out.push(Node::Run(std::mem::take(run), 0));
        }
    };
    for s in &split_tuple_lets(stmts) {
        if let Some(span) = barrier_stmt(s) {
            flush(&mut run, &mut out);
            out.push(Node::Barrier(span, false));
            continue;
        }
        if let Some(span) = warp_sync_stmt(s) {
            // `sync_warp(FULL_MASK)`: a hand-over point with nothing handed over.
            WARP_SYNCS.with(|k| k.set(k.get() + 1));
            flush(&mut run, &mut out);
            out.push(Node::Barrier(span, true));
            continue;
        }
        if let Some((put, take, span)) = warp_shuffle(s) {
            run.push(put);
            flush(&mut run, &mut out);
            out.push(Node::Barrier(span, true));
            run.push(take);
            continue;
        }
        let w = waits_in_stmt(s);
        let structured = matches!(s, Stmt::Expr(Expr::While(_) | Expr::ForLoop(_) | Expr::If(_), _));
        if w.warp && !structured {
            return Err("it calls a warp collective other than a full-mask shuffle or vote at statement level".into());
        }
        if !w.barrier && !w.warp {
            run.push(s.clone());
            continue;
        }
        flush(&mut run, &mut out);
        match s {
            Stmt::Expr(Expr::While(wl), _) if wl.label.is_none() && wl.attrs.is_empty() => {
                if waits_in_expr(&wl.cond) {
                    return Err("a barrier in a loop condition".into());
                }
                out.push(Node::While {
                    cond: (*wl.cond).clone(),
                    body: nodes(&wl.body.stmts)?,
                    span: wl.while_token.span,
                });
            }
            Stmt::Expr(Expr::ForLoop(f), _) if f.label.is_none() && f.attrs.is_empty() => {
                if waits_in_expr(&f.expr) {
                    return Err("a barrier in a loop's range".into());
                }
                out.push(Node::For {
                    pat: (*f.pat).clone(),
                    expr: (*f.expr).clone(),
                    body: nodes(&f.body.stmts)?,
                    span: f.for_token.span,
                });
            }
            Stmt::Expr(Expr::If(i), _) if i.attrs.is_empty() && !matches!(&*i.cond, Expr::Let(_)) => {
                if waits_in_expr(&i.cond) {
                    return Err("a barrier in a condition".into());
                }
                let otherwise = match &i.else_branch {
                    None => Vec::new(),
                    Some((_, e)) => match &**e {
                        Expr::Block(b) if b.label.is_none() => nodes(&b.block.stmts)?,
                        // `else if`: a nested `if` statement.
                        e @ Expr::If(_) => nodes(&[Stmt::Expr(e.clone(), None)])?,
                        _ => return Err("an `else` fission cannot read".into()),
                    },
                };
                let warp = !w.barrier && otherwise.is_empty() && warp_bound(&i.cond).is_some();
                out.push(Node::If {
                    cond: (*i.cond).clone(),
                    then: nodes(&i.then_branch.stmts)?,
                    otherwise,
                    span: i.if_token.span,
                    warp,
                });
            }
            Stmt::Expr(Expr::Loop(_), _) => {
                return Err("a `loop` with barriers that no `if c { break; }` of its body ends".into())
            }
            _ => {
                return Err(
                    "a barrier in an expression, a closure or a macro, or a barrier form other than `sync_threads()`"
                        .into(),
                )
            }
        }
    }
    flush(&mut run, &mut out);
    // Number the runs, in program order.
    fn number(nodes: &mut [Node], next: &mut usize) {
        for n in nodes {
            match n {
                Node::Run(_, k) => {
                    *k = *next;
                    *next += 1;
                }
                Node::While { body, .. } | Node::For { body, .. } => number(body, next),
                Node::If { then, otherwise, .. } => {
                    number(then, next);
                    number(otherwise, next);
                }
                Node::Barrier(..) => {}
            }
        }
    }
    number(&mut out, &mut runs);
    Ok(out)
}
