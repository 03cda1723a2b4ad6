//! Loop fission, part 3c: a lane loop over several consecutive blocks at once.
//!
//! A vectorised lane loop (`tiers.rs`, `LaneVector`) runs one block per call of the region
//! form, and each block costs its runner a reset, an end and a guard besides its chunks:
//! about as much as the chunk's own arithmetic for a block of 256 `saxpy` threads. When the
//! kernel reads its thread's position *only* as the global index `block_idx().x *
//! block_dim().x + thread_idx().x` (and the block's and grid's sizes), the threads of blocks
//! `b..b + k` of one grid row are exactly the threads `0..k * block_dim().x` of block `b` as
//! far as the kernel can tell: lane `t` of block `b`'s "wide" view has the global index
//! `b * block_dim().x + t`, which is that of thread `t % block_dim().x` of block `b + t /
//! block_dim().x`. The span form is that lane loop, run by `Regions::each_span_chunk` over
//! such a span (`regions/mod.rs`, `run_blocks`), with the same proof over the span's first
//! and last index.
//!
//! What this file decides is whether the form's code reads the position that way. It looks
//! at the tokens of the form as emitted (its proof, its lanes' code, its uniform prefix),
//! where every read of the context is a field of the context argument, and accepts only:
//!
//! * `ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x`, its factors in either order,
//!   the product in parentheses or not, and the sum in either order, each operand optionally
//!   cast (`as usize`, and other integer types at least 32 bits wide), where nothing that
//!   binds tighter than `+` touches it from outside (a `-`, `*`, `/`, `%` before it, a `*`,
//!   `/`, `%`, `.`, `as` after it); the thread's index may be a name bound once by `let tid =
//!   ctx.thread_idx.x;` (SHOC's and most CUDA code's `tid`), which then appears nowhere else;
//! * `let __emu_base = ctx.block_idx.x * ctx.block_dim.x;`, the proof's first index (`mod.rs`,
//!   `Program::hoist`), whose lane `t` is then `__emu_base + t`;
//! * `ctx.block_dim.*` and `ctx.grid_dim.*`, which a span does not change;
//! * the bindings `let ctx = ..` of the lanes' contexts.
//!
//! It also accepts only the calls the form itself makes (the runtime's lane buffers, the
//! proof's helpers, `len`, pure float methods): a helper could read `block_idx()` from the
//! running block, which a span does not move. Kernels with shared memory never take a span:
//! each block has its own.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

use super::FLOAT_METHODS;

/// Whether `code`, a span form's tokens with context argument `ctx` and thread argument `t`,
/// reads the thread's position only as its global x index (the module's doc).
pub(super) fn global_index_only(code: &TokenStream, ctx: &str, t: &str) -> bool {
    let mut bindings = HashMap::new();
    count_aliases(code, ctx, &mut bindings);
    let aliases = bindings.into_iter().filter(|&(_, n)| n == 1).map(|(a, _)| a).collect();
    Scan { ctx, t, aliases }.ok(code)
}

/// Counts the bindings `let name = ctx.thread_idx.x;` (a cast and a type allowed) by name:
/// a name bound so once is the thread's index wherever it appears.
fn count_aliases(code: &TokenStream, ctx: &str, out: &mut HashMap<String, usize>) {
    let toks: Vec<TokenTree> = code.clone().into_iter().collect();
    for i in 0..toks.len() {
        match &toks[i] {
            TokenTree::Group(g) => count_aliases(&g.stream(), ctx, out),
            TokenTree::Ident(l) if *l == "let" => {
                if let Some((name, _)) = alias_binding(&toks, i, ctx) {
                    *out.entry(name).or_default() += 1;
                }
            }
            _ => {}
        }
    }
}

/// `let name [: T] = ctx.thread_idx.x [as T];` at `i`: the name and the tokens it takes.
fn alias_binding(toks: &[TokenTree], i: usize, ctx: &str) -> Option<(String, usize)> {
    let TokenTree::Ident(name) = toks.get(i + 1)? else { return None };
    let mut k = i + 2;
    if is_punct(toks.get(k), ':') {
        let TokenTree::Ident(ty) = toks.get(k + 1)? else { return None };
        if !WIDE.iter().any(|w| *ty == w) {
            return None;
        }
        k += 2;
    }
    if !is_punct(toks.get(k), '=') || is_punct(toks.get(k + 1), '=') {
        return None;
    }
    let (f, n) = field_operand(toks, k + 1, ctx)?;
    (f == "thread_idx" && is_punct(toks.get(k + 1 + n), ';')).then(|| (name.to_string(), k + 2 + n - i))
}

/// The check of one token stream, with the names bound to the thread's index.
struct Scan<'a> {
    ctx: &'a str,
    t: &'a str,
    aliases: HashSet<String>,
}

