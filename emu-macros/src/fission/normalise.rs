//! Normalisation: the pass that runs before region formation (`fission::lower`) and turns the
//! surface forms ported CUDA code takes into the small core fission reads. Each rewrite keeps
//! the body's meaning for every thread; a form it cannot rewrite safely is left as written,
//! and fission then declines it with its reason, as before. Only the region form sees the
//! result: the per-thread (general) forms keep the body as written, and `EMU_PATH=verify`
//! compares the two.
//!
//! In order:
//!
//! 1. **Items hoisted** (`hoist_items`): `const`, `static`, `fn`, `use`, `struct`, `enum` and
//!    `type` items of statement lists (at any depth of statement-level blocks) move out of the
//!    body and are emitted first in the region form. An item cannot capture a local, and an
//!    item of a block is visible in the whole block, so moving it out changes nothing, unless
//!    two items share a name or a `let` binds it (a `const` in a pattern): then nothing moves.
//! 2. **Cooperative groups' block handle** (`block_handles`): for an immutable
//!    `let cta = cg::this_thread_block();`, `cta.sync()` is `sync_threads()` (what
//!    `ThreadBlock::sync` calls), and `thread_rank()`, `size()`, `num_threads()`,
//!    `group_index()`, `thread_index()`, `dim_threads()` are the index arithmetic they compute,
//!    read from the thread's context. The `let` goes when no other mention is left; a handle
//!    passed on (`tiled_partition(&cta)`, a helper) keeps it, and the call keeps the general
//!    path.
//!    Before it, **warp-sized tiles** (`tile_handles`): for an immutable
//!    `let t = cg::tiled_partition::<32>(&cta);` of a block handle, whose every later mention
//!    is a method call it knows, at least one of them a collective, `t.sync()` is
//!    `sync_warp(0xffff_ffff)`, `t.shfl(v, s)` / `shfl_down` / `shfl_up` / `shfl_xor` are the
//!    full-mask `*_sync` shuffles, `t.any(p)` / `all` / `ballot` the votes, and `thread_rank()`,
//!    `size()`, `meta_group_rank()`, `meta_group_size()` the lane arithmetic (what
//!    `ThreadBlockTile<32>` computes with a full mask). A kernel with warp collectives runs as
//!    regions only for 1-D blocks of whole warps with warps of 32 (`launch_warp_regions`),
//!    where a tile of 32 is its warp; elsewhere it takes the general path, which keeps the
//!    tile (and its panic for `EMU_WARP_SIZE=1`).
//! 3. **Pattern `let`s** (`split_lets`): `let (a, b): (T, U) = (x, y);` is `let a: T = x;
//!    let b: U = y;` (each element may not read a name an earlier one binds);
//!    `let (a, b) = e;` is `let t = e; let a = t.0; let b = t.1;`; `let (a, b): (T, U);` is
//!    `let a: T; let b: U;`. After the voting barriers (6), `let _ = e;`, which binds
//!    nothing, is `match e { _ => {} }` (`discard_lets`).
//! 4. **`let` without a value** (`initialise_lets`): `let x: T;` followed, with no mention of
//!    `x` between, by the statement `x = e;` in the same list is `let x: T = e;` there, and by
//!    an `if`/`else` each of whose branches ends with `x = e;` (SHOC's bottom scan: a load or a
//!    zero) is `let x: T = if c { ..; e } else { ..; f };`. Where
//!    the first assignment is elsewhere (in a loop, a branch) and `T` is a primitive type, it is
//!    `let mut x: T = 0 as T;` (`false` for `bool`): the compiler's definite-initialisation check on the
//!    body as written guarantees that no thread reads that value.
//!
//! 5. **Plain blocks with barriers** (`flatten_blocks`): a statement `{ .. }` (no label, no
//!    attributes, its value unused) that holds a barrier or warp collective is replaced by its
//!    statements (cuda-samples' bitonic sort scopes its last merge loop so). Its `let`s then
//!    reach past its end: the block is left as written when a statement after it in the same
//!    list names one of them (it would see the block's binding instead of the outer one).
//!    Rebinding a name bound before the block is the shadowing alpha-renaming undoes.
//!
//! 6. **Voting barriers** (`vote_barriers`): a statement `let x = sync_threads_or(p);`,
//!    `x = sync_threads_or(p);` or `sync_threads_or(p);` (and `_and`, `_count`) is
//!    `vote_put(&__emu_vote, p); sync_threads(); let voted = vote_seal(&__emu_vote);` then
//!    `let x = voted.trues > 0;` (`voted.trues == voted.voters` for `_and`, `voted.trues` for
//!    `_count`), with `let __emu_vote = vote_new();` first in the body. Each live thread adds
//!    its predicate before the barrier; the block takes the count after it, once, as a uniform
//!    value (fission refuses the kernel if the vote or its seal would be per thread), so a
//!    loop `while changed { ..; changed = sync_threads_or(c); }` has a uniform head.
//! 7. **Exits of loops with barriers** (`loop_exits`): in the body of a `for`, `while` or
//!    `loop` (no label) that holds a barrier or warp collective, a statement `if c { break; }`
//!    (or `if c { ..; break; }`, the branch's other statements free of exits; an `else { e }`
//!    of statements free of exits goes first in `rest`, and `if c { a } else { ..; break; }` is
//!    read as `if !(c) { ..; break; } else { a }`) is
//!    `broke = c; if broke { .. } else { rest }`, `rest` being the body's statements after it,
//!    with `let mut broke = false;` before the loop, and the loop `while !broke && (cond)`,
//!    `for p in e { if !broke { body } }` or `while !broke { body }`; `if c { continue; }` is
//!    `if !(c) { rest }`. The flag is assigned at statement level, so that it is a uniform
//!    value even where `rest` has no barrier.
//!    The hotspot-style iteration `sync_threads(); if i == n - 1 { break; } .. sync_threads();`
//!    then has only structured `if`s. When `c` is block-uniform every thread leaves at the same
//!    pass, as the `break` did, and the flag is a uniform value, evaluated once per block; when
//!    it is not, fission declines the `if` (a barrier under a thread-varying condition), and
//!    the general path keeps the body as written.
//!
//! 8. **`match`es whose arms wait** (`match_chains`, before 7): a statement `match e { .. }`
//!    with barriers in its arms and patterns that are values (literals, ranges, `|` of those,
//!    `_`, a plain name; guards on all but the last arm) is `let m = e;` and an `if`/`else`
//!    chain over `m`, each guard joined to its arm's test, the last arm the `else`.
//!
//! Alpha-renaming of shadowed names (`unshadow`) follows, in `fission/mod.rs`, then copy
//! propagation (`copies`: a top-level `let a = b;` of two immutable names is dropped and `a`
//! read as `b`, so that CUB's `TempStorage` members are the shared array they name).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Item, Pat, Stmt};

use super::uniform::idents_of;
use super::{local_name, path_name, PRIMITIVES};

