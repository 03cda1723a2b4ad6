//! The fast forms of a region, each a tier behind one interface ([`Tier`]): given what
//! `Program::emit_run` computed of a region ([`Region`]), a tier gives the guard under which
//! its form may run and the form's code, or nothing. [`chain`] folds [`TIERS`] over the
//! region's scalar form, each form wrapping the chain so far:
//!
//! ```text
//! if guard_n { fast_n } else { .. if guard_1 { fast_1 } else { scalar } .. }
//! ```
//!
//! so the last tier of the list is tried first at run time, and every guard that fails
//! falls through to the next. Each guard asks `Regions::tier` about its tier's bit
//! (`EMU_TIERS_OFF`), and the forms that run unchecked accesses also that the launch has no
//! per-access checker. Adding a tier is a type here and a place in [`TIERS`].

use std::cell::OnceCell;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Expr, Stmt};

use super::interleave::Interleave;
use super::ranges::RangeProof;
use super::{lane_buf, lane_k, rt, thread_code, Gen, Hoisted, Program, Vectorised};

/// What `emit_run` computed of one region, which every tier reads.
pub(super) struct Region<'a> {
    /// The region's thread code.
    pub(super) thread: &'a [Stmt],
    /// The values of earlier regions it restores (slots taken, recomputed locals).
    pub(super) restores: &'a TokenStream,
    /// The same for a form whose chunks must have no effect before their end: slots copied,
    /// not taken (`None`: a value is not known to be `Copy`).
    pub(super) vector_restores: Option<&'a TokenStream>,
    /// The values it puts back into their slots.
    pub(super) saves: &'a TokenStream,
    /// Whether every value it saves is bound in it.
    pub(super) fresh_saves: bool,
    /// The per-thread slots its restores and saves take from and put into.
    pub(super) slots: &'a [syn::Ident],
    /// What an interleaved form restores and saves (`None`: it cannot be interleaved).
    pub(super) io: Option<&'a Interleave<'a>>,
    /// `(tid, bound)` when it runs only the threads below `bound` (`tid` empty when the bound
    /// is an outer one, not the region's own `if tid < bound`).
    pub(super) narrowed: Option<&'a (String, Expr)>,
    /// `m` when it runs only the threads whose `thread_idx().x` is a multiple of `m`
    /// (`Program::strided`; never with a narrowing).
    pub(super) stride: Option<&'a Expr>,
    pub(super) g: &'a Gen,
    /// [`NarrowedHoist`]'s proof and code, computed by the first tier that asks.
    pub(super) narrowed_hoist: OnceCell<Option<(TokenStream, Vec<Stmt>)>>,
    /// A lane loop's hoisted form (`Program::hoist`), computed by the first tier that asks.
    pub(super) hoisted: OnceCell<Option<Hoisted>>,
}

impl Region<'_> {
    /// A thread's closure for `Regions::each`/`each_below` over `code`, with the region's
    /// restores and `saves`. Inlined into the runner's loop over the threads (a block's tail
    /// expression is one of the places a closure may carry an attribute on stable Rust).
    pub(super) fn thread_fn(&self, code: &TokenStream, saves: &TokenStream) -> TokenStream {
        let (t, ctx, restores) = (&self.g.t, &self.g.ctx, self.restores);
        quote! {{
            #[inline(always)]
            |#t: usize, #ctx: ::deviceemu::__private::ThreadCtx| -> ::core::option::Option<::deviceemu::__private::Exit> {
                #restores
                #code
                #saves
                ::core::option::Option::None
            }
        }}
    }

    /// The call that runs closure `f` for the region's threads.
    pub(super) fn each(&self, f: &TokenStream) -> TokenStream {
        let rb = &self.g.rb;
        match self.narrowed {
            Some((_, bound)) => quote!(#rb.each_below(#bound, #f);),
            None => quote!(#rb.each(#f);),
        }
    }

    /// The call that runs `stmts`, a form of the region's thread code, for the region's
    /// threads, with `saves` after it. A strided region (`if tid % m == 0 { body }`) also
    /// gives `Regions::each_strided` the body alone, in a block of its own, for the threads it
    /// runs in index order: each of them passes the test.
    pub(super) fn run(&self, stmts: &[Stmt], saves: &TokenStream) -> TokenStream {
        let f = self.thread_fn(&thread_code(stmts), saves);
        let (Some(m), [Stmt::Expr(Expr::If(i), _)]) = (self.stride, stmts) else { return self.each(&f) };
        let body = Stmt::Expr(
            Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() }),
            None,
        );
        let passed = self.thread_fn(&thread_code(&[body]), saves);
        let rb = &self.g.rb;
        quote!(#rb.each_strided(#m, #passed, #f);)
    }

    /// The region's own narrowing `(tid, bound)`, when it has one.
    fn own_narrowing(&self) -> Option<(&str, &Expr)> {
        self.narrowed.filter(|(tid, _)| !tid.is_empty()).map(|(tid, b)| (tid.as_str(), b))
    }

    /// The narrowed region with its accesses' bounds hoisted (`Program::hoist_region`), once.
    fn narrowed_hoist(&self, p: &Program) -> Option<&(TokenStream, Vec<Stmt>)> {
        self.narrowed_hoist
            .get_or_init(|| {
                let (tid, bound) = self.own_narrowing()?;
                p.hoist_region(self.thread, tid, bound, self.g)
            })
            .as_ref()
    }

    /// The lane loop's hoisted form (`Program::hoist`), once.
    fn hoisted(&self, p: &Program) -> Option<&Hoisted> {
        self.hoisted.get_or_init(|| p.hoist(self.thread, self.g)).as_ref()
    }
}