impl Scan<'_> {
    fn ok(&self, code: &TokenStream) -> bool {
        let toks: Vec<TokenTree> = code.clone().into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            if let Some(n) = self.global_index(&toks, i).or_else(|| self.base_binding(&toks, i)) {
                i += n;
                continue;
            }
            match &toks[i] {
                TokenTree::Group(g) => {
                    if g.delimiter() == Delimiter::Parenthesis && !call_allowed(&toks, i) {
                        return false;
                    }
                    if !self.ok(&g.stream()) {
                        return false;
                    }
                    i += 1;
                }
                TokenTree::Ident(id) if *id == self.t || id.to_string().contains("shared") => return false,
                TokenTree::Ident(l) if *l == "let" => match alias_binding(&toks, i, self.ctx) {
                    Some((name, n)) if self.aliases.contains(&name) => i += n,
                    _ => i += 1,
                },
                TokenTree::Ident(id) if self.aliases.contains(&id.to_string()) => return false,
                TokenTree::Ident(id) if *id == self.ctx => {
                    if matches!(field(&toks, i, self.ctx), Some((f, _)) if f == "block_dim" || f == "grid_dim") {
                        i += 5;
                    } else if i > 0 && is_ident(&toks[i - 1], "let") || i > 1 && is_ident(&toks[i - 2], "let") {
                        // `let ctx = ..` or `let mut ctx = ..`.
                        i += 1;
                    } else {
                        return false;
                    }
                }
                _ => i += 1,
            }
        }
        true
    }

    /// `ctx.F.x` or (for `thread_idx`) a name bound to it, optionally `as T` with `T` in
    /// [`WIDE`], at `i`: `F` and the tokens it takes.
    fn operand(&self, toks: &[TokenTree], i: usize) -> Option<(String, usize)> {
        if let Some(TokenTree::Ident(a)) = toks.get(i) {
            if self.aliases.contains(&a.to_string()) {
                return Some(("thread_idx".into(), 1 + cast_len(toks, i + 1)?));
            }
        }
        field_operand(toks, i, self.ctx)
    }

    /// `a * b` at `i` with `{a, b}` the block's index and size operands, or such a product in
    /// parentheses: the tokens it takes.
    fn product(&self, toks: &[TokenTree], i: usize) -> Option<usize> {
        if let Some(TokenTree::Group(g)) = toks.get(i) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            return (g.delimiter() == Delimiter::Parenthesis && self.product(&inner, 0) == Some(inner.len()))
                .then_some(1);
        }
        let (a, n) = self.operand(toks, i)?;
        if !is_punct(toks.get(i + n), '*') {
            return None;
        }
        let (b, m) = self.operand(toks, i + n + 1)?;
        let pair = [a.as_str(), b.as_str()];
        (pair == ["block_idx", "block_dim"] || pair == ["block_dim", "block_idx"]).then_some(n + 1 + m)
    }

    /// The global index at `i` (`product + thread` or `thread + product`), standing alone: the
    /// tokens it takes.
    fn global_index(&self, toks: &[TokenTree], i: usize) -> Option<usize> {
        if !free_before(toks, i) {
            return None;
        }
        let n = if let Some(p) = self.product(toks, i) {
            if !is_punct(toks.get(i + p), '+') {
                return None;
            }
            let (t, m) = self.operand(toks, i + p + 1)?;
            (t == "thread_idx").then_some(p + 1 + m)?
        } else {
            let (t, m) = self.operand(toks, i)?;
            if t != "thread_idx" || !is_punct(toks.get(i + m), '+') {
                return None;
            }
            m + 1 + self.product(toks, i + m + 1)?
        };
        free_after(toks, i + n).then_some(n)
    }

    /// `ctx.block_idx.x * ctx.block_dim.x ;` at `i`, right after `let __emu_base =`: the
    /// tokens it takes.
    fn base_binding(&self, toks: &[TokenTree], i: usize) -> Option<usize> {
        let [TokenTree::Ident(l), TokenTree::Ident(b), TokenTree::Punct(eq)] = toks.get(i.checked_sub(3)?..i)? else {
            return None;
        };
        if *l != "let" || *b != "__emu_base" || eq.as_char() != '=' {
            return None;
        }
        let n = self.product(toks, i)?;
        is_punct(toks.get(i + n), ';').then_some(n)
    }
}