/// Normalises a kernel body: returns the hoisted items and the statements.
pub(super) fn normalise(mut stmts: Vec<Stmt>, ctx: &Ident) -> (Vec<Stmt>, Vec<Stmt>) {
    let items = hoist_items(&mut stmts);
    tile_handles(&mut stmts, ctx);
    // A kernel with warp collectives runs as regions in 1-D blocks only (`launch_warp_regions`):
    // there a block handle's `thread_rank()` is the x index.
    let one_d = stmts.iter().any(|s| {
        let ids = idents_of(s);
        super::WARP.iter().any(|w| *w != "active_mask" && ids.contains(*w))
    });
    block_handles(&mut stmts, ctx, one_d);
    each_list(&mut stmts, &mut flatten_blocks);
    let mut fresh = 0usize;
    each_list(&mut stmts, &mut |list| split_lets(list, &mut fresh));
    each_list(&mut stmts, &mut initialise_lets);
    let mut voted = false;
    each_list(&mut stmts, &mut |list| vote_barriers(list, &mut fresh, &mut voted));
    if voted {
        stmts.insert(0, syn::parse_quote!(let __emu_vote = ::deviceemu::__private::vote_new();));
    }
    each_list(&mut stmts, &mut |list| discard_lets(list));
    each_list(&mut stmts, &mut |list| match_chains(list, &mut fresh));
    each_list(&mut stmts, &mut |list| loop_exits(list, &mut fresh));
    (items, stmts)
}