/// A fast form: `code` runs when `guard` holds.
pub(super) struct Fast {
    guard: TokenStream,
    code: TokenStream,
}

/// One fast form of a region.
pub(super) trait Tier: Sync {
    /// The form for region `r` of program `p`, if it has one.
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast>;
}

/// The tiers, in the order they wrap the scalar form: the last is tried first.
const TIERS: [&dyn Tier; 7] =
    [&ViewsChecked, &NarrowedHoist, &RangeProved, &VectorRegion, &LaneHoist, &LaneVector, &LaneRows];

/// The region's forms: `scalar` wrapped by every tier that has a form for it.
pub(super) fn chain(p: &Program, r: &Region<'_>, scalar: TokenStream) -> TokenStream {
    TIERS.iter().fold(scalar, |call, tier| match tier.fast(p, r) {
        Some(Fast { guard, code }) => quote! {
            if #guard {
                #code
            } else {
                #call
            }
        },
        None => call,
    })
}

/// A region or lane loop whose views are checked live and aligned once per run, and whose
/// accesses then check their index only (`views.rs`): what runs when no proof below does.
struct ViewsChecked;

impl Tier for ViewsChecked {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        let (guard, valid) = p.views_region(r.thread)?;
        let (checked, rb) = (crate::rewrite::checked(), &r.g.rb);
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_VIEWS) && #guard),
            code: {
                let each = r.run(&valid, r.saves);
                quote!(#rb.note_views(); #each)
            },
        })
    }
}

/// A narrowed region (`if tid < s`) whose accesses are `v[tid + u]`, proved in bounds for the
/// threads below the bound (`Program::hoist_region`).
struct NarrowedHoist;

impl Tier for NarrowedHoist {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        let (_, bound) = r.own_narrowing()?;
        let (proof, hoisted) = r.narrowed_hoist(p)?;
        let (checked, rb) = (crate::rewrite::checked(), &r.g.rb);
        let fast = r.thread_fn(&thread_code(hoisted), r.saves);
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_HOISTED) && #proof),
            code: quote!(#rb.each_below(#bound, #fast);),
        })
    }
}

/// A barrier kernel's region whose accesses' bounds are proved from their indices' ranges
/// (`ranges.rs`), where [`NarrowedHoist`] does not apply; over all its threads it may run in
/// groups, interleaved (`interleave.rs`) or in turn (`sequence.rs`), each a tier of its own.
struct RangeProved;

impl Tier for RangeProved {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        if p.lane_loop || r.narrowed_hoist(p).is_some() {
            return None;
        }
        let RangeProof { proof, proved } = p.range_region(r.thread)?;
        let (checked, rb) = (crate::rewrite::checked(), &r.g.rb);
        let fast = r.thread_fn(&thread_code(&proved), r.saves);
        let grouped = (r.narrowed.is_none() && r.stride.is_none())
            .then(|| {
                r.io.and_then(|io| p.interleaved(&proved, io, &fast, rb))
                    .map(|group| (quote::format_ident!("TIER_INTERLEAVE"), group))
                    .or_else(|| {
                        p.in_turn(&proved, r.restores, r.saves, &fast, r.g)
                            .map(|group| (quote::format_ident!("TIER_TURN"), group))
                    })
            })
            .flatten();
        let plain = r.run(&proved, r.saves);
        let run = match grouped {
            Some((tier, group)) => quote! {
                if #rb.tier(::deviceemu::__private::#tier) {
                    #group
                } else {
                    #plain
                }
            },
            None => plain,
        };
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_RANGES) && #proof),
            code: quote!(#rb.note_proved(); #run),
        })
    }
}