fn is_ident(t: &TokenTree, name: &str) -> bool {
    matches!(t, TokenTree::Ident(id) if *id == name)
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// `ctx . F . C` at `i`: the field `F` and component `C`.
fn field(toks: &[TokenTree], i: usize, ctx: &str) -> Option<(String, String)> {
    let [TokenTree::Ident(c), TokenTree::Punct(d1), TokenTree::Ident(f), TokenTree::Punct(d2), TokenTree::Ident(x)] =
        toks.get(i..i + 5)?
    else {
        return None;
    };
    (*c == ctx && d1.as_char() == '.' && d2.as_char() == '.').then(|| (f.to_string(), x.to_string()))
}

/// The integer types a position may be cast to without losing a span's lane index.
const WIDE: [&str; 6] = ["u32", "i32", "u64", "i64", "usize", "isize"];

/// The tokens of an optional `as T` at `i`, `T` in [`WIDE`] (`None`: a narrower cast).
fn cast_len(toks: &[TokenTree], i: usize) -> Option<usize> {
    if !toks.get(i).is_some_and(|t| is_ident(t, "as")) {
        return Some(0);
    }
    let TokenTree::Ident(ty) = toks.get(i + 1)? else { return None };
    WIDE.iter().any(|w| *ty == w).then_some(2)
}

/// `ctx.F.x`, optionally `as T` with `T` in [`WIDE`], at `i`: `F` and the tokens it takes.
fn field_operand(toks: &[TokenTree], i: usize, ctx: &str) -> Option<(String, usize)> {
    let (f, x) = field(toks, i, ctx)?;
    if x != "x" {
        return None;
    }
    Some((f, 5 + cast_len(toks, i + 5)?))
}

/// Whether the token before `i` leaves an expression starting at `i` alone: nothing that
/// binds at least as tightly as `+` from its left (`-`, `*`, `/`, `%`, a unary `!` or `&`, a
/// method's `.`, `as`).
fn free_before(toks: &[TokenTree], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|k| &toks[k]) else { return true };
    match prev {
        TokenTree::Punct(p) => match p.as_char() {
            '-' | '*' | '/' | '%' | '!' | '.' => false,
            // `&&` is fine, a lone `&` (a reference or a bitwise and of a product) is not.
            '&' => {
                i >= 2
                    && matches!(&toks[i - 2], TokenTree::Punct(q) if q.as_char() == '&' && q.spacing() == Spacing::Joint)
            }
            _ => true,
        },
        TokenTree::Ident(id) => *id != "as",
        _ => true,
    }
}

/// Whether the token at `i` leaves an expression ending before it alone: nothing that binds
/// more tightly than `+` to its right (`*`, `/`, `%`, `.`, `as`, `?`, an index or a call).
fn free_after(toks: &[TokenTree], i: usize) -> bool {
    match toks.get(i) {
        None => true,
        Some(TokenTree::Punct(p)) => !matches!(p.as_char(), '*' | '/' | '%' | '.' | '?'),
        Some(TokenTree::Ident(id)) => *id != "as",
        Some(TokenTree::Group(g)) => !matches!(g.delimiter(), Delimiter::Bracket | Delimiter::Parenthesis),
        Some(TokenTree::Literal(_)) => true,
    }
}

/// The runtime functions a span form may call (through `::deviceemu::__private`).
const RUNTIME: [&str; 8] =
    ["lane_last", "view_aligned", "to_index", "lane_load", "lane_store", "lane_check", "new", "min"];

/// The methods it may call: the views' length, the lane buffers', the cursor's and the runner's
/// own, and pure float methods.
const METHODS: [&str; 7] = ["len", "get", "set", "lane", "threads", "tier", "each_span_chunk"];

/// Whether the parenthesised group at `i` is an allowed call's arguments, or no call at all.
fn call_allowed(toks: &[TokenTree], i: usize) -> bool {
    let Some(TokenTree::Ident(name)) = i.checked_sub(1).map(|k| &toks[k]) else {
        // A tuple, a condition, a turbofish's call (`LaneBuf::<_, N>::new()` ends in an
        // ident, so a `>` here is a comparison's operand).
        return true;
    };
    let name = name.to_string();
    if matches!(name.as_str(), "if" | "while" | "match" | "in" | "return" | "let" | "mut" | "as" | "unsafe") {
        return true;
    }
    if i >= 2 && is_punct(Some(&toks[i - 2]), '.') {
        return METHODS.contains(&name.as_str()) || FLOAT_METHODS.contains(&name.as_str());
    }
    if name == "Some" {
        return true;
    }
    // A path call: the runtime's, or `::core::cmp::min`.
    let path = path_before(toks, i - 1);
    (path.iter().any(|s| s == "__private") && RUNTIME.contains(&name.as_str())) || path == ["core", "cmp", "min"]
}

