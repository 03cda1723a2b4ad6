//! The memory a stretch of thread code touches, by the views it reaches: what decides whether
//! two stretches of thread code with no barrier between may run as two region loops.
//!
//! On the general path each thread runs both stretches before the next thread starts; as two
//! region loops, every thread runs the first before any runs the second. A thread's own order
//! is the same either way, so the two schedules can only be told apart through memory one
//! stretch writes and the other reads or writes. A [`Footprint`] names that memory by its
//! *root*: a buffer parameter (a `&mut [T]` aliases no other parameter), a shared array
//! (`shared_array!`, one allocation each), the block's dynamic shared memory (every
//! `dynamic_shared()` view), and a view's `cast::<U>()` has its source's root. Code that
//! reaches memory any other way (a call, a view not known, an atomic, a loop that may spin) has
//! an unknown footprint, which conflicts with any other that is not empty.
//!
//! SHOC's bottom scan stores the next seed (`s_seed`) at the end of its loop body and clears
//! its scan array (`s_data`) at the start: disjoint roots, so the loop's edge may split there.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use syn::{Expr, Pat, Stmt};

use crate::abi::{Access, Rt};

use super::{is_assign, path_name, private_place, pure_expr, range_like, read_only_load};

/// The roots a stretch of thread code reads and writes, or `unknown`.
#[derive(Clone, Debug, Default)]
pub(super) struct Footprint {
    unknown: bool,
    reads: HashSet<String>,
    writes: HashSet<String>,
}

impl Footprint {
    /// Whether the code may write memory of root `root`.
    pub(super) fn may_write(&self, root: &str) -> bool {
        self.unknown || self.writes.contains(root)
    }

    /// Whether the code stores nothing other threads see.
    pub(super) fn writes_nothing(&self) -> bool {
        !self.unknown && self.writes.is_empty()
    }

    /// Whether the code touches no memory other threads see.
    pub(super) fn is_empty(&self) -> bool {
        !self.unknown && self.reads.is_empty() && self.writes.is_empty()
    }

    /// Whether running the two stretches in either order between threads can be told apart.
    pub(super) fn conflicts(&self, other: &Footprint) -> bool {
        if self.is_empty() || other.is_empty() {
            return false;
        }
        if self.unknown || other.unknown {
            return true;
        }
        let touches =
            |w: &HashSet<String>, o: &Footprint| w.iter().any(|r| o.reads.contains(r) || o.writes.contains(r));
        touches(&self.writes, other) || touches(&other.writes, self)
    }

    /// Both stretches' memory.
    pub(super) fn join(&mut self, other: &Footprint) {
        self.unknown |= other.unknown;
        self.reads.extend(other.reads.iter().cloned());
        self.writes.extend(other.writes.iter().cloned());
    }
}

/// The roots of the views in scope: view name → root, for the statement-level names and,
/// as the code is read, for the names a statement binds inside (the rewrite's
/// `let __emu_view = out;` of `out[i] += x`).
pub(super) struct Roots(HashMap<String, String>, RefCell<HashMap<String, String>>);

