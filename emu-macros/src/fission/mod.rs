//! Lowering (stage 3), part 3: loop fission. A kernel whose barriers are *structured* gets a
//! second host form, its *region form*, that runs one whole block: each stretch of code
//! between two barriers (a *region*) becomes a loop over the block's threads, and each barrier
//! the end of one such loop (`emu-runtime/src/host/sched/regions.rs` runs it). A barrier-free
//! kernel gets the same form with one region: a *lane loop*.
//!
//! # Structured
//!
//! The body is read as a sequence of *nodes* (`Node`, `nodes.rs`): runs of ordinary
//! statements, barriers (`sync_threads();` as a statement of its own), and `while` loops, `for`
//! loops over ranges and `if`/`else` whose body holds barriers, whose condition (or range) the
//! uniformity analysis (`uniform.rs`) proves block-uniform, and whose body is again a sequence
//! of nodes. Anything else keeps today's forms and the general path, with the reason kept for
//! `EMU_VERBOSE`:
//!
//! * a barrier anywhere else (under an `if`, in a closure, a macro, a helper), a
//!   `sync_threads_count`, `_and` or `_or` other than a statement that binds or drops its
//!   result (normalisation makes those a vote, a plain barrier and the vote's count:
//!   `normalise.rs`, `vote_barriers`), or a warp collective other than a full-mask shuffle,
//!   vote or `sync_warp` at statement level;
//! * a `loop`, or a `while` in region code whose end depends on memory or calls (it may spin
//!   on a flag another thread sets, which needs the general path's independent progress; a
//!   `while` that ends on the thread's own arithmetic, a grid-stride loop, is region code, with
//!   a region progress point at its head: `local_termination`, `RegionLoops`), or a `for` over
//!   something other than a range or a local's elements (`finite_iter`; a `for` over a range a
//!   thread computes, a grid-stride `for` from `thread_idx().x`, is region code with a region
//!   progress point, as such a `while` is);
//! * a call of a function that is not a known pure one (`deviceemu::math`'s, `core`'s, a
//!   type's `default()`), unless it is a `#[device]` helper expanded earlier that publishes that
//!   it does not wait (`helpers.rs`: the launcher then checks that at compile time) or a
//!   function of the kernel's own file whose body cannot wait (`inline.rs`, `select`); an
//!   unknown macro, `async`, labelled `break`/`continue`, or `break`/`continue` out of a loop
//!   with barriers other than the statement-level `if c { break; }` and `if c { continue; }`
//!   that normalisation makes structured (`normalise.rs`, `loop_exits`; `c` must then be
//!   block-uniform);
//! * what normalisation (`normalise.rs`: items hoisted, cooperative groups' block handle,
//!   tuple `let`s, `let`s without a value) and alpha-renaming (`unshadow`) leave of a name
//!   bound twice at statement level, or of a statement-level `let` that is not a plain name
//!   with a value;
//! * thread code with effects (memory, calls, exits) right before and right inside a loop with
//!   barriers (or at its end and at its start): those stretches are one region on the general
//!   path, and running them as two loops would change the order of the threads' memory
//!   operations. When one of the two only computes the thread's own values (locals, local
//!   arrays: `private_stmt`), the order of the memory operations is the same either way, and
//!   the loops are split (Parboil's sgemm zeroes its accumulators before its tile loop).
//!
//! # Values across barriers
//!
//! A statement-level `let` is one of three kinds:
//!
//! * **uniform** (`uniform.rs`): kept a scalar, evaluated once per block between the region
//!   loops, where it sits at the start or end of its region (else it is per thread); it may
//!   load shared memory at uniform indices where its region directly follows a barrier and
//!   stores none of that memory (`uniform::shared_reads`), as may a loop's or `if`'s head
//!   computed where no thread code has stored shared memory since a barrier;
//! * **recomputed**: an immutable value computed from the thread's indices, constants,
//!   parameters and immutable uniform values only (`let tid = thread_idx().x as usize`,
//!   `let i = block_idx().x * 256 + tid`): recomputed at the start of each region that uses
//!   it, which costs less than storing it;
//! * **per thread**: a `Lanes` slot per thread, taken at the start of each region that uses it
//!   and put back at its end.
//!
//! A region whose whole thread code is `if tid < bound { .. }` (or `<=`, or `==`; `tid`
//! recomputed as `thread_idx().x` cast to an integer type that holds it, `bound` uniform) is
//! run over the threads below `bound` (or `bound + 1`) only (`Regions::each_below`); the `if`
//! stays in the code, so the hint is only an optimisation.
//!
//! # Tiers
//!
//! The user-visible contract (which settings force which path, what `EMU_VERBOSE` prints) is
//! in the guide's settings chapter (docs/guide/settings.md, "Which path a kernel takes").
//!
//! `#[kernel]` gives most kernels a second host form that runs a whole block at once
//! (`emu-macros/src/fission/`, run by `emu-runtime/src/host/sched/regions.rs`):
//!
//! - **Barrier regions** for kernels whose `sync_threads()` calls are *structured*: statements of
//!   the kernel body, or inside `while` and `for`-over-a-range loops whose condition or range is
//!   block-uniform (built from constants, scalar parameters, `block_idx()`, `block_dim()`,
//!   `grid_dim()`, view lengths and locals assigned only such values outside thread-dependent
//!   code). Each stretch between two barriers is a loop over the block's threads; values that
//!   live across a barrier are kept per thread, block-uniform ones once per block; a region that
//!   is all `if tid < s { .. }` loops over the threads below `s` only, and when its accesses are
//!   `v[tid]`, `v[tid + u]` or `v[u]` (`u` block-uniform) their bounds are proved once for the
//!   region instead of checked one by one. The block reduction, tiled matrix products,
//!   shared-memory stencils and block scans take it.
//! - **Range-proved regions** (`emu-macros/src/fission/ranges.rs`): in a region that runs one
//!   thread at a time, accesses whose indices are sums and products of the thread's indices
//!   (`thread_idx().y as usize`), variables of `for j in a..b` loops with uniform bounds,
//!   immutable locals bound to such expressions, and uniform values, 2-D rows included
//!   (`ta[ty][j]`), are proved in bounds once per region run: each index's smallest and largest
//!   values over the block's threads and the loops' passes, computed with checked arithmetic in
//!   the index's own type, against the view's length; an `if` narrows what its condition
//!   compares in its branches (a `bool` local's too, and `else` what the condition rules out:
//!   a stencil's halo flags). Then they run without their checks (still
//!   relaxed accesses); otherwise, or under a checker, the region runs checked, and reports as
//!   before. The proof evaluates only uniform terms that cannot panic. The tiled matrix product's
//!   regions take it; `EMU_VERBOSE=1` prints how many region runs did. Such a region whose work
//!   is one `for` loop of arithmetic on the thread's own values, reading memory the region does
//!   not write (a dot product over shared tiles), runs eight threads at a time with the loop
//!   outside (`fission/interleave.rs`): each thread's operations and their order are its own, so
//!   the results are the same bit for bit, and the threads' dependent additions overlap. The
//!   eight are consecutive threads of one row of the block, and its loads of shared arrays read a
//!   copy taken when the region starts (nobody writes them during it), so the compiler merges
//!   what the threads share and vectorises what they read side by side. A group that panics
//!   runs again one thread at a time, and the report names the thread.
//! - **Regions in turn** (`emu-macros/src/fission/sequence.rs`): a range-proved region of
//!   straight-line code (`let`s, proved loads and stores, assignments to its own locals: a tile
//!   load `ta[ty][tx] = a[row * k + t * 16 + tx]`) runs eight threads per call, each thread's
//!   code whole and one after another in index order, as one at a time would; the uniform values
//!   it reads are loaded once per eight threads instead of once per thread. A panic is reported
//!   at the thread that raises it.
//! - **Vectorised regions** (`emu-macros/src/fission/vector.rs`): a region of such a kernel
//!   whose code is straight-line arithmetic over accesses `v[tid]`, `v[tid + u]` (`u`
//!   block-uniform; `i = base + tid` counts too) and read-only `v[u]`, whose `if`s are `x < b`
//!   with `x` such an index and `b` uniform, or `tid >= u` / `tid > u` selects whose branch may
//!   read `v[tid - w]` of a view the region does not write (a scan's `if tid >= off { t[tid -
//!   off] } else { 0.0 }`, a left neighbour's `if tid > 0 { t[tid - 1] }`), and which puts back
//!   no per-thread value it took unless it writes in place (values it binds may go to per-thread
//!   slots, and values of earlier regions are copied out of theirs; a value read for the last
//!   time is not put back; in place, a chunk takes and puts back its values; every chunk
//!   reaches the slots through its window of them, `Slots::window`),
//!   runs in chunks of 256 threads like a vectorised lane loop. At run time the region
//!   must be in index order (no seed, nobody exited), every index in bounds, every `if` true for
//!   its last thread (so for all), every guarded `v[tid - w]` in bounds for the lanes its guard
//!   lets in (`w` no larger than the first of them), and on each view it writes no two index forms may overlap:
//!   then no thread of the region reads or writes what another writes, and staging the loads
//!   before the chunk and the stores after it cannot be told apart from running the threads one
//!   by one. Shared arrays the region only reads are read in place; when every store of the
//!   region is to a shared array, those are written in place as each lane runs (a lane that
//!   panics is reported as itself, the lanes before it having run). A region of fewer than 16
//!   threads (8 when it writes in place: the last steps of a tree) runs one thread at a time,
//!   which costs less. Statements `if tid == c { .. }` (`c` uniform) at the end of such a
//!   region, the halo loads of a stencil, run after the lanes by thread `c` alone, as written, when the proof
//!   also shows that they store only at uniform indices outside the lanes' ranges and load what
//!   the lanes write only at such indices. Otherwise the region runs as above. The block
//!   reduction's staging region and tree steps, both regions of a shared-memory stencil, and
//!   every region of a Hillis–Steele block scan take it. `EMU_VERBOSE=1` also prints how many region runs were vectorised.
//! - **A lane loop** for barrier-free kernels (saxpy and most element-wise kernels): one loop over
//!   the block's threads. When the body is `let i = base + thread_idx().x; if i < bound { .. }`
//!   with only `v[i]` accesses of buffer parameters and arithmetic, the bounds checks are
//!   proved once per block and left out of the loop (the accesses stay relaxed atomics). When,
//!   in addition, the body has no `if` and every store is a statement of its own, the loop is
//!   *vectorised*: for each chunk of 256 lanes the views it reads are copied into local arrays
//!   with 16- or 32-byte moves written in assembly (which keep racy kernels defined, as the
//!   relaxed atomics do: `host/mem/memory.rs`), the lanes run as plain arithmetic over those
//!   arrays, which the compiler vectorises, and the views it writes are copied back. A chunk has
//!   no effect before its end, so a lane that panics (an integer division by zero) makes the
//!   chunk run again lane by lane, and the report names that lane.
//! - **Lane loops row by row** (`emu-macros/src/fission/rows.rs`): a lane loop that the form
//!   above does not take, of the shape `let`s from the indices, then `if cond { body }` (or the
//!   body alone), whose accesses the range proof (`ranges.rs`) covers and whose body is
//!   straight-line arithmetic over indices affine in `thread_idx().x` (`(i - 1) * n + (j + 1)`,
//!   `j` from `thread_idx().x`, `i` from `thread_idx().y`), with `for` loops over ranges the
//!   same for the row at its top level (a dot product), runs each row of a 2-D or 3-D block
//!   as a chunk of lanes, staged like the vectorised lane loop, each loop's passes with the
//!   lanes inside. A row first evaluates `cond` on every lane; the lanes that pass must be one
//!   run, each index's values at the run's two ends one apart per lane, and on each view it
//!   writes no two forms may overlap; otherwise that row runs one thread at a time. PolyBench's
//!   2-D convolution, Jacobi step and gemm take it.
//! - **Lane loops over spans of blocks** (`emu-macros/src/fission/spans.rs`): a vectorised lane
//!   loop that reads its position only as the global index `block_idx().x * block_dim().x +
//!   thread_idx().x` (saxpy) runs up to 64 consecutive blocks of a grid row in one pass, as if
//!   they were one block of as many threads: the kernel cannot tell them apart, and a block's
//!   own costs (its reset, its end, its guard) are paid once per span. Blocks of one dimension
//!   and at most 256 threads, no checker, no seed; a chunk holds whole blocks, so a chunk that
//!   panics leaves its blocks to run one by one, and the report is the same.
//! - **Regions whose views are checked once** (`emu-macros/src/fission/views.rs`): a region or
//!   lane loop that none of the proofs above covers (a gather `x[perm[i]]`, a scan's
//!   `s[pos - offset]` with a per-thread `pos`) checks once per run that each view it accesses
//!   as `v[i]` is live and aligned, then runs accesses that check their index only. A bad index
//!   is reported as before, at its line. `EMU_VERBOSE=1` prints how many region runs did.
//! - Each of these forms is a tier behind one trait (`tiers.rs`), folded over the scalar form
//!   in a declared order; `EMU_TIERS_OFF` turns each off.
//! - **Warp shuffles in regions.** A full-mask shuffle (`shfl_sync`, `shfl_up_sync`,
//!   `shfl_down_sync` or `shfl_xor_sync` with `FULL_MASK`, `0xffff_ffff`, `u32::MAX` or `!0`)
//!   that is a statement's whole value (`let x = shfl..;`, `x = shfl..;`, `x += shfl..;`) where a
//!   barrier could stand, or inside `if tid < 32` (any literal multiple of 32: whole warps, whose
//!   regions then run over the threads below it), becomes a region boundary: each thread hands
//!   its value over at the end of one region, and reads the lane the general path would read
//!   (PTX's rule, `host/sched/warp.rs`; a lane that stopped at a fault takes no part, as there)
//!   at the start of the next. Votes (`ballot_sync`, `all_sync`, `any_sync`) and reductions
//!   (`reduce_add_sync` and the other `__reduce_*_sync`) go the same way.
//!   Such a kernel runs as regions for 1-D blocks of whole warps with a warp size of 32, no
//!   per-access checker and no `EMU_SEED`; other launches take the general path (`EMU_VERBOSE`
//!   says why), and so does a kernel with such a collective that uses atomics or `return`.
//!   Every thread runs to each collective before any goes on, a schedule CUDA allows but not
//!   the one the general path picks (which resumes first the lane that completes the
//!   collective), so the two paths order a kernel's effects differently only where threads race
//!   (or print); results are otherwise the same bit for bit (`tests/it/fission/fission.rs`), and
//!   racecheck, which runs such launches on the general path, sees the general path's.
//!   NVIDIA-style warp-shuffle reductions take it.
//!   Statement-level `let`s that shadow an earlier one (`let mut v` again inside `if tid < 32`)
//!   are renamed for the region form.
//! - **The general path** (one GPU thread at a time, fibers and state machines) for everything
//!   else: barriers under thread-dependent conditions, in helpers, closures or macros, the
//!   `_count`/`_and`/`_or` barriers, the other warp collectives (votes, `sync_warp`, partial
//!   masks, shuffles inside expressions), `while` or `loop` in the code between
//!   barriers that may spin on another thread (which needs independent progress), calls of
//!   `#[device]` helpers that may wait (`helpers.rs`), `unsafe` and `host_only` kernels.

mod footprint;
use footprint::{Footprint, Roots};
pub(crate) mod helpers;
pub(crate) mod inline;
mod interleave;
mod liveness;
use liveness::Lives;
mod nodes;
mod normalise;
use nodes::{contains_barrier_node, nodes, waits_in_stmt, Node, Waits, BARRIERS, WARP};
mod ranges;
mod rows;
mod seams;
mod sequence;
mod spans;
mod tiers;
mod uniform;
mod vector;
mod views;

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident, Pat, Stmt};

use crate::abi::{Access, Rt};
use uniform::{idents_of, is_assign, Names};

/// What the region form of a kernel is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Barriers in the body: regions.
    Regions,
    /// No barrier: one region (a lane loop).
    Lanes,
}

/// The region form of a kernel: the body of `fn __regions(rb: &mut Regions, params)`.
pub(crate) struct Fission {
    pub(crate) kind: Kind,
    pub(crate) body: TokenStream,
    /// Whether the form has lowered warp shuffles (`__private::launch_regions_guarded`).
    pub(crate) warps: bool,
    /// Whether the form has waiting helpers written out (`inline.rs`), which run on the
    /// general path under a checker (`__private::Guard`); set by the caller.
    pub(crate) written_out: bool,
    /// Whether block-level code loads shared memory each thread loads on the general path
    /// (`uniform::shared_reads`), which runs on the general path under a checker.
    pub(crate) shared_once: bool,
    /// The `#[device]` helpers region code calls, in order: the launcher takes the region
    /// form only where each one's `__emu_waits_NAME!()` is `false` (`helpers.rs`).
    pub(crate) helpers: Vec<String>,
    /// A lane loop's form over several consecutive blocks (`spans.rs`): a body for
    /// `fn __span(rb, params) -> bool`, whose `false` says its guard failed.
    pub(crate) span: Option<TokenStream>,
}

/// The names the generated code uses.
pub(super) struct Gen {
    pub(super) rb: Ident,
    pub(super) t: Ident,
    pub(super) ctx: Ident,
    /// The bound of the warp-aligned `if tid < B` the code is in: its regions run the
    /// threads below it only.
    outer: Option<Expr>,
}

fn rt() -> TokenStream {
    quote!(::deviceemu::__private)
}

/// The region form of a kernel whose host body (indices read from `ctx`, barriers as written)
/// is `block`, or why it has none. `params` are its parameters' names.
pub(crate) fn lower(
    block: &Block,
    params: &[String],
    buffers: &[String],
    read_only: &[String],
    scalars: &[String],
    ctx: &Ident,
) -> Result<Fission, String> {
    with_kernel(block, read_only, scalars, || decode(block, params, buffers, ctx).map(|d| region_form(d, ctx)))
}

/// Runs `f` with what the passes read of the kernel `block` and its file (`BOUNDED`,
/// `READ_ONLY`, `FILE_CONSTS`) set, and clears it after.
fn with_kernel<R>(block: &Block, read_only: &[String], scalars: &[String], f: impl FnOnce() -> R) -> R {
    // The `for` loops the per-thread forms leave without a progress point (`progress.rs`):
    // the only ones region code may run, whose trip count no other thread can change.
    let bounded = crate::progress::Bounded::of(block, scalars);
    BOUNDED.with(|b| *b.borrow_mut() = Some(bounded));
    // (A name the body binds again is another value from there on: not counted.)
    let rebound = {
        let mut all = HashSet::new();
        block.stmts.iter().for_each(|s| all.extend(bound_in(s)));
        all
    };
    READ_ONLY.with(|r| *r.borrow_mut() = read_only.iter().filter(|n| !rebound.contains(*n)).cloned().collect());
    // (A name the body binds is not the file's constant.)
    FILE_CONSTS
        .with(|m| *m.borrow_mut() = inline::file_consts().into_iter().filter(|(n, _)| !rebound.contains(n)).collect());
    let r = f();
    FILE_CONSTS.with(|m| m.borrow_mut().clear());
    BOUNDED.with(|b| *b.borrow_mut() = None);
    READ_ONLY.with(|r| r.borrow_mut().clear());
    r
}

thread_local! {
    /// The bounded names of the kernel being lowered (`crate::progress::Bounded`).
    static BOUNDED: std::cell::RefCell<Option<crate::progress::Bounded>> = const { std::cell::RefCell::new(None) };
    /// The kernel file's integer `const`s (`inline::file_consts`).
    static FILE_CONSTS: std::cell::RefCell<HashMap<String, i128>> = std::cell::RefCell::new(HashMap::new());
    /// The kernel's read-only buffer parameters (`&[T]`), which no thread of the launch writes.
    static READ_ONLY: std::cell::RefCell<HashSet<String>> = std::cell::RefCell::new(HashSet::new());
}