/// A barrier kernel's region vectorised in chunks of lanes (`vector.rs`); values it takes
/// from per-thread slots and puts back keep it scalar unless it writes in place (its chunks
/// are then never run again).
struct VectorRegion;

impl Tier for VectorRegion {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        // A strided region runs a fraction of its threads scalar rather than all of them in
        // chunks.
        if p.lane_loop || r.stride.is_some() {
            return None;
        }
        let bound = r.narrowed.map(|(_, b)| b);
        let restores = super::vector::Restores {
            taken: r.restores,
            copied: r.vector_restores,
            fresh_saves: r.fresh_saves,
            slots: r.slots,
        };
        let (proof, fast) = p.vector_region(r.thread, &restores, r.saves, bound, r.g)?;
        let (checked, rb) = (crate::rewrite::checked(), &r.g.rb);
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_VECTOR) && #rb.in_index_order() && #proof),
            code: fast,
        })
    }
}

/// A lane loop with its bounds checks hoisted (`Program::hoist`); it runs unchecked
/// accesses, so the checked copy takes [`LaneVector`] (with its per-chunk checks) or the
/// per-thread form.
struct LaneHoist;

impl Tier for LaneHoist {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        if !p.lane_loop {
            return None;
        }
        let Hoisted { proof, stmts, .. } = r.hoisted(p)?;
        let (checked, rb) = (crate::rewrite::checked(), &r.g.rb);
        let fast_fn = r.thread_fn(&thread_code(stmts), &TokenStream::new());
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_HOISTED) && #rb.in_index_order() && #proof),
            code: quote!(#rb.each(#fast_fn);),
        })
    }
}

/// A hoisted lane loop vectorised in chunks of lanes over lane buffers
/// (`__private::LaneBuf`). Values restored from earlier regions live in per-thread slots; a
/// lane loop has none (it has one region), and this form relies on that.
struct LaneVector;

/// The pieces of a [`LaneVector`] form: its proof, its lane buffers, the closure that runs a
/// chunk of lanes, and the block's first index.
pub(super) struct LaneChunks {
    pub(super) proof: TokenStream,
    pub(super) first: TokenStream,
    pub(super) fresh: TokenStream,
    pub(super) vector: TokenStream,
}

