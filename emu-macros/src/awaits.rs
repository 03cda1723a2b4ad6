//! Stage 2b: turn a kernel body's barriers into `.await`s, for the host's state-machine form.
//!
//! A call of `sync_threads()`, `sync_threads_count(p)`, `sync_threads_and(p)` or
//! `sync_threads_or(p)` (by its last path segment, so `deviceemu::sync_threads()` counts too)
//! that sits in the kernel's own body becomes `barrier_await(kind, p).await`, spanned like the
//! call so that the barrier's position is the user's line. Calls inside closures, nested
//! `async` blocks, nested items and macro arguments are left as they are: they stay the
//! blocking barrier, which the scheduler handles by parking the thread's fiber.
//!
//! These names are therefore reserved inside kernel bodies: a user function called
//! `sync_threads` would be replaced by the device barrier.

use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr};

/// Rewrites the barrier calls of `block`; returns how many it rewrote.
pub(crate) fn await_barriers(block: &mut Block) -> usize {
    let mut a = Awaits { count: 0 };
    a.visit_block_mut(block);
    a.count
}

struct Awaits {
    count: usize,
}

impl VisitMut for Awaits {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Their bodies cannot `.await` in the kernel's future.
            Expr::Closure(_) | Expr::Async(_) => return,
            Expr::Call(call) => {
                visit_mut::visit_expr_call_mut(self, call);
                let Expr::Path(p) = &*call.func else { return };
                if p.qself.is_some() {
                    return;
                }
                let Some(last) = p.path.segments.last() else { return };
                let name = last.ident.to_string();
                let span = call.span();
                let rt = quote_spanned!(span=> ::deviceemu::__private);
                let args: Vec<&Expr> = call.args.iter().collect();
                *e = match (name.as_str(), args.as_slice()) {
                    ("sync_threads", []) => {
                        syn::parse_quote_spanned!(span=> { #rt::barrier_await(#rt::BarrierKind::Sync, false).await; })
                    }
                    ("sync_threads_count", [p]) => {
                        syn::parse_quote_spanned!(span=> #rt::barrier_await(#rt::BarrierKind::Count, #p).await)
                    }
                    ("sync_threads_and", [p]) => {
                        syn::parse_quote_spanned!(span=> (#rt::barrier_await(#rt::BarrierKind::And, #p).await != 0))
                    }
                    ("sync_threads_or", [p]) => {
                        syn::parse_quote_spanned!(span=> (#rt::barrier_await(#rt::BarrierKind::Or, #p).await != 0))
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