/// Whether a `for` over `e` in region code has a trip count fixed for the block.
fn bounded_range(e: &Expr) -> bool {
    BOUNDED.with(|b| b.borrow().as_ref().is_some_and(|b| b.range(e)))
}

/// A kernel as fission reads it, decoded once: the items hoisted out of its body, its nodes
/// (the runs of thread code between barriers, and the loops and `if`s around barriers), and
/// the program: its statement-level locals and what the analyses found of them (uniformity,
/// liveness across barriers; the seams checked).
struct Decoded {
    items: Vec<Stmt>,
    nodes: Vec<Node>,
    program: Program,
}

/// Normalises the body and decodes it ([`Decoded`]), or says why it has no region form.
fn decode(block: &Block, params: &[String], buffers: &[String], ctx: &Ident) -> Result<Decoded, String> {
    SHUFFLES.with(|k| k.set(0));
    WARP_SYNCS.with(|k| k.set(0));
    helpers::reset_called();
    let (items, mut stmts) = normalise::normalise(block.stmts.clone(), ctx);
    // A `let` that rebinds a parameter (`let mut n = n; n /= 4;`) is renamed too: the
    // parameter keeps its uniform value, the local its own.
    unshadow(&mut stmts, &mut params.iter().cloned().collect(), &mut 0);
    copies(&mut stmts);
    // A statement-level `x += e` after `let mut x: T` binds a new name, so that both values
    // can be recomputed where they are simple (`idx += blockDim.x`).
    single_assignments(&mut stmts, &mut 0);
    stmts.iter_mut().for_each(|s| RegionLoops.visit_stmt_mut(s));
    let nodes = nodes(&stmts)?;
    let mut p = Program::new(params, ctx);
    p.shuffles = SHUFFLES.with(std::cell::Cell::get);
    p.warp_syncs = WARP_SYNCS.with(std::cell::Cell::get);
    if p.warp_points() > 0 && returns_in(&stmts) {
        // A lane that left would hand nothing over; the general path judges that.
        return Err("a `return` in a kernel with warp collectives".into());
    }
    if p.warp_points() > 0 && !order_free_atomics(&stmts) {
        // Atomics see the order threads run in, and the region form runs every thread to a
        // collective before any goes on, where the general path resumes the lane that
        // completes it first: keep the general path's order (unless no atomic can tell).
        return Err("atomics in a kernel with warp collectives".into());
    }
    p.buffers = buffers.iter().cloned().collect();
    p.sole_dynamic_shared = sole_dynamic_shared(&stmts);
    p.collect(&nodes, &mut Vec::new())?;
    p.check_code(&nodes)?;
    p.analyse(&nodes)?;
    Ok(Decoded { items, nodes, program: p })
}

/// The region form of a decoded kernel.
fn region_form(d: Decoded, ctx: &Ident) -> Fission {
    let Decoded { items, nodes, program: mut p } = d;
    let kind = if contains_barrier_node(&nodes) { Kind::Regions } else { Kind::Lanes };
    p.lane_loop = kind == Kind::Lanes;
    let g = Gen {
        rb: Ident::new("__emu_rb", Span::mixed_site()),
        t: Ident::new("__emu_t", Span::mixed_site()),
        ctx: ctx.clone(),
        outer: None,
    };
    let body = p.emit(&nodes, &g);
    let body = quote!(#(#items)* #body);
    // The span form, where the kernel is one lane loop that reads its position only as its
    // global index (`spans.rs`).
    let span = (kind == Kind::Lanes && nodes.len() == 1 && p.warp_points() == 0)
        .then(|| p.span.take())
        .flatten()
        .map(|s| quote!(#(#items)* #s))
        .filter(|s| spans::global_index_only(s, &ctx.to_string(), &g.t.to_string()))
        .map(|s| {
            let rb = &g.rb;
            quote!(#[allow(unused_variables)] let #ctx = #rb.block_ctx(); #s)
        });
    Fission {
        kind,
        body,
        span,
        warps: p.warp_points() > 0,
        written_out: false,
        shared_once: p.uniformity.loads_shared,
        helpers: helpers::take_called(),
    }
}

/// Whether `e` is `dynamic_shared::<T>()` (by any path).
pub(super) fn dynamic_shared_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.args.is_empty()
        && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "dynamic_shared")))
}

/// The local bound by a statement-level `let v = dynamic_shared::<T>();` when that is the
/// body's only mention of `dynamic_shared` (in code and in macro tokens) and nothing casts
/// `v`: then `v` is the only name of the block's dynamic shared memory, as a `shared_array!`
/// is of its array.
fn sole_dynamic_shared(stmts: &[Stmt]) -> Option<String> {
    let tokens = quote!(#(#stmts)*).to_string();
    if tokens.matches("dynamic_shared").count() != 1 {
        return None;
    }
    let name = stmts.iter().find_map(|s| {
        let Stmt::Local(l) = s else { return None };
        let init = &l.init.as_ref()?.expr;
        let is_call = dynamic_shared_call(strip_parens(init));
        match (&l.pat, is_call) {
            (Pat::Ident(p), true) if p.by_ref.is_none() && p.mutability.is_none() => Some(p.ident.to_string()),
            (Pat::Type(t), true) => match &*t.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() => Some(p.ident.to_string()),
                _ => None,
            },
            _ => None,
        }
    })?;
    let cast = format!("{name} . cast");
    (!tokens.contains(&cast)).then_some(name)
}

// ---------------------------------------------------------------- structure

/// The proof that the indices `u..u + __emu_hi` (computed in `u`'s type, `__emu_hi` lanes)
/// do not overflow and stay below `limit`.
fn lanes_below(u: &Expr, limit: TokenStream) -> TokenStream {
    let r = rt();
    quote! {
        match #r::lane_last(#u, __emu_hi) {
            ::core::option::Option::Some(__emu_l) => {
                #r::Index::to_index(#u) <= #r::Index::to_index(__emu_l) && #r::Index::to_index(__emu_l) < #limit
            }
            ::core::option::Option::None => false,
        }
    }
}

/// The exchange (`&__emu_xchg_n`) that statement `s` hands a value to, if it is a lowered
/// shuffle's hand-over (`warp_shuffle`).
fn hand_over_exchange(s: &Stmt) -> Option<&Expr> {
    let Stmt::Expr(Expr::Call(c), _) = s else { return None };
    (Rt::of(c) == Some(Rt::XchgPut)).then(|| &c.args[0])
}