impl Roots {
    /// The roots of the buffer parameters `buffers` and of the locals `locals` (name,
    /// initialiser, whether it is ever assigned again), in program order: a shared array, the
    /// dynamic shared memory, or a `cast` of a view with a root.
    pub(super) fn of<'a>(buffers: &HashSet<String>, locals: impl Iterator<Item = (&'a str, &'a Expr, bool)>) -> Self {
        let mut m: HashMap<String, String> = buffers.iter().map(|b| (b.clone(), b.clone())).collect();
        for (name, init, reassigned) in locals {
            m.remove(name);
            if reassigned {
                continue;
            }
            let root = match init {
                e if super::uniform::is_shared_decl(e) => Some(name.to_string()),
                e if super::dynamic_shared_call(e) => Some("<dynamic shared memory>".to_string()),
                Expr::MethodCall(mc) if mc.method == "cast" && mc.args.is_empty() => {
                    path_name(&mc.receiver).and_then(|r| m.get(&r).cloned())
                }
                _ => None,
            };
            if let Some(r) = root {
                m.insert(name.to_string(), r);
            }
        }
        Roots(m, RefCell::default())
    }

    /// The views of shared memory (those whose root is not one of `buffers`) with their
    /// roots.
    pub(super) fn shared_views(&self, buffers: &HashSet<String>) -> Vec<(String, String)> {
        self.0.iter().filter(|(_, r)| !buffers.contains(*r)).map(|(v, r)| (v.clone(), r.clone())).collect()
    }

    /// The footprint of thread statements `stmts`.
    pub(super) fn stmts<'s>(&self, stmts: impl Iterator<Item = &'s Stmt>) -> Footprint {
        let mut fp = Footprint::default();
        for s in stmts {
            self.stmt(s, &mut fp);
        }
        fp
    }

    fn stmt(&self, s: &Stmt, fp: &mut Footprint) {
        match s {
            Stmt::Local(l) if matches!(&l.pat, Pat::Ident(_) | Pat::Type(_)) => {
                match &l.init {
                    Some(i) if i.diverge.is_none() => self.expr(&i.expr, fp),
                    Some(_) => fp.unknown = true,
                    None => {}
                }
                // A name bound to a view with a root shares it; any other binding hides the
                // name's root.
                if let Some(name) = super::local_name(&l.pat) {
                    let root = l.init.as_ref().and_then(|i| self.root(&path_name(&i.expr)?));
                    let mut inner = self.1.borrow_mut();
                    match root {
                        Some(r) => inner.insert(name, r),
                        None => inner.remove(&name),
                    };
                }
            }
            Stmt::Expr(e, _) => self.effect(e, fp),
            _ => fp.unknown = true,
        }
    }

    fn effect(&self, e: &Expr, fp: &mut Footprint) {
        match e {
            Expr::Assign(a) if private_place(&a.left) => {
                self.place(&a.left, fp);
                self.expr(&a.right, fp);
            }
            Expr::Binary(b) if is_assign(&b.op) && private_place(&b.left) => {
                self.place(&b.left, fp);
                self.expr(&b.right, fp);
            }
            Expr::ForLoop(f) if f.label.is_none() && range_like(&f.expr) => {
                self.expr(&f.expr, fp);
                self.scoped(|| f.body.stmts.iter().for_each(|s| self.stmt(s, fp)));
            }
            Expr::If(i) => {
                self.expr(&i.cond, fp);
                self.scoped(|| i.then_branch.stmts.iter().for_each(|s| self.stmt(s, fp)));
                if let Some((_, e)) = &i.else_branch {
                    self.effect(e, fp);
                }
            }
            Expr::Block(b) if b.label.is_none() => self.scoped(|| b.block.stmts.iter().for_each(|s| self.stmt(s, fp))),
            e => self.expr(e, fp),
        }
    }

    /// The index expressions of a private place (`acc[k]`, `v.x`).
    fn place(&self, e: &Expr, fp: &mut Footprint) {
        match e {
            Expr::Field(f) => self.place(&f.base, fp),
            Expr::Index(i) => {
                self.place(&i.expr, fp);
                self.expr(&i.index, fp);
            }
            Expr::Paren(p) => self.place(&p.expr, fp),
            _ => {}
        }
    }

    /// The root of view `name`.
    fn root(&self, name: &str) -> Option<String> {
        self.1.borrow().get(name).or_else(|| self.0.get(name)).cloned()
    }

    /// The root of `&v` (`&mut v`), when `v` is a view with a root.
    fn root_of(&self, e: &Expr) -> Option<String> {
        let Expr::Reference(r) = e else { return None };
        self.root(&path_name(&r.expr)?)
    }

    fn expr(&self, e: &Expr, fp: &mut Footprint) {
        match e {
            // A thread's vote at a voting barrier (`normalise.rs`): it adds to the block's
            // count, which no thread reads before the barrier, in any order.
            Expr::Call(c) if Rt::of(c) == Some(Rt::VotePut) => self.expr(&c.args[1], fp),
            // `load(checked, &v, i)` and `store(checked, &v, i, x)` (`rewrite.rs`).
            Expr::Call(c) if Access::of(c).is_some() => {
                match self.root_of(&c.args[1]) {
                    // A read-only buffer parameter: no thread of the launch writes it.
                    _ if read_only_load(e).is_some() => {}
                    Some(r) if c.args.len() == 3 => {
                        fp.reads.insert(r);
                    }
                    Some(r) => {
                        fp.writes.insert(r);
                    }
                    None => fp.unknown = true,
                }
                c.args.iter().skip(2).for_each(|a| self.expr(a, fp));
            }
            Expr::Index(i) => {
                self.expr(&i.expr, fp);
                self.expr(&i.index, fp);
            }
            Expr::Range(r) => {
                r.start.iter().chain(r.end.iter()).for_each(|e| self.expr(e, fp));
            }
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "step_by" | "rev") => {
                self.expr(&m.receiver, fp);
                m.args.iter().for_each(|a| self.expr(a, fp));
            }
            Expr::Binary(b) if !is_assign(&b.op) => {
                self.expr(&b.left, fp);
                self.expr(&b.right, fp);
            }
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => self.expr(&u.expr, fp),
            Expr::Cast(c) => self.expr(&c.expr, fp),
            Expr::Paren(p) => self.expr(&p.expr, fp),
            Expr::Field(f) => self.expr(&f.base, fp),
            Expr::If(i) => {
                self.expr(&i.cond, fp);
                self.block_value(&i.then_branch, fp);
                match &i.else_branch {
                    Some((_, e)) => self.expr(e, fp),
                    None => fp.unknown = true,
                }
            }
            Expr::Block(b) if b.label.is_none() => self.block_value(&b.block, fp),
            e if pure_expr(e) => {}
            _ => fp.unknown = true,
        }
    }

    fn block_value(&self, b: &syn::Block, fp: &mut Footprint) {
        self.scoped(|| {
            for s in &b.stmts {
                match s {
                    Stmt::Expr(e, None) => self.expr(e, fp),
                    s => self.stmt(s, fp),
                }
            }
        });
    }

    /// Runs `f` over a block's statements: the names they bind are gone after it.
    fn scoped(&self, f: impl FnOnce()) {
        let outer = self.1.borrow().clone();
        f();
        *self.1.borrow_mut() = outer;
    }
}