/// The identifiers of the path that ends at `end` (an identifier), first to last, skipping
/// `::` and generic arguments (`::deviceemu::__private::LaneBuf::<_, N>::new`).
fn path_before(toks: &[TokenTree], end: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut k = end;
    while let TokenTree::Ident(id) = &toks[k] {
        out.push(id.to_string());
        // `::` before the segment, or `::<..>::` before it: go on to the segment before.
        let sep = |k: usize| k >= 2 && is_punct(toks.get(k - 1), ':') && is_punct(toks.get(k - 2), ':');
        if !sep(k) {
            break;
        }
        k -= 2;
        if k >= 1 && is_punct(toks.get(k - 1), '>') {
            let mut depth = 0;
            let mut j = k - 1;
            loop {
                if is_punct(toks.get(j), '>') {
                    depth += 1;
                } else if is_punct(toks.get(j), '<') {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                if j == 0 {
                    return Vec::new();
                }
                j -= 1;
            }
            if !sep(j) {
                break;
            }
            k = j - 2;
        }
        if k == 0 {
            break;
        }
        k -= 1;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::global_index_only;

    fn ok(code: proc_macro2::TokenStream) -> bool {
        global_index_only(&code, "ctx", "t")
    }

    #[test]
    fn the_global_index_in_any_order_and_cast_is_accepted() {
        assert!(ok(quote!(let i = (ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x) as usize;)));
        assert!(ok(quote!(let i = ctx.block_dim.x * ctx.block_idx.x + ctx.thread_idx.x;)));
        assert!(ok(quote!(let i = ctx.thread_idx.x + ctx.block_idx.x * ctx.block_dim.x;)));
        assert!(ok(quote!(let i = ctx.block_idx.x as usize * ctx.block_dim.x as usize + ctx.thread_idx.x as usize;)));
        assert!(ok(quote!(let i = 3 + ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x - 1;)));
        assert!(ok(quote!(let s = ctx.block_dim.x * ctx.grid_dim.x;)));
        assert!(ok(quote!(let __emu_base = ctx.block_idx.x * ctx.block_dim.x;)));
        assert!(ok(quote!(let __emu_base = (ctx.block_idx.x * ctx.block_dim.x);)));
        assert!(ok(quote!(let g = (ctx.thread_idx.x + (ctx.block_idx.x * ctx.block_dim.x)) as i32;)));
        // A name bound once to the thread's index, used only in the global index.
        assert!(ok(quote!(let tid: u32 = ctx.thread_idx.x; let i = ctx.block_idx.x * ctx.block_dim.x + tid as usize;)));
    }

    #[test]
    fn a_name_for_the_thread_index_used_otherwise_is_refused() {
        assert!(!ok(quote!(let tid = ctx.thread_idx.x; let i = ctx.block_idx.x * ctx.block_dim.x + tid; y[i] = tid;)));
        assert!(!ok(quote!(let mut tid = ctx.thread_idx.x; let i = ctx.block_idx.x * ctx.block_dim.x + tid;)));
        assert!(!ok(
            quote!(let tid = ctx.thread_idx.x; let tid = ctx.thread_idx.x; let i = ctx.block_idx.x * ctx.block_dim.x + tid;)
        ));
        assert!(!ok(quote!(let tid = ctx.thread_idx.x as u16; let i = ctx.block_idx.x * ctx.block_dim.x + tid;)));
        assert!(!ok(
            quote!(let tid = ctx.thread_idx.x; for tid in 0..4 { let i = ctx.block_idx.x * ctx.block_dim.x + tid; })
        ));
        assert!(!ok(quote!(let b = (ctx.block_idx.x * ctx.block_dim.x);)));
    }

    #[test]
    fn any_other_read_of_the_position_is_refused() {
        assert!(!ok(quote!(let i = ctx.thread_idx.x; y[i] = 1.0;)));
        assert!(!ok(quote!(y[ctx.thread_idx.x] = 1.0;)));
        assert!(!ok(quote!(let b = ctx.block_idx.x;)));
        assert!(!ok(quote!(let i = 2 * ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x;)));
        assert!(!ok(quote!(let i = n - ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x;)));
        assert!(!ok(quote!(let i = ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x * 2;)));
        assert!(!ok(quote!(let i = ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x as u16;)));
        assert!(!ok(quote!(let i = ctx.block_idx.y * ctx.block_dim.y + ctx.thread_idx.y;)));
        assert!(!ok(quote!(let b = ctx.block_idx.x * ctx.block_dim.x;)));
        assert!(!ok(quote!(f(ctx);)));
    }

    #[test]
    fn calls_other_than_the_forms_own_are_refused() {
        assert!(ok(
            quote!(let m = ::core::cmp::min(a, b); let v = x.sqrt(); ::deviceemu::__private::lane_load(&x, 0, &mut b, m);)
        ));
        assert!(ok(quote!(let b = ::deviceemu::__private::LaneBuf::<_, { N }>::new();)));
        assert!(!ok(quote!(let v = helper(x);)));
        assert!(!ok(quote!(let v = x.helper();)));
        assert!(!ok(quote!(let v = ::deviceemu::__private::lane_id();)));
        assert!(!ok(quote!(let s = shared_array![f32; 4];)));
    }
}