/// The element type of the shared view that `init` makes, where it names it:
/// `shared_array![T; N]` and `dynamic_shared::<T>()` as the macro writes them
/// (`__private::shared_array::<T, N>(..)`, `dynamic_shared::<T>()`), or `v.cast::<T>()`.
fn view_element(init: &Expr) -> Option<syn::Type> {
    fn first_type(args: &syn::AngleBracketedGenericArguments) -> Option<syn::Type> {
        match args.args.first()? {
            syn::GenericArgument::Type(t) if nameable(t) => Some(t.clone()),
            _ => None,
        }
    }
    struct V(Vec<Option<syn::Type>>);
    impl<'ast> Visit<'ast> for V {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                let last = p.path.segments.last().expect("a path has a segment");
                if last.ident == "shared_array" || last.ident == "dynamic_shared" {
                    self.0.push(match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => first_type(a),
                        _ => None,
                    });
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path.segments.last().is_some_and(|s| s.ident == "shared_array") {
                self.0.push(m.parse_body_with(shared_array_type).ok().filter(nameable));
            }
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if m.method == "cast" {
                self.0.push(m.turbofish.as_ref().and_then(first_type));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut v = V(Vec::new());
    v.visit_expr(init);
    // One view made, of a named type.
    match v.0.as_slice() {
        [Some(t)] => Some(t.clone()),
        _ => None,
    }
}

/// The element type of a `shared_array![T; N]`, or of the `shared_array![@named "a", T; N]`
/// that `#[kernel]` makes of it.
fn shared_array_type(input: syn::parse::ParseStream) -> syn::Result<syn::Type> {
    if input.peek(syn::Token![@]) {
        input.parse::<syn::Token![@]>()?;
        input.parse::<Ident>()?;
        input.parse::<syn::LitStr>()?;
        input.parse::<syn::Token![,]>()?;
    }
    let t = input.parse()?;
    input.parse::<syn::Token![;]>()?;
    input.parse::<Expr>()?;
    Ok(t)
}

/// Whether type `t` can be named at the top of the regions' function, where a local's slots
/// are made: no `_` to infer, no `impl Trait`, no macro.
fn nameable(t: &syn::Type) -> bool {
    struct N(bool);
    impl<'ast> Visit<'ast> for N {
        fn visit_type(&mut self, t: &'ast syn::Type) {
            match t {
                syn::Type::Infer(_) | syn::Type::ImplTrait(_) | syn::Type::Macro(_) | syn::Type::Verbatim(_) => {
                    self.0 = false
                }
                _ => syn::visit::visit_type(self, t),
            }
        }
    }
    let mut n = N(true);
    n.visit_type(t);
    n.0
}

/// Whether `stmts` hold a `return` (outside closures).
fn returns_in(stmts: &[Stmt]) -> bool {
    struct R(bool);
    impl<'ast> Visit<'ast> for R {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut r = R(false);
    stmts.iter().for_each(|s| r.visit_stmt(s));
    r.0
}

/// Renames each statement-level `let` (and `for` loop variable) that binds a name an earlier
/// one bound (in its list or in an enclosing one: `let mut v` again inside an `if`), or a name
/// in `seen` (the parameters), to a fresh name, in the statements
/// after it, so that fission sees every local bound once. Renaming every later mention of a
/// name (paths, patterns, macro tokens) is an alpha-renaming: after the shadowing `let` the
/// earlier binding cannot be named. Its own initialiser still reads the earlier one.
fn unshadow(stmts: &mut [Stmt], seen: &mut HashSet<String>, fresh: &mut usize) {
    for k in 0..stmts.len() {
        let (head, rest) = stmts.split_at_mut(k + 1);
        match &mut head[k] {
            Stmt::Local(l) => bind_once(&mut l.pat, rest, seen, fresh),
            // A loop variable that an earlier binding or loop already named (two `for m in ..`
            // loops one after the other): renamed in its loop's body, where it is in scope.
            Stmt::Expr(Expr::ForLoop(l), _) => {
                bind_once(&mut l.pat, &mut l.body.stmts, seen, fresh);
                unshadow(&mut l.body.stmts, seen, fresh);
            }
            s => nested_lists(s, &mut |list| unshadow(list, seen, fresh)),
        }
    }
}

/// Copies of a local, after `unshadow`: a statement `let a = b;` at the body's top level (`a`
/// and `b` plain names, neither `mut` nor typed, `b` bound by an earlier top-level `let` that
/// is not `mut`, and each name bound once in the whole body) is dropped, and the later
/// mentions of `a` name `b`. Neither can change, so they hold one value throughout. CUB's
/// `TempStorage` is a union whose members are one shared array under several names
/// (`let load = temp_storage; let scan = temp_storage;`): as one name, the region forms see
/// one view, check it once and prove its accesses; as several, they could not tell that the
/// accesses reach the same bytes, and took none of those forms.
fn copies(stmts: &mut Vec<Stmt>) {
    fn plain(p: &Pat) -> Option<String> {
        match p {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.mutability.is_none() && pi.subpat.is_none() => {
                Some(pi.ident.to_string())
            }
            _ => None,
        }
    }
    /// How many patterns of `stmts` bind `name`, at any depth (closures' and arms' too).
    fn bindings(stmts: &[Stmt], name: &str) -> usize {
        struct B<'a>(&'a str, usize);
        impl<'ast> Visit<'ast> for B<'_> {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                if p.ident == self.0 {
                    self.1 += 1;
                }
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut b = B(name, 0);
        stmts.iter().for_each(|s| b.visit_stmt(s));
        b.1
    }
    let mut k = 0;
    while k < stmts.len() {
        let alias = match &stmts[k] {
            Stmt::Local(l) if l.attrs.is_empty() => match (plain(&l.pat), &l.init) {
                (Some(a), Some(init)) if init.diverge.is_none() => path_name(&init.expr).map(|b| (a, b)),
                _ => None,
            },
            _ => None,
        };
        let Some((a, b)) = alias else {
            k += 1;
            continue;
        };
        let b_bound = stmts[..k].iter().any(|s| matches!(s, Stmt::Local(l) if plain(&l.pat).as_deref() == Some(&b)));
        if !b_bound
            || a == b
            || bindings(stmts, &a) != 1
            || bindings(stmts, &b) != 1
            || stmts[k + 1..].iter().any(|s| names_inline(s, &a))
        {
            k += 1;
            continue;
        }
        stmts.remove(k);
        let mut r = Rename { from: a, to: b };
        stmts[k..].iter_mut().for_each(|s| r.visit_stmt_mut(s));
    }
}

/// `unshadow`'s step for one binding: pattern `pat` (a plain name) binds, in scope `scope`,
/// a name in `seen`: it and its mentions in `scope` get a fresh name. A format string that
/// names it inline (`"{v}"`) cannot be renamed: the shadowing stays, which keeps the general
/// path.
fn bind_once(pat: &mut Pat, scope: &mut [Stmt], seen: &mut HashSet<String>, fresh: &mut usize) {
    let Some(name) = local_name(pat) else { return };
    if seen.contains(&name) && !scope.iter().any(|s| names_inline(s, &name)) {
        let new = fresh_name(&name, "", fresh);
        let mut r = Rename { from: name, to: new.clone() };
        r.visit_pat_mut(pat);
        for s in scope.iter_mut() {
            r.visit_stmt_mut(s);
        }
        seen.insert(new);
    } else {
        seen.insert(name);
    }
}

/// Calls `f` on each statement list directly inside statement `s`: a `while`'s or a `for`'s
/// body, and each branch of an `if` (through its `else if`s).
fn nested_lists(s: &mut Stmt, f: &mut dyn FnMut(&mut [Stmt])) {
    match s {
        Stmt::Expr(Expr::While(w), _) => f(&mut w.body.stmts),
        Stmt::Expr(Expr::ForLoop(l), _) => f(&mut l.body.stmts),
        Stmt::Expr(Expr::If(i), _) => {
            let mut i = &mut *i;
            loop {
                f(&mut i.then_branch.stmts);
                match i.else_branch.as_mut().map(|(_, e)| &mut **e) {
                    Some(Expr::Block(b)) => {
                        f(&mut b.block.stmts);
                        break;
                    }
                    Some(Expr::If(next)) => i = next,
                    _ => break,
                }
            }
        }
        _ => {}
    }
}

/// A fresh name for local `name`, `__emu_{base}_{tag}{n}`: `__emu_v_0`, not
/// `__emu___emu_v_0_1`, when a renamed name is renamed again.
fn fresh_name(name: &str, tag: &str, fresh: &mut usize) -> String {
    let base = name.strip_prefix("__emu_").map_or(name, |b| {
        b.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end_matches("_s").trim_end_matches('_')
    });
    let new = format!("__emu_{base}_{tag}{fresh}");
    *fresh += 1;
    new
}

/// Whether `e`, as the right operand of `op`, needs no parentheses: it binds more tightly
/// (a path, a literal, a call, a cast, a unary operation, or a binary one of higher
/// precedence).
fn binds_tighter(e: &Expr, op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    fn precedence(op: &syn::BinOp) -> u8 {
        match op {
            B::Mul(_) | B::Div(_) | B::Rem(_) => 9,
            B::Add(_) | B::Sub(_) => 8,
            B::Shl(_) | B::Shr(_) => 7,
            B::BitAnd(_) => 6,
            B::BitXor(_) => 5,
            B::BitOr(_) => 4,
            B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => 3,
            B::And(_) => 2,
            B::Or(_) => 1,
            _ => 0,
        }
    }
    match e {
        Expr::Lit(_)
        | Expr::Path(_)
        | Expr::Call(_)
        | Expr::MethodCall(_)
        | Expr::Field(_)
        | Expr::Index(_)
        | Expr::Paren(_)
        | Expr::Macro(_)
        | Expr::Cast(_)
        | Expr::Unary(_) => true,
        Expr::Binary(b) => precedence(&b.op) > precedence(op),
        _ => false,
    }
}

/// Turns each statement-level assignment `x op= e;` (or `x = e;`) of a local bound in the same
/// statement list by `let mut x: T = ..`, with `T` a primitive, into `let x_n: T = x op e;`
/// (`let x_n: T = e;`), and renames `x` to `x_n` in the statements after it: the same value
/// under a name bound once, which fission can recompute where it is computed from indices
/// and uniform values (SHOC's scan: `idx += blockDim.x`), where it kept `x` per thread in a
/// slot. The new name is `mut` where later statements may still change it; `x` loses its
/// `mut` when nothing changes it any more. Left alone: an `e` that may change `x` (then `x op
/// e` would read `x` before `e` runs, where `x op= e` reads it after), and a name that a
/// format string names inline, which cannot be renamed.
fn single_assignments(stmts: &mut [Stmt], fresh: &mut usize) {
    // Nested statement lists first: each is a list of its own.
    for s in stmts.iter_mut() {
        nested_lists(s, &mut |list| single_assignments(list, fresh));
    }
    for k in 0..stmts.len() {
        // `x op= e;` or `x = e;`, `x` a plain name.
        let (name, op, value) = match &stmts[k] {
            Stmt::Expr(Expr::Binary(b), Some(_)) => {
                match (path_name(&b.left), crate::rewrite::compound_to_binary(&b.op)) {
                    (Some(n), Some(op)) => (n, Some(op), (*b.right).clone()),
                    _ => continue,
                }
            }
            Stmt::Expr(Expr::Assign(a), Some(_)) => match path_name(&a.left) {
                Some(n) => (n, None, (*a.right).clone()),
                None => continue,
            },
            _ => continue,
        };
        // Bound earlier in this list by `let mut x: T`, `T` a primitive.
        let Some(j) = stmts[..k]
            .iter()
            .rposition(|s| matches!(s, Stmt::Local(l) if local_name(&l.pat).as_deref() == Some(name.as_str())))
        else {
            continue;
        };
        let Stmt::Local(syn::Local { pat: Pat::Type(pt), .. }) = &stmts[j] else { continue };
        let Pat::Ident(pi) = &*pt.pat else { continue };
        if !primitive_type(&pt.ty) || pi.mutability.is_none() || pi.by_ref.is_some() {
            continue;
        }
        let ty = (*pt.ty).clone();
        let value_stmt = Stmt::Expr(value.clone(), None);
        if uniform::written_in(std::slice::from_ref(&value_stmt)).is_none_or(|w| w.contains(&name))
            || stmts[k..].iter().any(|s| names_inline(s, &name))
        {
            continue;
        }
        // `__emu_idx_s1` after `__emu_idx_s0`.
        let new = fresh_name(&name, "s", fresh);
        let still_written = uniform::written_in(&stmts[k + 1..]).is_none_or(|w| w.contains(&name));
        let id = Ident::new(&new, pi.ident.span());
        let mutability = still_written.then(<syn::Token![mut]>::default);
        let span = stmts[k].span();
        let x = &pi.ident;
        let init: Expr = match op {
            // Parentheses where the value binds less tightly than the operator (and only
            // there: generated code is linted too).
            Some(op) if binds_tighter(&value, &op) => syn::parse_quote_spanned!(span=> #x #op #value),
            Some(op) => syn::parse_quote_spanned!(span=> #x #op (#value)),
            None => value,
        };
        stmts[k] = syn::parse_quote_spanned!(span=> #[allow(unused_mut)] let #mutability #id: #ty = #init;);
        let mut r = Rename { from: name.clone(), to: new };
        for s in &mut stmts[k + 1..] {
            r.visit_stmt_mut(s);
        }
        // `x` keeps `mut` only while something between its binding and here changes it.
        if uniform::written_in(&stmts[j + 1..k]).is_some_and(|w| !w.contains(&name)) {
            if let Stmt::Local(syn::Local { pat: Pat::Type(pt), .. }) = &mut stmts[j] {
                if let Pat::Ident(pi) = &mut *pt.pat {
                    pi.mutability = None;
                }
            }
        }
    }
}

/// Whether a macro in `s` has a string literal that names `name` as an inline format
/// argument (`{name}`, `{name:?}`).
fn names_inline(s: &Stmt, name: &str) -> bool {
    struct F<'a>(&'a str, bool);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            fn walk(t: TokenStream, name: &str) -> bool {
                t.into_iter().any(|tt| match tt {
                    proc_macro2::TokenTree::Literal(l) => {
                        let text = l.to_string();
                        text.contains(&format!("{{{name}}}")) || text.contains(&format!("{{{name}:"))
                    }
                    proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
                    _ => false,
                })
            }
            self.1 |= walk(m.tokens.clone(), self.0);
        }
    }
    let mut f = F(name, false);
    f.visit_stmt(s);
    f.1
}

/// Renames the identifier `from` to `to` in paths, patterns and macro tokens.
struct Rename {
    from: String,
    to: String,
}

impl VisitMut for Rename {
    fn visit_ident_mut(&mut self, i: &mut Ident) {
        if *i == self.from {
            *i = Ident::new(&self.to, i.span());
        }
    }
    fn visit_member_mut(&mut self, _: &mut syn::Member) {
        // A field's name is not the local's.
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { v }` names the field `v` and the local `v`: keep the field, rename the local.
        if f.colon_token.is_none() && matches!(&f.member, syn::Member::Named(m) if *m == self.from) {
            f.colon_token = Some(Default::default());
        }
        self.visit_expr_mut(&mut f.expr);
    }
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        // Only a local's own name: a one-segment path without generics.
        if p.leading_colon.is_none() && p.segments.len() == 1 && p.segments[0].arguments.is_none() {
            self.visit_ident_mut(&mut p.segments[0].ident);
        }
    }
    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        self.visit_expr_mut(&mut m.receiver);
        for a in &mut m.args {
            self.visit_expr_mut(a);
        }
    }
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        fn walk(t: TokenStream, r: &Rename) -> TokenStream {
            t.into_iter()
                .map(|tt| match tt {
                    proc_macro2::TokenTree::Ident(i) if i == r.from => {
                        proc_macro2::TokenTree::Ident(Ident::new(&r.to, i.span()))
                    }
                    proc_macro2::TokenTree::Group(g) => {
                        let mut n = proc_macro2::Group::new(g.delimiter(), walk(g.stream(), r));
                        n.set_span(g.span());
                        proc_macro2::TokenTree::Group(n)
                    }
                    tt => tt,
                })
                .collect()
        }
        m.tokens = walk(m.tokens.clone(), self);
    }
}

/// `let (a, b) = (x, y);` as `let a = x; let b = y;` (the same evaluation, in order; no name
/// may be bound twice, so `y` cannot mean another `a`).
fn split_tuple_lets(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        if let Stmt::Local(l) = s {
            if let (Pat::Tuple(pt), Some(init)) = (&l.pat, &l.init) {
                if let Expr::Tuple(et) = &*init.expr {
                    let simple = pt
                        .elems
                        .iter()
                        .all(|p| matches!(p, Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()));
                    // In order, an element may not read a name bound by an earlier one
                    // (`let (a, b) = (b, a)` is not `let a = b; let b = a;`).
                    let names: Vec<String> = pt.elems.iter().filter_map(local_name).collect();
                    let independent = et.elems.iter().enumerate().all(|(j, e)| {
                        let ids = idents_of(e);
                        names[..j.min(names.len())].iter().all(|n| !ids.contains(n))
                    });
                    if simple
                        && independent
                        && init.diverge.is_none()
                        && pt.elems.len() == et.elems.len()
                        && l.attrs.is_empty()
                    {
                        for (p, e) in pt.elems.iter().zip(&et.elems) {
                            out.push(syn::parse_quote_spanned!(p.span()=> let #p = #e;));
                        }
                        continue;
                    }
                }
            }
        }
        out.push(s.clone());
    }
    out
}

thread_local! {
    /// The lowered warp shuffles of the kernel being lowered, numbered in program order.
    static SHUFFLES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The full-mask `sync_warp`s of the kernel being lowered (`warp_sync_stmt`).
    static WARP_SYNCS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether `s` is `sync_warp(m);` with `m` the full mask: every lane of the warp meets there,
/// so it is a region boundary as a lowered shuffle's hand-over is (every thread of the block
/// runs to it before any goes on, a schedule CUDA allows), with nothing handed over.
fn warp_sync_stmt(s: &Stmt) -> Option<Span> {
    let Stmt::Expr(Expr::Call(c), _) = s else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?;
    (p.qself.is_none()
        && last.ident == "sync_warp"
        && last.arguments.is_none()
        && c.args.len() == 1
        && full_mask(&c.args[0]))
    .then(|| c.span())
}

/// The exchange of lowered shuffle `n` (`__private::Exchange`, one per block).
fn exchange_ident(n: usize) -> Ident {
    Ident::new(&format!("__emu_xchg_{n}"), Span::mixed_site())
}

/// Whether `e` names every lane: `FULL_MASK`, `0xffff_ffff`, `u32::MAX` or `!0`.
fn full_mask(e: &Expr) -> bool {
    match strip_parens(e) {
        Expr::Path(p) => {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            segs.last().is_some_and(|l| l == "FULL_MASK")
                || segs == ["u32", "MAX"]
                // A `const` of the file whose value is `0xffffffff` (CUB's `member_mask`).
                || (segs.len() == 1 && file_const(&segs[0]) == Some(0xffff_ffff))
        }
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            i.base10_parse::<u64>().is_ok_and(|v| v == 0xffff_ffff)
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            matches!(strip_parens(&u.expr), Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_parse::<u64>().is_ok_and(|v| v == 0))
        }
        _ => false,
    }
}

/// A statement whose value is a full-mask warp shuffle, vote or reduction: `let x =
/// shfl_down_sync(FULL_MASK, v, d);`, `x = ..;` or `x op= ..;` (`shfl_sync`, `shfl_up_sync`,
/// `shfl_xor_sync`, `ballot_sync`, `all_sync`, `any_sync`, `reduce_{add,min,max,and,or,xor}_sync`
/// too). Lowered
/// into a statement that hands the thread's `v` to the block's exchange, a region boundary,
/// and the statement with the shuffle replaced by a read of the exchange: every lane hands
/// its value over before any lane reads, as every lane of a warp does in a full-mask
/// shuffle. Returns the two statements and the shuffle's span.
fn warp_shuffle(s: &Stmt) -> Option<(Stmt, Stmt, Span)> {
    let mut take = s.clone();
    let call = match &mut take {
        Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_none()) && local_name(&l.pat).is_some() => {
            &mut l.init.as_mut()?.expr
        }
        Stmt::Expr(Expr::Assign(a), Some(_)) if path_name(&a.left).is_some() => &mut a.right,
        Stmt::Expr(Expr::Binary(b), Some(_)) if is_assign(&b.op) && path_name(&b.left).is_some() => &mut b.right,
        _ => return None,
    };
    let Expr::Call(c) = &**call else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?;
    // The read, and whether it takes an operand besides the value (votes do not).
    let (read, operand) = match last.ident.to_string().as_str() {
        "shfl_sync" => ("xchg_idx", true),
        "shfl_up_sync" => ("xchg_up", true),
        "shfl_down_sync" => ("xchg_down", true),
        "shfl_xor_sync" => ("xchg_xor", true),
        "ballot_sync" => ("xchg_ballot", false),
        "all_sync" => ("xchg_all", false),
        "any_sync" => ("xchg_any", false),
        "reduce_add_sync" | "reduce_min_sync" | "reduce_max_sync" | "reduce_and_sync" | "reduce_or_sync"
        | "reduce_xor_sync" => ("xchg_reduce", false),
        _ => return None,
    };
    let argc = if operand { 3 } else { 2 };
    if p.qself.is_some() || !last.arguments.is_none() || c.args.len() != argc || !full_mask(&c.args[0]) {
        return None;
    }
    let value = &c.args[1];
    let arg = operand.then(|| &c.args[2]);
    if waits_in_expr(value) || arg.is_some_and(waits_in_expr) {
        return None;
    }
    let span = c.span();
    let n = SHUFFLES.with(|k| {
        let n = k.get();
        k.set(n + 1);
        n
    });
    let x = exchange_ident(n);
    let t = Ident::new("__emu_t", Span::mixed_site());
    let read = Ident::new(read, span);
    let put: Stmt = syn::parse_quote_spanned!(span=> ::deviceemu::__private::xchg_put(&#x, #t, #value););
    // A reduction's kind (`reduce_add_sync`: `Add`) is the reader's operand.
    let kind = last.ident.to_string().strip_prefix("reduce_").and_then(|k| k.strip_suffix("_sync")).map(|k| {
        let k = Ident::new(&format!("{}{}", k[..1].to_uppercase(), &k[1..]), span);
        quote_spanned!(span=> ::deviceemu::__private::ReduxKind::#k)
    });
    **call = match (arg, kind) {
        (Some(arg), _) => syn::parse_quote_spanned!(span=> ::deviceemu::__private::#read(&#x, #t, #arg)),
        (None, Some(kind)) => syn::parse_quote_spanned!(span=> ::deviceemu::__private::#read(&#x, #t, #kind)),
        (None, None) => syn::parse_quote_spanned!(span=> ::deviceemu::__private::#read(&#x, #t)),
    };
    Some((put, take, span))
}

/// Whether the order in which threads run the atomics of `stmts` cannot be seen: each is a
/// statement whose result is dropped (`minmax.atomic_min(0, lo);`, Parboil's histo prescan),
/// of an operation whose last value does not depend on the order of its operands
/// (`atomic_min`, `atomic_max`, `atomic_and`, `atomic_or`, `atomic_xor`: integers only, in CUDA
/// and here). Another thread that reads such a location before the launch ends races (and
/// racecheck, which runs such launches on the general path, says so).
fn order_free_atomics(stmts: &[Stmt]) -> bool {
    const ORDER_FREE: [&str; 5] = ["atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor"];
    struct A(bool);
    impl<'ast> Visit<'ast> for A {
        fn visit_stmt(&mut self, s: &'ast Stmt) {
            if let Stmt::Expr(Expr::MethodCall(m), Some(_)) = s {
                if ORDER_FREE.iter().any(|o| m.method == o) && m.turbofish.is_none() {
                    self.visit_expr(&m.receiver);
                    m.args.iter().for_each(|a| self.visit_expr(a));
                    return;
                }
            }
            syn::visit::visit_stmt(self, s);
        }
        fn visit_ident(&mut self, i: &'ast Ident) {
            if i.to_string().starts_with("atomic") {
                self.0 = false;
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let ids = idents_of(&Expr::Macro(syn::ExprMacro { attrs: vec![], mac: m.clone() }));
            if ids.iter().any(|i| i.starts_with("atomic")) {
                self.0 = false;
            }
        }
    }
    let mut a = A(true);
    stmts.iter().for_each(|s| a.visit_stmt(s));
    a.0
}

/// The bound of a warp-aligned `if tid < B` (`B` an integer literal, a multiple of 32), and
/// the name of `tid` (checked to be the thread's x index by `Program::collect`).
/// The value of the kernel file's integer `const` `name` (`inline::file_consts`).
fn file_const(name: &str) -> Option<i128> {
    FILE_CONSTS.with(|m| m.borrow().get(name).copied())
}

fn warp_bound(cond: &Expr) -> Option<(String, u64)> {
    let Expr::Binary(b) = strip_parens(cond) else { return None };
    if !matches!(b.op, syn::BinOp::Lt(_)) {
        return None;
    }
    // `tid < 32`, or the x index itself (`cta.thread_rank()` of a kernel with warp
    // collectives, whose region form runs 1-D blocks only: `normalise.rs`), named "".
    let name = match strip_parens(&b.left) {
        Expr::Field(f) if matches!(&*f.base, Expr::Field(i) if matches!(&*i.base, Expr::Path(p) if p.path.get_ident().is_some_and(|c| is_thread_x(&b.left, &c.to_string())))) => {
            String::new()
        }
        left => path_name(left)?,
    };
    // `warp_size() as i32`, `32 as usize`: a cast to the type of `tid` keeps the value.
    let mut right = strip_parens(&b.right);
    while let Expr::Cast(c) = right {
        let int = matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|t| {
            ["i16", "u16", "i32", "u32", "i64", "u64", "isize", "usize"].iter().any(|n| t == n)
        }));
        if !int {
            return None;
        }
        right = strip_parens(&c.expr);
    }
    // `warp_size()` is 32 wherever the warp form runs (`launch_regions_guarded` checks it).
    let v = match right {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().ok()?,
        // A `const` of the file (CUB's `RAKING_THREADS`).
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            u64::try_from(file_const(&p.path.get_ident()?.to_string())?).ok()?
        }
        Expr::Call(c)
            if c.args.is_empty()
                && matches!(&*c.func, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("warp_size")) =>
        {
            32
        }
        _ => return None,
    };
    (v > 0 && v % 32 == 0 && v <= 1024).then_some((name, v))
}

fn waits_in_expr(e: &Expr) -> bool {
    let mut w = Waits::default();
    w.visit_expr(e);
    w.barrier || w.warp
}

fn waits_in_block(b: &Block) -> bool {
    let mut w = Waits::default();
    w.visit_block(b);
    w.barrier || w.warp
}

// ---------------------------------------------------------------- region code

/// Calls region code may make: pure functions of `core` and the device API's non-waiting
/// built-ins (after `host_body.rs`, the index built-ins are fields of the context).
fn allowed_call(p: &syn::Path) -> bool {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = segs.last().map(String::as_str).unwrap_or("");
    if BARRIERS.contains(&last) || WARP.contains(&last) {
        return false;
    }
    if segs.iter().any(|s| s == "__private") {
        // The rewrite's own accesses; `pass` hands a view to a helper, which is the call
        // around it (judged on its own).
        return true;
    }
    if MATH.contains(&last) && (segs.len() == 1 || segs[segs.len() - 2] == "math") {
        // `deviceemu::math`'s functions (imported, or by path): pure arithmetic.
        return true;
    }
    if segs.len() == 2 && last == "default" && segs[0].starts_with(|c: char| c.is_uppercase()) {
        // `Uint4::default()`: a type's `Default`, by convention a pure value.
        return true;
    }
    // `deviceemu::lane_id()`: the built-ins by their crate's path.
    if segs.len() == 1 || (segs.len() == 2 && segs[0] == "deviceemu") {
        return matches!(
            last,
            "min"
                | "max"
                | "thread_fence"
                | "thread_fence_block"
                | "lane_id"
                | "warp_size"
                | "dynamic_shared"
                | "thread_idx"
                | "block_idx"
                | "block_dim"
                | "grid_dim"
        ) || last.starts_with(|c: char| c.is_uppercase());
    }
    let first = segs[0].as_str();
    matches!(
        first,
        "core"
            | "std"
            | "libm"
            | "f32"
            | "f64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "bool"
            | "Dim3"
            | "Some"
            | "Ok"
    )
}

/// `deviceemu::math`'s functions (and the CUDA names a port imports from it): pure.
const MATH: [&str; 79] = [
    "sinf",
    "cosf",
    "tanf",
    "asinf",
    "acosf",
    "atanf",
    "sinhf",
    "coshf",
    "tanhf",
    "asinh",
    "acosh",
    "atanh",
    "cbrtf",
    "erfcf",
    "erff",
    "exp2f",
    "expf",
    "expm1f",
    "log10f",
    "log1pf",
    "log2f",
    "logf",
    "tgammaf",
    "ceilf",
    "copysignf",
    "exp10f",
    "fabsf",
    "floorf",
    "fmaf",
    "fmaxf",
    "fminf",
    "lgammaf",
    "roundf",
    "rsqrtf",
    "sincosf",
    "sqrtf",
    "truncf",
    "powf",
    "atan2f",
    "fmodf",
    "hypotf",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "cbrt",
    "erf",
    "ceil",
    "copysign",
    "fabs",
    "floor",
    "fma",
    "fmax",
    "fmin",
    "lgamma",
    "round",
    "rsqrt",
    "sincos",
    "sqrt",
    "trunc",
    "asinhf",
    "acoshf",
    "atanhf",
    "pow",
    "atan2",
    "fmod",
];

/// Macros region code may use: printing and assertions (no loops that wait, no barriers).
const MACROS: [&str; 16] = [
    "println",
    "print",
    "eprintln",
    "eprint",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "matches",
    "format_args",
    "shared_array",
    "kprintln",
];

/// Checks region code for what fission cannot run (see the module documentation).
struct Checker {
    /// Depth of `for` loops and closures inside region code (`break`/`continue` are theirs).
    inner: usize,
    error: Option<String>,
    /// Closures the kernel binds at statement level (region code may call them).
    closures: HashSet<String>,
    /// Checking a `#[device]` helper's body (`helpers::classify`): every `while` and `loop`
    /// of a helper has a progress point, which must not run in region code.
    helper_mode: bool,
}

impl Checker {
    fn fail(&mut self, why: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(why.into());
        }
    }
}

/// Puts a region progress point (`__private::region_progress_point`, which never yields) at
/// the head of every `while`, and every `for` over a range that is not block-uniform, without
/// barriers or collectives: region code may run those that
/// end on the thread's own arithmetic (`local_termination`), and a thread whose faulting load
/// gave a zero, or whose loop never ends, must still stop there, as at the general path's
/// progress point. Closures and nested items are left alone (their loops keep the general
/// path, as the check does not look inside a closure's `while` differently).
struct RegionLoops;

impl VisitMut for RegionLoops {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let (span, body) = match e {
            Expr::While(w) => (w.while_token.span, &mut w.body),
            // A `for` over a range a thread computes (`thread_idx().x..n`): it ends, but may
            // run for long; one with block-uniform bounds is left free of the counter, as in
            // the per-thread forms (`progress.rs`).
            Expr::ForLoop(f) if !bounded_range(&f.expr) => (f.for_token.span, &mut f.body),
            _ => return,
        };
        if waits_in_block(body) {
            return;
        }
        let counter = Ident::new("__emu_spins", Span::mixed_site());
        let rt = quote_spanned!(span=> ::deviceemu::__private);
        body.stmts.insert(
            0,
            syn::parse_quote_spanned!(span=> if #rt::progress_due(&mut #counter) { #rt::region_progress_point(); }),
        );
        let inner = e.clone();
        *e = syn::parse_quote_spanned!(span=> {
            #[allow(unused_mut)]
            let mut #counter: u32 = 0;
            #inner
        });
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether a `while cond { body }` ends on the thread's own arithmetic: its condition reads
/// no memory but the thread's local arrays and read-only buffer parameters, and calls
/// nothing, and every name it depends on (through the body's assignments and `let`s,
/// transitively) is assigned only such values (`private_expr`), never borrowed mutably,
/// captured by a closure or named in a macro. A loop that waits for a value another thread
/// stores must load memory some thread writes, so such a loop cannot spin on another thread
/// (a neighbour list's `while k < start[i + 1] { .. nbr[k] ..; k += 1; }` over `&[T]`s).
fn local_termination(cond: &Expr, body: &Block) -> bool {
    if !private_expr(cond) {
        return false;
    }
    let mut deps: HashSet<String> = uniform::idents_of(&Stmt::Expr(cond.clone(), None));
    loop {
        let mut f = Deps { deps: &deps, add: HashSet::new(), ok: true };
        f.visit_block(body);
        if !f.ok {
            return false;
        }
        let before = deps.len();
        deps.extend(f.add);
        if deps.len() == before {
            return true;
        }
    }
}

/// The values `local_termination`'s names are given in a loop body.
struct Deps<'a> {
    deps: &'a HashSet<String>,
    add: HashSet<String>,
    ok: bool,
}

impl Deps<'_> {
    fn given(&mut self, target: Option<String>, value: &Expr) {
        if target.is_some_and(|t| self.deps.contains(&t)) {
            self.ok &= private_expr(value);
            self.add.extend(uniform::idents_of(&Stmt::Expr(value.clone(), None)));
        }
    }
}

impl<'ast> Visit<'ast> for Deps<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let names = pat_names(&l.pat);
        if names.iter().any(|n| self.deps.contains(n)) {
            match (&l.init, local_name(&l.pat)) {
                (Some(init), Some(n)) if init.diverge.is_none() => self.given(Some(n), &init.expr),
                (None, Some(_)) => {}
                _ => self.ok = false,
            }
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        if uniform::is_shared_decl(e) {
            // `shared_array!` as the rewrite leaves it: its tokens (the GPU form's `asm!`)
            // assign nothing of the kernel's.
            return;
        }
        let touches = |e: &Expr| uniform::idents_of(&Stmt::Expr(e.clone(), None)).iter().any(|n| self.deps.contains(n));
        match e {
            Expr::Assign(a) => match path_name(&a.left) {
                Some(n) => self.given(Some(n), &a.right),
                None => self.ok &= !touches(&a.left),
            },
            Expr::Binary(b) if is_assign(&b.op) => match path_name(&b.left) {
                Some(n) => self.given(Some(n), &b.right),
                None => self.ok &= !touches(&b.left),
            },
            Expr::Reference(r) if r.mutability.is_some() => self.ok &= !touches(&r.expr),
            Expr::MethodCall(m) if !uniform::PURE_METHODS.iter().any(|p| m.method == p) => {
                self.ok &= !touches(&m.receiver)
            }
            Expr::Closure(_) | Expr::Macro(_) => self.ok &= !touches(e),
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        if let Stmt::Macro(_) = s {
            self.ok &= !uniform::idents_of(s).iter().any(|n| self.deps.contains(n));
        }
        syn::visit::visit_stmt(self, s);
    }
}

/// Whether `e` iterates over a local's or a parameter's elements, or over a range, through
/// adapters that keep it finite: `w.iter()`, `&w`, `w.iter().enumerate()`, `a.iter().zip(&b)`,
/// `w.chunks(2).rev()`. Such a loop ends, as a range's does; in region code it gets a region
/// progress point all the same (`RegionLoops`).
fn finite_iter(e: &Expr) -> bool {
    let finite = |e: &Expr| finite_iter(e) || range_like(e);
    match e {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Reference(r) => matches!(&*r.expr, Expr::Path(_)) && finite_iter(&r.expr),
        Expr::Paren(p) => finite_iter(&p.expr),
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "iter" | "iter_mut" | "into_iter" => m.args.is_empty() && finite(&m.receiver),
            "chunks" | "chunks_exact" | "windows" => finite_iter(&m.receiver),
            "enumerate" | "rev" | "copied" | "cloned" | "zip" | "take" | "skip" | "step_by" => finite(&m.receiver),
            "chain" => finite(&m.receiver) && m.args.iter().all(finite),
            _ => false,
        },
        _ => false,
    }
}

fn range_like(e: &Expr) -> bool {
    match e {
        Expr::Range(r) => r.end.is_some(),
        Expr::Paren(p) => range_like(&p.expr),
        Expr::MethodCall(m) => {
            matches!(m.method.to_string().as_str(), "step_by" | "rev" | "skip" | "take") && range_like(&m.receiver)
        }
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Checker {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if uniform::is_shared_decl(e) {
            // `shared_array!` as the rewrite leaves it (with the GPU form's items).
            return;
        }
        match e {
            Expr::While(w) if w.label.is_none() && !self.helper_mode && local_termination(&w.cond, &w.body) => {
                // It ends on the thread's own arithmetic (a grid-stride loop): no other
                // thread can keep it going.
                self.visit_expr(&w.cond);
                self.inner += 1;
                self.visit_block(&w.body);
                self.inner -= 1;
                return;
            }
            Expr::While(_) | Expr::Loop(_) => return self.fail("a `while` or `loop` that may spin"),
            Expr::Async(_) | Expr::Await(_) => return self.fail("`async` code"),
            Expr::ForLoop(f) => {
                if !range_like(&f.expr) && !finite_iter(&f.expr) {
                    return self.fail("a `for` loop over something other than a range or a local's elements");
                }
                // A range whose bounds are not block-uniform (a grid-stride `for` from the
                // thread's index) still ends: the thread computed its bounds before it began.
                // In region code it has a region progress point at its head (`RegionLoops`), in
                // a helper's body the progress point of every per-thread form (`progress.rs`).
                if f.label.is_some() {
                    return self.fail("a labelled loop");
                }
                self.visit_expr(&f.expr);
                self.inner += 1;
                self.visit_block(&f.body);
                self.inner -= 1;
                return;
            }
            Expr::Closure(c) => {
                self.inner += 1;
                self.visit_expr(&c.body);
                self.inner -= 1;
                return;
            }
            Expr::Break(b) if b.label.is_some() || self.inner == 0 => return self.fail("a `break` out of region code"),
            Expr::Continue(c) if c.label.is_some() || self.inner == 0 => {
                return self.fail("a `continue` out of region code")
            }
            Expr::Block(b) if b.label.is_some() => return self.fail("a labelled block"),
            Expr::Call(c) => {
                match &*c.func {
                    Expr::Path(p) if p.qself.is_none() && allowed_call(&p.path) => {}
                    // A closure called where it is written (`(|| ..)()`, the helpers' rewritten
                    // accesses): its body is checked as part of this expression.
                    f if matches!(strip_parens(f), Expr::Closure(_)) => {}
                    // A closure bound in the kernel (its body is checked where it is written).
                    Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.closures.contains(&i.to_string())) => {}
                    // A `#[device]` helper expanded earlier in this crate: its published
                    // `__emu_waits_NAME!()` decides at compile time (`helpers.rs`).
                    Expr::Path(p)
                        if p.qself.is_none() && p.path.get_ident().is_some_and(|i| helpers::known(&i.to_string())) =>
                    {
                        let name = p.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                        if self.helper_mode {
                            // A helper calling a helper: its classification, now.
                            if helpers::waits(&name) {
                                return self.fail(format!("a call of `{name}`, which may wait or spin (a helper)"));
                            }
                        } else {
                            helpers::called(&name);
                        }
                    }
                    // A function of the kernel's file whose body cannot wait or spin
                    // (`inline::select`): `max3(..)`, `V3::new(..)`, a helper written below.
                    Expr::Path(p) if p.qself.is_none() && inline::quiet_call(&p.path) => {}
                    f => {
                        let name = quote!(#f).to_string().replace(' ', "");
                        return self.fail(format!("a call of `{name}`, which may wait or spin (a helper)"));
                    }
                }
            }
            Expr::Macro(m) => self.check_macro(&m.mac),
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        match s {
            Stmt::Item(_) => self.fail("an item inside the body"),
            Stmt::Macro(m) => self.check_macro(&m.mac),
            _ => {}
        }
        syn::visit::visit_stmt(self, s);
    }
}

impl Checker {
    fn check_macro(&mut self, m: &syn::Macro) {
        if !m.path.segments.last().is_some_and(|s| MACROS.iter().any(|k| s.ident == k)) {
            let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            self.fail(format!("the macro `{name}!`, which fission does not know"));
        }
    }
}

// ---------------------------------------------------------------- the program

/// A statement-level `let` of the body.
struct Local {
    name: String,
    ident: Ident,
    mutable: bool,
    init: Expr,
    /// The run it is bound in.
    run: usize,
    /// Its statement, as written.
    stmt: Stmt,
}

impl Local {
    /// An immutable binding of shared memory (`shared_array!`, `dynamic_shared()`): a handle
    /// no statement can change, whatever the analyses count (`s.atomic_add(0, 1)` names it as
    /// a method's receiver); what it points to is memory (`footprint.rs`).
    fn shared_view(&self) -> bool {
        !self.mutable && (uniform::is_shared_decl(&self.init) || dynamic_shared_call(&self.init))
    }
}

/// What a region carries across barriers ([`Program::carried`]): the values of earlier
/// runs it restores before its thread code and those it saves after, for the scalar form and
/// the fast forms of `tiers.rs`.
struct Carried<'p> {
    /// Per-thread slots taken, recomputed locals recomputed.
    restores: TokenStream,
    /// The same for a vectorised form, whose chunks must have no effect before their end (a
    /// chunk that panics runs again lane by lane): per-thread values are copied out of their
    /// slots, not taken, which needs their type to be `Copy` (`None`: one is not known to be).
    vector_restores: Option<TokenStream>,
    /// The per-thread values put back into their slots.
    saves: TokenStream,
    /// Whether every value saved is bound in this run: a vectorised chunk that runs again
    /// lane by lane then stores the same values again (it restores none of them).
    fresh_saves: bool,
    /// The per-thread slots it takes values from or puts them back into.
    slots: Vec<Ident>,
    /// The same for an interleaved form (`interleave.rs`); `None` when a value taken from a
    /// slot is not known to be `Copy`, or one is bound in this run.
    io: Option<interleave::Interleave<'p>>,
}

struct Program {
    params: HashSet<String>,
    ctx: Ident,
    locals: Vec<Local>,
    by_name: HashMap<String, usize>,
    /// Loop variables of `for` loops with barriers (uniform).
    loop_vars: HashSet<String>,
    /// The conditions and ranges of loops with barriers (must be uniform).
    heads: Vec<Expr>,
    /// Names assigned outside statement-level assignments (or borrowed mutably).
    assigned_inside: HashSet<String>,
    /// Statement-level assignments: name and value.
    assigned_top: Vec<(String, Expr)>,
    /// The uniformity pass's result (`uniform.rs`; empty until `analyse`).
    uniformity: uniform::Uniformity,
    /// The liveness pass's result (`liveness.rs`; empty until `analyse`).
    liveness: liveness::Liveness,
    /// Names each run mentions.
    mentions: HashMap<usize, HashSet<String>>,
    /// Closures bound at statement level.
    closures: HashSet<String>,
    /// The runs each local is in scope in (after its own run, in its node list and below).
    scope: HashMap<String, HashSet<usize>>,
    /// The runs of its scope inside a loop that is itself in its scope (a loop's next pass
    /// may read the value again).
    looped: HashMap<String, HashSet<usize>>,
    /// The buffer parameters (global views).
    buffers: HashSet<String>,
    /// Every name mentioned so far, in program order (`shadow_param`).
    mentioned: HashSet<String>,
    /// Whether the kernel is barrier-free (a lane loop, whose checks may be hoisted).
    lane_loop: bool,
    /// The local that is the body's only view of the dynamic shared memory
    /// ([`sole_dynamic_shared`]).
    sole_dynamic_shared: Option<String>,
    /// How many warp shuffles the body has lowered (`warp_shuffle`).
    shuffles: usize,
    /// How many full-mask `sync_warp`s are region boundaries (`warp_sync_stmt`).
    warp_syncs: usize,
    /// A lane loop's span form (`spans.rs`), as `emit_run` made it: its uniform prefix and
    /// `if guard { chunks; true } else { false }`.
    span: std::cell::RefCell<Option<TokenStream>>,
}

impl Program {
    fn new(params: &[String], ctx: &Ident) -> Self {
        Program {
            params: params.iter().cloned().collect(),
            ctx: ctx.clone(),
            locals: Vec::new(),
            by_name: HashMap::new(),
            loop_vars: HashSet::new(),
            heads: Vec::new(),
            assigned_inside: HashSet::new(),
            assigned_top: Vec::new(),
            uniformity: Default::default(),
            liveness: Default::default(),
            mentions: HashMap::new(),
            closures: HashSet::new(),
            scope: HashMap::new(),
            looped: HashMap::new(),
            buffers: HashSet::new(),
            mentioned: HashSet::new(),
            lane_loop: false,
            sole_dynamic_shared: None,
            shuffles: 0,
            warp_syncs: 0,
            span: Default::default(),
        }
    }

    /// The warp-level region boundaries: lowered shuffles and full-mask `sync_warp`s.
    fn warp_points(&self) -> usize {
        self.shuffles + self.warp_syncs
    }

    fn bind(&mut self, name: String) -> Result<(), String> {
        if self.params.contains(&name) || self.by_name.contains_key(&name) || self.loop_vars.contains(&name) {
            return Err("a name bound twice at statement level (shadowing)".into());
        }
        Ok(())
    }

    /// A root-level `let` may shadow a parameter (`let n = n as usize;`) when nothing before
    /// it names the parameter: every mention is then of the local, and the parameter leaves
    /// the analysis.
    fn shadow_param(&mut self, name: &str, root: bool, mentioned: &HashSet<String>) -> bool {
        if root && self.params.contains(name) && !mentioned.contains(name) {
            self.params.remove(name);
            self.buffers.remove(name);
            return true;
        }
        false
    }

    /// Collects the statement-level bindings and assignments.
    fn collect(&mut self, nodes: &[Node], _scope: &mut Vec<String>) -> Result<(), String> {
        for (i, n) in nodes.iter().enumerate() {
            if let Node::Run(stmts, _) = n {
                let (mut later, mut looped) = (HashSet::new(), HashSet::new());
                runs_in(&nodes[i + 1..], &mut later);
                loop_runs_in(&nodes[i + 1..], &mut looped);
                for s in stmts {
                    if let Stmt::Local(l) = s {
                        if let Some(name) = local_name(&l.pat) {
                            self.scope.insert(name.clone(), later.clone());
                            self.looped.insert(name, looped.clone());
                        }
                    }
                }
            }
            if let Node::For { pat: Pat::Ident(pi), body, .. } = n {
                let mut inside = HashSet::new();
                runs_in(body, &mut inside);
                self.scope.insert(pi.ident.to_string(), inside);
            }
        }
        for n in nodes {
            match n {
                Node::Run(stmts, run) => {
                    let mut names = HashSet::new();
                    for s in stmts {
                        if let Stmt::Local(l) = s {
                            if let Some(name) = local_name(&l.pat) {
                                let root = _scope.is_empty();
                                self.shadow_param(&name, root, &self.mentioned.clone());
                            }
                        }
                        names.extend(idents_of(s));
                        self.mentioned.extend(idents_of(s));
                        match s {
                            Stmt::Local(l) => {
                                let (ident, mutable) = match &l.pat {
                                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                                        (pi.ident.clone(), pi.mutability.is_some())
                                    }
                                    Pat::Type(pt) => match &*pt.pat {
                                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                                            (pi.ident.clone(), pi.mutability.is_some())
                                        }
                                        _ => return Err("a statement-level `let` with a pattern".into()),
                                    },
                                    _ => return Err("a statement-level `let` with a pattern".into()),
                                };
                                let Some(init) = &l.init else { return Err("a `let` without a value".into()) };
                                if init.diverge.is_some() {
                                    return Err("a `let ... else`".into());
                                }
                                let name = ident.to_string();
                                self.bind(name.clone())?;
                                if matches!(&*init.expr, Expr::Closure(_)) {
                                    self.closures.insert(name.clone());
                                }
                                self.by_name.insert(name.clone(), self.locals.len());
                                self.locals.push(Local {
                                    name,
                                    ident,
                                    mutable,
                                    init: (*init.expr).clone(),
                                    run: *run,
                                    stmt: s.clone(),
                                });
                                self.visit_assignments(&init.expr);
                            }
                            Stmt::Expr(Expr::Assign(a), Some(_)) if path_name(&a.left).is_some() => {
                                self.assigned_top.push((path_name(&a.left).unwrap_or_default(), (*a.right).clone()));
                                self.visit_assignments(&a.right);
                            }
                            Stmt::Expr(Expr::Binary(b), Some(_))
                                if is_assign(&b.op) && path_name(&b.left).is_some() =>
                            {
                                self.assigned_top.push((path_name(&b.left).unwrap_or_default(), (*b.right).clone()));
                                self.visit_assignments(&b.right);
                            }
                            Stmt::Expr(e, _) => self.visit_assignments(e),
                            Stmt::Macro(m) => {
                                // Macro tokens may assign anything they name.
                                self.assigned_inside.extend(idents_of(s));
                                let _ = m;
                            }
                            Stmt::Item(_) => return Err("an item inside the body".into()),
                        }
                    }
                    self.mentions.insert(*run, names);
                }
                Node::Barrier(..) => {}
                Node::While { cond, body, .. } => {
                    self.heads.push(cond.clone());
                    self.mentioned.extend(idents_of(cond));
                    _scope.push(String::new());
                    self.collect(body, _scope)?;
                    _scope.pop();
                }
                Node::If { cond, then, otherwise, warp, .. } => {
                    if *warp {
                        // `tid < B`: `tid` must be the thread's x index.
                        let (name, _) = warp_bound(cond).ok_or("a warp-aligned `if` fission cannot read")?;
                        let ok = name.is_empty()
                            || self.by_name.get(&name).is_some_and(|&k| {
                                let l = &self.locals[k];
                                !l.mutable && is_thread_x(&l.init, &self.ctx.to_string())
                            });
                        if !ok {
                            return Err("warp shuffles under a condition not proved warp-uniform".into());
                        }
                    } else {
                        self.heads.push(cond.clone());
                    }
                    self.mentioned.extend(idents_of(cond));
                    _scope.push(String::new());
                    self.collect(then, _scope)?;
                    self.collect(otherwise, _scope)?;
                    _scope.pop();
                }
                Node::For { pat, expr, body, .. } => {
                    match pat {
                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() => {
                            let name = pi.ident.to_string();
                            self.bind(name.clone())?;
                            self.loop_vars.insert(name);
                        }
                        Pat::Wild(_) => {}
                        _ => return Err("a `for` loop with barriers and a pattern".into()),
                    }
                    self.heads.push(expr.clone());
                    self.mentioned.extend(idents_of(expr));
                    _scope.push(String::new());
                    self.collect(body, _scope)?;
                    _scope.pop();
                }
            }
        }
        Ok(())
    }

    /// Notes the names assigned (or mutably borrowed, or used as method receivers) inside `e`.
    fn visit_assignments(&mut self, e: &Expr) {
        struct A<'a>(&'a mut HashSet<String>);
        impl<'ast> Visit<'ast> for A<'_> {
            fn visit_expr(&mut self, e: &'ast Expr) {
                if uniform::is_shared_decl(e) {
                    // `shared_array!` as the rewrite leaves it: the names in its tokens (the
                    // GPU form's `asm!` operands) are not the kernel's locals.
                    return;
                }
                match e {
                    Expr::Assign(a) => {
                        self.0.extend(path_name(&a.left));
                    }
                    Expr::Binary(b) if is_assign(&b.op) => {
                        self.0.extend(path_name(&b.left));
                    }
                    Expr::Reference(r) if r.mutability.is_some() => {
                        self.0.extend(path_name(&r.expr));
                    }
                    Expr::MethodCall(m) if !uniform::PURE_METHODS.iter().any(|p| m.method == p) => {
                        self.0.extend(path_name(&m.receiver));
                    }
                    // Macro tokens are opaque. A closure's body is visited like any other
                    // code: what it assigns, borrows mutably or calls a method on is there.
                    Expr::Macro(_) => {
                        self.0.extend(idents_of(e));
                    }
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
            fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
                self.0.extend(idents_of(&Stmt::Macro(m.clone())));
            }
        }
        A(&mut self.assigned_inside).visit_expr(e);
    }

    /// Checks every run's code and every loop head.
    fn check_code(&self, nodes: &[Node]) -> Result<(), String> {
        for n in nodes {
            match n {
                Node::Run(stmts, _) => {
                    let mut c = Checker { inner: 0, error: None, closures: self.closures.clone(), helper_mode: false };
                    stmts.iter().for_each(|s| c.visit_stmt(s));
                    if let Some(e) = c.error {
                        return Err(e);
                    }
                }
                Node::Barrier(..) => {}
                Node::While { cond, body, .. } | Node::For { expr: cond, body, .. } => {
                    let mut c = Checker { inner: 0, error: None, closures: self.closures.clone(), helper_mode: false };
                    c.visit_expr(cond);
                    if let Some(e) = c.error {
                        return Err(e);
                    }
                    self.check_code(body)?;
                }
                Node::If { cond, then, otherwise, .. } => {
                    let mut c = Checker { inner: 0, error: None, closures: self.closures.clone(), helper_mode: false };
                    c.visit_expr(cond);
                    if let Some(e) = c.error {
                        return Err(e);
                    }
                    self.check_code(then)?;
                    self.check_code(otherwise)?;
                }
            }
        }
        Ok(())
    }

    fn names<'a>(&'a self, uniform: &'a HashSet<String>, locals: &'a HashSet<String>, ctx: &'a str) -> Names<'a> {
        Names { uniform, params: &self.params, locals, ctx, shared: None }
    }

    /// Whether `e` is block-uniform once the analysis is done ([`Names::uniform`] over the
    /// kernel's uniform names and its locals).
    fn block_uniform(&self, e: &Expr) -> bool {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        self.names(&self.uniformity.names, &locals, &ctx).uniform(e)
    }

    /// The analyses, each a pass of its own: uniformity (`uniform.rs`), liveness across
    /// barriers (`liveness.rs`), and the seams between region loops (`seams.rs`).
    fn analyse(&mut self, nodes: &[Node]) -> Result<(), String> {
        let roots = Roots::of(&self.buffers, self.locals_for_roots());
        let uniformity = uniform::solve(self, &roots, nodes)?;
        let liveness = liveness::classify(self, &uniformity.names)?;
        self.uniformity = uniformity;
        self.liveness = liveness;
        // A kernel with lowered shuffles runs every thread to each shuffle before any goes
        // on: a schedule CUDA allows, not the general path's (README, "Which path a kernel
        // takes"), so the seams that keep the general path's order do not apply.
        if self.warp_points() == 0 {
            seams::check(self, &roots, nodes, &mut Footprint::default())?;
        }
        Ok(())
    }

    /// The names the kernel binds at statement level: its locals and the variables of its loops
    /// with barriers (the names the uniformity and liveness passes judge).
    fn bound_names(&self) -> HashSet<String> {
        self.locals.iter().map(|l| l.name.clone()).chain(self.loop_vars.iter().cloned()).collect()
    }

    /// The locals as `footprint::Roots::of` takes them: name, initialiser, and whether it is
    /// ever assigned again (a shared view's binding never is: `Local::shared_view`).
    fn locals_for_roots(&self) -> impl Iterator<Item = (&str, &Expr, bool)> {
        self.locals.iter().map(|l| {
            let again = self.assigned_inside.contains(&l.name) || self.assigned_top.iter().any(|(n, _)| n == &l.name);
            (l.name.as_str(), &l.init, l.mutable || (again && !l.shared_view()))
        })
    }

    /// Whether `s` is a uniform statement under `uniform`: a `let` of a uniform name, or a
    /// statement-level assignment to one.
    fn uniform_stmt(&self, s: &Stmt, uniform: &HashSet<String>) -> Option<String> {
        let name = match s {
            Stmt::Expr(_, None) => None,
            s => stmt_target(s),
        }?;
        uniform.contains(&name).then_some(name)
    }

    /// The memory run `stmts`'s thread code touches (`footprint.rs`): code whose place among
    /// the other threads' code can be observed through it. Thread code that only computes the
    /// thread's own values (its locals, its local arrays: `private_stmt`) has none, and can
    /// run in a loop of its own before or after the others' without anyone telling.
    fn footprint(&self, roots: &Roots, stmts: &[Stmt]) -> Footprint {
        roots.stmts(stmts.iter().filter(|s| self.uniform_stmt(s, &self.uniformity.names).is_none() && !private_stmt(s)))
    }
}

/// The local a statement binds (`let x = ..`) or assigns (`x = ..;`, `x += ..;`).
fn stmt_target(s: &Stmt) -> Option<String> {
    match s {
        Stmt::Local(l) => local_name(&l.pat),
        Stmt::Expr(Expr::Assign(a), _) => path_name(&a.left),
        Stmt::Expr(Expr::Binary(b), _) if is_assign(&b.op) => path_name(&b.left),
        _ => None,
    }
}

/// The name a statement-level `let` binds.
/// The names bound inside a syntax node: every `PatIdent` (`let`s, closures' parameters, other
/// patterns).
struct Bound(HashSet<String>);

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// The names statement `s` binds itself (its `let`s, closures' and patterns' names).
fn bound_in(s: &Stmt) -> HashSet<String> {
    let mut b = Bound(HashSet::new());
    b.visit_stmt(s);
    b.0
}

/// The names a pattern binds.
fn pat_names(p: &Pat) -> HashSet<String> {
    let mut b = Bound(HashSet::new());
    b.visit_pat(p);
    b.0
}

fn local_name(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(pi) => Some(pi.ident.to_string()),
        Pat::Type(pt) => local_name(&pt.pat),
        _ => None,
    }
}

/// The runs of `nodes`, nested ones too.
/// Primitive types, whose locals are `Copy`.
/// Whether `t` is one of the [`PRIMITIVES`], by name.
fn primitive_type(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| PRIMITIVES.contains(&i.to_string().as_str())))
}