/// A statement `match e { arms }` whose arms wait (a barrier or warp collective) and whose
/// patterns are literals, ranges of values, `|` of those, `_` or a plain name, is `let m = e;
/// if m == a { .. } else if (m >= b && m <= c) { .. } else { .. }`: the `if`s fission reads,
/// uniform where `e` is. An arm's guard joins its test (`x if x > k` is `if (m > k)`), except
/// on the last arm, which is the `else` (a `match` is exhaustive); a name binds `m` in its arm.
/// Any other `match` is left as written.
fn match_chains(list: &mut Vec<Stmt>, fresh: &mut usize) {
    let mut k = 0;
    while k < list.len() {
        k += 1;
        let s = &list[k - 1];
        let Stmt::Expr(Expr::Match(m), _) = s else { continue };
        let w = super::waits_in_stmt(s);
        if !(w.barrier || w.warp) || !m.attrs.is_empty() || m.arms.is_empty() {
            continue;
        }
        let span = m.span();
        let value = Ident::new(&format!("__emu_match_{fresh}"), Span::mixed_site());
        let mut arms = Vec::new();
        for (a, arm) in m.arms.iter().enumerate() {
            let Some((mut test, bind)) = arm_test(&arm.pat, &value) else { break };
            if let Some((_, guard)) = &arm.guard {
                // The last arm's guard would need a fall-through the chain does not have (and
                // the match compiles only if the arms above cover every value).
                let Some(guard) = guard_test(guard, bind.as_ref(), &value).filter(|_| a + 1 < m.arms.len()) else {
                    break;
                };
                test = match &test {
                    Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) if b.value => guard,
                    _ => syn::parse_quote!((#test && #guard)),
                };
            }
            // The arm's statements themselves, so that its barriers stay at statement level.
            let mut body: syn::Block = match &*arm.body {
                Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
                e => syn::parse_quote_spanned!(span=> { #e; }),
            };
            if let Some(name) = bind {
                body.stmts.insert(0, syn::parse_quote_spanned!(span=> let #name = #value;));
            }
            arms.push((test, body));
        }
        if arms.len() != m.arms.len() {
            continue;
        }
        *fresh += 1;
        let scrutinee = &m.expr;
        let (_, last) = arms.pop().expect("a match with arms");
        let chain = arms
            .into_iter()
            .rev()
            .fold(last, |otherwise, (test, body)| syn::parse_quote_spanned!(span=> { if #test #body else #otherwise }));
        let bind: Stmt = syn::parse_quote_spanned!(span=> let #value = #scrutinee;);
        let at = k - 1;
        list.splice(at..k, std::iter::once(bind).chain(chain.stmts));
        k = at + 2;
    }
}

/// An arm's guard as a test of `value`: the name the arm binds (`x if x > 2`), if any, read
/// as `value` (which it is bound to). `None` for a guard that binds names of its own (a
/// closure, a block, a `match`, a `let`, a loop) or holds a macro, whose tokens may name it.
fn guard_test(guard: &Expr, bind: Option<&Ident>, value: &Ident) -> Option<Expr> {
    struct Sub<'a> {
        name: Option<&'a Ident>,
        value: &'a Ident,
        ok: bool,
    }
    impl VisitMut for Sub<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            match e {
                Expr::Closure(_)
                | Expr::Block(_)
                | Expr::Match(_)
                | Expr::Let(_)
                | Expr::ForLoop(_)
                | Expr::While(_)
                | Expr::Loop(_)
                | Expr::Macro(_) => self.ok = false,
                Expr::Path(p) if self.name.is_some_and(|n| p.path.is_ident(n)) => {
                    let v = self.value;
                    *e = syn::parse_quote!(#v);
                }
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
    }
    let mut g = guard.clone();
    let mut sub = Sub { name: bind, value, ok: true };
    sub.visit_expr_mut(&mut g);
    sub.ok.then(|| syn::parse_quote!((#g)))
}

/// The test of one arm's pattern against `value`, and the name it binds (`x =>`); `None` for
/// a pattern other than a literal, a range of values, `|` of those, `_` or a plain name.
fn arm_test(p: &Pat, value: &Ident) -> Option<(Expr, Option<Ident>)> {
    Some(match p {
        Pat::Wild(_) => (syn::parse_quote!(true), None),
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() => {
            (syn::parse_quote!(true), Some(pi.ident.clone()))
        }
        Pat::Lit(l) => (syn::parse_quote!(#value == #l), None),
        Pat::Range(r) => {
            let lo = r.start.as_ref().map(|a| -> Expr { syn::parse_quote!(#value >= #a) });
            let hi = r.end.as_ref().map(|b| -> Expr {
                match r.limits {
                    syn::RangeLimits::Closed(_) => syn::parse_quote!(#value <= #b),
                    syn::RangeLimits::HalfOpen(_) => syn::parse_quote!(#value < #b),
                }
            });
            match (lo, hi) {
                (Some(a), Some(b)) => (syn::parse_quote!((#a && #b)), None),
                (Some(a), None) | (None, Some(a)) => (a, None),
                (None, None) => return None,
            }
        }
        Pat::Or(o) => {
            let tests: Vec<Expr> = o
                .cases
                .iter()
                .map(|c| arm_test(c, value).and_then(|(t, b)| b.is_none().then_some(t)))
                .collect::<Option<_>>()?;
            (syn::parse_quote!((#(#tests)||*)), None)
        }
        Pat::Paren(p) => return arm_test(&p.pat, value),
        _ => return None,
    })
}

/// `let _ = e;` binds nothing: it is `match e { _ => {} }`, which evaluates `e` and moves
/// nothing out of a place, as the `let` does (after `vote_barriers`, which reads
/// `let _ = sync_threads_and(p);` itself).
fn discard_lets(list: &mut [Stmt]) {
    for s in list.iter_mut() {
        let Stmt::Local(l) = s else { continue };
        let (Pat::Wild(_), Some(init)) = (&l.pat, &l.init) else { continue };
        if !l.attrs.is_empty() || init.diverge.is_some() {
            continue;
        }
        let e = &init.expr;
        *s = syn::parse_quote_spanned!(l.span()=> match #e { _ => {} });
    }
}

/// Applies `f` to `stmts` and to every statement list nested in statement-level blocks
/// (`if`, `while`, `for`, `loop`, plain and `unsafe` blocks), outer lists first.
fn each_list(stmts: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(stmts);
    for s in stmts.iter_mut() {
        let Stmt::Expr(e, _) = s else { continue };
        nested_lists(e, f);
    }
}

fn nested_lists(e: &mut Expr, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    match e {
        Expr::If(i) => {
            each_list(&mut i.then_branch.stmts, f);
            if let Some((_, e)) = &mut i.else_branch {
                nested_lists(e, f);
            }
        }
        Expr::While(w) => each_list(&mut w.body.stmts, f),
        Expr::ForLoop(l) => each_list(&mut l.body.stmts, f),
        Expr::Loop(l) => each_list(&mut l.body.stmts, f),
        Expr::Block(b) => each_list(&mut b.block.stmts, f),
        Expr::Unsafe(u) => each_list(&mut u.block.stmts, f),
        _ => {}
    }
}

// ---------------------------------------------------------------- 1. items

/// The item's name, if it is one that may move.
fn movable_item(i: &Item) -> Option<String> {
    match i {
        Item::Const(c) => Some(c.ident.to_string()),
        Item::Static(s) if matches!(s.mutability, syn::StaticMutability::None) => Some(s.ident.to_string()),
        Item::Fn(f) => Some(f.sig.ident.to_string()),
        Item::Struct(s) => Some(s.ident.to_string()),
        Item::Enum(e) => Some(e.ident.to_string()),
        Item::Type(t) => Some(t.ident.to_string()),
        Item::Use(_) => Some(String::new()),
        _ => None,
    }
}

/// Moves the movable items out of the body's statement lists (see the module documentation).
fn hoist_items(stmts: &mut Vec<Stmt>) -> Vec<Stmt> {
    // First, whether it is safe: no two items of one name, no `let` binding an item's name,
    // and only movable items.
    let mut names = Vec::new();
    let mut ok = true;
    each_list(stmts, &mut |list| {
        for s in list.iter() {
            if let Stmt::Item(i) = s {
                match movable_item(i) {
                    Some(n) => names.push(n),
                    None => ok = false,
                }
            }
        }
    });
    let named: Vec<&String> = names.iter().filter(|n| !n.is_empty()).collect();
    let unique: HashSet<&&String> = named.iter().collect();
    if !ok || names.is_empty() || unique.len() != named.len() {
        return Vec::new();
    }
    let mut bound = super::Bound(HashSet::new());
    stmts.iter().for_each(|s| bound.visit_stmt(s));
    if named.iter().any(|n| bound.0.contains(*n)) {
        return Vec::new();
    }
    let mut items = Vec::new();
    each_list(stmts, &mut |list| {
        let (moved, kept): (Vec<Stmt>, Vec<Stmt>) =
            std::mem::take(list).into_iter().partition(|s| matches!(s, Stmt::Item(_)));
        items.extend(moved);
        *list = kept;
    });
    items
}

// ---------------------------------------------------------------- 2. block handles

/// Whether `e` is a call of `this_thread_block()` (any path ending so, no arguments).
fn is_block_handle_call(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    let Expr::Path(p) = &*c.func else { return false };
    p.qself.is_none()
        && c.args.is_empty()
        && p.path.segments.last().is_some_and(|s| s.ident == "this_thread_block" && s.arguments.is_none())
}

/// Whether `e` is `cg::tiled_partition::<32>(&h)` (or `(h)`) of a name `h`.
fn warp_tile_of(e: &Expr) -> Option<String> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?;
    if p.qself.is_some() || last.ident != "tiled_partition" || c.args.len() != 1 {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
    let [syn::GenericArgument::Const(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }))] =
        a.args.iter().collect::<Vec<_>>()[..]
    else {
        return None;
    };
    if n.base10_parse::<u32>().ok()? != 32 {
        return None;
    }
    let arg = match &c.args[0] {
        Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
        e => e,
    };
    path_name(arg)
}

/// Rewrites warp-sized tiles of block handles (see the module documentation).
fn tile_handles(stmts: &mut Vec<Stmt>, ctx: &Ident) {
    // The block handles: `let h = cg::this_thread_block();`.
    let mut blocks = HashSet::new();
    each_list(stmts, &mut |list| {
        for s in list.iter() {
            if let Stmt::Local(l) = s {
                if l.init.as_ref().is_some_and(|i| i.diverge.is_none() && is_block_handle_call(&i.expr)) {
                    blocks.extend(super::pat_names(&l.pat));
                }
            }
        }
    });
    each_list(stmts, &mut |list| {
        let mut k = 0;
        while k < list.len() {
            let tile = match &list[k] {
                Stmt::Local(l) => match (&l.pat, l.init.as_ref()) {
                    (Pat::Ident(pi), Some(i))
                        if pi.mutability.is_none()
                            && pi.by_ref.is_none()
                            && pi.subpat.is_none()
                            && i.diverge.is_none() =>
                    {
                        warp_tile_of(&i.expr).filter(|h| blocks.contains(h)).map(|_| pi.ident.to_string())
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some(name) = tile else {
                k += 1;
                continue;
            };
            let mut rest = list[k + 1..].to_vec();
            let mut r = Tile { name: name.clone(), ctx: ctx.clone(), collectives: 0, shadowed: false };
            rest.iter_mut().for_each(|s| r.visit_stmt_mut(s));
            let left = rest.iter().any(|s| idents_of(s).contains(&name));
            if !left && r.collectives > 0 && !r.shadowed {
                list.truncate(k);
                list.extend(rest);
                continue;
            }
            k += 1;
        }
    });
}

/// Rewrites the method calls of a warp-sized tile `name`.
struct Tile {
    name: String,
    ctx: Ident,
    /// How many collectives were rewritten.
    collectives: usize,
    /// Set when a `let` or closure rebinds the name (then the tile is left alone).
    shadowed: bool,
}

impl Tile {
    fn rewrite(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if path_name(&m.receiver).as_deref() != Some(self.name.as_str()) || m.turbofish.is_some() {
            return None;
        }
        let span = m.span();
        let c = Ident::new(&self.ctx.to_string(), self.ctx.span().located_at(span));
        let linear = quote_spanned!(span=> (#c.thread_idx.x + #c.block_dim.x * (#c.thread_idx.y + #c.block_dim.y * #c.thread_idx.z)));
        let args: Vec<&Expr> = m.args.iter().collect();
        let full = quote_spanned!(span=> 0xffff_ffffu32);
        let (e, collective): (TokenStream, bool) = match (m.method.to_string().as_str(), &args[..]) {
            ("sync", []) => (quote_spanned!(span=> sync_warp(#full)), true),
            ("thread_rank", []) => (quote_spanned!(span=> (#linear % 32u32)), false),
            ("size" | "num_threads", []) => (quote_spanned!(span=> 32u32), false),
            ("meta_group_rank", []) => (quote_spanned!(span=> (#linear / 32u32)), false),
            ("meta_group_size", []) => {
                (quote_spanned!(span=> ((#c.block_dim.x * #c.block_dim.y * #c.block_dim.z).div_ceil(32u32))), false)
            }
            ("shfl", [v, s]) => (quote_spanned!(span=> shfl_sync(#full, #v, #s)), true),
            ("shfl_down", [v, s]) => (quote_spanned!(span=> shfl_down_sync(#full, #v, #s)), true),
            ("shfl_up", [v, s]) => (quote_spanned!(span=> shfl_up_sync(#full, #v, #s)), true),
            ("shfl_xor", [v, s]) => (quote_spanned!(span=> shfl_xor_sync(#full, #v, #s)), true),
            ("any", [p]) => (quote_spanned!(span=> any_sync(#full, #p)), true),
            ("all", [p]) => (quote_spanned!(span=> all_sync(#full, #p)), true),
            ("ballot", [p]) => (quote_spanned!(span=> ballot_sync(#full, #p)), true),
            _ => return None,
        };
        self.collectives += usize::from(collective);
        syn::parse2(e).ok()
    }
}

impl VisitMut for Tile {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        if let Stmt::Local(l) = s {
            if super::pat_names(&l.pat).contains(&self.name) {
                self.shadowed = true;
            }
        }
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Closure(c) = e {
            if c.inputs.iter().any(|p| super::pat_names(p).contains(&self.name)) {
                self.shadowed = true;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::MethodCall(m) = e {
            if let Some(new) = self.rewrite(m) {
                *e = new;
            }
        }
    }
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// Rewrites the uses of immutable block handles (see the module documentation).
fn block_handles(stmts: &mut Vec<Stmt>, ctx: &Ident, one_d: bool) {
    each_list(stmts, &mut |list| {
        let mut k = 0;
        while k < list.len() {
            let handle = match &list[k] {
                Stmt::Local(l)
                    if l.init.as_ref().is_some_and(|i| i.diverge.is_none() && is_block_handle_call(&i.expr)) =>
                {
                    match &l.pat {
                        Pat::Ident(pi) if pi.mutability.is_none() && pi.by_ref.is_none() && pi.subpat.is_none() => {
                            Some(pi.ident.to_string())
                        }
                        Pat::Type(pt) => match &*pt.pat {
                            Pat::Ident(pi) if pi.mutability.is_none() && pi.by_ref.is_none() && pi.subpat.is_none() => {
                                Some(pi.ident.to_string())
                            }
                            _ => None,
                        },
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(name) = handle {
                let mut r = Handle { name: name.clone(), ctx: ctx.clone(), shadowed: false, one_d };
                for s in &mut list[k + 1..] {
                    r.visit_stmt_mut(s);
                }
                let left = list[k + 1..].iter().any(|s| idents_of(s).contains(&name));
                if !left {
                    list.remove(k);
                    continue;
                }
            }
            k += 1;
        }
    });
}

/// Rewrites `h.sync()` and `h.thread_rank()` (and the other index methods) of handle `h`.
struct Handle {
    name: String,
    ctx: Ident,
    /// Set once a `let` rebinds the name: later mentions are another value.
    shadowed: bool,
    /// Whether the region form runs 1-D blocks only (a kernel with warp collectives).
    one_d: bool,
}

impl Handle {
    fn rewrite(&self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if path_name(&m.receiver).as_deref() != Some(self.name.as_str()) || !m.args.is_empty() || m.turbofish.is_some()
        {
            return None;
        }
        let span = m.span();
        let c = Ident::new(&self.ctx.to_string(), self.ctx.span().located_at(span));
        let e: TokenStream = match m.method.to_string().as_str() {
            "sync" => quote_spanned!(span=> sync_threads()),
            "thread_rank" if self.one_d => quote_spanned!(span=> #c.thread_idx.x),
            "thread_rank" => {
                quote_spanned!(span=> (#c.thread_idx.x + #c.block_dim.x * (#c.thread_idx.y + #c.block_dim.y * #c.thread_idx.z)))
            }
            "size" | "num_threads" => quote_spanned!(span=> (#c.block_dim.x * #c.block_dim.y * #c.block_dim.z)),
            "group_index" => quote_spanned!(span=> #c.block_idx),
            "thread_index" => quote_spanned!(span=> #c.thread_idx),
            "dim_threads" => quote_spanned!(span=> #c.block_dim),
            _ => return None,
        };
        syn::parse2(e).ok()
    }
}

impl VisitMut for Handle {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if self.shadowed {
            return;
        }
        syn::visit_mut::visit_stmt_mut(self, s);
        if let Stmt::Local(l) = s {
            if super::pat_names(&l.pat).contains(&self.name) {
                self.shadowed = true;
            }
        }
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.shadowed {
            return;
        }
        if let Expr::Closure(c) = e {
            if c.inputs.iter().any(|p| super::pat_names(p).contains(&self.name)) {
                return;
            }
        }
        if let Expr::MethodCall(m) = e {
            if let Some(new) = self.rewrite(m) {
                *e = new;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        // A rebinding inside a block ends at the block's end.
        let outer = self.shadowed;
        syn::visit_mut::visit_block_mut(self, b);
        self.shadowed = outer;
    }
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

// ---------------------------------------------------------------- 3. pattern lets

/// The simple names of a tuple pattern's elements (`a`, `mut a`), or `None`.
fn tuple_names(pt: &syn::PatTuple) -> Option<Vec<&syn::PatIdent>> {
    pt.elems
        .iter()
        .map(|p| match p {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi),
            _ => None,
        })
        .collect()
}

/// Splits the tuple `let`s of one statement list (see the module documentation).
fn split_lets(list: &mut Vec<Stmt>, fresh: &mut usize) {
    let mut out = Vec::with_capacity(list.len());
    for s in std::mem::take(list) {
        match split_let(&s, fresh) {
            Some(v) => out.extend(v),
            None => out.push(s),
        }
    }
    *list = out;
}

fn split_let(s: &Stmt, fresh: &mut usize) -> Option<Vec<Stmt>> {
    let Stmt::Local(l) = s else { return None };
    if !l.attrs.is_empty() {
        return None;
    }
    // The pattern and the element types, if written.
    let (pt, types): (&syn::PatTuple, Option<Vec<&syn::Type>>) = match &l.pat {
        Pat::Tuple(pt) => (pt, None),
        Pat::Type(ty) => match (&*ty.pat, &*ty.ty) {
            (Pat::Tuple(pt), syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                (pt, Some(tt.elems.iter().collect()))
            }
            _ => return None,
        },
        _ => return None,
    };
    let names = tuple_names(pt)?;
    if names.is_empty() {
        return None;
    }
    let span = l.span();
    let typed = |k: usize| -> TokenStream {
        let p = names[k];
        match &types {
            Some(t) => {
                let t = t[k];
                quote_spanned!(p.span()=> #p: #t)
            }
            None => quote_spanned!(p.span()=> #p),
        }
    };
    let mut out = Vec::new();
    match &l.init {
        None => {
            for k in 0..names.len() {
                let p = typed(k);
                out.push(syn::parse_quote_spanned!(span=> let #p;));
            }
        }
        Some(init) if init.diverge.is_some() => return None,
        Some(init) => match &*init.expr {
            Expr::Tuple(et) if et.elems.len() == names.len() => {
                // In order, an element may not read a name an earlier one binds.
                let bound: Vec<String> = names.iter().map(|p| p.ident.to_string()).collect();
                let independent = et.elems.iter().enumerate().all(|(j, e)| {
                    let ids = idents_of(e);
                    bound[..j].iter().all(|n| !ids.contains(n))
                });
                if !independent {
                    return None;
                }
                for (k, e) in et.elems.iter().enumerate() {
                    let p = typed(k);
                    out.push(syn::parse_quote_spanned!(span=> let #p = #e;));
                }
            }
            e => {
                let t = Ident::new(&format!("__emu_tuple_{fresh}"), Span::mixed_site());
                *fresh += 1;
                out.push(syn::parse_quote_spanned!(span=> let #t = #e;));
                for k in 0..names.len() {
                    let p = typed(k);
                    let i = syn::Index::from(k);
                    out.push(syn::parse_quote_spanned!(span=> let #p = #t.#i;));
                }
            }
        },
    }
    Some(out)
}

// ---------------------------------------------------------------- 4. lets without a value

/// Gives each `let` without a value of one statement list its value (see the module
/// documentation).
fn initialise_lets(list: &mut Vec<Stmt>) {
    let mut k = 0;
    while k < list.len() {
        let Stmt::Local(l) = &list[k] else {
            k += 1;
            continue;
        };
        if l.init.is_some() {
            k += 1;
            continue;
        }
        let Some(name) = local_name(&l.pat) else {
            k += 1;
            continue;
        };
        let (pi, ty) = match &l.pat {
            Pat::Ident(pi) => (pi.clone(), None),
            Pat::Type(pt) => match &*pt.pat {
                Pat::Ident(pi) => (pi.clone(), Some((*pt.ty).clone())),
                _ => {
                    k += 1;
                    continue;
                }
            },
            _ => {
                k += 1;
                continue;
            }
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            k += 1;
            continue;
        }
        let attrs = l.attrs.clone();
        let span = l.span();
        let first = list[k + 1..].iter().position(|s| idents_of(s).contains(&name)).map(|j| j + k + 1);
        let merged = first.and_then(|j| match &list[j] {
            Stmt::Expr(Expr::Assign(a), Some(_))
                if path_name(&a.left).as_deref() == Some(name.as_str())
                    && !idents_of_expr(&a.right).contains(&name) =>
            {
                Some((j, (*a.right).clone()))
            }
            _ => None,
        });
        let pat = match &ty {
            Some(t) => quote_spanned!(pi.span()=> #pi: #t),
            None => quote_spanned!(pi.span()=> #pi),
        };
        // `if c { ..; x = a; } else { ..; x = b; }`: each branch ends by assigning `x`.
        let merged = merged.or_else(|| {
            let j = first?;
            let Stmt::Expr(Expr::If(i), _) = &list[j] else { return None };
            Some((j, if_value(i, &name)?))
        });
        if let Some((j, value)) = merged {
            list[j] = syn::parse_quote_spanned!(span=> #(#attrs)* let #pat = #value;);
            list.remove(k);
            continue;
        }
        let primitive = match &ty {
            Some(syn::Type::Path(tp)) => {
                tp.qself.is_none() && tp.path.get_ident().is_some_and(|i| PRIMITIVES.iter().any(|p| i == p))
            }
            _ => false,
        };
        if primitive {
            let ident = &pi.ident;
            let t = ty.as_ref().map(|t| quote_spanned!(span=> #t)).unwrap_or_default();
            let zero = if matches!(&ty, Some(syn::Type::Path(tp)) if tp.path.is_ident("bool")) {
                quote_spanned!(span=> false)
            } else {
                quote_spanned!(span=> 0 as #t)
            };
            list[k] = syn::parse_quote_spanned!(span=> #(#attrs)* let mut #ident: #t = #zero;);
        }
        k += 1;
    }
}

/// The `if` `i` as the value it assigns `name`, when each of its branches (an `else` at the
/// end) ends with the statement `name = e;` and mentions `name` nowhere else, nor does a
/// condition: `if c { s; e } else { t; f }`.
fn if_value(i: &syn::ExprIf, name: &str) -> Option<Expr> {
    if idents_of_expr(&i.cond).contains(name) {
        return None;
    }
    let branch = |b: &syn::Block| -> Option<syn::Block> {
        let (last, rest) = b.stmts.split_last()?;
        let Stmt::Expr(Expr::Assign(a), Some(_)) = last else { return None };
        if path_name(&a.left).as_deref() != Some(name)
            || idents_of_expr(&a.right).contains(name)
            || rest.iter().any(|s| idents_of(s).contains(name))
        {
            return None;
        }
        let mut out = b.clone();
        out.stmts.pop();
        out.stmts.push(Stmt::Expr((*a.right).clone(), None));
        Some(out)
    };
    let then = branch(&i.then_branch)?;
    let (_, otherwise) = i.else_branch.as_ref()?;
    let otherwise = match &**otherwise {
        Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => {
            Expr::Block(syn::ExprBlock { block: branch(&b.block)?, ..b.clone() })
        }
        Expr::If(inner) => if_value(inner, name)?,
        _ => return None,
    };
    let mut out = i.clone();
    out.then_branch = then;
    out.else_branch = Some((i.else_branch.as_ref()?.0, Box::new(otherwise)));
    Some(Expr::If(out))
}

/// Replaces each statement-level plain block of `list` that waits by its statements (the
/// module's doc, step 5).
fn flatten_blocks(list: &mut Vec<Stmt>) {
    let mut k = 0;
    while k < list.len() {
        let Stmt::Expr(Expr::Block(b), semi) = &list[k] else {
            k += 1;
            continue;
        };
        let value_unused = semi.is_some()
            || k + 1 < list.len()
            || b.block.stmts.last().is_none_or(|s| !matches!(s, Stmt::Expr(_, None)));
        let waits = {
            let stmt = list[k].clone();
            let w = super::waits_in_stmt(&stmt);
            w.barrier || w.warp
        };
        if b.label.is_some() || !b.attrs.is_empty() || !value_unused || !waits {
            k += 1;
            continue;
        }
        let bound: HashSet<String> = b
            .block
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Local(l) => Some(super::pat_names(&l.pat)),
                _ => None,
            })
            .flatten()
            .collect();
        let later: HashSet<String> = list[k + 1..].iter().flat_map(idents_of).collect();
        if bound.iter().any(|n| later.contains(n)) {
            k += 1;
            continue;
        }
        let mut inner = b.block.stmts.clone();
        if let Some(Stmt::Expr(e, semi @ None)) = inner.last_mut() {
            // Its value is unused: a statement of its own now.
            if !matches!(e, Expr::If(_) | Expr::While(_) | Expr::ForLoop(_) | Expr::Loop(_) | Expr::Block(_)) {
                *semi = Some(Default::default());
            }
        }
        let n = inner.len();
        list.splice(k..=k, inner);
        k += n;
    }
}

fn idents_of_expr(e: &Expr) -> HashSet<String> {
    idents_of(&Stmt::Expr(e.clone(), None))
}

// ---------------------------------------------------------------- 6. voting barriers

/// The voting barrier `e` calls (`sync_threads_or(p)`, `_and`, `_count`, by its last path
/// segment, without a turbofish): its name and predicate.
fn vote_call(e: &Expr) -> Option<(String, &Expr)> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let voting = matches!(name.as_str(), "sync_threads_or" | "sync_threads_and" | "sync_threads_count");
    (voting && p.qself.is_none() && last.arguments.is_none() && c.args.len() == 1).then(|| (name, &c.args[0]))
}

/// Normalisation 6 (`vote_barriers`): each voting barrier statement of `list` as a vote, a
/// plain barrier and the vote's sealed count; `voted` is set when there was one.
fn vote_barriers(list: &mut Vec<Stmt>, fresh: &mut usize, voted: &mut bool) {
    let mut k = 0;
    while k < list.len() {
        let s = &list[k];
        let call = match s {
            Stmt::Local(l) if l.attrs.is_empty() && l.init.as_ref().is_some_and(|i| i.diverge.is_none()) => {
                l.init.as_ref().map(|i| &*i.expr)
            }
            Stmt::Expr(Expr::Assign(a), Some(_)) if a.attrs.is_empty() && path_name(&a.left).is_some() => {
                Some(&*a.right)
            }
            Stmt::Expr(e, Some(_)) => Some(e),
            _ => None,
        };
        let Some((name, pred)) = call.and_then(vote_call) else {
            k += 1;
            continue;
        };
        let span = s.span();
        let seal = Ident::new(&format!("__emu_voted_{fresh}"), Span::call_site());
        *fresh += 1;
        let value: Expr = match name.as_str() {
            "sync_threads_or" => syn::parse_quote_spanned!(span=> #seal.trues > 0),
            "sync_threads_and" => syn::parse_quote_spanned!(span=> #seal.trues == #seal.voters),
            _ => syn::parse_quote_spanned!(span=> #seal.trues),
        };
        let mut out: Vec<Stmt> = vec![
            syn::parse_quote_spanned!(span=> ::deviceemu::__private::vote_put(&__emu_vote, #pred);),
            syn::parse_quote_spanned!(span=> sync_threads();),
            syn::parse_quote_spanned!(span=> let #seal = ::deviceemu::__private::vote_seal(&__emu_vote);),
        ];
        match s {
            // `let _ = sync_threads_or(p);`: the count is dropped.
            Stmt::Local(l) if matches!(l.pat, Pat::Wild(_)) => {}
            Stmt::Local(l) => {
                let mut l = l.clone();
                if let Some(init) = &mut l.init {
                    *init.expr = value;
                }
                out.push(Stmt::Local(l));
            }
            Stmt::Expr(Expr::Assign(a), semi) if vote_call(&a.right).is_some() => {
                let mut a = a.clone();
                *a.right = value;
                out.push(Stmt::Expr(Expr::Assign(a), *semi));
            }
            // The count is dropped: the seal alone starts the next vote afresh.
            _ => {}
        }
        let n = out.len();
        list.splice(k..=k, out);
        *voted = true;
        k += n;
    }
}

// ---------------------------------------------------------------- 7. loop exits

/// The exit statement `s` is, if it is `if c { ..; break; }` or `if c { ..; continue; }`
/// (no `else`, no label, the branch's other statements free of exits): `Some(true)` for a
/// `break`, `Some(false)` for a `continue`.
fn exit_if(s: &Stmt) -> Option<bool> {
    let Stmt::Expr(Expr::If(i), _) = s else { return None };
    // No `else`, or a plain block free of exits.
    let plain_else = i.else_branch.is_none() || else_block(i).is_some_and(|b| !b.iter().any(exits_in));
    if !i.attrs.is_empty() || !plain_else {
        return None;
    }
    let (last, before) = i.then_branch.stmts.split_last()?;
    let exit = match last {
        Stmt::Expr(Expr::Break(b), _) if b.label.is_none() && b.expr.is_none() => true,
        Stmt::Expr(Expr::Continue(c), _) if c.label.is_none() => false,
        _ => return None,
    };
    (!before.iter().any(exits_in)).then_some(exit)
}

/// The statements of `i`'s `else` when it is a plain block (not an `else if`).
fn else_block(i: &syn::ExprIf) -> Option<&[Stmt]> {
    match i.else_branch.as_ref().map(|(_, e)| &**e) {
        Some(Expr::Block(b)) if b.label.is_none() && b.attrs.is_empty() => Some(&b.block.stmts),
        _ => None,
    }
}

/// `if c { a } else { b; break; }` (or `continue`) as `if !(c) { b; break; } else { a }`, so
/// that the exit is in the first branch, where `exit_if` looks for it.
fn exit_first(s: &mut Stmt) {
    let Stmt::Expr(Expr::If(i), _) = s else { return };
    let ends_in_exit = |b: &[Stmt]| matches!(b.last(), Some(Stmt::Expr(Expr::Break(_) | Expr::Continue(_), _)));
    let Some(otherwise) = else_block(i) else { return };
    if !ends_in_exit(otherwise) || i.then_branch.stmts.iter().any(exits_in) {
        return;
    }
    let span = i.span();
    let otherwise = otherwise.to_vec();
    let (cond, then) = (&i.cond, &i.then_branch.stmts);
    let swapped: Expr = syn::parse_quote_spanned!(span=> if !(#cond) { #(#otherwise)* } else { #(#then)* });
    *s = Stmt::Expr(swapped, None);
}

/// Whether `s` holds a `break`, `continue` or `return` outside nested loops and closures.
fn exits_in(s: &Stmt) -> bool {
    struct E(bool);
    impl<'ast> Visit<'ast> for E {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Break(_) | Expr::Continue(_) | Expr::Return(_) => self.0 = true,
                Expr::Closure(_) | Expr::Async(_) => {}
                Expr::ForLoop(l) => self.visit_expr(&l.expr),
                Expr::While(w) => self.visit_expr(&w.cond),
                Expr::Loop(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut e = E(false);
    e.visit_stmt(s);
    e.0
}

/// Rewrites the exit statements of loop body `stmts` (`exit_if`): `if c { x; continue; } rest`
/// is `if c { x } else { rest }`, and `if c { x; break; } rest` is `flag = c;` then
/// `if flag { x } else { rest }` (`flag` made once, on the first `break`). The flag is assigned
/// at statement level, so that it is block-uniform when `c` is, even where `rest` has no
/// barrier and the `if` is thread code.
fn lower_exits(mut stmts: Vec<Stmt>, flag: &mut dyn FnMut() -> Ident) -> Vec<Stmt> {
    stmts.iter_mut().for_each(exit_first);
    let Some(k) = stmts.iter().position(|s| exit_if(s).is_some()) else { return stmts };
    let after = stmts.split_off(k + 1);
    let Some(Stmt::Expr(Expr::If(mut i), _)) = stmts.pop() else { unreachable!("`exit_if` matched an `if`") };
    // The `else` runs when the exit is not taken, before the statements after the `if`.
    let mut rest = match i.else_branch.take().map(|(_, e)| *e) {
        Some(Expr::Block(b)) => b.block.stmts,
        _ => Vec::new(),
    };
    rest.extend(after);
    let rest = lower_exits(rest, flag);
    let span = i.span();
    let last = i.then_branch.stmts.pop();
    if matches!(last, Some(Stmt::Expr(Expr::Break(_), _))) {
        let flag = flag();
        let cond = &i.cond;
        stmts.push(syn::parse_quote_spanned!(span=> #flag = #cond;));
        *i.cond = syn::parse_quote_spanned!(span=> #flag);
    }
    if i.then_branch.stmts.is_empty() && rest.is_empty() {
        // Nothing left to choose between.
        return stmts;
    }
    if i.then_branch.stmts.is_empty() {
        let cond = &i.cond;
        let negated: Expr = match &**cond {
            Expr::Path(_) => syn::parse_quote_spanned!(span=> !#cond),
            _ => syn::parse_quote_spanned!(span=> !(#cond)),
        };
        stmts.push(syn::parse_quote_spanned!(span=> if #negated { #(#rest)* }));
        return stmts;
    }
    if !rest.is_empty() {
        let else_block: syn::Block = syn::parse_quote_spanned!(span=> { #(#rest)* });
        let block = Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: else_block });
        i.else_branch = Some((Default::default(), Box::new(block)));
    }
    stmts.push(Stmt::Expr(Expr::If(i), None));
    stmts
}

/// Normalisation 7 (`loop_exits`): the uniform exits of each loop with barriers in `list`.
fn loop_exits(list: &mut Vec<Stmt>, fresh: &mut usize) {
    let mut k = 0;
    while k < list.len() {
        let waits = {
            let w = super::waits_in_stmt(&list[k]);
            w.barrier || w.warp
        };
        let body = match &mut list[k] {
            Stmt::Expr(Expr::ForLoop(l), _) if waits && l.label.is_none() => &mut l.body,
            Stmt::Expr(Expr::While(w), _) if waits && w.label.is_none() && !matches!(&*w.cond, Expr::Let(_)) => {
                &mut w.body
            }
            Stmt::Expr(Expr::Loop(l), _) if waits && l.label.is_none() => &mut l.body,
            _ => {
                k += 1;
                continue;
            }
        };
        body.stmts.iter_mut().for_each(exit_first);
        if !body.stmts.iter().any(|s| exit_if(s).is_some()) {
            k += 1;
            continue;
        }
        let mut made = None;
        let mut flag = || {
            made.get_or_insert_with(|| {
                let f = Ident::new(&format!("__emu_broke_{fresh}"), Span::call_site());
                *fresh += 1;
                f
            })
            .clone()
        };
        body.stmts = lower_exits(std::mem::take(&mut body.stmts), &mut flag);
        let Some(flag) = made else {
            k += 1;
            continue;
        };
        let span = list[k].span();
        match &mut list[k] {
            Stmt::Expr(Expr::ForLoop(l), _) => {
                let stmts = std::mem::take(&mut l.body.stmts);
                l.body.stmts = vec![syn::parse_quote_spanned!(span=> if !#flag { #(#stmts)* })];
            }
            Stmt::Expr(Expr::While(w), _) => {
                let cond = w.cond.clone();
                *w.cond = syn::parse_quote_spanned!(span=> !#flag && (#cond));
            }
            Stmt::Expr(e @ Expr::Loop(_), semi) => {
                let Expr::Loop(l) = &*e else { unreachable!("matched above") };
                let (attrs, body) = (&l.attrs, &l.body);
                *e = syn::parse_quote_spanned!(span=> #(#attrs)* while !#flag #body);
                *semi = None;
            }
            _ => unreachable!("a loop was matched above"),
        }
        list.insert(k, syn::parse_quote_spanned!(span=> let mut #flag = false;));
        k += 2;
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn norm(body: TokenStream) -> String {
        let b: syn::Block = syn::parse2(quote!({ #body })).unwrap();
        let ctx = Ident::new("ctx", Span::call_site());
        let (items, stmts) = normalise(b.stmts, &ctx);
        let s = quote!(#(#items)* #(#stmts)*).to_string();
        s
    }

    use super::*;

    #[test]
    fn a_let_without_a_value_takes_its_first_assignment() {
        let s = norm(quote! { let a: f32; let b = 1; a = b + 1; use_it(a); });
        assert_eq!(s, quote! { let b = 1; let a: f32 = b + 1; use_it(a); }.to_string());
    }

    #[test]
    fn a_let_assigned_in_a_loop_gets_a_default_for_primitives_only() {
        let s = norm(quote! { let mut a: f32; for j in 0..4 { a = x[j]; } let k: Uint4; for j in 0..4 { k = y; } });
        assert!(s.contains("let mut a : f32 = 0 as f32 ;"), "{s}");
        assert!(s.contains("let k : Uint4 ;"), "{s}");
    }

    #[test]
    fn a_value_read_by_its_own_assignment_is_not_merged() {
        let s = norm(quote! { let a: Foo; a = a; });
        assert!(s.starts_with("let a : Foo ;"), "{s}");
    }

    #[test]
    fn tuple_lets_split() {
        let s = norm(
            quote! { let (mut a, b): (f32, u32) = (0.0, 1); let (c, d) = f(); let (e, g): (f32, f32); e = 1.0; g = 2.0; },
        );
        assert!(s.contains("let mut a : f32 = 0.0 ; let b : u32 = 1 ;"), "{s}");
        assert!(s.contains("= f () ; let c = __emu_tuple_0 . 0 ; let d = __emu_tuple_0 . 1 ;"), "{s}");
        assert!(s.contains("let e : f32 = 1.0 ; let g : f32 = 2.0 ;"), "{s}");
        // A swap reads a name an earlier element binds: kept.
        let s = norm(quote! { let (a, b) = (b, a); });
        assert_eq!(s, quote! { let (a, b) = (b, a); }.to_string());
    }

    #[test]
    fn block_handles_become_barriers_and_indices() {
        let s = norm(quote! { let cta = cg::this_thread_block(); x(); cta.sync(); if cta.thread_rank() == 0 { y(); } });
        assert!(!s.contains("this_thread_block"), "{s}");
        assert!(s.contains("sync_threads ()"), "{s}");
        assert!(s.contains("ctx . thread_idx . x + ctx . block_dim . x"), "{s}");
        // Passed on: the handle stays (and keeps the general path).
        let s =
            norm(quote! { let cta = cg::this_thread_block(); cta.sync(); let t = cg::tiled_partition::<32>(&cta); });
        assert!(s.contains("let cta = cg :: this_thread_block ()"), "{s}");
        assert!(s.contains("sync_threads ()"), "{s}");
        // A method it does not know keeps the handle.
        let s = norm(quote! { let cta = cg::this_thread_block(); cta.barrier_wait(); });
        assert!(s.contains("cta . barrier_wait ()"), "{s}");
        assert!(s.contains("this_thread_block"), "{s}");
    }

    #[test]
    fn exits_of_loops_with_barriers_become_structured_ifs() {
        let s = norm(quote! {
            for i in 0..n { a(); sync_threads(); if i == n - 1 { break; } b(); sync_threads(); }
        });
        let want = quote! {
            let mut __emu_broke_0 = false;
            for i in 0..n { if !__emu_broke_0 {
                a(); sync_threads(); __emu_broke_0 = i == n - 1; if !__emu_broke_0 { b(); sync_threads(); }
            } }
        };
        assert_eq!(s, want.to_string());
        let s = norm(quote! {
            while p < 9 { p += 1; if p % 3 == 0 { continue; } sync_threads(); if p > m { c(); break; } d(); }
        });
        let want = quote! {
            let mut __emu_broke_0 = false;
            while !__emu_broke_0 && (p < 9) {
                p += 1;
                if !(p % 3 == 0) { sync_threads(); __emu_broke_0 = p > m; if __emu_broke_0 { c(); } else { d(); } }
            }
        };
        assert_eq!(s, want.to_string());
        let s = norm(quote! { loop { sync_threads(); if q == 3 { break; } q += 1; } });
        let want = quote! {
            let mut __emu_broke_0 = false;
            while !__emu_broke_0 { sync_threads(); __emu_broke_0 = q == 3; if !__emu_broke_0 { q += 1; } }
        };
        assert_eq!(s, want.to_string());
        // An `else`, and a `break` in the `else`.
        let s = norm(quote! { for i in 0..n { sync_threads(); if i == 3 { break; } else { a(); } b(); } });
        let want = quote! {
            let mut __emu_broke_0 = false;
            for i in 0..n { if !__emu_broke_0 { sync_threads(); __emu_broke_0 = i == 3; if !__emu_broke_0 { a(); b(); } } }
        };
        assert_eq!(s, want.to_string());
        let s = norm(quote! { while p < 9 { sync_threads(); if p < m { p += 1; } else { c(); break; } } });
        let want = quote! {
            let mut __emu_broke_0 = false;
            while !__emu_broke_0 && (p < 9) { sync_threads(); __emu_broke_0 = !(p < m); if __emu_broke_0 { c(); } else { p += 1; } }
        };
        assert_eq!(s, want.to_string());
        // Left as written: a loop without barriers, a labelled loop, an exit with an `else if`,
        // a `break` with a value, and an exit under another `if`.
        for body in [
            quote! { for i in 0..n { if i == 3 { break; } a(); } },
            quote! { 'o: for i in 0..n { sync_threads(); if i == 3 { break; } } },
            quote! { for i in 0..n { sync_threads(); if i == 3 { break; } else if i == 4 { a(); } } },
            quote! { let v = loop { sync_threads(); if q { break 1; } }; },
            quote! { for i in 0..n { sync_threads(); if a { if i == 3 { break; } } } },
        ] {
            assert_eq!(norm(body.clone()), body.to_string());
        }
    }

    #[test]
    fn matches_whose_arms_wait_become_if_chains() {
        let s = norm(quote! {
            match mode + 1 {
                0 => { a(); sync_threads(); }
                1 | 2 => sync_threads(),
                3..=5 => { sync_threads(); }
                other => { b(other); sync_threads(); }
            }
        });
        let want = quote! {
            let __emu_match_0 = mode + 1;
            if __emu_match_0 == 0 { a(); sync_threads(); }
            else { if (__emu_match_0 == 1 || __emu_match_0 == 2) { sync_threads(); }
            else { if (__emu_match_0 >= 3 && __emu_match_0 <= 5) { sync_threads(); }
            else { let other = __emu_match_0; b(other); sync_threads(); } } }
        };
        assert_eq!(s, want.to_string());
        // Guards join their arms' tests, a bound name read as the value.
        let s = norm(quote! {
            match m {
                x if x > k => { sync_threads(); }
                1 | 2 if q => { sync_threads(); }
                _ => { sync_threads(); }
            }
        });
        let want = quote! {
            let __emu_match_0 = m;
            if (__emu_match_0 > k) { let x = __emu_match_0; sync_threads(); }
            else { if ((__emu_match_0 == 1 || __emu_match_0 == 2) && (q)) { sync_threads(); }
            else { sync_threads(); } }
        };
        assert_eq!(s, want.to_string());
        // No barrier, a guard on the last arm or one that binds or holds a macro, or a
        // pattern other than values: left as written.
        for body in [
            quote! { match m { 0 => a(), _ => b() } },
            quote! { match m { 0 => { sync_threads(); } x if x > 2 => { sync_threads(); } } },
            quote! { match m { x if f(|y| y > x) => { sync_threads(); } _ => { sync_threads(); } } },
            quote! { match m { x if p!(x) => { sync_threads(); } _ => { sync_threads(); } } },
            quote! { match m { Some(x) => { sync_threads(); } None => { sync_threads(); } } },
        ] {
            assert_eq!(norm(body.clone()), body.to_string());
        }
    }

    #[test]
    fn discarding_lets_become_matches() {
        let s = norm(quote! {
            let _ = f(x);
            let _: u32 = g(x);
            let y = 1;
        });
        assert_eq!(s, quote! { match f(x) { _ => {} } let _: u32 = g(x); let y = 1; }.to_string());
    }

    #[test]
    fn voting_barriers_become_a_vote_a_barrier_and_a_seal() {
        let s = norm(quote! {
            let c: u32 = sync_threads_count(a > 1);
            all = deviceemu::sync_threads_and(b);
            sync_threads_or(d);
            let _ = sync_threads_and(e);
        });
        let want = quote! {
            let __emu_vote = ::deviceemu::__private::vote_new();
            ::deviceemu::__private::vote_put(&__emu_vote, a > 1);
            sync_threads();
            let __emu_voted_0 = ::deviceemu::__private::vote_seal(&__emu_vote);
            let c: u32 = __emu_voted_0.trues;
            ::deviceemu::__private::vote_put(&__emu_vote, b);
            sync_threads();
            let __emu_voted_1 = ::deviceemu::__private::vote_seal(&__emu_vote);
            all = __emu_voted_1.trues == __emu_voted_1.voters;
            ::deviceemu::__private::vote_put(&__emu_vote, d);
            sync_threads();
            let __emu_voted_2 = ::deviceemu::__private::vote_seal(&__emu_vote);
            ::deviceemu::__private::vote_put(&__emu_vote, e);
            sync_threads();
            let __emu_voted_3 = ::deviceemu::__private::vote_seal(&__emu_vote);
        };
        assert_eq!(s, want.to_string());
        // In an expression, or with a turbofish: left as written.
        for body in [quote! { if sync_threads_or(d) { a(); } }, quote! { let c = sync_threads_count::<X>(d); }] {
            assert_eq!(norm(body.clone()), body.to_string());
        }
    }

    #[test]
    fn items_are_hoisted_unless_names_collide() {
        let s = norm(quote! { let a = 1; if a > 0 { const N: i32 = 4; b(N); } });
        assert!(s.starts_with("const N : i32 = 4 ;"), "{s}");
        let s = norm(quote! { if c { const N: i32 = 4; b(N); } else { const N: i32 = 5; b(N); } });
        assert!(s.starts_with("if c"), "{s}");
    }
}