/// [`LaneVector`]'s pieces for region `r` of lane loop `p`, and its hoisted scalar code;
/// `chunk` is the most lanes a chunk has (`__private::LANE_CHUNK`, or `SPAN_CHUNK` for the
/// span form).
fn lane_chunks(p: &Program, r: &Region<'_>, chunk: TokenStream) -> Option<(LaneChunks, Vec<Stmt>)> {
    if !p.lane_loop || !r.restores.is_empty() {
        return None;
    }
    let Hoisted { proof, stmts: hoisted, vector } = r.hoisted(p)?;
    let Vectorised { first, stmts, loaded, written, sites } = vector.as_ref()?;
    let (checked, ctx) = (crate::rewrite::checked(), &r.g.ctx);
    let code = thread_code(stmts);
    let rt = rt();
    let k = lane_k();
    // The proof showed every index of the block, `first..first + threads`, in bounds of
    // each view; a chunk's lanes `c0..c0 + m` have the indices `first + c0..first + c0 +
    // m` (`lane_load` and `lane_store` check it again). One buffer per view for the
    // block, made (zeroed) once; each chunk loads its part of the views it reads.
    let loads = loaded.iter().map(|v| {
        let buf = lane_buf(v);
        quote!(#rt::lane_load(&#v, __emu_at, &mut #buf, __emu_m);)
    });
    let fresh = loaded.iter().chain(written.iter().filter(|v| !loaded.contains(v))).map(|v| {
        let buf = lane_buf(v);
        quote!(let mut #buf = #rt::LaneBuf::<_, { #chunk }>::new();)
    });
    // SAFETY (of the stores): each written view is loaded first or stored by every lane
    // of the chunk (a store is a statement of the body, which has no branch or exit), so
    // its elements `0..m` are initialised.
    let stores = written.iter().map(|v| {
        let buf = lane_buf(v);
        quote!(unsafe { #rt::lane_store(&#v, __emu_at, &#buf, __emu_m) };)
    });
    // The checked copy: the checkers see each access site of the body, in program order,
    // once per chunk (its lanes' elements `at..at + m`), after the chunk's arithmetic (a
    // chunk that panics has checked nothing) and before its stores; each reports at its
    // access's line (`track_caller`).
    let checks = sites.iter().map(|(v, write, span)| {
        let args = quote!(&#v, __emu_at, __emu_c0, __emu_m, #write);
        quote_spanned!(*span=> ::deviceemu::__private::lane_check(#args);)
    });
    let vector = quote! {
        |__emu_cursor: &#rt::LaneCursor, __emu_c0: usize, __emu_m: usize| {
            // What `each_chunk` gives already; said here so that the compiler drops
            // `LaneBuf::set`'s check and vectorises the loop.
            let __emu_m = ::core::cmp::min(__emu_m, #chunk);
            let __emu_at = __emu_first + __emu_c0;
            #(#loads)*
            for #k in 0..__emu_m {
                let #ctx = __emu_cursor.lane(__emu_c0 + #k);
                #code
            }
            if #checked {
                #(#checks)*
            }
            #(#stores)*
        }
    };
    let chunks = LaneChunks { proof: proof.clone(), first: first.clone(), fresh: quote!(#(#fresh)*), vector };
    Some((chunks, hoisted.clone()))
}

impl Tier for LaneVector {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        let rt = rt();
        let (LaneChunks { proof, first, fresh, vector }, hoisted) = lane_chunks(p, r, quote!(#rt::LANE_CHUNK))?;
        let (checked, rb, t, ctx) = (crate::rewrite::checked(), &r.g.rb, &r.g.t, &r.g.ctx);
        let scalar = thread_code(&hoisted);
        // A chunk that panics runs again lane by lane; in the checked copy through the
        // checked per-thread code, so that its lanes' accesses are checked.
        let checked_fn = r.thread_fn(&thread_code(r.thread), &TokenStream::new());
        let code = quote! {
            let __emu_first = #rt::Index::to_index(#first);
            #fresh
            #rb.each_chunk(
                #vector,
                |#t: usize, #ctx: ::deviceemu::__private::ThreadCtx| {
                    if #checked {
                        let _ = (#checked_fn)(#t, #ctx);
                    } else {
                        #scalar
                    }
                },
            );
        };
        Some(Fast {
            guard: quote!(#rb.tier(::deviceemu::__private::TIER_VECTOR) && #rb.in_index_order() && #proof),
            code,
        })
    }
}

/// The span form of a lane loop's region (`spans.rs`): [`LaneVector`]'s chunks over several
/// consecutive blocks at once, as `(guard, code)`; `None` when the region has no
/// `LaneVector` form.
pub(super) fn span(p: &Program, r: &Region<'_>) -> Option<(TokenStream, TokenStream)> {
    let (rb, rt) = (&r.g.rb, rt());
    let (LaneChunks { proof, first, fresh, vector }, _) = lane_chunks(p, r, quote!(#rt::SPAN_CHUNK))?;
    let code = quote! {
        let __emu_first = #rt::Index::to_index(#first);
        #fresh
        #rb.each_span_chunk(#vector);
    };
    Some((quote!(#rb.tier(::deviceemu::__private::TIER_VECTOR) && #proof), code))
}

/// A lane loop of a block of rows (`thread_idx().y`, `.z`) whose 1-D forms do not apply,
/// vectorised row by row (`rows.rs`) under its range proof (`ranges.rs`); a row whose run of
/// lanes or ends do not hold runs lane by lane through the proved code.
struct LaneRows;

impl Tier for LaneRows {
    fn fast(&self, p: &Program, r: &Region<'_>) -> Option<Fast> {
        if !p.lane_loop || !r.restores.is_empty() || r.hoisted(p).is_some() {
            return None;
        }
        let RangeProof { proof, proved } = p.range_region(r.thread)?;
        let vector = p.rows_form(r.thread, r.g)?;
        let (checked, rb, t, ctx) = (crate::rewrite::checked(), &r.g.rb, &r.g.t, &r.g.ctx);
        let scalar = r.thread_fn(&thread_code(&proved), &TokenStream::new());
        Some(Fast {
            guard: quote!(!#checked && #rb.tier(::deviceemu::__private::TIER_VECTOR) && #rb.in_row_order() && #proof),
            code: quote! {
                #rb.each_row_chunk(
                    #vector,
                    |#t: usize, #ctx: ::deviceemu::__private::ThreadCtx| {
                        let _ = (#scalar)(#t, #ctx);
                    },
                );
            },
        })
    }
}