const PRIMITIVES: [&str; 15] =
    ["f32", "f64", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "bool"];

/// The runs inside the loops among `nodes` (and inside their branches' loops).
fn loop_runs_in(nodes: &[Node], out: &mut HashSet<usize>) {
    for n in nodes {
        match n {
            Node::While { body, .. } | Node::For { body, .. } => runs_in(body, out),
            Node::If { then, otherwise, .. } => {
                loop_runs_in(then, out);
                loop_runs_in(otherwise, out);
            }
            Node::Run(..) | Node::Barrier(..) => {}
        }
    }
}

fn runs_in(nodes: &[Node], out: &mut HashSet<usize>) {
    for n in nodes {
        match n {
            Node::Run(_, k) => {
                out.insert(*k);
            }
            Node::Barrier(..) => {}
            Node::While { body, .. } | Node::For { body, .. } => runs_in(body, out),
            Node::If { then, otherwise, .. } => {
                runs_in(then, out);
                runs_in(otherwise, out);
            }
        }
    }
}

/// Where a uniform statement among a run's thread code runs: before the region's loop or
/// after it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    Before,
    After,
}

/// Where each uniform statement of run `stmts` (`named[k]`: the name a uniform statement
/// binds or assigns, `None` for thread code; thread code from `first` to `last`) runs, or
/// `None` when it cannot move (and for thread code). A `let` moves before the loop (no
/// statement before it can name what it binds). An assignment (SHOC's `window += blockSize`
/// between per-thread statements) moves before the loop when no thread statement before it
/// mentions the name, else after the loop when none after it does: thread code cannot assign a
/// uniform name, so the statement's value is the same at either place, and no thread reads the
/// name in between. Two uniform statements that trade places (one moved after the loop, a
/// later one before it) must not mention each other's names.
fn places(stmts: &[Stmt], named: &[Option<String>], first: usize, last: usize) -> Vec<Option<Place>> {
    let ids: Vec<HashSet<String>> = stmts.iter().map(idents_of).collect();
    let wanted: Vec<Option<Place>> = (0..stmts.len())
        .map(|k| {
            let name = named[k].as_ref()?;
            if matches!(stmts[k], Stmt::Local(_)) {
                return Some(Place::Before);
            }
            let mentions =
                |range: std::ops::Range<usize>| range.filter(|&j| named[j].is_none()).any(|j| ids[j].contains(name));
            if !mentions(first..k) {
                Some(Place::Before)
            } else if !mentions(k + 1..last + 1) {
                Some(Place::After)
            } else {
                None
            }
        })
        .collect();
    let commute = |j: usize, k: usize| {
        let (a, b) = (named[j].as_deref().unwrap_or_default(), named[k].as_deref().unwrap_or_default());
        !ids[j].contains(b) && !ids[k].contains(a)
    };
    (0..stmts.len())
        .map(|k| {
            let here = wanted[k]?;
            let crossed = match here {
                Place::Before => (first..k).filter(|&j| wanted[j] == Some(Place::After)).all(|j| commute(j, k)),
                Place::After => (k + 1..last + 1).filter(|&j| wanted[j] == Some(Place::Before)).all(|j| commute(j, k)),
            };
            crossed.then_some(here)
        })
        .collect()
}

