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
//! * `ctx.block_idx.x * ctx.block_dim.x + ctx.thread_idx.x`, its factors in either order and
//!   the sum in either order, each operand optionally cast (`as usize`, and other integer
//!   types at least 32 bits wide), where nothing that binds tighter than `+` touches it from
//!   outside (a `-`, `*`, `/`, `%` before it, a `*`, `/`, `%`, `.`, `as` after it);
//! * `let __emu_base = ctx.block_idx.x * ctx.block_dim.x;`, the proof's first index (`mod.rs`,
//!   `Program::hoist`), whose lane `t` is then `__emu_base + t`;
//! * `ctx.block_dim.*` and `ctx.grid_dim.*`, which a span does not change;
//! * the bindings `let ctx = ..` of the lanes' contexts.
//!
//! It also accepts only the calls the form itself makes (the runtime's lane buffers, the
//! proof's helpers, `len`, pure float methods): a helper could read `block_idx()` from the
//! running block, which a span does not move. Kernels with shared memory never take a span:
//! each block has its own.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

use super::FLOAT_METHODS;

/// Whether `code`, a span form's tokens with context argument `ctx` and thread argument `t`,
/// reads the thread's position only as its global x index (the module's doc).
pub(super) fn global_index_only(code: &TokenStream, ctx: &str, t: &str) -> bool {
    let toks: Vec<TokenTree> = code.clone().into_iter().collect();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::Parenthesis && !call_allowed(&toks, i) {
                    return false;
                }
                if !global_index_only(&g.stream(), ctx, t) {
                    return false;
                }
                i += 1;
            }
            TokenTree::Ident(id) if *id == t || id.to_string().contains("shared") => return false,
            TokenTree::Ident(id) if *id == ctx => {
                if let Some(n) = global_index(&toks, i, ctx) {
                    i += n;
                } else if let Some(n) = base_binding(&toks, i, ctx) {
                    i += n;
                } else if matches!(field(&toks, i, ctx), Some((f, _)) if f == "block_dim" || f == "grid_dim") {
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

/// `ctx.F.x`, optionally `as T` with `T` in [`WIDE`], at `i`: `F` and the tokens it takes.
fn operand(toks: &[TokenTree], i: usize, ctx: &str) -> Option<(String, usize)> {
    let (f, x) = field(toks, i, ctx)?;
    if x != "x" {
        return None;
    }
    let cast = toks.get(i + 5).is_some_and(|t| is_ident(t, "as"));
    if !cast {
        return Some((f, 5));
    }
    let TokenTree::Ident(ty) = toks.get(i + 6)? else { return None };
    WIDE.iter().any(|w| *ty == w).then_some((f, 7))
}

/// `a * b` at `i` with `{a, b}` the block's index and size operands: the tokens it takes.
fn product(toks: &[TokenTree], i: usize, ctx: &str) -> Option<usize> {
    let (a, n) = operand(toks, i, ctx)?;
    if !is_punct(toks.get(i + n), '*') {
        return None;
    }
    let (b, m) = operand(toks, i + n + 1, ctx)?;
    let pair = [a.as_str(), b.as_str()];
    (pair == ["block_idx", "block_dim"] || pair == ["block_dim", "block_idx"]).then_some(n + 1 + m)
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

/// The global index at `i` (`product + thread` or `thread + product`), standing alone: the
/// tokens it takes.
fn global_index(toks: &[TokenTree], i: usize, ctx: &str) -> Option<usize> {
    if !free_before(toks, i) {
        return None;
    }
    let n = if let Some(p) = product(toks, i, ctx) {
        if !is_punct(toks.get(i + p), '+') {
            return None;
        }
        let (t, m) = operand(toks, i + p + 1, ctx)?;
        (t == "thread_idx").then_some(p + 1 + m)?
    } else {
        let (t, m) = operand(toks, i, ctx)?;
        if t != "thread_idx" || !is_punct(toks.get(i + m), '+') {
            return None;
        }
        m + 1 + product(toks, i + m + 1, ctx)?
    };
    free_after(toks, i + n).then_some(n)
}

/// `ctx.block_idx.x * ctx.block_dim.x ;` at `i`, right after `let __emu_base =`: the tokens
/// it takes.
fn base_binding(toks: &[TokenTree], i: usize, ctx: &str) -> Option<usize> {
    let [TokenTree::Ident(l), TokenTree::Ident(b), TokenTree::Punct(eq)] = toks.get(i.checked_sub(3)?..i)? else {
        return None;
    };
    if *l != "let" || *b != "__emu_base" || eq.as_char() != '=' {
        return None;
    }
    let n = product(toks, i, ctx)?;
    is_punct(toks.get(i + n), ';').then_some(n)
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
    }

    #[test]
    fn any_other_read_of_the_position_is_refused() {
        assert!(!ok(quote!(let i = ctx.thread_idx.x;)));
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
