//! Progress points: a counter at the head of every `while` and `loop` body of a host form, so
//! that a thread that spins makes room for the others and the watchdog can stop it
//! (emu-runtime's `host/progress.rs` has the algorithm).
//!
//! `while c { body }` becomes
//! `{ let mut n = 0u32; while c { if progress_due(&mut n) { progress_point(); } body } }`, and
//! the same for `loop`; in the body of a state-machine kernel the slow path is
//! `progress_await().await`. `for` loops run over finite iterators and are left alone, and so are
//! nested items, and loops whose body awaits a barrier or warp collective: each iteration
//! already returns to the scheduler there, and passing a barrier is progress. The point is
//! spanned like the loop, so a timeout report names the loop's line.

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident};

/// Puts a progress point in every `while` and `loop` of `block`; with `awaits`, those outside
/// closures and nested `async` blocks await theirs.
pub(crate) fn instrument_loops(block: &mut Block, awaits: bool) {
    Loops { awaits, closure_depth: 0 }.visit_block_mut(block);
}

struct Loops {
    awaits: bool,
    closure_depth: usize,
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
            Expr::While(_) | Expr::Loop(_) => {
                // Looked at before the nested loops get their own (awaited) points.
                let body = match e {
                    Expr::While(w) => &w.body,
                    Expr::Loop(l) => &l.body,
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