/// The view a plain identifier `e` names in a pass that tracks views: the one its `let` alias
/// in `alias` stands for, or itself when `is_view` says it is a view.
fn view_named(e: &Expr, alias: &HashMap<String, Ident>, is_view: impl FnOnce(&str) -> bool) -> Option<Ident> {
    let Expr::Path(p) = e else { return None };
    let id = p.path.get_ident()?;
    let name = id.to_string();
    alias.get(&name).cloned().or_else(|| is_view(&name).then(|| id.clone()))
}

fn path_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => path_name(&p.expr),
        _ => None,
    }
}

/// Whether evaluating `e` touches no memory and calls nothing (arithmetic, casts, reads of
/// locals, parameters and the indices).
fn pure_expr(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(f) => pure_expr(&f.base),
        Expr::Binary(b) => !is_assign(&b.op) && pure_expr(&b.left) && pure_expr(&b.right),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && pure_expr(&u.expr),
        Expr::Cast(c) => pure_expr(&c.expr),
        Expr::Paren(p) => pure_expr(&p.expr),
        Expr::Group(g) => pure_expr(&g.expr),
        Expr::Tuple(t) => t.elems.iter().all(pure_expr),
        Expr::Array(a) => a.elems.iter().all(pure_expr),
        Expr::Repeat(r) => pure_expr(&r.expr),
        Expr::Struct(st) => st.rest.is_none() && st.fields.iter().all(|f| pure_expr(&f.expr)),
        Expr::MethodCall(m) => {
            uniform::PURE_METHODS.iter().any(|p| m.method == p)
                && pure_expr(&m.receiver)
                && m.args.iter().all(pure_expr)
        }
        // `if c { a } else { b }` of pure values (`v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 }`).
        Expr::If(i) => {
            pure_expr(&i.cond)
                && pure_value(&i.then_branch)
                && i.else_branch.as_ref().is_some_and(|(_, e)| match &**e {
                    Expr::Block(b) => b.label.is_none() && pure_value(&b.block),
                    e => pure_expr(e),
                })
        }
        _ => false,
    }
}

/// Whether block `b` is one pure value (`{ a }`).
fn pure_value(b: &Block) -> bool {
    matches!(b.stmts.as_slice(), [Stmt::Expr(e, None)] if pure_expr(e))
}

/// Whether statement `s` (of the rewritten body, where every access of a view is a call)
/// only computes the thread's own values: `let`s and assignments of locals and of elements of
/// local arrays (`c[k] = 0.0`, `acc.x += v`) with values of locals, and `for` loops over
/// ranges and `if`s of such statements. No call, no view, no exit, no loop that may spin.
fn private_stmt(s: &Stmt) -> bool {
    match s {
        Stmt::Local(l) => {
            l.init.as_ref().is_none_or(|i| i.diverge.is_none() && private_expr(&i.expr))
                && matches!(&l.pat, Pat::Ident(_) | Pat::Type(_))
        }
        Stmt::Expr(e, _) => private_effect(e),
        _ => false,
    }
}

fn private_effect(e: &Expr) -> bool {
    match e {
        Expr::Assign(a) => private_place(&a.left) && private_expr(&a.right),
        Expr::Binary(b) if is_assign(&b.op) => private_place(&b.left) && private_expr(&b.right),
        Expr::ForLoop(f) => {
            f.label.is_none() && range_like(&f.expr) && private_expr(&f.expr) && f.body.stmts.iter().all(private_stmt)
        }
        Expr::If(i) => {
            private_expr(&i.cond)
                && i.then_branch.stmts.iter().all(private_stmt)
                && i.else_branch.as_ref().is_none_or(|(_, e)| private_effect(e))
        }
        Expr::Block(b) => b.label.is_none() && b.block.stmts.iter().all(private_stmt),
        e => private_expr(e),
    }
}

/// A local, a field of one, or an element of a local array (a view's element is a call here).
fn private_place(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => private_place(&f.base),
        Expr::Index(i) => private_place(&i.expr) && private_expr(&i.index),
        Expr::Paren(p) => private_place(&p.expr),
        _ => false,
    }
}

/// The index of `e` when it is a load of a read-only buffer parameter, `load(checked, &v, i)`
/// (`rewrite.rs`) with `v` a `&[T]` parameter the body does not bind again: memory no thread
/// of the launch writes.
pub(super) fn read_only_load(e: &Expr) -> Option<&Expr> {
    let (view, index) = load_of(e)?;
    READ_ONLY.with(|ro| ro.borrow().contains(&view)).then_some(index)
}

/// Whether `view` is a read-only buffer parameter (`&[T]`) the body does not bind again: a
/// store to it is the user's error, which the scalar form reports once.
pub(super) fn is_read_only(view: &str) -> bool {
    READ_ONLY.with(|ro| ro.borrow().contains(view))
}

/// The view (by name) and index of `load(checked, &v, i)` (`rewrite.rs`).
pub(super) fn load_of(e: &Expr) -> Option<(String, &Expr)> {
    let Expr::Call(c) = e else { return None };
    let a = Access::of(c).filter(|a| !a.is_store())?;
    Some((path_name(a.viewed()?)?, a.index))
}

/// `pure_expr`, reads of local arrays' elements, and loads of read-only buffer parameters
/// (`&[T]`: no thread of the launch writes them, so when a thread loads from one does not
/// matter to the others; `rewrite.rs` made each such load `load(checked, &v, i)`).
fn private_expr(e: &Expr) -> bool {
    if let Some(index) = read_only_load(e) {
        return private_expr(index);
    }
    match e {
        Expr::Index(i) => private_expr(&i.expr) && private_expr(&i.index),
        Expr::Range(r) => r.start.as_deref().is_none_or(private_expr) && r.end.as_deref().is_none_or(private_expr),
        Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "step_by" | "rev") => {
            private_expr(&m.receiver) && m.args.iter().all(private_expr)
        }
        Expr::Binary(b) => !is_assign(&b.op) && private_expr(&b.left) && private_expr(&b.right),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && private_expr(&u.expr),
        Expr::Cast(c) => private_expr(&c.expr),
        Expr::Paren(p) => private_expr(&p.expr),
        Expr::Field(f) => private_expr(&f.base),
        Expr::If(i) => {
            private_expr(&i.cond)
                && block_value_private(&i.then_branch)
                && i.else_branch.as_ref().is_some_and(|(_, e)| private_expr(e))
        }
        Expr::Block(b) => b.label.is_none() && block_value_private(&b.block),
        e => pure_expr(e),
    }
}

fn block_value_private(b: &Block) -> bool {
    b.stmts.iter().all(|s| match s {
        Stmt::Expr(e, None) => private_expr(e),
        s => private_stmt(s),
    })
}

/// Whether `e` is a pure function of the thread's indices, constants, parameters, `fixed`
/// (immutable uniform) names and `recomputed` names.
fn pure_index(
    e: &Expr,
    fixed: &HashSet<String>,
    recomputed: &HashSet<String>,
    params: &HashSet<String>,
    locals: &HashSet<String>,
    ctx: &str,
) -> bool {
    let rec = |e: &Expr| pure_index(e, fixed, recomputed, params, locals, ctx);
    match e {
        Expr::Lit(_) => true,
        Expr::Path(p) => match p.path.get_ident() {
            Some(id) => {
                let s = id.to_string();
                fixed.contains(&s)
                    || recomputed.contains(&s)
                    || params.contains(&s)
                    || (!locals.contains(&s) && s != ctx && s.chars().all(|c| !c.is_lowercase()))
            }
            None => p.path.segments.last().is_some_and(|s| !s.ident.to_string().chars().any(|c| c.is_lowercase())),
        },
        Expr::Field(f) => match &*f.base {
            Expr::Path(p) if p.path.is_ident(ctx) => true,
            b => rec(b),
        },
        Expr::Binary(b) => !is_assign(&b.op) && rec(&b.left) && rec(&b.right),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && rec(&u.expr),
        Expr::Cast(c) => rec(&c.expr),
        Expr::Paren(p) => rec(&p.expr),
        Expr::Group(g) => rec(&g.expr),
        Expr::MethodCall(m) => {
            uniform::PURE_METHODS.iter().any(|p| m.method == p)
                && m.method != "len"
                && rec(&m.receiver)
                && m.args.iter().all(rec)
        }
        // `if c { a } else { b }` of such values (CUB's `if WARPS == 1 { 0 } else { tid / 32 }`).
        Expr::If(i) => {
            let value = |b: &Block| matches!(&b.stmts[..], [Stmt::Expr(e, None)] if rec(e));
            rec(&i.cond)
                && value(&i.then_branch)
                && i.else_branch.as_ref().is_some_and(|(_, e)| match &**e {
                    Expr::Block(b) => b.label.is_none() && b.attrs.is_empty() && value(&b.block),
                    e @ Expr::If(_) => rec(e),
                    _ => false,
                })
        }
        _ => false,
    }
}

// ---------------------------------------------------------------- emission

/// Turns `return e` of region code (outside closures) into `return Some(e)`: the region's
/// per-thread closure returns where the thread exited.
struct Returns {
    depth: usize,
}

