//! Lowering (stage 3), part 2: the host form of a kernel body.
//!
//! * `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()` called in the body itself
//!   read the `ThreadCtx` argument the scheduler passes to the kernel function
//!   (`__emu_ctx.thread_idx`), so the per-thread loop does not go through thread-locals and the
//!   index arithmetic of a kernel folds into it. `lane_id()` becomes the same arithmetic on
//!   them: the linear index masked by `warp_mask`. Helpers keep calling the functions.
//! * Barriers become `.await`s, for the state-machine form (when asked):
//!
//! A call of `sync_threads()`, `sync_threads_count(p)`, `sync_threads_and(p)` or
//! `sync_threads_or(p)` (by its last path segment, so `deviceemu::sync_threads()` counts too)
//! that sits in the kernel's own body becomes `barrier_await(kind, p).await`, spanned like the
//! call so that the barrier's position is the user's line. Calls inside closures, nested
//! `async` blocks, nested items and macro arguments are left as they are: they stay the
//! blocking barrier, which the scheduler handles by parking the thread's fiber.
//!
//! Warp collectives called the same way (`active_mask`, `sync_warp`, `all_sync`, `any_sync`,
//! `ballot_sync`, `shfl_sync`, `shfl_up_sync`, `shfl_down_sync`, `shfl_xor_sync`, their
//! `_width` forms, the `reduce_*_sync` reductions, `match_any_sync` and `match_all_sync`,
//! without a turbofish) become
//! `name_await(args).await` likewise, and also make the kernel a state machine.
//!
//! These names are therefore reserved inside kernel bodies: a user function called
//! `sync_threads`, `lane_id` or `shfl_sync` would be replaced by the device's.

use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident};

/// Rewrites the index built-ins of `block` to read `ctx` and, with `awaits`, its barrier and
/// warp-collective calls to `.await`s; returns how many calls it rewrote.
pub(crate) fn host_body(block: &mut Block, ctx: &Ident, awaits: bool) -> usize {
    let mut a = HostBody { ctx, awaits, closure_depth: 0, count: 0 };
    a.visit_block_mut(block);
    a.count
}

struct HostBody<'a> {
    ctx: &'a Ident,
    awaits: bool,
    closure_depth: usize,
    count: usize,
}

impl VisitMut for HostBody<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Their bodies cannot `.await` in the kernel's future, but can read its indices.
            Expr::Closure(_) | Expr::Async(_) => {
                self.closure_depth += 1;
                visit_mut::visit_expr_mut(self, e);
                self.closure_depth -= 1;
                return;
            }
            Expr::Call(call) => {
                visit_mut::visit_expr_call_mut(self, call);
                let Expr::Path(p) = &*call.func else { return };
                if p.qself.is_some() {
                    return;
                }
                let Some(last) = p.path.segments.last() else { return };
                let name = last.ident.to_string();
                let span = call.span();
                if call.args.is_empty()
                    && matches!(name.as_str(), "thread_idx" | "block_idx" | "block_dim" | "grid_dim")
                {
                    let ctx = Ident::new(&self.ctx.to_string(), self.ctx.span().located_at(span));
                    let field = Ident::new(&name, span);
                    *e = syn::parse_quote_spanned!(span=> #ctx.#field);
                    return;
                }
                if call.args.is_empty() && name == "lane_id" && last.arguments.is_none() {
                    // The linear index in the block, masked by the warp size less one, as
                    // `warp::lane_id` computes it from the running thread: plain arithmetic on
                    // the context's fields, which fission recomputes in any region instead of
                    // keeping per thread, and which folds to `x & 31` in a 1-D block's loop.
                    let ctx = Ident::new(&self.ctx.to_string(), self.ctx.span().located_at(span));
                    *e = syn::parse_quote_spanned!(span=>
                        ((#ctx.thread_idx.x + #ctx.block_dim.x * (#ctx.thread_idx.y + #ctx.block_dim.y * #ctx.thread_idx.z)) & #ctx.warp_mask)
                    );
                    return;
                }
                if !self.awaits || self.closure_depth > 0 {
                    return;
                }
                let rt = quote_spanned!(span=> ::deviceemu::__private);
                let args: Vec<&Expr> = call.args.iter().collect();
                *e = match (name.as_str(), args.as_slice()) {
                    ("sync_threads", []) => {
                        syn::parse_quote_spanned!(span=> { #rt::barrier_await(#rt::BarrierOp::Sync, false).await; })
                    }
                    ("sync_threads_count", [p]) => {
                        syn::parse_quote_spanned!(span=> #rt::barrier_await(#rt::BarrierOp::Count, #p).await)
                    }
                    ("sync_threads_and", [p]) => {
                        syn::parse_quote_spanned!(span=> #rt::barrier_bool(#rt::barrier_await(#rt::BarrierOp::And, #p).await))
                    }
                    ("sync_threads_or", [p]) => {
                        syn::parse_quote_spanned!(span=> #rt::barrier_bool(#rt::barrier_await(#rt::BarrierOp::Or, #p).await))
                    }
                    // Warp collectives, when called without a turbofish (which the awaited form
                    // would drop): `name(args)` becomes `name_await(args).await`.
                    (
                        "active_mask"
                        | "sync_warp"
                        | "all_sync"
                        | "any_sync"
                        | "ballot_sync"
                        | "shfl_sync"
                        | "shfl_up_sync"
                        | "shfl_down_sync"
                        | "shfl_xor_sync"
                        | "shfl_sync_width"
                        | "shfl_up_sync_width"
                        | "shfl_down_sync_width"
                        | "shfl_xor_sync_width"
                        | "reduce_add_sync"
                        | "reduce_min_sync"
                        | "reduce_max_sync"
                        | "reduce_and_sync"
                        | "reduce_or_sync"
                        | "reduce_xor_sync"
                        | "match_any_sync"
                        | "match_all_sync",
                        _,
                    ) if last.arguments.is_none() && args.len() == warp_arity(&name) => {
                        let awaited = Ident::new(&format!("{name}_await"), span);
                        syn::parse_quote_spanned!(span=> #rt::#awaited(#(#args),*).await)
                    }
                    // Anything else, including a barrier called with the wrong arguments
                    // (left for the compiler to report on the user's call).
                    _ => return,
                };
                self.count += 1;
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// How many arguments the warp collective `name` takes.
fn warp_arity(name: &str) -> usize {
    match name {
        "active_mask" => 0,
        "sync_warp" => 1,
        "all_sync" | "any_sync" | "ballot_sync" => 2,
        "reduce_add_sync" | "reduce_min_sync" | "reduce_max_sync" | "reduce_and_sync" | "reduce_or_sync"
        | "reduce_xor_sync" | "match_any_sync" | "match_all_sync" => 2,
        "shfl_sync_width" | "shfl_up_sync_width" | "shfl_down_sync_width" | "shfl_xor_sync_width" => 4,
        _ => 3,
    }
}