impl VisitMut for Returns {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) | Expr::Async(_) => {
                self.depth += 1;
                syn::visit_mut::visit_expr_mut(self, e);
                self.depth -= 1;
            }
            Expr::Return(r) if self.depth == 0 => {
                if let Some(v) = &mut r.expr {
                    self.visit_expr_mut(v);
                }
                let span = r.span();
                let value = match r.expr.take() {
                    Some(v) => quote!(#v),
                    None => quote_spanned!(span=> ::deviceemu::__private::exit_here()),
                };
                *e = syn::parse_quote_spanned!(span=> return ::core::option::Option::Some(#value));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Program {
    fn lanes_ident(&self, name: &str) -> Ident {
        Ident::new(&format!("__emu_lanes_{name}"), Span::mixed_site())
    }

    fn emit(&self, nodes: &[Node], g: &Gen) -> TokenStream {
        let (rb, ctx) = (&g.rb, &g.ctx);
        // A local handed to a shuffle as a whole (`Exchange::put_lanes`) hands over the values
        // of the live threads only (`slots.rs`, `HandOver`), whichever slots it has.
        let lanes = self.locals.iter().filter(|l| self.liveness.kinds[&l.name] == Lives::Lanes).map(|l| {
            let id = self.lanes_ident(&l.name);
            match self.slot_type(&l.name) {
                // `slots.rs`: zeroed slots where the type is `DeviceCopy`, tagged ones otherwise.
                // (The borrow is the choice: `TaggedSlots` is one auto-reference further.)
                Some(ty) => quote! {
                    #[allow(clippy::needless_borrow)]
                    let mut #id = {
                        use ::deviceemu::__private::{TaggedSlots as _, ZeroSlots as _};
                        (&::deviceemu::__private::SlotOf::<#ty>::new()).slots(&*#rb)
                    };
                },
                None => quote!(let mut #id = #rb.lanes();),
            }
        });
        let body = self.emit_nodes(nodes, g);
        let exchanges = (0..self.shuffles).map(|n| {
            let x = exchange_ident(n);
            quote!(let #x = ::deviceemu::__private::Exchange::new(#rb.threads());)
        });
        quote! {
            #[allow(unused_variables)]
            let #ctx = #rb.block_ctx();
            #(#lanes)*
            #(#exchanges)*
            #body
        }
    }

    fn emit_nodes(&self, nodes: &[Node], g: &Gen) -> TokenStream {
        let rb = &g.rb;
        let mut out = TokenStream::new();
        for n in nodes {
            match n {
                Node::Run(stmts, run) => out.extend(self.emit_run(stmts, *run, g)),
                Node::Barrier(span, false) => out.extend(quote_spanned!(*span=> #rb.barrier();)),
                // The hand-over of a shuffle ends the region; no thread waits on another.
                Node::Barrier(_, true) => {}
                Node::While { cond, body, span } => {
                    let body = self.emit_nodes(body, g);
                    out.extend(quote_spanned!(*span=> while (#cond) && #rb.any_live() { #body }));
                }
                Node::For { pat, expr, body, span } => {
                    let body = self.emit_nodes(body, g);
                    out.extend(quote_spanned!(*span=> for #pat in #expr { if !#rb.any_live() { break; } #body }));
                }
                Node::If { cond, then, span, warp: true, .. } => {
                    let (_, bound) = warp_bound(cond).expect("checked by collect");
                    let bound = bound as usize;
                    let outer: Expr = match &g.outer {
                        Some(o) => syn::parse_quote!(::core::cmp::min(#o, #bound)),
                        None => syn::parse_quote!(#bound),
                    };
                    let inner = Gen { rb: g.rb.clone(), t: g.t.clone(), ctx: g.ctx.clone(), outer: Some(outer) };
                    let then = self.emit_nodes(then, &inner);
                    out.extend(quote_spanned!(*span=> { #then }));
                }
                Node::If { cond, then, otherwise, span, .. } => {
                    let (then, otherwise) = (self.emit_nodes(then, g), self.emit_nodes(otherwise, g));
                    out.extend(quote_spanned!(*span=> if #cond { #then } else { #otherwise }));
                }
            }
        }
        out
    }

    /// Whether local `name`'s type is known to be `Copy` from how it is bound: a literal, an
    /// element load, a scalar parameter, an index, or arithmetic, casts, float methods and
    /// `if`/`else` of those (`obviously_copy`).
    fn copy_local(&self, name: &str) -> bool {
        let Some(&k) = self.by_name.get(name) else { return false };
        let l = &self.locals[k];
        if let Stmt::Local(syn::Local { pat: Pat::Type(pt), .. }) = &l.stmt {
            // A primitive, or arrays and tuples of them.
            fn primitive(t: &syn::Type) -> bool {
                match t {
                    syn::Type::Path(_) => primitive_type(t),
                    syn::Type::Array(a) => primitive(&a.elem),
                    syn::Type::Tuple(t) => t.elems.iter().all(primitive),
                    syn::Type::Paren(p) => primitive(&p.elem),
                    _ => false,
                }
            }
            if primitive(&pt.ty) {
                return true;
            }
        }
        self.obviously_copy(&l.init, k)
    }

    /// The type of local `name` where its binding shows it: its annotation, or the type of its
    /// value (`type_of`). `None` where it does not, or where the type cannot be named at the
    /// top of the regions' function (`_`, `impl Trait`, a macro).
    fn slot_type(&self, name: &str) -> Option<syn::Type> {
        let &k = self.by_name.get(name)?;
        let l = &self.locals[k];
        if let Stmt::Local(syn::Local { pat: Pat::Type(pt), .. }) = &l.stmt {
            return nameable(&pt.ty).then(|| (*pt.ty).clone());
        }
        self.type_of(&l.init, k)
    }

    /// The type of `e`, the value bound to local `k`, where the expression alone shows it: a
    /// cast, a suffixed literal, an array of such, a comparison, a thread's or block's index,
    /// an earlier local whose type is shown, and arithmetic on a primitive of known type (the
    /// operator of two primitives gives their type).
    fn type_of(&self, e: &Expr, k: usize) -> Option<syn::Type> {
        use syn::BinOp as B;
        let ctx = self.ctx.to_string();
        match e {
            Expr::Cast(c) => nameable(&c.ty).then(|| (*c.ty).clone()),
            Expr::Lit(l) => {
                let suffix = match &l.lit {
                    syn::Lit::Int(i) => i.suffix(),
                    syn::Lit::Float(f) => f.suffix(),
                    syn::Lit::Bool(_) => "bool",
                    _ => "",
                };
                PRIMITIVES.contains(&suffix).then(|| syn::parse_str(suffix).expect("a primitive type"))
            }
            Expr::Repeat(r) => {
                let (t, len) = (self.type_of(&r.expr, k)?, &r.len);
                Some(syn::parse_quote!([#t; #len]))
            }
            Expr::Paren(p) => self.type_of(&p.expr, k),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) => {
                self.type_of(&u.expr, k).filter(primitive_type)
            }
            Expr::Binary(b) => match b.op {
                B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) | B::And(_) | B::Or(_) => {
                    Some(syn::parse_quote!(bool))
                }
                B::Shl(_) | B::Shr(_) => self.type_of(&b.left, k).filter(primitive_type),
                B::Add(_)
                | B::Sub(_)
                | B::Mul(_)
                | B::Div(_)
                | B::Rem(_)
                | B::BitAnd(_)
                | B::BitOr(_)
                | B::BitXor(_) => self
                    .type_of(&b.left, k)
                    .filter(primitive_type)
                    .or_else(|| self.type_of(&b.right, k).filter(primitive_type)),
                _ => None,
            },
            // `ctx.thread_idx.x` and the like.
            Expr::Field(f) => {
                matches!(&*f.base, Expr::Field(inner) if matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(&ctx)))
                    .then(|| syn::parse_quote!(u32))
            }
            // An element of a shared view bound earlier.
            Expr::Call(c) if Rt::of(c) == Some(Rt::Load) => {
                let Expr::Reference(r) = &c.args[1] else { return None };
                match self.by_name.get(&path_name(&r.expr)?) {
                    Some(&j) if j < k => view_element(&self.locals[j].init),
                    _ => None,
                }
            }
            Expr::Path(_) => {
                let name = path_name(e)?;
                match self.by_name.get(&name) {
                    Some(&j) if j < k => self.slot_type(&name),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `obviously_copy` for the value of an expression in the binding of local `k` (names are
    /// looked up among the locals bound before it).
    fn obviously_copy(&self, e: &Expr, k: usize) -> bool {
        let ctx = self.ctx.to_string();
        match e {
            Expr::Lit(_) => true,
            // Arrays and tuples of `Copy` values are `Copy`.
            Expr::Repeat(r) => self.obviously_copy(&r.expr, k),
            Expr::Array(a) => a.elems.iter().all(|e| self.obviously_copy(e, k)),
            Expr::Tuple(t) => t.elems.iter().all(|e| self.obviously_copy(e, k)),
            Expr::Paren(p) => self.obviously_copy(&p.expr, k),
            Expr::Cast(c) => self.obviously_copy(&c.expr, k),
            Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && self.obviously_copy(&u.expr, k),
            Expr::Binary(b) => !is_assign(&b.op) && self.obviously_copy(&b.left, k) && self.obviously_copy(&b.right, k),
            Expr::If(i) => {
                let branch =
                    |b: &syn::Block| matches!(b.stmts.last(), Some(Stmt::Expr(e, None)) if self.obviously_copy(e, k));
                branch(&i.then_branch)
                    && match &i.else_branch {
                        Some((_, e)) => self.obviously_copy(e, k),
                        None => false,
                    }
            }
            Expr::Block(b) => matches!(b.block.stmts.last(), Some(Stmt::Expr(e, None)) if self.obviously_copy(e, k)),
            Expr::MethodCall(m) => {
                FLOAT_METHODS.iter().any(|f| m.method == f)
                    && self.obviously_copy(&m.receiver, k)
                    && m.args.iter().all(|a| self.obviously_copy(a, k))
            }
            Expr::Call(c) => Rt::of(c) == Some(Rt::Load),
            Expr::Field(f) => {
                // `ctx.thread_idx.x` and the like.
                matches!(&*f.base, Expr::Field(inner) if matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(&ctx)))
            }
            Expr::Path(_) => {
                let Some(name) = path_name(e) else { return false };
                match self.by_name.get(&name) {
                    Some(&j) if j < k => self.copy_local(&name),
                    Some(_) => false,
                    None => self.params.contains(&name) && !self.buffers.contains(&name),
                }
            }
            _ => false,
        }
    }

    /// Whether the per-thread value of local `name` may be read after run `run`, which must
    /// then put it back in its slot: a later run of its scope mentions it (runs are numbered
    /// in program order), or `run` is inside a loop within its scope, whose next pass may read
    /// it. A value read for the last time is left out of its slot (the scan's `v`, bound anew
    /// by each pass).
    fn read_after(&self, name: &str, run: usize) -> bool {
        let scope = &self.scope[name];
        self.looped.get(name).is_some_and(|l| l.contains(&run))
            || self.mentions.iter().any(|(r, names)| *r > run && scope.contains(r) && names.contains(name))
    }

    /// The values run `run`'s region carries across barriers, by their kinds (`liveness.rs`).
    fn carried(&self, thread: &[Stmt], run: usize, t: &Ident) -> Carried<'_> {
        let mentions = &self.mentions[&run];
        // Values of earlier runs: per-thread slots taken, recomputed ones recomputed.
        let mut restores = TokenStream::new();
        // The same for a vectorised form, whose chunks must have no effect before their end
        // (a chunk that panics runs again lane by lane): per-thread values are copied out of
        // their slots, not taken, which needs their type to be `Copy` (`None`: one is not
        // known to be).
        let mut vector_restores = Some(TokenStream::new());
        let mut needed: HashSet<String> = mentions.clone();
        // The recomputed locals' own dependencies, transitively.
        loop {
            let before = needed.len();
            for l in &self.locals {
                if self.liveness.kinds[&l.name] == Lives::Recomputed && l.run != run && needed.contains(&l.name) {
                    needed.extend(idents_of(&l.init));
                }
            }
            if needed.len() == before {
                break;
            }
        }
        let mut saves = TokenStream::new();
        // The same, for an interleaved form (`interleave.rs`); `None` when a value taken from
        // a slot is not known to be `Copy`.
        let mut io = Some(interleave::Interleave { recomputed: Vec::new(), taken: Vec::new(), saved: Vec::new() });
        // Whether every value saved is bound in this run: a vectorised chunk that runs again
        // lane by lane then stores the same values again (it restores none of them).
        let mut fresh_saves = true;
        // The per-thread slots it takes values from or puts them back into.
        let mut slots: Vec<Ident> = Vec::new();
        // What the thread code may change (`None`: anything). A `Copy` local it leaves alone
        // is read from its slot, not taken, and not stored back.
        let written = uniform::written_in(thread);
        for l in &self.locals {
            let used = needed.contains(&l.name) && self.scope[&l.name].contains(&run);
            match self.liveness.kinds[&l.name] {
                Lives::Recomputed if used && l.run != run => {
                    let s = &l.stmt;
                    restores.extend(quote!(#s));
                    if let Some(io) = &mut io {
                        io.recomputed.push((&l.ident, &l.init));
                    }
                    if let Some(v) = &mut vector_restores {
                        v.extend(quote!(#s));
                    }
                }
                Lives::Lanes if mentions.contains(&l.name) && (l.run == run || self.scope[&l.name].contains(&run)) => {
                    let (id, lanes) = (&l.ident, self.lanes_ident(&l.name));
                    let copy = self.copy_local(&l.name);
                    let kept = l.run != run && copy && written.as_ref().is_some_and(|w| !w.contains(&l.name));
                    let saved = self.read_after(&l.name, run) && !kept;
                    if l.run != run || saved {
                        slots.push(lanes.clone());
                    }
                    if l.run != run {
                        restores.extend(match copy {
                            true => quote!(#[allow(unused_mut)] let mut #id = #lanes.get(#t);),
                            false => quote!(#[allow(unused_mut)] let mut #id = #lanes.take(#t);),
                        });
                        vector_restores = vector_restores
                            .filter(|_| self.copy_local(&l.name))
                            .map(|v| quote!(#v #[allow(unused_mut)] let mut #id = #lanes.get(#t);));
                        io = io.filter(|_| self.copy_local(&l.name));
                        if let Some(io) = &mut io {
                            io.taken.push((id, lanes.clone()));
                        }
                    } else {
                        // Bound in this run: not a form the interleaved region takes.
                        io = None;
                    }
                    if saved {
                        saves.extend(quote!(#lanes.put(#t, #id);));
                        fresh_saves &= l.run == run;
                        if let Some(io) = &mut io {
                            io.saved.push((id, lanes.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
        Carried { restores, vector_restores, saves, fresh_saves, slots, io }
    }

    /// A run of statements split into the uniform statements the block runs before its
    /// region loop, the loop's thread code, and the uniform statements after it; `None` when
    /// the run is uniform only (block-level code). Uniform statements among the thread code go
    /// before or after the loop, in order (`places`, which `uniform::misplaced` made sure of).
    fn placed(&self, stmts: &[Stmt]) -> Option<(Vec<Stmt>, Vec<Stmt>, Vec<Stmt>)> {
        let named: Vec<Option<String>> = stmts.iter().map(|s| self.uniform_stmt(s, &self.uniformity.names)).collect();
        let first = named.iter().position(Option::is_none)?;
        let last = named.iter().rposition(Option::is_none).unwrap_or(first);
        let places = places(stmts, &named, first, last);
        let mut prefix: Vec<Stmt> = stmts[..first].to_vec();
        let mut thread: Vec<Stmt> = Vec::new();
        let mut suffix: Vec<Stmt> = Vec::new();
        for k in first..=last {
            match places[k] {
                Some(Place::Before) => prefix.push(stmts[k].clone()),
                Some(Place::After) => suffix.push(stmts[k].clone()),
                None => thread.push(stmts[k].clone()),
            }
        }
        suffix.extend(stmts[last + 1..].iter().cloned());
        Some((prefix, thread, suffix))
    }

    /// The code of one run: its uniform statements, and its region loop in the forms of the
    /// tiers that apply (`tiers.rs`).
    fn emit_run(&self, stmts: &[Stmt], run: usize, g: &Gen) -> TokenStream {
        let t = &g.t;
        let Some((prefix, thread, suffix)) = self.placed(stmts) else {
            return quote!(#(#stmts)*);
        };
        let (prefix, thread, suffix) = (&prefix[..], &thread[..], &suffix[..]);
        let Carried { restores, vector_restores, saves, fresh_saves, slots, io } = self.carried(thread, run, t);
        // A region that only hands a per-thread local to a shuffle: one copy of the slots.
        if let Some(copy) = self.lanes_hand_over(thread, g) {
            return quote!(#(#prefix)* #copy #(#suffix)*);
        }
        let narrowed = match (self.narrowing(thread, run, &g.rb), &g.outer) {
            (Some((tid, b)), Some(o)) => Some((tid, syn::parse_quote!(::core::cmp::min(#b, #o)))),
            (Some(n), None) => Some(n),
            (None, Some(o)) => Some((String::new(), o.clone())),
            (None, None) => None,
        };
        let stride = narrowed.is_none().then(|| self.strided(thread, run)).flatten();
        // The scalar form, wrapped by the fast forms of the tiers that have one (`tiers.rs`).
        let region = tiers::Region {
            thread,
            restores: &restores,
            vector_restores: vector_restores.as_ref(),
            saves: &saves,
            fresh_saves,
            slots: &slots,
            io: io.as_ref(),
            narrowed: narrowed.as_ref(),
            stride: stride.as_ref(),
            g,
            narrowed_hoist: Default::default(),
            hoisted: Default::default(),
        };
        let scalar = region.run(thread, &saves);
        let call = tiers::chain(self, &region, scalar);
        // A region that hands a value to a shuffle first forgets the last round's: a thread
        // that stops in it hands nothing over.
        let clear =
            thread.last().and_then(hand_over_exchange).map(|x| quote!(::deviceemu::__private::Exchange::clear(#x);));
        if self.lane_loop && suffix.is_empty() && clear.is_none() {
            if let Some((guard, code)) = tiers::span(self, &region) {
                self.span.replace(Some(quote!(#(#prefix)* if #guard { #code true } else { false })));
            }
        }
        quote!(#(#prefix)* #clear #call #(#suffix)*)
    }

    /// `Exchange::put_lanes` for a region whose whole thread code is the hand-over of a
    /// lowered shuffle's value (`warp_shuffle`) that is a local kept in a per-thread slot:
    /// every slot holds its thread's value at the region's start.
    ///
    /// Inside a warp-aligned `if tid < bound { .. }` (`g.outer`) the copy covers the warps
    /// below the bound only, whose threads alone read the values.
    fn lanes_hand_over(&self, thread: &[Stmt], g: &Gen) -> Option<TokenStream> {
        let [s @ Stmt::Expr(Expr::Call(c), _)] = thread else { return None };
        hand_over_exchange(s)?;
        let name = path_name(&c.args[2])?;
        if self.liveness.kinds.get(&name) != Some(&Lives::Lanes) {
            return None;
        }
        let (x, lanes) = (&c.args[0], self.lanes_ident(&name));
        let bound = match &g.outer {
            Some(bound) => quote!(#bound),
            None => quote!(usize::MAX),
        };
        let rb = &g.rb;
        Some(quote!(::deviceemu::__private::Exchange::put_lanes(#x, &#lanes, &*#rb, #bound);))
    }

    /// The bound of a region whose thread code is `if tid < bound { .. }` alone, with `tid`
    /// the thread's `thread_idx().x` (recomputed, cast losslessly) and `bound` uniform; and
    /// the name of that `tid` local.
    fn narrowing(&self, thread: &[Stmt], run: usize, rb: &Ident) -> Option<(String, Expr)> {
        if let Some(n) = self.scaled_narrowing(thread, run, rb) {
            return Some(n);
        }
        if let [Stmt::Expr(Expr::If(i), _)] = thread {
            return self.if_bound(i, run);
        }
        self.narrowing_ifs(thread, run)
    }

    /// The bound of `if tid < bound { .. }` (no `else`), with `tid` a thread-x local or
    /// `thread_idx().x` itself (perhaps cast), and `bound` uniform; and the name of that local
    /// (empty for `thread_idx().x`).
    fn if_bound(&self, i: &syn::ExprIf, run: usize) -> Option<(String, Expr)> {
        if i.else_branch.is_some() {
            return None;
        }
        let Expr::Binary(b) = strip_parens(&i.cond) else { return None };
        // `tid < s` runs threads below `s`; `tid <= s` and `tid == s` those below `s + 1`.
        let ctx = self.ctx.to_string();
        let thread_x = |e: &Expr| path_name(e).is_some() || is_thread_x(strip_parens(e), &ctx);
        let (tid, bound, inclusive) = match b.op {
            syn::BinOp::Lt(_) => (&*b.left, &*b.right, false),
            syn::BinOp::Gt(_) => (&*b.right, &*b.left, false),
            syn::BinOp::Le(_) => (&*b.left, &*b.right, true),
            syn::BinOp::Ge(_) => (&*b.right, &*b.left, true),
            syn::BinOp::Eq(_) if thread_x(&b.left) => (&*b.left, &*b.right, true),
            syn::BinOp::Eq(_) => (&*b.right, &*b.left, true),
            _ => return None,
        };
        let name = match self.thread_x_local(tid, run) {
            Some((name, _)) => name,
            None if is_thread_x(strip_parens(tid), &ctx) => String::new(),
            None => return None,
        };
        if !self.block_uniform(bound) {
            return None;
        }
        let rt = rt();
        Some((
            name,
            match inclusive {
                false => syn::parse_quote!(#rt::region_bound(#bound)),
                true => syn::parse_quote!(#rt::region_bound(#bound).saturating_add(1)),
            },
        ))
    }

    /// A region whose thread code is `let`s of values whose evaluation cannot panic
    /// (`ranges::panic_free`) that no later region reads, and `if`s that each
    /// narrow as [`Program::if_bound`] does (CUB's `if linear_tid == 0 { .. } let aggregate =
    /// partial; if thread_idx().x == 0 { .. }`): a thread at or past every `if`'s bound only
    /// binds values nobody reads and fails every test, so the region runs the threads below
    /// the largest bound alone. The local's name is empty: no one `if` speaks for the region.
    fn narrowing_ifs(&self, thread: &[Stmt], run: usize) -> Option<(String, Expr)> {
        let mut bounds: Vec<Expr> = Vec::new();
        for s in thread {
            match s {
                Stmt::Local(l) => {
                    let name = local_name(&l.pat)?;
                    let init = l.init.as_ref()?;
                    if init.diverge.is_some()
                        || !ranges::panic_free(&init.expr)
                        || !self.scope.contains_key(&name)
                        || self.read_after(&name, run)
                    {
                        return None;
                    }
                }
                Stmt::Expr(Expr::If(i), _) => bounds.push(self.if_bound(i, run)?.1),
                _ => return None,
            }
        }
        let first = bounds.pop()?;
        Some((String::new(), bounds.into_iter().fold(first, |a, b| syn::parse_quote!(::core::cmp::max(#a, #b)))))
    }

    /// The local `e` names, when it holds `thread_idx().x` (perhaps cast) for the threads of
    /// run `run`: bound in it and not reassigned, or recomputed where it is used.
    fn thread_x_local(&self, e: &Expr, run: usize) -> Option<(String, &Local)> {
        let name = path_name(e)?;
        let l = &self.locals[*self.by_name.get(&name)?];
        if (l.mutable || l.run != run) && self.liveness.kinds.get(&name) != Some(&Lives::Recomputed) {
            return None;
        }
        is_thread_x(&l.init, &self.ctx.to_string()).then_some((name, l))
    }

    /// `if tid % m == 0 { .. }` alone (cuda-samples' reduce0: `if ((tid % (2 * s)) == 0)`),
    /// `m` block-uniform and `tid` a thread-x local: the threads that pass
    /// are those whose `thread_idx().x` is a multiple of `m`, which `Regions::each_strided`
    /// runs alone in index order (every thread otherwise, and for `m` below 2). The threads
    /// it skips would only have computed a remainder, which cannot panic for `m` other than
    /// 0, and failed the comparison. Gives `m`.
    fn strided(&self, thread: &[Stmt], run: usize) -> Option<Expr> {
        let [Stmt::Expr(Expr::If(i), _)] = thread else { return None };
        if i.else_branch.is_some() {
            return None;
        }
        let Expr::Binary(eq) = strip_parens(&i.cond) else { return None };
        if !matches!(eq.op, syn::BinOp::Eq(_)) {
            return None;
        }
        let zero = |e: &Expr| matches!(strip_parens(e), Expr::Lit(l) if matches!(&l.lit, syn::Lit::Int(n) if n.base10_digits() == "0"));
        let rem = match (strip_parens(&eq.left), strip_parens(&eq.right)) {
            (Expr::Binary(r), z) | (z, Expr::Binary(r)) if zero(z) && matches!(r.op, syn::BinOp::Rem(_)) => r,
            _ => return None,
        };
        // A thread-x local holds `thread_idx().x` exactly (a cast to 16 bits or more).
        let (tid, _) = self.thread_x_local(strip_parens(&rem.left), run)?;
        let m = strip_parens(&rem.right);
        if !self.block_uniform(m) || idents_of(m).contains(&tid) {
            return None;
        }
        Some(m.clone())
    }

    /// `let i = (k * tid) as T; if (i as U) < bound { .. }` (cuda-samples' reduce1), `k` and
    /// `bound` block-uniform, `tid` a thread-x local, the casts to integer types of 32 bits or
    /// more, `i` used in its run only (or recomputed): the threads it runs are those below
    /// `Regions::scaled_bound(k, bound)`, which is every thread unless no product can wrap. The
    /// threads it skips would only have computed `i` (arithmetic that cannot panic once the
    /// product fits) and failed the comparison.
    fn scaled_narrowing(&self, thread: &[Stmt], run: usize, rb: &Ident) -> Option<(String, Expr)> {
        let [Stmt::Local(l), Stmt::Expr(Expr::If(i), _)] = thread else { return None };
        if i.else_branch.is_some() {
            return None;
        }
        let index = local_name(&l.pat)?;
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        let il = &self.locals[*self.by_name.get(&index)?];
        if il.mutable
            || il.run != run
            || !matches!(self.liveness.kinds.get(&index), Some(Lives::Local | Lives::Recomputed))
        {
            return None;
        }
        if self.locals.iter().filter(|x| x.name == index).count() != 1 {
            return None;
        }
        // Casts between integer types of 32 bits or more, and parentheses.
        fn wide_casts(e: &Expr) -> Option<&Expr> {
            match e {
                Expr::Paren(p) => wide_casts(&p.expr),
                Expr::Cast(c) => {
                    let syn::Type::Path(p) = &*c.ty else { return None };
                    let t = p.path.get_ident()?.to_string();
                    ["u32", "i32", "u64", "i64", "usize", "isize"].contains(&t.as_str()).then_some(())?;
                    wide_casts(&c.expr)
                }
                e => Some(e),
            }
        }
        let Expr::Binary(m) = wide_casts(&init.expr)? else { return None };
        if !matches!(m.op, syn::BinOp::Mul(_)) {
            return None;
        }
        let Expr::Binary(c) = &*i.cond else { return None };
        if !matches!(c.op, syn::BinOp::Lt(_)) || path_name(wide_casts(&c.left)?)? != index {
            return None;
        }
        let bound = &*c.right;
        // `k * tid` or `tid * k`; `tid` a thread-x local of 32 bits or more (the product's type).
        let thread_x = |e: &Expr| {
            let (name, t) = self.thread_x_local(e, run)?;
            let narrow = matches!(&t.init, Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("u16") || p.path.is_ident("i16")));
            (!narrow).then_some(name)
        };
        let (tid, k) = match (thread_x(&m.left), thread_x(&m.right)) {
            (Some(t), None) => (t, &*m.right),
            (None, Some(t)) => (t, &*m.left),
            _ => return None,
        };
        if !self.block_uniform(k)
            || !self.block_uniform(bound)
            || idents_of(k).contains(&tid)
            || idents_of(bound).contains(&tid)
        {
            return None;
        }
        Some((tid, syn::parse_quote!(#rb.scaled_bound(#k, #bound))))
    }

    /// The views a region's code may access by name: the buffer parameters and the block's
    /// shared arrays (`shared_arrays`).
    pub(super) fn view_names(&self) -> HashSet<String> {
        let mut views = self.buffers.clone();
        views.extend(self.shared_arrays());
        views
    }

    /// The locals whose value may differ between the block's threads (all but the uniform
    /// ones), which a block-uniform expression does not read.
    pub(super) fn thread_varying(&self) -> HashSet<String> {
        self.locals
            .iter()
            .filter(|l| self.liveness.kinds.get(&l.name) != Some(&Lives::Uniform))
            .map(|l| l.name.clone())
            .collect()
    }

    /// The block's shared arrays: block-uniform locals bound to `shared_array!`, and the one
    /// view of the dynamic shared memory when the kernel has exactly one (a local bound to
    /// `dynamic_shared()`, the only call of it in the body and not cast): the fast forms
    /// take a view for memory no other name reaches, which a second view of the same bytes
    /// would break.
    pub(super) fn shared_arrays(&self) -> HashSet<String> {
        let uniform = |l: &&Local| self.liveness.kinds.get(&l.name) == Some(&Lives::Uniform);
        let mut arrays: HashSet<String> = self
            .locals
            .iter()
            .filter(uniform)
            .filter(|l| {
                let init = &l.init;
                quote!(#init).to_string().contains("shared_array")
            })
            .map(|l| l.name.clone())
            .collect();
        if let Some(name) = &self.sole_dynamic_shared {
            if self.locals.iter().filter(|l| &l.name == name).all(|l| uniform(&l) && !l.mutable) {
                arrays.insert(name.clone());
            }
        }
        arrays
    }

    /// A narrowed region (`if tid < s { .. }`, run by [`Regions::each_below`]) with its bounds
    /// checks hoisted, and the proof that lets it run: every access in it is `v[tid]`,
    /// `v[tid + u]` or `v[u]`, with `v` a buffer parameter or a shared array and `u`
    /// block-uniform. The threads it runs have `tid` in `0..hi`, `hi = min(bound,
    /// block_dim().x)`, so the proof checks each view against the largest index, `hi - 1 + u`
    /// (computed in `u`'s type, which must not overflow), and the smallest, `u`.
    fn hoist_region(&self, thread: &[Stmt], tid: &str, bound: &Expr, g: &Gen) -> Option<(TokenStream, Vec<Stmt>)> {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let names = self.names(&self.uniformity.names, &locals, &ctx);
        let uniform = |e: &Expr| !idents_of(e).contains(tid) && names.uniform(e);
        // Views: the buffer parameters and the block's shared arrays.
        let views = self.view_names();
        let mut stmts = thread.to_vec();
        let mut v = InBounds {
            region: Some(RegionAccesses { uniform: &uniform, found: Vec::new() }),
            ..InBounds::new(tid, &views)
        };
        for s in &mut stmts {
            v.visit_stmt_mut(s);
        }
        let found = v.region.take().map(|r| r.found).unwrap_or_default();
        if !v.ok || found.is_empty() {
            return None;
        }
        let rt = rt();
        let rb = &g.rb;
        let checks = found.iter().map(|(view, form)| match form {
            RegionIndex::Lane => quote!(&& #rt::view_aligned(&#view) && __emu_hi - 1 < #view.len()),
            RegionIndex::Offset(u) => {
                let below = lanes_below(u, quote!(#view.len()));
                quote!(&& #rt::view_aligned(&#view) && #below)
            }
            RegionIndex::Uniform(u) => quote!(&& #rt::view_aligned(&#view) && #rt::Index::to_index(#u) < #view.len()),
        });
        let proof = quote! {{
            let __emu_hi: usize = ::core::cmp::min(#bound, #rb.block_ctx().block_dim.x as usize);
            __emu_hi == 0 || (true #(#checks)*)
        }};
        Some((proof, stmts))
    }
}

/// A region's thread code: `stmts`, with each `return` made the closure's `Some(exit)`.
fn thread_code(stmts: &[Stmt]) -> TokenStream {
    let mut code = TokenStream::new();
    for s in stmts {
        let mut s = s.clone();
        Returns { depth: 0 }.visit_stmt_mut(&mut s);
        match &s {
            Stmt::Expr(e, None) => code.extend(quote!(#e;)),
            s => code.extend(quote!(#s)),
        }
    }
    code
}

/// Whether `e` is `ctx.thread_idx.x`, possibly cast to an integer type that holds every
/// `threadIdx.x` (at most 1023).
fn is_thread_x(e: &Expr, ctx: &str) -> bool {
    match e {
        Expr::Cast(c) => {
            let syn::Type::Path(p) = &*c.ty else { return false };
            let ok = p.path.get_ident().is_some_and(|t| {
                matches!(
                    t.to_string().as_str(),
                    "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "usize" | "isize" | "u128" | "i128"
                )
            });
            ok && is_thread_x(&c.expr, ctx)
        }
        Expr::Paren(p) => is_thread_x(&p.expr, ctx),
        Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(m) if m == "x")
                && matches!(&*f.base, Expr::Field(inner) if matches!(&inner.member, syn::Member::Named(m) if m == "thread_idx")
                    && matches!(&*inner.base, Expr::Path(p) if p.path.is_ident(ctx)))
        }
        _ => false,
    }
}

// ---------------------------------------------------------------- hoisted checks

/// Float methods a hoisted lane loop may call (no side effects, no panics).
const FLOAT_METHODS: [&str; 12] =
    ["sqrt", "mul_add", "exp", "ln", "sin", "cos", "floor", "ceil", "round", "abs", "min", "max"];

/// The body of a lane loop with its checks hoisted: its accesses, rewritten.
struct InBounds<'a> {
    index: &'a str,
    buffers: &'a HashSet<String>,
    /// The views it accesses.
    views: Vec<Ident>,
    ok: bool,
    /// Locals bound to a buffer parameter (`let __emu_view = y;`, as compound assignments
    /// are rewritten), and to the index.
    view_alias: HashMap<String, Ident>,
    index_alias: HashSet<String>,
    /// Other locals the body binds (it may assign them).
    own: HashSet<String>,
    /// The vectorised form (`Vector`): accesses become lane-buffer operations, and the body
    /// must fit that form (`vector_ok`).
    vector: Option<Vector>,
    /// A narrowed barrier region's accesses (`Program::hoist_region`): indices may also be
    /// `index + u` or a uniform `u`.
    region: Option<RegionAccesses<'a>>,
}

/// The accesses of a narrowed region, each with the form of its index.
struct RegionAccesses<'a> {
    uniform: &'a dyn Fn(&Expr) -> bool,
    found: Vec<(Ident, RegionIndex)>,
}

/// The index of an access in a narrowed region, with `tid` the region's thread index.
enum RegionIndex {
    /// `v[tid]`.
    Lane,
    /// `v[tid + u]` (or `u + tid`), `u` uniform.
    Offset(Expr),
    /// `v[u]`, `u` uniform.
    Uniform(Expr),
}

/// What the vectorised form of a lane loop's body needs: which views it loads and stores,
/// and whether every store is unconditional (a statement of the body, not part of an
/// expression), and no `if` makes any of its work conditional.
struct Vector {
    ok: bool,
    loaded: Vec<Ident>,
    written: Vec<Ident>,
    /// The body's accesses in program order: the view, whether it writes, and its span (the
    /// checkers' per-chunk hooks, `__private::lane_check`, report at its line).
    sites: Vec<(Ident, bool, proc_macro2::Span)>,
    /// Whether the expression being visited is a statement of the body (or of a block that
    /// is one), and how deep inside other expressions the visit is.
    at_stmt: bool,
    nested: u32,
}

/// The local that stages view `v`'s elements for a chunk of lanes.
fn lane_buf(v: &Ident) -> Ident {
    quote::format_ident!("__emu_lane_{}", v, span = proc_macro2::Span::mixed_site())
}

/// The lane's position in its chunk, in the vectorised form.
fn lane_k() -> Ident {
    Ident::new("__emu_k", proc_macro2::Span::mixed_site())
}

impl<'a> InBounds<'a> {
    /// The rewrite of accesses `v[index]` to the views `buffers`, in the plain hoisted form.
    fn new(index: &'a str, buffers: &'a HashSet<String>) -> Self {
        InBounds {
            index,
            buffers,
            views: Vec::new(),
            ok: true,
            view_alias: HashMap::new(),
            index_alias: HashSet::new(),
            own: HashSet::new(),
            vector: None,
            region: None,
        }
    }

    /// The same rewrite in the vectorised form.
    fn vectorised(index: &'a str, buffers: &'a HashSet<String>) -> Self {
        let vector =
            Vector { ok: true, loaded: Vec::new(), written: Vec::new(), sites: Vec::new(), at_stmt: false, nested: 0 };
        InBounds { vector: Some(vector), ..InBounds::new(index, buffers) }
    }

    /// `&v` with `v` a buffer parameter, and `i` the lane loop's index.
    fn access(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> Option<Ident> {
        let (Some(Expr::Reference(r)), Some(i)) = (args.iter().nth(1), args.iter().nth(2)) else { return None };
        let v = self.view_of(&r.expr)?;
        let is_index = |e: &Expr| path_name(e).is_some_and(|n| n == self.index || self.index_alias.contains(&n));
        if let Some(region) = &mut self.region {
            let form = match strip_parens(i) {
                e if is_index(e) => RegionIndex::Lane,
                Expr::Binary(b)
                    if matches!(b.op, syn::BinOp::Add(_)) && is_index(&b.left) && (region.uniform)(&b.right) =>
                {
                    RegionIndex::Offset((*b.right).clone())
                }
                Expr::Binary(b)
                    if matches!(b.op, syn::BinOp::Add(_)) && is_index(&b.right) && (region.uniform)(&b.left) =>
                {
                    RegionIndex::Offset((*b.left).clone())
                }
                e if (region.uniform)(e) => RegionIndex::Uniform(e.clone()),
                _ => return None,
            };
            region.found.push((v.clone(), form));
        } else if !is_index(i) {
            return None;
        }
        if !self.views.contains(&v) {
            self.views.push(v.clone());
        }
        Some(v)
    }

    /// The buffer parameter `e` names, directly or through an alias.
    fn view_of(&self, e: &Expr) -> Option<Ident> {
        view_named(e, &self.view_alias, |n| self.buffers.contains(n))
    }
}

impl VisitMut for InBounds<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        // The vectorised form: whether this expression is a statement, and (for what it
        // contains) one level deeper unless it is a statement-level block, whose statements
        // are statements too.
        let (at_stmt, deeper) = match &mut self.vector {
            Some(v) => {
                let at_stmt = std::mem::replace(&mut v.at_stmt, false);
                if matches!(e, Expr::If(_)) {
                    v.ok = false;
                }
                let deeper = !(at_stmt && v.nested == 0 && matches!(e, Expr::Block(_)));
                if deeper {
                    v.nested += 1;
                }
                (at_stmt && v.nested == 1, deeper)
            }
            None => (false, false),
        };
        self.visit_access(e, at_stmt);
        if let Some(v) = &mut self.vector {
            if deeper {
                v.nested -= 1;
            }
        }
    }
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        self.visit_statement(s)
    }
}

impl InBounds<'_> {
    /// The rewrite of one expression (`at_stmt`: it is a statement of the body).
    fn visit_access(&mut self, e: &mut Expr, at_stmt: bool) {
        match e {
            Expr::Lit(_) | Expr::Path(_) => {}
            Expr::Binary(b) if !is_assign(&b.op) => syn::visit_mut::visit_expr_binary_mut(self, b),
            Expr::Binary(b) if path_name(&b.left).is_some_and(|n| self.own.contains(&n)) => {
                self.visit_expr_mut(&mut b.right)
            }
            Expr::Assign(a) if path_name(&a.left).is_some_and(|n| self.own.contains(&n)) => {
                self.visit_expr_mut(&mut a.right)
            }
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => syn::visit_mut::visit_expr_unary_mut(self, u),
            Expr::Cast(_) | Expr::Paren(_) | Expr::Group(_) | Expr::Block(_) | Expr::If(_) => {
                syn::visit_mut::visit_expr_mut(self, e)
            }
            Expr::MethodCall(m) if FLOAT_METHODS.iter().any(|f| m.method == f) => {
                syn::visit_mut::visit_expr_method_call_mut(self, m)
            }
            Expr::Call(c) => {
                let span = c.span();
                let access = match Access::of(c) {
                    Some(_) => self.access(&c.args),
                    None => None,
                };
                let Some(view) = access else {
                    self.ok = false;
                    return;
                };
                let (v, i) = (&c.args[1], &c.args[2]);
                match (&mut self.vector, c.args.len()) {
                    (Some(vec), 3) => {
                        if !vec.loaded.contains(&view) {
                            vec.loaded.push(view.clone());
                        }
                        vec.sites.push((view.clone(), false, span));
                        let (buf, k) = (lane_buf(&view), lane_k());
                        // SAFETY: the chunk loaded this view's elements `0..m` before its
                        // lanes ran, and `k < m` (`fission::Program::hoist`).
                        *e = syn::parse_quote_spanned!(span=> unsafe { #buf.get(#k) });
                    }
                    (None, 3) => {
                        // The launch proved every index of this block in bounds of this view
                        // (`fission::Program::hoist`); the accessor checks it again.
                        *e = syn::parse_quote_spanned!(span=>
                            ::deviceemu::__private::load_in_bounds(#v, ::deviceemu::__private::Index::to_index(#i))
                        );
                    }
                    (vec, _) => {
                        if let Some(vec) = vec {
                            // Written back whole for the chunk: every lane must store.
                            if !at_stmt {
                                vec.ok = false;
                            }
                            if !vec.written.contains(&view) {
                                vec.written.push(view.clone());
                            }
                        }
                        let (v, i) = (v.clone(), i.clone());
                        let mut x = c.args[3].clone();
                        self.visit_expr_mut(&mut x);
                        *e = if let Some(vec) = &mut self.vector {
                            // The value's accesses come first.
                            vec.sites.push((view.clone(), true, span));
                            let (buf, k) = (lane_buf(&view), lane_k());
                            syn::parse_quote_spanned!(span=> #buf.set(#k, #x))
                        } else {
                            // As for the load.
                            syn::parse_quote_spanned!(span=>
                                ::deviceemu::__private::store_in_bounds(#v, ::deviceemu::__private::Index::to_index(#i), #x)
                            )
                        };
                    }
                }
            }
            _ => self.ok = false,
        }
    }
    fn visit_statement(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local(l)
                if matches!(&l.pat, Pat::Ident(p) if p.ident != self.index)
                    && l.init.as_ref().is_some_and(|i| i.diverge.is_none()) =>
            {
                let (Pat::Ident(p), Some(init)) = (&l.pat, &l.init) else { return };
                let name = p.ident.to_string();
                if self.view_alias.contains_key(&name)
                    || self.index_alias.contains(&name)
                    || self.buffers.contains(&name)
                {
                    self.ok = false;
                    return;
                }
                if let Some(v) = self.view_of(&init.expr) {
                    self.view_alias.insert(name, v);
                    return;
                }
                if path_name(&init.expr).is_some_and(|n| n == self.index || self.index_alias.contains(&n)) {
                    self.index_alias.insert(name);
                    return;
                }
                self.own.insert(name);
                syn::visit_mut::visit_local_mut(self, l)
            }
            Stmt::Expr(e, _) => {
                if let Some(v) = &mut self.vector {
                    v.at_stmt = true;
                }
                self.visit_expr_mut(e)
            }
            _ => self.ok = false,
        }
    }
}

impl Program {
    /// A lane loop's body with its bounds checks hoisted, and the proof that lets it run:
    /// the thread code is recomputed `let`s then `if i < bound { body }`, or recomputed `let`s
    /// binding `i` then `body` (no guard: every thread of the block runs it), with `i` affine
    /// in the thread index with stride 1 (`base + thread_idx().x`, `base` uniform, possibly
    /// cast), `bound` uniform, and `body` only arithmetic over scalars and accesses `v[i]` of
    /// buffer parameters. The proof evaluates `base` once, checks that `base + threads - 1`
    /// fits its type (so the indices are `i(0)..=i(0) + threads - 1`, without a wrap), that
    /// the last index passes the guard, and that it lies in bounds of every view the body
    /// touches.
    fn hoist(&self, thread: &[Stmt], g: &Gen) -> Option<Hoisted> {
        let recomputed = |s: &Stmt| matches!(s, Stmt::Local(l) if local_name(&l.pat).is_some_and(|n| self.liveness.kinds.get(&n) == Some(&Lives::Recomputed)));
        let guarded = thread.split_last().and_then(|(last, lets)| {
            let Stmt::Expr(Expr::If(cond_if), _) = last else { return None };
            if cond_if.else_branch.is_some() || !lets.iter().all(recomputed) {
                return None;
            }
            let Expr::Binary(b) = &*cond_if.cond else { return None };
            if !matches!(b.op, syn::BinOp::Lt(_)) {
                return None;
            }
            Some((lets, path_name(&b.left)?, Some(&*b.right), cond_if.then_branch.stmts.as_slice()))
        });
        let (lets, index, bound, then) = match guarded {
            Some(g) => g,
            // Unguarded: the first `let` of the index's shape ends the `let`s.
            None => {
                let at = thread.iter().take_while(|s| recomputed(s)).position(|s| {
                    let Stmt::Local(l) = s else { return false };
                    local_name(&l.pat).is_some_and(|n| self.affine_base(&n).is_some())
                })?;
                let Stmt::Local(l) = &thread[at] else { return None };
                (&thread[..=at], local_name(&l.pat)?, None, &thread[at + 1..])
            }
        };
        if then.is_empty() {
            return None;
        }
        if !bound.is_none_or(|b| self.block_uniform(b)) {
            return None;
        }
        let (outer_cast, base) = self.affine_base(&index)?;
        let mut body = then.to_vec();
        let mut v = InBounds::new(&index, &self.buffers);
        for s in &mut body {
            v.visit_stmt_mut(s);
        }
        if !v.ok || v.views.is_empty() {
            return None;
        }
        // The vectorised form: the same body over lane buffers, without the guard, which the
        // proof shows every lane passes.
        let mut vec_body = then.to_vec();
        let mut vv = InBounds::vectorised(&index, &self.buffers);
        for s in &mut vec_body {
            vv.visit_stmt_mut(s);
        }
        let vector = match vv.vector {
            Some(vec) if vv.ok && vec.ok => {
                let mut stmts: Vec<Stmt> = lets.to_vec();
                stmts.extend(vec_body);
                let first = match &outer_cast {
                    Some(ty) => quote!(((__emu_base) as #ty)),
                    None => quote!(__emu_base),
                };
                Some(Vectorised {
                    first: quote!({ let __emu_base = #base; #first }),
                    stmts,
                    loaded: vec.loaded,
                    written: vec.written,
                    sites: vec.sites,
                })
            }
            _ => None,
        };
        let rb = &g.rb;
        let cast = |e: TokenStream| match &outer_cast {
            Some(ty) => quote!(((#e) as #ty)),
            None => e,
        };
        let (first_i, last_i) = (cast(quote!(__emu_base)), cast(quote!(__emu_last)));
        let lens = v.views.iter().map(|view| {
            quote!(&& ::deviceemu::__private::view_aligned(&#view) && ::deviceemu::__private::Index::to_index(__emu_li) < #view.len())
        });
        let guard = bound.map(|b| quote!(__emu_li < (#b) &&));
        let proof = quote! {{
            let __emu_base = #base;
            match ::deviceemu::__private::lane_last(__emu_base, #rb.threads()) {
                ::core::option::Option::Some(__emu_last) => {
                    let (__emu_fi, __emu_li) = (#first_i, #last_i);
                    #guard ::deviceemu::__private::Index::to_index(__emu_fi) <= ::deviceemu::__private::Index::to_index(__emu_li)
                        #(#lens)*
                }
                ::core::option::Option::None => false,
            }
        }};
        let mut hoisted: Vec<Stmt> = lets.to_vec();
        match thread.last() {
            Some(Stmt::Expr(Expr::If(cond_if), semi)) if bound.is_some() => {
                let mut new_if = cond_if.clone();
                new_if.then_branch.stmts = body;
                hoisted.push(Stmt::Expr(Expr::If(new_if), *semi));
            }
            _ => hoisted.extend(body),
        }
        Some(Hoisted { proof, stmts: hoisted, vector })
    }

    /// For a recomputed local `i = cast?(base + thread_idx().x)` (in either order, `base`
    /// uniform, `thread_idx().x` possibly through a recomputed local): the cast's type and
    /// `base`.
    fn affine_base(&self, index: &str) -> Option<(Option<syn::Type>, Expr)> {
        let ctx = self.ctx.to_string();
        let locals: HashSet<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        let l = &self.locals[*self.by_name.get(index)?];
        if self.liveness.kinds.get(index) != Some(&Lives::Recomputed) {
            return None;
        }
        // `i = cast?((base + tx))` with `tx` the thread's x index.
        let (outer_cast, sum) = match &l.init {
            Expr::Cast(c) => (Some((*c.ty).clone()), strip_parens(&c.expr)),
            e => (None, strip_parens(e)),
        };
        let Expr::Binary(add) = sum else { return None };
        if !matches!(add.op, syn::BinOp::Add(_)) {
            return None;
        }
        let is_tx = |e: &Expr| {
            is_thread_x(e, &ctx)
                || path_name(e).is_some_and(|n| {
                    self.by_name.get(&n).is_some_and(|&k| {
                        self.liveness.kinds[&n] == Lives::Recomputed && is_thread_x(&self.locals[k].init, &ctx)
                    })
                })
        };
        let base = match (is_tx(&add.left), is_tx(&add.right)) {
            (false, true) => &*add.left,
            (true, false) => &*add.right,
            _ => return None,
        };
        if !self.names(&self.uniformity.names, &locals, &ctx).uniform(base) {
            return None;
        }
        Some((outer_cast, strip_parens(base).clone()))
    }
}

/// A lane loop with its checks hoisted (`Program::hoist`).
struct Hoisted {
    /// The launch-time proof that every index of the block is in bounds.
    proof: TokenStream,
    /// The thread code with unchecked accesses.
    stmts: Vec<Stmt>,
    /// The vectorised form, when the body fits it.
    vector: Option<Vectorised>,
}

/// The body of a vectorised lane loop: lane `k` of a chunk accesses its views' elements in
/// lane buffers (`__private::LaneBuf`), loaded before the chunk and stored after it.
struct Vectorised {
    /// The block's first index (the proof's `i` of thread 0).
    first: TokenStream,
    /// The thread code: the recomputed `let`s and the body, without the guard.
    stmts: Vec<Stmt>,
    loaded: Vec<Ident>,
    written: Vec<Ident>,
    /// The accesses in program order (`Vector::sites`).
    sites: Vec<(Ident, bool, proc_macro2::Span)>,
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `body` (a kernel body as written, with buffer parameters `out: &mut [i32]` and
    /// `inp: &[f32]` and scalar `n: u32`) rewritten and made a host body as `#[kernel]` does,
    /// with its context's name and its parameters' names.
    fn host_body(body: TokenStream) -> (Block, Ident, [String; 3]) {
        let mut b: Block = syn::parse2(quote!({ #body })).unwrap();
        let views = vec![("out".to_string(), true), ("inp".to_string(), true), ("n".to_string(), false)];
        let (errors, _) = crate::rewrite::rewrite_block(&mut b, views, true, "k");
        assert!(errors.is_empty(), "{errors:?}");
        let ctx = Ident::new("__emu_ctx", Span::call_site());
        crate::host_body::host_body(&mut b, &ctx, false);
        (b, ctx, ["out", "inp", "n"].map(String::from))
    }

    /// `lower`'s result for `body` ([`host_body`]).
    fn lower_body(body: TokenStream) -> Result<Fission, String> {
        let (b, ctx, names) = host_body(body);
        lower(&b, &names, &names[..2], &names[1..2], &names[2..], &ctx)
    }

    /// `decode`'s result for `body` ([`host_body`]).
    pub(super) fn decode_body(body: TokenStream) -> Result<Decoded, String> {
        let (b, ctx, names) = host_body(body);
        with_kernel(&b, &names[1..2], &names[2..], || decode(&b, &names, &names[..2], &ctx))
    }

    /// The slots `lower` makes for each local of `body` (a kernel body as written, with
    /// buffer parameters `out: &mut [i32]` and `inp: &[f32]` and scalar `n: u32`): the type
    /// `SlotOf` is asked about, or `"tagged"` for `lanes()`.
    fn slots_of(body: TokenStream) -> HashMap<String, String> {
        let f = lower_body(body).expect("lowered");
        let s = f.body.to_string();
        let mut slots = HashMap::new();
        for part in s.split("let mut __emu_lanes_").skip(1) {
            let name = part.split_whitespace().next().unwrap().to_string();
            let value = part[name.len()..].trim_start();
            let ty = if value.starts_with("= __emu_rb . lanes ()") {
                "tagged".to_string()
            } else {
                let rest = &value[value.find("SlotOf :: <").expect(value) + "SlotOf :: <".len()..];
                rest[..rest.find("> :: new").unwrap()].trim().to_string()
            };
            slots.insert(name, ty);
        }
        slots
    }

    #[test]
    fn slots_name_the_type_their_binding_shows() {
        let slots = slots_of(quote! {
            let s = shared_array![f32; 64];
            let d = dynamic_shared::<u16>();
            let w = d.cast::<u8>();
            let t: u32 = thread_idx().x;
            let g = s[t];
            let a = g as i64;
            let b = 3u8 + g as u8;
            let c = [g as f64; 4];
            let e = -(a * 2) + 1;
            let f = a < 3;
            let h = block_idx().x + g as u32;
            let i = 1 << a;
            let j = a;
            let k: [Uint4; 2] = [Uint4 { x: h }; 2];
            let l: (u32, f32) = (t, g);
            let m = (t, g);
            let o = if f { 1 } else { 2 };
            let p: [_; 2] = [a, a];
            let q = w[t] + d[t] as u8;
            s[t] = 1.0;
            sync_threads();
            out[t] = (a + b as i64 + c[0] as i64 + e + f as i64 + g as i64 + h as i64 + i + j) as i32
                + k[0].x as i32 + l.0 as i32 + m.0 as i32 + o + p[1] as i32 + q as i32;
        });
        let want = [
            ("a", "i64"),
            ("b", "u8"),
            ("c", "[f64 ; 4]"),
            ("e", "i64"),
            ("f", "bool"),
            ("g", "f32"),
            ("h", "u32"),
            ("k", "[Uint4 ; 2]"),
            ("l", "(u32 , f32)"),
            ("m", "tagged"),
            ("o", "tagged"),
            ("p", "tagged"),
            ("q", "u8"),
        ];
        for (name, ty) in want {
            assert_eq!(slots.get(name).map(String::as_str), Some(ty), "{name}: {slots:?}");
        }
        // `1 << a`: a literal's type is not the shift's.
        assert_eq!(slots.get("i").map(String::as_str), Some("tagged"), "{slots:?}");
        // `let j = a;` is a copy (`copies`): its mentions name `a`, and it has no slot.
        assert_eq!(slots.get("j"), None, "{slots:?}");
        assert_eq!(slots.len(), want.len() + 1, "{slots:?}");
    }

    #[test]
    fn closures_of_uniform_values_are_the_blocks() {
        let kernel = |closure: TokenStream| {
            lower_body(quote! {
                let t = shared_array![f32; 64];
                let tid = thread_idx().x as usize;
                let base = block_idx().x as usize * 64;
                let scale = #closure;
                t[tid] = inp[base + tid];
                sync_threads();
                out[base + tid] = scale(t[(tid + 1) % 64]) as i32;
            })
            .err()
        };
        // Parameters, views, uniform locals, constants and its own `let`s: one closure.
        assert_eq!(
            kernel(quote!(|v: f32| {
                let w = v * 2.0;
                w + inp[base] + n as f32 + f32::EPSILON
            })),
            None
        );
        // The thread's own values, or its indices: one closure per thread.
        let per_thread = Some("a closure, `scale`, kept for each thread across a barrier".to_string());
        assert_eq!(kernel(quote!(|v: f32| v + tid as f32)), per_thread);
        assert_eq!(kernel(quote!(|v: f32| v + thread_idx().x as f32)), per_thread);
    }

    #[test]
    fn names_in_a_shared_arrays_tokens_are_not_the_kernels() {
        // `shared_array!`'s GPU form has an `asm!` whose operands name `p` and `core`: a
        // loop counter `p` is still a uniform value that no macro assigns.
        let r = lower_body(quote! {
            let s = shared_array![u32; 64];
            let t = thread_idx().x as usize;
            s[t] = 1;
            sync_threads();
            let mut p: u32 = 0;
            let mut acc: u32 = 0;
            while p < n {
                p += 1;
                acc += s[(t + p as usize) % 64];
                sync_threads();
            }
            out[t] = acc as i32;
        });
        assert_eq!(r.err(), None);
    }

    #[test]
    fn lanes_and_values_an_if_picks_from_indices_are_recomputed() {
        let slots = slots_of(quote! {
            let t: u32 = thread_idx().x;
            let lane = lane_id();
            let by_path = deviceemu::lane_id() as i32;
            let warp: u32 = if WARPS == 1 { 0 } else { t / 32 };
            let pick = if t < 3 { t } else if t < 9 { 2 * t } else { t + block_idx().x };
            let g = inp[t];
            let kept = if g < 1.0 { t } else { lane };
            let open = if t < 3 { t } else { n; t };
            out[t] = 1;
            sync_threads();
            out[t] = (lane + by_path as u32 + warp + pick + kept + open) as i32;
        });
        // A load decides `kept`; `open`'s branch is not a lone value.
        let mut kept: Vec<&str> = slots.keys().map(String::as_str).collect();
        kept.sort();
        assert_eq!(kept, ["kept", "open"], "{slots:?}");
    }
}

#[cfg(test)]
mod single_assignment_tests {
    use super::*;

    fn single(body: TokenStream) -> String {
        let b: Block = syn::parse2(quote!({ #body })).unwrap();
        let mut stmts = b.stmts;
        single_assignments(&mut stmts, &mut 0);
        quote!(#(#stmts)*).to_string()
    }

    #[test]
    fn a_compound_assignment_binds_a_new_name() {
        let s = single(quote! { let mut idx: i32 = t; s[idx] = 0; idx += d; s[idx] = v; idx -= 1 + e; out = idx; });
        let want = quote! {
            let idx: i32 = t; s[idx] = 0;
            #[allow(unused_mut)] let __emu_idx_s0: i32 = idx + d; s[__emu_idx_s0] = v;
            #[allow(unused_mut)] let __emu_idx_s1: i32 = __emu_idx_s0 - (1 + e); out = __emu_idx_s1;
        };
        assert_eq!(s, want.to_string());
    }

    #[test]
    fn a_name_changed_later_stays_mutable() {
        let s = single(quote! { let mut a: u32 = 1; a = 2 * a; while c { a += 1; } f(a); });
        assert!(s.starts_with("let a : u32 = 1 ;"), "{s}");
        assert!(s.contains("let mut __emu_a_s0 : u32 = 2 * a ; while c { __emu_a_s0 += 1 ; }"), "{s}");
    }

    #[test]
    fn what_it_leaves_alone() {
        // Not a primitive, bound in an outer list, a value that changes the name, an inline
        // format argument, no annotation.
        for body in [
            quote! { let mut v: Uint4 = u; v += w; g(v); },
            quote! { let mut a: i32 = 0; if c { a += 1; } g(a); },
            quote! { let mut a: i32 = 0; a += { a = 3; 1 }; g(a); },
            quote! { let mut a: i32 = 0; a += 1; print!("{a}"); },
            quote! { let mut a = 0; a += 1; g(a); },
        ] {
            let before = body.to_string();
            assert_eq!(single(body), before);
        }
    }
}

#[cfg(test)]
mod copies_tests {
    use super::*;

    fn copied(body: TokenStream) -> String {
        let b: Block = syn::parse2(quote!({ #body })).unwrap();
        let mut stmts = b.stmts;
        copies(&mut stmts);
        quote!(#(#stmts)*).to_string()
    }

    #[test]
    fn a_copy_of_a_local_is_the_local() {
        // CUB's TempStorage members, and a helper's parameter bound to one of them.
        let s = copied(quote! {
            let t = shared_array![i32; 64];
            let load = t;
            let scan = t;
            let grid = scan;
            load[i] = 1;
            sync_threads();
            out[i] = grid[i] + scan[0] + f(load);
        });
        let want = quote! {
            let t = shared_array![i32; 64];
            t[i] = 1;
            sync_threads();
            out[i] = t[i] + t[0] + f(t);
        };
        assert_eq!(s, want.to_string());
    }

    #[test]
    fn what_it_leaves_alone() {
        // Either name mutable, a typed copy (a coercion may change the value's type), a
        // parameter or `const` (no earlier `let`), a name bound twice (in a closure, an inner
        // block), an inline format argument, a copy inside a block.
        for body in [
            quote! { let t = s; let mut a = t; a = u; g(a); },
            quote! { let mut t = s; let a = t; t = u; g(a, t); },
            quote! { let t = s; let a: &[i32] = t; g(a); },
            quote! { let a = param; g(a); },
            quote! { let a = N; g(a); },
            quote! { let t = s; let a = t; h(|a| a + 1); g(a); },
            quote! { let t = s; let a = t; if c { let t = 2; g(t); } g(a); },
            quote! { let t = s; let a = t; print!("{a}"); },
            quote! { let t = s; if c { let a = t; g(a); } },
        ] {
            let before = body.to_string();
            assert_eq!(copied(body), before);
        }
    }
}
